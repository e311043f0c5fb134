"""Webhook endpoints of the key's namespace, under the `webhooks` scope."""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

from django.http import HttpRequest
from ninja import Path, Router, Status

from memoryadmin.api.auth import actor_of, namespace_of, webhooks_auth
from memoryadmin.api.pages import page_answer
from memoryadmin.api.schemas.common import Cursor, Limit, responses
from memoryadmin.api.schemas.webhooks import (
    DeliveryOut,
    DeliveryPage,
    SecretOut,
    WebhookIn,
    WebhookList,
    WebhookOut,
    WebhookPatch,
    WebhookWithSecret,
)
from memoryadmin.core.representation import Representation, null_if_blank
from memoryadmin.webhooks.models import WebhookDelivery, WebhookEndpoint
from memoryadmin.webhooks.queries import deliveries_page, delivery_get, webhook_get, webhooks_of
from memoryadmin.webhooks.services import (
    delivery_redeliver,
    webhook_create,
    webhook_delete,
    webhook_rotate_secret,
    webhook_send_test,
    webhook_update,
)

router = Router(tags=["webhooks"], auth=webhooks_auth)

WebhookId = Annotated[uuid.UUID, Path(description="The id of a webhook endpoint.")]
DeliveryId = Annotated[int, Path(ge=1, le=2**63 - 1, description="The id of a delivery, from the list.")]


WEBHOOK = Representation(tuple(WebhookOut.model_fields), convert={"last_error": null_if_blank})
# A delivery's `data` is read out of its payload and its next attempt shown only while one is pending.
DELIVERY = Representation(
    tuple(name for name in DeliveryOut.model_fields if name not in ("data", "next_attempt_at")),
    convert={"last_error": null_if_blank},
)


def webhook_dict(endpoint: WebhookEndpoint) -> dict[str, Any]:
    return WEBHOOK.of(endpoint)


def delivery_dict(delivery: WebhookDelivery) -> dict[str, Any]:
    return {
        **DELIVERY.of(delivery),
        "data": delivery.payload.get("data", {}),
        "next_attempt_at": delivery.next_attempt_at if delivery.state == "pending" else None,
    }


@router.get(
    "/webhooks",
    response=responses({200: WebhookList}),
    summary="The namespace's webhook endpoints",
    description="Needs the `webhooks` scope.",
)
def webhook_list(request: HttpRequest):
    return {"items": [webhook_dict(e) for e in webhooks_of(namespace_of(request))]}


@router.post(
    "/webhooks",
    response=responses({201: WebhookWithSecret}, 409),
    summary="Add a webhook endpoint",
    description=(
        "Needs the `webhooks` scope. The answer carries the signing secret, shown this once. A URL whose host "
        "is (or resolves to) a private, loopback, link-local or reserved address is refused (422 "
        "`url_not_allowed`) unless the server allows private receivers. At most 20 endpoints a namespace (409)."
    ),
)
def webhook_add(request: HttpRequest, payload: WebhookIn):
    endpoint = webhook_create(
        namespace=namespace_of(request),
        url=payload.url,
        events=payload.events,
        description=payload.description,
        actor=actor_of(request),
    )
    return Status(201, {**webhook_dict(endpoint), "secret": endpoint.secret})


@router.get(
    "/webhooks/{webhook_id}",
    response=responses({200: WebhookOut}, 404),
    summary="A webhook endpoint",
)
def webhook_detail(request: HttpRequest, webhook_id: WebhookId):
    return webhook_dict(webhook_get(namespace_of(request), webhook_id))


@router.patch(
    "/webhooks/{webhook_id}",
    response=responses({200: WebhookOut}, 404),
    summary="Change a webhook endpoint, pause or resume it",
    description="A paused endpoint is sent nothing, and events while it is paused are not kept for it.",
)
def webhook_change(request: HttpRequest, webhook_id: WebhookId, payload: WebhookPatch):
    endpoint = webhook_update(
        endpoint=webhook_get(namespace_of(request), webhook_id),
        actor=actor_of(request),
        url=payload.url,
        events=payload.events,
        description=payload.description,
        status=payload.status,
    )
    return webhook_dict(endpoint)


@router.delete(
    "/webhooks/{webhook_id}",
    response=responses({204: None}, 404),
    summary="Remove a webhook endpoint and its deliveries",
)
def webhook_remove(request: HttpRequest, webhook_id: WebhookId):
    webhook_delete(endpoint=webhook_get(namespace_of(request), webhook_id), actor=actor_of(request))
    return Status(204, None)


@router.post(
    "/webhooks/{webhook_id}/secret",
    response=responses({200: SecretOut}, 404),
    summary="Replace the signing secret",
    description="Deliveries from now on are signed with the new secret, shown this once.",
)
def webhook_new_secret(request: HttpRequest, webhook_id: WebhookId):
    endpoint = webhook_rotate_secret(endpoint=webhook_get(namespace_of(request), webhook_id), actor=actor_of(request))
    return {"secret": endpoint.secret}


@router.post(
    "/webhooks/{webhook_id}/test",
    response=responses({202: DeliveryOut}, 404, 409),
    summary="Send a test event",
    description="A `webhook.test` event, sent at once; follow it in the deliveries. A paused endpoint: 409.",
)
def webhook_test(request: HttpRequest, webhook_id: WebhookId):
    delivery = webhook_send_test(endpoint=webhook_get(namespace_of(request), webhook_id), actor=actor_of(request))
    return Status(202, delivery_dict(delivery))


@router.get(
    "/webhooks/{webhook_id}/deliveries",
    response=responses({200: DeliveryPage}, 404),
    summary="An endpoint's deliveries, newest first",
)
def webhook_deliveries(
    request: HttpRequest,
    webhook_id: WebhookId,
    state: Literal["pending", "delivered", "failed"] | None = None,
    limit: Limit = 50,
    cursor: Cursor | None = None,
):
    endpoint = webhook_get(namespace_of(request), webhook_id)
    page = deliveries_page(endpoint, state=state, cursor=cursor, limit=limit)
    return page_answer(page, delivery_dict)


@router.post(
    "/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver",
    response=responses({202: DeliveryOut}, 404, 409),
    summary="Send a delivered or given-up event again",
    description="The same event id, so a receiver that has it keeps it once. A delivery still pending: 409.",
)
def webhook_redeliver(request: HttpRequest, webhook_id: WebhookId, delivery_id: DeliveryId):
    endpoint = webhook_get(namespace_of(request), webhook_id)
    delivery = delivery_redeliver(delivery=delivery_get(endpoint, delivery_id), actor=actor_of(request))
    return Status(202, delivery_dict(delivery))
