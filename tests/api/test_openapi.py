"""The published contract: the OpenAPI schema is committed and may only change on purpose."""

from __future__ import annotations

import json
import os
from pathlib import Path

from django.test import Client

SNAPSHOT = Path(__file__).with_name("openapi.json")
UPDATE_HINT = (
    "The OpenAPI schema changed. If the change is intended, refresh the snapshot with\n"
    "    UPDATE_OPENAPI_SNAPSHOT=1 .venv/bin/pytest tests/api/test_openapi.py\n"
    "and commit tests/api/openapi.json with the change."
)

# These create what they name, so they never answer 404.
UPSERTS = {("put", "/api/v1/sessions/{session_id}"), ("post", "/api/v1/sessions/{session_id}/messages")}


def served_schema() -> dict:
    response = Client().get("/api/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


def render(schema: dict) -> str:
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_the_schema_matches_the_committed_snapshot(db) -> None:
    current = render(served_schema())
    if os.environ.get("UPDATE_OPENAPI_SNAPSHOT") == "1":
        SNAPSHOT.write_text(current)
    assert SNAPSHOT.exists(), UPDATE_HINT
    assert current == SNAPSHOT.read_text(), UPDATE_HINT


def test_every_operation_documents_its_errors(db) -> None:
    schema = served_schema()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            documented = set(operation["responses"])
            if path.endswith("/health"):
                assert documented == {"200", "503"}
                continue
            assert {"400", "401", "403", "413", "422", "503"} <= documented, (method, path)
            looks_up_an_id = "{memory_id}" in path or ("{session_id}" in path and (method, path) not in UPSERTS)
            if looks_up_an_id:
                assert "404" in documented, (method, path)


def test_the_docs_page_is_served(db) -> None:
    response = Client().get("/api/v1/docs")
    assert response.status_code == 200
