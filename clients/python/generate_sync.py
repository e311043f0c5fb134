"""Write the synchronous client, ``_sync.py``, from the asynchronous one, ``_async.py``.

``_async.py`` is the one source of both clients. This script drops ``async`` and
``await``, gives asyncio's names their blocking twins (``AsyncClient`` is
``Client``, ``aclose`` is ``close``, ``asyncio.sleep`` is ``time.sleep``), turns
a loop that only re-yields into ``yield from``, and swaps the few phrases of prose
that speak of awaiting. It needs only the standard library, so it runs before any
install:

    python clients/python/generate_sync.py          # rewrite _sync.py
    python clients/python/generate_sync.py --check  # exit 1 when _sync.py is stale

The test suite regenerates the file in memory and fails while the committed one differs.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent / "src" / "memoryadmin_client"
ASYNC_SOURCE = PACKAGE / "_async.py"
SYNC_TARGET = PACKAGE / "_sync.py"
COMMAND = "make client-sync"
HEADER = f"# Generated from _async.py by `{COMMAND}` (clients/python/generate_sync.py); edit _async.py instead.\n"

# Prose that no word-by-word rule can rewrite. Each phrase must stand in _async.py exactly once,
# so that a docstring changed there fails the generation instead of going missing from _sync.py.
PROSE = {
    '"""The asynchronous client, and the source of the synchronous one (generate_sync.py writes _sync.py)."""': (
        '"""The synchronous client."""'
    ),
    '"""An asyncio client of one': '"""A client of one',
    "Use it as an\n    async context manager, or await ``aclose()``,": (
        "Use it as a\n    context manager, or call ``close()``,"
    ),
}

# Whole names, and the names the sync client uses instead.
NAMES = {
    "import asyncio": "import time",
    "asyncio.sleep": "time.sleep",
    "__aenter__": "__enter__",
    "__aexit__": "__exit__",
    "aclose": "close",
    "aread": "read",
    "aiter_bytes": "iter_bytes",
}
NAME = re.compile(r"(?<!\w)(" + "|".join(re.escape(name) for name in NAMES) + r")(?!\w)")
ASYNC_PREFIX = re.compile(r"\bAsync(?=[A-Z])")  # AsyncMemoryAdmin, AsyncClient, AsyncIterator, AsyncBaseTransport
ASYNC_KEYWORD = re.compile(r"\basync (?=def |for |with )")
AWAIT = re.compile(r"\bawait ")
AWAITABLE = "Awaitable["
FROM_IMPORT = re.compile(r"from (\S+) import ([\w, ]+)")
FOR_LOOP = re.compile(r"( *)for (\w+) in (.+):")
# What must not be left in a sync client; a new asyncio name needs a rule above.
LEFT_OVER = re.compile(r"\b(async|await|asyncio|Awaitable)\b|\bAsync[A-Z]")


class GenerationError(Exception):
    pass


def generate(source: str) -> str:
    """The text of _sync.py for this text of _async.py."""
    text = _replace_prose(source)
    lines = [_rewrite_line(line) for line in text.split("\n")]
    original = set(source.split("\n"))
    lines = [line if line in original else _tidy_import(index, lines) for index, line in enumerate(lines)]
    text = "\n".join(_yield_from(lines))
    for number, line in enumerate(text.split("\n"), start=1):
        if LEFT_OVER.search(line):
            raise GenerationError(f"line {number} of the sync client still speaks asyncio: {line.strip()}")
    return HEADER + text


def _replace_prose(text: str) -> str:
    for phrase, replacement in PROSE.items():
        if text.count(phrase) != 1:
            raise GenerationError(f"_async.py must hold this phrase exactly once (see PROSE): {phrase!r}")
        text = text.replace(phrase, replacement)
    return text


def _rewrite_line(line: str) -> str:
    line = NAME.sub(lambda match: NAMES[match[1]], line)
    line = ASYNC_PREFIX.sub("", line)
    line = ASYNC_KEYWORD.sub("", line)
    line = AWAIT.sub("", line)
    return _unwrap_awaitable(line)


def _unwrap_awaitable(line: str) -> str:
    """``Awaitable[X]`` is ``X`` once nothing is awaited."""
    while (start := line.find(AWAITABLE)) != -1:
        depth = 0
        for end in range(start + len(AWAITABLE) - 1, len(line)):
            depth += {"[": 1, "]": -1}.get(line[end], 0)
            if depth == 0:
                break
        else:
            raise GenerationError(f"an Awaitable[...] must close on its line: {line.strip()}")
        line = line[:start] + line[start + len(AWAITABLE) : end] + line[end + 1 :]
    return line


def _tidy_import(index: int, lines: list[str]) -> str:
    """A one-line ``from ... import`` the rules changed: without the names now unused, in isort's order."""
    match = FROM_IMPORT.fullmatch(lines[index])
    if match is None:
        return lines[index]
    rest = "\n".join(lines[:index] + lines[index + 1 :])
    names = [name.strip() for name in match[2].split(",")]
    used = sorted({name for name in names if re.search(rf"\b{name}\b", rest)}, key=_isort_key)
    return f"from {match[1]} import {', '.join(used)}"


def _isort_key(name: str) -> tuple[int, str]:
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[0].isupper() else 2
    return kind, name.lower()


def _yield_from(lines: list[str]) -> list[str]:
    """``for x in xs: yield x`` is ``yield from xs`` (an async generator cannot say the latter)."""
    out: list[str] = []
    index = 0
    while index < len(lines):
        loop = FOR_LOOP.fullmatch(lines[index])
        if loop and _body_is_one_yield(lines, index, indent=loop[1], item=loop[2]):
            out.append(f"{loop[1]}yield from {loop[3]}")
            index += 2
            continue
        out.append(lines[index])
        index += 1
    return out


def _body_is_one_yield(lines: list[str], index: int, *, indent: str, item: str) -> bool:
    if index + 1 >= len(lines) or lines[index + 1] != f"{indent}    yield {item}":
        return False
    following = next((line for line in lines[index + 2 :] if line.strip()), "")
    return len(following) - len(following.lstrip(" ")) <= len(indent)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="only say whether _sync.py is current (exit 1 if not)")
    args = parser.parse_args()
    generated = generate(ASYNC_SOURCE.read_text(encoding="utf-8"))
    current = SYNC_TARGET.read_text(encoding="utf-8") if SYNC_TARGET.exists() else ""
    if args.check:
        if generated != current:
            print(f"{SYNC_TARGET} is stale: run `{COMMAND}`", file=sys.stderr)
            return 1
        return 0
    if generated != current:
        SYNC_TARGET.write_text(generated, encoding="utf-8")
        print(f"wrote {SYNC_TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
