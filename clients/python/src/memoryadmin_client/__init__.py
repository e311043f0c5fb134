"""A typed Python client for memoryadmin: sync (`MemoryAdmin`) and async (`AsyncMemoryAdmin`).

from memoryadmin_client import MemoryAdmin

with MemoryAdmin("http://127.0.0.1:8000", api_key="ma_...") as client:
    client.messages.append("chat-42", [{"role": "user", "content": "I'm vegetarian."}], user_id="alice")
    for hit in client.memories.search("diet", user_id="alice").items:
        print(hit.score, hit.memory.text)
"""

from __future__ import annotations

from memoryadmin_client import errors, models
from memoryadmin_client._async import AsyncMemoryAdmin
from memoryadmin_client._base import VERSION as __version__
from memoryadmin_client._calls import RetryPolicy
from memoryadmin_client._sync import MemoryAdmin
from memoryadmin_client.errors import APIError, MemoryAdminError, TransportError
from memoryadmin_client.models import NewMessage, Page

__all__ = [
    "APIError",
    "AsyncMemoryAdmin",
    "MemoryAdmin",
    "MemoryAdminError",
    "NewMessage",
    "Page",
    "RetryPolicy",
    "TransportError",
    "__version__",
    "errors",
    "models",
]
