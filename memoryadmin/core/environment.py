"""Reading settings from the environment: each bad value fails at start-up with a message naming its variable."""

from __future__ import annotations

import os
from collections.abc import Callable

from django.core.exceptions import ImproperlyConfigured


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false), got {raw!r}")


def env_int(name: str, default: int, *, minimum: int = 0) -> int:
    return _env_number(name, default, minimum=minimum, parse=int, kind="an integer")


def env_float(name: str, default: float, *, minimum: float = 0.0) -> float:
    return _env_number(name, default, minimum=minimum, parse=float, kind="a number")


def _env_number[N: (int, float)](name: str, default: N, *, minimum: N, parse: Callable[[str], N], kind: str) -> N:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = parse(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be {kind}, got {raw!r}") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be >= {minimum}, got {value}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]
