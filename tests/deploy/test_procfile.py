"""bin/procfile.py, which `make run` uses: web, worker and beat run together or not at all."""

from __future__ import annotations

import os
import signal

import pytest

from tests.deploy.conftest import ROOT, app_env, gone
from tests.extraction.conftest import wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_procfile_declares_the_release_step_and_the_three_processes() -> None:
    declared = dict(line.split(":", 1) for line in (ROOT / "Procfile").read_text().splitlines() if line.strip())
    assert list(declared) == ["release", "web", "worker", "beat"]
    assert "gunicorn memoryadmin.asgi:application" in declared["web"]
    assert "--worker-class memoryadmin.web_worker.UvicornWorker" in declared["web"]
    assert "${PORT:-8000}" in declared["web"]
    assert "celery -A memoryadmin worker" in declared["worker"]
    assert "celery -A memoryadmin beat" in declared["beat"]


def test_when_the_worker_dies_everything_stops_and_it_says_which_one_and_shows_its_last_lines(
    supervise, tmp_path
) -> None:
    processes = supervise(["start"], app_env(BEAT_SCHEDULE=str(tmp_path / "beat-schedule")))
    web, worker, beat = (processes.pid_of(name) for name in ("web", "worker", "beat"))
    processes.wait_until_serving()
    processes.wait_for_line(r"^worker\s+\| .*ready\.")
    processes.wait_for_line(r"^beat\s+\| .*beat: Starting")

    os.kill(worker, signal.SIGKILL)

    assert processes.wait() == 1
    output = processes.output
    assert "procfile | worker was killed by signal 9; stopping web, beat" in output
    last_lines = output.split("procfile | worker was killed by signal 9. Its last lines:\n", 1)[1]
    assert "ready." in last_lines
    assert all(line.startswith("    ") for line in last_lines.splitlines())
    # Web and beat, and every child of theirs (gunicorn's worker, celery's pool), are gone.
    wait_for(lambda: gone(web) and gone(worker) and gone(beat), timeout=10)


def test_a_process_that_cannot_start_stops_the_others_with_its_reason(supervise, tmp_path) -> None:
    procfile = tmp_path / "Procfile"
    procfile.write_text(
        (ROOT / "Procfile").read_text().replace("celery -A memoryadmin worker", "celery -A memoryadmin.nowhere worker")
    )
    processes = supervise(["--procfile", str(procfile), "start", "web", "worker"], app_env())
    web = processes.pid_of("web")

    assert processes.wait() == 1
    output = processes.output
    assert "procfile | worker exited with code 2; stopping web" in output
    last_lines = output.split("Its last lines:\n", 1)[1]
    assert "memoryadmin.nowhere" in last_lines
    wait_for(lambda: gone(web), timeout=10)


def test_ctrl_c_stops_every_process_and_exits_cleanly(supervise, tmp_path) -> None:
    processes = supervise(["start"], app_env(BEAT_SCHEDULE=str(tmp_path / "beat-schedule")))
    pids = [processes.pid_of(name) for name in ("web", "worker", "beat")]
    processes.wait_until_serving()
    processes.wait_for_line(r"^worker\s+\| .*ready\.")

    processes.popen.send_signal(signal.SIGINT)

    assert processes.wait() == 0
    assert "procfile | stopping web, worker, beat" in processes.output
    assert "killing it" not in processes.output
    wait_for(lambda: all(gone(pid) for pid in pids), timeout=10)


def test_it_refuses_a_name_the_procfile_does_not_declare(supervise) -> None:
    processes = supervise(["start", "web", "scheduler"], app_env())
    assert processes.wait() == 1
    assert "not in the Procfile: scheduler (it declares release, web, worker, beat)" in processes.output
    assert "started" not in processes.output


def test_exec_becomes_the_declared_process(supervise) -> None:
    processes = supervise(["exec", "release"], app_env())
    assert processes.wait(timeout=60) == 0
    assert "No migrations to apply." in processes.output
    assert "procfile |" not in processes.output
