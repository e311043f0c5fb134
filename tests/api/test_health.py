from __future__ import annotations


def test_it_works_without_a_key(db, anon_api) -> None:
    response = anon_api.get("/api/v1/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "redis": "ok"}


def test_it_marks_redis_down(db, anon_api, settings) -> None:
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    response = anon_api.get("/api/v1/health")
    assert response.status_code == 503
    assert response.json()["redis"] == "down"
    assert response.json()["database"] == "ok"
