from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST
from redis.exceptions import RedisError

from memoryadmin.console import queries
from memoryadmin.console.access import actor_of, role_required
from memoryadmin.console.forms import DashboardFilterForm
from memoryadmin.console.listing import page_or_fragment
from memoryadmin.console.scope import named_namespace, visible_namespaces
from memoryadmin.core.replicas import lag_tolerant_view
from memoryadmin.extraction.queries import failed_runs_by_namespace, recent_runs
from memoryadmin.memories.embeddings import get_embedder
from memoryadmin.memories.enums import MemoryStatus
from memoryadmin.memories.queries import memories_estimate
from memoryadmin.memories.services.embedding import embedding_job, embedding_job_queue
from memoryadmin.memories.vectors import pgvector


@role_required("viewer")
@lag_tolerant_view
def dashboard(request: HttpRequest) -> HttpResponse:
    """Every namespace, or the one of `?ns=`, over the 30 days to today or the days of `?start=&end=`."""
    namespaces = visible_namespaces(request)
    namespace = named_namespace(request, namespaces)
    shown = [namespace] if namespace else namespaces
    ids = [ns.pk for ns in shown]
    form = DashboardFilterForm(request.GET)
    status = 200
    if not form.is_valid():
        status = 400
        problems = [str(e) for errors in form.errors.values() for e in errors]
        form = DashboardFilterForm({})
        form.is_valid()
        form.add_error(None, f"{'; '.join(problems)}: showing the last 30 days instead.")
    today = timezone.now().date()
    first, last = form.days(today)
    since, until = queries.day_start(first), queries.day_start(last + timedelta(days=1))
    figures = queries.namespace_figures(shown)
    failed = failed_runs_by_namespace(ids, since=since, until=until)
    for f in figures:
        f.failed_runs = failed.get(f.namespace.pk, 0)
    # The tiles open the namespace where there is the most to look at, not the one last browsed.
    busiest_review = max(figures, key=lambda f: f.candidates.value, default=None)
    busiest_failures = max(figures, key=lambda f: f.failed_runs, default=None)
    range_query = {"start": first.isoformat(), "end": last.isoformat()}
    return render(
        request,
        "console/dashboard.html",
        {
            "form": form,
            "namespaces": namespaces,
            "namespace": namespace,
            "first": first,
            "last": last,
            "default_range": last == today and (last - first).days == DashboardFilterForm.DEFAULT_DAYS - 1,
            "range_query": urlencode(range_query),
            "figures": figures,
            "activity": queries.activity(ids, days=(last - first).days + 1, last=last),
            "review_queue": memories_estimate(ids, status=MemoryStatus.CANDIDATE),
            "review_namespace": busiest_review.namespace if busiest_review else None,
            "failures_namespace": busiest_failures.namespace if busiest_failures else None,
            "pending_erasures": sum(f.pending_erasures for f in figures),
            "recent_runs": recent_runs(ids, limit=8, since=since, until=until),
            "recent_failures": recent_runs(ids, limit=5, failed_only=True, since=since, until=until),
            "now": timezone.now(),
            **_search_index(),
        },
        status=status,
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
    return page_or_fragment(request, "console/health.html", "console/health.html#card", {"health": queries.health()})
