from __future__ import annotations

from django.db import transaction
from django.http import HttpRequest, JsonResponse
from ninja import Router, Schema

from memoryadmin.core.health import check_database, check_redis

router = Router(tags=["health"])


class HealthOut(Schema):
    status: str
    database: str
    redis: str


def _database_ok() -> bool:
    # Inside a transaction, so the check's SET LOCAL statement_timeout applies.
    try:
        with transaction.atomic():
            return check_database()
    except Exception:
        return False


@router.get("/health", auth=None, response={200: HealthOut, 503: HealthOut})
def health(request: HttpRequest) -> JsonResponse:
    database = _database_ok()
    redis_ok = check_redis()
    body = {
        "status": "ok" if database and redis_ok else "degraded",
        "database": "ok" if database else "down",
        "redis": "ok" if redis_ok else "down",
    }
    return JsonResponse(body, status=200 if database and redis_ok else 503)
