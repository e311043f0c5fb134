"""The tombstones API: list (no text for what a person asked to forget) and lift, under the `tombstones` scope."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from memoryadmin.audit.models import AuditEvent
from memoryadmin.memories.models import Memory, MemoryStatus, Tombstone
from memoryadmin.memories.services import memory_create, memory_forget, memory_reject
from memoryadmin.tenancy.models import ApiKey
from tests.conftest import SYSTEM, ApiClient


@pytest.fixture
def keeper(namespace, make_key) -> ApiClient:
    """A key that may see and lift tombstones, and nothing else."""
    return ApiClient(make_key(namespace, "tombstones")[1])


def forget(namespace, text: str, user_id: str = "alice", **kwargs) -> Tombstone:
    memory = memory_create(namespace=namespace, user_id=user_id, text=text, actor=SYSTEM, **kwargs).memory
    return memory_forget(memory=memory, actor=SYSTEM)


def test_it_lists_tombstones_newest_first_in_pages(keeper, namespace) -> None:
    made = [forget(namespace, f"Alice said thing {i}") for i in range(5)]
    first = keeper.get("/api/v1/tombstones?limit=3").json()
    second = keeper.get(f"/api/v1/tombstones?limit=3&cursor={first['next_cursor']}").json()
    ids = [t["id"] for t in first["items"] + second["items"]]
    assert ids == [t.pk for t in reversed(made)]
    assert second["next_cursor"] is None


def test_it_filters_by_person_and_reason(keeper, namespace) -> None:
    forget(namespace, "Alice smokes")
    forget(namespace, "Bob smokes", user_id="bob")
    candidate = memory_create(
        namespace=namespace, user_id="alice", text="Alice is 40", actor=SYSTEM, status=MemoryStatus.CANDIDATE
    ).memory
    memory_reject(memory=candidate, actor=SYSTEM)
    alice = keeper.get("/api/v1/tombstones?user_id=alice").json()["items"]
    assert {t["reason"] for t in alice} == {"forgotten", "rejected"}
    rejected = keeper.get("/api/v1/tombstones?reason=rejected").json()["items"]
    assert [(t["user_id"], t["text"]) for t in rejected] == [("alice", "Alice is 40")]


def test_it_never_shows_text_for_what_a_person_asked_to_forget(keeper, namespace) -> None:
    forget(namespace, "Alice has a secret diagnosis")
    Tombstone.objects.update(text="Alice has a secret diagnosis")  # even should a row still hold it
    item = keeper.get("/api/v1/tombstones").json()["items"][0]
    assert item["reason"] == "forgotten" and item["text"] is None
    assert b"diagnosis" not in keeper.get("/api/v1/tombstones").content


def test_a_page_costs_the_same_queries_however_long(keeper, namespace, django_assert_max_num_queries) -> None:
    for i in range(30):
        forget(namespace, f"Alice said thing {i}")
    # The key, its last use, and the page.
    with django_assert_max_num_queries(3):
        assert len(keeper.get("/api/v1/tombstones?limit=30").json()["items"]) == 30


def test_lifting_needs_a_reason_and_lets_the_text_back(keeper, api, namespace) -> None:
    tombstone = forget(namespace, "Alice likes tea")
    assert api.post("/api/v1/memories", {"user_id": "alice", "text": "Alice likes tea"}).status_code == 409
    for reason in ("", "%20%20"):
        refused = keeper.delete(f"/api/v1/tombstones/{tombstone.pk}?reason={reason}")
        assert (refused.status_code, refused.json()["error"]["code"]) == (422, "validation_error")
    assert keeper.delete(f"/api/v1/tombstones/{tombstone.pk}").status_code == 422
    assert Tombstone.objects.filter(pk=tombstone.pk).exists()
    assert keeper.delete(f"/api/v1/tombstones/{tombstone.pk}?reason=she+asked+again").status_code == 204
    assert not Tombstone.objects.filter(pk=tombstone.pk).exists()
    event = AuditEvent.objects.get(action="tombstone.lift")
    assert (event.reason, event.actor_type) == ("she asked again", "api_key")
    assert api.post("/api/v1/memories", {"user_id": "alice", "text": "Alice likes tea"}).status_code == 201
    assert Memory.objects.filter(text="Alice likes tea").exists()


def test_read_and_write_keys_cannot_see_or_lift_tombstones(api, namespace) -> None:
    tombstone = forget(namespace, "Alice likes tea")
    for response in (api.get("/api/v1/tombstones"), api.delete(f"/api/v1/tombstones/{tombstone.pk}?reason=x")):
        assert (response.status_code, response.json()["error"]["code"]) == (403, "forbidden")
    assert Tombstone.objects.filter(pk=tombstone.pk).exists()


def test_create_api_key_grants_the_tombstones_scope(namespace) -> None:
    out = io.StringIO()
    call_command("create_api_key", namespace.slug, "--scopes", "read,tombstones", stdout=out, stderr=io.StringIO())
    raw = out.getvalue().strip().splitlines()[-1]
    assert ApiKey.objects.get(prefix=raw.split("_")[1]).scopes == ["read", "tombstones"]
    assert ApiClient(raw).get("/api/v1/tombstones").status_code == 200


SPACES_IN_A_WORD = ["\u00a0", "\u202f", "\u2007", "\u2009", "\u3000"]


@pytest.mark.parametrize("space", SPACES_IN_A_WORD, ids=["nbsp", "narrow-nbsp", "figure", "thin", "ideographic"])
def test_a_space_that_splits_a_word_does_not_bring_a_forgotten_text_back(api, space) -> None:
    created = api.post("/api/v1/memories", {"user_id": "alice", "text": "Bob likes chess"}).json()
    assert api.delete(f"/api/v1/memories/{created['id']}").status_code == 204
    variant = f"Bob li{space}kes chess"
    again = api.post("/api/v1/memories", {"user_id": "alice", "text": variant})
    assert (again.status_code, again.json()["error"]["code"]) == (409, "tombstoned")
    other = api.post("/api/v1/memories", {"user_id": "alice", "text": "Bob likes go"}).json()
    edited = api.patch(f"/api/v1/memories/{other['id']}", {"text": variant})
    assert (edited.status_code, edited.json()["error"]["code"]) == (409, "tombstoned")
    # Between two words it is a space like any other: a different text is not refused for it.
    assert api.post("/api/v1/memories", {"user_id": "alice", "text": f"Bob likes{space}checkers"}).status_code == 201


def test_a_forgotten_text_comes_back_in_no_field_of_a_write(api) -> None:
    forgotten = api.post("/api/v1/memories", {"user_id": "probe", "text": "Probe hates mushrooms"}).json()
    kept = api.post("/api/v1/memories", {"user_id": "probe", "text": "Probe likes chess"}).json()
    assert api.delete(f"/api/v1/memories/{forgotten['id']}").status_code == 204
    hidden = "probe hates  MUSHROOMS"  # as a person would type it again
    for field, value in (("topics", [hidden]), ("entities", [hidden]), ("metadata", {"note": {"said": hidden}})):
        patched = api.patch(f"/api/v1/memories/{kept['id']}", {field: value})
        assert patched.status_code == 409, (field, patched.content)
        assert patched.json()["error"]["code"] == "tombstoned"
        created = api.post("/api/v1/memories", {"user_id": "probe", "text": f"Probe plays {field}", field: value})
        assert created.status_code == 409, (field, created.content)
    assert "mushroom" not in str(api.get(f"/api/v1/memories/{kept['id']}").json()).lower()
    # Another person's tombstone forbids nothing here.
    other = api.post("/api/v1/memories", {"user_id": "someone", "text": "Someone likes go", "topics": [hidden]})
    assert other.status_code == 201, other.content
