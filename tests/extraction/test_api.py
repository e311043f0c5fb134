"""POST /sessions/{id}/extract and GET /sessions/{id}/extraction."""

from __future__ import annotations

import pytest

from memoryadmin.extraction.models import ExtractionRun, RunStatus
from memoryadmin.extraction.services import extraction_run, schedule_key
from tests.conftest import ApiClient
from tests.extraction.conftest import say


def test_it_schedules_a_run_now(api, namespace, redis_client, django_capture_on_commit_callbacks) -> None:
    session, _ = say(namespace, "I live in Lyon.")
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/api/v1/sessions/s1/extract")
    assert response.status_code == 202, response.content
    run = ExtractionRun.objects.get(pk=response.json()["run_id"])
    assert (run.session_id, run.status, run.strategy) == (session.pk, RunStatus.QUEUED, "rules")
    assert redis_client.get(schedule_key(namespace.pk, session.pk)) is not None
    assert redis_client.llen("celery") == 1
    # A second request before the run starts shares it.
    assert api.post("/api/v1/sessions/s1/extract").json()["run_id"] == str(run.pk)


def test_it_lists_runs_newest_first_with_their_counts(api, namespace) -> None:
    say(namespace, "I live in Lyon and I love jazz.")
    first = extraction_run(run=ExtractionRun.objects.get(pk=api.post("/api/v1/sessions/s1/extract").json()["run_id"]))
    second_id = api.post("/api/v1/sessions/s1/extract").json()["run_id"]
    response = api.get("/api/v1/sessions/s1/extraction")
    assert response.status_code == 200
    items = response.json()["items"]
    assert [item["id"] for item in items] == [second_id, str(first.pk)]
    done = items[1]
    assert done["status"] == "succeeded" and done["strategy"] == "rules"
    assert (done["from_seq"], done["to_seq"], done["error"]) == (1, 1, None)
    assert done["counts"] == {
        "candidates": 2,
        "created": 2,
        "updated": 0,
        "duplicates": 0,
        "suppressed": 0,
        "superseded": 0,
    }
    assert done["created_at"].endswith("Z") and done["finished_at"].endswith("Z")
    assert items[0]["status"] == "queued" and items[0]["finished_at"] is None
    assert response.json()["next_cursor"] is None


def test_the_list_is_keyset_paginated(api, namespace, django_assert_max_num_queries) -> None:
    session, _ = say(namespace, "I live in Lyon.")
    for _ in range(5):
        ExtractionRun.objects.create(namespace=namespace, session=session, strategy="rules", status="succeeded")
    seen: list[str] = []
    cursor = ""
    while True:
        with django_assert_max_num_queries(4):
            page = api.get(f"/api/v1/sessions/s1/extraction?limit=2{cursor}").json()
        seen += [item["id"] for item in page["items"]]
        if not page["next_cursor"]:
            break
        cursor = f"&cursor={page['next_cursor']}"
    assert len(seen) == len(set(seen)) == 5
    assert api.get("/api/v1/sessions/s1/extraction?cursor=bogus").status_code == 400
    assert api.get("/api/v1/sessions/s1/extraction?limit=0").status_code == 422


def test_it_checks_the_namespace(api, other_api, namespace) -> None:
    say(namespace, "I live in Lyon.")
    for response in (other_api.post("/api/v1/sessions/s1/extract"), other_api.get("/api/v1/sessions/s1/extraction")):
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"
    assert api.post("/api/v1/sessions/nope/extract").status_code == 404
    assert not ExtractionRun.objects.exists()


def test_it_requires_write_scope_to_extract_and_read_scope_to_list(namespace, make_key) -> None:
    say(namespace, "I live in Lyon.")
    reader = ApiClient(make_key(namespace, "read")[1])
    writer = ApiClient(make_key(namespace, "write")[1])
    assert reader.post("/api/v1/sessions/s1/extract").status_code == 403
    assert writer.get("/api/v1/sessions/s1/extraction").status_code == 403
    assert reader.get("/api/v1/sessions/s1/extraction").status_code == 200
    assert writer.post("/api/v1/sessions/s1/extract").status_code == 202


def test_it_requires_a_key(anon_api, namespace) -> None:
    say(namespace, "I live in Lyon.")
    assert anon_api.post("/api/v1/sessions/s1/extract").status_code == 401
    assert anon_api.get("/api/v1/sessions/s1/extraction").status_code == 401


def test_a_malformed_session_id_is_a_400(api) -> None:
    response = api.post("/api/v1/sessions/bad%20id!/extract")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_id"


@pytest.mark.django_db(transaction=True)
def test_redis_down_is_a_503_not_a_silent_success(api, namespace, settings) -> None:
    # Transactional: as in production, the request is not wrapped in a transaction, so the schedule is
    # written at once and its failure reaches the client.
    say(namespace, "I live in Lyon.")
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    response = api.post("/api/v1/sessions/s1/extract")
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "redis_unavailable"


def test_the_readmes_example_gives_the_memories_it_promises(offline_namespace, make_key) -> None:
    """README: after "I live in Lyon and I love jazz.", extraction keeps where Alice lives and what she loves."""
    api = ApiClient(make_key(offline_namespace)[1])
    response = api.post(
        "/api/v1/sessions/chat-1/messages",
        {"user_id": "alice", "messages": [{"role": "user", "content": "I live in Lyon and I love jazz."}]},
    )
    assert response.status_code == 201, response.content
    run_id = api.post("/api/v1/sessions/chat-1/extract").json()["run_id"]
    assert extraction_run(run=ExtractionRun.objects.get(pk=run_id)).status == RunStatus.SUCCEEDED
    items = api.get("/api/v1/memories?user_id=alice").json()["items"]
    found = {item["text"]: item for item in items}
    assert set(found) == {"User lives in Lyon", "User loves jazz"}
    lyon, jazz = found["User lives in Lyon"], found["User loves jazz"]
    assert (lyon["memory_type"], lyon["entities"], lyon["attribute"]) == ("semantic", ["Lyon"], "residence")
    assert (jazz["memory_type"], jazz["topics"]) == ("preference", ["preferences"])
    message_id = api.get("/api/v1/sessions/chat-1/messages").json()["items"][0]["id"]
    for item in items:
        evidence = api.get(f"/api/v1/memories/{item['id']}/evidence").json()["items"]
        assert [e["message_id"] for e in evidence] == [message_id]
