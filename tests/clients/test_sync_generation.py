"""The sync client is generated from the async one (clients/python/generate_sync.py); the committed copy is current."""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

import pytest
from memoryadmin_client import _async, _sync

GENERATOR = Path(__file__).resolve().parents[2] / "clients/python/generate_sync.py"
# The async client's names for what the sync client calls otherwise.
SYNC_NAMES = {"AsyncMemoryAdmin": "MemoryAdmin", "aclose": "close", "__aenter__": "__enter__", "__aexit__": "__exit__"}


def load_generator():
    spec = importlib.util.spec_from_file_location("generate_sync", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def is_api(name: str) -> bool:
    return not name.startswith("_") or name in {"__init__", "__aenter__", "__aexit__", "__enter__", "__exit__"}


def test_the_committed_sync_client_is_what_the_generator_writes() -> None:
    generator = load_generator()
    generated = generator.generate(generator.ASYNC_SOURCE.read_text(encoding="utf-8"))
    committed = generator.SYNC_TARGET.read_text(encoding="utf-8")
    assert committed == generated, f"_sync.py is stale: run `{generator.COMMAND}` and commit it"


def test_both_clients_offer_the_same_methods_with_the_same_parameters() -> None:
    classes = [_async.AsyncMemoryAdmin, *(cls for cls in _async._Resource.__subclasses__())]
    assert len(classes) == 8
    for async_class in classes:
        sync_class = getattr(_sync, SYNC_NAMES.get(async_class.__name__, async_class.__name__))
        methods = [name for name in vars(async_class) if is_api(name)]
        assert [SYNC_NAMES.get(name, name) for name in methods] == [name for name in vars(sync_class) if is_api(name)]
        for name in methods:
            async_parameters = inspect.signature(getattr(async_class, name)).parameters
            sync_parameters = inspect.signature(getattr(sync_class, SYNC_NAMES.get(name, name))).parameters
            assert [(p.name, p.kind, p.default) for p in async_parameters.values()] == [
                (p.name, p.kind, p.default) for p in sync_parameters.values()
            ], f"{async_class.__name__}.{name}"


def test_a_docstring_the_generator_cannot_rewrite_stops_it() -> None:
    generator = load_generator()
    source = generator.ASYNC_SOURCE.read_text(encoding="utf-8").replace("An asyncio client of one", "A client of one")
    with pytest.raises(generator.GenerationError, match="exactly once"):
        generator.generate(source)
