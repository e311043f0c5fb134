"""Random input against every operation of the API: never a 5xx, always the error body."""

from __future__ import annotations

import json
import string
from urllib.parse import quote

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memoryadmin.memories.services import memory_create
from tests.conftest import SYSTEM

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)
FIELDS = [
    "user_id",
    "agent_id",
    "session_id",
    "metadata",
    "messages",
    "role",
    "content",
    "kind",
    "state",
    "ttl_seconds",
    "text",
    "memory_type",
    "topics",
    "entities",
    "pinned",
    "query",
    "status",
    "limit",
    "cursor",
    "recency",
    "action",
    "ids",
    "reason",
    "created_after",
    "created_before",
]
bodies = st.one_of(
    json_values,
    st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=6),
    st.fixed_dictionaries(
        {
            "user_id": st.just("alice"),
            "messages": st.lists(st.dictionaries(st.sampled_from(FIELDS), json_values), max_size=3),
        }
    ),
)
ids = st.one_of(st.just("s1"), st.text(alphabet=string.printable + "é\u0000", min_size=1, max_size=20))
query_strings = st.dictionaries(
    st.sampled_from([*FIELDS, "after_seq", "include_injected", "run_id", "force", "memories"]),
    st.text(max_size=12),
    max_size=4,
)


def schema_operations() -> list[tuple[str, str]]:
    schema = Client().get("/api/v1/openapi.json").json()
    return [(method, path) for path, ops in schema["paths"].items() for method in ops]


@pytest.fixture
def memory_id(namespace) -> str:
    return str(memory_create(namespace=namespace, user_id="alice", text="Alice likes tea", actor=SYSTEM).memory.pk)


def test_no_input_makes_the_api_fail(api, memory_id) -> None:
    operations = [op for op in schema_operations() if "/snapshots/" not in op[1]]
    api.put("/api/v1/sessions/s1", {"user_id": "alice"})

    @settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(operations), bodies, ids, query_strings, st.booleans())
    def check(operation, body, session_id, query, real_memory):
        method, path = operation
        path = (
            path.replace("{session_id}", quote(session_id, safe=""))
            .replace("{memory_id}", memory_id if real_memory else "00000000-0000-0000-0000-000000000000")
            .replace("{user_id}", quote(session_id, safe=""))
            .replace("{erasure_id}", "00000000-0000-0000-0000-000000000000")
        )
        if query:
            path += "?" + "&".join(f"{quote(k)}={quote(v)}" for k, v in query.items())
        data = json.dumps(body)
        response = api.client.generic(method.upper(), path, data, content_type="application/json", headers=api.headers)
        assert response.status_code < 500, (
            method,
            path,
            data,
            response.content,
        )
        if response.status_code >= 400:
            error = response.json()["error"]
            assert {"code", "message", "details"} <= set(error)

    check()
