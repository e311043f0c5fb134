"""Privacy links never reach a log.

A privacy link is a bearer token in a URL path (`/privacy/<token>/...`), and
request paths are logged everywhere: Django's warnings for 4xx and 5xx answers,
the development server, the web server's access log, tracebacks. This filter,
attached to every handler (settings.LOGGING, and the web worker's handlers),
rewrites the token to `[link]` before a record is written.
"""

from __future__ import annotations

import logging
import re

PRIVACY_PATH = re.compile(r"(/privacy/)[^/\s?#\"'<>]+")
MARK = "/privacy/"


def redact(text: str) -> str:
    return PRIVACY_PATH.sub(r"\1[link]", text)


class RedactPrivacyLinks(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record is the logging module's to report
            return True
        if MARK in message:
            record.msg, record.args = redact(message), None
        if record.exc_info and not record.exc_text:
            text = logging.Formatter().formatException(record.exc_info)
            if MARK in text:
                record.exc_text = redact(text)
        if record.stack_info and MARK in record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True
