"""Prove that requirements.txt alone runs memoryadmin: python bin/check_runtime.py [--requirements FILE]

In a virtualenv built from the requirements file only (no development requirements), with
production settings (DEBUG off), on a database of its own: the image's build steps (install,
collectstatic), the Procfile's release step (migrate), then the Procfile's web, worker and beat
under bin/procfile.py. One message appended over HTTP must be extracted by that worker, a task
that beat schedules must reach it, and the pages' static files must answer. Any failure, a
process that dies among them, ends the check with its reason and the processes' last lines.

Only the standard library is used; any Python 3.12 runs it. The environment's DATABASE_URL names
the PostgreSQL server (the check's database is that name with `_runtime_check` appended, created
and dropped here). RUNTIME_CHECK_REDIS_URL names a Redis database of the check's own, emptied
first (default: database 15 of REDIS_URL's server): keys and queued tasks of another database's
namespaces and sessions, whose ids the check's coincide with, must not stand in its way.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/memoryadmin"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
SESSION, USER, SAID, EXPECTED = "runtime-check", "check-user", "Hi, I live in Lyon.", "User lives in Lyon"
BEAT_TASK = "memoryadmin.governance.tasks.requeue_lost_erasures"


class CheckFailed(Exception):
    pass


def step(name: str, action: Callable[[], object]) -> object:
    started = time.monotonic()
    result = action()
    print(f"runtime check: {name} ({time.monotonic() - started:.1f}s)", flush=True)
    return result


def run(command: list[str], env: dict[str, str], what: str) -> str:
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise CheckFailed(f"{what} failed (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    return done.stdout


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


def drop_database(python: Path, env: dict[str, str], name: str) -> None:
    # With the virtualenv's psycopg (a runtime dependency), from the server's maintenance database.
    code = (
        "import os, psycopg\n"
        "from psycopg import sql\n"
        "drop = sql.SQL('DROP DATABASE IF EXISTS {} WITH (FORCE)').format(sql.Identifier(os.environ['CHECK_DB']))\n"
        "with psycopg.connect(os.environ['CHECK_ADMIN_URL'], autocommit=True) as c:\n"
        "    c.execute(drop)\n"
    )
    admin_url = with_database(env["DATABASE_URL"], "postgres").replace("postgres://", "postgresql://", 1)
    run([str(python), "-c", code], {**env, "CHECK_ADMIN_URL": admin_url, "CHECK_DB": name}, "dropping the database")


class Supervisor:
    """bin/procfile.py start, its output kept (and shown when the check fails)."""

    def __init__(self, python: Path, env: dict[str, str], log: Path) -> None:
        self.lines: collections.deque[str] = collections.deque(maxlen=400)
        self.log = log.open("w")
        self.popen = subprocess.Popen(
            [str(python), str(ROOT / "bin" / "procfile.py"), "start", "web", "worker", "beat"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            self.lines.append(line.rstrip("\n"))
            self.log.write(line)
            self.log.flush()

    def saw(self, pattern: str) -> bool:
        return any(re.search(pattern, line) for line in list(self.lines))

    def alive(self) -> None:
        if self.popen.poll() is not None:
            self.reader.join(timeout=5)
            raise CheckFailed(f"the processes stopped (supervisor exit {self.popen.returncode})")

    def stop(self) -> int:
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
        try:
            code = self.popen.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.popen.pid, signal.SIGKILL)
            code = self.popen.wait()
        self.reader.join(timeout=5)
        return code


def wait_until(what: str, predicate: Callable[[], object], supervisor: Supervisor, timeout: float) -> object:
    deadline = time.monotonic() + timeout
    while True:
        supervisor.alive()
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise CheckFailed(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(0.2)


def http(method: str, url: str, *, key: str = "", body: object = None) -> tuple[int, bytes]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(url, data=data, method=method, headers=headers)  # noqa: S310 - loopback
    try:
        with urllib.request.urlopen(request, timeout=5) as response:  # noqa: S310 - loopback
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
    except OSError:
        return 0, b""


def check(requirements: Path, workdir: Path) -> None:
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    venv = workdir / "venv"
    python = venv / "bin" / "python"
    base_url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    database = urlsplit(base_url).path.lstrip("/") + "_runtime_check"
    port = int(os.environ.get("RUNTIME_CHECK_PORT") or free_port())
    redis_url = os.environ.get("RUNTIME_CHECK_REDIS_URL") or with_database(
        os.environ.get("REDIS_URL") or DEFAULT_REDIS_URL, "15"
    )
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))},
        "DATABASE_URL": with_database(base_url, database),
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": redis_url,
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(40),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        # Plain HTTP on loopback: in production TLS sits in front.
        "SECURE_SSL_REDIRECT": "false",
        "STATIC_ROOT": str(workdir / "static"),
        "BEAT_SCHEDULE": str(workdir / "celerybeat-schedule"),
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "WEB_CONCURRENCY": "1",
        "WORKER_CONCURRENCY": "1",
        "EXTRACTION_DEBOUNCE_SECONDS": "0.5",
        # Beat's shortest schedule, so a task of beat's reaches the worker within the check.
        "ERASURE_REQUEUE_SECONDS": "10",
    }
    step(
        f"virtualenv from {requirements.name} alone",
        lambda: (
            run([sys.executable, "-m", "venv", str(venv)], env, "creating the virtualenv"),
            run([str(python), "-m", "pip", "install", "-q", "-r", str(requirements)], env, "pip install"),
        ),
    )
    step(
        "collectstatic",
        lambda: run([str(python), "manage.py", "collectstatic", "--no-input", "-v0"], env, "collectstatic"),
    )
    drop_database(python, env, database)
    flush = "import redis, sys; redis.Redis.from_url(sys.argv[1]).flushdb()"
    run([str(python), "-c", flush, redis_url], env, "emptying the check's Redis database")
    try:
        step(
            "database and the release step (migrate)",
            lambda: (
                run([str(python), "manage.py", "ensure_database"], env, "ensure_database"),
                run([str(python), "bin/procfile.py", "exec", "release"], env, "the release step"),
            ),
        )
        run([str(python), "manage.py", "create_namespace", "runtime-check"], env, "create_namespace")
        key = (
            run(
                [str(python), "manage.py", "create_api_key", "runtime-check", "--scopes", "read,write"],
                env,
                "create_api_key",
            )
            .strip()
            .splitlines()[-1]
        )
        serve(python, env, f"http://127.0.0.1:{port}", key, workdir / "processes.log")
    finally:
        drop_database(python, env, database)


def serve(python: Path, env: dict[str, str], base: str, key: str, log: Path) -> None:
    started = time.monotonic()
    supervisor = Supervisor(python, env, log)
    try:
        wait_until("the web process", lambda: http("GET", base + "/api/v1/health")[0] == 200, supervisor, 60)
        wait_until("the worker", lambda: supervisor.saw(r"^worker\s+\|.*ready\."), supervisor, 60)
        wait_until("beat", lambda: supervisor.saw(r"^beat\s+\|.*beat: Starting"), supervisor, 60)
        print(f"runtime check: web, worker and beat up ({time.monotonic() - started:.1f}s)", flush=True)

        status, page = http("GET", base + "/login/")
        if status != 200:
            raise CheckFailed(f"/login/ answered {status}")
        assets = re.findall(r'(?:href|src)="(/static/[^"]+)"', page.decode())
        missing = [url for url in assets if http("GET", base + url)[0] != 200]
        if not assets or missing:
            raise CheckFailed(f"static files not served: {missing or 'the page links none'}")
        print(f"runtime check: the sign-in page's {len(assets)} static files answer 200", flush=True)

        status, body = http(
            "POST",
            f"{base}/api/v1/sessions/{SESSION}/messages",
            key=key,
            body={"user_id": USER, "messages": [{"role": "user", "content": SAID}]},
        )
        if status not in (200, 201):
            raise CheckFailed(f"appending a message answered {status}: {body[:500]!r}")

        def extracted() -> bool:
            status, body = http("GET", f"{base}/api/v1/memories?user_id={USER}", key=key)
            return status == 200 and any(item["text"] == EXPECTED for item in json.loads(body)["items"])

        since = time.monotonic()
        wait_until(f"the worker to extract {EXPECTED!r}", extracted, supervisor, 60)
        print(f"runtime check: the appended message was extracted ({time.monotonic() - since:.1f}s)", flush=True)
        since = time.monotonic()
        wait_until(
            "a task of beat's to reach the worker",
            lambda: supervisor.saw(rf"^worker\s+\|.*Task {re.escape(BEAT_TASK)}\[[^]]+\] succeeded"),
            supervisor,
            60,
        )
        print(f"runtime check: beat's {BEAT_TASK} ran on the worker ({time.monotonic() - since:.1f}s)", flush=True)
    except CheckFailed:
        supervisor.stop()
        print("\n".join(supervisor.lines), flush=True)
        raise
    code = supervisor.stop()
    if code != 0:
        print("\n".join(supervisor.lines), flush=True)
        raise CheckFailed(f"the supervisor did not stop cleanly (exit {code})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requirements", type=Path, default=ROOT / "requirements.txt")
    parser.add_argument("--workdir", type=Path, default=ROOT / "var" / "runtime-check")
    args = parser.parse_args()
    started = time.monotonic()
    try:
        check(args.requirements.resolve(), args.workdir.resolve())
    except CheckFailed as exc:
        print(f"runtime check FAILED: {exc}", flush=True)
        return 1
    print(f"runtime check passed ({time.monotonic() - started:.1f}s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
