"""The Python client (clients/python) against the ASGI app served by uvicorn: every endpoint, pages, errors."""

from __future__ import annotations

import io
import json
import time

import pytest
from memoryadmin_client import MemoryAdmin, NewMessage, errors
from memoryadmin_client.models import AddedMemory, Memory, Message, SearchHit, Session

from memoryadmin.memories.models import Memory as MemoryRow
from memoryadmin.memories.models import MemorySource
from memoryadmin.memories.services import memory_create
from tests.conftest import SYSTEM
from tests.mcp.test_rate_limit import not_near_a_minute_boundary

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def client(asgi_server, namespace, make_key):
    with MemoryAdmin(asgi_server.url, make_key(namespace)[1], timeout=30) as client:
        yield client


def say(client: MemoryAdmin, session_id: str, *contents: str, user_id: str = "alice") -> list[Message]:
    return client.messages.append(
        session_id, [NewMessage(role="user", content=content) for content in contents], user_id=user_id
    )


def test_health(client) -> None:
    assert client.health().status == "ok"


def test_sessions_put_get_list_page_by_page_and_delete(client) -> None:
    created = client.sessions.put("s0", user_id="alice", agent_id="support", metadata={"channel": "web"})
    assert isinstance(created, Session)
    assert (created.user_id, created.agent_id, created.metadata, created.message_count) == (
        "alice",
        "support",
        {"channel": "web"},
        0,
    )
    for index in range(1, 5):
        say(client, f"s{index}", "hello")
    assert client.sessions.get("s3").message_count == 1

    first = client.sessions.list(limit=2)
    assert len(first.items) == 2 and first.next_cursor is not None
    walked = [s.session_id for s in client.sessions.iter(page_size=2)]
    assert sorted(walked) == ["s0", "s1", "s2", "s3", "s4"]
    assert walked[:2] == [s.session_id for s in first.items]
    assert [s.session_id for s in client.sessions.iter(user_id="bob")] == []

    with pytest.raises(errors.UserMismatchError):
        client.sessions.put("s1", user_id="bob")
    client.sessions.delete("s1", memories="delete")
    with pytest.raises(errors.NotFoundError):
        client.sessions.get("s1")


def test_messages_append_list_page_by_page_and_delete_a_run(client) -> None:
    with pytest.raises(errors.UserIdRequiredError):
        client.messages.append("chat", [{"role": "user", "content": "hi"}])
    appended = client.messages.append(
        "chat",
        [
            {"role": "system", "kind": "instruction", "content": "Be brief."},
            NewMessage(role="user", content="one", run_id="r1"),
            NewMessage(role="assistant", content="two", run_id="r1"),
            NewMessage(role="user", content="three"),
        ],
        user_id="alice",
    )
    assert [m.seq for m in appended] == [1, 2, 3, 4]
    assert [m.content for m in client.messages.iter("chat", page_size=1)] == ["one", "two", "three"]
    assert len(list(client.messages.iter("chat", include_injected=True, page_size=3))) == 4
    assert [m.seq for m in client.messages.list("chat", after_seq=3).items] == [4]
    assert client.messages.delete_run("chat", "r1", reason="retry") == 2
    assert [m.content for m in client.messages.iter("chat")] == ["three"]


def test_working_memory_put_get_patch_delete(client) -> None:
    say(client, "chat", "hi")
    assert client.state.put("chat", {"step": "cart", "items": ["tea"]}, ttl_seconds=600).ttl_seconds == 600
    patched = client.state.patch("chat", {"step": "paid", "items": None})
    assert patched.state == {"step": "paid"}
    assert 0 < patched.ttl_seconds <= 600
    assert client.state.get("chat").state == {"step": "paid"}
    client.state.delete("chat")
    with pytest.raises(errors.NotFoundError):
        client.state.get("chat")


def test_memories_add_get_update_pin_forget_and_the_tombstone(client) -> None:
    added = client.memories.add(user_id="alice", text="Alice is allergic to peanuts", topics=["health"])
    assert isinstance(added, AddedMemory) and not added.deduplicated
    again = client.memories.add(user_id="alice", text="alice is ALLERGIC to peanuts!")
    assert again.deduplicated and again.memory.id == added.memory.id
    memory_id = added.memory.id

    assert client.memories.get(memory_id).topics == ["health"]
    edited = client.memories.update(memory_id, text="Alice is allergic to peanuts and cashews", reason="more")
    assert edited.revision == 2
    assert [r.revision for r in client.memories.revisions(memory_id)] == [1, 2]
    assert client.memories.evidence(memory_id) == []
    assert client.memories.pin(memory_id, reason="safety").pinned is True
    with pytest.raises(errors.PinnedError):
        client.memories.forget(memory_id)
    assert client.memories.unpin(memory_id).pinned is False
    client.memories.forget(memory_id, reason="asked")
    with pytest.raises(errors.NotFoundError):
        client.memories.get(memory_id)
    with pytest.raises(errors.TombstonedError) as refused:
        client.memories.add(user_id="alice", text="Alice is allergic to peanuts and cashews")
    assert (refused.value.status, refused.value.code) == (409, "tombstoned")


