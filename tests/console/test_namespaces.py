from __future__ import annotations

import re

from django.urls import reverse

from memoryadmin.audit.models import AuditEvent
from memoryadmin.tenancy.models import ApiKey, Namespace, hash_api_key

SETTINGS = {
    "name": "Alpha app",
    "review_required": "on",
    "extraction_strategy": "offline",
    "extraction_config": "",
    "working_memory_ttl_seconds": "900",
}


def test_it_lists_namespaces(viewer_client, namespace, other_namespace):
    response = viewer_client.get("/namespaces/")
    assert response.status_code == 200
    assert [f.namespace.slug for f in response.context["figures"]] == ["alpha", "bravo"]


def test_it_shows_settings_and_keys(viewer_client, namespace, make_key):
    key, _ = make_key(namespace)
    response = viewer_client.get("/namespaces/alpha/")
    assert response.status_code == 200
    assert key.prefix in response.content.decode()


def test_it_answers_404_for_an_unknown_namespace(viewer_client, db):
    assert viewer_client.get("/namespaces/nope/").status_code == 404


class TestSettings:
    def test_it_saves_settings(self, admin_client, namespace, htmx):
        response = admin_client.post("/namespaces/alpha/settings/", SETTINGS, headers=htmx)
        assert response.status_code == 200
        namespace.refresh_from_db()
        assert (namespace.name, namespace.review_required, namespace.working_memory_ttl_seconds) == (
            "Alpha app",
            True,
            900,
        )
        event = AuditEvent.objects.get(action="namespace.update")
        assert event.data == {"fields": ["name", "review_required", "working_memory_ttl_seconds"]}

    def test_it_validates_the_strategy_config(self, admin_client, namespace, htmx):
        data = {**SETTINGS, "extraction_strategy": "custom", "extraction_config": '{"prompt": "Hi {password}"}'}
        response = admin_client.post("/namespaces/alpha/settings/", data, headers=htmx)
        assert response.status_code == 422
        assert b'class="error"' in response.content
        namespace.refresh_from_db()
        assert namespace.extraction_strategy == "offline"

    def test_it_refuses_malformed_json(self, admin_client, namespace, htmx):
        data = {**SETTINGS, "extraction_config": "{nope"}
        response = admin_client.post("/namespaces/alpha/settings/", data, headers=htmx)
        assert response.status_code == 422
        assert b"not valid JSON" in response.content

    def test_it_requires_the_admin_role(self, operator_client, namespace):
        response = operator_client.post("/namespaces/alpha/settings/", SETTINGS)
        assert response.status_code == 403
        namespace.refresh_from_db()
        assert namespace.name == "alpha"

    def test_it_disables_the_form_for_others(self, operator_client, namespace):
        html = operator_client.get("/namespaces/alpha/").content.decode()
        assert "<fieldset disabled>" in html
        assert "Only an admin can change settings" in html


