"""Without DATABASE_REPLICA_URLS every read is on the primary and nothing of the replica machinery runs.

The routing itself is tested beside a real streaming replica in tests/replicas (make test-replica).
"""

from __future__ import annotations

from django.conf import settings

from memoryadmin.core.replicas import WRITTEN_KEY, lag_tolerant, lag_tolerant_view, read_alias


def test_without_replicas_lag_tolerant_reads_are_on_the_primary(db) -> None:
    assert settings.DATABASE_REPLICAS == []
    with lag_tolerant(actor="key:1"):
        assert read_alias() == "default"

    @lag_tolerant_view
    def view(request: object, number: int) -> str:
        return read_alias() + str(number)

    assert view(object(), 7) == "default7"


def test_without_replicas_a_write_request_records_nothing(api, redis_client) -> None:
    response = api.post("/api/v1/memories", {"user_id": "alice", "text": "Alice reads Proust"})
    assert response.status_code == 201
    assert list(redis_client.scan_iter(WRITTEN_KEY + "*")) == []
