"""Governance pages of the console: forgetting policy with a dry-run preview, snapshots, erasures.

Rights are checked here, per view: viewers see, operators preview and export,
admins save policies, run them, restore snapshots and retry erasures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import orjson
from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from memoryadmin.console.access import actor_of, found_or_404, role_required
from memoryadmin.console.forms import SubjectLookupForm
from memoryadmin.console.listing import page_or_fragment
from memoryadmin.console.scope import slug_or_404, visible_and_chosen, visible_namespaces
from memoryadmin.core.errors import ServiceError
from memoryadmin.core.pagination import InvalidCursor
from memoryadmin.governance import queries
from memoryadmin.governance.enums import ErasureStatus, JobStatus
from memoryadmin.governance.erasure import erasure_receipt as receipt_shown
from memoryadmin.governance.erasure import erasure_retry as erasure_retry_service
from memoryadmin.governance.erasure import receipt_verify
from memoryadmin.governance.forgetting import (
    Policy,
    forgetting_dry_run,
    forgetting_policy_save,
    forgetting_run_is_active,
    forgetting_run_queue,
    policy_clean,
)
from memoryadmin.governance.restore_jobs import (
    restore_job_apply,
    restore_job_create,
    restore_job_discard,
    restore_progress,
)
from memoryadmin.governance.snapshots import snapshot_export_stream
from memoryadmin.memories.enums import MemoryType

if TYPE_CHECKING:
    from memoryadmin.governance.models import ErasureRequest, SnapshotRestore
    from memoryadmin.tenancy.models import Namespace


def _required_namespace(request: HttpRequest) -> Namespace:
    return slug_or_404(request, request.POST.get("ns") or request.GET.get("ns", ""))


# --- forgetting ---------------------------------------------------------------------------------


def _days_field(label: str, help_text: str) -> forms.FloatField:
    """One of a policy's ages, in days: left empty, it does not limit."""
    return forms.FloatField(required=False, min_value=0, max_value=1_000_000, label=label, help_text=help_text)


class PolicyForm(forms.Form):
    enabled = forms.BooleanField(required=False, label="Run on schedule")
    max_age_days = _days_field(
        "Older than (days)", "With “Unused for”, a memory must be both this old and unused that long."
    )
    max_inactive_days = _days_field("Unused for (days)", "Days since a search or a read last returned it.")
    hard_age_multiplier = forms.FloatField(
        min_value=1,
        max_value=1_000_000,
        initial=12.0,
        label="Hard age (× max age, used or not)",
        help_text=(
            "A memory older than this many times “Older than” goes even if it is still used: with 30 days "
            "and 12, after 360 days. Used only when both fields above are set."
        ),
    )
    budget = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=2**31 - 1,
        label="Keep at most (freshest)",
        help_text="Beyond this many memories, the least fresh go (recently used or made counts as fresh; pinned stay).",
    )
    memory_type_allowlist = forms.MultipleChoiceField(
        required=False,
        choices=MemoryType.choices,
        widget=forms.CheckboxSelectMultiple,
        label="Only these types (none ticked: all)",
    )
    interval_hours = forms.IntegerField(min_value=1, max_value=24 * 366, initial=24, label="Every (hours)")

    def policy(self) -> Policy:
        data = self.cleaned_data
        return policy_clean(
            max_age_days=data.get("max_age_days"),
            max_inactive_days=data.get("max_inactive_days"),
            budget=data.get("budget"),
            memory_type_allowlist=data.get("memory_type_allowlist") or None,
            hard_age_multiplier=data.get("hard_age_multiplier") or 12.0,
        )

    def valid_policy(self) -> Policy | None:
        """The policy typed, once the form and the policy's own rules accept it; else None, and why is
        on the form."""
        if not self.is_valid():
            return None
        try:
            return self.policy()
        except ServiceError as exc:
            self.add_error(None, exc.message)
            return None


def _policy_form(namespace: Namespace) -> PolicyForm:
    stored = queries.forgetting_policy_of(namespace)
    return PolicyForm(
        initial={
            "enabled": stored.enabled,
            "max_age_days": stored.max_age_days,
            "max_inactive_days": stored.max_inactive_days,
            "hard_age_multiplier": stored.hard_age_multiplier,
            "budget": stored.budget,
            "memory_type_allowlist": stored.memory_type_allowlist,
            "interval_hours": stored.interval_hours,
        }
    )


def _forgetting_context(namespace: Namespace, form: PolicyForm | None = None) -> dict[str, Any]:
    stored = queries.forgetting_policy_of(namespace)
    runs = list(queries.forgetting_runs(namespace))
    return {
        "namespace": namespace,
        "form": form or _policy_form(namespace),
        "stored": stored,
        "runs": runs,
        "runs_active": any(forgetting_run_is_active(run) for run in runs),
    }


