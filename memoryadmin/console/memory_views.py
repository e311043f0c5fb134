"""Memories: the list with search and filters, one memory's page, and the actions on them.

An action answers an htmx request with the fragment that changed (the row, or
the detail summary), and a plain form post with a redirect back.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from functools import wraps
from itertools import pairwise
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect, push_url, reswap, retarget

from memoryadmin.audit.queries import audit_trail
from memoryadmin.console.access import actor_of, bad_request, rights_of, role_required
from memoryadmin.console.forms import OLDEST, BulkForm, MemoryEditForm, MemoryFilterForm, ReasonForm, add_service_error
from memoryadmin.console.listing import filtered_list_start, page_or_fragment, sort_links, wants_fragment
from memoryadmin.console.scope import visible_namespaces
from memoryadmin.core.errors import Conflict, NotFound, PreconditionFailed, ServiceError
from memoryadmin.core.estimates import estimate
from memoryadmin.core.replicas import lag_tolerant_view
from memoryadmin.memories import services
from memoryadmin.memories.enums import MemoryStatus
from memoryadmin.memories.queries import (
    memories_by_ids,
    memories_estimate,
    memories_page,
    memories_search,
    memory_evidence,
    memory_get,
    memory_history,
    memory_namespace,
    memory_revisions,
    pin_of,
)

if TYPE_CHECKING:
    from memoryadmin.memories.models import Memory

PAGE_SIZE = 50
FILTER_KEYS = ("ns", "q", "user", "type", "status", "pinned", "topic", "created_from", "created_to", "order")


def memory_or_404(memory_id: uuid.UUID) -> Memory:
    """The memory with `pinned` annotated, through the same scoped read the API uses."""
    namespace = memory_namespace(memory_id)
    if namespace is None:
        raise Http404("no such memory")
    try:
        item = memory_get(namespace, memory_id)
    except NotFound:
        raise Http404("no such memory") from None
    item.namespace = namespace
    return item


def _filter_query(request: HttpRequest, **changes: str | None) -> str:
    params = {key: request.GET.get(key, "") for key in FILTER_KEYS}
    params.update(changes)
    return urlencode({key: value for key, value in params.items() if value})


# A quoted phrase, a word excluded with a leading "-", or OR between words.
_OPERATORS = re.compile(r'"|(?:^|\s)-\w|\sOR\s')


@role_required("viewer")
@lag_tolerant_view
def memories(request: HttpRequest) -> HttpResponse:
    namespace, form, context = filtered_list_start(request, MemoryFilterForm)
    status = 200
    if namespace is not None and form.is_valid():
        data = form.cleaned_data
        cursor = request.GET.get("cursor") or None
        try:
            if data["q"].strip():
                page = memories_search(
                    namespace,
                    query=data["q"],
                    # Operators' syntax when the query uses it, as the search box says: "a phrase",
                    # -excluded, OR; what an operator excludes must stay out ("all shown" and a bulk
                    # Forget act on the list). Plain words and questions are searched by meaning too.
                    syntax="websearch" if _OPERATORS.search(data["q"]) else "natural",
                    user_id=data["user"] or None,
                    memory_types=[data["type"]] if data["type"] else None,
                    topics=[data["topic"]] if data["topic"] else None,
                    status=data["status"] or "any",
                    pinned={"yes": True, "no": False}.get(data["pinned"]),
                    created_after=form.created_after,
                    created_before=form.created_before,
                    cursor=cursor,
                    limit=PAGE_SIZE,
                    # An operator reading is not an agent using the memory.
                    touch=False,
                    explain=True,
                )
                items = []
                for hit in page.items:
                    # Shown under the row: why this memory matched.
                    hit.memory.search_score, hit.memory.why = hit.score, hit.explain
                    items.append(hit.memory)
                if cursor is None:
                    # A ranked search is not counted (that would rank every match): what it found, or
                    # that there is more than one page of it.
                    context["search_found"] = {"count": len(items), "more": bool(page.next_cursor)}
            else:
                page = memories_page(
                    namespace,
                    user_id=data["user"] or None,
                    memory_type=data["type"] or None,
                    status=data["status"] or None,
                    pinned={"yes": True, "no": False}.get(data["pinned"]),
                    topics=[data["topic"]] if data["topic"] else None,
                    created_after=form.created_after,
                    created_before=form.created_before,
                    oldest_first=data["order"] == OLDEST,
                    cursor=cursor,
                    limit=PAGE_SIZE,
                )
                items = page.items
                params = {key: request.GET.get(key, "") for key in FILTER_KEYS if request.GET.get(key)}
                context.update(sort_links({**params, "ns": namespace.slug}))
                filtered = any(v for k, v in data.items() if k not in ("q", "order"))
                if cursor is None and filtered and page.matching is not None:
                    context["matching"] = estimate(page.matching)
        except ServiceError as exc:
            form.add_error(None, exc.message)
            status = 400
        else:
            context["items"] = items
            context["first_page"] = cursor is None
            context["filtered"] = any(v for k, v in form.cleaned_data.items() if k != "order")
            if page.next_cursor:
                context["next_url"] = "?" + _filter_query(request, ns=namespace.slug, cursor=page.next_cursor)
    elif namespace is not None:
        status = 400
    loading_more = bool(request.GET.get("cursor")) and wants_fragment(request)
    if namespace is not None and not loading_more:
        # Rows fetched by "load more" do not show the total; only whole pages pay for it.
        context["total"] = memories_estimate([namespace.pk])
    if namespace is not None:
        context["here"] = reverse("console:memories") + "?" + _filter_query(request, ns=namespace.slug)
    # A "load more" gets rows; a change of the filters, the results under them.
    fragment = "console/memories.html#rows" if loading_more else "console/memories.html#results"
    response = page_or_fragment(request, "console/memories.html", fragment, context, status=status)
    if wants_fragment(request) and not loading_more:
        # The address bar follows the filters (without empty ones), so a view can be bookmarked.
        push_url(response, context.get("here") or reverse("console:memories"))
    return response


@role_required("viewer")
def memory(request: HttpRequest, memory_id: uuid.UUID) -> HttpResponse:
    try:
        item = memory_or_404(memory_id)
    except Http404:
        return _memory_gone(request, memory_id)
    revisions = memory_revisions(item)
    return render(
        request,
        "console/memory.html",
        {
            "memory": item,
            "namespace": item.namespace,
            "revisions": revisions,
            "changes": list(pairwise(revisions)),
            "evidence": memory_evidence(item),
            "pin": pin_of(item),
            "trail": audit_trail("memory", str(item.pk)),
            **memory_history(item),
        },
    )


def _memory_gone(request: HttpRequest, memory_id: uuid.UUID) -> HttpResponse:
    """A memory forgotten or erased, as the audit log (its links included) still names it: what is left of it,
    in a namespace the operator may see; else the 404 of a memory that never was."""
    rights = rights_of(request)
    trail = [e for e in audit_trail("memory", str(memory_id)) if e.namespace_id and rights.sees(e.namespace_id)]
    if not trail:
        raise Http404("no such memory")
    context = {"memory_id": memory_id, "trail": trail, "namespace": trail[-1].namespace}
    return render(request, "console/memory_gone.html", context, status=404)


def _next_url(request: HttpRequest, fallback: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        return target
    return fallback


def _answer(
    request: HttpRequest, item: Memory, note: str, *, gone: bool = False, edited: bool = False, status: int = 200
) -> HttpResponse:
    """The fragment that changed for htmx; for a plain post, a redirect with a message.

    An edit changes more of the detail page than its summary (details, revisions, diffs),
    so from there it is answered with the whole page again.
    """
    view = request.POST.get("view", "row")
    if not request.htmx:
        messages.success(request, note)
        if gone:
            fallback = reverse("console:memories") + f"?ns={item.namespace.slug}"
        else:
            fallback = reverse("console:memory", args=[item.pk])
        return redirect(_next_url(request, fallback))
    if view == "detail":
        if gone:
            messages.success(request, note)
            return HttpResponseClientRedirect(reverse("console:memories") + f"?ns={item.namespace.slug}")
        if edited:
            messages.success(request, note)
            return HttpResponseClientRedirect(reverse("console:memory", args=[item.pk]))
        fresh = memory_or_404(item.pk)
        response = render(
            request,
            "console/memory.html#summary",
            {"memory": fresh, "pin": pin_of(fresh), "note": note},
            status=status,
        )
        # A form inside the summary (Pin, Approve) may have targeted a part of it: the whole summary is replaced.
        return reswap(retarget(response, "#summary"), "innerHTML")
    if view == "review":
        # The card confirms with the text as it now is (an edit-and-approve changed it).
        shown = item if gone else memory_or_404(item.pk)
        # The queue's count at the top of the page follows (out of band).
        waiting = memories_estimate([item.namespace_id], status=MemoryStatus.CANDIDATE)
        context = {"memory": shown, "note": note, "waiting": waiting}
        return render(request, "console/review.html#done", context, status=status)
    if gone:
        return render(request, "console/_memory_row.html#gone", {"memory": item, "note": note}, status=status)
    fresh = memory_or_404(item.pk)
    return render(request, "console/_memory_row.html", {"memory": fresh, "note": note}, status=status)


def _refused(request: HttpRequest, item: Memory, exc: ServiceError) -> HttpResponse:
    if not request.htmx:
        messages.error(request, exc.message)
        return redirect(_next_url(request, reverse("console:memory", args=[item.pk])))
    return HttpResponse(exc.message, status=exc.status, content_type="text/plain; charset=utf-8")


@role_required("viewer")
def memory_row(request: HttpRequest, memory_id: uuid.UUID) -> HttpResponse:
    """One row of the list, as it is now (an inline form's Cancel puts it back)."""
    return render(request, "console/_memory_row.html", {"memory": memory_or_404(memory_id)})


def _memory_action(act: Callable[[HttpRequest, Memory], HttpResponse]) -> Callable[..., HttpResponse]:
    """An operator's action on one memory, posted: `act` gets the memory (404 when there is none) and answers."""

    @require_POST
    @role_required("operator")
    @wraps(act)
    def view(request: HttpRequest, memory_id: uuid.UUID) -> HttpResponse:
        return act(request, memory_or_404(memory_id))

    return view


@_memory_action
def memory_pin(request: HttpRequest, item: Memory) -> HttpResponse:
    form = ReasonForm(request.POST)
    if not form.is_valid():
        return bad_request(request, form)
    services.memory_pin(memory=item, actor=actor_of(request), reason=form.cleaned_data["reason"])
    return _answer(request, item, "Pinned: forgetting policies will never select it.")


@_memory_action
def memory_unpin(request: HttpRequest, item: Memory) -> HttpResponse:
    services.memory_unpin(memory=item, actor=actor_of(request))
    return _answer(request, item, "Unpinned.")


@_memory_action
def memory_approve(request: HttpRequest, item: Memory) -> HttpResponse:
    try:
        services.memory_approve(memory=item, actor=actor_of(request))
    except ServiceError as exc:
        return _refused(request, item, exc)
    return _answer(request, item, "Approved: the memory is active.")


@_memory_action
def memory_reject(request: HttpRequest, item: Memory) -> HttpResponse:
    form = ReasonForm(request.POST)
    if not form.is_valid():
        return bad_request(request, form)
    try:
        services.memory_reject(memory=item, actor=actor_of(request), reason=form.cleaned_data["reason"])
    except ServiceError as exc:
        return _refused(request, item, exc)
    return _answer(request, item, "Rejected: a tombstone keeps the same text from coming back.", gone=True)


@require_http_methods(["GET", "POST"])
@role_required("operator")
def memory_forget(request: HttpRequest, memory_id: uuid.UUID) -> HttpResponse:
    """GET asks for a reason (the confirmation); POST forgets."""
    item = memory_or_404(memory_id)
    view = request.POST.get("view") or request.GET.get("view", "row")
    context: dict[str, Any] = {"memory": item, "view": view, "next": _next_url(request, "")}
    if request.method == "GET":
        form = ReasonForm()
        context["form"] = form
        template = "console/forget.html#confirm" if request.htmx else "console/forget.html"
        return render(request, template, context)
    form = ReasonForm(request.POST)
    context["form"] = form
    status = 422
    if form.is_valid():
        try:
            services.memory_forget(
                memory=item,
                actor=actor_of(request),
                reason=form.cleaned_data["reason"],
                force=request.POST.get("force") == "on",
            )
        except Conflict as exc:
            form.add_error(None, exc.message)
            context["offer_force"] = exc.code == "pinned"
            status = 409
        except ServiceError as exc:
            return _refused(request, item, exc)
        else:
            return _answer(request, item, "Forgotten: a tombstone keeps it from coming back.", gone=True)
    template = "console/forget.html#confirm" if request.htmx else "console/forget.html"
    return render(request, template, context, status=status)


@require_http_methods(["GET", "POST"])
@role_required("operator")
def memory_edit(request: HttpRequest, memory_id: uuid.UUID) -> HttpResponse:
    """GET gives the inline form; POST saves a new revision (and approves, from the review queue)."""
    item = memory_or_404(memory_id)
    view = request.POST.get("view") or request.GET.get("view", "row")
    approve = request.POST.get("approve") == "1" or request.GET.get("approve") == "1"
    if request.method == "GET":
        form = MemoryEditForm(
            initial={
                "text": item.text,
                "memory_type": item.memory_type,
                "topics": ", ".join(item.topics),
                "entities": ", ".join(item.entities),
                "revision": item.revision,
            }
        )
        status = 200
    else:
        form = MemoryEditForm(request.POST)
        status = 422
        if form.is_valid():
            data = form.cleaned_data
            # From the review queue the edit approves the candidate too, in the same transaction.
            save = services.memory_update_and_approve if approve else services.memory_update
            try:
                save(
                    memory=item,
                    actor=actor_of(request),
                    text=data["text"],
                    memory_type=data["memory_type"],
                    topics=data["topics"],
                    entities=data["entities"],
                    reason=data["reason"],
                    expected_revision=data["revision"],
                )
            except PreconditionFailed:
                # Someone saved meanwhile: show their version beside the operator's edit, which is kept,
                # and let a second save replace theirs knowingly (the form now carries their revision).
                item = memory_or_404(item.pk)
                form = _edit_form_over(request, item)
                form.add_error(
                    None,
                    f"Someone else saved revision {item.revision} while you were editing. Their version is shown "
                    "below and your edit is kept in the form: save again to replace theirs, or cancel.",
                )
                context = {"memory": item, "form": form, "view": view, "approve": approve, "conflict": item}
                context["next"] = _next_url(request, "")
                template = "console/memory_edit.html#form" if request.htmx else "console/memory_edit.html"
                return render(request, template, context, status=409)
            except ServiceError as exc:
                add_service_error(form, exc)
                status = exc.status if exc.status in (409, 422) else 422
            else:
                note = "Saved and approved." if approve else "Saved as a new revision."
                return _answer(request, item, note, edited=True)
    context = {"memory": item, "form": form, "view": view, "approve": approve, "next": _next_url(request, "")}
    template = "console/memory_edit.html#form" if request.htmx else "console/memory_edit.html"
    return render(request, template, context, status=status)


def _edit_form_over(request: HttpRequest, current: Memory) -> MemoryEditForm:
    """The operator's submitted edit, now based on the current revision."""
    data = request.POST.copy()
    data["revision"] = str(current.revision)
    form = MemoryEditForm(data)
    form.is_valid()
    return form


REMOVING = {"reject", "forget"}


@require_POST
@role_required("operator")
def memories_bulk(request: HttpRequest) -> HttpResponse:
    """One action over the selected memories of one namespace; each succeeds or fails on its own."""
    slug = request.POST.get("ns", "")
    namespace = next((ns for ns in visible_namespaces(request) if ns.slug == slug), None)
    if namespace is None:
        raise Http404("no such namespace")
    form = BulkForm(request.POST)
    if not form.is_valid():
        message = "; ".join(str(e) for errors in form.errors.values() for e in errors)
        if request.htmx:
            return HttpResponse(message, status=422, content_type="text/plain; charset=utf-8")
        messages.error(request, message)
        return redirect(_next_url(request, reverse("console:memories")))
    action, reason = form.cleaned_data["action"], form.cleaned_data["reason"]
    ids = form.cleaned_data["ids"]
    # Read before the action: the rows of memories it removes still show what went.
    shown = {str(m.pk): m for m in memories_by_ids(namespace, ids)}
    result = services.memories_bulk_apply(
        namespace=namespace, action=action, ids=[str(i) for i in ids], actor=actor_of(request), reason=reason
    )
    done = [shown[raw] for raw in result.done]
    failed = [(raw, exc.message) for raw, exc in result.failed]
    note = f"{action.capitalize()}: {len(done)} done" + (f", {len(failed)} failed" if failed else "") + "."
    if not request.htmx:
        (messages.success if not failed else messages.warning)(request, note)
        return redirect(_next_url(request, reverse("console:memories") + f"?ns={namespace.slug}"))
    removed = action in REMOVING
    fresh = [] if removed else memories_by_ids(namespace, [m.pk for m in done])
    return render(
        request,
        "console/memories.html#bulk_result",
        {"note": note, "failed": failed, "removed": done if removed else [], "updated": fresh},
    )