def test_memories_list_and_search_page_by_page(client) -> None:
    for index in range(7):
        client.memories.add(user_id="alice", text=f"Alice visited city number {index} for jazz")
    client.memories.add(user_id="bob", text="Bob likes jazz too")

    listed = [m.text for m in client.memories.iter(user_id="alice", page_size=3)]
    assert len(listed) == 7 and len(set(listed)) == 7
    page = client.memories.search("jazz", user_id="alice", limit=3)
    assert isinstance(page.items[0], SearchHit) and page.next_cursor is not None
    hits = list(client.memories.iter_search("jazz", user_id="alice", page_size=3))
    assert len(hits) == 7 and len({h.memory.id for h in hits}) == 7
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert client.memories.search("jazz", user_id="alice", topics=["nothing"]).items == []
    assert {h.memory.user_id for h in client.memories.iter_search("jazz")} == {"alice", "bob"}


def test_review_bulk_and_forgetting_by_policy(asgi_server, make_namespace, make_key) -> None:
    reviewed = make_namespace("reviewed", review_required=True)
    # Candidates awaiting review are what extraction proposes in a namespace that requires review.
    ids = [
        str(
            memory_create(
                namespace=reviewed,
                user_id="alice",
                text=f"Alice fact {n}",
                actor=SYSTEM,
                source=MemorySource.EXTRACTION,
            ).memory.pk
        )
        for n in range(3)
    ]
    with MemoryAdmin(asgi_server.url, make_key(reviewed)[1]) as client:
        assert sorted(m.id for m in client.memories.iter(status="candidate", page_size=2)) == sorted(ids)
        assert client.memories.approve(ids[0]).status == "active"
        with pytest.raises(errors.NotCandidateError):
            client.memories.approve(ids[0])
        client.memories.reject(ids[1], reason="wrong")
        result = client.memories.bulk("pin", [ids[0], ids[1], "not-an-id"])
        assert result.done == [ids[0]]
        assert {f.id: f.error.code for f in result.failed} == {ids[1]: "not_found", "not-an-id": "invalid_id"}
        forget = client.memories.forget_by_policy({"max_age_days": 0, "max_inactive_days": 0}, dry_run=True)
        assert forget.dry_run and forget.deleted == 0
        assert ids[0] not in {s.id for s in forget.selected}  # pinned: never selected


def test_if_revision_makes_an_edit_or_a_forget_only_from_the_current_revision(client) -> None:
    memory_id = client.memories.add(user_id="alice", text="Alice works in Paris").memory.id
    assert client.memories.update(memory_id, text="Alice works in Lyon", if_revision=1).revision == 2

    with pytest.raises(errors.PreconditionFailedError) as stale:
        client.memories.update(memory_id, text="Alice works in Nice", if_revision=1)
    assert (stale.value.status, stale.value.code, stale.value.current_revision) == (412, "precondition_failed", 2)
    with pytest.raises(errors.PreconditionFailedError):
        client.memories.forget(memory_id, if_revision=1)
    assert client.memories.get(memory_id).text == "Alice works in Lyon"
    client.memories.forget(memory_id, if_revision=2)
    with pytest.raises(errors.NotFoundError):
        client.memories.get(memory_id)


