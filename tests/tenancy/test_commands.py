from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError

from memoryadmin.tenancy.models import ApiKey, Namespace, hash_api_key
from memoryadmin.tenancy.roles import rights_of_user


def test_create_namespace_and_key_print_the_key_alone_on_the_last_line(db) -> None:
    call_command("create_namespace", "acme", "--name", "Acme", "--review-required", stdout=io.StringIO())
    ns = Namespace.objects.get(slug="acme")
    assert ns.review_required and ns.name == "Acme"
    out = io.StringIO()
    call_command("create_api_key", "acme", "--scopes", "read", stdout=out, stderr=io.StringIO())
    raw = out.getvalue().strip().splitlines()[-1]
    key = ApiKey.objects.get(key_hash=hash_api_key(raw))
    assert key.scopes == ["read"] and key.namespace == ns
    assert raw not in (key.key_hash, key.prefix)


@pytest.mark.parametrize(
    ("command", "args", "message"),
    [
        ("create_namespace", ["Bad Slug"], "invalid slug"),
        ("create_api_key", ["missing"], "no namespace"),
        ("create_operator", ["eve", "--role", "god", "--password", "longenough"], "unknown role"),
        ("create_operator", ["eve", "--role", "viewer", "--password", "short"], "at least 8"),
    ],
)
def test_bad_input_is_a_clear_error_and_creates_nothing(db, command, args, message) -> None:
    with pytest.raises(CommandError, match=message):
        call_command(command, *args, stdout=io.StringIO(), stderr=io.StringIO())
    assert not Namespace.objects.exists()
    assert not User.objects.filter(username="eve").exists()


def test_create_api_key_refuses_unknown_scopes(db) -> None:
    call_command("create_namespace", "acme", stdout=io.StringIO())
    with pytest.raises(CommandError, match="unknown scope"):
        call_command("create_api_key", "acme", "--scopes", "read,admin", stdout=io.StringIO(), stderr=io.StringIO())
    assert not ApiKey.objects.exists()


def test_create_operator_puts_the_user_in_the_role_group(db) -> None:
    call_command("create_operator", "olivia", "--role", "operator", "--password", "pass-word-1", stdout=io.StringIO())
    user = User.objects.get(username="olivia")
    assert list(user.groups.values_list("name", flat=True)) == ["operator"]
    assert user.check_password("pass-word-1")


def test_create_operator_limits_to_namespaces(namespace) -> None:
    args = ("create_operator", "lena", "--role", "viewer", "--password", "pass-word-1")
    with pytest.raises(CommandError, match="no such namespace: nowhere"):
        call_command(*args, "--namespaces", "alpha,nowhere", stdout=io.StringIO())
    assert not User.objects.filter(username="lena").exists()
    call_command(*args, "--namespaces", "alpha", stdout=io.StringIO())
    assert rights_of_user(User.objects.get(username="lena")) == ("viewer", frozenset({namespace.pk}))


def test_seed_demo_is_idempotent(db) -> None:
    args = ["--users", "6", "--sessions", "8", "--messages-per-session", "10", "--memories", "40"]
    call_command("seed_demo", *args, stdout=io.StringIO())
    counts = (Namespace.objects.count(), User.objects.count())
    from memoryadmin.memories.models import Memory

    memories = Memory.objects.count()
    assert memories >= 30
    call_command("seed_demo", *args, stdout=io.StringIO())
    assert (Namespace.objects.count(), User.objects.count()) == counts
    assert Memory.objects.count() == memories
