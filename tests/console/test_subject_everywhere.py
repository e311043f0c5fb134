"""One person across namespaces: where they have data, with counts, to open or erase there."""

from __future__ import annotations

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from memoryadmin.conversations.services import NewMessage
from memoryadmin.governance.erasure import erasure_execute, erasure_request
from memoryadmin.memories.services import memory_forget
from memoryadmin.tenancy.services import operator_namespaces_set
from tests.conftest import SYSTEM

URL = reverse("console:subject_everywhere")


def test_it_lists_each_namespace_holding_the_person_with_counts(
    admin_client, namespace, other_namespace, make_namespace, make_session, make_memory
):
    make_namespace("charlie")  # holds nothing about u1: not listed
    make_session("s1", user_id="u1")
    make_session("s2", user_id="u1", messages=[NewMessage(role="user", content="Hi")])
    make_session("s3", user_id="u2")
    make_memory("User likes jazz", user_id="u1")
    memory_forget(memory=make_memory("User smokes", user_id="u1", ns=other_namespace), actor=SYSTEM)

    r = admin_client.get(URL, {"user": "u1"})
    assert r.status_code == 200
    found = [(w.namespace.slug, w.sessions, w.messages, w.memories, w.tombstones) for w in r.context["found"]]
    assert found == [("alpha", 2, 4, 1, 0), ("bravo", 0, 0, 0, 1)]
    subject = reverse("console:subject", args=[namespace.pk, "u1"])
    assert f'href="{subject}"'.encode() in r.content
    assert f'href="{subject}?erase=1#erase"'.encode() in r.content
    assert b'<details class="danger-zone" open>' in admin_client.get(subject, {"erase": "1"}).content


def test_a_namespace_that_erased_the_person_is_listed_with_its_erasures(admin_client, namespace, other_namespace):
    erasure = erasure_request(namespace=other_namespace, user_id="u1", actor=SYSTEM, enqueue=False)
    erasure_execute(erasure_id=erasure.pk)
    erasure_request(namespace=namespace, user_id="u2", actor=SYSTEM, enqueue=False)
    r = admin_client.get(URL, {"user": "u1"})
    assert [(w.namespace.slug, w.erasures, w.memories) for w in r.context["found"]] == [("bravo", 1, 0)]
    assert b"?ns=bravo&amp;user=u1" in r.content


def queries_of(client: Client, user_id: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(URL, {"user": user_id}).status_code == 200
    return len(captured.captured_queries)


def test_its_cost_does_not_grow_with_the_namespaces(admin_client, make_namespace, make_memory):
    for i in range(2):
        make_memory("User likes jazz", user_id="u1", ns=make_namespace(f"ns{i}"))
    admin_client.get(URL, {"user": "u1"})
    few = queries_of(admin_client, "u1")
    for i in range(2, 12):
        make_memory("User likes jazz", user_id="u1", ns=make_namespace(f"ns{i}"))
    assert queries_of(admin_client, "u1") == few <= 8


def test_a_limited_operator_sees_only_their_namespaces(olivia, namespace, other_namespace, make_session, make_memory):
    make_memory("User likes jazz", user_id="u1")
    make_memory("User likes tea", user_id="u1", ns=other_namespace)
    operator_namespaces_set(user=olivia, namespaces=[other_namespace], actor=SYSTEM)
    client = Client()
    client.force_login(olivia)
    r = client.get(URL, {"user": "u1"})
    assert [w.namespace.slug for w in r.context["found"]] == ["bravo"]
    assert b"alpha" not in r.content
    assert b"#erase" not in r.content, "only admins erase"


def test_it_says_when_nobody_is_found_and_refuses_a_bad_id(viewer_client, namespace):
    r = viewer_client.get(URL, {"user": "nobody"})
    assert r.status_code == 200 and b"holds anything about" in r.content
    assert viewer_client.get(URL, {"user": "not an id!"}).status_code == 400
    assert viewer_client.get(URL).status_code == 200
