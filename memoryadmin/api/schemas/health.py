"""The health check (the `health` router)."""

from __future__ import annotations

from ninja import Schema


class ReplicaOut(Schema):
    name: str
    state: str
    lag_seconds: float | None
    used: bool


class HealthOut(Schema):
    status: str
    database: str
    redis: str
    replicas: list[ReplicaOut] | None = None
