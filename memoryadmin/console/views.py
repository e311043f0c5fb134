from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from memoryadmin.health import check_database, check_redis
from memoryadmin.tenancy.models import Namespace


@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "console/dashboard.html",
        {
            "namespaces": Namespace.objects.all(),
            "health": {"database": check_database(), "redis": check_redis()},
        },
    )
