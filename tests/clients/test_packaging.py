"""`pip install ./clients/python` gives an importable, typed package that needs only what it declares."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_client_installs_with_pip_into_a_fresh_environment(tmp_path) -> None:
    # Built from a copy: a build leaves its working files beside the sources.
    source = shutil.copytree(ROOT / "clients/python", tmp_path / "source", ignore=shutil.ignore_patterns("build"))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(source)],
        check=True,
        timeout=600,
    )
    (wheel,) = tmp_path.glob("memoryadmin_client-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "memoryadmin_client/py.typed" in names and "memoryadmin_client/models.py" in names
    assert not any(name.startswith(("tests/", "memoryadmin/")) for name in names)

    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    # With its dependencies from the package index: what it declares must be enough to import it.
    subprocess.run([python, "-m", "pip", "install", "-q", str(wheel)], check=True, timeout=600)
    shown = subprocess.run(
        [python, "-c", "import memoryadmin_client as m; print(m.__version__, m.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert shown[0] == "0.1.0"
    assert shown[1].startswith(str(env_dir))
