"""Sessions: the list, and one session's transcript with its working memory and extraction runs."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_headers
from redis.exceptions import RedisError

from memoryadmin.console import queries
from memoryadmin.console.access import role_required
from memoryadmin.console.forms import OLDEST, SessionFilterForm
from memoryadmin.console.listing import PAGE_SIZE, filtered_list
from memoryadmin.conversations.models import Session
from memoryadmin.conversations.queries import sessions_page
from memoryadmin.conversations.working_memory import working_memory_get
from memoryadmin.extraction.services import extraction_schedule

TRANSCRIPT_PAGE = 100
# An evidence link opens the transcript a few messages before the one it points at, for context.
CONTEXT_BEFORE = 5


@vary_on_headers("HX-Request")
@role_required("viewer")
def sessions(request: HttpRequest) -> HttpResponse:
    return filtered_list(
        request,
        form_class=SessionFilterForm,
        model=Session,
        fetch=lambda namespace, filters, cursor: sessions_page(
            namespace,
            user_id=filters["user"] or None,
            agent_id=filters["agent"] or None,
            oldest_first=filters["order"] == OLDEST,
            cursor=cursor,
            limit=PAGE_SIZE,
        ),
        template="console/sessions.html",
    )


def _int_param(request: HttpRequest, name: str) -> int:
    try:
        return max(int(request.GET.get(name, "0")), 0)
    except ValueError:
        return 0


@vary_on_headers("HX-Request")
@role_required("viewer")
def transcript(request: HttpRequest, session_pk: int) -> HttpResponse:
    session = get_object_or_404(Session.objects.select_related("namespace"), pk=session_pk)
    after = _int_param(request, "after")
    at = _int_param(request, "at")
    if at:
        after = max(at - 1 - CONTEXT_BEFORE, 0)
    page = queries.transcript(session, after_seq=after, limit=TRANSCRIPT_PAGE)
    base = reverse("console:transcript", args=[session.pk])
    context: dict[str, Any] = {
        "session": session,
        "namespace": session.namespace,
        "page": page,
        "at": at,
        "next_url": f"{base}?after={page.next_after}" if page.next_after else None,
        "earlier_url": f"{base}?after={max(after - TRANSCRIPT_PAGE, 0)}" if after else None,
    }
    if request.htmx and request.GET.get("after") and not request.htmx.history_restore_request:
        return render(request, "console/transcript.html#lines", context)
    try:
        context["working_memory"] = working_memory_get(namespace_id=session.namespace_id, session_id=session.session_id)
    except RedisError:
        context["redis_down"] = True
    context["runs"] = queries.session_runs(session)
    return render(request, "console/transcript.html", context)


@require_POST
@role_required("operator")
def extract_now(request: HttpRequest, session_pk: int) -> HttpResponse:
    session = get_object_or_404(Session.objects.select_related("namespace"), pk=session_pk)
    run = extraction_schedule(session=session, delay=0)
    note = "Extraction scheduled; it runs as soon as a worker picks it up." if run else "Nothing new to extract."
    if request.htmx:
        return render(
            request,
            "console/transcript.html#runs",
            {"session": session, "runs": queries.session_runs(session), "note": note},
        )
    messages.success(request, note)
    return redirect("console:transcript", session.pk)
