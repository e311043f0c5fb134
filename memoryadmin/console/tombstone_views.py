"""Tombstones: what must not come back, and the admin's decision to let it."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_headers

from memoryadmin.console import queries
from memoryadmin.console.access import actor_of, bad_request, role_required
from memoryadmin.console.forms import RequiredReasonForm, TombstoneFilterForm
from memoryadmin.console.scope import all_namespaces, chosen_namespace
from memoryadmin.errors import ServiceError
from memoryadmin.memories.models import Tombstone
from memoryadmin.memories.services import tombstone_lift

PAGE_SIZE = 50


@vary_on_headers("HX-Request")
@role_required("viewer")
def tombstones(request: HttpRequest) -> HttpResponse:
    namespaces = all_namespaces()
    namespace = chosen_namespace(request, namespaces)
    form = TombstoneFilterForm(request.GET)
    context: dict[str, Any] = {"namespaces": namespaces, "namespace": namespace, "form": form, "items": []}
    status = 200
    if namespace is not None and form.is_valid():
        cursor = request.GET.get("cursor") or None
        try:
            page = queries.tombstones_page(
                namespace,
                user_id=form.cleaned_data["user"] or None,
                reason=form.cleaned_data["reason"] or None,
                cursor=cursor,
                limit=PAGE_SIZE,
            )
        except ServiceError as exc:
            form.add_error(None, exc.message)
            status = exc.status
        else:
            context["items"] = page.items
            context["first_page"] = cursor is None
            if page.next_cursor:
                params = {"ns": namespace.slug, **{k: v for k, v in form.cleaned_data.items() if v}}
                context["next_url"] = "?" + urlencode({**params, "cursor": page.next_cursor})
    elif namespace is not None:
        status = 400
    if namespace is not None:
        context["total"] = queries.estimate(Tombstone.objects.filter(namespace=namespace))
    if request.htmx and request.GET.get("cursor") and not request.htmx.history_restore_request:
        return render(request, "console/tombstones.html#rows", context, status=status)
    return render(request, "console/tombstones.html", context, status=status)


@require_POST
@role_required("admin")
def tombstone_lift_view(request: HttpRequest, tombstone_id: int) -> HttpResponse:
    tombstone = get_object_or_404(Tombstone, pk=tombstone_id)
    form = RequiredReasonForm(request.POST)
    if not form.is_valid():
        if request.htmx:
            message = "; ".join(str(e) for e in form.errors.get("reason", [])) or "Lifting needs a reason."
            return render(
                request, "console/tombstones.html#row", {"tombstone": tombstone, "error": message}, status=422
            )
        return bad_request(request, form)
    tombstone_lift(tombstone=tombstone, actor=actor_of(request), reason=form.cleaned_data["reason"])
    note = "Lifted: the same text may be stored again for this user."
    if request.htmx:
        return render(request, "console/tombstones.html#lifted", {"tombstone": tombstone, "note": note})
    messages.success(request, note)
    return redirect(reverse("console:tombstones") + "?" + urlencode({"ns": tombstone.namespace.slug}))
