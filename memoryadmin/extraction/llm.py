"""A small client for OpenAI-compatible chat-completions endpoints.

Timeouts on every call, a bounded number of retries for what is worth
retrying (network errors, timeouts, 429 and 5xx), and errors that never
carry the API key.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import httpx
from django.conf import settings

from memoryadmin.core.http_retry import post_with_retries
from memoryadmin.extraction.strategies.base import StrategyError

logger = logging.getLogger(__name__)


class LlmError(StrategyError):
    """The model could not be asked, or did not answer usably."""


@dataclass(frozen=True)
class ChatSettings:
    base_url: str
    api_key: str
    model: str
    timeout: float
    max_retries: int
    backoff: float = 0.5

    @classmethod
    def from_settings(cls, config: dict[str, Any]) -> ChatSettings:
        """Django settings, with the namespace's `model` and `timeout_seconds` taking precedence."""
        return cls(
            base_url=settings.LLM_BASE_URL,
            api_key=settings.LLM_API_KEY,
            model=config.get("model") or settings.LLM_MODEL,
            timeout=float(config.get("timeout_seconds") or settings.LLM_TIMEOUT_SECONDS),
            max_retries=settings.LLM_MAX_RETRIES,
        )


class ChatClient:
    def __init__(self, chat: ChatSettings, *, transport: httpx.BaseTransport | None = None) -> None:
        if not chat.base_url:
            raise LlmError("LLM_BASE_URL is not configured; set it to use an LLM extraction strategy")
        self.chat = chat
        self.url = chat.base_url.rstrip("/") + "/chat/completions"
        headers = {"Content-Type": "application/json"}
        if chat.api_key:
            headers["Authorization"] = f"Bearer {chat.api_key}"
        self.client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(chat.timeout, connect=min(chat.timeout, 5.0)),
            transport=transport,
            follow_redirects=False,
        )

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.client.close()

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        schema_name: str,
        schema: dict[str, Any],
        response_format: str = "json_schema",
        temperature: float = 0.0,
    ) -> str:
        """The assistant's answer text. Raises LlmError once the retries are spent."""
        body: dict[str, Any] = {"model": self.chat.model, "messages": messages, "temperature": temperature}
        if response_format == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema_name, "schema": schema, "strict": False},
            }
        elif response_format == "json_object":
            body["response_format"] = {"type": "json_object"}
        response = post_with_retries(
            self.client,
            self.url,
            body,
            retries=self.chat.max_retries,
            backoff=self.chat.backoff,
            timeout=self.chat.timeout,
            error=LlmError,
            who="the model",
            where="the model endpoint",
        )
        return _answer_text(response)


def _answer_text(response: httpx.Response) -> str:
    try:
        data = response.json()
        content = data["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise LlmError("the model endpoint's answer is not a chat completion") from None
    if isinstance(content, list):
        # Some servers answer with content parts.
        content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
    if not isinstance(content, str):
        raise LlmError("the model endpoint's answer has no text")
    return content
