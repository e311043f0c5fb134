"""API keys never reach a log, the audit trail, the database or Redis in the clear."""

from __future__ import annotations

import logging

import pytest
from django.db import connection

from memoryadmin.api import memories as memory_routes
from memoryadmin.audit.models import AuditEvent
from memoryadmin.tenancy.models import ApiKey
from memoryadmin.tenancy.services import api_key_revoke
from tests.conftest import SYSTEM, ApiClient


@pytest.fixture
def everything_logged(caplog, settings):
    """Every logger at DEBUG, SQL with its parameters included."""
    caplog.set_level(logging.DEBUG)
    logging.getLogger("django.db.backends").setLevel(logging.DEBUG)
    connection.force_debug_cursor = True
    yield caplog
    connection.force_debug_cursor = False
    logging.getLogger("django.db.backends").setLevel(logging.WARNING)


def logged_text(caplog) -> str:
    handler_format = logging.Formatter("%(name)s %(message)s %(args)s")
    parts = []
    for record in caplog.records:
        parts.append(handler_format.format(record))
        parts.append(repr(getattr(record, "params", "")))
        parts.append(repr(getattr(record, "sql", "")))
    return "\n".join(parts)


def test_no_request_logs_the_key(everything_logged, namespace, make_key, monkeypatch, settings) -> None:
    settings.API_RATE_LIMIT_PER_MINUTE = 2
    key, raw = make_key(namespace)
    client = ApiClient(raw)
    client.get("/api/v1/memories")
    client.post("/api/v1/memories", {"text": "Alice likes tea", "user_id": "alice"})
    client.get("/api/v1/memories")  # over the rate limit: 429
    client.get("/api/v1/memories/00000000-0000-4000-8000-000000000000")
    client.post("/api/v1/memories", {"text": 5})
    ApiClient(raw + "x").get("/api/v1/sessions")

    def explode(*args, **kwargs):
        raise RuntimeError("boom")

    # A crash inside a handler: Django logs the request with its traceback.
    settings.API_RATE_LIMIT_PER_MINUTE = 0
    monkeypatch.setattr(memory_routes, "memories_page", explode)
    client.client.raise_request_exception = False
    assert client.get("/api/v1/memories").status_code == 500
    api_key_revoke(key=key, actor=SYSTEM)
    client.get("/api/v1/memories")

    text = logged_text(everything_logged)
    assert "Internal Server Error" in text and "SELECT" in text, "the capture saw nothing"
    assert raw not in text
    assert raw[len(key.prefix) :] not in text


def test_the_key_is_kept_only_as_a_hash(namespace, make_key) -> None:
    key, raw = make_key(namespace)
    ApiClient(raw).post("/api/v1/memories", {"text": "Alice likes tea", "user_id": "alice"})
    stored = ApiKey.objects.filter(pk=key.pk).values().get()
    assert raw not in repr(stored)
    events = repr(list(AuditEvent.objects.values()))
    assert key.prefix in events
    assert raw not in events


def test_the_key_is_not_shown_again_in_the_console(namespace, make_key, admin_client) -> None:
    key, raw = make_key(namespace)
    page = admin_client.get(f"/namespaces/{namespace.slug}/")
    assert page.status_code == 200
    assert key.prefix.encode() in page.content
    assert raw.encode() not in page.content
