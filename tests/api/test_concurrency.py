"""Concurrent appends through a real server: seqs are never shared nor skipped, batches never interleave."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx

from memoryadmin.conversations.models import Message

THREADS = 6
APPENDS_PER_THREAD = 8
BATCH = 3


def test_concurrent_appends_never_share_or_skip_a_seq(live_server, namespace, make_key) -> None:
    _, raw = make_key(namespace)
    headers = {"Authorization": f"Bearer {raw}"}
    url = f"{live_server.url}/api/v1/sessions/busy/messages"

    def worker(thread: int) -> list[list[int]]:
        seqs = []
        with httpx.Client(headers=headers, timeout=30) as client:
            for n in range(APPENDS_PER_THREAD):
                body = {
                    "user_id": "alice",
                    "messages": [{"role": "user", "content": f"t{thread} a{n} m{i}"} for i in range(BATCH)],
                }
                response = client.post(url, json=body)
                assert response.status_code == 201, response.text
                seqs.append([m["seq"] for m in response.json()["messages"]])
        return seqs

    with ThreadPoolExecutor(THREADS) as pool:
        batches = [batch for result in pool.map(worker, range(THREADS)) for batch in result]

    total = THREADS * APPENDS_PER_THREAD * BATCH
    all_seqs = sorted(seq for batch in batches for seq in batch)
    assert all_seqs == list(range(1, total + 1))
    for batch in batches:
        assert batch == list(range(batch[0], batch[0] + BATCH))
    stored = list(Message.objects.order_by("seq").values_list("seq", "content"))
    assert [seq for seq, _ in stored] == list(range(1, total + 1))
    # Within each batch the stored order is the order sent.
    for batch in batches:
        contents = [content for seq, content in stored if seq in batch]
        assert [c.rsplit(" ", 1)[1] for c in contents] == [f"m{i}" for i in range(BATCH)]
        assert len({c.rsplit(" ", 1)[0] for c in contents}) == 1
