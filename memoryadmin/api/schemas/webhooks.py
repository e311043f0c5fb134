"""Webhook endpoints and their deliveries (the `webhooks` router)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

from ninja import Schema
from pydantic import Field

from memoryadmin.api.schemas.common import Body
from memoryadmin.webhooks.enums import DeliveryState, EndpointStatus
from memoryadmin.webhooks.events import EVENT_TYPES

EndpointStatusName = Literal[tuple(EndpointStatus.values)]  # type: ignore[valid-type]


EventType = Literal[EVENT_TYPES]  # type: ignore[valid-type]


Url = Annotated[str, Field(min_length=1, max_length=2000, description="An http or https URL of a receiver.")]


Description = Annotated[str, Field(max_length=200, pattern=r"^[^\x00]*$")]


class WebhookOut(Schema):
    id: uuid.UUID
    url: str
    description: str
    events: list[str]
    status: EndpointStatusName
    failing: bool = Field(description="A delivery was given up after its retries; cleared by the next success.")
    failing_since: datetime | None
    last_error: str | None
    created_at: datetime
    updated_at: datetime


class WebhookWithSecret(WebhookOut):
    secret: str = Field(description="Signs every delivery (Standard Webhooks). Shown here only: keep it.")


class WebhookList(Schema):
    items: list[WebhookOut]


class WebhookIn(Body):
    url: Url
    events: list[EventType] = Field(min_length=1, max_length=len(EVENT_TYPES))
    description: Description = ""


class WebhookPatch(Body):
    url: Url | None = None
    events: list[EventType] | None = Field(default=None, min_length=1, max_length=len(EVENT_TYPES))
    description: Description | None = None
    status: EndpointStatusName | None = None


class SecretOut(Schema):
    secret: str


class DeliveryOut(Schema):
    id: int
    event_id: uuid.UUID
    event_type: str
    state: Literal[tuple(DeliveryState.values)]  # type: ignore[valid-type]
    attempts: int
    response_status: int | None
    latency_ms: int | None
    last_error: str | None
    data: dict[str, Any] = Field(description="The body's `data`: ids and what changed.")
    created_at: datetime
    last_attempt_at: datetime | None
    next_attempt_at: datetime | None
    delivered_at: datetime | None


class DeliveryPage(Schema):
    items: list[DeliveryOut]
    next_cursor: str | None