def test_tombstones_are_listed_and_lifted_with_the_tombstones_scope(asgi_server, client, namespace, make_key) -> None:
    for text in ("Alice smokes", "Alice owes Bob money"):
        client.memories.forget(client.memories.add(user_id="alice", text=text).memory.id, reason="asked")
    client.memories.forget(client.memories.add(user_id="bob", text="Bob smokes").memory.id)
    with pytest.raises(errors.ForbiddenError):
        client.tombstones.list()

    with MemoryAdmin(asgi_server.url, make_key(namespace, "write,tombstones")[1]) as keeper:
        first = keeper.tombstones.list(user_id="alice", limit=1)
        assert len(first.items) == 1 and first.next_cursor is not None
        alices = list(keeper.tombstones.iter(user_id="alice", reason="forgotten", page_size=1))
        assert [t.reason for t in alices] == ["forgotten", "forgotten"]
        assert {t.text for t in alices} == {None}  # what a person asked to forget keeps no text
        assert len(list(keeper.tombstones.iter())) == 3
        assert list(keeper.tombstones.iter(reason="rejected")) == []

        keeper.tombstones.lift(alices[0].id, reason="the person asked to be reminded again")
        assert len(list(keeper.tombstones.iter(user_id="alice"))) == 1
        with pytest.raises(errors.NotFoundError):
            keeper.tombstones.lift(alices[0].id, reason="again")
        with pytest.raises(errors.InvalidIdError):
            keeper.tombstones.lift(0, reason="no such id")
    # Newest first: the tombstone lifted was the last one made, so that text may come back and the other not.
    assert not client.memories.add(user_id="alice", text="Alice owes Bob money").deduplicated
    with pytest.raises(errors.TombstonedError):
        client.memories.add(user_id="alice", text="Alice smokes")


def test_privacy_links_are_made_within_the_keys_scopes_listed_and_revoked(
    asgi_server, client, namespace, make_key
) -> None:
    everything = client.subjects.privacy_link("alice", ttl_seconds=600)
    assert sorted(everything.rights) == ["erase", "forget", "read"]
    reading = client.subjects.privacy_link("alice", rights=["read"])
    assert reading.rights == ["read"] and "/privacy/" in reading.url
    with (
        MemoryAdmin(asgi_server.url, make_key(namespace, "read,write")[1]) as writer,
        pytest.raises(errors.ForbiddenError),
    ):
        writer.subjects.privacy_link("alice", rights=["erase"])

    listed = list(client.subjects.iter_privacy_links("alice", page_size=1))
    assert [link.link_id for link in listed] == [reading.link_id, everything.link_id]
    assert {link.status for link in listed} == {"active"}
    client.subjects.revoke_privacy_link(reading.link_id, reason="sent to the wrong address")
    statuses = {link.link_id: link.status for link in client.subjects.privacy_links("alice").items}
    assert statuses == {reading.link_id: "revoked", everything.link_id: "active"}
    assert client.subjects.privacy_links("bob").items == []
    made = list(client.subjects.iter_privacy_links_made(page_size=1))
    assert [link.link_id for link in made] == [reading.link_id, everything.link_id]
    with pytest.raises(errors.InvalidIdError):
        client.subjects.revoke_privacy_link("not-a-link")


def test_what_the_server_refuses_before_parsing_has_its_own_exception(asgi_server, namespace, make_key) -> None:
    _, raw = make_key(namespace)
    with (
        MemoryAdmin(asgi_server.url, raw, headers={"X-Trace": "t" * 20_000}) as noisy,
        pytest.raises(errors.HeadersTooLargeError) as refused,
    ):
        noisy.memories.list()
    assert (refused.value.status, refused.value.details["header"]) == (431, "X-Trace")
    with MemoryAdmin(asgi_server.url, raw) as client, pytest.raises(errors.UriTooLongError) as refused:
        client.memories.list(user_id="a" * 40_000)
    assert refused.value.status == 414


def test_context_and_extraction_runs(client) -> None:
    say(client, "chat", "I live in Lyon.")
    client.memories.add(user_id="alice", text="Alice lives in Lyon", session_id="chat")
    context = client.sessions.context("chat", query="Lyon", token_budget=500)
    assert [m.text for m in context.memories] == ["Alice lives in Lyon"]
    assert [m.content for m in context.messages] == ["I live in Lyon."]
    assert context.token_estimate > 0
    run_id = client.sessions.extract("chat")
    runs = client.sessions.extraction_runs("chat")
    assert run_id in {run.id for run in runs.items}
    assert next(run.id for run in client.sessions.iter_extraction_runs("chat", page_size=1)) == runs.items[0].id


def test_snapshots_export_and_restore_and_the_data_subject(client) -> None:
    say(client, "chat", "hello")
    client.memories.add(user_id="alice", text="Alice sings")
    snapshot = io.BytesIO()
    written = client.snapshots.export(snapshot)
    assert written == len(snapshot.getvalue()) > 0
    records = [json.loads(line) for line in snapshot.getvalue().splitlines()]
    assert "format" in records[0] and records[-1]["type"] == "end"
    restored = client.snapshots.restore(snapshot.getvalue(), dry_run=True)
    assert restored.dry_run and restored.counts.unchanged > 0 and restored.counts.created == 0

    alice = b"".join(client.subjects.iter_export("alice"))
    assert b"Alice sings" in alice
    link = client.subjects.privacy_link("alice", ttl_seconds=600)
    assert "/privacy/" in link.url
    accepted = client.subjects.erase("alice", reason="asked")
    assert accepted.status in {"pending", "running", "completed"}
    assert client.subjects.erasure(accepted.erasure_id).erasure_id == accepted.erasure_id