@role_required("viewer")
def forgetting(request: HttpRequest) -> HttpResponse:
    namespaces, namespace = visible_and_chosen(request)
    context: dict[str, Any] = {"namespaces": namespaces, "namespace": namespace}
    if namespace is not None:
        context.update(_forgetting_context(namespace))
    # The runs table polls itself while a run is pending or running.
    return page_or_fragment(
        request,
        "console/governance/forgetting.html",
        "console/governance/forgetting.html#runs",
        context,
        when=namespace is not None,
    )


def _posted_policy(request: HttpRequest) -> tuple[Namespace, PolicyForm, Policy | None]:
    """The namespace a policy was posted for, the form, and the policy when the form is valid."""
    namespace = _required_namespace(request)
    form = PolicyForm(request.POST)
    return namespace, form, form.valid_policy()


@require_POST
@role_required("operator")
def forgetting_preview(request: HttpRequest) -> HttpResponse:
    """The dry run: how many, which and why, before anything is saved or run."""
    namespace, form, policy = _posted_policy(request)
    context: dict[str, Any] = {"namespace": namespace, "form": form}
    if policy is not None:
        context["preview"] = forgetting_dry_run(namespace=namespace, policy=policy)
    status = 200 if policy is not None else 422
    template = "console/governance/forgetting.html#preview" if request.htmx else "console/governance/forgetting.html"
    if not request.htmx:
        context = {**_forgetting_context(namespace, form), **context, "namespaces": visible_namespaces(request)}
    return render(request, template, context, status=status)


@require_POST
@role_required("admin")
def forgetting_save(request: HttpRequest) -> HttpResponse:
    namespace, form, policy = _posted_policy(request)
    if policy is not None:
        try:
            forgetting_policy_save(
                namespace=namespace,
                actor=actor_of(request),
                enabled=form.cleaned_data["enabled"],
                policy=policy,
                interval_hours=form.cleaned_data["interval_hours"],
            )
        except ServiceError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, "Policy saved.")
            return redirect(f"{reverse('console:forgetting')}?ns={namespace.slug}")
    context = {**_forgetting_context(namespace, form), "namespaces": visible_namespaces(request)}
    return render(request, "console/governance/forgetting.html", context, status=422)


@require_POST
@role_required("admin")
def forgetting_run_now(request: HttpRequest) -> HttpResponse:
    """Run the previewed policy for real, in a worker; its result joins the history."""
    namespace, form, policy = _posted_policy(request)
    if policy is not None:
        if policy.is_empty:
            form.add_error(None, "Set an age, an inactivity limit or a budget first.")
        elif request.POST.get("confirm_run") != "yes":
            form.add_error(None, "Tick the confirmation box to run the policy now.")
        else:
            forgetting_run_queue(namespace=namespace, policy=policy, actor=actor_of(request))
            messages.success(request, "Forgetting started; its progress is shown in the runs below.")
            return redirect(f"{reverse('console:forgetting')}?ns={namespace.slug}")
    # Refused: the page again with what was typed, so nothing has to be entered twice.
    context = {**_forgetting_context(namespace, form), "namespaces": visible_namespaces(request), "refused_run": True}
    return render(request, "console/governance/forgetting.html", context, status=422)


# --- snapshots ----------------------------------------------------------------------------------


class UploadForm(forms.Form):
    file = forms.FileField(label="Snapshot file (.jsonl)")


@role_required("viewer")
def snapshots(request: HttpRequest) -> HttpResponse:
    namespaces, namespace = visible_and_chosen(request)
    context: dict[str, Any] = {"namespaces": namespaces, "namespace": namespace, "form": UploadForm()}
    if namespace is not None:
        context["restores"] = list(queries.restores(namespace))
    return render(request, "console/governance/snapshots.html", context)


@role_required("operator")
def snapshot_export(request: HttpRequest) -> HttpResponse:
    namespace = _required_namespace(request)
    stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
    lines = snapshot_export_stream(namespace=namespace, actor=actor_of(request))
    response = StreamingHttpResponse(lines, content_type="application/x-ndjson")
    response["Content-Disposition"] = f'attachment; filename="{namespace.slug}-{stamp}.jsonl"'
    return response


@require_POST
@role_required("admin")
def snapshot_upload(request: HttpRequest) -> HttpResponse:
    namespace = _required_namespace(request)
    form = UploadForm(request.POST, request.FILES)
    if form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            job = restore_job_create(
                namespace=namespace, chunks=upload.chunks(), filename=upload.name or "", actor=actor_of(request)
            )
        except ServiceError as exc:
            form.add_error("file", exc.message)
        else:
            return redirect("console:snapshot_restore", restore_id=job.pk)
    context = {
        "namespaces": visible_namespaces(request),
        "namespace": namespace,
        "form": form,
        "restores": list(queries.restores(namespace)),
    }
    return render(request, "console/governance/snapshots.html", context, status=422)


