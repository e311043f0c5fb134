"""OpenTelemetry traces, optional: on when an OTLP endpoint is configured and the packages are installed.

`pip install -r requirements-otel.txt` adds them; `OTEL_EXPORTER_OTLP_ENDPOINT` (or
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) turns tracing on, with the other standard `OTEL_*` variables
(headers, service name, sampler) read by the SDK itself. The web process traces each request
(Django), the worker each task (Celery, its trace continuing the request's that queued it), and
both each statement (psycopg: the SQL with its placeholders, never the values bound to them). A
request's span carries its `X-Request-ID` as `memoryadmin.request_id`, the id its log lines carry.

Without the endpoint nothing is imported and nothing changes; with the endpoint but without the
packages, a warning says so once and the process runs untraced.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from memoryadmin.core.request_ids import HEADER

logger = logging.getLogger(__name__)

_started: list[str] = []


def tracing_configured() -> bool:
    return bool(os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


def _response_hook(span: Any, request: Any, response: Any) -> None:
    if span is not None and span.is_recording() and response is not None and response.has_header(HEADER):
        span.set_attribute("memoryadmin.request_id", response[HEADER])


def tracing_start(process: str) -> bool:
    """Trace this process (`web` or `worker`), before Django loads its middleware; True when traced."""
    if _started or not tracing_configured():
        return bool(_started)
    try:
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.instrumentation.celery import CeleryInstrumentor
        from opentelemetry.instrumentation.django import DjangoInstrumentor
        from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as error:
        logger.warning(
            "an OTLP endpoint is set, but OpenTelemetry is not installed (pip install -r requirements-otel.txt): "
            "no traces (%s)",
            error,
        )
        return False
    resource = Resource.create(
        {"service.name": os.environ.get("OTEL_SERVICE_NAME", "memoryadmin"), "memoryadmin.process": process}
    )
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    if process == "web":
        DjangoInstrumentor().instrument(response_hook=_response_hook)
    else:
        CeleryInstrumentor().instrument()
    PsycopgInstrumentor().instrument(enable_commenter=False)
    _started.append(process)
    logger.info("traces go to the OTLP endpoint (%s process)", process)
    return True


def tracing_flush(timeout_millis: int = 5000) -> None:
    """Send what is buffered now (a process about to exit)."""
    if not _started:
        return
    from opentelemetry import trace

    flush = getattr(trace.get_tracer_provider(), "force_flush", None)
    if flush is not None:
        flush(timeout_millis)
