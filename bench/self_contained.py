"""The automatic check of issue 22's self-contained memories: no unresolved pronoun as subject or object.

A memory read a year later, alone, must say what it is about: "Sam walks them every morning"
does not ("them"?), "Sam walks Andrew's dogs every morning" does. The check reads one memory's
text and its subject (the speaker it is about) and finds the pronouns that stand for a thing or a
person as a subject or an object, then asks whether the memory itself gives them something to
stand for:

- it, this, that, these, those, one: resolved only by a noun phrase earlier in the same or the
  previous sentence of the memory ("Sam bought a bike and loves it");
- he, she, him, her: only by a name other than the speaker's earlier in the memory;
- they, them: by the speaker's name or a plural noun phrase earlier in the memory. The offline
  strategy writes later mentions of the speaker as "they/them" (gender is never guessed), so a
  "them" in a memory that names its speaker counts as the speaker: the check is lenient there.

Not counted: determiners ("this recipe", "that day", "her sister"), "that" joining a clause ("said
that…", "so that"), and fixed phrases where "it" stands for nothing ("made it", "it's time", "love
it when"). Utterances (turns kept as said) are not checked: they are quotes, not memories rewritten.
"""

from __future__ import annotations

import re


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|[.!?;]|,")
_PRONOUNS = _words("it this that these those one he she him her they them")
_AUX = _words(
    """is was are were 's 'll 'd has had have will would can could should might must does did do made makes
helps helped means meant gives gave keeps kept takes took feels felt looks looked seems seemed
sounds reminds reminded brings brought lets let gets got"""
)
_FIXED_IT = re.compile(
    r"\b(?:made|make|makes|making|got|get|gets|getting|take|takes|took)\s+it\b(?!\s+(?:to|for|from|into|up|home|"
    r"back|out|off|on|in|done|work|happen))|\bit's\s+(?:time|been\s+(?:a\s+while|ages|forever|too\s+long))|"
    r"\bit\s+(?:takes|took|seems|seemed|turns\s+out|turned\s+out|looks\s+like|feels\s+like)\b|"
    r"\b(?:love|loves|hate|hates|like|likes)\s+it\s+when\b|\bworth\s+it\b|\bgo\s+for\s+it\b|\bat\s+it\b|"
    r"\bit\s+all\b|\bof\s+it\s+all\b|\bcall\s+it\s+a\b|\bhang\s+of\s+it\b|\bit\s+was\s+\w+\s+to\b|"
    r"\bit's\s+\w+\s+to\b|\bit\s+is\s+\w+\s+to\b|\bfor\s+it\b",
    re.IGNORECASE,
)
_DETERMINED = _words("this that these those her one")
_CLAUSE_JOIN = _words("and but so because when while if since after before until though although")
_NOUN_PHRASE = re.compile(
    r"\b(?:a|an|the|my|our|their|his|her|its|some|two|three|this|that|these|those|[A-Z][a-z]+'s)\s+"
    r"(?:[\w-]+\s+){0,2}?[a-z][\w-]+|^[A-Z][a-z]+ing\b",
    re.IGNORECASE,
)
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+\b")


def unresolved_pronouns(text: str, subject: str = "") -> list[str]:
    """The pronouns of `text` used as a subject or an object with nothing in the text to stand for."""
    found = []
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", text) if s]
    for index, sentence in enumerate(sentences):
        context = " ".join(sentences[max(0, index - 1) : index + 1])
        tokens = _WORD.findall(sentence)
        for position, token in enumerate(tokens):
            low = token.lower()
            if low not in _PRONOUNS:
                continue
            before = tokens[position - 1].lower() if position else ""
            after = tokens[position + 1].lower() if position + 1 < len(tokens) else ""
            if not _stands_alone(low, before, after):
                continue
            offset = _offset(sentence, tokens, position)
            if low == "it" and _FIXED_IT.search(sentence[max(0, offset - 12) : offset + 25]):
                continue
            prior = context[: len(context) - len(sentence) + offset]
            if not _has_antecedent(low, prior, subject):
                found.append(low)
    return found


def is_self_contained(text: str, subject: str = "") -> bool:
    return not unresolved_pronouns(text, subject)


def _stands_alone(pronoun: str, before: str, after: str) -> bool:
    """Whether the pronoun is a noun phrase of its own rather than a determiner or a joining word."""
    ends = after in ("", ".", "!", "?", ";", ",") or after in _CLAUSE_JOIN
    if pronoun in _DETERMINED:
        if pronoun == "that" and (before not in ("", ",", ".") and after not in _AUX and not ends):
            return False  # "said that she…", "the book that I…"
        if pronoun == "one":
            return ends and before not in ("the", "this", "that", "every", "no", "each", "any")
        return ends or after in _AUX
    return True


def _offset(sentence: str, tokens: list[str], position: int) -> int:
    at = 0
    for token in tokens[: position + 1]:
        at = sentence.find(token, at) + (len(token) if token is not tokens[position] else 0)
    return at


def _has_antecedent(pronoun: str, prior: str, subject: str) -> bool:
    if pronoun in ("he", "she", "him", "her"):
        return any(name != subject for name in _NAME.findall(prior))
    if pronoun in ("they", "them"):
        if subject and subject in prior:
            return True
        return any(p.rstrip().endswith("s") for p in _NOUN_PHRASE.findall(prior))
    return bool(_NOUN_PHRASE.search(prior))
