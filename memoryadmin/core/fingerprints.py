"""Keyed fingerprints: what lets memoryadmin recognise text or a person without keeping them."""

from __future__ import annotations

import hashlib
import hmac
import re
import unicodedata

from django.conf import settings

_PUNCTUATION_OR_SYMBOL = re.compile(r"[^\w\s]|_", re.UNICODE)
_SPACE = re.compile(r"\s+", re.UNICODE)


def normalise_text(text: str) -> str:
    """NFKC, case-folded, punctuation dropped, white space collapsed."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _PUNCTUATION_OR_SYMBOL.sub(" ", text)
    return _SPACE.sub(" ", text).strip()


def _hmac(message: str) -> str:
    return hmac.new(settings.TOMBSTONE_KEY.encode(), message.encode(), hashlib.sha256).hexdigest()


def text_fingerprint(text: str) -> str:
    return _hmac("text\x00" + normalise_text(text))


def subject_hmac(namespace_id: int | None, user_id: str) -> str:
    return _hmac(f"subject\x00{namespace_id}\x00{user_id}")
