"""The data subject's own pages, reached through a signed link: no account, no JavaScript.

Every view starts by opening the link; a tampered, expired or withdrawn link gets
a plain page that says so and shows nothing else. Each page needs the right it
uses (see `governance.privacy_links`): a link made by a key without `erase`
cannot erase, one made by a key without `read` shows nothing. Every use is
audited.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any

import orjson
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from memoryadmin.core.pagination import InvalidCursor
from memoryadmin.governance.enums import ErasureStatus, PrivacyRight
from memoryadmin.governance.erasure import erasure_receipt, erasure_request
from memoryadmin.governance.privacy_links import (
    LinkExpired,
    LinkInvalid,
    LinkRevoked,
    PrivacySubject,
    privacy_link_open,
    privacy_link_use,
)
from memoryadmin.governance.queries import erasures_page, subject_erasure, subject_memories
from memoryadmin.governance.snapshots import snapshot_export_stream
from memoryadmin.memories.queries import subject_memory_get
from memoryadmin.memories.services import memory_forget

if TYPE_CHECKING:
    from memoryadmin.governance.models import ErasureRequest

CONFIRM_WORD = "erase"
PAGE_SIZE = 50


def with_subject(page: str, *needs: str) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """Open the link, check it allows one of `needs` (any, when none are named), record the use."""

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapped(request: HttpRequest, token: str, *args: Any, **kwargs: Any) -> HttpResponse:
            try:
                subject = privacy_link_open(token)
            except LinkExpired:
                response = render(request, "privacy/link_problem.html", {"expired": True}, status=410)
            except LinkRevoked:
                response = render(request, "privacy/link_problem.html", {"revoked": True}, status=410)
            except LinkInvalid:
                response = render(request, "privacy/link_problem.html", {"expired": False}, status=403)
            else:
                if needs and not any(subject.allows(right) for right in needs):
                    response = render(
                        request, "privacy/link_problem.html", {"subject": subject, "not_allowed": True}, status=403
                    )
                else:
                    privacy_link_use(subject=subject, page=page)
                    response = view(request, subject, *args, **kwargs)
            # The page is about one person: no caching anywhere, and the link (in the URL) is
            # never sent as a referrer to another site. "no-referrer" would go too far: browsers
            # then send `Origin: null` with the page's own forms, which CSRF rightly refuses.
            response["Cache-Control"] = "no-store"
            response["Referrer-Policy"] = "same-origin"
            return response

        return wrapped

    return decorator


@require_GET
@with_subject("home")
def home(request: HttpRequest, subject: PrivacySubject) -> HttpResponse:
    recent = erasures_page(namespace=subject.namespace, user_id=subject.user_id, limit=5).items
    context: dict[str, Any] = {
        "subject": subject,
        "can_read": subject.allows(PrivacyRight.READ),
        "can_forget": subject.allows(PrivacyRight.FORGET),
        "can_erase": subject.allows(PrivacyRight.ERASE),
        # One read gives both: a new request is refused while one is open, so an open one is among the newest.
        "open_erasure": next((e for e in recent if e.status in (ErasureStatus.PENDING, ErasureStatus.RUNNING)), None),
        "past_erasures": [e for e in recent if e.receipt],
        "forgotten": request.GET.get("forgotten") == "1",
    }
    if context["can_read"]:
        try:
            context["page"] = subject_memories(
                namespace=subject.namespace,
                user_id=subject.user_id,
                cursor=request.GET.get("cursor"),
                limit=PAGE_SIZE,
            )
        except InvalidCursor:
            return render(request, "privacy/link_problem.html", {"subject": subject, "bad_page": True}, status=400)
    return render(request, "privacy/home.html", context)


@require_GET
@with_subject("download", PrivacyRight.READ)
def download(request: HttpRequest, subject: PrivacySubject) -> HttpResponse:
    lines = snapshot_export_stream(namespace=subject.namespace, user_id=subject.user_id)
    response = StreamingHttpResponse(lines, content_type="application/x-ndjson")
    response["Content-Disposition"] = 'attachment; filename="my-data.jsonl"'
    return response


@require_POST
@with_subject("forget", PrivacyRight.FORGET)
def forget(request: HttpRequest, subject: PrivacySubject, memory_id: uuid.UUID) -> HttpResponse:
    """The person's "Forget this": first the question, with the memory it is about (the page has no script to
    ask it), then, confirmed, the memory forgotten for good."""
    memory = subject_memory_get(subject.namespace, subject.user_id, memory_id)
    if memory is not None and request.POST.get("confirm") != "yes":
        return render(request, "privacy/forget.html", {"subject": subject, "memory": memory})
    if memory is not None:
        # The person's own request outranks an operator's pin.
        memory_forget(memory=memory, actor=subject.actor, reason="forgotten by the person", force=True)
    return redirect(reverse("privacy:home", args=[subject.token]) + "?forgotten=1")


@require_http_methods(["GET", "POST"])
@with_subject("erase", PrivacyRight.ERASE)
def erase(request: HttpRequest, subject: PrivacySubject) -> HttpResponse:
    error = ""
    if request.method == "POST":
        if request.POST.get("confirm", "").strip().lower() == CONFIRM_WORD:
            erasure = erasure_request(
                namespace=subject.namespace,
                user_id=subject.user_id,
                actor=subject.actor,
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
@with_subject("receipt", PrivacyRight.READ, PrivacyRight.ERASE)
def receipt(request: HttpRequest, subject: PrivacySubject, erasure_id: uuid.UUID) -> HttpResponse:
    erasure = _erasure_of(subject, erasure_id)
    if erasure is None:
        return render(request, "privacy/link_problem.html", {"expired": False, "missing": True}, status=404)
    return render(
        request,
        "privacy/receipt.html",
        {
            "subject": subject,
            "erasure": erasure,
            "deleted": _in_words(erasure.counts),
            "downstream": (erasure_receipt(erasure) or {}).get("downstream", []),
        },
    )


# What an erasure counts, in the words of the person it was about: stores that are parts of one thing
# (a memory's search entry, its versions) are told with it; what was not theirs to see is not listed.
_WORDS = {
    "sessions": "Conversations",
    "messages": "Messages",
    "memories": "Things remembered about you",
    "revisions": "Earlier versions of those",
    "evidence": "Links from what was remembered to what you said",
    "pins": "Marks to keep something remembered",
    "tombstones": "Notes of what you asked us to forget",
    "working_memory_keys": "Notes kept during a conversation",
    "audit_reasons": "Remarks about you in our records (blanked)",
}


def _in_words(counts: dict[str, int] | None) -> list[tuple[str, int]]:
    return [(words, (counts or {}).get(store, 0)) for store, words in _WORDS.items() if (counts or {}).get(store)]


def _erasure_of(subject: PrivacySubject, erasure_id: uuid.UUID) -> ErasureRequest | None:
    return subject_erasure(namespace=subject.namespace, user_id=subject.user_id, erasure_id=erasure_id)


@require_GET
@with_subject("receipt_download", PrivacyRight.READ, PrivacyRight.ERASE)
def receipt_download(request: HttpRequest, subject: PrivacySubject, erasure_id: uuid.UUID) -> HttpResponse:
    """The signed receipt as a file the person keeps (it verifies against the audit trail)."""
    erasure = _erasure_of(subject, erasure_id)
    if erasure is None or not erasure.receipt:
        return render(request, "privacy/link_problem.html", {"expired": False, "missing": True}, status=404)
    response = HttpResponse(
        orjson.dumps(erasure_receipt(erasure), option=orjson.OPT_INDENT_2),
        content_type="application/json; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="erasure-receipt-{erasure.pk}.json"'
    return response
