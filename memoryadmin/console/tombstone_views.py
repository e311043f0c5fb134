"""Tombstones: what must not come back, and the admin's decision to let it."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from memoryadmin.console.access import actor_of, bad_request, found_or_404, role_required
from memoryadmin.console.forms import RequiredReasonForm, TombstoneFilterForm
from memoryadmin.console.listing import filtered_list_view, filters_as
from memoryadmin.core.estimates import Estimate, estimate
from memoryadmin.memories.queries import tombstone_by_pk, tombstones_estimate, tombstones_page
from memoryadmin.memories.services import tombstone_lift

if TYPE_CHECKING:
    from memoryadmin.memories.models import Tombstone


tombstones = filtered_list_view(
    form_class=TombstoneFilterForm,
    total=tombstones_estimate,
    fetch=filters_as(tombstones_page, user="user_id", reason="reason"),
    template="console/tombstones.html",
)


@require_POST
@role_required("admin")
def tombstone_lift_view(request: HttpRequest, tombstone_id: int) -> HttpResponse:
    tombstone = found_or_404(tombstone_by_pk(tombstone_id), "tombstone")
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
        context = {"tombstone": tombstone, "note": note, "matching": _matching_after(request, tombstone)}
        return render(request, "console/tombstones.html#lifted", context)
    messages.success(request, note)
    return redirect(reverse("console:tombstones") + "?" + urlencode({"ns": tombstone.namespace.slug}))


def _matching_after(request: HttpRequest, tombstone: Tombstone) -> Estimate | None:
    """The list's count once this one is lifted, for the filters the list shows (sent with the lift as
    `list_user` and `list_reason`: the lift's own `reason` is why it is lifted)."""
    filters = TombstoneFilterForm(
        {"user": request.POST.get("list_user", ""), "reason": request.POST.get("list_reason", "")}
    )
    if not filters.is_valid() or not (filters.cleaned_data["user"] or filters.cleaned_data["reason"]):
        return None
    page = tombstones_page(
        tombstone.namespace,
        user_id=filters.cleaned_data["user"] or None,
        reason=filters.cleaned_data["reason"] or None,
        limit=1,
    )
    return estimate(page.matching) if page.matching is not None else None
