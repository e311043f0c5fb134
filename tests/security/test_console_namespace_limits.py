"""Every console view × an operator limited to some namespaces, generated like the role matrix.

lena is an operator limited to namespace B (bravo), which holds nothing; lars is one limited
to A (alpha), which holds everything of the world. For each view an operator may use, whatever
names A (an object of A in the path, or `ns=alpha`) is a 404 for lena and changes nothing, and
lars gets what an unlimited operator gets. Views only admins may use are left out: an admin is
never limited (tests/tenancy/test_operators.py).
"""

from __future__ import annotations

import pytest
from django.test import Client

from memoryadmin.audit.models import AuditEvent
from memoryadmin.console.access import Rights, role_required
from memoryadmin.tenancy.roles import ROLES
from memoryadmin.tenancy.services import operator_namespaces_set
from tests.conftest import SYSTEM, operator_user, signed_in
from tests.security.conftest import World, holdings
from tests.security.test_console_matrix import RIGHTS, VIEWS, View, url_of

OPEN_TO = {role: [v for v in VIEWS if ROLES.index(RIGHTS[v.name]) <= ROLES.index(role)] for role in ROLES}


def limited(username: str, role: str, *namespaces) -> Client:
    user = operator_user(username, role)
    operator_namespaces_set(user=user, namespaces=namespaces, actor=SYSTEM)
    return signed_in(user)


def method_of(url: str) -> str:
    return "POST" if Client().get(url).status_code == 405 else "GET"


def ask(client: Client, method: str, url: str, ns: str):
    """The view's URL, naming namespace `ns` too (a list's `?ns=`, a form's `ns`)."""
    response = client.post(url, {"ns": ns}) if method == "POST" else client.get(url, {"ns": ns})
    if response.streaming:
        response.streamed = b"".join(response.streaming_content)
    return response


@pytest.mark.parametrize("view", OPEN_TO["operator"], ids=[v.name for v in OPEN_TO["operator"]])
def test_a_limited_operator_reaches_only_their_namespaces(view: View, world: World, operators, restore_job) -> None:
    url = url_of(view, world, restore_job)
    method = method_of(url)
    lena = limited("lena", "operator", world.b)
    lars = limited("lars", "operator", world.a)
    before = (holdings(world.a), AuditEvent.objects.count())

    r = ask(lena, method, url, world.a.slug)
    assert r.status_code == 404, r.status_code
    # A page that also acts on POST (a confirmation page and its form) is walled for both.
    r = ask(lena, "POST", url, world.a.slug)
    assert r.status_code in (404, 405), r.status_code
    assert (holdings(world.a), AuditEvent.objects.count()) == before, "a request outside the limits changed something"

    r = ask(lars, method, url, world.a.slug)
    assert r.status_code not in (401, 403) and r.status_code < 500, r.status_code
    if method == "GET":
        # A page may be a 404 of its own (a receipt not written yet): the same as for anyone.
        unlimited = ask(signed_in(operators["operator"]), method, url, world.a.slug)
        assert r.status_code == unlimited.status_code, (r.status_code, unlimited.status_code)
    else:
        assert r.status_code != 404


GET_PAGES = [v for v in OPEN_TO["viewer"] if not v.params]


@pytest.mark.parametrize("view", GET_PAGES, ids=[v.name for v in GET_PAGES])
def test_a_limited_viewer_never_sees_another_namespace(view: View, world: World, restore_job) -> None:
    url = url_of(view, world, restore_job)
    vicky = limited("vicky", "viewer", world.b)
    r = vicky.get(url)
    if method_of(url) == "POST":
        # An action: there is no page to show anything on.
        assert r.status_code == 405, r.status_code
        return
    if r.streaming:
        r.streamed = b"".join(r.streaming_content)
    assert r.status_code < 400, r.status_code
    body = (r.streamed if r.streaming else r.content).decode()
    assert world.a.slug not in body
    assert world.alice_memory.text not in body


def test_an_unknown_path_parameter_is_refused_to_a_limited_operator(world: World, rf) -> None:
    @role_required("viewer")
    def view(request, **kwargs):
        raise AssertionError("the view ran")

    request = rf.get("/")
    request.user = operator_user("lena", "viewer")
    request.can = Rights("viewer", frozenset({world.b.pk}))
    assert view(request, widget_id=1).status_code == 404


OPERATOR_PAGES = [v for v in OPEN_TO["operator"] if not v.params and v not in GET_PAGES]


@pytest.mark.parametrize("view", OPERATOR_PAGES, ids=[v.name for v in OPERATOR_PAGES])
def test_a_limited_operators_own_pages_never_show_another_namespace(view: View, world: World, restore_job) -> None:
    """The pages and downloads only operators may open (the audit log's CSV, say) keep to their namespaces too."""
    url = url_of(view, world, restore_job)
    lena = limited("lena", "operator", world.b)
    r = lena.get(url)
    if method_of(url) == "POST":
        assert r.status_code == 405, r.status_code
        return
    body = (b"".join(r.streaming_content) if r.streaming else r.content).decode()
    assert r.status_code < 500, r.status_code
    assert world.a.slug not in body
    assert world.alice_memory.text not in body


def test_a_limited_operators_audit_export_holds_their_namespaces_events_only(world: World) -> None:
    lena = limited("lena", "operator", world.b)
    operator_namespaces_set(user=operator_user("lars", "operator"), namespaces=[world.b], actor=SYSTEM)
    r = lena.get("/audit/export.csv")
    assert r.status_code == 200
    rows = b"".join(r.streaming_content).decode().splitlines()
    assert any(world.b.slug in row for row in rows[1:]), "the event of B's new limit is exported"
    assert not any(world.a.slug in row for row in rows), rows[:5]
    assert AuditEvent.objects.filter(namespace=world.a).exists()
