"""The production web process: Django for everything, except /mcp, where the MCP server answers.

Served by an ASGI server that runs the lifespan protocol (uvicorn, or gunicorn with
uvicorn workers): the MCP server's task group lives from startup to shutdown. Django
itself takes no part in the lifespan, so its messages are answered here.
"""

from __future__ import annotations

import logging
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryadmin.settings")
django_application = get_asgi_application()

# Imported once Django is set up: the MCP tools use its models.
from memoryadmin.mcp.http import McpHttpApp, is_mcp_path  # noqa: E402

logger = logging.getLogger(__name__)
mcp_application = McpHttpApp()


async def application(scope, receive, send) -> None:
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
    elif scope["type"] == "http" and is_mcp_path(scope["path"]):
        await mcp_application(scope, receive, send)
    else:
        await django_application(scope, receive, send)


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
