"""Whatever an operator (or a forged request) sends, the console answers 4xx, never 5xx."""

from __future__ import annotations

import pytest
from django.test import Client

HUGE = "9" * 30
NUL = "%00"


@pytest.fixture
def client(alice) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(alice)
    return client


@pytest.mark.parametrize(
    "path",
    [
        f"/memories/?q={NUL}",
        f"/memories/?q={'x' * 3000}",
        f"/memories/?topic={NUL}",
        f"/memories/?user={NUL}",
        "/memories/?created_from=9999-99-99",
        "/memories/?created_from=0001-01-01&created_to=9999-12-31",
        f"/memories/?cursor={'A' * 2000}",
        "/memories/?q=%22unbalanced&status=any",
        "/memories/?q=!!!%20%26%26%20|||",
        f"/sessions/?cursor={NUL}",
        f"/sessions/?user={'u' * 500}",
        "/sessions/{pk}/?after=-5",
        f"/sessions/{{pk}}/?after={HUGE}",
        f"/sessions/{{pk}}/?at={HUGE}",
        "/sessions/{pk}/?at=abc",
        f"/sessions/{HUGE}/",
        f"/tombstones/?cursor={NUL}",
        "/tombstones/?reason=nonsense",
        f"/audit/?before={HUGE}",
        "/audit/?before=-1",
        f"/audit/?actor={NUL}",
        f"/audit/?target=memory:{NUL}",
        f"/review/?cursor={HUGE}",
        f"/subjects/?user={NUL}",
        f"/subjects/{HUGE}/u1/",
        "/subjects/{ns}/" + "u" * 300 + "/",
        f"/namespaces/{'x' * 300}/",
    ],
)
def test_it_never_fails_on_a_strange_read(client, namespace, make_session, path):
    session, _ = make_session()
    response = client.get(path.format(pk=session.pk, ns=namespace.pk))
    assert response.status_code < 500


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("/memories/{m}/edit/", {"text": f"bad{chr(0)}text", "memory_type": "semantic"}),
        ("/memories/{m}/edit/", {"text": "x" * 10_000, "memory_type": "semantic"}),
        (
            "/memories/{m}/edit/",
            {"text": "ok", "memory_type": "semantic", "topics": ",".join(f"t{i}" for i in range(80))},
        ),
        ("/memories/{m}/edit/", {"text": "ok", "memory_type": "semantic", "topics": "x" * 300}),
        ("/memories/{m}/forget/", {"reason": f"why{chr(0)}"}),
        ("/memories/{m}/pin/", {"reason": "r" * 10_000}),
        ("/memories/bulk/", {"ns": "alpha", "action": "pin", "ids": ["{m}"] * 1001}),
        ("/memories/bulk/", {"ns": f"al{chr(0)}pha", "action": "pin", "ids": ["{m}"]}),
        ("/namespaces/alpha/settings/", {"name": "A", "extraction_strategy": "custom", "extraction_config": "[1]"}),
        (
            "/namespaces/alpha/settings/",
            {
                "name": "A",
                "extraction_strategy": "custom",
                "extraction_config": '{"prompt": "x\\u0000 {messages}"}',
                "working_memory_ttl_seconds": "60",
            },
        ),
        (
            "/namespaces/alpha/settings/",
            {"name": "A", "extraction_strategy": "rules", "working_memory_ttl_seconds": HUGE},
        ),
        ("/namespaces/alpha/keys/", {"name": f"k{chr(0)}", "scopes": ["read"]}),
        ("/namespaces/alpha/keys/", {"name": "k", "scopes": ["root"]}),
        ("/subjects/{ns}/u1/erase/", {"confirm": f"u1{chr(0)}"}),
        ("/tombstones/{t}/lift/", {"reason": f"x{chr(0)}"}),
    ],
)
def test_it_never_fails_on_a_strange_write(client, namespace, make_memory, path, data):
    from memoryadmin.memories.services import memory_forget
    from tests.conftest import SYSTEM

    memory = make_memory("User likes jazz")
    tombstone = memory_forget(memory=make_memory("User likes tea"), actor=SYSTEM)
    values = {k: ([v.format(m=memory.pk) for v in val] if isinstance(val, list) else val) for k, val in data.items()}
    response = client.post(path.format(m=memory.pk, ns=namespace.pk, t=tombstone.pk), values)
    assert 400 <= response.status_code < 500


@pytest.mark.parametrize("cursor", ["x", "%00", "A" * 600, "WyJlcmFzdXJlcyIsIm5vdCBhIHRpbWUiLCJ4Il0"])
def test_a_malformed_cursor_on_the_erasures_list_is_400(client, namespace, cursor):
    response = client.get(f"/governance/erasures/?ns={namespace.slug}&cursor={cursor}")
    assert response.status_code == 400
    assert b"does not exist" in response.content
