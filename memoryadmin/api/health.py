from __future__ import annotations

from django.db import transaction
from django.http import HttpRequest, JsonResponse
from ninja import Router

from memoryadmin.api.schemas.health import HealthOut
from memoryadmin.core.health import check_database, check_redis
from memoryadmin.core.replicas import replica_statuses

router = Router(tags=["health"])


def _database_ok() -> bool:
    # Inside a transaction, so the check's SET LOCAL statement_timeout applies.
    try:
        with transaction.atomic():
            return check_database()
    except Exception:
        return False


@router.get(
    "/health",
    auth=None,
    response={200: HealthOut, 503: HealthOut},
    description=(
        "`replicas` (only when read replicas are configured): each one's state (`ok`, `lagging`, `down`, "
        "`not_replica`), how far behind the primary it is, and whether lag-tolerant reads use it. A skipped "
        "replica does not degrade the status: its reads go to the primary."
    ),
)
def health(request: HttpRequest) -> JsonResponse:
    database = _database_ok()
    redis_ok = check_redis()
    body: dict = {
        "status": "ok" if database and redis_ok else "degraded",
        "database": "ok" if database else "down",
        "redis": "ok" if redis_ok else "down",
    }
    replicas = replica_statuses() if database else []
    if replicas:
        body["replicas"] = replicas
    return JsonResponse(body, status=200 if database and redis_ok else 503)
