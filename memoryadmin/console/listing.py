"""The flow every filtered, keyset-paginated console list shares."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.db.models import Model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from memoryadmin.console import queries
from memoryadmin.console.forms import OLDEST
from memoryadmin.console.scope import chosen_namespace, visible_namespaces
from memoryadmin.core.errors import ServiceError
from memoryadmin.core.pagination import Page
from memoryadmin.tenancy.models import Namespace

PAGE_SIZE = 50


def sort_links(params: dict[str, Any]) -> dict[str, Any]:
    """Whether a list is oldest first, and the address of the same list the other way round."""
    oldest_first = params.get("order") == OLDEST
    other = {k: v for k, v in params.items() if k not in ("order", "cursor")}
    if not oldest_first:
        other["order"] = OLDEST
    return {"oldest_first": oldest_first, "reverse_url": "?" + urlencode(other)}


def filtered_list(
    request: HttpRequest,
    *,
    form_class: type[forms.Form],
    model: type[Model],
    fetch: Callable[[Namespace, dict[str, Any], str | None], Page[Any]],
    template: str,
) -> HttpResponse:
    """Render a namespace's list: the full page, or only its rows for an htmx "load more".

    `fetch(namespace, cleaned_filters, cursor)` returns one page; the total shown is an estimate.
    """
    namespaces = visible_namespaces(request)
    namespace = chosen_namespace(request, namespaces)
    form = form_class(request.GET)
    context: dict[str, Any] = {"namespaces": namespaces, "namespace": namespace, "form": form, "items": []}
    status = 200
    if namespace is not None and form.is_valid():
        cursor = request.GET.get("cursor") or None
        try:
            page = fetch(namespace, form.cleaned_data, cursor)
        except ServiceError as exc:
            form.add_error(None, exc.message)
            status = exc.status
        else:
            context["items"] = page.items
            context["first_page"] = cursor is None
            filters = {k: v for k, v in form.cleaned_data.items() if v}
            if cursor is None and page.matching is not None and set(filters) - {"order"}:
                # How many match the filters: exact up to a cap, then the planner's estimate.
                context["matching"] = queries.estimate(page.matching)
            params = {"ns": namespace.slug, **filters}
            if page.next_cursor:
                context["next_url"] = "?" + urlencode({**params, "cursor": page.next_cursor})
            context.update(sort_links(params))
    elif namespace is not None:
        status = 400
    if namespace is not None:
        context["total"] = queries.estimate(model.objects.filter(namespace=namespace))  # type: ignore[attr-defined]
    if request.htmx and request.GET.get("cursor") and not request.htmx.history_restore_request:  # type: ignore[attr-defined]
        return render(request, f"{template}#rows", context, status=status)
    return render(request, template, context, status=status)
