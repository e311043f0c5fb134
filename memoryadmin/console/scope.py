"""Which namespace a console page shows: named in the URL (?ns=slug), else the last one used."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.http import Http404, HttpRequest

from memoryadmin.console.access import rights_of
from memoryadmin.tenancy.queries import namespace_with_slug, namespaces_by_slug

if TYPE_CHECKING:
    from memoryadmin.tenancy.models import Namespace

SESSION_KEY = "console_namespace"


def visible_namespaces(request: HttpRequest) -> list[Namespace]:
    """Every namespace, or only those the signed-in operator is limited to."""
    return list(namespaces_by_slug(rights_of(request).namespace_ids))


def slug_or_404(request: HttpRequest, slug: str) -> Namespace:
    """The namespace of a slug in the URL, when there is one and the operator may see it; else a 404."""
    namespace = namespace_with_slug(slug)
    if namespace is None or not rights_of(request).sees(namespace.pk):
        raise Http404("not in your namespaces")
    return namespace


def chosen_namespace(request: HttpRequest, namespaces: list[Namespace]) -> Namespace | None:
    """The namespace of `?ns=`, or the one last chosen, or the first; None only when there are none.

    An unknown slug is a 404, like any unknown object.
    """
    by_slug = {ns.slug: ns for ns in namespaces}
    slug = request.GET.get("ns", "")
    if slug:
        if slug not in by_slug:
            raise Http404("no such namespace")
        if request.session.get(SESSION_KEY) != slug:
            # Written only on a change, so browsing one namespace never rewrites the session row.
            request.session[SESSION_KEY] = slug
        return by_slug[slug]
    remembered = request.session.get(SESSION_KEY)
    if remembered in by_slug:
        return by_slug[remembered]
    return namespaces[0] if namespaces else None


def visible_and_chosen(request: HttpRequest) -> tuple[list[Namespace], Namespace | None]:
    """The namespaces a page offers to choose from, and the one it shows (see `chosen_namespace`)."""
    namespaces = visible_namespaces(request)
    return namespaces, chosen_namespace(request, namespaces)


def named_namespace(request: HttpRequest, namespaces: list[Namespace]) -> Namespace | None:
    """The namespace of `?ns=`, or None for all of them (pages that show every namespace by default)."""
    slug = request.GET.get("ns", "")
    if not slug:
        return None
    found = next((ns for ns in namespaces if ns.slug == slug), None)
    if found is None:
        raise Http404("no such namespace")
    return found
