"""The flow every filtered, keyset-paginated console list shares, and the one decision between a page
and its fragment."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers

from memoryadmin.console.access import role_required
from memoryadmin.console.forms import OLDEST
from memoryadmin.console.scope import visible_and_chosen
from memoryadmin.core.errors import ServiceError
from memoryadmin.core.estimates import Estimate, estimate
from memoryadmin.core.pagination import Page
from memoryadmin.core.replicas import lag_tolerant_view

if TYPE_CHECKING:
    from memoryadmin.tenancy.models import Namespace

PAGE_SIZE = 50


def wants_fragment(request: HttpRequest) -> bool:
    """Whether htmx asks for part of a page: not for a history restore, which needs the whole page back."""
    htmx = getattr(request, "htmx", None)
    return bool(htmx) and not htmx.history_restore_request


def page_or_fragment(
    request: HttpRequest,
    page: str,
    fragment: str,
    context: dict[str, Any],
    *,
    when: bool = True,
    status: int = 200,
) -> HttpResponse:
    """The `fragment` template (a "name#partial") for an htmx request that wants one and `when` it is
    the part asked for (a "load more", a poll), else the whole `page`.

    Either way the answer varies with HX-Request, so no cache hands the fragment to a browser
    that asked for the page.
    """
    template = fragment if when and wants_fragment(request) else page
    response = render(request, template, context, status=status)
    patch_vary_headers(response, ("HX-Request",))
    return response


def page_or_more(
    request: HttpRequest,
    page: str,
    context: dict[str, Any],
    *,
    rows: str = "rows",
    after: str = "cursor",
    status: int = 200,
) -> HttpResponse:
    """A list's whole `page`, or only its `rows` partial for a "load more": a request that says where the
    list goes on (`?cursor=`, or the parameter named by `after`)."""
    return page_or_fragment(request, page, f"{page}#{rows}", context, when=bool(request.GET.get(after)), status=status)


def sort_links(params: dict[str, Any]) -> dict[str, Any]:
    """Whether a list is oldest first, and the address of the same list the other way round."""
    oldest_first = params.get("order") == OLDEST
    other = {k: v for k, v in params.items() if k not in ("order", "cursor")}
    if not oldest_first:
        other["order"] = OLDEST
    return {"oldest_first": oldest_first, "reverse_url": "?" + urlencode(other)}


def filtered_list_start[F: forms.Form](
    request: HttpRequest, form_class: type[F]
) -> tuple[Namespace | None, F, dict[str, Any]]:
    """What a filtered list starts from: the namespace chosen among those the operator sees, the filter form
    bound to the query string, and a context showing both, with no rows yet."""
    namespaces, namespace = visible_and_chosen(request)
    form = form_class(request.GET)
    return namespace, form, {"namespaces": namespaces, "namespace": namespace, "form": form, "items": []}


def filters_as(query: Callable[..., Page[Any]], **keywords: str) -> Callable[..., Page[Any]]:
    """A list's `fetch` that hands `query` each filter under its keyword (`user="user_id"`), an empty one as None."""

    def fetch(namespace: Namespace, filters: dict[str, Any], **paging: Any) -> Page[Any]:
        return query(namespace, **{keyword: filters[name] or None for name, keyword in keywords.items()}, **paging)

    return fetch


def filtered_list_view(
    *,
    form_class: type[forms.Form],
    total: Callable[[Sequence[int]], Estimate],
    fetch: Callable[..., Page[Any]],
    template: str,
) -> Callable[[HttpRequest], HttpResponse]:
    """The view of a namespace's list, a viewer's page (read from a replica when one lags): the full page,
    or only its rows for an htmx "load more".

    `fetch(namespace, cleaned_filters, oldest_first=..., cursor=..., limit=...)` returns one page;
    `total(namespace ids)` estimates how many rows the whole list holds.
    """

    def view(request: HttpRequest) -> HttpResponse:
        namespace, form, context = filtered_list_start(request, form_class)
        status = 200
        if namespace is not None and form.is_valid():
            cursor = request.GET.get("cursor") or None
            try:
                page = fetch(
                    namespace,
                    form.cleaned_data,
                    oldest_first=form.cleaned_data["order"] == OLDEST,
                    cursor=cursor,
                    limit=PAGE_SIZE,
                )
            except ServiceError as exc:
                form.add_error(None, exc.message)
                status = exc.status
            else:
                context["items"] = page.items
                context["first_page"] = cursor is None
                filters = {k: v for k, v in form.cleaned_data.items() if v}
                if cursor is None and page.matching is not None and set(filters) - {"order"}:
                    # How many match the filters: exact up to a cap, then the planner's estimate.
                    context["matching"] = estimate(page.matching)
                params = {"ns": namespace.slug, **filters}
                if page.next_cursor:
                    context["next_url"] = "?" + urlencode({**params, "cursor": page.next_cursor})
                context.update(sort_links(params))
        elif namespace is not None:
            status = 400
        if namespace is not None:
            context["total"] = total([namespace.pk])
        return page_or_more(request, template, context, status=status)

    return role_required("viewer")(lag_tolerant_view(view))
