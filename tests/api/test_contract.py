"""One error contract, and a schema that says what the server does.

Every malformed id is 400 `invalid_id` on every route that takes one; every
validation failure names its fields as `details.fields: [{"field", "message"}]`;
a request body with a field it does not know is refused; and for each body
below, the served OpenAPI schema and the server agree on whether it is valid.
"""

from __future__ import annotations

import pytest
from django.test import Client
from jsonschema import Draft202012Validator

from memoryadmin.memories.models import MAX_ENTITY_CHARS, MAX_TOPIC_CHARS, Memory
from memoryadmin.tenancy.models import SCOPES
from tests.api.test_errors import assert_error
from tests.conftest import ApiClient
from tests.security.test_api_matrix import ROUTES, Route, call

MALFORMED = {
    "memory_id": "123",
    "session_id": "not an id!",
    "user_id": "not an id!",
    "erasure_id": "not-a-uuid",
    "tombstone_id": "not-a-number",
    "link_id": "not-a-uuid",
    "webhook_id": "not-a-uuid",
    "delivery_id": "not-a-number",
}
WITH_IDS = [r for r in ROUTES if r.path_ids]


UUID_IDS = {"memory_id", "link_id", "erasure_id", "run_id", "webhook_id"}
INTEGER_IDS = {"tombstone_id", "delivery_id"}


@pytest.fixture
def served_schema(db) -> dict:
    return Client().get("/api/v1/openapi.json").json()


def assert_fields(error: dict, *names: str) -> None:
    fields = error["details"]["fields"]
    assert all(set(f) == {"field", "message"} and f["message"] for f in fields), fields
    assert {f["field"] for f in fields} >= set(names), fields


@pytest.mark.parametrize("route", WITH_IDS, ids=[r.label for r in WITH_IDS])
def test_a_malformed_id_is_400_invalid_id_on_every_route_that_takes_one(route: Route, namespace, make_key) -> None:
    ids = {name: MALFORMED[name] for name in route.path_ids}
    response = call(ApiClient(make_key(namespace, ",".join(SCOPES))[1]), route, ids)
    error = assert_error(response, 400, "invalid_id")
    assert_fields(error, *route.path_ids)
    # The message says what each id should have been: a link id is no "memory id".
    for name in route.path_ids:
        rule = "a UUID" if name in UUID_IDS else "an integer" if name in INTEGER_IDS else "an id matching"
        assert f"{name} must be {rule}" in error["message"], error["message"]


def test_a_service_refusal_names_its_field_the_same_way(api) -> None:
    api.put("/api/v1/sessions/s1", {"user_id": "alice"})
    # The session exists for alice: appending as bob is refused by the service, not the schema.
    response = api.post("/api/v1/sessions/s1/messages", {"messages": [{"role": "user", "content": "x" * 70000}]})
    assert_fields(assert_error(response, 422, "validation_error"), "messages[0].content")


def test_a_misspelt_field_is_refused_by_name_and_nothing_is_stored(api) -> None:
    response = api.post("/api/v1/memories", {"text": "Alice likes tea", "user_id": "alice", "tpoics": ["drinks"]})
    assert_fields(assert_error(response, 422, "validation_error"), "tpoics")
    assert not Memory.objects.exists()


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/v1/memories/search", {"query": "tea", "sort": "new"}),
        ("/api/v1/memories/search", {"query": "tea", "recency": {"enabled": True, "half_life": 3}}),
        ("/api/v1/memories/forget", {"policy": {"max_age_dayz": 3}}),
        ("/api/v1/memories/bulk", {"action": "pin", "ids": ["x"], "force": True}),
        ("/api/v1/sessions/s1/messages", {"messages": [{"role": "user", "content": "hi", "tone": "warm"}]}),
        ("/api/v1/subjects/alice/privacy-link", {"ttl": 600}),
        ("/api/v1/subjects/alice/erasure", {"reason": "asked", "urgent": True}),
    ],
)
def test_every_body_refuses_unknown_fields(api, path, body) -> None:
    error = assert_error(api.post(path, body), 422, "validation_error")
    unknown = {f["field"].rsplit(".", 1)[-1].split("[")[0] for f in error["details"]["fields"]}
    assert unknown & {"sort", "half_life", "max_age_dayz", "force", "tone", "ttl", "urgent"}


def test_bulk_results_tell_an_invalid_id_from_a_missing_one(api) -> None:
    body = api.post(
        "/api/v1/memories/bulk", {"action": "pin", "ids": ["not-a-uuid", "00000000-0000-4000-8000-000000000000"]}
    ).json()
    codes = {f["id"]: f["error"]["code"] for f in body["failed"]}
    assert codes == {"not-a-uuid": "invalid_id", "00000000-0000-4000-8000-000000000000": "not_found"}