def _restore_or_404(restore_id: Any) -> SnapshotRestore:
    return found_or_404(queries.restore_get(restore_id), "restore")


@role_required("viewer")
def snapshot_restore(request: HttpRequest, restore_id: Any) -> HttpResponse:
    job = _restore_or_404(restore_id)
    done = restore_progress(job)
    context = {
        "job": job,
        "namespace": job.namespace,
        "done": done,
        "percent": min(100, round(100 * done / job.records_total)) if job.records_total else None,
        "active": job.status in (JobStatus.PENDING, JobStatus.RUNNING),
        "by_type": sorted((job.counts or {}).get("by_type", {}).items()),
        "totals": (job.counts or {}).get("totals", {}),
    }
    return page_or_fragment(
        request, "console/governance/restore.html", "console/governance/restore.html#status", context
    )


@require_POST
@role_required("admin")
def snapshot_restore_apply(request: HttpRequest, restore_id: Any) -> HttpResponse:
    job = _restore_or_404(restore_id)
    if request.POST.get("confirm_apply") != "yes":
        messages.error(request, "Tick the confirmation box to apply the restore; nothing was written.")
        return redirect("console:snapshot_restore", restore_id=job.pk)
    try:
        restore_job_apply(job=job, actor=actor_of(request))
    except ServiceError as exc:
        messages.error(request, exc.message)
    return redirect("console:snapshot_restore", restore_id=job.pk)


@require_POST
@role_required("admin")
def snapshot_restore_discard(request: HttpRequest, restore_id: Any) -> HttpResponse:
    job = _restore_or_404(restore_id)
    restore_job_discard(job=job, actor=actor_of(request))
    messages.success(request, "The uploaded snapshot was discarded.")
    return redirect(f"{reverse('console:snapshots')}?ns={job.namespace.slug}")


# --- erasures -----------------------------------------------------------------------------------


@role_required("viewer")
def erasures(request: HttpRequest) -> HttpResponse:
    namespaces, namespace = visible_and_chosen(request)
    context: dict[str, Any] = {"namespaces": namespaces, "namespace": namespace}
    user_id = request.GET.get("user", "").strip() or None
    if user_id is not None:
        lookup = SubjectLookupForm({"user": user_id})
        if not lookup.is_valid():
            message = f"{user_id!r} is not a user_id: " + "; ".join(lookup.errors["user"])
            return render(request, "console/invalid.html", {"message": message}, status=400)
        context["user_id"] = user_id
    if namespace is not None:
        try:
            page = queries.erasures_page(namespace=namespace, user_id=user_id, cursor=request.GET.get("cursor") or None)
        except InvalidCursor:
            return render(
                request, "console/invalid.html", {"message": "That page of erasures does not exist."}, status=400
            )
        context.update({"page": page, "first_page": not request.GET.get("cursor")})
        if page.next_cursor:
            params = {"ns": namespace.slug, "user": user_id or "", "cursor": page.next_cursor}
            context["next_url"] = f"{reverse('console:erasures')}?" + urlencode({k: v for k, v in params.items() if v})
    return page_or_fragment(
        request,
        "console/governance/erasures.html",
        "console/governance/erasures.html#rows",
        context,
        when=namespace is not None and bool(request.GET.get("cursor")),
    )


def _erasure_or_404(erasure_id: Any) -> ErasureRequest:
    return found_or_404(queries.erasure_get(erasure_id), "erasure")


@role_required("viewer")
def erasure(request: HttpRequest, erasure_id: Any) -> HttpResponse:
    item = _erasure_or_404(erasure_id)
    context = {
        "erasure": item,
        "namespace": item.namespace,
        "active": item.status in (ErasureStatus.PENDING, ErasureStatus.RUNNING),
        "verified": receipt_verify(item.receipt) if item.receipt else None,
        "receipt_json": orjson.dumps(receipt_shown(item), option=orjson.OPT_INDENT_2).decode() if item.receipt else "",
    }
    return page_or_fragment(
        request, "console/governance/erasure.html", "console/governance/erasure.html#status", context
    )


@role_required("viewer")
def erasure_receipt(request: HttpRequest, erasure_id: Any) -> HttpResponse:
    item = _erasure_or_404(erasure_id)
    if not item.receipt:
        raise Http404("no receipt yet")
    response = HttpResponse(
        orjson.dumps(receipt_shown(item), option=orjson.OPT_INDENT_2), content_type="application/json; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="erasure-receipt-{item.pk}.json"'
    return response


@require_POST
@role_required("admin")
def erasure_retry(request: HttpRequest, erasure_id: Any) -> HttpResponse:
    item = _erasure_or_404(erasure_id)
    try:
        erasure_retry_service(erasure=item, actor=actor_of(request))
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "The erasure was queued again.")
    return redirect("console:erasure", erasure_id=item.pk)
