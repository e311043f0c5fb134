"""The MCP SDK's own client, over real HTTP, against the ASGI app served by uvicorn."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.extraction.conftest import celery_worker, wait_for

__all__ = ["McpCaller", "celery_worker", "wait_for"]


class McpCaller:
    """Connects as one API key; each step is a fresh connection, as a stateless server allows."""

    def __init__(self, url: str, key: str | None, *, mode: str = "auto") -> None:
        self.url = f"{url}/mcp"
        self.headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.mode = mode

    def run[T](self, scenario: Callable[[Client], Awaitable[T]]) -> T:
        async def main() -> T:
            async with (
                httpx2.AsyncClient(headers=self.headers, timeout=30) as http,
                Client(streamable_http_client(self.url, http_client=http), mode=self.mode) as client,
            ):
                return await scenario(client)

        return anyio.run(main)

    def tools(self) -> list[types.Tool]:
        async def scenario(client: Client) -> list[types.Tool]:
            return (await client.list_tools()).tools

        return self.run(scenario)

    def call(self, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        async def scenario(client: Client) -> types.CallToolResult:
            return await client.call_tool(tool, arguments)

        return self.run(scenario)

    def ok(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The structured answer of a call that must succeed."""
        result = self.call(tool, arguments)
        assert not result.is_error, result.structured_content
        return result.structured_content

    def error(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The API error body (`{"code", "message", "details"}`) of a call that must fail."""
        result = self.call(tool, arguments)
        assert result.is_error, result.structured_content
        return result.structured_content["error"]


@pytest.fixture
def mcp_for(asgi_server) -> Callable[..., McpCaller]:
    def make(key: str | None, **kwargs: Any) -> McpCaller:
        return McpCaller(asgi_server.url, key, **kwargs)

    return make
