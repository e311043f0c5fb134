from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from memoryadmin.audit.models import AuditEvent
from memoryadmin.audit.services import reason_digest
from memoryadmin.memories.services import memory_pin
from memoryadmin.tenancy.services import namespace_create
from tests.conftest import SYSTEM


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
    # Events of 30 namespaces: each one's namespace comes with it, and the actions list is one statement.
    with django_assert_max_num_queries(7):
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


def test_it_offers_the_recorded_actions_in_a_list(viewer_client, make_memory):
    memory_pin(memory=make_memory(), actor=SYSTEM)
    html = viewer_client.get("/audit/").content.decode()
    assert '<select name="action"' in html
    for action in ("memory.create", "memory.pin", "namespace.create"):
        assert f'<option value="{action}">{action}</option>' in html
    assert "memory.forget" not in html


def test_it_refuses_an_action_it_never_recorded(viewer_client, namespace):
    response = viewer_client.get("/audit/?action=memory.explode")
    assert response.status_code == 400
    assert b"Select a valid choice" in response.content


def test_it_names_each_events_namespace(viewer_client, namespace, other_namespace, make_memory):
    make_memory("User likes tea", ns=other_namespace)
    html = viewer_client.get("/audit/?action=memory.create").content.decode()
    assert '<a href="/audit/?ns=bravo">bravo</a>' in html


def csv_rows(response) -> list[list[str]]:
    import csv

    body = b"".join(response.streaming_content).decode()
    return list(csv.reader(body.splitlines()))


def test_it_exports_what_the_filters_select_as_csv(operator_client, namespace, other_namespace, make_memory):
    memory = make_memory("User likes jazz")
    memory_pin(memory=memory, actor=SYSTEM)
    make_memory("User likes tea", ns=other_namespace)
    response = operator_client.get("/audit/export.csv?ns=alpha&action=memory.create")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="audit-alpha-')
    header, *rows = csv_rows(response)
    assert header[:6] == ["id", "created_at", "namespace", "actor_type", "actor", "action"]
    assert [(r[2], r[5], r[7]) for r in rows] == [("alpha", "memory.create", str(memory.pk))]


def test_the_export_is_recorded_in_the_audit_log(operator_client, namespace):
    response = operator_client.get("/audit/export.csv?ns=alpha&actor=system:tests")
    b"".join(response.streaming_content)
    event = AuditEvent.objects.order_by("-id").first()
    assert (event.action, event.actor, event.namespace_id) == ("audit.export", "olivia", namespace.pk)
    # What was typed is kept as its keyed digest: it may be a person's id, which an erasure could not blank.
    assert event.data == {"namespace_id": namespace.pk, "actor": "hmac:" + reason_digest("system:tests")}


def test_the_export_pages_through_every_event_by_keyset(operator_client, db, monkeypatch):
    from memoryadmin.audit import export

    monkeypatch.setattr(export, "BATCH", 7)
    for i in range(30):
        namespace_create(slug=f"n{i}", actor=SYSTEM)
    response = operator_client.get("/audit/export.csv")
    chunks = list(response.streaming_content)
    ids = [int(line.split(",", 1)[0]) for line in b"".join(chunks).decode().splitlines()[1:]]
    assert ids == sorted(AuditEvent.objects.values_list("id", flat=True), reverse=True)
    assert len(chunks) == 5  # 31 events (30 creations and the export) in batches of 7


def test_the_export_keeps_spreadsheets_from_running_a_cell(operator_client, namespace, make_memory):
    memory = make_memory()
    memory_pin(memory=memory, actor=SYSTEM, reason='=HYPERLINK("http://evil")')
    rows = csv_rows(operator_client.get("/audit/export.csv?action=memory.pin"))
    assert rows[1][8] == '\'=HYPERLINK("http://evil")'


def test_the_export_needs_the_operator_role(viewer_client, namespace):
    assert viewer_client.get("/audit/export.csv").status_code == 403
    assert not AuditEvent.objects.filter(action="audit.export").exists()


def test_the_export_link_carries_the_filters(operator_client, viewer_client, namespace):
    html = operator_client.get("/audit/?ns=alpha&action=namespace.create").content.decode()
    assert 'href="/audit/export.csv?ns=alpha&amp;action=namespace.create"' in html
    assert "export.csv" not in viewer_client.get("/audit/").content.decode()
