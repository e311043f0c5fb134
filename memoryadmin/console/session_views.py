"""Sessions: the list, and one session's transcript with its working memory and extraction runs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST
from redis.exceptions import RedisError

from memoryadmin.console import queries
from memoryadmin.console.access import actor_of, found_or_404, role_required
from memoryadmin.console.forms import ReasonForm, SessionFilterForm, optional_reason
from memoryadmin.console.listing import filtered_list_view, filters_as, page_or_more, wants_fragment
from memoryadmin.conversations.queries import session_by_pk, sessions_estimate, sessions_page
from memoryadmin.conversations.services import session_delete, working_memory_clear
from memoryadmin.conversations.working_memory import working_memory_get
from memoryadmin.core.replicas import lag_tolerant_view
from memoryadmin.extraction.enums import RunStatus
from memoryadmin.extraction.queries import session_runs as runs_of_session
from memoryadmin.extraction.services import extraction_schedule

if TYPE_CHECKING:
    from memoryadmin.conversations.models import Session

TRANSCRIPT_PAGE = 100
# An evidence link opens the transcript a few messages before the one it points at, for context.
CONTEXT_BEFORE = 5


sessions = filtered_list_view(
    form_class=SessionFilterForm,
    total=sessions_estimate,
    fetch=filters_as(sessions_page, user="user_id", agent="agent_id"),
    template="console/sessions.html",
)


def _int_param(request: HttpRequest, name: str) -> int:
    try:
        return max(int(request.GET.get(name, "0")), 0)
    except ValueError:
        return 0


def _session_or_404(session_pk: int) -> Session:
    return found_or_404(session_by_pk(session_pk), "session")


@role_required("viewer")
@lag_tolerant_view
def transcript(request: HttpRequest, session_pk: int) -> HttpResponse:
    session = _session_or_404(session_pk)
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
    # "Earlier" and "later" load only more lines; the page itself shows working memory and runs too.
    if not (request.GET.get("after") and wants_fragment(request)):
        try:
            context["working_memory"] = working_memory_get(
                namespace_id=session.namespace_id, session_id=session.session_id
            )
        except RedisError:
            context["redis_down"] = True
        context.update(_runs_context(session))
    return page_or_more(request, "console/transcript.html", context, rows="lines", after="after")


def _runs_context(session: Session, **extra: Any) -> dict[str, Any]:
    runs = runs_of_session(session)
    # While a run waits or works, its card asks again every few seconds; once all are done it stops.
    active = any(run.status in (RunStatus.QUEUED, RunStatus.RUNNING) for run in runs)
    return {"session": session, "runs": runs, "active": active, **extra}


@role_required("viewer")
def session_runs(request: HttpRequest, session_pk: int) -> HttpResponse:
    """The extraction card of a transcript as it is now (polled while a run is queued or running)."""
    session = _session_or_404(session_pk)
    if not request.htmx:
        return redirect("console:transcript", session.pk)
    return render(request, "console/transcript.html#runs", _runs_context(session))


@require_http_methods(["GET", "POST"])
@role_required("operator")
def session_remove(request: HttpRequest, session_pk: int) -> HttpResponse:
    """GET asks for confirmation (and a reason); POST deletes the session, its messages and working memory."""
    session = _session_or_404(session_pk)
    form = ReasonForm(request.POST if request.method == "POST" else None)
    if form.is_valid():
        try:
            session_delete(session=session, actor=actor_of(request), reason=form.cleaned_data["reason"])
        except RedisError:
            form.add_error(None, "Redis is not answering, so its working memory cannot go: nothing was deleted.")
        else:
            messages.success(
                request,
                f"Session {session.session_id} deleted with its {session.message_count} messages; "
                "memories extracted from it stay, without their evidence.",
            )
            return redirect(reverse("console:sessions") + "?" + urlencode({"ns": session.namespace.slug}))
    context = {"session": session, "namespace": session.namespace, "form": form}
    return render(request, "console/session_delete.html", context, status=422 if form.errors else 200)


@require_POST
@role_required("operator")
def working_memory_clear_view(request: HttpRequest, session_pk: int) -> HttpResponse:
    session = _session_or_404(session_pk)
    context: dict[str, Any] = {"session": session}
    try:
        cleared = working_memory_clear(session=session, actor=actor_of(request), reason=optional_reason(request.POST))
    except RedisError:
        context["redis_down"] = True
        note = ""
    else:
        note = "Working memory cleared." if cleared else "There was no working memory to clear."
    if not request.htmx:
        (messages.success if note else messages.error)(request, note or "Redis is not answering; try again.")
        return redirect("console:transcript", session.pk)
    context["note"] = note
    return render(request, "console/transcript.html#working_memory", context)


@require_POST
@role_required("operator")
def extract_now(request: HttpRequest, session_pk: int) -> HttpResponse:
    session = _session_or_404(session_pk)
    run = extraction_schedule(session=session, delay=0)
    note = "Extraction scheduled; it runs as soon as a worker picks it up." if run else "Nothing new to extract."
    if request.htmx:
        return render(request, "console/transcript.html#runs", _runs_context(session, note=note))
    messages.success(request, note)
    return redirect("console:transcript", session.pk)
