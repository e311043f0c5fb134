"""Who may do what in the console, decided in the view (a client can ask for any URL or partial)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.forms import Form
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers

from memoryadmin.audit.services import Actor
from memoryadmin.console.error_views import not_found
from memoryadmin.console.rights import Rights, rights_of
from memoryadmin.console.wall import UnknownParameter, namespaces_named
from memoryadmin.tenancy.queries import namespace_id_of
from memoryadmin.tenancy.roles import ROLES

View = Callable[..., HttpResponse]

__all__ = [
    "Rights",
    "actor_of",
    "bad_request",
    "forbidden",
    "found_or_404",
    "not_found",
    "rights_of",
    "role_required",
]


def forbidden(request: HttpRequest, role: str) -> HttpResponse:
    message = f"This needs the {role} role; you are signed in as {rights_of(request).role or 'a user without a role'}."
    if getattr(request, "htmx", False):
        return HttpResponse(message, status=403, content_type="text/plain; charset=utf-8")
    return render(request, "console/forbidden.html", {"message": message}, status=403)


def role_required(role: str) -> Callable[[View], View]:
    """Sign-in plus at least `role`; anything less answers 403 before the view runs."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")

    def decorator(view: View) -> View:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            try:
                response = _refusal(request, role, kwargs)
                if response is None:
                    return view(request, *args, **kwargs)
            except Http404:
                # Answered here, not by Django: with DEBUG on, its technical page would say why
                # ("not in your namespaces", "no such memory"), and so which ids exist.
                response = not_found(request)
            # A refusal is told to htmx and to a browser differently, like the pages it stands for.
            patch_vary_headers(response, ("HX-Request",))
            return response

        # Read by the security tests' role matrix, so no view escapes it.
        wrapped.required_role = role  # type: ignore[attr-defined]
        return wrapped

    return decorator


def _refusal(request: HttpRequest, role: str, kwargs: dict[str, Any]) -> HttpResponse | None:
    """The answer to a request the view must not see, or None; Http404 for what is out of reach."""
    if not request.user.is_authenticated:
        if getattr(request, "htmx", False):
            return HttpResponse("Your session has ended; sign in again.", status=401)
        return redirect_to_login(request.get_full_path())
    if not rights_of(request).at_least(role):
        return forbidden(request, role)
    # The scope wall: whatever the view, an object or `ns` of a namespace the operator is
    # not limited to is a 404, before the view reads anything.
    if rights_of(request).limited:
        _wall(request, rights_of(request), kwargs)
    return None


def _wall(request: HttpRequest, rights: Rights, kwargs: dict[str, Any]) -> None:
    try:
        owners = namespaces_named(kwargs)
    except UnknownParameter:
        raise Http404("not in your namespaces") from None
    slug = request.POST.get("ns") or request.GET.get("ns")
    if slug:
        owners.append(namespace_id_of(slug=slug))
    # An object that does not exist (None) is left to the view, which answers 404 itself.
    if any(owner is not None and not rights.sees(owner) for owner in owners) or (slug and owners[-1] is None):
        raise Http404("not in your namespaces")


def found_or_404[T](found: T | None, what: str) -> T:
    """What a lookup found, or a 404 ("no such session") when it found nothing."""
    if found is None:
        raise Http404(f"no such {what}")
    return found


def actor_of(request: HttpRequest) -> Actor:
    return Actor.operator(request.user.get_username())


def bad_request(request: HttpRequest, form: Form) -> HttpResponse:
    """A refused form outside any page fragment: plain text for htmx (shown as a message), else a page."""
    message = "; ".join(
        (f"{field}: {error}" if field != "__all__" else str(error))
        for field, errors in form.errors.items()
        for error in errors
    )
    if getattr(request, "htmx", False):
        return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")
    return render(request, "console/invalid.html", {"message": message}, status=400)
