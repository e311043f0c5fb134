from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from memoryadmin.audit.models import AuditEvent
from memoryadmin.memories.services import memory_pin
from memoryadmin.tenancy.services import namespace_create
from tests.console.conftest import SYSTEM


def test_it_lists_events_newest_first(viewer_client, make_memory):
    memory = make_memory()
    memory_pin(memory=memory, actor=SYSTEM)
    response = viewer_client.get("/audit/")
    assert response.status_code == 200
    assert [e.action for e in response.context["events"]][:2] == ["memory.pin", "memory.create"]


def test_it_filters_by_actor_action_namespace_and_target(viewer_client, namespace, other_namespace, make_memory):
    memory = make_memory()
    make_memory("User likes tea", ns=other_namespace)

    def actions(query: str) -> list[str]:
        return [e.action for e in viewer_client.get(f"/audit/?{query}").context["events"]]

    assert actions("action=namespace.create") == ["namespace.create", "namespace.create"]
    assert actions("ns=bravo") == ["memory.create", "namespace.create"]
    assert actions(f"target=memory:{memory.pk}") == ["memory.create"]
    assert actions("actor=system:tests&ns=alpha") == ["memory.create", "namespace.create"]
    assert actions("actor=nobody") == []


def test_it_loads_more(viewer_client, db, htmx):
    for i in range(55):
        namespace_create(slug=f"n{i}", actor=SYSTEM)
    first = viewer_client.get("/audit/")
    assert len(first.context["events"]) == 50
    before = parse_qs(urlparse(first.context["more_url"]).query)["before"][0]
    more = viewer_client.get(f"/audit/?before={before}", headers=htmx)
    assert len(more.context["events"]) == AuditEvent.objects.count() - 50
    assert {e.pk for e in first.context["events"]}.isdisjoint(e.pk for e in more.context["events"])
    assert b"<thead>" not in more.content


def test_it_lists_without_n_plus_one(viewer_client, db, django_assert_max_num_queries):
    for i in range(30):
        namespace_create(slug=f"n{i}", actor=SYSTEM)
    with django_assert_max_num_queries(6):
        assert len(viewer_client.get("/audit/").context["events"]) == AuditEvent.objects.count()


def test_it_verifies_the_chain(viewer_client, make_memory, htmx):
    make_memory()
    response = viewer_client.get("/audit/chain/", headers=htmx)
    assert response.status_code == 200
    report = response.context["report"]
    assert report.ok
    assert report.checked == AuditEvent.objects.count()
    assert b"Intact: verified" in response.content


def test_it_verifies_one_namespaces_chain(viewer_client, namespace, other_namespace, make_memory):
    make_memory()
    report = viewer_client.get("/audit/chain/?ns=alpha").context["report"]
    assert report.checked == AuditEvent.objects.filter(namespace=namespace).count()


def test_it_answers_404_for_an_unknown_namespace(viewer_client, db):
    assert viewer_client.get("/audit/?ns=nope").status_code == 404
    assert viewer_client.get("/audit/chain/?ns=nope").status_code == 404
