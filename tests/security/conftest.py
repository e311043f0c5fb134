"""Operators of every role for the security tests, adam (admin), otto (operator), vera (viewer), nils (no
role), and a world of data in one namespace that outsiders must not reach."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User

from memoryadmin.conversations.models import Message, Session
from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.conversations.working_memory import working_memory_put
from memoryadmin.core.redis_client import get_redis
from memoryadmin.governance.erasure import erasure_request
from memoryadmin.governance.models import ErasureRequest, PrivacyLink
from memoryadmin.governance.privacy_links import RIGHTS, privacy_link_create
from memoryadmin.governance.restore_jobs import restore_job_create
from memoryadmin.governance.snapshots import snapshot_export_lines
from memoryadmin.memories.models import Memory, MemoryEvidence, MemoryRevision, MemoryStatus, Pin, Tombstone
from memoryadmin.memories.services import memory_create, memory_forget
from memoryadmin.tenancy.models import ApiKey, Namespace
from memoryadmin.webhooks.models import WebhookDelivery, WebhookEndpoint
from memoryadmin.webhooks.services import webhook_create, webhook_send_test
from tests.conftest import SYSTEM, operator_user

ROLE_USERS = {"admin": "adam", "operator": "otto", "viewer": "vera"}


@pytest.fixture
def operators(db) -> dict[str | None, User]:
    """One user per role, and one (`None`) without a role."""
    users: dict[str | None, User] = {role: operator_user(name, role) for role, name in ROLE_USERS.items()}
    users[None] = operator_user("nils", None)
    return users


@dataclass
class World:
    """Namespace A (alpha) holding alice's and bob's data; namespace B (bravo) holding nothing."""

    a: Namespace
    b: Namespace
    a_key: ApiKey
    session: Session
    alice_memory: Memory
    candidate: Memory
    bob_memory: Memory
    tombstone: Tombstone
    erasure: ErasureRequest
    privacy_link: PrivacyLink
    webhook: WebhookEndpoint
    delivery: WebhookDelivery

    def ids(self) -> dict[str, str]:
        """Values for the path parameters of routes, all naming objects of namespace A."""
        return {
            "memory_id": str(self.alice_memory.pk),
            "session_id": self.session.session_id,
            "user_id": "alice",
            "erasure_id": str(self.erasure.pk),
            "tombstone_id": str(self.tombstone.pk),
            "link_id": str(self.privacy_link.pk),
            "webhook_id": str(self.webhook.pk),
            "delivery_id": str(self.delivery.pk),
        }


@pytest.fixture
def world(make_namespace, make_key) -> World:
    a, b = make_namespace("alpha"), make_namespace("bravo")
    a_key, _ = make_key(a)
    session, messages = session_append_messages(
        namespace=a,
        session_id="s1",
        user_id="alice",
        messages=[
            NewMessage(role="user", content="I like green tea", run_id="r1"),
            NewMessage(role="assistant", content="Noted.", run_id="r1"),
        ],
    )
    working_memory_put(namespace_id=a.pk, session_id="s1", state={"mood": "curious"}, ttl_seconds=600)

    def remember(text: str, user_id: str = "alice", **kwargs: object) -> Memory:
        memory = memory_create(namespace=a, user_id=user_id, text=text, actor=SYSTEM, **kwargs).memory  # type: ignore[arg-type]
        assert memory is not None
        return memory

    alice_memory = remember("Alice likes green tea", pinned=True, evidence_message_ids=[messages[0].pk])
    candidate = remember("Alice lives in Lyon", status=MemoryStatus.CANDIDATE, session_id="s1")
    bob_memory = remember("Bob plays chess", user_id="bob")
    tombstone = memory_forget(memory=remember("Alice smokes"), actor=SYSTEM)
    erasure = erasure_request(namespace=a, user_id="carol", actor=SYSTEM, enqueue=False)
    _, privacy_link = privacy_link_create(namespace=a, user_id="alice", actor=SYSTEM, grantable=RIGHTS)
    # A public address written as one, so saving it asks no DNS server.
    webhook = webhook_create(namespace=a, url="https://93.184.215.14/hook", events=["memory.created"], actor=SYSTEM)
    delivery = webhook_send_test(endpoint=webhook, actor=SYSTEM)
    return World(
        a, b, a_key, session, alice_memory, candidate, bob_memory, tombstone, erasure, privacy_link, webhook, delivery
    )


def holdings(namespace: Namespace) -> dict[str, object]:
    """Everything namespace A holds, to show that an outsider's request changed none of it."""
    redis = get_redis()
    return {
        "memories": sorted(
            Memory.objects.filter(namespace=namespace).values_list("id", "text", "status", "revision", "metadata")
        ),
        "revisions": MemoryRevision.objects.filter(memory__namespace=namespace).count(),
        "evidence": MemoryEvidence.objects.filter(memory__namespace=namespace).count(),
        "pins": sorted(Pin.objects.filter(memory__namespace=namespace).values_list("memory_id", flat=True)),
        "tombstones": sorted(Tombstone.objects.filter(namespace=namespace).values_list("user_id", "fingerprint")),
        "sessions": sorted(
            Session.objects.filter(namespace=namespace).values_list("session_id", "user_id", "message_count")
        ),
        "messages": Message.objects.filter(session__namespace=namespace).count(),
        "erasures": sorted(ErasureRequest.objects.filter(namespace=namespace).values_list("id", "status")),
        "keys": sorted(ApiKey.objects.filter(namespace=namespace).values_list("id", "revoked_at")),
        "privacy_links": sorted(
            PrivacyLink.objects.filter(namespace=namespace).values_list("id", "rights", "revoked_at")
        ),
        "webhooks": sorted(
            WebhookEndpoint.objects.filter(namespace=namespace).values_list("id", "url", "status", "secret", "events")
        ),
        "deliveries": sorted(
            WebhookDelivery.objects.filter(endpoint__namespace=namespace).values_list("id", "state", "attempts")
        ),
        "working_memory": {key: redis.hgetall(key) for key in sorted(redis.keys(f"wm:{namespace.pk}:*"))},
    }


@pytest.fixture
def restore_job(world: World):
    """A restore uploaded through the console (its dry run not yet started)."""
    body = b"".join(snapshot_export_lines(namespace=world.a, user_id="alice"))
    return restore_job_create(namespace=world.a, chunks=[body], filename="alice.jsonl", actor=SYSTEM)
