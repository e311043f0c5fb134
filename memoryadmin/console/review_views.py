"""The review queue: candidates oldest first, approved, edited or rejected from the keyboard."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse

from memoryadmin.console.access import role_required
from memoryadmin.console.listing import page_or_more
from memoryadmin.console.scope import visible_and_chosen
from memoryadmin.core.errors import ServiceError
from memoryadmin.core.estimates import Estimate
from memoryadmin.core.replicas import lag_tolerant_view
from memoryadmin.memories.enums import MemoryStatus
from memoryadmin.memories.queries import candidates_by_namespace, memories_estimate, review_page

PAGE_SIZE = 20


@role_required("viewer")
@lag_tolerant_view
def review(request: HttpRequest) -> HttpResponse:
    namespaces, namespace = visible_and_chosen(request)
    if namespace is not None and not request.GET.get("ns") and not _waiting([namespace.pk]).value:
        # Not asked for by name and nothing waits there: open where candidates do wait, the most first.
        waiting = candidates_by_namespace([ns.pk for ns in namespaces])
        if waiting:
            namespace = max(namespaces, key=lambda ns: (waiting.get(ns.pk, 0), -namespaces.index(ns)))
    context: dict[str, Any] = {"namespaces": namespaces, "namespace": namespace, "items": []}
    status = 200
    if namespace is not None:
        cursor = request.GET.get("cursor") or None
        try:
            page = review_page(namespace, cursor=cursor, limit=PAGE_SIZE)
        except ServiceError as exc:
            context["error"] = exc.message
            status = exc.status
        else:
            context["items"] = page.items
            context["first_page"] = cursor is None
            if page.next_cursor:
                context["next_url"] = "?" + urlencode({"ns": namespace.slug, "cursor": page.next_cursor})
        context["waiting"] = _waiting([namespace.pk])
        if not context["items"] and not cursor:
            # An empty queue says where candidates do wait, so the operator is one click from them.
            others = [ns for ns in namespaces if ns != namespace]
            waiting = candidates_by_namespace([ns.pk for ns in others])
            context["elsewhere"] = [(ns, waiting[ns.pk]) for ns in others if ns.pk in waiting]
    return page_or_more(request, "console/review.html", context, rows="cards", status=status)


def _waiting(namespace_ids: list[int]) -> Estimate:
    return memories_estimate(namespace_ids, status=MemoryStatus.CANDIDATE)
