"""bin/ensure-docs-tools, a step of `make test`: jq and curl for the docs' walkthroughs, or one line naming them."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.deploy.conftest import ROOT
from tests.deploy.test_ensure_browser import run_script

SCRIPT = ROOT / "bin" / "ensure-docs-tools"


def run(tmp_path: Path, tools: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run_script(SCRIPT, tmp_path, tools=tools)


def test_it_does_nothing_when_jq_and_curl_are_there(tmp_path) -> None:
    done = run(tmp_path, {"jq": "", "curl": ""})
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_without_them_or_a_way_to_install_them_it_names_them_in_one_line(tmp_path) -> None:
    done = run(tmp_path, {"id": "echo 1000", "curl": ""})
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert "install them" in line and "jq curl" in line


def test_as_root_with_apt_it_installs_them(tmp_path) -> None:
    calls = tmp_path / "apt-calls"
    apt_get = (
        f'echo "$@" >> {calls}\n'
        f'case "$1" in install) printf "#!/bin/sh\\n" > {tmp_path}/bin/jq; chmod 755 {tmp_path}/bin/jq;; esac\n'
    )
    done = run(tmp_path, {"id": "echo 0", "apt-get": apt_get, "curl": "", "chmod": ""})
    assert done.returncode == 0, done.stderr
    assert calls.read_text().splitlines() == ["update -qq", "install -y -qq jq curl"]
