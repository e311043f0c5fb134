"""A namespace's webhook endpoints: add, pause, remove; their recent deliveries, redelivery, a test event."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from memoryadmin.console.access import actor_of, role_required
from memoryadmin.console.forms import WebhookForm, add_service_error
from memoryadmin.console.listing import PAGE_SIZE, page_or_fragment
from memoryadmin.console.scope import slug_or_404
from memoryadmin.core.errors import NotFound, ServiceError
from memoryadmin.core.pagination import InvalidCursor
from memoryadmin.webhooks.enums import EndpointStatus
from memoryadmin.webhooks.queries import deliveries_page, delivery_get, webhook_get, webhooks_of
from memoryadmin.webhooks.services import (
    delivery_redeliver,
    webhook_create,
    webhook_delete,
    webhook_send_test,
    webhook_update,
)

if TYPE_CHECKING:
    from memoryadmin.tenancy.models import Namespace
    from memoryadmin.webhooks.models import WebhookEndpoint


def _namespace(request: HttpRequest, slug: str) -> Namespace:
    return slug_or_404(request, slug)


def _endpoint(request: HttpRequest, slug: str, webhook_id: uuid.UUID) -> WebhookEndpoint:
    try:
        return webhook_get(_namespace(request, slug), webhook_id)
    except NotFound:
        raise Http404("no such webhook endpoint") from None


def _list_page(request: HttpRequest, namespace: Namespace, **extra: object) -> dict[str, object]:
    return {"namespace": namespace, "endpoints": webhooks_of(namespace), "form": WebhookForm(), **extra}


@role_required("viewer")
def webhooks(request: HttpRequest, slug: str) -> HttpResponse:
    return render(request, "console/webhooks.html", _list_page(request, _namespace(request, slug)))


@require_POST
@role_required("admin")
def webhook_new(request: HttpRequest, slug: str) -> HttpResponse:
    namespace = _namespace(request, slug)
    form = WebhookForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            endpoint = webhook_create(
                namespace=namespace,
                url=data["url"],
                events=data["events"],
                description=data["description"],
                actor=actor_of(request),
            )
        except ServiceError as exc:
            add_service_error(form, exc)
        else:
            # The secret is shown in this one answer and nowhere else.
            context = _list_page(request, namespace, secret=endpoint.secret, created=endpoint)
            template = "console/webhooks.html#endpoints" if request.htmx else "console/webhooks.html"
            return render(request, template, context)
    template = "console/webhooks.html#endpoints" if request.htmx else "console/webhooks.html"
    return render(request, template, _list_page(request, namespace, form=form), status=422)


def _detail_context(request: HttpRequest, endpoint: WebhookEndpoint, cursor: str | None) -> dict[str, object]:
    page = deliveries_page(endpoint, cursor=cursor, limit=PAGE_SIZE)
    base = reverse("console:webhook", args=[endpoint.namespace.slug, endpoint.pk])
    return {
        "namespace": endpoint.namespace,
        "endpoint": endpoint,
        "items": page.items,
        "first_page": cursor is None,
        "next_url": f"{base}?cursor={page.next_cursor}" if page.next_cursor else None,
    }


@role_required("viewer")
def webhook(request: HttpRequest, slug: str, webhook_id: uuid.UUID) -> HttpResponse:
    endpoint = _endpoint(request, slug, webhook_id)
    cursor = request.GET.get("cursor") or None
    try:
        context = _detail_context(request, endpoint, cursor)
    except InvalidCursor:
        cursor = None
        context = _detail_context(request, endpoint, None)
    return page_or_fragment(request, "console/webhook.html", "console/webhook.html#rows", context, when=bool(cursor))


@require_POST
@role_required("admin")
def webhook_status(request: HttpRequest, slug: str, webhook_id: uuid.UUID) -> HttpResponse:
    endpoint = _endpoint(request, slug, webhook_id)
    paused = endpoint.status == EndpointStatus.PAUSED
    status = EndpointStatus.ACTIVE if paused else EndpointStatus.PAUSED
    endpoint = webhook_update(endpoint=endpoint, actor=actor_of(request), status=status)
    if request.htmx:
        return render(request, "console/webhook.html#endpoint", {"namespace": endpoint.namespace, "endpoint": endpoint})
    messages.success(request, "Resumed." if paused else "Paused: nothing is sent to it until it is resumed.")
    return redirect("console:webhook", slug, endpoint.pk)


@require_POST
@role_required("admin")
def webhook_remove(request: HttpRequest, slug: str, webhook_id: uuid.UUID) -> HttpResponse:
    endpoint = _endpoint(request, slug, webhook_id)
    namespace = endpoint.namespace
    webhook_delete(endpoint=endpoint, actor=actor_of(request))
    messages.success(request, "Endpoint removed, with its deliveries.")
    target = reverse("console:webhooks", args=[namespace.slug])
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = target
        return response
    return redirect(target)


def _refused(request: HttpRequest, endpoint: WebhookEndpoint, exc: ServiceError) -> HttpResponse:
    """A refused action on an endpoint: the reason as text for htmx, else on the endpoint's page."""
    if request.htmx:
        return HttpResponse(exc.message, status=exc.status, content_type="text/plain; charset=utf-8")
    messages.error(request, exc.message)
    return redirect("console:webhook", endpoint.namespace.slug, endpoint.pk)


@require_POST
@role_required("admin")
def webhook_test(request: HttpRequest, slug: str, webhook_id: uuid.UUID) -> HttpResponse:
    endpoint = _endpoint(request, slug, webhook_id)
    try:
        webhook_send_test(endpoint=endpoint, actor=actor_of(request))
    except ServiceError as exc:
        return _refused(request, endpoint, exc)
    if request.htmx:
        return render(request, "console/webhook.html#deliveries", _detail_context(request, endpoint, None))
    messages.success(request, "Test event queued.")
    return redirect("console:webhook", slug, endpoint.pk)


@require_POST
@role_required("admin")
def webhook_redeliver(request: HttpRequest, slug: str, webhook_id: uuid.UUID, delivery_id: int) -> HttpResponse:
    endpoint = _endpoint(request, slug, webhook_id)
    try:
        delivery = delivery_get(endpoint, delivery_id)
    except NotFound:
        raise Http404("no such delivery") from None
    try:
        delivery = delivery_redeliver(delivery=delivery, actor=actor_of(request))
    except ServiceError as exc:
        return _refused(request, endpoint, exc)
    if request.htmx:
        return render(
            request, "console/webhook.html#row", {"namespace": endpoint.namespace, "endpoint": endpoint, "d": delivery}
        )
    messages.success(request, "Queued again.")
    return redirect("console:webhook", slug, endpoint.pk)
