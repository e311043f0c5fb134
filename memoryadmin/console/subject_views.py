"""Subjects: one person (a user_id within a namespace) and everything held about them."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRefresh

from memoryadmin.console import queries
from memoryadmin.console.access import actor_of, role_required
from memoryadmin.console.forms import EraseForm, SubjectLookupForm
from memoryadmin.console.scope import visible_and_chosen, visible_namespaces
from memoryadmin.conversations.queries import recent_subjects, sessions_page
from memoryadmin.core.app_ids import validate_app_id
from memoryadmin.core.errors import InvalidInput, NotFound, ServiceError
from memoryadmin.core.fingerprints import subject_hmac
from memoryadmin.core.replicas import lag_tolerant_stream, lag_tolerant_view
from memoryadmin.governance.enums import ErasureStatus
from memoryadmin.governance.erasure import erasure_request
from memoryadmin.governance.privacy_links import (
    privacy_link_create,
    privacy_link_in,
    privacy_link_revoke,
)
from memoryadmin.governance.queries import erasures_page, privacy_links_page
from memoryadmin.governance.snapshots import snapshot_export_stream
from memoryadmin.memories.queries import memories_page, tombstones_page
from memoryadmin.tenancy.queries import namespace_with_pk

if TYPE_CHECKING:
    from memoryadmin.tenancy.models import Namespace

PRIVACY_LINK_TTL_SECONDS = 24 * 3600
PRIVACY_LINK_LIFETIMES = [
    (3600, "an hour"),
    (PRIVACY_LINK_TTL_SECONDS, "a day"),
    (7 * 86400, "a week"),
    (30 * 86400, "30 days"),
]
PRIVACY_LINKS_SHOWN = 20
SUBJECT_ERASURES_SHOWN = 20


@role_required("viewer")
@lag_tolerant_view
def subjects(request: HttpRequest) -> HttpResponse:
    namespaces, namespace = visible_and_chosen(request)
    # Only a lookup is checked: the page opened for a namespace (?ns=…, its breadcrumb) asks nothing yet.
    form = SubjectLookupForm(request.GET if "user" in request.GET else None)
    if namespace is not None and form.is_valid():
        return redirect("console:subject", namespace.pk, form.cleaned_data["user"])
    context: dict[str, Any] = {
        "namespaces": namespaces,
        "namespace": namespace,
        "form": form,
        "recent": recent_subjects(namespace) if namespace else [],
    }
    return render(request, "console/subjects.html", context, status=400 if form.errors else 200)


@role_required("viewer")
def subject_everywhere(request: HttpRequest) -> HttpResponse:
    """One person in every namespace the operator may see: the first step of an erasure request."""
    form = SubjectLookupForm(request.GET if "user" in request.GET else None)
    context: dict[str, Any] = {"form": form}
    if form.is_valid():
        context["user_id"] = form.cleaned_data["user"]
        context["found"] = queries.subject_everywhere(form.cleaned_data["user"], visible_namespaces(request))
    return render(request, "console/subject_everywhere.html", context, status=400 if form.errors else 200)


def _subject(namespace_id: int, user_id: str) -> tuple[Namespace, str]:
    namespace = namespace_with_pk(namespace_id)
    if namespace is None:
        raise Http404("no such namespace")
    try:
        validate_app_id(user_id, "user_id")
    except InvalidInput:
        raise Http404("not a user_id") from None
    return namespace, user_id


def _links(namespace: Namespace, user_id: str) -> dict[str, Any]:
    return {
        "privacy_links": privacy_links_page(namespace=namespace, user_id=user_id, limit=PRIVACY_LINKS_SHOWN).items,
        "now": timezone.now(),
    }


def _erasures(namespace: Namespace, user_id: str) -> dict[str, Any]:
    """The person's erasures here, newest first; while one waits or runs the list asks again every few seconds."""
    past = erasures_page(namespace=namespace, user_id=user_id, limit=SUBJECT_ERASURES_SHOWN).items
    erasing = any(e.status in (ErasureStatus.PENDING, ErasureStatus.RUNNING) for e in past)
    return {"namespace": namespace, "user_id": user_id, "past_erasures": past, "erasing": erasing}


@role_required("viewer")
def subject_erasures(request: HttpRequest, namespace_id: int, user_id: str) -> HttpResponse:
    namespace, user_id = _subject(namespace_id, user_id)
    if not request.htmx:
        return redirect("console:subject", namespace.pk, user_id)
    context = _erasures(namespace, user_id)
    if not context["erasing"]:
        # Only a running erasure's list asks: it has ended, and so has most of the page (the
        # person's sessions and memories, the note that it is pending). The page is read again.
        return _ended(request, context)
    return render(request, "console/subject.html#erasures", context)


def _ended(request: HttpRequest, context: dict[str, Any]) -> HttpResponse:
    latest = context["past_erasures"][0] if context["past_erasures"] else None
    if latest is not None:
        messages.info(request, f"Erasure {latest.pk} of {context['user_id']} is {latest.status}.")
    return HttpResponseClientRefresh()


