"""The walkthroughs of docs/api.md and docs/mcp.md run as written, block after block, against the ASGI app.

A reader follows them in one shell (the project's folder) and one Python session: so do these tests. The
shell blocks run in one bash process, so a variable one block sets is there for the next; the Python blocks
run in one namespace, with the environment the shell exported. Only the server's address changes: the
docs' `make run` address becomes the test server's, and `manage.py` runs with the test database.

Each `curl` must answer what the docs say it answers: the status a comment right after it starts with
(`# 409 {...}`), or else a 2xx. A block that cannot run here is marked `<!-- not run: why -->` just before
its fence.
"""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from django.core.management import call_command

from memoryadmin.console.management.commands.seed_demo import NAMESPACES as DEMO_NAMESPACES
from memoryadmin.memories.models import Memory, Tombstone
from memoryadmin.tenancy.models import Namespace
from tests.asgi_server import ROOT, server_environ

pytestmark = pytest.mark.django_db(transaction=True)

DOCS = ("docs/api.md", "docs/mcp.md")
DOCUMENTED_SERVER = "http://127.0.0.1:8000"
FENCE = re.compile(r"^```(\w*)\s*$")
NOT_RUN = re.compile(r"^<!--\s*not run:.*-->\s*$")
STATUS_COMMENT = re.compile(r"^#\s*(\d{3})\b")
CURL = re.compile(r"(^|[\s(|;])curl\s")


@dataclass(frozen=True)
class Block:
    doc: str
    line: int
    language: str  # "sh" or "python"
    code: str

    def __str__(self) -> str:
        return f"{self.doc}:{self.line}"


def runnable_blocks(doc: str) -> Iterator[Block]:
    """The shell and Python blocks of a page, in order, leaving out those marked as not run."""
    lines = (ROOT / doc).read_text().splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        start = index
        index += 1
        body = []
        while not FENCE.match(lines[index]) or lines[index].strip() != "```":
            body.append(lines[index])
            index += 1
        index += 1
        language = {"sh": "sh", "bash": "sh", "shell": "sh", "python": "python"}.get(opening.group(1))
        previous = next((line for line in reversed(lines[:start]) if line.strip()), "")
        if language and not NOT_RUN.match(previous):
            yield Block(doc, start + 1, language, "\n".join(body) + "\n")


def expected_statuses(code: str) -> list[int | None]:
    """One entry per curl: the status the first comment line after it names, None (a 2xx) without one."""
    expected: list[int | None] = []
    pending = False
    for line in code.replace("\\\n", " ").splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            if pending and (status := STATUS_COMMENT.match(stripped)):
                expected[-1] = int(status.group(1))
            pending = False
        elif CURL.search(stripped):
            expected.append(None)
            pending = True
    return expected


