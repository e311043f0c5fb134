"""Choices of this app's columns, importable by every layer without the models: the API derives its
enums from them, and the console and privacy pages show and filter by them."""

from __future__ import annotations

from memoryadmin.core.choices import text_choices

EndpointStatus = text_choices("EndpointStatus", "active paused")
# FAILED is given up on: its retries ran out (an operator may redeliver it).
DeliveryState = text_choices("DeliveryState", "pending delivered failed")
