"""A page of a list as the contract shows every list: its items and the cursor of the next page."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memoryadmin.core.pagination import Page


def page_answer[T](page: Page[T], shown: Callable[[T], dict[str, Any]]) -> dict[str, Any]:
    """The page's items, each as `shown` gives it, and `next_cursor` (None on the last page)."""
    return {"items": [shown(item) for item in page.items], "next_cursor": page.next_cursor}
