"""The page of one API key: its scopes, its last use and its calls of the last 24 hours."""

from __future__ import annotations

from memoryadmin.tenancy.access_log import access_record


def test_it_shows_the_calls_of_the_last_day_by_endpoint_and_status(viewer_client, namespace, make_key) -> None:
    key, _ = make_key(namespace)
    for _ in range(5):
        access_record(key_hash=key.key_hash, endpoint="POST /api/v1/memories/search", status=200)
    access_record(key_hash=key.key_hash, endpoint="MCP add_memory", status=403)
    response = viewer_client.get(f"/namespaces/alpha/keys/{key.pk}/")
    assert response.status_code == 200
    page = response.content.decode()
    assert response.context["access"].rows == [("POST /api/v1/memories/search", 200, 5), ("MCP add_memory", 403, 1)]
    assert "6 calls" in page and "<strong>1</strong> answered with an error" in page
    assert "<code>MCP add_memory</code> → 403" in page


def test_it_says_when_a_key_was_not_used(viewer_client, namespace, make_key) -> None:
    key, _ = make_key(namespace)
    page = viewer_client.get(f"/namespaces/alpha/keys/{key.pk}/").content.decode()
    assert "No calls in the last 24 hours." in page
    assert "never" in page


def test_the_namespace_page_links_to_each_key(viewer_client, namespace, make_key) -> None:
    key, _ = make_key(namespace)
    assert f'href="/namespaces/alpha/keys/{key.pk}/"' in viewer_client.get("/namespaces/alpha/").content.decode()


def test_it_checks_the_namespace_of_the_key(viewer_client, namespace, other_namespace, make_key) -> None:
    key, _ = make_key(other_namespace)
    assert viewer_client.get(f"/namespaces/alpha/keys/{key.pk}/").status_code == 404


def test_it_requires_a_role(norole_client, namespace, make_key) -> None:
    key, _ = make_key(namespace)
    assert norole_client.get(f"/namespaces/alpha/keys/{key.pk}/").status_code == 403
