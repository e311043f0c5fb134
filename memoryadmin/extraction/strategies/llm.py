"""Strategies that ask a language model: `discrete`, `preferences`, `custom` and `summary`.

Each asks for JSON with a schema and parses the answer leniently (code
fences, prose around the JSON, trailing commas, bare lists, items given as
plain strings). An answer that still cannot be read raises MalformedOutput,
so the run fails visibly and its messages stay unextracted for a retry.
"""

from __future__ import annotations

import json
import re
import string
from typing import Any

from django.conf import settings

from memoryadmin.core.errors import InvalidInput
from memoryadmin.extraction.llm import ChatClient, ChatSettings, LlmError
from memoryadmin.extraction.strategies.base import Batch, Candidate, SourceMessage
from memoryadmin.memories.models import MemoryType

DEFAULT_MAX_MESSAGES = 40
MAX_PROMPT_MESSAGE_CHARS = 4000
MAX_CUSTOM_PROMPT_CHARS = 8000
MAX_LABELS = 10
TEMPLATE_VARIABLES = ("messages", "user_id", "session_id", "agent_id", "now", "today")
RESPONSE_FORMATS = ("json_schema", "json_object", "none")
FACT_TYPES = (MemoryType.SEMANTIC, MemoryType.EPISODIC, MemoryType.PREFERENCE)

MEMORIES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "memories": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "type": {"type": "string", "enum": [str(t) for t in FACT_TYPES]},
                    "topics": {"type": "array", "items": {"type": "string"}},
                    "entities": {"type": "array", "items": {"type": "string"}},
                    "source_seqs": {"type": "array", "items": {"type": "integer"}},
                },
                "required": ["text"],
            },
        }
    },
    "required": ["memories"],
}
SUMMARY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"summary": {"type": "string"}},
    "required": ["summary"],
}

OUTPUT_INSTRUCTIONS = (
    'Answer with JSON only: {"memories": [{"text": "...", "type": "semantic|episodic|preference", '
    '"topics": ["..."], "entities": ["..."], "source_seqs": [1]}]}. '
    "source_seqs are the [seq] numbers of the messages each memory comes from. "
    'Answer {"memories": []} when there is nothing worth keeping.'
)
DISCRETE_PROMPT = (
    "You keep the long-term memory of an assistant. From the conversation below, extract durable facts "
    "the user states about themselves: identity, places, work, relationships, preferences, plans they have "
    "made, important events. Write each memory as one short sentence in the third person starting with "
    '"User" (e.g. "User lives in Lyon"). Resolve relative dates against {now}. Do not record questions, '
    "hypotheticals, jokes, things said about other people as if they were about the user, or what the "
    "assistant suggested. "
)
PREFERENCES_PROMPT = (
    "You keep the long-term memory of an assistant. From the conversation below, extract only the user's "
    "own stated preferences, likes and dislikes (food, tools, style, schedule, communication). Write each "
    'one as a short third-person sentence starting with "User" (e.g. "User prefers window seats"). Ignore '
    "questions, hypotheticals and other people's preferences. "
)
SUMMARY_PROMPT = (
    "You maintain a running summary of one conversation, so an assistant can continue it later without the "
    "full transcript. Update the summary with the new messages: keep what still matters (the user's goals, "
    "decisions, facts, open questions), drop small talk, stay under 200 words, write in the third person. "
    'Answer with JSON only: {"summary": "..."}.'
)

_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_ITEM_LIST_KEYS = ("memories", "facts", "items", "results", "preferences", "data")
_ITEM_TEXT_KEYS = ("text", "memory", "fact", "content", "preference")


class MalformedOutput(LlmError):
    """The model answered, but not with anything that reads as the JSON asked for."""


def _excerpt(content: str) -> str:
    flat = " ".join(content.split())
    return flat[:160] + ("…" if len(flat) > 160 else "")


