"""The `rules` strategy's reading of a message: sentences, clauses, and the facts their patterns state."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from memoryadmin.extraction.strategies.grammar import third_person as grammar_third_person
from memoryadmin.extraction.strategies.grammar import third_singular
from memoryadmin.extraction.strategies.offline.speech import ABBREVIATIONS, MAX_CLAUSE_CHARS, sentences
from memoryadmin.extraction.strategies.rules.patterns import (
    AGE,
    ALLERGY,
    ATTRIBUTE_NON_NOUNS,
    BAD_FACT_VALUE_START,
    CATEGORIES,
    CLAUSE_BREAK,
    DIET,
    DISCOURSE_ATTRIBUTES,
    FILLER,
    FIRST_PERSON,
    GREETING,
    GREETING_NAME,
    HYPOTHETICAL,
    LANGUAGE,
    LEADING_SYMBOLS,
    MAX_REMEMBER_WORDS,
    MAX_VALUE_WORDS,
    MY_CONTRACTED,
    MY_IS,
    NAME_PATTERNS,
    NEGATED_PREFERENCE_WORDS,
    NOT_GREETING_NAMES,
    NOT_NAMES,
    OBJECT_PRONOUNS,
    PLACE_CONNECTORS,
    PLACE_PATTERNS,
    PLACE_STOP,
    PREFERENCE_BAD_START,
    PREFERENCE_FAN,
    PREFERENCE_STAND,
    PREFERENCE_VERB,
    QUESTION_START,
    QUOTES,
    REMEMBER,
    REPORTING_TAIL,
    SENSITIVE_ATTRIBUTES,
    TITLES,
    TRAILING_NEGATION,
    VALUE_BREAK,
    VALUE_TAIL,
    WORD,
    WORK_BAD_START,
    WORK_PATTERNS,
)
from memoryadmin.memories.models import MemoryType


@dataclass(frozen=True)
class Fact:
    text: str
    category: str
    memory_type: str
    topics: tuple[str, ...]
    entities: tuple[str, ...]


# --- helpers ---------------------------------------------------------------


def _clauses(sentence: str) -> Iterator[tuple[int, str, bool]]:
    """(start offset, clause, reported) for each clause of the sentence."""
    start = 0
    reported = False
    for match in CLAUSE_BREAK.finditer(sentence):
        clause = sentence[start : match.start()]
        yield start, clause, reported
        reported = bool(REPORTING_TAIL.search(clause + match.group(0)))
        start = match.end()
    yield start, sentence[start:], reported


def _starts_with(value: str, prefixes: tuple[str, ...]) -> bool:
    low = value.lower()
    return any(low == p or low.startswith(p + " ") or low.startswith(p + "'") for p in prefixes)


def _object_phrase(value: str, max_words: int = MAX_VALUE_WORDS) -> str | None:
    """The object of a clause: cut where the clause moves on, pronouns turned to the third person."""
    cut = VALUE_BREAK.search(value)
    if cut:
        value = value[: cut.start()]
    value = VALUE_TAIL.sub("", value.strip().strip("\"'")).strip().rstrip(".")
    if not value or TRAILING_NEGATION.search(value):
        return None
    words = value.split()
    if len(words) > max_words:
        return None
    if any(w.lower() in {"i", "i'm", "i've", "i'd", "i'll"} for w in words):
        return None
    return " ".join(OBJECT_PRONOUNS.get(w.lower(), w) for w in words)


def _proper_phrase(value: str, *, allow_lower: bool, max_words: int = 5) -> str | None:
    """A place or organisation name: capitalised words (with connectors), e.g. "Lyon, France", "the Hague"."""
    words = value.split()
    out: list[str] = []
    used_comma = False
    index = 0
    while index < len(words) and len(out) < max_words:
        raw = words[index]
        core = raw.rstrip(".,!?;:)\"'")
        nxt = words[index + 1] if index + 1 < len(words) else ""
        next_capital = bool(nxt) and nxt[0].isupper()
        if not core:
            break
        if core[0].isupper() or (out and core.isdigit()):
            out.append(core)
        elif allow_lower and core.isalpha() and core.lower() not in PLACE_STOP and len(out) < 3:
            out.append(core.capitalize())
        elif next_capital and (
            (out and core.lower() in PLACE_CONNECTORS and not raw.endswith(",")) or (not out and core.lower() == "the")
        ):
            out.append(core)
        else:
            break
        tail = raw[len(core) :]
        if tail.startswith(","):
            # "Lyon, France" joins only when the capitalised part ends the clause.
            rest = words[index + 1 :]
            if not used_comma and rest and all(w[0].isupper() for w in rest if w) and len(rest) <= 3:
                out[-1] += ","
                used_comma = True
            else:
                break
        elif tail and not (tail == "." and core.lower() in ABBREVIATIONS):
            break
        index += 1
    while out and (out[-1].lower() in PLACE_CONNECTORS or out[-1].lower() == "the"):
        out.pop()
    phrase = " ".join(out).rstrip(",")
    return phrase or None


def _name_phrase(value: str, *, allow_lower: bool) -> str | None:
    """Up to four name words; lower case only when the whole message is (some people type that way)."""
    words = value.split()
    out: list[str] = []
    for raw in words[:5]:
        core = raw.rstrip(".,!?;:)\"'")
        if not core:
            break
        low = core.lower()
        if not out and low in NOT_NAMES:
            return None
        if not out and low in TITLES:
            out.append(core.capitalize())
        elif core[0].isupper() and core.replace("-", "").replace("'", "").isalpha():
            out.append(core)
        elif allow_lower and core.isalpha():
            if low in PLACE_STOP:
                break
            out.append(core.capitalize())
        else:
            break
        if raw != core:
            break
        if len(out) == 4:
            break
    if out and out[-1].lower() in TITLES:
        out.pop()
    return " ".join(out) or None


def _entities(phrase: str) -> tuple[str, ...]:
    """Runs of capitalised words in a phrase: the names in it."""
    found: list[str] = []
    run: list[str] = []
    for word in WORD.findall(phrase):
        if word[0].isupper():
            run.append(word.rstrip(".,"))
        elif run and word.lower() in PLACE_CONNECTORS:
            run.append(word)
        else:
            while run and run[-1].lower() in PLACE_CONNECTORS:
                run.pop()
            if run:
                found.append(" ".join(run))
            run = []
    while run and run[-1].lower() in PLACE_CONNECTORS:
        run.pop()
    if run:
        found.append(" ".join(run))
    return tuple(dict.fromkeys(e for e in found if e not in {"User", "I", "I'm"}))


def third_person(text: str) -> str:
    """A first-person statement of the user in the third person ("I love jazz" -> "User loves jazz")."""
    return grammar_third_person(text, "User")


# --- the rules ---------------------------------------------------------------


@dataclass(frozen=True)
class _Clause:
    text: str
    prefix: str  # the sentence up to this clause
    greeted: bool
    allow_lower: bool


def _is_hypothetical(clause: _Clause, upto: str) -> bool:
    return bool(HYPOTHETICAL.search(clause.prefix) or HYPOTHETICAL.search(upto))


def _match_name(clause: _Clause) -> Fact | None:
    for pattern, template in NAME_PATTERNS:
        match = pattern.match(clause.text)
        if match:
            name = _name_phrase(clause.text[match.end() :], allow_lower=clause.allow_lower)
            if name and not _is_hypothetical(clause, clause.text[: match.end()]):
                return Fact(template.format(name), "name", MemoryType.SEMANTIC, ("identity",), (name,))
            return None
    if clause.greeted:
        match = GREETING_NAME.match(clause.text)
        if match:
            rest = clause.text[match.end() :]
            name = _name_phrase(rest, allow_lower=False)
            if name and name.split()[0].lower() not in NOT_GREETING_NAMES and len(rest.split()) <= len(name.split()):
                return Fact(f"User's name is {name}", "name", MemoryType.SEMANTIC, ("identity",), (name,))
    return None


def _match_place(clause: _Clause) -> Fact | None:
    for pattern, template in PLACE_PATTERNS:
        match = pattern.match(clause.text)
        if match:
            place = _proper_phrase(clause.text[match.end() :], allow_lower=clause.allow_lower)
            if not place or _is_hypothetical(clause, clause.text[: match.end() + len(place)]):
                return None
            return Fact(template.format(place), "place", MemoryType.SEMANTIC, ("location",), (place.rstrip(","),))
    return None


def _match_work(clause: _Clause) -> Fact | None:
    for pattern, template in WORK_PATTERNS:
        match = pattern.match(clause.text)
        if match:
            value = _object_phrase(clause.text[match.end() :], max_words=6)
            if not value or _starts_with(value, WORK_BAD_START) or value[0].isdigit():
                return None
            if _is_hypothetical(clause, clause.text[: match.end() + len(value)]):
                return None
            prep = match.groupdict().get("prep")
            text = template.format(value, prep=prep.lower() if prep else "")
            return Fact(text, "work", MemoryType.SEMANTIC, ("work",), _entities(value))
    return None


def _preference(clause: _Clause, match: re.Match[str], wording: str) -> Fact | None:
    value = _object_phrase(clause.text[match.end() :])
    if not value or _starts_with(value, PREFERENCE_BAD_START):
        return None
    if _is_hypothetical(clause, clause.text[: match.end() + len(value)]):
        return None
    return Fact(f"User {wording} {value}", "preference", MemoryType.PREFERENCE, ("preferences",), _entities(value))


def _match_preference(clause: _Clause) -> Fact | None:
    match = PREFERENCE_VERB.match(clause.text)
    if match:
        verb = match.group("verb").lower()
        if match.group("neg"):
            wording = NEGATED_PREFERENCE_WORDS.get(verb)
            return _preference(clause, match, wording) if wording else None
        return _preference(clause, match, third_singular(verb))
    match = PREFERENCE_STAND.match(clause.text)
    if match:
        return _preference(clause, match, "dislikes")
    match = PREFERENCE_FAN.match(clause.text)
    if match:
        return _preference(clause, match, "dislikes" if match.group("neg") else "likes")
    return None


def _match_fact(clause: _Clause) -> Fact | None:
    match = MY_IS.match(clause.text) or MY_CONTRACTED.match(clause.text)
    if match:
        return _my_attribute(clause, match)
    match = ALLERGY.match(clause.text)
    if match:
        value = _object_phrase(clause.text[match.end() :], max_words=5)
        if value and not _starts_with(value, BAD_FACT_VALUE_START) and not _is_hypothetical(clause, clause.text):
            return Fact(f"User is allergic to {value}", "fact", MemoryType.SEMANTIC, ("health",), _entities(value))
        return None
    match = DIET.match(clause.text)
    if match and not _is_hypothetical(clause, clause.text):
        diet = match.group("v").lower().replace(" ", "-")
        return Fact(f"User is {diet}", "fact", MemoryType.SEMANTIC, ("diet",), ())
    match = AGE.match(clause.text)
    if match and not _is_hypothetical(clause, clause.text):
        return Fact(f"User is {match.group('v')} years old", "fact", MemoryType.SEMANTIC, ("identity",), ())
    match = LANGUAGE.match(clause.text)
    if match:
        language = _proper_phrase(clause.text[match.end() :], allow_lower=False, max_words=3)
        if language and not _is_hypothetical(clause, clause.text[: match.end() + len(language)]):
            qualifier = (match.group("q") or "").strip().lower()
            text = f"User speaks {qualifier + ' ' if qualifier else ''}{language}"
            return Fact(text, "fact", MemoryType.SEMANTIC, ("languages",), (language,))
    return None


def _my_attribute(clause: _Clause, match: re.Match[str]) -> Fact | None:
    attr = match.group("attr").lower()
    verb = (match.groupdict().get("verb") or "is").lower()
    words = attr.split()
    if any(w in ATTRIBUTE_NON_NOUNS for w in words) or words[-1] in DISCOURSE_ATTRIBUTES:
        return None
    if SENSITIVE_ATTRIBUTES.search(attr) or words == ["name"]:
        return None
    value = _object_phrase(clause.text[match.end() :])
    if not value or _starts_with(value, BAD_FACT_VALUE_START):
        return None
    if _is_hypothetical(clause, clause.text[: match.end() + len(value)]):
        return None
    # "my brother's favourite band" is the brother's taste, not the user's.
    own_taste = re.search(r"\b(?:favou?rites?|preferred|favs?)\b", attr) and "'" not in attr
    memory_type = MemoryType.PREFERENCE if own_taste else MemoryType.SEMANTIC
    topic = attr.replace("'s", "").replace("'", "")
    return Fact(f"User's {attr} {verb} {value}", "fact", memory_type, (topic,), _entities(value))


def _match_remember(sentence: str) -> Fact | None:
    match = REMEMBER.match(sentence)
    if not match:
        return None
    content = sentence[match.end() :].strip().rstrip(".!")
    if content.endswith("?"):
        if not match.group("polite"):
            return None
        content = content.rstrip("?").strip()
    explicit = "that" in (match.group("that") or "").lower() or match.group("trigger").lower().startswith(
        ("remember", "don't", "do not")
    )
    if not content or _starts_with(content, ("to", "when", "where", "what", "how", "why", "who", "it", "this")):
        return None
    words = content.split()
    if len(words) > MAX_REMEMBER_WORDS:
        return None
    if not FIRST_PERSON.search(content) and not (explicit and len(words) >= 3):
        return None
    text = third_person(content)
    return Fact(text, "remember", MemoryType.SEMANTIC, ("noted",), _entities(" ".join(text.split()[1:])))


_CLAUSE_RULES: tuple[tuple[str, Callable[[_Clause], Fact | None]], ...] = (
    ("name", _match_name),
    ("place", _match_place),
    ("work", _match_work),
    ("preference", _match_preference),
    ("fact", _match_fact),
)


def facts_in(text: str, categories: frozenset[str] = frozenset(CATEGORIES)) -> list[Fact]:
    """The facts the user states about themselves in one message, in order."""
    text = text.translate(QUOTES)
    allow_lower = not any(ch.isupper() for ch in text)
    facts: list[Fact] = []
    after_greeting = False
    for raw_sentence in sentences(text):
        sentence = raw_sentence.strip()
        greeted_before, after_greeting = after_greeting, bool(GREETING.fullmatch(sentence + " "))
        if "remember" in categories:
            fact = _match_remember(FILLER.sub("", sentence))
            if fact:
                facts.append(fact)
                continue
        if sentence.rstrip("\"')").endswith("?"):
            continue
        for start, raw_clause, reported in _clauses(sentence):
            if reported or len(raw_clause) > MAX_CLAUSE_CHARS:
                continue
            greeting = GREETING.match(raw_clause)
            stripped = raw_clause[greeting.end() :] if greeting else raw_clause
            stripped = FILLER.sub("", LEADING_SYMBOLS.sub("", stripped)).strip()
            if not stripped or stripped[0] in "\"'" or QUESTION_START.match(stripped):
                continue
            prefix = sentence[:start]
            greeted = bool(greeting) or bool(GREETING.fullmatch(prefix.strip() + " ")) or (greeted_before and not start)
            clause = _Clause(stripped, prefix, greeted, allow_lower)
            for category, rule in _CLAUSE_RULES:
                if category not in categories:
                    continue
                fact = rule(clause)
                if fact:
                    facts.append(fact)
                    break
    return facts
