"""The column that holds an embedding: pgvector's `vector` where the server has it, else `bytea`."""

from __future__ import annotations

from typing import Any

import numpy as np
from django.db import models

from memoryadmin.memories.capabilities import server_has_extension


class EmbeddingField(models.Field):
    """A float32 vector. Its column type is chosen when the table is created, from the server's extensions.

    With pgvector the column is `vector` (compared in the database, indexed by HNSW); without it,
    `bytea` holding little-endian float32 values, compared exactly in the process.
    """

    description = "An embedding (pgvector vector, or float32 bytes)"

    def db_type(self, connection: Any) -> str:
        return "vector" if server_has_extension(connection, "vector") else "bytea"

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> np.ndarray | None:
        if value is None:
            return None
        if isinstance(value, str):
            return np.array([float(x) for x in value.strip("[]").split(",")], dtype=np.float32)
        return np.frombuffer(bytes(value), dtype="<f4")

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        if value is None:
            return None
        vector = np.asarray(value, dtype="<f4")
        if server_has_extension(connection, "vector"):
            return "[" + ",".join(f"{x:.8g}" for x in vector.tolist()) + "]"
        return vector.tobytes()
