"""Keyset cursors: the types a list's cursor holds come from its key's model fields."""

from __future__ import annotations

import uuid
from datetime import datetime

import pytest

from memoryadmin.conversations.models import Message, Session
from memoryadmin.core.pagination import InvalidCursor, cursor_type, decode_cursor, encode_cursor
from memoryadmin.memories.models import Memory
from memoryadmin.tenancy.models import Namespace


@pytest.mark.parametrize(
    ("model", "name", "kind"),
    [
        (Memory, "created_at", datetime),
        (Memory, "id", uuid.UUID),
        (Session, "id", int),
        (Session, "session_id", str),
        (Message, "session", int),
        (Memory, "namespace", int),
    ],
)
def test_a_key_fields_cursor_type_is_its_columns(model, name, kind) -> None:
    assert cursor_type(model._meta.get_field(name)) is kind


def test_a_field_no_cursor_can_hold_is_refused() -> None:
    with pytest.raises(TypeError):
        cursor_type(Memory._meta.get_field("metadata"))
    with pytest.raises(TypeError):
        cursor_type(Namespace._meta.get_field("review_required"))


def test_a_cursor_read_with_the_derived_types_round_trips_and_refuses_another_shape() -> None:
    fields = [Memory._meta.get_field("created_at"), Memory._meta.get_field("id")]
    types = [cursor_type(f) for f in fields]
    at, pk = datetime.fromisoformat("2026-12-04T10:00:00+00:00"), uuid.uuid4()
    assert decode_cursor(encode_cursor("memories", [at, pk]), "memories", types) == (at, pk)
    with pytest.raises(InvalidCursor):
        decode_cursor(encode_cursor("memories", [at, 7]), "memories", types)
