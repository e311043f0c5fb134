from __future__ import annotations

from memoryadmin.conversations.models import Message
from memoryadmin.conversations.signals import messages_appended


def append(api, session_id: str = "s1", messages=None, **body):
    body.setdefault("user_id", "alice")
    body["messages"] = messages or [{"role": "user", "content": "hello"}]
    return api.post(f"/api/v1/sessions/{session_id}/messages", body)


def test_it_appends_messages_in_order(api) -> None:
    r = append(
        api,
        messages=[
            {"role": "user", "content": "I like green tea", "created_at": "2026-01-02T03:04:05+01:00"},
            {"role": "assistant", "content": "Noted", "run_id": "run-1", "name": "bot"},
            {
                "role": "tool",
                "content": "{}",
                "tool_call_id": "call_1",
                "tool_calls": [{"id": "call_1", "type": "function"}],
                "metadata": {"k": "v"},
            },
        ],
    )
    assert r.status_code == 201
    messages = r.json()["messages"]
    assert [m["seq"] for m in messages] == [1, 2, 3]
    assert messages[0]["created_at"] == "2026-01-02T02:04:05Z"
    assert messages[0]["kind"] == "message"
    assert messages[1]["run_id"] == "run-1"
    assert messages[1]["name"] == "bot"
    assert messages[2]["tool_calls"] == [{"id": "call_1", "type": "function"}]
    assert messages[2]["metadata"] == {"k": "v"}
    assert set(messages[0]) == {
        "id",
        "seq",
        "role",
        "kind",
        "content",
        "name",
        "run_id",
        "tool_calls",
        "tool_call_id",
        "metadata",
        "created_at",
        "persisted_at",
    }
    r = append(api, messages=[{"role": "user", "content": "again"}])
    assert r.json()["messages"][0]["seq"] == 4


def test_appending_to_an_existing_session_needs_no_user_id(api) -> None:
    append(api)
    r = api.post("/api/v1/sessions/s1/messages", {"messages": [{"role": "user", "content": "x"}]})
    assert r.status_code == 201


def test_creating_a_session_by_append_needs_a_user_id(api) -> None:
    r = api.post("/api/v1/sessions/new/messages", {"messages": [{"role": "user", "content": "x"}]})
    assert r.status_code == 400
    assert r.json()["error"]["code"] == "user_id_required"


def test_it_sends_the_appended_signal_on_commit(api, django_capture_on_commit_callbacks) -> None:
    received = []

    def listener(**kwargs):
        received.append(kwargs["seqs"])

    messages_appended.connect(listener)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            append(api, messages=[{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])
    finally:
        messages_appended.disconnect(listener)
    assert received == [[1, 2]]


def test_it_validates_messages(api) -> None:
    bad_batches = [
        [{"role": "robot", "content": "x"}],
        [{"role": "user", "content": "x", "kind": "whisper"}],
        [{"role": "user", "content": "x", "created_at": "2026-01-02T03:04:05"}],
        # A number is no RFC 3339 time (it was read as seconds since 1970), and a time to come is no message seen.
        [{"role": "user", "content": "x", "created_at": 0}],
        [{"role": "user", "content": "x", "created_at": 1767225600}],
        [{"role": "user", "content": "x", "created_at": "9999-12-30T00:00:00Z"}],
        [{"role": "user", "content": "nul \u0000 byte"}],
        [{"role": "user", "content": "x", "metadata": {"k": "nul \u0000"}}],
        [{"role": "user", "content": "x" * (64 * 1024 + 1)}],
        [{"role": "user", "content": "x"}] * 101,
        [],
    ]
    for batch in bad_batches:
        r = (
            append(api, messages=batch)
            if batch
            else api.post("/api/v1/sessions/s1/messages", {"user_id": "alice", "messages": []})
        )
        assert r.status_code == 422, (batch[:1], r.content)
        assert r.json()["error"]["code"] == "validation_error"
    r = append(api, messages=[{"role": "user", "content": "x", "run_id": "bad run"}])
    assert r.status_code == 400
    assert r.json()["error"]["code"] == "invalid_id"
    assert not Message.objects.exists()


def test_a_session_keeps_its_user_on_append(api) -> None:
    append(api)
    r = append(api, user_id="mallory")
    assert r.status_code == 409


def test_it_lists_messages_in_seq_order_without_injected_ones(api, django_assert_max_num_queries) -> None:
    append(
        api,
        messages=[
            {"role": "system", "content": "be nice", "kind": "instruction"},
            {"role": "user", "content": "one"},
            {"role": "assistant", "content": "two"},
            {"role": "system", "content": "context", "kind": "supporting_context"},
            {"role": "user", "content": "three"},
        ],
    )
    with django_assert_max_num_queries(3):
        r = api.get("/api/v1/sessions/s1/messages")
    assert r.status_code == 200
    assert [m["content"] for m in r.json()["items"]] == ["one", "two", "three"]
    r = api.get("/api/v1/sessions/s1/messages?include_injected=true")
    assert [m["seq"] for m in r.json()["items"]] == [1, 2, 3, 4, 5]
    r = api.get("/api/v1/sessions/s1/messages?include_injected=true&after_seq=3")
    assert [m["seq"] for m in r.json()["items"]] == [4, 5]


def test_it_pages_messages(api, django_assert_max_num_queries) -> None:
    append(api, messages=[{"role": "user", "content": str(i)} for i in range(60)])
    seqs = []
    cursor = None
    while True:
        url = "/api/v1/sessions/s1/messages?limit=25" + (f"&cursor={cursor}" if cursor else "")
        with django_assert_max_num_queries(3):
            body = api.get(url).json()
        seqs.extend(m["seq"] for m in body["items"])
        cursor = body["next_cursor"]
        if not cursor:
            break
    assert seqs == list(range(1, 61))


def test_listing_messages_of_a_missing_session_is_404(api) -> None:
    assert api.get("/api/v1/sessions/nope/messages").status_code == 404


def test_it_deletes_the_messages_of_one_run(api) -> None:
    append(
        api,
        messages=[
            {"role": "user", "content": "q", "run_id": "r1"},
            {"role": "assistant", "content": "a", "run_id": "r1"},
            {"role": "user", "content": "q2", "run_id": "r2"},
        ],
    )
    r = api.delete("/api/v1/sessions/s1/messages?run_id=r1")
    assert r.status_code == 200
    assert r.json() == {"deleted": 2}
    assert list(Message.objects.values_list("content", flat=True)) == ["q2"]
    assert api.delete("/api/v1/sessions/s1/messages?run_id=r9").json() == {"deleted": 0}
    assert api.delete("/api/v1/sessions/s1/messages").status_code == 422
    assert api.delete("/api/v1/sessions/s1/messages?run_id=bad%20run").status_code == 400
    assert api.delete("/api/v1/sessions/nope/messages?run_id=r1").status_code == 404