def parse_json_leniently(content: str) -> Any:
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    candidates = [text]
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if starts:
        start = min(starts)
        end = max(text.rfind("}"), text.rfind("]"))
        if end > start:
            candidates.append(text[start : end + 1])
    for candidate in candidates:
        for attempt in (candidate, _TRAILING_COMMA.sub(r"\1", candidate)):
            try:
                return json.loads(attempt)
            except ValueError:
                continue
    raise MalformedOutput(f"the model's answer is not JSON: {_excerpt(content)!r}")


def _labels(value: Any, limit: int) -> list[str]:
    if not isinstance(value, list):
        return []
    out: list[str] = []
    for item in value:
        if isinstance(item, str) and item.strip() and "\x00" not in item:
            label = item.strip()[:limit]
            if label not in out:
                out.append(label)
    return out[:MAX_LABELS]


def memory_items(data: Any) -> list[dict[str, Any]]:
    """The list of memories in a parsed answer, whatever reasonable shape it came in."""
    if isinstance(data, dict):
        for key in _ITEM_LIST_KEYS:
            if isinstance(data.get(key), list):
                data = data[key]
                break
        else:
            if any(isinstance(data.get(key), str) for key in _ITEM_TEXT_KEYS):
                data = [data]
            else:
                raise MalformedOutput(f"the model's answer has no list of memories: {_excerpt(json.dumps(data))!r}")
    if not isinstance(data, list):
        raise MalformedOutput("the model's answer is not a list of memories")
    items: list[dict[str, Any]] = []
    for item in data:
        if isinstance(item, str):
            item = {"text": item}
        if not isinstance(item, dict):
            continue
        text = next((item[k] for k in _ITEM_TEXT_KEYS if isinstance(item.get(k), str)), "")
        if text.strip():
            items.append({**item, "text": text.strip()})
    return items


def transcript(messages: list[SourceMessage]) -> str:
    lines = []
    for message in messages:
        content = message.content
        if len(content) > MAX_PROMPT_MESSAGE_CHARS:
            content = content[:MAX_PROMPT_MESSAGE_CHARS] + " […]"
        lines.append(f"[{message.seq}] {message.role}: {content}")
    return "\n".join(lines)


def template_values(batch: Batch) -> dict[str, str]:
    return {
        "messages": transcript(batch.messages),
        "user_id": batch.user_id,
        "session_id": batch.session_id,
        "agent_id": batch.agent_id,
        "now": batch.now.isoformat(timespec="seconds"),
        "today": batch.now.date().isoformat(),
    }


def clean_prompt_template(prompt: Any) -> str:
    """An operator's prompt: only the allow-listed {variables}, and {messages} among them."""
    if not isinstance(prompt, str) or not prompt.strip():
        raise InvalidInput("the custom strategy needs a prompt", details={"field": "extraction_config.prompt"})
    if len(prompt) > MAX_CUSTOM_PROMPT_CHARS or "\x00" in prompt:
        raise InvalidInput(
            f"the prompt must be at most {MAX_CUSTOM_PROMPT_CHARS} characters without NUL",
            details={"field": "extraction_config.prompt"},
        )
    allowed = ", ".join("{" + v + "}" for v in TEMPLATE_VARIABLES)
    try:
        parts = list(string.Formatter().parse(prompt))
    except ValueError as exc:
        raise InvalidInput(
            f"the prompt is not a valid template ({exc}); write literal braces as {{{{ and }}}}",
            details={"field": "extraction_config.prompt", "allowed_variables": list(TEMPLATE_VARIABLES)},
        ) from None
    used: set[str] = set()
    for _literal, field_name, format_spec, conversion in parts:
        if field_name is None:
            continue
        if field_name not in TEMPLATE_VARIABLES or format_spec or conversion:
            shown = (
                "{"
                + field_name
                + (f"!{conversion}" if conversion else "")
                + (f":{format_spec}" if format_spec else "")
                + "}"
            )
            raise InvalidInput(
                f"the prompt uses {shown}, which is not allowed; use only {allowed} "
                "(write literal braces as {{ and }})",
                details={"field": "extraction_config.prompt", "allowed_variables": list(TEMPLATE_VARIABLES)},
            )
        used.add(field_name)
    if "messages" not in used:
        raise InvalidInput(
            "the prompt must include {messages}, where the conversation goes",
            details={"field": "extraction_config.prompt"},
        )
    return prompt


