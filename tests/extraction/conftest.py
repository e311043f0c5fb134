"""A real Celery worker and a scripted model server for extraction tests."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from celery.contrib.testing.worker import start_worker

from memoryadmin.celery import app as celery_app
from memoryadmin.conversations.services import NewMessage, session_append_messages
from tests.extraction.llm_server import ScriptedLLM


@pytest.fixture
def namespace(make_namespace):
    """The pipeline's mechanics are tested with the `rules` strategy, whose output these tests spell out;
    the default `offline` strategy has tests of its own (test_offline*.py)."""
    return make_namespace("alpha", extraction_strategy="rules")


@pytest.fixture
def offline_namespace(make_namespace):
    """A namespace as created today: its extraction strategy is the default, `offline`."""
    namespace = make_namespace("offline-ns")
    assert namespace.extraction_strategy == "offline"
    return namespace


@pytest.fixture
def llm(settings) -> Iterator[ScriptedLLM]:
    server = ScriptedLLM().start()
    settings.LLM_BASE_URL = server.base_url
    settings.LLM_API_KEY = "sk-test-secret"
    settings.LLM_MODEL = "test-model"
    settings.LLM_TIMEOUT_SECONDS = 1.0
    settings.LLM_MAX_RETRIES = 1
    yield server
    server.stop()


@pytest.fixture
def celery_worker(transactional_db, settings) -> Iterator[object]:
    """An in-process worker consuming this test's broker database; short debounce so tests take seconds."""
    settings.EXTRACTION_DEBOUNCE_SECONDS = 0.3
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=15) as worker:
        yield worker


def wait_for(predicate: Callable[[], object], timeout: float = 10.0, interval: float = 0.05) -> object:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {predicate}")
        time.sleep(interval)


def say(namespace, *contents: str, session_id: str = "s1", user_id: str = "alice", role: str = "user"):
    """Append messages through the real service; returns (session, messages)."""
    return session_append_messages(
        namespace=namespace,
        session_id=session_id,
        user_id=user_id,
        messages=[NewMessage(role=role, content=content) for content in contents],
    )
