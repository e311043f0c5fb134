"""What the sync and the async client share: configuration, headers, bodies, snapshots."""

from __future__ import annotations

import io
import os
from typing import IO, Any, Union

import httpx

from memoryadmin_client._calls import RetryPolicy

VERSION = "0.1.0"
USER_AGENT = f"memoryadmin-client/{VERSION} (python; httpx)"
DEFAULT_TIMEOUT = 30.0

# A snapshot to restore: its bytes, a path, or a binary file.
SnapshotSource = Union[bytes, str, "os.PathLike[str]", IO[bytes]]
# Where an export goes: a path or a binary file.
ExportTarget = Union[str, "os.PathLike[str]", IO[bytes]]


def client_options(
    base_url: str,
    api_key: str,
    timeout: float | httpx.Timeout | None,
    headers: dict[str, str] | None,
) -> dict[str, Any]:
    if not api_key:
        raise ValueError("an API key is required")
    return {
        "base_url": base_url.rstrip("/"),
        "timeout": DEFAULT_TIMEOUT if timeout is None else timeout,
        "headers": {
            "Authorization": f"Bearer {api_key}",
            "User-Agent": USER_AGENT,
            "Accept": "application/json",
            **(headers or {}),
        },
    }


def retry_policy(max_retries: int | None, retry: RetryPolicy | None) -> RetryPolicy:
    if retry is not None:
        return retry
    return RetryPolicy() if max_retries is None else RetryPolicy(max_retries=max_retries)


def snapshot_body(source: SnapshotSource) -> bytes:
    """The snapshot as bytes, held in memory while sent (the server takes at most 256 MiB) so a retry can resend it."""
    if isinstance(source, bytes | bytearray | memoryview):
        return bytes(source)
    if isinstance(source, str | os.PathLike):
        with open(os.fspath(source), "rb") as file:
            return file.read()
    if hasattr(source, "read"):
        data = source.read()
        if not isinstance(data, bytes):
            raise TypeError("a snapshot is read from a binary file")
        return data
    raise TypeError("a snapshot is bytes, a path or a binary file")


def open_target(target: ExportTarget) -> tuple[IO[bytes], bool]:
    """The file to write an export to, and whether this client opened it (and so closes it)."""
    if isinstance(target, str | os.PathLike):
        return open(os.fspath(target), "wb"), True
    if isinstance(target, io.TextIOBase):
        raise TypeError("an export is written to a binary file")
    return target, False
