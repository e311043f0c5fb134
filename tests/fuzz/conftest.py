"""A live server with a namespace worth fuzzing: a session with messages and working memory,
memories (one pinned, one candidate), a tombstone and an erasure, all of user `alice`."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import pytest
import schemathesis
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from memoryadmin.conversations.services import NewMessage, session_append_messages
from memoryadmin.conversations.working_memory import working_memory_put
from memoryadmin.governance.erasure import erasure_request
from memoryadmin.governance.privacy_links import RIGHTS, privacy_link_create
from memoryadmin.memories.models import Memory, MemoryStatus
from memoryadmin.memories.services import memory_create, memory_forget
from memoryadmin.tenancy.models import SCOPES, Namespace
from tests.conftest import SYSTEM
from tests.security.conftest import world

# The security tests' two-namespace world, for the hostile-input tests.
__all__ = ["world"]

# The checks the issue asks for: no 5xx, the response matches its schema, every status is documented.
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]


@dataclass
class Seeds:
    """Real objects for generated requests to aim at; recreated when a request removed them."""

    namespace: Namespace
    session_id: str = "s1"
    user_id: str = "alice"

    def memory_id(self) -> str:
        memory = Memory.objects.filter(namespace=self.namespace, user_id=self.user_id).order_by("created_at").first()
        if memory is None:
            memory = _remember(self.namespace, f"alice fact {uuid.uuid4().hex}")
        return str(memory.pk)

    def ensure_session(self) -> None:
        session, _ = session_append_messages(
            namespace=self.namespace,
            session_id=self.session_id,
            user_id=self.user_id,
            messages=[NewMessage(role="user", content="I prefer green tea.", run_id="r1")],
        )
        working_memory_put(
            namespace_id=self.namespace.pk, session_id=session.session_id, state={"step": 1}, ttl_seconds=600
        )


def _remember(namespace: Namespace, text: str, **kwargs: object) -> Memory:
    result = memory_create(namespace=namespace, user_id="alice", text=text, actor=SYSTEM, **kwargs)  # type: ignore[arg-type]
    assert result.memory is not None
    return result.memory


@pytest.fixture
def seeds(namespace) -> Seeds:
    seeds = Seeds(namespace)
    seeds.ensure_session()
    _remember(namespace, "Alice likes jazz", pinned=True, topics=["music"])
    _remember(namespace, "Alice lives in Lyon", status=MemoryStatus.CANDIDATE)
    memory_forget(memory=_remember(namespace, "Alice smokes"), actor=SYSTEM)
    erasure_request(namespace=namespace, user_id="zoe", actor=SYSTEM, enqueue=False)
    privacy_link_create(namespace=namespace, user_id="alice", actor=SYSTEM, grantable=RIGHTS)
    return seeds


@pytest.fixture
def fuzz_key(namespace, make_key) -> str:
    # Every scope, so the tombstone operations are fuzzed past their scope check too.
    return make_key(namespace, ",".join(SCOPES))[1]


@pytest.fixture
def api_schema(live_server, settings, seeds):
    # The fuzzer sends thousands of requests with one key; the rate limit has its own tests.
    settings.API_RATE_LIMIT_PER_MINUTE = 0
    return schemathesis.openapi.from_url(f"{live_server.url}/api/v1/openapi.json")


# The snapshot restore takes JSON Lines; generated bodies go as the text they are.
schemathesis.serializer.alias("application/x-ndjson", "text/plain")