class Shell:
    """One bash process, fed one block at a time; `curl` reports each answer's status on stderr."""

    PRELUDE = "curl() { command curl --max-time 30 --write-out '%{stderr}HTTP %{response_code}\\n' \"$@\"; }\n"

    def __init__(self, env: dict[str, str], folder: Path) -> None:
        self.folder = folder
        self.start_env = env
        self.env = dict(env)
        self.process = subprocess.Popen(
            ["bash", "--noprofile", "--norc"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self._send(self.PRELUDE)

    def _send(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text)
        self.process.stdin.flush()

    def run(self, block: Block, number: int) -> tuple[str, str]:
        """Runs the block; a failing command (or pipeline) ends the shell and fails the test."""
        script, out, err, env = (self.folder / f"{number}.{suffix}" for suffix in ("sh", "out", "err", "env"))
        script.write_text(block.code)
        self._send(
            f"set -eo pipefail; source {script} </dev/null >{out} 2>{err}; set +eo pipefail; env -0 >{env}; echo done\n"
        )
        assert self.process.stdout is not None
        answer = self.process.stdout.readline()
        output, errors = out.read_text(), err.read_text()
        assert answer == "done\n", f"{block} failed:\n{block.code}\nstdout:\n{output}\nstderr:\n{errors}"
        self.env = dict(item.split("=", 1) for item in env.read_text().split("\0") if "=" in item)
        return output, errors

    def exported(self) -> dict[str, str]:
        """What the blocks exported or changed, for the Python session."""
        return {name: value for name, value in self.env.items() if self.start_env.get(name) != value}

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


@dataclass
class Walkthrough:
    shell_output: dict[str, str]
    python_output: dict[str, str]
    python: dict[str, object]


def walk(asgi_server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Walkthrough:
    shell = Shell(server_environ(), tmp_path)
    python: dict[str, object] = {"__name__": "__main__"}
    shell_output: dict[str, str] = {}
    python_output: dict[str, str] = {}
    try:
        for number, block in enumerate(block for doc in DOCS for block in runnable_blocks(doc)):
            block = replace(block, code=block.code.replace(DOCUMENTED_SERVER, asgi_server.url))
            code = block.code
            if block.language == "sh":
                output, errors = shell.run(block, number)
                statuses = [int(line.split()[1]) for line in errors.splitlines() if line.startswith("HTTP ")]
                expected = expected_statuses(code)
                assert len(statuses) == len(expected), f"{block}: {statuses} for {len(expected)} curls\n{errors}"
                for status, wanted in zip(statuses, expected, strict=True):
                    ok = 200 <= status < 300 if wanted is None else status == wanted
                    assert ok, f"{block}: answered {statuses}, the docs say {expected}\n{output}\n{errors}"
                shell_output[str(block)] = output
            else:
                for name, value in shell.exported().items():
                    monkeypatch.setenv(name, value)
                printed = io.StringIO()
                with contextlib.redirect_stdout(printed):
                    try:
                        exec(compile(code, str(block), "exec"), python)  # noqa: S102
                    except Exception as exc:
                        raise AssertionError(f"{block} raised {exc!r}:\n{code}") from exc
                python_output[str(block)] = printed.getvalue()
    finally:
        shell.close()
    return Walkthrough(shell_output, python_output, python)


def test_the_docs_say_which_namespace_they_create_and_the_demo_has_none_of_that_name() -> None:
    first = next(runnable_blocks("docs/api.md"))
    slug = re.search(r"create_namespace (\S+)", first.code).group(1)
    assert slug not in {name for name, *_ in DEMO_NAMESPACES}


def test_every_block_of_the_api_and_mcp_docs_runs_as_written(asgi_server, tmp_path, monkeypatch) -> None:
    walkthrough = walk(asgi_server, tmp_path, monkeypatch)
    shell = "".join(walkthrough.shell_output.values())
    printed = "".join(walkthrough.python_output.values())
    python = walkthrough.python

    namespace = Namespace.objects.get(slug="my-app")
    assert '"1"' in shell  # the ETag the edit section sends back
    assert "precondition_failed" in shell
    edited = Memory.objects.get(namespace=namespace, text="Alice is allergic to peanuts and cashews")
    assert edited.revision == 2
    assert python["added"].deduplicated is False
    assert "409 tombstoned" in printed
    assert python["memory"].revision == 2
    assert not Memory.objects.filter(namespace=namespace, text__contains="shellfish and kiwi").exists()
    # The tombstones of the pin section were lifted; the memory forgotten under If-Match leaves one for each
    # text it had (before and after its edit).
    assert Tombstone.objects.filter(namespace=namespace).count() == 2
    mcp = walkthrough.python_output[f"docs/mcp.md:{_first_python_line('docs/mcp.md')}"]
    assert "search_memory" in mcp
    assert "allergic" in mcp


def test_the_walkthrough_runs_after_the_demo_was_seeded(asgi_server, tmp_path, monkeypatch) -> None:
    call_command("seed_demo", users=12, sessions=6, messages_per_session=2, memories=12, stdout=io.StringIO())
    walk(asgi_server, tmp_path, monkeypatch)
    assert set(Namespace.objects.values_list("slug", flat=True)) >= {"my-app", "support-bot"}


def _first_python_line(doc: str) -> int:
    return next(block.line for block in runnable_blocks(doc) if block.language == "python")
