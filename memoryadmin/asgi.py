"""The production web process: Django for everything, except /mcp, where the MCP server answers.

Served by an ASGI server that runs the lifespan protocol (uvicorn, or gunicorn with
uvicorn workers): the MCP server's task group lives from startup to shutdown. Django
itself takes no part in the lifespan, so its messages are answered here.

Django's requests run through its WSGI handler in a pool of WEB_THREADS threads per
process (a2wsgi), as under a threaded WSGI server. Its ASGI handler would run them
too, but it switches threads for each synchronous middleware and runs all synchronous
code of a process in one thread: measured with the API's search, it answered about a
quarter of the requests per second of the threaded WSGI handler (bench/mcp_latency.py
and docs/benchmarks.md). The MCP tools run in the same threads, so both transports
share one set of database connections.
"""

from __future__ import annotations

import logging
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryadmin.settings")

from a2wsgi import WSGIMiddleware
from django.conf import settings
from django.core.wsgi import get_wsgi_application

from memoryadmin.core.tracing import tracing_start

# Before the application loads its middleware, which tracing adds to.
tracing_start("web")
django_application = WSGIMiddleware(get_wsgi_application(), workers=settings.WEB_THREADS)

# Imported once Django is set up: the MCP tools use its models.
from memoryadmin.mcp.http import McpHttpApp, is_mcp_path  # noqa: E402
from memoryadmin.mcp.server import in_executor  # noqa: E402
from memoryadmin.web_bodies import SizedBodies  # noqa: E402

logger = logging.getLogger(__name__)
mcp_application = McpHttpApp(run_sync=in_executor(django_application.executor))
# Django reads a body by its Content-Length: one sent chunked gets its length first (memoryadmin.web_bodies).
sized_django_application = SizedBodies(django_application)


async def application(scope, receive, send) -> None:
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
    elif scope["type"] == "http" and is_mcp_path(scope["path"]):
        await mcp_application(scope, receive, send)
    else:
        await sized_django_application(scope, receive, send)


async def _lifespan(receive, send) -> None:
    message = await receive()
    if message["type"] != "lifespan.startup":
        return
    started = False
    try:
        async with mcp_application.running():
            started = True
            await send({"type": "lifespan.startup.complete"})
            while (await receive())["type"] != "lifespan.shutdown":
                pass
    except Exception as exc:
        logger.exception("the MCP server failed")
        if not started:
            await send({"type": "lifespan.startup.failed", "message": str(exc)})
            return
    await send({"type": "lifespan.shutdown.complete"})
