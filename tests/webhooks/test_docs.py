"""The receiver's verification code in docs/webhooks.md, run as written against real deliveries."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memoryadmin.memories.services import memory_create
from memoryadmin.webhooks.delivery import deliveries_send
from tests.conftest import SYSTEM

pytestmark = pytest.mark.django_db

DOC = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"


def documented_verifier() -> dict:
    """The first Python block after the "Verifying a delivery" heading, executed."""
    text = DOC.read_text()
    section = text[text.index("## Verifying a delivery") :]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    scope: dict = {}
    exec(compile(code, f"{DOC}:verifier", "exec"), scope)  # noqa: S102 - the documentation's own code
    return scope


def test_the_documented_verifier_accepts_a_real_delivery_and_refuses_a_forgery(
    namespace, make_endpoint, receiver
) -> None:
    verifier = documented_verifier()
    verify, invalid = verifier["verify"], verifier["InvalidSignature"]
    endpoint = make_endpoint(namespace)
    memory_create(namespace=namespace, user_id="alice", text="Alice likes tea", actor=SYSTEM)
    deliveries_send(endpoint.pk)
    (got,) = receiver.acknowledged()

    verify(endpoint.secret, got.headers, got.body)  # a genuine delivery passes

    with pytest.raises(invalid):
        verify(endpoint.secret, got.headers, got.body.replace(b"memory.created", b"memory.deleted"))
    with pytest.raises(invalid):
        verify("whsec_" + "QUJD" * 8, got.headers, got.body)
    with pytest.raises(invalid):
        verify(endpoint.secret, {**got.headers, "webhook-id": "another-id"}, got.body)
    with pytest.raises(invalid):
        verify(endpoint.secret, got.headers, got.body, now=int(got.headers["webhook-timestamp"]) + 3600)
    with pytest.raises(invalid):
        verify(endpoint.secret, {k: v for k, v in got.headers.items() if k != "webhook-signature"}, got.body)
