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


def test_the_scale_file_runs_two_web_and_two_workers_through_the_pooler_with_a_replica_for_reads() -> None:
    base = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    scale = yaml.safe_load((ROOT / "docker-compose.scale.yml").read_text())["services"]
    processes = {"web": "web", "web-2": "web", "worker": "worker", "worker-2": "worker", "beat": "beat"}
    for name, process in processes.items():
        merged = {**base.get(name, {}), **scale[name]}
        assert merged["image"] == "memoryadmin:local" and "build" not in merged
        assert merged["command"] == ["python", "bin/procfile.py", "exec", process]
        environment = merged["environment"]
        assert environment["DATABASE_URL"].startswith("postgres://postgres:postgres@pgbouncer:6432/")
        assert environment["DATABASE_POOLER"] == "transaction"
        assert environment["DATABASE_REPLICA_URLS"].startswith("postgres://postgres:postgres@postgres-replica:5432/")
        assert {"pgbouncer", "postgres-replica", "redis", "migrate"} <= set(merged["depends_on"])
    # The release step migrates the primary itself, not through the pooler.
    assert "DATABASE_URL" not in scale.get("migrate", {}).get("environment", {})
    assert scale["pgbouncer"]["environment"]["POOL_MODE"] == "transaction"
    # The replica is cloned from the primary by a role the primary's first start creates.
    script = next(v.split(":")[0] for v in scale["postgres"]["volumes"] if "docker-entrypoint-initdb.d" in v)
    assert "WITH REPLICATION LOGIN" in (ROOT / script).read_text()
    replica = " ".join(scale["postgres-replica"]["command"])
    assert "pg_basebackup -h postgres -U replicator" in replica and " -R " in replica
