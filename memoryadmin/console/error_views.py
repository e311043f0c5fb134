"""The pages of a refusal or a failure: in the console's frame, with a way back.

The API answers its own errors in JSON (`api.middleware`); the privacy page's visitors
are not operators, so they get the privacy page's frame, not the console's navigation.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template import loader

from memoryadmin.console.rights import rights_of

PRIVACY_PREFIX = "/privacy/"


def _page(
    request: HttpRequest,
    status: int,
    title: str,
    message: str,
    *,
    form_expired: bool = False,
    in_page: str | None = None,
) -> HttpResponse:
    if getattr(request, "htmx", False):
        # An action inside a page: the console shows the words as a message (console.js).
        return HttpResponse(in_page or message, status=status, content_type="text/plain; charset=utf-8")
    if request.path.startswith(PRIVACY_PREFIX):
        problem = {"form_expired": True} if form_expired else {"missing": True}
        return render(request, "privacy/link_problem.html", problem, status=status)
    user = getattr(request, "user", None)
    signed_in = bool(user and user.is_authenticated)
    if signed_in:
        rights_of(request)  # the frame's "who" reads the role
    context = {"title": title, "message": message, "signed_in": signed_in, "status": status}
    return render(request, "console/error.html", context, status=status)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _page(
        request,
        404,
        "Not found",
        "There is nothing at this address: it may have been deleted or mistyped.",
        # A row or card acted on that was deleted elsewhere since the page was shown.
        in_page="This no longer exists: it may have been deleted meanwhile. Reload the page to see what is left.",
    )


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _page(request, 403, "Not allowed", "Your role does not allow this page or action.")


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form posted without its token (an old tab, cookies cleared): say how to go on."""
    return _page(
        request,
        403,
        "Form expired",
        "This form was opened too long ago or its cookie is gone, so it was not sent. "
        "Go back, reload the page and submit it again.",
        form_expired=True,
    )


def server_error(request: HttpRequest) -> HttpResponse:
    """Rendered without the request's context: whatever failed must not fail this page too."""
    html = loader.get_template("500.html").render({})
    return HttpResponse(html, status=500)
