"""The Dockerfile and docker-compose.yml take the paths the tests take (no container engine runs here).

The image's steps are the Makefile's commands, which bin/check_runtime.py runs in CI; its
processes are the Procfile's, which tests/deploy runs; its health check is bin/healthcheck.py,
tested against gunicorn in test_production_server.py.
"""

from __future__ import annotations

import re

import yaml

from tests.deploy.conftest import ROOT

DOCKERFILE = (ROOT / "Dockerfile").read_text()
MAKEFILE = (ROOT / "Makefile").read_text()
PROCFILE = [line.split(":", 1)[0] for line in (ROOT / "Procfile").read_text().splitlines() if line.strip()]


def instructions(name: str) -> list[str]:
    joined = DOCKERFILE.replace("\\\n", " ")
    return [m.group(1).strip() for m in re.finditer(rf"^{name}\s+(.+)$", joined, re.M)]


def test_the_image_is_python_3_12_slim_and_runs_as_a_user_of_its_own() -> None:
    assert instructions("FROM") == ["python:3.12-slim"]
    (user,) = instructions("USER")
    assert user not in ("root", "0")
    assert re.search(rf"useradd .*{user}", DOCKERFILE)


def test_each_build_step_is_the_command_the_makefile_runs() -> None:
    steps = " ".join(instructions("RUN"))
    for makefile_command in (
        "-m venv $(VENV)",
        "$(BIN)/pip install -q -r requirements.txt",
        "DEBUG=false SECRET_KEY=collectstatic-only $(BIN)/python manage.py collectstatic --no-input -v0",
    ):
        assert makefile_command in MAKEFILE
        image_command = makefile_command.replace("$(VENV)", ".venv").replace("$(BIN)", ".venv/bin")
        assert image_command in steps, image_command


def test_it_serves_the_procfile_web_line_and_checks_its_health() -> None:
    assert instructions("CMD") == ['["python", "bin/procfile.py", "exec", "web"]']
    (healthcheck,) = instructions("HEALTHCHECK")
    assert healthcheck.endswith('CMD ["python", "bin/healthcheck.py"]')


def test_compose_builds_one_image_and_runs_each_process_of_the_procfile_from_it() -> None:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    ours = {name: service for name, service in services.items() if service.get("image") == "memoryadmin:local"}
    assert [name for name, service in ours.items() if "build" in service] == ["migrate"]
    for name in ("web", "worker", "beat"):
        assert ours[name]["command"] == ["python", "bin/procfile.py", "exec", name]
        assert name in PROCFILE
        # Migrations once, before any of them starts.
        assert ours[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
    assert "bin/procfile.py exec release" in " ".join(ours["migrate"]["command"])
