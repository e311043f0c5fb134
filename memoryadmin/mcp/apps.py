from __future__ import annotations

from django.apps import AppConfig


class McpConfig(AppConfig):
    name = "memoryadmin.mcp"
    label = "mcp"
    verbose_name = "MCP server"
