"""Privacy links never reach a log.

A privacy link is a bearer token in a URL path (`/privacy/<token>/...`), and
request paths are logged everywhere: Django's warnings for 4xx and 5xx answers,
the development server, the web server's access log, tracebacks. This filter,
attached to every handler (settings.LOGGING, and the web worker's handlers),
rewrites the token to `[link]` before a record is written.

A path is judged as a server or a proxy may read it, not as written: percent-
encoding decoded, case folded, empty and dot segments (`.`, `..`) resolved. So
`/privacy/./<token>/`, `/PRIVACY/<token>/` and `/%70rivacy/<token>/` are
redacted like `/privacy/<token>/`; such a path is logged in its normalised form.
"""

from __future__ import annotations

import logging
import re
from urllib.parse import quote, unquote

# A path, with the scheme and host of a full URL kept apart; it ends where a log line's path
# would (white space, quotes, angle brackets), its query and fragment left as they are.
PATH = re.compile(r"(?P<origin>[A-Za-z][A-Za-z0-9+.-]*://[^/\s\"'<>]*)?(?P<path>/[^\s\"'<>?#]*)")
SEGMENT = "privacy"
LINK = "[link]"
DECODE_ROUNDS = 3
# Encoded again once normalised, so a decoded line break or control character never reaches a log.
KEEP = "!$&'()*+,;=:@[]~"


def _decoded(path: str) -> str:
    for _ in range(DECODE_ROUNDS):
        once = unquote(path)
        if once == path:
            break
        path = once
    return path


def _normalised(path: str) -> list[str]:
    """The path's segments once decoded and dot segments resolved (RFC 3986, 5.2.4), empty ones dropped."""
    segments: list[str] = []
    for segment in _decoded(path).replace("\\", "/").split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if segments:
                segments.pop()
            continue
        segments.append(segment)
    return segments


def _redacted_path(match: re.Match[str]) -> str:
    path = match.group("path")
    if SEGMENT not in _decoded(path).casefold():
        return match.group(0)
    segments = _normalised(path)
    for i, segment in enumerate(segments):
        if segment.casefold() == SEGMENT and i + 1 < len(segments):
            segments[i] = SEGMENT
            segments[i + 1] = LINK
    trailing = "/" if path.endswith(("/", "/.", "/..")) and segments else ""
    path = "/" + "/".join(quote(segment, safe=KEEP) for segment in segments) + trailing
    return (match.group("origin") or "") + path


def redact(text: str) -> str:
    return PATH.sub(_redacted_path, text)


def _may_hold_a_link(text: str) -> bool:
    # Cheap test first: every privacy path holds a slash and, spelt or encoded, an "rivacy" or a "%".
    folded = text.casefold()
    return "/" in folded and ("rivacy" in folded or "%" in folded)


class RedactPrivacyLinks(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record is the logging module's to report
            return True
        if _may_hold_a_link(message):
            redacted = redact(message)
            if redacted != message:
                record.msg, record.args = redacted, None
        if record.exc_info and not record.exc_text:
            text = logging.Formatter().formatException(record.exc_info)
            if _may_hold_a_link(text):
                record.exc_text = redact(text)
        if record.stack_info and _may_hold_a_link(record.stack_info):
            record.stack_info = redact(record.stack_info)
        return True
