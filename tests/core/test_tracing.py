"""Traces, when an OTLP endpoint is set: a request's span and its statements' spans reach a real
collector endpoint on loopback over OTLP/HTTP, with the request id the logs carry."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.conf import settings
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.conftest import redis_test_url

ROOT = Path(__file__).resolve().parents[2]

# Serves one request through the production WSGI entry point, then sends what the exporter buffered.
REQUEST = """
import io, sys
from memoryadmin.wsgi import application
from memoryadmin.core.tracing import tracing_flush
environ = {"REQUEST_METHOD": "GET", "PATH_INFO": "/api/v1/health", "SERVER_NAME": "localhost", "SERVER_PORT": "80",
           "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(), "wsgi.errors": sys.stderr,
           "HTTP_X_REQUEST_ID": "trace-me-0001", "REMOTE_ADDR": "127.0.0.1"}
status = []
body = b"".join(application(environ, lambda s, h, *a: status.append(s)))
tracing_flush()
print(status[0])
from django.conf import settings
print("traced:", any("opentelemetry" in name for name in settings.MIDDLEWARE))
"""


@pytest.fixture
def collector() -> Iterator[tuple[str, list[ExportTraceServiceRequest]]]:
    received: list[ExportTraceServiceRequest] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            if self.path == "/v1/traces":
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                received.append(request)
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()


def _run(env_extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    database = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}",
        "REDIS_URL": redis_test_url(),
        "DEBUG": "false",
        "SECRET_KEY": "k" * 60 + "-trace",
        "ALLOWED_HOSTS": "localhost",
        "OTEL_SERVICE_NAME": "memoryadmin-test",
        **env_extra,
    }
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        if name not in env_extra:
            env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-c", REQUEST], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.django_db(transaction=True)
def test_a_request_and_its_statements_are_traced_with_the_request_id(collector) -> None:
    endpoint, received = collector
    result = _run({"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint})
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("200"), result.stdout
    assert "traced: True" in result.stdout

    spans = [
        (resource.resource, span)
        for request in received
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    ]
    attributes = {id(span): {a.key: a.value for a in span.attributes} for _, span in spans}
    (server,) = [span for _, span in spans if span.kind == span.SPAN_KIND_SERVER]
    assert "health" in server.name
    assert attributes[id(server)]["memoryadmin.request_id"].string_value == "trace-me-0001"
    statements = [span for _, span in spans if span.kind == span.SPAN_KIND_CLIENT and span.trace_id == server.trace_id]
    assert statements, "the health check's statements are spans of the request's trace"
    for span in statements:
        sql = attributes[id(span)].get("db.statement") or attributes[id(span)].get("db.query.text")
        assert sql is None or "trace-me-0001" not in sql.string_value
    resource = {a.key: a.value.string_value for a in spans[0][0].attributes}
    assert resource["service.name"] == "memoryadmin-test"
    assert resource["memoryadmin.process"] == "web"


@pytest.mark.django_db(transaction=True)
def test_without_an_endpoint_nothing_is_traced(collector) -> None:
    _, received = collector
    result = _run({})
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("200")
    assert "traced: False" in result.stdout
    assert received == []
