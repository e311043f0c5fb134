"""The audit log: filters, keyset pages, and the state of the hash chain."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.vary import vary_on_headers

from memoryadmin.audit.checkpoints import CheckpointInvalid, configured_anchors
from memoryadmin.audit.services import verify_audit_chain
from memoryadmin.console import queries
from memoryadmin.console.access import role_required
from memoryadmin.console.forms import AuditFilterForm
from memoryadmin.console.scope import all_namespaces, named_namespace

PAGE_SIZE = 50


@vary_on_headers("HX-Request")
@role_required("viewer")
def audit(request: HttpRequest) -> HttpResponse:
    namespaces = all_namespaces()
    namespace = named_namespace(request, namespaces)
    form = AuditFilterForm(request.GET)
    context: dict[str, Any] = {"namespaces": namespaces, "namespace": namespace, "form": form, "events": []}
    status = 200
    if form.is_valid():
        data = form.cleaned_data
        target_type, _, target_id = data["target"].partition(":")
        try:
            before = int(request.GET.get("before", "0") or 0)
        except ValueError:
            before = 0
        events, next_before = queries.audit_page(
            namespace=namespace,
            actor=data["actor"] or None,
            action=data["action"] or None,
            target_type=target_type or None,
            target_id=target_id or None,
            before_id=before or None,
            limit=PAGE_SIZE,
        )
        context["events"] = events
        context["filtered"] = any(data.values()) or namespace is not None
        if next_before:
            params = {k: v for k, v in {"ns": namespace.slug if namespace else "", **data}.items() if v}
            context["more_url"] = "?" + urlencode({**params, "before": next_before})
    else:
        status = 400
    if request.htmx and request.GET.get("before") and not request.htmx.history_restore_request:
        return render(request, "console/_audit_table.html#rows", context, status=status)
    return render(request, "console/audit.html", context, status=status)


@role_required("viewer")
def audit_chain(request: HttpRequest) -> HttpResponse:
    """Walks the chain now (every event's link and digest); asked for on demand since it reads every event."""
    namespaces = all_namespaces()
    namespace = named_namespace(request, namespaces)
    # The checkpoints written outside the database, so a chain cut short or emptied shows too.
    try:
        anchors, anchor_error = configured_anchors(), ""
    except CheckpointInvalid as exc:
        anchors, anchor_error = [], str(exc)
    if namespace is None:
        report = verify_audit_chain(anchors=anchors)
    else:
        report = verify_audit_chain(namespace.pk, all_chains=False, anchors=anchors)
    template = "console/audit_chain.html#chain" if request.htmx else "console/audit_chain.html"
    context = {"report": report, "namespace": namespace, "checked": True, "anchor_error": anchor_error}
    context["checkpoints"] = bool(settings.AUDIT_CHECKPOINT_DIR)
    return render(request, template, context)
