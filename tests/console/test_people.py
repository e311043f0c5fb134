"""The people pages: admins create accounts, change roles, limit namespaces, deactivate."""

from __future__ import annotations

from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

from memoryadmin.audit.models import AuditEvent
from memoryadmin.tenancy.roles import rights_of_user, role_of
from tests.conftest import PASSWORD, operator_user


def test_the_people_link_is_in_an_admins_navigation(admin_client):
    assert f'href="{reverse("console:people")}"'.encode() in admin_client.get(reverse("console:dashboard")).content


def test_it_lists_people_with_a_fixed_number_of_queries(admin_client, namespace, django_assert_max_num_queries):
    for i in range(12):
        operator_user(f"op{i}", "operator")
    with django_assert_max_num_queries(8):
        r = admin_client.get(reverse("console:people"))
    assert r.status_code == 200
    assert b"op11" in r.content and b"alice" in r.content


def test_it_creates_an_account_limited_to_a_namespace(admin_client, namespace, other_namespace):
    r = admin_client.post(
        reverse("console:person_new"),
        {"username": "lena", "password": PASSWORD, "role": "operator", "namespaces": ["bravo"]},
    )
    assert r.status_code == 302 and r["Location"] == reverse("console:person", args=["lena"])
    lena = User.objects.get(username="lena")
    assert rights_of_user(lena) == ("operator", frozenset({other_namespace.pk}))
    assert AuditEvent.objects.filter(action="operator.create", actor="alice", target_id="lena").exists()
    assert Client().login(username="lena", password=PASSWORD)


def test_it_says_why_an_account_was_not_created_and_keeps_what_was_typed(admin_client, olivia):
    r = admin_client.post(reverse("console:person_new"), {"username": "olivia", "password": PASSWORD, "role": "viewer"})
    assert r.status_code == 422
    assert b"already exists" in r.content and b'value="olivia"' in r.content
    r = admin_client.post(reverse("console:person_new"), {"username": "nina", "password": "short", "role": "viewer"})
    assert r.status_code == 422 and b"at least 8 characters" in r.content
    assert not User.objects.filter(username="nina").exists()


def test_it_changes_a_role_in_place(admin_client, olivia, htmx):
    r = admin_client.post(reverse("console:person_role", args=["olivia"]), {"role": "viewer"}, headers=htmx)
    assert r.status_code == 200
    assert b"olivia is now viewer" in r.content and b"<html" not in r.content
    assert role_of(User.objects.get(username="olivia")) == "viewer"


def test_a_role_change_asks_first_and_says_more_for_ones_own(admin_client, olivia):
    # alice (the admin signed in) on her own page, then on olivia's.
    own = admin_client.get(reverse("console:person", args=["alice"])).content.decode()
    assert 'hx-confirm="Change your own role?' in own
    theirs = admin_client.get(reverse("console:person", args=["olivia"])).content.decode()
    assert 'hx-confirm="Change the role of olivia?' in theirs


def test_the_last_admin_is_told_why_they_cannot_step_down(admin_client, htmx):
    r = admin_client.post(reverse("console:person_role", args=["alice"]), {"role": "operator"}, headers=htmx)
    assert r.status_code == 422 and b"last admin" in r.content
    assert role_of(User.objects.get(username="alice")) == "admin"
    r = admin_client.post(reverse("console:person_deactivate", args=["alice"]))
    assert r.status_code == 302
    assert User.objects.get(username="alice").is_active


def test_it_limits_and_unlimits_namespaces(admin_client, olivia, namespace, other_namespace):
    url = reverse("console:person_namespaces", args=["olivia"])
    r = admin_client.post(url, {"namespaces": ["alpha"]})
    assert r.status_code == 302
    assert rights_of_user(olivia) == ("operator", frozenset({namespace.pk}))
    page = admin_client.get(reverse("console:person", args=["olivia"]))
    assert b"limited to <code>alpha</code>" in page.content
    admin_client.post(url, {})
    assert rights_of_user(olivia) == ("operator", None)


