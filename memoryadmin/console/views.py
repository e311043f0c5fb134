from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from memoryadmin.console import queries
from memoryadmin.console.access import role_required
from memoryadmin.console.scope import all_namespaces


@role_required("viewer")
def dashboard(request: HttpRequest) -> HttpResponse:
    namespaces = all_namespaces()
    ids = [ns.pk for ns in namespaces]
    figures = queries.namespace_figures(namespaces)
    return render(
        request,
        "console/dashboard.html",
        {
            "figures": figures,
            "activity": queries.activity(ids),
            "review_queue": queries.review_queue_size(ids),
            "pending_erasures": sum(f.pending_erasures for f in figures),
            "recent_runs": queries.recent_runs(ids, limit=8),
            "recent_failures": queries.recent_runs(ids, limit=5, failed_only=True),
            "now": timezone.now(),
        },
    )


@role_required("viewer")
def health(request: HttpRequest) -> HttpResponse:
    """Pings PostgreSQL, Redis and the workers; loaded after the dashboard so a slow ping never delays it."""
    template = "console/health.html#card" if request.htmx else "console/health.html"
    return render(request, template, {"health": queries.health()})