def clean_llm_config(strategy: str, config: dict[str, Any]) -> dict[str, Any]:
    known = {"model", "temperature", "max_messages", "response_format", "timeout_seconds"}
    if strategy == "custom":
        known.add("prompt")
    unknown = set(config) - known
    if unknown:
        raise InvalidInput(
            f"unknown setting(s) for the {strategy} strategy: {', '.join(sorted(unknown))}",
            details={"field": "extraction_config", "allowed": sorted(known)},
        )
    cleaned: dict[str, Any] = {}
    if "model" in config:
        model = config["model"]
        if not isinstance(model, str) or not model.strip() or len(model) > 200:
            raise InvalidInput("model must be a model name", details={"field": "extraction_config.model"})
        cleaned["model"] = model.strip()
    for key, low, high, kind in (
        ("temperature", 0.0, 2.0, float),
        ("timeout_seconds", 1.0, 600.0, float),
        ("max_messages", 1, 200, int),
    ):
        if key in config:
            value = config[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or (kind is int and value != int(value)):
                raise InvalidInput(f"{key} must be a number", details={"field": f"extraction_config.{key}"})
            if not low <= value <= high:
                raise InvalidInput(
                    f"{key} must be between {low:g} and {high:g}", details={"field": f"extraction_config.{key}"}
                )
            cleaned[key] = kind(value)
    if "response_format" in config:
        if config["response_format"] not in RESPONSE_FORMATS:
            raise InvalidInput(
                f"response_format must be one of {', '.join(RESPONSE_FORMATS)}",
                details={"field": "extraction_config.response_format"},
            )
        cleaned["response_format"] = config["response_format"]
    if strategy == "custom":
        cleaned["prompt"] = clean_prompt_template(config.get("prompt"))
    return cleaned


class LlmStrategy:
    """Shared by the strategies that ask a model for a list of memories."""

    name = "discrete"
    default_type: str = MemoryType.SEMANTIC
    allowed_types: tuple[str, ...] = tuple(str(t) for t in FACT_TYPES)

    def __init__(self, config: dict[str, Any], client: ChatClient | None = None) -> None:
        self.config = config
        self.chunk_size = int(config.get("max_messages") or DEFAULT_MAX_MESSAGES)
        self._client = client

    @property
    def client(self) -> ChatClient:
        if self._client is None:
            self._client = ChatClient(ChatSettings.from_settings(self.config))
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.client.close()

    def prompt(self, batch: Batch) -> list[dict[str, str]]:
        values = template_values(batch)
        return [
            {"role": "system", "content": DISCRETE_PROMPT.format(now=values["now"]) + OUTPUT_INSTRUCTIONS},
            {"role": "user", "content": values["messages"]},
        ]

    def ask(self, batch: Batch, schema_name: str, schema: dict[str, Any]) -> Any:
        content = self.client.complete(
            self.prompt(batch),
            schema_name=schema_name,
            schema=schema,
            response_format=self.config.get("response_format", "json_schema"),
            temperature=float(self.config.get("temperature", 0.0)),
        )
        return parse_json_leniently(content)

    def extract(self, batch: Batch) -> list[Candidate]:
        if not batch.messages:
            return []
        items = memory_items(self.ask(batch, "memories", MEMORIES_SCHEMA))
        by_seq = {m.seq: m.pk for m in batch.messages}
        # Without usable seqs, a memory is credited to what the user said in the batch.
        fallback = [m.pk for m in batch.messages if m.role == "user"] or list(by_seq.values())
        limit = settings.MAX_MEMORY_TEXT_BYTES
        candidates: list[Candidate] = []
        for item in items:
            text = item["text"]
            if len(text.encode()) > limit or "\x00" in text:
                continue
            seqs = item.get("source_seqs") or item.get("seqs") or []
            evidence = [by_seq[s] for s in seqs if isinstance(s, int) and s in by_seq] if isinstance(seqs, list) else []
            memory_type = item.get("type") or item.get("memory_type")
            if memory_type not in self.allowed_types:
                memory_type = self.default_type
            candidates.append(
                Candidate(
                    text=text,
                    evidence=list(dict.fromkeys(evidence)) or fallback,
                    memory_type=memory_type,
                    topics=_labels(item.get("topics"), 100),
                    entities=_labels(item.get("entities"), 200),
                    metadata={"strategy": self.name},
                )
            )
        return candidates


class DiscreteStrategy(LlmStrategy):
    name = "discrete"


class PreferencesStrategy(LlmStrategy):
    name = "preferences"
    default_type = MemoryType.PREFERENCE
    allowed_types = (str(MemoryType.PREFERENCE),)

    def prompt(self, batch: Batch) -> list[dict[str, str]]:
        return [
            {"role": "system", "content": PREFERENCES_PROMPT + OUTPUT_INSTRUCTIONS},
            {"role": "user", "content": transcript(batch.messages)},
        ]


class CustomStrategy(LlmStrategy):
    name = "custom"

    def prompt(self, batch: Batch) -> list[dict[str, str]]:
        # Validated again here: the config may have been written around the form.
        template = clean_prompt_template(self.config.get("prompt"))
        return [
            {"role": "system", "content": template.format_map(template_values(batch))},
            {"role": "system", "content": OUTPUT_INSTRUCTIONS},
        ]


class SummaryStrategy(LlmStrategy):
    name = "summary"
    wants_summary = True

    def prompt(self, batch: Batch) -> list[dict[str, str]]:
        previous = batch.summary or "(none yet)"
        return [
            {"role": "system", "content": SUMMARY_PROMPT},
            {
                "role": "user",
                "content": f"Summary so far:\n{previous}\n\nNew messages:\n{transcript(batch.messages)}",
            },
        ]

    def extract(self, batch: Batch) -> list[Candidate]:
        if not batch.messages:
            return []
        content = self.client.complete(
            self.prompt(batch),
            schema_name="summary",
            schema=SUMMARY_SCHEMA,
            response_format=self.config.get("response_format", "json_schema"),
            temperature=float(self.config.get("temperature", 0.0)),
        )
        summary = _summary_text(content)
        return [
            Candidate(
                text=_fit(summary, settings.MAX_MEMORY_TEXT_BYTES),
                evidence=[m.pk for m in batch.messages],
                memory_type=MemoryType.SUMMARY,
                topics=["summary"],
                metadata={"strategy": self.name},
            )
        ]


def _summary_text(content: str) -> str:
    stripped = content.strip()
    fenced = _FENCE.match(stripped)
    if fenced:
        stripped = fenced.group(1).strip()
    if not stripped:
        raise MalformedOutput("the model's summary is empty")
    if stripped[0] not in "{[":
        # Plain prose is a readable summary even without the JSON around it.
        return stripped
    data = parse_json_leniently(stripped)
    if isinstance(data, dict):
        for key in ("summary", "text", "content"):
            if isinstance(data.get(key), str) and data[key].strip():
                return data[key].strip()
    raise MalformedOutput(f"the model's answer has no summary: {_excerpt(content)!r}")


def _fit(text: str, limit: int) -> str:
    """Cut a text at a word boundary so it fits in `limit` bytes."""
    if len(text.encode()) <= limit:
        return text
    cut = text.encode()[: limit - 3].decode(errors="ignore")
    return cut.rsplit(None, 1)[0].rstrip(",;:") + "…"
