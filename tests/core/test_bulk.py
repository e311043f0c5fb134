"""Bulk helpers: a batch of rows sent as one JSON document is inserted in order, skipping conflicts when
asked, and stored exactly as the ORM would have stored them; an array literal reads back as it was made;
writes nobody reads back travel with the next statement, in order, their failures failing it."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from types import SimpleNamespace

import orjson
import pytest
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, connection, transaction
from django.db.models import JSONField
from django.utils import timezone

from memoryadmin.core.bulk import array_literal, insert_json_rows, json_rows, send_later, writes_sent_later
from memoryadmin.memories.models import Memory, Tombstone
from memoryadmin.memories.services import memory_create
from tests.conftest import SYSTEM

pytestmark = pytest.mark.django_db

TOMBSTONE_COLUMNS = ("namespace_id", "user_id", "fingerprint", "reason", "text", "memory_type", "actor", "created_at")
MEMORY_FIELDS = [f for f in Memory._meta.concrete_fields if not f.generated]


def tombstone_row(namespace, fingerprint: str) -> list:
    return [namespace.pk, "alice", fingerprint, "forgotten", "", "", "system:test", timezone.now()]


def test_it_inserts_the_rows_in_their_order(namespace, django_assert_num_queries) -> None:
    fingerprints = [f"{n:064d}" for n in (3, 1, 2)]
    with django_assert_num_queries(1):
        written = insert_json_rows(
            Tombstone._meta.db_table,
            TOMBSTONE_COLUMNS,
            [tombstone_row(namespace, f) for f in fingerprints],
            suffix="RETURNING id, fingerprint",
        )
    assert [f for _, f in written] == fingerprints
    assert [pk for pk, _ in written] == sorted(pk for pk, _ in written)
    assert list(Tombstone.objects.order_by("id").values_list("fingerprint", flat=True)) == fingerprints


def test_it_skips_conflicts_when_asked(namespace) -> None:
    insert_json_rows(Tombstone._meta.db_table, TOMBSTONE_COLUMNS, [tombstone_row(namespace, "a" * 64)])
    written = insert_json_rows(
        Tombstone._meta.db_table,
        TOMBSTONE_COLUMNS,
        [tombstone_row(namespace, "a" * 64), tombstone_row(namespace, "b" * 64)],
        suffix="ON CONFLICT DO NOTHING RETURNING fingerprint",
    )
    assert written == [("b" * 64,)]
    assert Tombstone.objects.count() == 2


def test_an_empty_batch_sends_nothing(django_assert_num_queries) -> None:
    with django_assert_num_queries(0):
        assert insert_json_rows(Tombstone._meta.db_table, TOMBSTONE_COLUMNS, [], suffix="RETURNING id") == []


def test_a_row_reads_back_as_the_orm_saves_it(namespace) -> None:
    saved = memory_create(
        namespace=namespace,
        user_id="alice",
        text='Alice\'s "notes" \\ on naïve café décor, 100% ✓',
        actor=SYSTEM,
        topics=["home", "design"],
        entities=["Alice"],
        metadata={"nested": {"list": [1, 2.5, None, True], "text": 'it\'s "quoted"'}, "empty": {}},
        stated_at=timezone.now() - dt.timedelta(days=3, microseconds=7),
        event_date=dt.date(2023, 5, 4),
        event_date_precision="day",
    ).memory
    copied = Memory.objects.get(pk=saved.pk)
    copied.id, copied.user_id, copied.last_accessed_at = uuid.uuid4(), "bob", None

    insert_json_rows(Memory._meta.db_table, [f.column for f in MEMORY_FIELDS], json_rows([copied], MEMORY_FIELDS))

    original, written = Memory.objects.get(pk=saved.pk), Memory.objects.get(pk=copied.pk)
    for f in Memory._meta.concrete_fields:
        if f.name not in ("id", "user_id", "last_accessed_at"):
            assert getattr(written, f.attname) == getattr(original, f.attname), f.name
    assert written.last_accessed_at is None


def test_a_json_field_is_written_with_its_encoder() -> None:
    field = JSONField(encoder=DjangoJSONEncoder)
    field.set_attributes_from_name("data")
    ((value,),) = json_rows([SimpleNamespace(data={"amount": Decimal("1.10"), "on": dt.date(2024, 2, 29)})], [field])
    assert orjson.loads(orjson.dumps(value)) == {"amount": "1.10", "on": "2024-02-29"}
    ((none,),) = json_rows([SimpleNamespace(data=None)], [field])
    assert none is None  # SQL NULL, as the field saves None


def test_an_array_literal_reads_back_as_the_strings_it_was_made_of() -> None:
    values = ["plain", "", "with space", 'a "quote"', "back\\slash", "{brace}", "comma,here", "NULL", "ünï\u00a0code"]
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::text[]", [array_literal(values)])
        assert cursor.fetchone()[0] == values


def test_an_array_literal_of_integers_casts_to_an_integer_array() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::int[], %s::int[]", [array_literal([3, 1, 2]), array_literal([])])
        assert cursor.fetchone() == ([3, 1, 2], [])


def test_a_write_nobody_reads_travels_with_the_next_statement_which_sees_it(
    namespace, django_assert_num_queries
) -> None:
    rows = [tombstone_row(namespace, f"{n:064d}") for n in (1, 2)]
    rows[0][3] = "5% 'x';"  # its % and quotes survive the next statement's parameters
    with transaction.atomic(), writes_sent_later():
        with django_assert_num_queries(0):
            insert_json_rows(Tombstone._meta.db_table, TOMBSTONE_COLUMNS, rows)
        with django_assert_num_queries(2), connection.cursor() as cursor:
            # The next statement reads its own result, after the held one ran.
            cursor.execute("SELECT count(*), %s FROM memories_tombstone WHERE namespace_id = %s", ["x", namespace.pk])
            assert cursor.fetchone() == (2, "x")
            cursor.execute("SELECT 1; SELECT 2")  # a statement of several statements: its results as they come
            assert cursor.fetchone() == (1,)
            assert cursor.nextset() and cursor.fetchone() == (2,)
        insert_json_rows(Tombstone._meta.db_table, TOMBSTONE_COLUMNS, [tombstone_row(namespace, c * 64) for c in "f9"])
        # An update's count is its own (1), not the held insert's (2).
        assert Tombstone.objects.filter(fingerprint="f" * 64).update(reason="gone") == 1
    reasons = sorted(Tombstone.objects.values_list("reason", flat=True))
    assert reasons == ["5% 'x';", "forgotten", "forgotten", "gone"]


def test_a_write_still_held_at_the_block_s_end_is_sent_then(namespace) -> None:
    with transaction.atomic():
        with writes_sent_later():
            send_later(
                "INSERT INTO memories_tombstone (namespace_id, user_id, fingerprint, reason, text, memory_type, actor, "
                "created_at) VALUES (%s, 'alice', %s, '', '', '', 'system:test', now())",
                [namespace.pk, "c" * 64],
            )
        assert Tombstone.objects.filter(fingerprint="c" * 64).exists()


def test_a_held_write_that_fails_fails_the_statement_it_travels_with(namespace) -> None:
    insert_json_rows(Tombstone._meta.db_table, TOMBSTONE_COLUMNS, [tombstone_row(namespace, "d" * 64)])
    with pytest.raises(IntegrityError), transaction.atomic(), writes_sent_later():
        insert_json_rows(Tombstone._meta.db_table, TOMBSTONE_COLUMNS, [tombstone_row(namespace, "d" * 64)])
        Tombstone.objects.count()
    assert Tombstone.objects.count() == 1


def test_outside_the_block_a_write_nobody_reads_is_sent_at_once(namespace, django_assert_num_queries) -> None:
    with django_assert_num_queries(1):
        insert_json_rows(Tombstone._meta.db_table, TOMBSTONE_COLUMNS, [tombstone_row(namespace, "e" * 64)])


def test_a_held_statement_s_rows_reach_its_reader_once_it_has_run(namespace, django_assert_num_queries) -> None:
    got: list[list[tuple]] = []
    sql = "UPDATE tenancy_namespace SET name = name WHERE id = %s RETURNING id, '100%%'"
    with transaction.atomic():
        with writes_sent_later():
            with django_assert_num_queries(0):
                send_later(sql, [namespace.pk], got.append)
                send_later(sql, [namespace.pk], got.append)
            assert got == []
            assert Tombstone.objects.count() == 0  # carries both: their rows are read first
            assert got == [[(namespace.pk, "100%")]] * 2
            send_later(sql, [namespace.pk], got.append)
        assert len(got) == 3  # the block's end sent the last
    send_later(sql, [namespace.pk], got.append)  # outside the block: at once
    assert len(got) == 4
