"""Keyed fingerprints: what lets memoryadmin recognise text or a person without keeping them."""

from __future__ import annotations

import hashlib
import hmac
import re
import unicodedata

from django.conf import settings

_PUNCTUATION_OR_SYMBOL = re.compile(r"[^\w\s]|_", re.UNICODE)
_SPACE = re.compile(r"\s+", re.UNICODE)
# Characters that show nothing: format characters (Unicode category Cf: soft hyphen, zero-width
# space and joiners, word joiner, bidirectional marks, tags), variation selectors and the combining
# grapheme joiner. They are removed, not read as separators, so "li\u00adkes" is "likes" and an
# invisible character cannot bring a forgotten text back.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180b-\u180f"
    "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufe00-\ufe0f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f\U000e0100-\U000e01ef]"
)


def visible_text(text: str) -> str:
    """The text without its invisible characters."""
    return _INVISIBLE.sub("", text)


def normalise_text(text: str) -> str:
    """Invisible characters removed, NFKC, case-folded, punctuation dropped, white space collapsed."""
    text = unicodedata.normalize("NFKC", visible_text(text)).casefold()
    text = _PUNCTUATION_OR_SYMBOL.sub(" ", text)
    return _SPACE.sub(" ", text).strip()


def _hmac(message: str) -> str:
    return hmac.new(settings.TOMBSTONE_KEY.encode(), message.encode(), hashlib.sha256).hexdigest()


def text_fingerprint(text: str) -> str:
    return _hmac("text\x00" + normalise_text(text))


# Spaces other than the ASCII one (no-break, narrow, figure, thin, ideographic…): one between two letters may
# split a word without showing. Read as a space by the fingerprint, so it cannot be told from one between words.
_SPACE_IN_A_WORD = re.compile(r"(?<=\w)[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000](?=\w)")


def text_fingerprints(text: str) -> tuple[str, ...]:
    """The text's fingerprint and, when such a space sits between two letters, the fingerprint of the text with
    it removed: a tombstone is checked against both, so "li\u00a0kes" cannot bring back "likes". The stored
    fingerprint stays the first, so tombstones written before keep matching."""
    return (text_fingerprint(text), *other_text_fingerprints(text))


def other_text_fingerprints(text: str) -> tuple[str, ...]:
    """The fingerprints of `text_fingerprints` after the first: for a caller that has the first already."""
    joined = _SPACE_IN_A_WORD.sub("", text)
    return () if joined == text else (text_fingerprint(joined),)


def subject_hmac(namespace_id: int | None, user_id: str) -> str:
    return _hmac(f"subject\x00{namespace_id}\x00{user_id}")
