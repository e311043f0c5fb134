"""Anchors of the audit chain outside the database: signed checkpoints, and erasure receipts.

The keyed digests make a rewritten chain fail verification, but not a chain cut
short (its newest events dropped) or emptied: what is left still links up. A
checkpoint records the head of every chain (its last event's id and digest),
signed, in a file written where the database cannot reach it (AUDIT_CHECKPOINT_DIR:
another volume, a write-once bucket; beat writes one every AUDIT_CHECKPOINT_SECONDS,
`manage.py audit_checkpoint` on demand). An erasure receipt does the same for one
event, held by whoever asked for the erasure. Verifying with them
(`manage.py verify_audit_chain`, the console's chain page) fails when a recorded
event is missing or differs.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone

from memoryadmin.audit.models import AuditEvent
from memoryadmin.audit.services import Anchor

KIND = "memoryadmin.audit-checkpoint"
VERSION = 1


class CheckpointInvalid(ValueError):
    """A checkpoint whose signature does not hold: altered, or not made by this deployment."""


def _signing_key() -> bytes:
    # Derived, so a checkpoint's signature is never also a valid event digest.
    return hmac.new(settings.AUDIT_CHAIN_KEY.encode(), b"audit-checkpoint", hashlib.sha256).digest()


def _signature(body: dict[str, Any]) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hmac.new(_signing_key(), canonical.encode(), hashlib.sha256).hexdigest()


def chain_heads() -> list[dict[str, Any]]:
    """The last event of every chain, in one statement (the audit_ns_id index)."""
    table = AuditEvent._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT DISTINCT ON (namespace_id) namespace_id, id, hash FROM {table} ORDER BY namespace_id, id DESC"
        )
        rows = cursor.fetchall()
    return [{"namespace_id": ns, "event_id": event_id, "hash": digest} for ns, event_id, digest in rows]


def checkpoint_make() -> dict[str, Any]:
    body = {"kind": KIND, "version": VERSION, "created_at": timezone.now().isoformat(), "heads": chain_heads()}
    return {**body, "signature": _signature(body)}


def checkpoint_write(directory: str | Path) -> Path:
    """Write a new checkpoint file into `directory`, whole or not at all."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    checkpoint = checkpoint_make()
    stamp = timezone.now().strftime("%Y%m%dT%H%M%S%fZ")
    target = folder / f"audit-checkpoint-{stamp}.json"
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".audit-checkpoint-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w") as out:
            json.dump(checkpoint, out, indent=1, sort_keys=True)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def anchors_of(document: Any, source: str) -> list[Anchor]:
    """The anchors a checkpoint or an erasure receipt records; CheckpointInvalid for a forged checkpoint."""
    if not isinstance(document, dict):
        raise CheckpointInvalid(f"{source}: neither a checkpoint nor an erasure receipt")
    if document.get("kind") == KIND:
        body = {k: v for k, v in document.items() if k != "signature"}
        if not hmac.compare_digest(str(document.get("signature", "")), _signature(body)):
            raise CheckpointInvalid(f"{source}: the signature does not match; the checkpoint was altered")
        label = f"the checkpoint of {document.get('created_at')} ({source})"
        return [
            Anchor(
                event_id=int(head["event_id"]), hash=str(head["hash"]), namespace_id=head["namespace_id"], source=label
            )
            for head in document.get("heads", [])
        ]
    event = document.get("audit_event")
    if isinstance(event, dict) and "receipt_sha256" in document:
        label = f"the receipt of erasure {document.get('erasure_id')} ({source})"
        # A receipt names its namespace by slug, which the audit layer does not resolve: it
        # anchors the whole trail's verification, not one chain's.
        return [
            Anchor(event_id=int(event["id"]), hash=str(event["hash"]), namespace_id=None, source=label, scoped=False)
        ]
    raise CheckpointInvalid(f"{source}: neither a checkpoint nor an erasure receipt")


def anchors_in(*paths: str | Path) -> list[Anchor]:
    """Every anchor in these files, and in the *.json files of these directories."""
    anchors: list[Anchor] = []
    for path in map(Path, paths):
        files = sorted(path.glob("*.json")) if path.is_dir() else [path]
        for file in files:
            try:
                document = json.loads(file.read_text())
            except (OSError, ValueError) as exc:
                raise CheckpointInvalid(f"{file}: cannot be read as JSON ({exc})") from None
            anchors.extend(anchors_of(document, file.name))
    return anchors


def configured_anchors() -> list[Anchor]:
    """The anchors in AUDIT_CHECKPOINT_DIR, when one is set."""
    directory = settings.AUDIT_CHECKPOINT_DIR
    if not directory or not Path(directory).is_dir():
        return []
    return anchors_in(directory)
