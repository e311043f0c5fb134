from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST
from redis.exceptions import RedisError

from memoryadmin.console import queries
from memoryadmin.console.access import actor_of, role_required
from memoryadmin.console.scope import visible_namespaces
from memoryadmin.memories.embeddings import get_embedder
from memoryadmin.memories.services.embedding import embedding_job, embedding_job_queue
from memoryadmin.memories.vectors import pgvector


@role_required("viewer")
def dashboard(request: HttpRequest) -> HttpResponse:
    namespaces = visible_namespaces(request)
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
            **_search_index(),
        },
    )


def _search_index() -> dict:
    """The embedder search uses and the last re-embedding job (its progress while it runs)."""
    try:
        job = embedding_job()
    except RedisError:
        job = None
    return {"embedder": get_embedder().model, "embedding_job": job, "pgvector": pgvector()}


@require_POST
@role_required("admin")
def search_index_rebuild(request: HttpRequest) -> HttpResponse:
    """Queue the re-embedding of every memory lacking a vector by the configured model."""
    embedding_job_queue(actor=actor_of(request), prune=request.POST.get("prune") == "on")
    if request.htmx:
        return render(request, "console/dashboard.html#search_index", _search_index())
    return redirect("console:dashboard")


@role_required("viewer")
def health(request: HttpRequest) -> HttpResponse:
    """Pings PostgreSQL, Redis and the workers; loaded after the dashboard so a slow ping never delays it."""
    template = "console/health.html#card" if request.htmx else "console/health.html"
    return render(request, template, {"health": queries.health()})
