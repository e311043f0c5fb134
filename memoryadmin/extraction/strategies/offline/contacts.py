"""An email address or phone number the speaker gives as their own, wherever it stands in the message.

People give a new address in passing far more often than in a sentence of its own: "finally ditched hotmail.
it's james.mcallister@proton.me, update your contacts x", "lost my sim so I'm on a different line: 0812 555
0199", "cell is (415) 555-0132". Each gives "Pat's email is …" (or phone number), which supersedes the one
before. What is someone else's ("my brother's new number is …", "his email"), a second one for work, the old
one ("the old 0803 one is gone"), a service's or a question ("should I use x@y.com?") gives nothing.
"""

from __future__ import annotations

import re

from memoryadmin.extraction.strategies.offline.lexicon import RELATIONS
from memoryadmin.extraction.strategies.offline.phrases import SENTENCE_BREAK, asks, one_of, rx

_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}\b", re.IGNORECASE)
_PHONE = rx(r"(?<![\w/.,:-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,5}\)[ .-]?)?\d{2,5}(?:[ .-]\d{2,6}){1,4}(?![\w/]|[.,:-]\d)")
# A number is a phone number only where the message says so: "number", "cell", "text me on", "new line".
_PHONE_WORDS = re.compile(
    r"\b(?:number|no\.|phone|mobile|cell|line|sim|whatsapp|text|call|calls|ring|reach|contact|digits)\b", re.IGNORECASE
)
_DATE_LIKE = re.compile(r"^\d{4}[-./]\d{1,2}[-./]\d{1,2}$|^\d{1,2}[-./]\d{1,2}[-./]\d{2,4}$")
_WHAT = one_of("number | email | e-mail | address | cell | mobile | phone | line | contact | details | whatsapp")
# Whose it is, when not the speaker's: "my brother's new number", "his email", "Dad's cell".
_SOMEONE_ELSES = re.compile(
    r"\b(?!my\b|our\b)(?:[a-z]+'s|his|her|their|your)\s+(?:\w+\s+){0,2}?" + _WHAT + r"\b|"
    r"\b(?:for|to|with)\s+(?:my|our|his|her)\s+(?:\w+\s+)?(?:" + "|".join(sorted(RELATIONS)) + r")\b|"
    # "My husband's set himself up an email at last: …".
    r"^\W*(?i:my|our)\s+(?:\w+\s+)?(?:" + "|".join(sorted(RELATIONS)) + r")(?:'s)?\s+(?!and\s+i\b)"
)
# The speaker's own, said so right before it: "letting my landlord know my number's changed to (415) 555-0196".
_MINE = rx(
    r"\bmy\s+(?:new\s+)?(?:phone\s+|mobile\s+|cell\s+)?(?:number|e-?mail|whatsapp)(?:'s|\s+is|\s+has)?\s+"
    r"(?:changed\s+to|now|is|as)\b"
)
# A second one, a service's, or one that is not the speaker's to give: "my work line", "the support email".
_NOT_THE_ONE = rx(
    r"\b(?:work|office|business|company|support|helpline|hotline|customer\s+service|reception|emergency|"
    r"landline|fax|second|separate|backup|spare|other|extra|alternate|alternative)\s+(?:\w+\s+){0,3}?"
    r"(?:number|e-?mail|address|line|cell|mobile|phone|sim|account|id)\b|"
    r"\b(?:whether|should|would|wish)\b|"
    # The same one said again: "my number is still 312-555-0134"; one of the past: "I used to have …".
    r"\b(?:still|same|as\s+before|as\s+always|reminder|used\s+to|back\s+(?:in|when|then)|years\s+ago)\b|"
    # Another way to reach them: "try the office on 0161 496 0000".
    r"\b(?:office|work|landline|home|reception)\s+(?:on|at)\b|"
    # Numbers of other things: "order number 4411 2233", "my booking ref 1234 5678".
    r"\b(?:order|account|tracking|reference|ref|booking|confirmation|flight|invoice|card|policy|case|ticket|pin|"
    r"passport|licen[cs]e|serial|model|room|seat|bus|route|house|unit|registration|student|employee|id)\s+"
    r"(?:no\.?|number|num|#|code)\b"
)
# Said of a value to mean it is no longer the one: "the old 0803 one is gone", "my old number 555-0142".
_OLD = rx(r"\b(?:old|former|previous|ex)\b[^.!?,:]{0,12}$")
# Given as someone else's, right before it: "add my fiancé too, he's jonas.b@gmx.de", "text her on 0412 …".
_THEIRS = rx(
    r"\b(?:he's|she's|he\s+is|she\s+is|they're|they\s+are|his\s+is|hers\s+is|(?:him|her|them)\s+(?:at|on))\s*:?\s*$"
)
MIN_PHONE_DIGITS = 7
MAX_PHONE_DIGITS = 15


def contacts_in(content: str) -> list[tuple[str, str]]:
    """(attribute, value) for each email address and phone number the speaker gives as their own, in order."""
    if "@" not in content and not any(ch.isdigit() for ch in content):
        return []
    found: list[tuple[str, str]] = []
    prior = ""
    for sentence in SENTENCE_BREAK.split(content):
        # "new number!! it's 555-0199", "I've changed my number! The new one is…": a short sentence before may say
        # what the number is.
        told, prior = prior, sentence or ""
        # A question asks, unless it carries the speaker's own ("…letting him know my number's changed to …?").
        if not sentence or (asks(sentence) and not _MINE.search(sentence)):
            continue
        if _NOT_THE_ONE.search(sentence) or (_SOMEONE_ELSES.search(sentence) and not _MINE.search(sentence)):
            continue
        for match in _EMAIL.finditer(sentence):
            before = sentence[: match.start()]
            if not _OLD.search(before) and not _THEIRS.search(before):
                found.append(("email", match.group().rstrip(".")))
        if not _PHONE_WORDS.search(sentence) and not (len(told.split()) <= 8 and _PHONE_WORDS.search(told)):
            continue
        for match in _PHONE.finditer(sentence):
            value = match.group().strip()
            digits = sum(ch.isdigit() for ch in value)
            if not MIN_PHONE_DIGITS <= digits <= MAX_PHONE_DIGITS or _DATE_LIKE.match(value):
                continue
            before = sentence[: match.start()]
            if (
                "@" in sentence[max(0, match.start() - 1) : match.end() + 1]
                or _OLD.search(before)
                or _THEIRS.search(before)
            ):
                continue
            found.append(("phone_number", value))
    return found