class TestApiKeys:
    def test_the_key_form_offers_and_grants_the_tombstones_scope(self, admin_client, namespace, htmx):
        assert 'value="tombstones"' in admin_client.get("/namespaces/alpha/").content.decode()
        data = {"name": "support desk", "scopes": ["read", "tombstones"]}
        assert admin_client.post("/namespaces/alpha/keys/", data, headers=htmx).status_code == 200
        assert ApiKey.objects.get(name="support desk").scopes == ["read", "tombstones"]

    def test_it_creates_a_key_and_shows_the_secret_once(self, admin_client, namespace, htmx):
        data = {"name": "mobile app", "scopes": ["read", "write"]}
        response = admin_client.post("/namespaces/alpha/keys/", data, headers=htmx)
        assert response.status_code == 200
        key = ApiKey.objects.get(name="mobile app")
        assert key.scopes == ["read", "write"]
        secret = response.context["secret"]
        assert hash_api_key(secret) == key.key_hash
        assert secret in response.content.decode()
        assert secret not in admin_client.get("/namespaces/alpha/").content.decode()

    def test_it_needs_a_scope(self, admin_client, namespace, htmx):
        response = admin_client.post("/namespaces/alpha/keys/", {"name": "x"}, headers=htmx)
        assert response.status_code == 422
        assert not ApiKey.objects.exists()

    def test_it_revokes_a_key(self, admin_client, namespace, make_key, htmx):
        key, _ = make_key(namespace)
        response = admin_client.post(f"/namespaces/alpha/keys/{key.pk}/revoke/", headers=htmx)
        assert response.status_code == 200
        key.refresh_from_db()
        assert key.revoked_at is not None
        assert AuditEvent.objects.filter(action="api_key.revoke", actor="alice").exists()

    def test_it_checks_the_keys_namespace(self, admin_client, namespace, other_namespace, make_key):
        key, _ = make_key(other_namespace)
        assert admin_client.post(f"/namespaces/alpha/keys/{key.pk}/revoke/").status_code == 404
        key.refresh_from_db()
        assert key.revoked_at is None

    def test_it_requires_the_admin_role(self, operator_client, namespace, make_key):
        key, _ = make_key(namespace)
        assert operator_client.post("/namespaces/alpha/keys/", {"name": "x", "scopes": ["read"]}).status_code == 403
        assert operator_client.post(f"/namespaces/alpha/keys/{key.pk}/revoke/").status_code == 403
        key.refresh_from_db()
        assert key.revoked_at is None
        assert ApiKey.objects.count() == 1

    def test_it_lists_keys_without_n_plus_one(self, viewer_client, namespace, make_key, django_assert_max_num_queries):
        for _ in range(10):
            make_key(namespace)
        with django_assert_max_num_queries(6):
            assert viewer_client.get("/namespaces/alpha/").status_code == 200


def test_it_keeps_namespaces_unchanged_for_a_viewer(viewer_client, namespace):
    assert viewer_client.post("/namespaces/alpha/settings/", SETTINGS).status_code == 403
    assert Namespace.objects.get().review_required is False


def test_it_lists_namespaces_with_a_fixed_cost_each(viewer_client, make_namespace, django_assert_max_num_queries):
    for slug in ("n1", "n2", "n3"):
        make_namespace(slug)
    # session, user, groups, namespaces, erasures, then four bounded counts per namespace
    with django_assert_max_num_queries(5 + 4 * 3):
        assert viewer_client.get("/namespaces/").status_code == 200


def test_an_admin_creates_a_namespace(admin_client, db):
    r = admin_client.post(reverse("console:namespace_new"), {"slug": "support-bot", "name": "Support bot"})
    assert r.status_code == 302 and r["Location"] == reverse("console:namespace", args=["support-bot"])
    assert Namespace.objects.get(slug="support-bot").name == "Support bot"
    assert AuditEvent.objects.filter(action="namespace.create", actor="alice", target_id="support-bot").exists()


def test_it_says_why_a_namespace_was_not_created(admin_client, namespace):
    r = admin_client.post(reverse("console:namespace_new"), {"slug": "alpha"})
    assert r.status_code == 422 and b"already exists" in r.content
    r = admin_client.post(reverse("console:namespace_new"), {"slug": "Not OK"})
    assert r.status_code == 422 and b"lowercase letters" in r.content
    assert not Namespace.objects.filter(slug="Not OK").exists()


def test_its_two_forms_name_their_fields_apart(admin_client, namespace):
    html = admin_client.get("/namespaces/alpha/").content.decode()
    ids = re.findall(r'\sid="([^"]+)"', html)
    assert sorted({i for i in ids if ids.count(i) > 1}) == []
    # The key form's "Name" is the key's name, not the namespace's.
    key_form = html[html.index(reverse("console:api_key_new", args=["alpha"])) :]
    label_for = re.search(r'<label for="([^"]+)">Name</label>', key_form).group(1)
    assert re.search(rf'<input type="text" name="name"[^>]*id="{label_for}"', key_form)
