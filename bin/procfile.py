"""Run the processes the Procfile declares: the one place they are written down.

    python bin/procfile.py start [NAME ...]   web, worker and beat (every process but release) until one exits
    python bin/procfile.py exec NAME          become NAME's process (a container's command)

`start` runs each process in its own process group, its output prefixed with its name. When one
of them exits, for whatever reason, it stops the others and says which one died, with its last
lines, so nothing half-runs; Ctrl-C (or SIGTERM) stops them all. The directory of the Python
running this script comes first on PATH, so `gunicorn`, `celery` and `python` are the
virtualenv's. Only the standard library is used: this runs before anything else is checked.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ONE_OFF = {"release"}
LAST_LINES = 15
STOP_SECONDS = 10.0
LINE = re.compile(r"^([A-Za-z0-9_-]+):\s*(.+)$")


def read_procfile(path: Path) -> dict[str, str]:
    processes: dict[str, str] = {}
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = LINE.match(line)
        if match is None:
            raise SystemExit(f"{path}:{number}: expected 'name: command', got {raw!r}")
        processes[match.group(1)] = match.group(2)
    return processes


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    # Output goes through a pipe: unbuffered, so a process's last lines are there when it dies.
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def say(message: str) -> None:
    print(f"procfile | {message}", flush=True)


@dataclass
class Process:
    name: str
    command: str
    width: int
    popen: subprocess.Popen[bytes] | None = None
    last: collections.deque[str] = field(default_factory=lambda: collections.deque(maxlen=LAST_LINES))
    reader: threading.Thread | None = None

    def start(self, env: dict[str, str]) -> None:
        self.popen = subprocess.Popen(
            ["/bin/sh", "-c", f"exec {self.command}"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.reader = threading.Thread(target=self._relay, daemon=True)
        self.reader.start()
        say(f"started {self.name} (pid {self.popen.pid}): {self.command}")

    def _relay(self) -> None:
        assert self.popen is not None and self.popen.stdout is not None
        prefix = f"{self.name:<{self.width}} | "
        for raw in self.popen.stdout:
            line = raw.decode(errors="replace").rstrip("\n")
            self.last.append(line)
            sys.stdout.write(prefix + line + "\n")
            sys.stdout.flush()

    def exited(self) -> int | None:
        return None if self.popen is None else self.popen.poll()

    def terminate(self) -> None:
        # The process itself, not its group: gunicorn and celery stop their own children in order.
        if self.popen is not None and self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)

    def kill_group(self) -> None:
        # What is left of its group (a pool child whose parent died, say) must not outlive it.
        if self.popen is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)


def stop_all(processes: list[Process]) -> None:
    for process in processes:
        process.terminate()
    deadline = time.monotonic() + STOP_SECONDS
    for process in processes:
        if process.popen is None:
            continue
        try:
            process.popen.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            say(f"{process.name} did not stop within {STOP_SECONDS:.0f}s; killing it")
        process.kill_group()
        process.popen.wait()
    for process in processes:
        if process.reader is not None:
            process.reader.join(timeout=2)


def report_death(dead: Process, processes: list[Process]) -> int:
    assert dead.popen is not None and dead.reader is not None
    code = dead.popen.returncode
    how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
    # Its last output may trail its exit by a moment (or never end, if a child holds the pipe).
    dead.reader.join(timeout=1)
    others = [p for p in processes if p is not dead]
    say(f"{dead.name} {how}; stopping {', '.join(p.name for p in others) or 'nothing else'}")
    stop_all(processes)
    say(f"{dead.name} {how}. Its last lines:")
    for line in dead.last or ["(it printed nothing)"]:
        print(f"    {line}", flush=True)
    return 1


def start(procfile: dict[str, str], names: list[str]) -> int:
    names = names or [name for name in procfile if name not in ONE_OFF]
    unknown = [name for name in names if name not in procfile]
    if unknown:
        raise SystemExit(f"not in the Procfile: {', '.join(unknown)} (it declares {', '.join(procfile)})")
    width = max(len(name) for name in [*names, "procfile"])
    processes = [Process(name, procfile[name], width) for name in names]
    stopping: list[int] = []

    def on_signal(signum: int, _frame: object) -> None:
        stopping.append(signum)

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    env = environment()
    try:
        for process in processes:
            process.start(env)
        while not stopping:
            dead = next((p for p in processes if p.exited() is not None), None)
            if dead is not None:
                return report_death(dead, processes)
            time.sleep(0.2)
        say(f"stopping {', '.join(names)}")
        return 0
    finally:
        stop_all(processes)


def exec_process(procfile: dict[str, str], name: str) -> None:
    if name not in procfile:
        raise SystemExit(f"not in the Procfile: {name} (it declares {', '.join(procfile)})")
    os.chdir(ROOT)
    os.execve("/bin/sh", ["/bin/sh", "-c", f"exec {procfile[name]}"], environment())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--procfile", type=Path, default=ROOT / "Procfile")
    commands = parser.add_subparsers(dest="command", required=True)
    start_parser = commands.add_parser("start", help="run processes until one exits or Ctrl-C")
    start_parser.add_argument("names", nargs="*", help="default: every process but release")
    exec_parser = commands.add_parser("exec", help="replace this process with one of the Procfile's")
    exec_parser.add_argument("name")
    args = parser.parse_args(argv)
    procfile = read_procfile(args.procfile)
    if args.command == "exec":
        exec_process(procfile, args.name)
    return start(procfile, args.names)


if __name__ == "__main__":
    sys.exit(main())
