"""The audit log: filters, keyset pages, and the state of the hash chain."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.utils import timezone

from memoryadmin.audit.checkpoints import CheckpointInvalid, configured_anchors
from memoryadmin.audit.export import audit_export_stream
from memoryadmin.audit.queries import AuditFilter, audit_page, recorded_actions
from memoryadmin.audit.services import verify_audit_chain
from memoryadmin.console.access import actor_of, bad_request, rights_of, role_required
from memoryadmin.console.forms import AuditFilterForm
from memoryadmin.console.listing import page_or_fragment
from memoryadmin.console.scope import named_namespace, visible_namespaces
from memoryadmin.core.replicas import lag_tolerant_view

if TYPE_CHECKING:
    from memoryadmin.tenancy.models import Namespace

PAGE_SIZE = 50


def _filter_of(request: HttpRequest, form: AuditFilterForm, namespace: Namespace | None) -> AuditFilter:
    data = form.cleaned_data
    target_type, _, target_id = data["target"].partition(":")
    return AuditFilter(
        namespace_id=namespace.pk if namespace else None,
        # A namespace-limited operator reads the events of their namespaces only.
        namespace_ids=rights_of(request).namespace_ids,
        actor=data["actor"] or None,
        action=data["action"] or None,
        target_type=target_type or None,
        target_id=target_id or None,
    )


def _query(form: AuditFilterForm, namespace: Namespace | None, **extra: Any) -> str:
    params = {k: v for k, v in {"ns": namespace.slug if namespace else "", **form.cleaned_data}.items() if v}
    return urlencode({**params, **extra})


@role_required("viewer")
@lag_tolerant_view
def audit(request: HttpRequest) -> HttpResponse:
    namespaces = visible_namespaces(request)
    namespace = named_namespace(request, namespaces)
    form = AuditFilterForm(request.GET, actions=recorded_actions())
    context: dict[str, Any] = {"namespaces": namespaces, "namespace": namespace, "form": form, "events": []}
    status = 200
    if form.is_valid():
        try:
            before = int(request.GET.get("before", "0") or 0)
        except ValueError:
            before = 0
        events, next_before = audit_page(
            _filter_of(request, form, namespace), before_id=before or None, limit=PAGE_SIZE
        )
        context["events"] = events
        context["filtered"] = any(form.cleaned_data.values()) or namespace is not None
        context["export_query"] = _query(form, namespace)
        if next_before:
            context["more_url"] = "?" + _query(form, namespace, before=next_before)
    else:
        status = 400
    return page_or_fragment(
        request,
        "console/audit.html",
        "console/_audit_table.html#rows",
        context,
        when=bool(request.GET.get("before")),
        status=status,
    )


@role_required("operator")
def audit_export(request: HttpRequest) -> HttpResponse:
    """The events the log's filters select, as CSV, newest first; the export is itself recorded."""
    namespaces = visible_namespaces(request)
    namespace = named_namespace(request, namespaces)
    form = AuditFilterForm(request.GET, actions=recorded_actions())
    if not form.is_valid():
        return bad_request(request, form)
    lines = audit_export_stream(
        events=_filter_of(request, form, namespace),
        actor=actor_of(request),
        namespace_slugs={ns.pk: ns.slug for ns in namespaces},
    )
    stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    scope = namespace.slug if namespace else "all"
    response["Content-Disposition"] = f'attachment; filename="audit-{scope}-{stamp}.csv"'
    return response


@role_required("viewer")
def audit_chain(request: HttpRequest) -> HttpResponse:
    """Walks the chain now (every event's link and digest); asked for on demand since it reads every event."""
    namespaces = visible_namespaces(request)
    namespace = named_namespace(request, namespaces)
    # The checkpoints written outside the database, so a chain cut short or emptied shows too.
    try:
        anchors, anchor_error = configured_anchors(), ""
    except CheckpointInvalid as exc:
        anchors, anchor_error = [], str(exc)
    if namespace is None and rights_of(request).limited:
        namespace = namespaces[0] if namespaces else None
    # Every namespace's chain begins with its creation: one emptied shows even without checkpoints.
    founded = [ns.pk for ns in namespaces]
    if namespace is None:
        report = verify_audit_chain(anchors=anchors, founded=founded)
    else:
        report = verify_audit_chain(namespace.pk, all_chains=False, anchors=anchors, founded=founded)
    context = {"report": report, "namespace": namespace, "checked": True, "anchor_error": anchor_error}
    context["checkpoints"] = bool(settings.AUDIT_CHECKPOINT_DIR)
    return page_or_fragment(request, "console/audit_chain.html", "console/audit_chain.html#chain", context)
