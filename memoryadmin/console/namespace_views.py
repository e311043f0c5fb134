"""Namespaces (settings) and their API keys, with each key's access log."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from memoryadmin.console import queries
from memoryadmin.console.access import actor_of, found_or_404, role_required
from memoryadmin.console.forms import (
    ApiKeyForm,
    NamespaceCreateForm,
    NamespaceSettingsForm,
    add_service_error,
    optional_reason,
)
from memoryadmin.console.scope import slug_or_404, visible_namespaces
from memoryadmin.core.errors import ServiceError
from memoryadmin.extraction.config import validate_extraction_config
from memoryadmin.governance.privacy_links import api_key_revoke_with_links
from memoryadmin.governance.queries import privacy_links_made_by
from memoryadmin.tenancy.access_log import access_summary
from memoryadmin.tenancy.queries import api_key_in, api_keys_of
from memoryadmin.tenancy.services import api_key_create, namespace_create, namespace_update
from memoryadmin.webhooks.queries import failing_webhooks

if TYPE_CHECKING:
    from memoryadmin.tenancy.models import ApiKey, Namespace

PRIVACY_LINKS_SHOWN = 50


def _namespaces_page(request: HttpRequest, form: NamespaceCreateForm, status: int = 200) -> HttpResponse:
    figures = queries.namespace_figures(visible_namespaces(request))
    return render(request, "console/namespaces.html", {"figures": figures, "create_form": form}, status=status)


@role_required("viewer")
def namespaces(request: HttpRequest) -> HttpResponse:
    return _namespaces_page(request, NamespaceCreateForm())


@require_POST
@role_required("admin")
def namespace_new(request: HttpRequest) -> HttpResponse:
    form = NamespaceCreateForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            ns = namespace_create(
                slug=data["slug"], name=data["name"], review_required=data["review_required"], actor=actor_of(request)
            )
        except ServiceError as exc:
            add_service_error(form, exc, "slug")
        else:
            messages.success(request, f"Namespace {ns.slug} created. Give its apps an API key below.")
            return redirect("console:namespace", ns.slug)
    return _namespaces_page(request, form, status=422)


def _settings_initial(namespace: Namespace) -> dict[str, object]:
    return {
        "name": namespace.name,
        "review_required": namespace.review_required,
        "extraction_strategy": namespace.extraction_strategy,
        "extraction_config": json.dumps(namespace.extraction_config, indent=2) if namespace.extraction_config else "",
        "working_memory_ttl_seconds": namespace.working_memory_ttl_seconds,
    }


def _namespace_context(namespace: Namespace, **extra: object) -> dict[str, object]:
    return {
        "namespace": namespace,
        "keys": api_keys_of(namespace),
        "key_form": ApiKeyForm(),
        "failing_webhooks": failing_webhooks(namespace),
        **extra,
    }


@role_required("viewer")
def namespace(request: HttpRequest, slug: str) -> HttpResponse:
    ns = slug_or_404(request, slug)
    form = NamespaceSettingsForm(initial=_settings_initial(ns))
    return render(request, "console/namespace.html", _namespace_context(ns, form=form))


@require_POST
@role_required("admin")
def namespace_settings(request: HttpRequest, slug: str) -> HttpResponse:
    ns = slug_or_404(request, slug)
    form = NamespaceSettingsForm(request.POST)
    status = 200
    if form.is_valid():
        data = form.cleaned_data
        try:
            config = validate_extraction_config(data["extraction_strategy"], data["extraction_config"])
            ns = namespace_update(
                namespace=ns,
                actor=actor_of(request),
                name=data["name"],
                review_required=data["review_required"],
                extraction_strategy=data["extraction_strategy"],
                extraction_config=config,
                working_memory_ttl_seconds=data["working_memory_ttl_seconds"],
            )
        except ServiceError as exc:
            add_service_error(form, exc)
            status = 422
        else:
            if not request.htmx:
                messages.success(request, "Settings saved.")
                return redirect("console:namespace", ns.slug)
            form = NamespaceSettingsForm(initial=_settings_initial(ns))
            return render(request, "console/namespace.html#settings", {"namespace": ns, "form": form, "saved": True})
    else:
        status = 422
    template = "console/namespace.html#settings" if request.htmx else "console/namespace.html"
    return render(request, template, _namespace_context(ns, form=form), status=status)


@require_POST
@role_required("admin")
def api_key_new(request: HttpRequest, slug: str) -> HttpResponse:
    ns = slug_or_404(request, slug)
    form = ApiKeyForm(request.POST)
    secret = None
    status = 200
    if form.is_valid():
        try:
            _key, secret = api_key_create(
                namespace=ns,
                name=form.cleaned_data["name"],
                scopes=form.cleaned_data["scopes"],
                actor=actor_of(request),
            )
        except ServiceError as exc:
            form.add_error(None, exc.message)
            status = 422
        else:
            form = ApiKeyForm()
    else:
        status = 422
    # The secret is shown in this one response and nowhere else, so even without
    # JavaScript the answer is the page itself, not a redirect.
    template = "console/namespace.html#keys" if request.htmx else "console/namespace.html"
    context = _namespace_context(ns, key_form=form, secret=secret)
    if not request.htmx:
        context["form"] = NamespaceSettingsForm(initial=_settings_initial(ns))
    return render(request, template, context, status=status)


def _key_or_404(request: HttpRequest, slug: str, key_id: int) -> tuple[Namespace, ApiKey]:
    ns = slug_or_404(request, slug)
    return ns, found_or_404(api_key_in(ns, key_id), "key")


@role_required("viewer")
def api_key(request: HttpRequest, slug: str, key_id: int) -> HttpResponse:
    ns, key = _key_or_404(request, slug, key_id)
    summary = access_summary(key_hash=key.key_hash)
    context = {
        "namespace": ns,
        "key": key,
        "access": summary,
        "made_links": privacy_links_made_by(key=key, limit=PRIVACY_LINKS_SHOWN),
        "now": timezone.now(),
    }
    return render(request, "console/api_key.html", context)


@require_POST
@role_required("admin")
def api_key_revoke_view(request: HttpRequest, slug: str, key_id: int) -> HttpResponse:
    ns, key = _key_or_404(request, slug, key_id)
    api_key_revoke_with_links(key=key, actor=actor_of(request), reason=optional_reason(request.POST))
    if not request.htmx:
        messages.success(request, f"Key {key.prefix}… revoked.")
        return redirect("console:namespace", ns.slug)
    return render(request, "console/namespace.html#keys", _namespace_context(ns))
