"""JSON that apps may have stored: what PostgreSQL keeps and the API can write back out unchanged.

Every way in (the API's bodies, a snapshot being restored) checks the same
rules, so nothing is stored that a later read or export could not render:
- no NUL character in any string or key (PostgreSQL text and JSONB refuse it);
- no number beyond ±2**63: JSONB keeps numbers as exact decimals and gives
  1e20 back as the integer 100000000000000000000, and integers wider than
  64 bits cannot be written out by the JSON renderer;
- no nesting deeper than MAX_DEPTH levels (the renderer stops at 255; no app
  needs a tenth of that in metadata, tool calls or working memory).
"""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 32
NUMBER_LIMIT = 2**63


def json_problem(value: Any, *, strings: bool = True, numbers: bool = True) -> str | None:
    """Why `value` may not be stored, or None. `strings`/`numbers` False skip those rules."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if strings and "\x00" in item:
                return "must not contain NUL characters"
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int | float):
            if numbers and not -NUMBER_LIMIT < item < NUMBER_LIMIT:
                return "numbers must lie strictly between -2**63 and 2**63"
        elif isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                return f"must not nest deeper than {MAX_DEPTH} levels"
            if isinstance(item, dict):
                stack.extend((key, depth) for key in item)
                stack.extend((child, depth + 1) for child in item.values())
            else:
                stack.extend((child, depth + 1) for child in item)
    return None