# (method, path, body): each is sent, and checked against the schema the server publishes.
BODIES = [
    ("post", "/api/v1/memories", {"user_id": "alice", "text": "Alice likes tea"}),
    ("post", "/api/v1/memories", {"user_id": "alice", "text": ""}),
    ("post", "/api/v1/memories", {"user_id": "alice", "text": "   "}),
    ("post", "/api/v1/memories", {"user_id": "alice", "text": "\x1c\u3000"}),
    ("post", "/api/v1/memories", {"user_id": "alice", "text": "tea\x00"}),
    ("post", "/api/v1/memories", {"user_id": "alice", "text": "Alice likes jam", "pinned": 1}),
    ("post", "/api/v1/memories", {"user_id": "alice", "text": "Alice likes figs", "topics": ["t" * MAX_TOPIC_CHARS]}),
    ("post", "/api/v1/memories", {"user_id": "alice", "text": "Alice likes kiwi", "topics": ["t" * 101]}),
    ("post", "/api/v1/memories", {"user_id": "alice", "text": "Alice likes plum", "entities": ["e" * 201]}),
    (
        "post",
        "/api/v1/memories",
        {"user_id": "alice", "text": "Alice likes lime", "topics": [str(i) for i in range(51)]},
    ),
    (
        "post",
        "/api/v1/memories",
        {"user_id": "alice", "text": "Alice likes okra", "entities": ["e" * MAX_ENTITY_CHARS]},
    ),
    ("put", "/api/v1/sessions/s1/state", {"state": {"step": 1}, "ttl_seconds": 60}),
    ("put", "/api/v1/sessions/s1/state", {"state": {"step": 1}, "ttl_seconds": True}),
    ("put", "/api/v1/sessions/s1/state", {"state": {"step": 1}, "ttl_seconds": 0}),
    ("put", "/api/v1/sessions/s1/state", {"state": {"step": 1}, "ttl_seconds": 365 * 86400 + 1}),
    ("put", "/api/v1/sessions/s1/state", {"state": {"step": 1}, "ttl_seconds": "60"}),
    ("put", "/api/v1/sessions/s1/state", {"state": {"step": None}}),
    ("put", "/api/v1/sessions/s1/state", {"state": {"": 1}}),
    ("patch", "/api/v1/sessions/s1/state", {"state": {"step": None}}),
    ("post", "/api/v1/memories/search", {"query": "tea"}),
    ("post", "/api/v1/memories/search", {"query": "  "}),
    ("post", "/api/v1/memories/search", {"query": "tea", "limit": True}),
    ("post", "/api/v1/memories/search", {"query": "tea", "pinned": "yes"}),
    ("post", "/api/v1/memories/search", {"query": "tea", "recency": {"text_weight": False}}),
    ("post", "/api/v1/memories/forget", {"policy": {"max_age_days": 30}, "dry_run": True}),
    ("post", "/api/v1/memories/forget", {"policy": {"budget": True}, "dry_run": True}),
    ("post", "/api/v1/memories/forget", {"policy": {"max_age_days": -1}, "dry_run": True}),
    ("post", "/api/v1/memories/forget", {"policy": {"max_age_days": 30}, "dry_run": 0}),
    ("post", "/api/v1/subjects/alice/privacy-link", {"ttl_seconds": 600}),
    ("post", "/api/v1/subjects/alice/privacy-link", {"ttl_seconds": 59}),
    ("post", "/api/v1/subjects/alice/privacy-link", {"ttl_seconds": True}),
    ("post", "/api/v1/sessions/s1/messages", {"messages": [{"role": "user", "content": "hi"}] * 101}),
    ("post", "/api/v1/sessions/s1/messages", {"messages": [{"role": "user", "content": "hi", "name": "n" * 129}]}),
]


def request_schema(schema: dict, method: str, path: str) -> dict:
    template = path.replace("/sessions/s1/", "/sessions/{session_id}/").replace(
        "/subjects/alice/", "/subjects/{user_id}/"
    )
    operation = schema["paths"][template][method]
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    return {**body, "components": schema["components"]}


@pytest.mark.parametrize(("method", "path", "body"), BODIES, ids=[f"{m} {p} {b}"[:90] for m, p, b in BODIES])
def test_the_schema_and_the_server_agree_on_each_body(api, served_schema, method, path, body) -> None:
    api.put("/api/v1/sessions/s1", {"user_id": "alice"})
    schema_says = Draft202012Validator(request_schema(served_schema, method, path)).is_valid(body)
    response = getattr(api, method)(path, body)
    server_says = response.status_code not in (400, 422)
    assert response.status_code < 500
    assert schema_says == server_says, (schema_says, response.status_code, response.content[:300])
    if not server_says:
        assert_fields(assert_error(response, response.status_code))


def test_a_topic_of_the_columns_length_is_stored_whole_and_one_longer_is_refused_on_every_path(namespace) -> None:
    from memoryadmin.core.errors import InvalidInput
    from memoryadmin.memories.services import NewMemory, memory_create, memory_create_many, memory_update
    from tests.conftest import SYSTEM

    longest = "t" * MAX_TOPIC_CHARS
    memory = memory_create(namespace=namespace, user_id="alice", text="a", actor=SYSTEM, topics=[longest]).memory
    memory.refresh_from_db()
    assert memory.topics == [longest]
    too_long = longest + "t"
    with pytest.raises(InvalidInput):
        memory_create(namespace=namespace, user_id="alice", text="b", actor=SYSTEM, topics=[too_long])
    [refused] = memory_create_many(
        namespace=namespace, actor=SYSTEM, items=[NewMemory(user_id="alice", text="c", topics=[too_long])]
    )
    assert isinstance(refused, InvalidInput)
    with pytest.raises(InvalidInput):
        memory_update(memory=memory, actor=SYSTEM, topics=[too_long])
    with pytest.raises(InvalidInput):
        memory_update(memory=memory, actor=SYSTEM, entities=["e" * (MAX_ENTITY_CHARS + 1)])
    with pytest.raises(InvalidInput):
        memory_update(memory=memory, actor=SYSTEM, metadata={"n": 2**70})
    with pytest.raises(InvalidInput):
        memory_create(namespace=namespace, user_id="not an id", text="d", actor=SYSTEM)
    memory.refresh_from_db()
    assert memory.topics == [longest] and memory.revision == 1
