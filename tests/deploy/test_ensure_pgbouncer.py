"""bin/ensure-pgbouncer, the first step of `make test-pgbouncer`: PgBouncer, or one line saying what to install."""

from __future__ import annotations

import os
from pathlib import Path

from tests.deploy.conftest import ROOT
from tests.deploy.test_ensure_browser import run_script

SCRIPT = ROOT / "bin" / "ensure-pgbouncer"


def run(tmp_path: Path, *, tools: dict[str, str], pgbouncer: Path):
    return run_script(SCRIPT, tmp_path, tools=tools, env={"PGBOUNCER": str(pgbouncer)})


def test_it_does_nothing_when_pgbouncer_is_there(tmp_path) -> None:
    pgbouncer = tmp_path / "pgbouncer"
    pgbouncer.write_text("#!/bin/sh\n")
    pgbouncer.chmod(0o755)
    done = run(tmp_path, tools={}, pgbouncer=pgbouncer)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_without_a_way_to_install_it_stops_with_one_line_naming_what_to_install(tmp_path) -> None:
    done = run(tmp_path, tools={"id": ""}, pgbouncer=tmp_path / "pgbouncer")
    assert done.returncode == 1
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert "install pgbouncer" in line


def test_as_root_with_apt_it_installs_pgbouncer(tmp_path) -> None:
    pgbouncer, calls = tmp_path / "pgbouncer", tmp_path / "apt-calls"
    # Debian's apt-get as far as this script sees it: it records its arguments and installs the binary.
    apt_get = (
        f'echo "$@" >> {calls}\n'
        f'case "$1" in install) printf "#!/bin/sh\\n" > {pgbouncer}; chmod 755 {pgbouncer};; esac\n'
    )
    done = run(tmp_path, tools={"id": "echo 0", "apt-get": apt_get, "chmod": ""}, pgbouncer=pgbouncer)
    assert done.returncode == 0, done.stderr
    assert calls.read_text().splitlines() == ["update -qq", "install -y -qq pgbouncer"]
    assert os.access(pgbouncer, os.X_OK)


def test_when_apt_cannot_install_it_says_so_in_one_line(tmp_path) -> None:
    done = run(tmp_path, tools={"id": "echo 0", "apt-get": "exit 100\n"}, pgbouncer=tmp_path / "pgbouncer")
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert "apt-get could not install it: install pgbouncer" in line
