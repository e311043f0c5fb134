"""Hostile input against every operation: NUL bytes, huge numbers, deep JSON, odd Unicode, broken bytes.

Each registered operation gets its valid request (from the security matrix)
with every string and number in it replaced by something hostile, plus raw
bodies no parser should choke on and hostile query values. Every answer is
below 500, documented for that operation, and an error has the error body.
Odd Unicode that is valid text is stored and given back unchanged.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Any

import pytest

from memoryadmin.api.api import api
from tests.conftest import ApiClient
from tests.security.conftest import World
from tests.security.test_api_matrix import CALLS, ROUTES, Route, fill

ODD_TEXT = [
    "nul \x00 inside",
    "\u202eright-to-left override",
    "zero\u200bwidth\u200djoiner\ufeff",
    "e\u0301" * 300,  # a pile of combining accents
    "ﬁne ﬂour ＡＢＣ ①",  # NFKC folds these
    "\U0001f469\U0001f3fd\u200d\U0001f52c emoji",
    "\uffff\U0010ffff noncharacters",
    "<script>alert(1)</script>{{ x }}{% if %}",
    "' OR 1=1; DROP TABLE memories_memory; --",
    "x" * 70_000,
]
HUGE_NUMBERS = [2**80, -(2**80), 1e308, -1e-320, 2**63, 2**31]

# Bodies no parser may choke on.
RAW_BODIES = [
    b"[" * 200_000,  # deeper than any parser's stack
    b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
    b'{"text": "\\ud800", "user_id": "alice"}',  # a lone surrogate
    b'{"text": 1e400, "user_id": "alice"}',  # a number that is infinity as a double
    b'{"text": ' + b"9" * 5000 + b', "user_id": "alice"}',
    b"\xff\xfe\x00\x00garbage",
    b'{"text": "ok", "user_id": "alice"',  # truncated
    b"null",
    b'"just a string"',
]
HOSTILE_QUERY_VALUES = ["%00", "-1", "99999999999999999999999", "1e400", "%F0%9F%92%A9", "%C0%AF", "a" * 3000]


def documented(route: Route) -> set[int]:
    path = route.path.replace("/api/v1", "", 1)
    schema = api.get_openapi_schema()
    for candidate, operations in schema["paths"].items():
        if candidate.replace("/api/v1", "", 1) == path and route.method.lower() in operations:
            return {int(code) for code in operations[route.method.lower()]["responses"]}
    raise AssertionError(f"{route.label} is not in the schema")


def variants(value: Any) -> list[Any]:
    """The valid body with each leaf replaced, one at a time, by each hostile value."""
    found: list[Any] = []

    def walk(node: Any, replace) -> None:
        if isinstance(node, dict):
            for key, child in node.items():
                walk(child, lambda new, k=key, n=node: replace({**n, k: new}))
        elif isinstance(node, list):
            for index, child in enumerate(node):
                walk(child, lambda new, i=index, n=node: replace([*n[:i], new, *n[i + 1 :]]))
        else:
            for hostile in [*ODD_TEXT, *HUGE_NUMBERS, [[[[[]]]]], {"deep": _deep(400)}]:
                found.append(replace(hostile))

    walk(value, lambda new: new)
    return found


def _deep(levels: int) -> Any:
    node: Any = "bottom"
    for _ in range(levels):
        node = {"d": node}
    return node


def check(route: Route, response, allowed: set[int]) -> None:
    assert response.status_code < 500, (route.label, response.status_code, response.content[:300])
    assert response.status_code in allowed, (route.label, response.status_code, response.content[:300])
    if response.status_code >= 400:
        assert response["Content-Type"].startswith("application/json")
        assert set(json.loads(response.content)["error"]) >= {"code", "message"}


BODIED = [r for r in ROUTES if r.method in ("POST", "PUT", "PATCH")]


@pytest.mark.parametrize("route", BODIED, ids=[r.label for r in BODIED])
def test_hostile_bodies_get_a_documented_answer(route: Route, world: World, make_key, settings) -> None:
    settings.API_RATE_LIMIT_PER_MINUTE = 0
    client = ApiClient(make_key(world.a)[1])
    allowed = documented(route)
    url = fill(route.path, world.ids())
    _, body = CALLS[route.name]
    for hostile in variants(fill(body, world.ids()) if body is not None else {"x": "y"}):
        response = getattr(client, route.method.lower())(url, hostile)
        check(route, response, allowed)
    for raw in RAW_BODIES:
        response = getattr(client.client, route.method.lower())(
            url, data=raw, content_type="application/json", headers=client.headers
        )
        check(route, response, allowed)


QUERIED = [r for r in ROUTES if r.method in ("GET", "DELETE")]


@pytest.mark.parametrize("route", QUERIED, ids=[r.label for r in QUERIED])
def test_hostile_query_values_and_ids_get_a_documented_answer(route: Route, world: World, make_key, settings) -> None:
    settings.API_RATE_LIMIT_PER_MINUTE = 0
    client = ApiClient(make_key(world.a)[1])
    allowed = documented(route)
    names = ["limit", "cursor", "user_id", "session_id", "after_seq", "query", "token_budget", "force", "run_id"]
    for value in HOSTILE_QUERY_VALUES:
        ids = dict.fromkeys(world.ids(), value)
        check(
            route,
            client.get(fill(route.path, ids)) if route.method == "GET" else client.delete(fill(route.path, ids)),
            allowed,
        )
        query = "&".join(f"{name}={value}" for name in names)
        url = fill(route.path, world.ids()) + "?" + query
        response = client.get(url) if route.method == "GET" else client.delete(url)
        if response.streaming:
            b"".join(response.streaming_content)
        check(route, response, allowed)


@pytest.mark.parametrize("text", [t for t in ODD_TEXT if "\x00" not in t and len(t) < 4000])
def test_odd_unicode_is_stored_and_given_back_unchanged(api, text: str) -> None:
    created = api.post("/api/v1/memories", {"text": text, "user_id": "alice", "metadata": {text: text}})
    assert created.status_code == 201, created.content
    memory = api.get(f"/api/v1/memories/{created.json()['id']}").json()
    assert memory["text"] == text.strip()
    assert memory["metadata"] == {text: text}
    appended = api.post(
        "/api/v1/sessions/s1/messages", {"user_id": "alice", "messages": [{"role": "user", "content": text}]}
    )
    assert appended.status_code == 201
    assert api.get("/api/v1/sessions/s1/messages").json()["items"][0]["content"] == text


def test_nul_bytes_are_refused_everywhere_they_could_be_stored(api) -> None:
    for body in (
        {"text": "a\x00b", "user_id": "alice"},
        {"text": "ok", "user_id": "alice", "metadata": {"k\x00": 1}},
        {"text": "ok", "user_id": "alice", "topics": ["a\x00"]},
    ):
        response = api.post("/api/v1/memories", body)
        assert response.status_code in (400, 422), response.content
    messages = {"user_id": "alice", "messages": [{"role": "user", "content": "a\x00b"}]}
    assert api.post("/api/v1/sessions/s1/messages", messages).status_code in (400, 422)
    assert api.get("/api/v1/memories").json()["items"] == []


def resealed(lines: list[bytes]) -> bytes:
    """A snapshot whose records were edited, with a trailer that matches them again."""
    body = b"".join(lines)
    return body + json.dumps({"type": "end", "sha256": hashlib.sha256(body).hexdigest()}).encode() + b"\n"


@pytest.mark.parametrize(
    "metadata", [{"n": 2**80}, {"n": 1e300}, {"deep": _deep(300)}, {"nul": "a\x00b"}, {"k\x00": 1}]
)
def test_a_crafted_snapshot_cannot_store_what_the_api_could_not_give_back(api, metadata) -> None:
    api.post("/api/v1/memories", {"text": "Alice likes tea", "user_id": "alice"})
    exported = api.get("/api/v1/snapshots/export")
    lines = b"".join(exported.streaming_content).splitlines(keepends=True)[:-1]
    records = [json.loads(line) for line in lines]
    for record in records:
        if record.get("type") == "memory":
            record["id"] = str(uuid.uuid4())
            record["text"] = "Alice likes coffee"
            record["metadata"] = metadata
    crafted = resealed([json.dumps(r).encode() + b"\n" for r in records])
    response = api.post("/api/v1/snapshots/restore?dry_run=false", data=crafted, content_type="application/x-ndjson")
    assert response.status_code < 500, response.content
    # Whatever the restore decided, everything stored can still be read and exported.
    for memory in api.get("/api/v1/memories").json()["items"]:
        assert api.get(f"/api/v1/memories/{memory['id']}").status_code == 200
    again = api.get("/api/v1/snapshots/export")
    assert again.status_code == 200
    assert b"".join(again.streaming_content).endswith(b"}\n")
