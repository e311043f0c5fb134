"""Signatures in the Standard Webhooks style: HMAC-SHA256 over `id.timestamp.body`, base64, as `v1,<sig>`."""

from __future__ import annotations

import base64
import hashlib
import hmac

SECRET_PREFIX = "whsec_"  # noqa: S105 - the form of a secret, not one


def secret_key(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX))


def sign(secret: str, event_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{event_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(secret_key(secret), signed, hashlib.sha256).digest()).decode()


def signature_headers(secret: str, event_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    return {
        "webhook-id": event_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": sign(secret, event_id, timestamp, body),
    }