def _subject_context(namespace: Namespace, user_id: str) -> dict[str, Any]:
    return {
        **_links(namespace, user_id),
        **_erasures(namespace, user_id),
        "namespace": namespace,
        "user_id": user_id,
        "figures": queries.subject_figures(namespace, user_id),
        "sessions": sessions_page(namespace, user_id=user_id, limit=20),
        "memories": memories_page(namespace, user_id=user_id, limit=50),
        "tombstones": tombstones_page(namespace, user_id=user_id, limit=50).items,
        "erase_form": EraseForm(user_id=user_id),
        "link_lifetimes": PRIVACY_LINK_LIFETIMES,
        "default_lifetime": PRIVACY_LINK_TTL_SECONDS,
    }


@role_required("viewer")
@lag_tolerant_view
def subject(request: HttpRequest, namespace_id: int, user_id: str) -> HttpResponse:
    namespace, user_id = _subject(namespace_id, user_id)
    return render(request, "console/subject.html", _subject_context(namespace, user_id))


@role_required("operator")
def subject_export(request: HttpRequest, namespace_id: int, user_id: str) -> HttpResponse:
    namespace, user_id = _subject(namespace_id, user_id)
    stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
    lines = lag_tolerant_stream(
        request, snapshot_export_stream(namespace=namespace, user_id=user_id, actor=actor_of(request))
    )
    response = StreamingHttpResponse(lines, content_type="application/x-ndjson")
    response["Content-Disposition"] = f'attachment; filename="{namespace.slug}-subject-{stamp}.jsonl"'
    return response


@require_POST
@role_required("operator")
def subject_privacy_link(request: HttpRequest, namespace_id: int, user_id: str) -> HttpResponse:
    namespace, user_id = _subject(namespace_id, user_id)
    context: dict[str, Any] = {"namespace": namespace, "user_id": user_id}
    status = 200
    # The form says what the link allows and for how long; a post without the form's fields (an older
    # page) asks for all this operator may grant, for a day.
    rights = request.POST.getlist("rights") if {"rights", "ttl_seconds"} & set(request.POST) else None
    ttl = request.POST.get("ttl_seconds", str(PRIVACY_LINK_TTL_SECONDS))
    try:
        if ttl not in {str(seconds) for seconds, _ in PRIVACY_LINK_LIFETIMES}:
            raise InvalidInput("choose one of the lifetimes offered", details={"field": "ttl_seconds"})
        # What the link may do is bounded by what this operator may do: an admin's may erase.
        url, link = privacy_link_create(
            namespace=namespace,
            user_id=user_id,
            rights=rights,
            ttl_seconds=int(ttl),
            actor=actor_of(request),
            operator=request.user,  # type: ignore[arg-type]
        )
    except ServiceError as exc:
        context["link_error"] = exc.message
        status = exc.status
    else:
        context.update(link=request.build_absolute_uri(url), new_link=link)
    context.update(_links(namespace, user_id))
    if request.htmx:
        return render(request, "console/subject.html#privacy_link", context, status=status)
    return render(request, "console/subject.html", {**_subject_context(namespace, user_id), **context}, status=status)


@require_POST
@role_required("operator")
def subject_privacy_link_revoke(
    request: HttpRequest, namespace_id: int, user_id: str, link_id: uuid.UUID
) -> HttpResponse:
    namespace, user_id = _subject(namespace_id, user_id)
    try:
        link = privacy_link_in(namespace, link_id)
    except NotFound:
        raise Http404("no such privacy link") from None
    if link.subject_hash != subject_hmac(namespace.pk, user_id):
        raise Http404("no such privacy link")
    privacy_link_revoke(link=link, actor=actor_of(request), reason="revoked in the console")
    context = {"namespace": namespace, "user_id": user_id, "revoked": link, **_links(namespace, user_id)}
    if request.htmx:
        return render(request, "console/subject.html#privacy_link", context)
    messages.success(request, "The privacy link was revoked; it stops working at once.")
    return redirect("console:subject", namespace.pk, user_id)


@require_POST
@role_required("admin")
def subject_erase(request: HttpRequest, namespace_id: int, user_id: str) -> HttpResponse:
    namespace, user_id = _subject(namespace_id, user_id)
    form = EraseForm(request.POST, user_id=user_id)
    context: dict[str, Any] = {"namespace": namespace, "user_id": user_id, "erase_form": form}
    status = 422
    if form.is_valid():
        try:
            erasure = erasure_request(
                namespace=namespace, user_id=user_id, actor=actor_of(request), reason=form.cleaned_data["reason"]
            )
        except ServiceError as exc:
            form.add_error(None, exc.message)
            status = exc.status
        else:
            note = f"Erasure {erasure.pk} is {erasure.status}; a worker deletes everything and writes a receipt."
            if not request.htmx:
                messages.success(request, note)
                erasures_url = _erasures_url()
                return redirect(erasures_url or reverse("console:subject", args=[namespace.pk, user_id]))
            erasures = _erasures(namespace, user_id)
            if not erasures["erasing"]:
                # Done already (a worker running tasks at once): the page shows the end, not a pending note.
                return _ended(request, erasures)
            context.update({"erasure": erasure, "note": note, "erasures_url": _erasures_url()})
            # The list of the person's erasures is swapped in too, out of band, and follows this one.
            context.update({**erasures, "oob": True})
            status = 200
    if request.htmx:
        return render(request, "console/subject.html#erase", context, status=status)
    return render(request, "console/subject.html", {**_subject_context(namespace, user_id), **context}, status=status)


def _erasures_url() -> str | None:
    try:
        return reverse("console:erasures")
    except NoReverseMatch:
        return None
