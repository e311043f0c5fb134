"""The asyncio client against the ASGI app served by uvicorn: the same calls, awaited; pages as async iterators."""

from __future__ import annotations

import io

import anyio
import pytest
from memoryadmin_client import AsyncMemoryAdmin, NewMessage, errors

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_conversation_memories_pages_export_and_errors(asgi_server, namespace, make_key) -> None:
    _, raw = make_key(namespace)

    async def scenario() -> dict:
        async with AsyncMemoryAdmin(asgi_server.url, raw) as client:
            said = await client.messages.append(
                "chat", [NewMessage(role="user", content=f"line {n}") for n in range(5)], user_id="alice"
            )
            lines = [m.content async for m in client.messages.iter("chat", page_size=2)]
            for n in range(5):
                await client.memories.add(user_id="alice", text=f"Alice owns bicycle number {n}")
            hits = [h.memory.id async for h in client.memories.iter_search("bicycle", page_size=2)]
            listed = [m.id async for m in client.memories.iter(user_id="alice", page_size=2)]
            state = await client.state.put("chat", {"step": 1})
            context = await client.sessions.context("chat", query="bicycle")
            sessions = [s.session_id async for s in client.sessions.iter()]
            snapshot = io.BytesIO()
            written = await client.snapshots.export(snapshot)
            with pytest.raises(errors.NotFoundError):
                await client.memories.get("8ca76592-9276-43da-8f0a-22732a1538e2")
            with pytest.raises(errors.InvalidIdError):
                await client.sessions.get("not an id")
            return {
                "seqs": [m.seq for m in said],
                "lines": lines,
                "hits": hits,
                "listed": listed,
                "state": state.state,
                "context": [m.text for m in context.memories],
                "sessions": sessions,
                "written": written,
                "snapshot": snapshot.getvalue(),
            }

    seen = anyio.run(scenario)
    assert seen["seqs"] == [1, 2, 3, 4, 5]
    assert seen["lines"] == [f"line {n}" for n in range(5)]
    assert len(set(seen["hits"])) == 5 and set(seen["hits"]) == set(seen["listed"])
    assert seen["state"] == {"step": 1}
    assert len(seen["context"]) == 5
    assert seen["sessions"] == ["chat"]
    assert seen["written"] == len(seen["snapshot"]) and b"bicycle number 3" in seen["snapshot"]


def test_revisions_tombstones_and_privacy_links_awaited(asgi_server, namespace, make_key) -> None:
    _, raw = make_key(namespace, "read,write,erase,tombstones")

    async def scenario() -> dict:
        async with AsyncMemoryAdmin(asgi_server.url, raw) as client:
            memory_id = (await client.memories.add(user_id="alice", text="Alice rows")).memory.id
            await client.memories.update(memory_id, text="Alice rows daily", if_revision=1)
            with pytest.raises(errors.PreconditionFailedError) as stale:
                await client.memories.forget(memory_id, if_revision=1)
            await client.memories.forget(memory_id, if_revision=2)
            tombstones = [t async for t in client.tombstones.iter(user_id="alice", page_size=1)]
            await client.tombstones.lift(tombstones[0].id, reason="asked to be reminded")
            link = await client.subjects.privacy_link("alice", rights=["read", "forget"])
            await client.subjects.revoke_privacy_link(link.link_id)
            links = [entry async for entry in client.subjects.iter_privacy_links("alice")]
            made = [entry.link_id async for entry in client.subjects.iter_privacy_links_made()]
            assert made == [link.link_id]
            return {
                "current": stale.value.current_revision,
                "tombstones": [t.reason for t in tombstones],
                "after_lift": (await client.tombstones.list(user_id="alice")).items,
                "links": [(entry.link_id == link.link_id, entry.rights, entry.status) for entry in links],
            }

    seen = anyio.run(scenario)
    assert seen["current"] == 2
    # Forgetting a memory forgets every text it ever had: one tombstone per revision's text.
    assert seen["tombstones"] == ["forgotten", "forgotten"]
    assert len(seen["after_lift"]) == 1
    assert seen["links"] == [(True, ["read", "forget"], "revoked")]