def test_each_error_code_becomes_its_own_exception(asgi_server, client, namespace, make_key) -> None:
    with MemoryAdmin(asgi_server.url, "ma_wrong_key") as stranger, pytest.raises(errors.UnauthorizedError):
        stranger.memories.list()
    with MemoryAdmin(asgi_server.url, make_key(namespace, "read")[1]) as reader:
        with pytest.raises(errors.ForbiddenError) as forbidden:
            reader.memories.add(user_id="alice", text="x")
        assert forbidden.value.message == "This API key lacks the 'write' scope."
    with pytest.raises(errors.NotFoundError):
        client.memories.get("8ca76592-9276-43da-8f0a-22732a1538e2")
    with pytest.raises(errors.InvalidIdError):
        client.memories.list(user_id="not an id")
    with pytest.raises(errors.ValidationError) as invalid:
        client.memories.list(limit=500)
    assert invalid.value.details["fields"][0]["field"].endswith("limit")
    with pytest.raises(errors.InvalidCursorError):
        client.memories.list(cursor="garbage")
    client.sessions.put("chat", user_id="alice")
    with pytest.raises(errors.ConflictError):  # every 409 is a ConflictError too
        client.sessions.put("chat", user_id="bob")


def test_another_namespaces_memory_does_not_exist(client, other_namespace) -> None:
    theirs = memory_create(namespace=other_namespace, user_id="alice", text="Bravo's secret", actor=SYSTEM).memory
    with pytest.raises(errors.NotFoundError):
        client.memories.get(str(theirs.pk))
    with pytest.raises(errors.NotFoundError):
        client.memories.forget(str(theirs.pk), force=True)
    assert client.memories.search("secret").items == []
    assert MemoryRow.objects.filter(pk=theirs.pk).exists()


def test_the_rate_limit_is_raised_with_retry_after_when_retries_are_off(limited_asgi_server, namespace, make_key):
    not_near_a_minute_boundary()
    with (
        MemoryAdmin(limited_asgi_server.url, make_key(namespace)[1], max_retries=0) as client,
        pytest.raises(errors.RateLimitedError) as limited,
    ):
        for _ in range(20):
            client.memories.list()
    assert 1 <= limited.value.retry_after <= 60
    assert limited.value.details["limit_per_minute"] == 6


def test_the_models_are_typed(client) -> None:
    added = client.memories.add(user_id="alice", text="Alice hikes")
    memory = client.memories.get(added.memory.id)
    assert isinstance(memory, Memory)
    assert memory.created_at.tzinfo is not None
    assert time.time() - memory.created_at.timestamp() < 60


def test_every_kind_the_server_answers_with_is_read(client, namespace) -> None:
    from typing import get_args

    from memoryadmin_client.models import MemoryType as ClientMemoryType

    from memoryadmin.memories.enums import MemoryType as ServerMemoryType

    # The client knows every memory type the server has.
    assert set(get_args(ClientMemoryType)) == set(ServerMemoryType.values)
    said = memory_create(
        namespace=namespace,
        user_id="alice",
        text="Alice: I finally booked the trip to Kyoto",
        memory_type="utterance",
        actor=SYSTEM,
    ).memory
    assert [m.memory_type for m in client.memories.list(user_id="alice").items] == ["utterance"]
    assert client.memories.get(str(said.pk)).memory_type == "utterance"
    hits = client.memories.search("trip to Kyoto", user_id="alice").items
    assert [h.memory.id for h in hits] == [str(said.pk)]
    # A kind a newer server adds is kept as its text, not refused.
    from memoryadmin_client.models import Memory as ClientMemory

    newer = client.memories.get(str(said.pk)).model_dump() | {"memory_type": "procedural", "status": "archived"}
    assert ClientMemory.model_validate(newer).memory_type == "procedural"


def test_an_attribute_stated_with_a_memory_keeps_the_value_said_last_current(client) -> None:
    from datetime import UTC, datetime

    lisbon = client.memories.add(
        user_id="ana", text="Ana lives in Lisbon", attribute="residence", stated_at=datetime(2025, 1, 10, tzinfo=UTC)
    ).memory
    porto = client.memories.add(
        user_id="ana", text="Ana moved to Porto", attribute="residence", stated_at=datetime(2025, 9, 1, tzinfo=UTC)
    ).memory
    assert (porto.attribute, porto.status) == ("residence", "active")
    assert client.memories.get(lisbon.id).status == "superseded"
