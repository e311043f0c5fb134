"""python manage.py mcp_stdio --key KEY: the MCP tools over standard input and output."""

from __future__ import annotations

import os

import anyio
from django.core.management.base import BaseCommand, CommandError

from memoryadmin.api.auth import api_key_for_token
from memoryadmin.mcp.stdio import serve_stdio

KEY_VARIABLE = "MEMORYADMIN_API_KEY"


class Command(BaseCommand):
    help = (
        "Serve the MCP tools over standard input and output for one API key, for an agent that starts "
        f"memoryadmin as a local process. The key comes from --key or ${KEY_VARIABLE} (which, unlike a "
        "command-line argument, other users of the machine cannot read in the process list)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--key", help=f"An API key of the namespace to serve (default: ${KEY_VARIABLE}).")

    def handle(self, *args: object, **options: object) -> None:
        token = str(options.get("key") or os.environ.get(KEY_VARIABLE, "")).strip()
        if not token:
            raise CommandError(f"an API key is needed: --key KEY or ${KEY_VARIABLE}")
        if api_key_for_token(token) is None:
            raise CommandError("this API key is unknown or revoked")
        # Standard output carries the protocol from here on; anything to say goes to standard error.
        anyio.run(serve_stdio, token)
