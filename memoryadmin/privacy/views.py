"""The data subject's own pages, reached through a signed link: no account, no JavaScript.

Every view starts by opening the link; a tampered or expired link gets a
plain page that says so and shows nothing else.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from memoryadmin.audit.services import Actor
from memoryadmin.core.fingerprints import subject_hmac
from memoryadmin.governance.erasure import erasure_request
from memoryadmin.governance.models import ErasureRequest
from memoryadmin.governance.privacy_links import LinkExpired, LinkInvalid, PrivacySubject, privacy_link_open
from memoryadmin.governance.queries import subject_memories, subject_open_erasure
from memoryadmin.governance.snapshots import snapshot_export_stream
from memoryadmin.memories.models import Memory
from memoryadmin.memories.services import memory_forget

CONFIRM_WORD = "erase"
PAGE_SIZE = 50


def with_subject(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @wraps(view)
    def wrapped(request: HttpRequest, token: str, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            subject = privacy_link_open(token)
        except LinkExpired:
            return render(request, "privacy/link_problem.html", {"expired": True}, status=410)
        except LinkInvalid:
            return render(request, "privacy/link_problem.html", {"expired": False}, status=403)
        response = view(request, subject, *args, **kwargs)
        # The page is about one person: no caching anywhere, and the link (in the URL) is
        # never sent as a referrer to another site. "no-referrer" would go too far: browsers
        # then send `Origin: null` with the page's own forms, which CSRF rightly refuses.
        response["Cache-Control"] = "no-store"
        response["Referrer-Policy"] = "same-origin"
        return response

    return wrapped


@require_GET
@with_subject
def home(request: HttpRequest, subject: PrivacySubject) -> HttpResponse:
    page = subject_memories(
        namespace=subject.namespace, user_id=subject.user_id, cursor=request.GET.get("cursor"), limit=PAGE_SIZE
    )
    return render(
        request,
        "privacy/home.html",
        {
            "subject": subject,
            "page": page,
            "open_erasure": subject_open_erasure(namespace=subject.namespace, user_id=subject.user_id),
            "forgotten": request.GET.get("forgotten") == "1",
        },
    )


@require_GET
@with_subject
def download(request: HttpRequest, subject: PrivacySubject) -> HttpResponse:
    lines = snapshot_export_stream(namespace=subject.namespace, user_id=subject.user_id)
    response = StreamingHttpResponse(lines, content_type="application/x-ndjson")
    response["Content-Disposition"] = 'attachment; filename="my-data.jsonl"'
    return response


@require_POST
@with_subject
def forget(request: HttpRequest, subject: PrivacySubject, memory_id: uuid.UUID) -> HttpResponse:
    memory = Memory.objects.filter(namespace=subject.namespace, user_id=subject.user_id, pk=memory_id).first()
    if memory is not None:
        # The person's own request outranks an operator's pin.
        memory_forget(memory=memory, actor=Actor.subject(), reason="forgotten by the person", force=True)
    return redirect(reverse("privacy:home", args=[subject.token]) + "?forgotten=1")


@require_http_methods(["GET", "POST"])
@with_subject
def erase(request: HttpRequest, subject: PrivacySubject) -> HttpResponse:
    error = ""
    if request.method == "POST":
        if request.POST.get("confirm", "").strip().lower() == CONFIRM_WORD:
            erasure = erasure_request(
                namespace=subject.namespace,
                user_id=subject.user_id,
                actor=Actor.subject(),
                reason="requested by the person",
            )
            return redirect("privacy:receipt", token=subject.token, erasure_id=erasure.pk)
        error = f'Type "{CONFIRM_WORD}" to confirm.'
    return render(
        request,
        "privacy/erase.html",
        {"subject": subject, "confirm_word": CONFIRM_WORD, "error": error},
        status=400 if error else 200,
    )


@require_GET
@with_subject
def receipt(request: HttpRequest, subject: PrivacySubject, erasure_id: uuid.UUID) -> HttpResponse:
    erasure = ErasureRequest.objects.filter(
        namespace=subject.namespace, pk=erasure_id, subject_hash=subject_hmac(subject.namespace.pk, subject.user_id)
    ).first()
    if erasure is None:
        return render(request, "privacy/link_problem.html", {"expired": False, "missing": True}, status=404)
    deleted = [(store.replace("_", " "), n) for store, n in sorted((erasure.counts or {}).items())]
    return render(request, "privacy/receipt.html", {"subject": subject, "erasure": erasure, "deleted": deleted})