def test_a_deactivated_operator_is_signed_out_at_once(admin_client, operator_client, olivia):
    assert operator_client.get(reverse("console:sessions")).status_code == 200
    r = admin_client.post(reverse("console:person_deactivate", args=["olivia"]), {"reason": "left"})
    assert r.status_code == 302
    r = operator_client.get(reverse("console:sessions"))
    assert r.status_code == 302 and r["Location"].startswith("/login/")
    assert not Client().login(username="olivia", password=PASSWORD)
    admin_client.post(reverse("console:person_reactivate", args=["olivia"]))
    assert Client().login(username="olivia", password=PASSWORD)


def test_reactivating_an_operator_does_not_revive_their_old_session(admin_client, operator_client, olivia):
    assert operator_client.get(reverse("console:sessions")).status_code == 200
    admin_client.post(reverse("console:person_deactivate", args=["olivia"]), {"reason": "left"})
    admin_client.post(reverse("console:person_reactivate", args=["olivia"]))
    r = operator_client.get(reverse("console:sessions"))
    assert r.status_code == 302 and r["Location"].startswith("/login/")
    fresh = Client()
    assert fresh.login(username="olivia", password=PASSWORD)
    assert fresh.get(reverse("console:sessions")).status_code == 200
    event = AuditEvent.objects.get(action="operator.deactivate", target_id="olivia")
    assert event.data == {"sessions_ended": 1}


def test_it_checks_the_account_exists(admin_client):
    assert admin_client.get(reverse("console:person", args=["nobody"])).status_code == 404
    assert admin_client.post(reverse("console:person_role", args=["nobody"]), {"role": "viewer"}).status_code == 404


def test_people_are_for_admins_only(operator_client):
    assert operator_client.get(reverse("console:people")).status_code == 403
    nav = f'href="{reverse("console:people")}"'.encode()
    assert nav not in operator_client.get(reverse("console:dashboard")).content


def test_an_account_name_is_refused_for_characters_a_username_cannot_hold(admin_client):
    for name in ("ops/night", "two words", "semi;colon", "tab\tname"):
        r = admin_client.post(reverse("console:person_new"), {"username": name, "password": PASSWORD, "role": "viewer"})
        assert r.status_code == 422, name
        assert b"letters, digits and" in r.content
        assert not User.objects.filter(username=name).exists()
    assert admin_client.get(reverse("console:people")).status_code == 200


def test_a_name_that_looks_like_an_existing_one_is_refused(admin_client, olivia):
    # A Cyrillic "\u043e" for the Latin "o", another case, a mix of scripts in one name.
    for name in ("\u043elivia", "Olivia", "OLIVIA", "ad\u043cin"):
        r = admin_client.post(reverse("console:person_new"), {"username": name, "password": PASSWORD, "role": "viewer"})
        assert r.status_code == 422, name
        assert not User.objects.filter(username=name).exists()
    r = admin_client.post(
        reverse("console:person_new"), {"username": "ren\u00e9.m", "password": PASSWORD, "role": "viewer"}
    )
    assert r.status_code == 302
    assert User.objects.filter(username="ren\u00e9.m").exists()


def test_an_account_made_before_the_rules_can_still_be_managed(admin_client):
    # Accounts from an earlier release may hold a "/" (nothing refused it then).
    User.objects.create_user(username="ops/night", password=PASSWORD).groups.add(Group.objects.get(name="operator"))
    r = admin_client.get(reverse("console:people"))
    assert r.status_code == 200 and b"ops/night" in r.content
    page = admin_client.get(reverse("console:person", args=["ops/night"]))
    assert page.status_code == 200 and b"ops/night" in page.content
    r = admin_client.post(reverse("console:person_role", args=["ops/night"]), {"role": "viewer"})
    assert r.status_code in (200, 302)
    assert role_of(User.objects.get(username="ops/night")) == "viewer"


def test_a_sign_in_within_the_minute_reads_just_now(admin_client, olivia):
    Client().login(username="olivia", password=PASSWORD)
    html = admin_client.get(reverse("console:people")).content.decode()
    assert "just now" in html and "0\xa0minutes" not in html and "0 minutes" not in html
