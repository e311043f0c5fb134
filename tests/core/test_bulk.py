"""Bulk helpers: what they hand PostgreSQL comes back as it was."""

from __future__ import annotations

import pytest
from django.db import connection

from memoryadmin.core.bulk import array_literal

pytestmark = pytest.mark.django_db


def test_an_array_literal_reads_back_as_the_strings_it_was_made_of() -> None:
    values = ["plain", "", "with space", 'a "quote"', "back\\slash", "{brace}", "comma,here", "NULL", "ünï\u00a0code"]
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::text[]", [array_literal(values)])
        assert cursor.fetchone()[0] == values


def test_an_array_literal_of_integers_casts_to_an_integer_array() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::int[], %s::int[]", [array_literal([3, 1, 2]), array_literal([])])
        assert cursor.fetchone() == ([3, 1, 2], [])
