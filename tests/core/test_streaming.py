"""A queryset streamed for an export: every row once, in order, a batch at a time, with or without
server-side cursors."""

from __future__ import annotations

import pytest
from django.db import connection

from memoryadmin.core.streaming import rows_streamed
from memoryadmin.tenancy.models import Namespace


@pytest.fixture
def keyset(monkeypatch):
    """Server-side cursors off, as behind a transaction pooler (settings.DATABASE_POOLER)."""
    monkeypatch.setitem(connection.settings_dict, "DISABLE_SERVER_SIDE_CURSORS", True)


@pytest.fixture
def twelve(make_namespace) -> list[int]:
    return [make_namespace(f"ns-{i:02d}").pk for i in range(12)]


def test_it_streams_in_keyset_batches_without_server_side_cursors(keyset, twelve, django_assert_num_queries) -> None:
    qs = Namespace.objects.order_by("id")
    with django_assert_num_queries(3):
        rows = list(rows_streamed(qs, 5))
    assert [row.pk for row in rows] == sorted(twelve)


def test_named_rows_and_dicts_page_by_their_own_key(keyset, twelve, django_assert_num_queries) -> None:
    named = Namespace.objects.order_by("slug", "id").values_list("id", "slug", named=True)
    dicts = Namespace.objects.order_by("slug", "id").values("id", "slug")
    with django_assert_num_queries(6):
        assert [row.slug for row in rows_streamed(named, 5)] == [f"ns-{i:02d}" for i in range(12)]
        assert [row["id"] for row in rows_streamed(dicts, 5)] == sorted(twelve)


def test_a_batch_boundary_on_the_last_row_reads_one_empty_page(keyset, twelve, django_assert_num_queries) -> None:
    with django_assert_num_queries(4):
        assert len(list(rows_streamed(Namespace.objects.order_by("id"), 4))) == 12


def test_with_server_side_cursors_it_reads_through_one(twelve, monkeypatch, django_assert_num_queries) -> None:
    monkeypatch.setitem(connection.settings_dict, "DISABLE_SERVER_SIDE_CURSORS", False)
    with django_assert_num_queries(1):
        assert [row.pk for row in rows_streamed(Namespace.objects.order_by("id"), 5)] == sorted(twelve)


@pytest.mark.parametrize("order", [(), ("-id",), ("?",)])
def test_an_order_that_is_no_ascending_key_is_refused(keyset, db, order) -> None:
    with pytest.raises(ValueError, match="keyset"):
        list(rows_streamed(Namespace.objects.order_by(*order), 5))
