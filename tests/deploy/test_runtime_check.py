"""bin/check_runtime.py, which CI runs on requirements.txt: it fails when a runtime dependency is missing.

Its passing run is `make check-runtime` in .ci/run; this proves the same check catches the
failure it exists for: a module one of the processes imports at start that no requirement
installs. `uvicorn-worker` is the one left out here: only the web process imports it, after
collectstatic and migrate have passed, and nothing else in requirements.txt pulls it in.
(`packaging`, the dependency once missing, now also arrives through huggingface_hub, so leaving
its line out would prove nothing.)
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from django.db import connection

from tests.conftest import redis_test_url
from tests.deploy.conftest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_without_uvicorn_worker_in_the_requirements_the_check_fails_and_names_it(tmp_path) -> None:
    requirements = tmp_path / "requirements-without-uvicorn-worker.txt"
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    kept = [line for line in lines if not line.startswith("uvicorn-worker==")]
    assert len(kept) == len(lines) - 1
    requirements.write_text("\n".join(kept) + "\n")
    database = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}",
        "RUNTIME_CHECK_REDIS_URL": redis_test_url(),
    }

    done = subprocess.run(
        [
            sys.executable,
            "bin/check_runtime.py",
            "--requirements",
            str(requirements),
            "--workdir",
            str(tmp_path / "check"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )

    assert done.returncode == 1, done.stdout
    assert "runtime check FAILED: the processes stopped" in done.stdout
    assert re.search(r"procfile \| web exited with code \d+; stopping", done.stdout), done.stdout
    assert "ModuleNotFoundError: No module named 'uvicorn_worker'" in done.stdout
