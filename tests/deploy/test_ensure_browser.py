"""bin/ensure-browser, the first step of `make test`: Chromium and its driver, or one line saying what to install."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.deploy.conftest import ROOT

SCRIPT = ROOT / "bin" / "ensure-browser"


def run(tmp_path: Path, *, tools: dict[str, str], chromium: Path, driver: Path) -> subprocess.CompletedProcess[str]:
    env = {"CHROMIUM_BINARY": str(chromium), "CHROMEDRIVER": str(driver)}
    return run_script(SCRIPT, tmp_path, tools=tools, env=env)


def run_script(
    script: Path, tmp_path: Path, *, tools: dict[str, str], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`script` with only `tools` on PATH (name -> a script's body, or "" for the machine's own)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, body in tools.items():
        target = bin_dir / name
        if body:
            target.write_text("#!/bin/sh\n" + body)
            target.chmod(0o755)
        else:
            target.symlink_to(shutil.which(name))
    return subprocess.run(
        ["/bin/sh", str(script)], env={"PATH": str(bin_dir), **(env or {})}, capture_output=True, text=True, check=False
    )


def test_it_does_nothing_when_chromium_and_its_driver_are_there(tmp_path) -> None:
    chromium, driver = tmp_path / "chromium", tmp_path / "chromedriver"
    for path in (chromium, driver):
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755)
    done = run(tmp_path, tools={}, chromium=chromium, driver=driver)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_without_a_way_to_install_it_stops_with_one_line_naming_what_to_install(tmp_path) -> None:
    done = run(tmp_path, tools={"id": ""}, chromium=tmp_path / "chromium", driver=tmp_path / "chromedriver")
    assert done.returncode == 1
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert "install chromium and chromium-driver" in line


def test_as_root_with_apt_it_installs_chromium_and_its_driver(tmp_path) -> None:
    chromium, driver, calls = tmp_path / "chromium", tmp_path / "chromedriver", tmp_path / "apt-calls"
    # Debian's apt-get as far as this script sees it: it records its arguments and installs the two binaries.
    apt_get = (
        f'echo "$@" >> {calls}\n'
        f'case "$1" in install) printf "#!/bin/sh\\n" > {chromium}; cp {chromium} {driver}; '
        f"chmod 755 {chromium} {driver};; esac\n"
    )
    done = run(
        tmp_path, tools={"id": "echo 0", "apt-get": apt_get, "cp": "", "chmod": ""}, chromium=chromium, driver=driver
    )
    assert done.returncode == 0, done.stderr
    assert calls.read_text().splitlines() == ["update -qq", "install -y -qq chromium chromium-driver"]
    assert os.access(chromium, os.X_OK) and os.access(driver, os.X_OK)


def test_when_apt_cannot_install_it_says_so_in_one_line(tmp_path) -> None:
    done = run(
        tmp_path,
        tools={"id": "echo 0", "apt-get": "exit 100\n"},
        chromium=tmp_path / "chromium",
        driver=tmp_path / "chromedriver",
    )
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert "apt-get could not install them: install chromium and chromium-driver" in line
