"""Every console view × every role, generated from the URL resolver.

Who may do what is the fixed table RIGHTS below (the roles of DESIGN.md: viewers
read; operators pin, forget, edit, review and export; admins erase, restore, set
policies, manage keys and lift tombstones). Every routed view must be in it, so a
new view fails here until someone decides who may use it; each view is then
called by every role and checked against the table, not against its own
decorator. Refused calls must change nothing; allowed ones must get through
(not 401/403, never a 5xx).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from memoryadmin.audit.models import AuditEvent
from memoryadmin.tenancy.roles import ROLES
from tests.conftest import signed_in
from tests.security.conftest import World, holdings

# Reachable without signing in, on purpose.
PUBLIC = {"console:login", "console:logout"}

# The least role each console view needs.
RIGHTS = {
    "console:api_key": "viewer",
    "console:api_key_new": "admin",
    "console:api_key_revoke": "admin",
    "console:audit": "viewer",
    "console:audit_chain": "viewer",
    "console:audit_export": "operator",
    "console:dashboard": "viewer",
    "console:erasure": "viewer",
    "console:erasure_receipt": "viewer",
    "console:erasure_retry": "admin",
    "console:erasures": "viewer",
    "console:extract_now": "operator",
    "console:extraction_runs": "viewer",
    "console:forgetting": "viewer",
    "console:forgetting_preview": "operator",
    "console:forgetting_run": "admin",
    "console:forgetting_save": "admin",
    "console:health": "viewer",
    "console:memories": "viewer",
    "console:memories_bulk": "operator",
    "console:memory": "viewer",
    "console:memory_approve": "operator",
    "console:memory_edit": "operator",
    "console:memory_forget": "operator",
    "console:memory_pin": "operator",
    "console:memory_reject": "operator",
    "console:memory_row": "viewer",
    "console:memory_unpin": "operator",
    "console:namespace": "viewer",
    "console:namespace_new": "admin",
    "console:namespace_settings": "admin",
    "console:namespaces": "viewer",
    "console:people": "admin",
    "console:person": "admin",
    "console:person_deactivate": "admin",
    "console:person_namespaces": "admin",
    "console:person_new": "admin",
    "console:person_reactivate": "admin",
    "console:person_role": "admin",
    "console:review": "viewer",
    "console:search_index_rebuild": "admin",
    "console:session_delete": "operator",
    "console:session_runs": "viewer",
    "console:sessions": "viewer",
    "console:snapshot_export": "operator",
    "console:snapshot_restore": "viewer",
    "console:snapshot_restore_apply": "admin",
    "console:snapshot_restore_discard": "admin",
    "console:snapshot_upload": "admin",
    "console:snapshots": "viewer",
    "console:subject": "viewer",
    "console:subject_erase": "admin",
    "console:subject_erasures": "viewer",
    "console:subject_everywhere": "viewer",
    "console:subject_export": "operator",
    "console:subject_privacy_link": "operator",
    "console:subject_privacy_link_revoke": "operator",
    "console:subjects": "viewer",
    "console:tombstone_lift": "admin",
    "console:tombstones": "viewer",
    "console:transcript": "viewer",
    "console:working_memory_clear": "operator",
    "console:webhooks": "viewer",
    "console:webhook": "viewer",
    "console:webhook_new": "admin",
    "console:webhook_status": "admin",
    "console:webhook_delete": "admin",
    "console:webhook_test": "admin",
    "console:webhook_redeliver": "admin",
}


@dataclass(frozen=True)
class View:
    name: str  # namespaced URL name
    params: tuple[str, ...]
    callback: Any

    @property
    def required_role(self) -> str | None:
        fn = self.callback
        while fn is not None:
            role = getattr(fn, "required_role", None)
            if role:
                return role
            fn = getattr(fn, "__wrapped__", None)
        return None


def routed_views(namespace: str) -> list[View]:
    def walk(patterns: list[Any], ns: str | None, outer: tuple[str, ...]) -> Iterator[View]:
        for pattern in patterns:
            # A view's parameters are those of its own route and of every prefix it is included under.
            params = (*outer, *getattr(pattern.pattern, "converters", {}))
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, pattern.namespace or ns, params)
            elif isinstance(pattern, URLPattern) and ns == namespace and pattern.name:
                yield View(f"{ns}:{pattern.name}", params, pattern.callback)

    return sorted(walk(get_resolver().url_patterns, None, ()), key=lambda v: v.name)


VIEWS = [v for v in routed_views("console") if v.name not in PUBLIC]


def url_of(view: View, world: World, restore_job) -> str:
    values = {
        "slug": world.a.slug,
        "key_id": world.a_key.pk,
        "memory_id": world.alice_memory.pk,
        "session_pk": world.session.pk,
        "namespace_id": world.a.pk,
        "user_id": "alice",
        "tombstone_id": world.tombstone.pk,
        "erasure_id": world.erasure.pk,
        "restore_id": restore_job.pk,
        "link_id": world.privacy_link.pk,
        "username": "vera",
        "webhook_id": world.webhook.pk,
        "delivery_id": world.delivery.pk,
    }
    unknown = [p for p in view.params if p not in values]
    assert not unknown, f"teach tests/security/test_console_matrix.py a value for {unknown} of {view.name}"
    return reverse(view.name, kwargs={p: values[p] for p in view.params})


def send(client: Client, method: str, url: str):
    response = client.post(url, {}) if method == "POST" else client.get(url)
    if response.streaming:
        response.streamed = b"".join(response.streaming_content)
    return response


def test_every_console_view_is_in_the_table_and_guarded_as_it_says() -> None:
    everything = routed_views("console")
    assert {v.name for v in everything} >= PUBLIC
    assert {v.name for v in VIEWS} == set(RIGHTS), "decide who may use each new view in RIGHTS"
    unguarded = [v.name for v in VIEWS if v.required_role not in ROLES]
    assert not unguarded, f"console views without @role_required: {unguarded}"


@pytest.mark.parametrize("view", VIEWS, ids=[v.name for v in VIEWS])
def test_each_role_gets_what_its_rights_allow(view: View, world: World, operators, restore_job) -> None:
    url = url_of(view, world, restore_job)
    anonymous = Client()
    # POST-only views refuse GET before anything else; that tells the method to use.
    method = "POST" if anonymous.get(url).status_code == 405 else "GET"
    required = ROLES.index(RIGHTS[view.name])
    before = (holdings(world.a), AuditEvent.objects.count())

    r = send(anonymous, method, url)
    assert r.status_code == 302 and r["Location"].startswith("/login/?next="), (None, r.status_code)
    refused = [role for role in (None, *ROLES) if role is None or ROLES.index(role) < required]
    for role in refused:
        r = send(signed_in(operators[role]), method, url)
        assert r.status_code == 403, (role, r.status_code)
    assert (holdings(world.a), AuditEvent.objects.count()) == before, "a refused request changed something"

    for role in ROLES[required:]:
        r = send(signed_in(operators[role]), method, url)
        assert r.status_code not in (401, 403), (role, r.status_code)
        assert not (r.status_code == 302 and r["Location"].startswith("/login/")), role
        assert r.status_code < 500, (role, r.status_code)


def test_an_htmx_request_without_a_session_gets_401_not_a_login_page(world: World, restore_job) -> None:
    for view in VIEWS:
        url = url_of(view, world, restore_job)
        r = Client().get(url, headers={"HX-Request": "true"})
        assert r.status_code in (401, 405), (view.name, r.status_code)


def test_a_console_object_that_does_not_exist_is_404_for_every_role(world: World, operators) -> None:
    missing = reverse("console:memory", kwargs={"memory_id": uuid.uuid4()})
    for role in ROLES:
        assert signed_in(operators[role]).get(missing).status_code == 404, role
