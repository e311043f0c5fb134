"""The `rules` strategy: offline, deterministic extraction of first-person facts.

It reads only what the user says about themselves, one clause at a time, and
writes each fact in the third person ("User lives in Lyon"). A clause counts
only when its first words are the user's own ("I live in…", "my name is…");
questions, hypotheticals, reported speech and statements about other people
are left alone. docs/extraction.md lists the patterns and their limits.

One module on purpose: most of it is the table of patterns, which reads best whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from memoryadmin.core.errors import InvalidInput
from memoryadmin.extraction.strategies.base import Batch, Candidate
from memoryadmin.extraction.strategies.offline.speech import ABBREVIATIONS, sentences
from memoryadmin.memories.models import MemoryType

CATEGORIES = ("name", "place", "work", "preference", "fact", "remember")
MAX_VALUE_WORDS = 8
MAX_REMEMBER_WORDS = 40
MAX_CLAUSE_CHARS = 400


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _phrases(text: str) -> tuple[str, ...]:
    return tuple(phrase.strip() for phrase in text.split(","))


# --- sentences and clauses -------------------------------------------------

_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "´": "'"})
# A new clause starts where a conjunction or comma hands the sentence back to the user.
_CLAUSE_BREAK = re.compile(
    r"\s*;\s*|\s+[-–—]\s+|,?\s+(?:and|but|so|plus|also|then|while|whereas)\s+(?=(?:i|my)\b)|[,:]\s+(?=(?:i|my)\b)",
    re.IGNORECASE,
)
# Words that, ending the previous clause, make the next one someone else's words ("as I said" stays the user's).
_REPORTING_TAIL = re.compile(
    r"(?<!\bi )\b(?:said|says|say|told\s+\w+|tells\s+\w+|thinks|thought|asked|asks|wrote|writes|replied|replies|claims|"
    r"claimed|goes|went|was\s+like|is\s+like|texted|messaged|yelled|shouted|whispered|added|insists|insisted)"
    r"\s*[,:]?\s*$",
    re.IGNORECASE,
)
_FILLER = re.compile(
    r"^(?:(?:oh\s+and|and\s+also|well|so|oh|ah|um|uh|actually|btw|by\s+the\s+way|also|and|but|yes|yeah|yep|"
    r"no|nope|ok|okay|fyi|anyway|anyways|honestly|basically|plus|just\s+so\s+you\s+know|for\s+the\s+record|"
    r"for\s+context|fwiw|as\s+you\s+know|as\s+i\s+said|like\s+i\s+said|as\s+i\s+mentioned|currently|now|"
    r"these\s+days|nowadays|at\s+the\s+moment|right\s+now|these\s+days)\b[\s,:!.-]*)+",
    re.IGNORECASE,
)
_GREETING = re.compile(
    r"^(?:hi|hello|hey|hiya|greetings|good\s+(?:morning|afternoon|evening))(?:\s+(?:there|everyone|all))?"
    r"\b[\s,!.-]*",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(
    r"^(?:what|where|when|why|how|who|whom|whose|which|do|does|did|is|are|am|was|were|can|could|would|will|"
    r"should|shall|may|might|have|has|had|isn't|aren't|don't|doesn't|didn't|won't|wouldn't|shouldn't|"
    r"couldn't|can't)\b",
    re.IGNORECASE,
)
# Anything before the fact (or inside it) that makes it imagined, wished, planned or pretended.
_HYPOTHETICAL = re.compile(
    r"\b(?:if|unless|whether|would|wouldn't|could|couldn't|might|maybe|perhaps|suppose|supposing|imagine|"
    r"imagining|pretend|pretending|hypothetically|wish|wished|someday|one\s+day|dream|dreams|dreaming|"
    r"let's\s+say|lets\s+say|assume|assuming|what\s+if|roleplay|role-play|role\s+play|in\s+this\s+story|"
    r"in\s+my\s+story|in\s+my\s+novel|i'd|should)\b",
    re.IGNORECASE,
)
_LEADING_SYMBOLS = re.compile(r"^[^\w\"']+")
_TRAILING_NEGATION = re.compile(r"\b(?:anymore|any\s+more|no\s+more|no\s+longer)\b", re.IGNORECASE)

# --- values ----------------------------------------------------------------

_VALUE_BREAK = re.compile(
    r"\s*[,;:!?()\[\]]|(?<!\bSt)(?<!\bDr)(?<!\bMt)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bInc)(?<!\bLtd)(?<!\bCo)"
    r"\.(?:\s|$)|\s[-–—]\s|\s(?:because|since|although|though|but|when|whenever|while|if|"
    r"unless|until|whereas|so\s+that|as\s+long\s+as|especially|which|who|where|cause|cuz|coz)\b",
    re.IGNORECASE,
)
_VALUE_TAIL = re.compile(
    r"(?:\s+(?:a\s+lot|so\s+much|very\s+much|too\s+much|quite\s+a\s+bit|a\s+bit|too|also|as\s+well|though|lol|"
    r"haha|btw|anyway|actually|now|right\s+now|these\s+days|currently|honestly|really|for\s+real))+$",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ0-9][\wÀ-ÖØ-öø-ÿ'&.-]*")
_OBJECT_PRONOUNS = {"my": "their", "me": "them", "myself": "themselves", "mine": "theirs"}
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'll|i'd|my|me|mine|myself)\b", re.IGNORECASE)

_NOT_NAMES = _words(
    "not a an the later back tomorrow today tonight now soon anytime whenever sometime maybe please again crazy "
    "old names anything whatever on at in by when if after before you it that this what sir madam anytime "
    "everyone everybody nobody someone something nothing here there"
)
_TITLES = _words("mr mrs ms miss dr prof sir dame")
_NOT_GREETING_NAMES = _words(
    "french english german spanish italian american british canadian chinese japanese korean indian irish "
    "scottish welsh dutch swiss swedish danish norwegian finnish polish russian brazilian mexican australian "
    "portuguese greek turkish new back here fine good great okay ok sorry glad happy ready tired done not just "
    "so very also still currently looking trying working going sure excited home"
)
_PLACE_CONNECTORS = _words("of de du la le del des da upon on am an der di y and")
_PLACE_STOP = _words(
    "a an the my our this that here there with for since and but because now at on near by so which where when "
    "to from in of right currently anymore too also for with until till while during around"
)
_WORK_BAD_START = _phrases(
    "night, nights, home, the moment, weekends, the weekend, midnight, noon, dawn, the same time, all, "
    "least, most, first, times, well, much, hard, long, usual, normal, always, though, my own pace, it, "
    "this, that"
)
_PREFERENCE_BAD_START = _phrases(
    "it, that, this, these, those, them, him, her, you, your, yours, what, how, when, where, why, who, "
    "which, whatever, some, one, both, either, neither, the idea, the way, the first, the second, the "
    "third, the last, the other, the former, the latter, the answer, the suggestion, the response, "
    "option, number, talking, chatting, to think, to know, to say, to ask, to hear, hearing, more, less, "
    "so, too, very, a lot, lots, much, all of, everything, anything, nothing, something, everyone, "
    "anyone, if, because, and, but, or, i, i'm, us"
)
# The attribute of "my X is Y" that is conversation, not a fact about the user.
_DISCOURSE_ATTRIBUTES = _words(
    "question questions problem problems issue issues point guess concern concerns understanding bad pleasure "
    "apologies apology answer reply request message code error errors output input bug script program test "
    "tests query fault mistake turn thought thoughts opinion take feeling impression idea plan plans hope "
    "internet connection wifi screen battery account order ticket case suggestion advice point reason "
    "point main worry fear assumption experience"
)
# Never kept, whatever the wording: secrets do not belong in long-term memory.
_SENSITIVE_ATTRIBUTES = re.compile(
    r"\b(?:password|passcode|passphrase|pin|pin\s+code|credit\s+card|card\s+number|cvv|cvc|ssn|"
    r"social\s+security|security\s+code|secret|api\s+key|token|login)\b",
    re.IGNORECASE,
)
_ATTRIBUTE_NON_NOUNS = _words(
    "says said thinks thought believes believed told tells knows knew claims reckons mentioned wrote asked "
    "wants wanted likes loves hates lives works is are was were has had does did will would can could should "
    "i my me you your and or but"
)
_BAD_FACT_VALUE_START = _phrases(
    "that, whether, if, how, what, why, when, where, who, not, so, too, very, really, kind of, sort of, a "
    "bit, being, getting, going, gone, broken, down, dead, missing, late, here, there, ok, okay, fine, "
    "good, bad, great, weird, wrong, correct, right, done, over, up, empty, full, off, out, it, this, the "
    "same, same, like, different, unknown, none, nothing, something, still, also, to"
)

_PAST_OR_MODAL = _words(
    "was were had did went got made said thought knew grew lived moved came saw took gave told became began "
    "bought brought felt found left lost met paid ran sat sold sent spent stood understood won wrote ate drank "
    "drove flew fell forgot heard kept led meant read slept spoke swam taught threw woke wore used can could "
    "will would shall should may might must can't cannot couldn't won't wouldn't shouldn't mustn't didn't "
    "wasn't weren't hadn't"
)
_ADVERBS = _words(
    "really also always usually never often sometimes just only still actually mostly generally absolutely "
    "totally definitely rarely seldom truly honestly currently now"
)
_THIRD_PERSON = {
    "am": ("is", "are"),
    "was": ("was", "were"),
    "have": ("has", "have"),
    "haven't": ("hasn't", "haven't"),
    "do": ("does", "do"),
    "don't": ("doesn't", "don't"),
    "go": ("goes", "go"),
    "be": ("is", "are"),
}
_CONTRACTED_SUBJECT = {
    "i'm": ("User is", "they are"),
    "i've": ("User has", "they have"),
    "i'll": ("User will", "they will"),
    "i'd": ("User would", "they would"),
}

# --- patterns --------------------------------------------------------------

_ADV = (
    r"(?:(?:really|also|currently|now|still|actually|just|recently|finally|originally|mostly|basically|"
    r"technically|officially|happily|both|since|full[- ]time|part[- ]time)\s+)*"
)
_ADV_PREF = (
    r"(?:(?:really|absolutely|also|truly|just|kind\s+of|kinda|totally|generally|usually|honestly|"
    r"definitely|actually|still|do|much|simply|genuinely|especially|particularly|quite|always)\s+)*"
)
_AM = r"i(?:'m|\s+am)\s+"
_HAVE = r"i(?:'ve|\s+have)\s+"


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_NAME_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (_rx(r"^my\s+(?:first\s+|full\s+|real\s+|given\s+)?name(?:'s|\s+is)\s+"), "User's name is {}"),
    (_rx(_AM + r"called\s+"), "User's name is {}"),
    (_rx(r"^(?:you\s+can\s+|please\s+|just\s+)?call\s+me\s+"), "User goes by {}"),
    (_rx(r"^(?:people|everyone|everybody|friends|my\s+friends)\s+call\s+me\s+"), "User goes by {}"),
    (_rx(r"^i\s+" + _ADV + r"go\s+by\s+"), "User goes by {}"),
]
_GREETING_NAME = _rx(_AM + r"(?=[A-Z])")
_PLACE_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (_rx(r"^i\s+" + _ADV + r"(?:live|reside)\s+in\s+"), "User lives in {}"),
    (_rx(_AM + _ADV + r"(?:living|residing|based|located|settled)\s+in\s+"), "User lives in {}"),
    (_rx(_HAVE + _ADV + r"(?:been\s+)?(?:living|lived|based)\s+in\s+"), "User lives in {}"),
    (_rx(_AM + _ADV + r"from\s+"), "User is from {}"),
    (_rx(r"^i\s+" + _ADV + r"come\s+from\s+"), "User is from {}"),
    (_rx(r"^i\s+was\s+born\s+(?:and\s+raised\s+)?in\s+"), "User was born in {}"),
    (_rx(r"^i\s+grew\s+up\s+in\s+"), "User grew up in {}"),
    (_rx(r"^i(?:'ve|\s+have)?\s+" + _ADV + r"(?:moved|relocated)\s+(?:back\s+)?to\s+"), "User moved to {}"),
]
_WORK_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (_rx(r"^i\s+" + _ADV + r"work\s+(?P<prep>at|for|in)\s+"), "User works {prep} {}"),
    (_rx(_AM + _ADV + r"working\s+(?P<prep>at|for|in)\s+"), "User works {prep} {}"),
    (_rx(_HAVE + _ADV + r"(?:been\s+)?work(?:ing|ed)\s+(?P<prep>at|for|in)\s+"), "User works {prep} {}"),
    (_rx(_AM + _ADV + r"employed\s+(?P<prep>at|by)\s+"), "User is employed {prep} {}"),
    (_rx(r"^i\s+" + _ADV + r"work\s+as\s+"), "User works as {}"),
    (_rx(_AM + _ADV + r"working\s+as\s+"), "User works as {}"),
]
_PREFERENCE_VERB = _rx(
    r"^i\s+"
    + _ADV_PREF
    + r"(?P<neg>don't\s+|do\s+not\s+|didn't\s+|never\s+)?"
    + _ADV_PREF
    + r"(?P<verb>prefer|like|love|enjoy|adore|hate|dislike|detest|loathe|despise)\s+"
)
_PREFERENCE_STAND = _rx(r"^i\s+" + _ADV_PREF + r"(?:can't|cannot|can\s+not)\s+stand\s+")
_PREFERENCE_FAN = _rx(
    _AM + _ADV_PREF + r"(?P<neg>not\s+)?(?:a\s+(?:big\s+|huge\s+|massive\s+)?fan\s+of|into|fond\s+of|"
    r"obsessed\s+with|passionate\s+about|crazy\s+about|keen\s+on)\s+"
)
_PREFERENCE_WORDS = {
    "prefer": "prefers",
    "like": "likes",
    "love": "loves",
    "enjoy": "enjoys",
    "adore": "adores",
    "hate": "hates",
    "dislike": "dislikes",
    "detest": "detests",
    "loathe": "loathes",
    "despise": "despises",
}
_NEGATED_PREFERENCE_WORDS = {"like": "dislikes", "enjoy": "does not enjoy", "love": "does not love"}
_MY_IS = _rx(r"^my\s+(?P<attr>[a-z][a-z'-]*(?:\s+[a-z][a-z'-]*){0,3}?)\s+(?P<verb>is|are)\s+")
_MY_CONTRACTED = _rx(r"^my\s+(?P<attr>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,3}?)'s\s+")
_ALLERGY = _rx(_AM + _ADV + r"(?:severely\s+|very\s+|highly\s+|mildly\s+|deathly\s+)?allergic\s+to\s+")
_DIET = _rx(
    _AM + _ADV + r"(?:an?\s+)?(?P<v>vegetarian|vegan|pescatarian|lactose[- ]intolerant|gluten[- ]free|diabetic|"
    r"celiac|coeliac|teetotal|teetotaler|teetotaller)(?=\s*[.!]?\s*$)"
)
_AGE = _rx(_AM + r"(?P<v>\d{1,3})\s*(?:years?\s+old|yo|y/o)(?=\s*[.!]?\s*$)")
_LANGUAGE = _rx(r"^i\s+" + _ADV + r"speak\s+(?P<q>(?:fluent|some|a\s+little|basic|native|good|decent)\s+)?")
_REMEMBER = _rx(
    r"^(?:(?:please|pls|plz|kindly)\s+)?(?P<polite>(?:can|could|will)\s+you\s+(?:please\s+)?)?"
    r"(?P<trigger>remember|don't\s+forget|do\s+not\s+forget|keep\s+in\s+mind|note|make\s+a\s+note|take\s+note|"
    r"for\s+future\s+reference)"
    r"(?P<that>(?:\s*,?\s*(?:that|this|of\s+this|for\s+(?:the\s+)?future|for\s+next\s+time|for\s+later|"
    r"going\s+forward))*)\s*[:,-]?\s+"
)


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
    for match in _CLAUSE_BREAK.finditer(sentence):
        clause = sentence[start : match.start()]
        yield start, clause, reported
        reported = bool(_REPORTING_TAIL.search(clause + match.group(0)))
        start = match.end()
    yield start, sentence[start:], reported


def _starts_with(value: str, prefixes: tuple[str, ...]) -> bool:
    low = value.lower()
    return any(low == p or low.startswith(p + " ") or low.startswith(p + "'") for p in prefixes)


def _object_phrase(value: str, max_words: int = MAX_VALUE_WORDS) -> str | None:
    """The object of a clause: cut where the clause moves on, pronouns turned to the third person."""
    cut = _VALUE_BREAK.search(value)
    if cut:
        value = value[: cut.start()]
    value = _VALUE_TAIL.sub("", value.strip().strip("\"'")).strip().rstrip(".")
    if not value or _TRAILING_NEGATION.search(value):
        return None
    words = value.split()
    if len(words) > max_words:
        return None
    if any(w.lower() in {"i", "i'm", "i've", "i'd", "i'll"} for w in words):
        return None
    return " ".join(_OBJECT_PRONOUNS.get(w.lower(), w) for w in words)


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
        elif allow_lower and core.isalpha() and core.lower() not in _PLACE_STOP and len(out) < 3:
            out.append(core.capitalize())
        elif next_capital and (
            (out and core.lower() in _PLACE_CONNECTORS and not raw.endswith(",")) or (not out and core.lower() == "the")
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
    while out and (out[-1].lower() in _PLACE_CONNECTORS or out[-1].lower() == "the"):
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
        if not out and low in _NOT_NAMES:
            return None
        if not out and low in _TITLES:
            out.append(core.capitalize())
        elif core[0].isupper() and core.replace("-", "").replace("'", "").isalpha():
            out.append(core)
        elif allow_lower and core.isalpha():
            if low in _PLACE_STOP:
                break
            out.append(core.capitalize())
        else:
            break
        if raw != core:
            break
        if len(out) == 4:
            break
    if out and out[-1].lower() in _TITLES:
        out.pop()
    return " ".join(out) or None


def _entities(phrase: str) -> tuple[str, ...]:
    """Runs of capitalised words in a phrase: the names in it."""
    found: list[str] = []
    run: list[str] = []
    for word in _WORD.findall(phrase):
        if word[0].isupper():
            run.append(word.rstrip(".,"))
        elif run and word.lower() in _PLACE_CONNECTORS:
            run.append(word)
        else:
            while run and run[-1].lower() in _PLACE_CONNECTORS:
                run.pop()
            if run:
                found.append(" ".join(run))
            run = []
    while run and run[-1].lower() in _PLACE_CONNECTORS:
        run.pop()
    if run:
        found.append(" ".join(run))
    return tuple(dict.fromkeys(e for e in found if e not in {"User", "I", "I'm"}))


def _conjugate(verb: str, singular: bool) -> str:
    low = verb.lower()
    if low in _THIRD_PERSON:
        return _THIRD_PERSON[low][0 if singular else 1]
    if not singular or low in _PAST_OR_MODAL or low.endswith("ed") or not low.isalpha():
        return verb
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


_TOKEN = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?|[^A-Za-z]+")


def third_person(text: str) -> str:
    """Rewrite a first-person statement about the user in the third person.

    The first self-reference becomes "User" ("my" -> "User's"), later ones
    "they"/"their", and the verb after a subject "I" is conjugated to match.
    """
    tokens = _TOKEN.findall(text.strip())
    out: list[str] = []
    subject_named = False
    index = 0
    while index < len(tokens):
        token = tokens[index]
        low = token.lower()
        if low in _CONTRACTED_SUBJECT:
            named, later = _CONTRACTED_SUBJECT[low]
            out.append(later if subject_named else named)
            subject_named = True
        elif low == "i":
            singular = not subject_named
            out.append("User" if singular else "they")
            subject_named = True
            # Conjugate the first verb after the subject, skipping adverbs.
            look = index + 1
            while look < len(tokens) and (not tokens[look].strip() or tokens[look].lower() in _ADVERBS):
                look += 1
            if look < len(tokens) and tokens[look][0].isalpha():
                out.extend(tokens[index + 1 : look])
                out.append(_conjugate(tokens[look], singular))
                index = look
        elif low == "my":
            out.append("their" if subject_named or out else "User's")
            subject_named = True
        elif low in _OBJECT_PRONOUNS:
            out.append(_OBJECT_PRONOUNS[low])
        else:
            out.append(token)
        index += 1
    result = "".join(out).strip()
    return result[:1].upper() + result[1:]


# --- the rules ---------------------------------------------------------------


@dataclass(frozen=True)
class _Clause:
    text: str
    prefix: str  # the sentence up to this clause
    greeted: bool
    allow_lower: bool


def _is_hypothetical(clause: _Clause, upto: str) -> bool:
    return bool(_HYPOTHETICAL.search(clause.prefix) or _HYPOTHETICAL.search(upto))


def _match_name(clause: _Clause) -> Fact | None:
    for pattern, template in _NAME_PATTERNS:
        match = pattern.match(clause.text)
        if match:
            name = _name_phrase(clause.text[match.end() :], allow_lower=clause.allow_lower)
            if name and not _is_hypothetical(clause, clause.text[: match.end()]):
                return Fact(template.format(name), "name", MemoryType.SEMANTIC, ("identity",), (name,))
            return None
    if clause.greeted:
        match = _GREETING_NAME.match(clause.text)
        if match:
            rest = clause.text[match.end() :]
            name = _name_phrase(rest, allow_lower=False)
            if name and name.split()[0].lower() not in _NOT_GREETING_NAMES and len(rest.split()) <= len(name.split()):
                return Fact(f"User's name is {name}", "name", MemoryType.SEMANTIC, ("identity",), (name,))
    return None


def _match_place(clause: _Clause) -> Fact | None:
    for pattern, template in _PLACE_PATTERNS:
        match = pattern.match(clause.text)
        if match:
            place = _proper_phrase(clause.text[match.end() :], allow_lower=clause.allow_lower)
            if not place or _is_hypothetical(clause, clause.text[: match.end() + len(place)]):
                return None
            return Fact(template.format(place), "place", MemoryType.SEMANTIC, ("location",), (place.rstrip(","),))
    return None


def _match_work(clause: _Clause) -> Fact | None:
    for pattern, template in _WORK_PATTERNS:
        match = pattern.match(clause.text)
        if match:
            value = _object_phrase(clause.text[match.end() :], max_words=6)
            if not value or _starts_with(value, _WORK_BAD_START) or value[0].isdigit():
                return None
            if _is_hypothetical(clause, clause.text[: match.end() + len(value)]):
                return None
            prep = match.groupdict().get("prep")
            text = template.format(value, prep=prep.lower() if prep else "")
            return Fact(text, "work", MemoryType.SEMANTIC, ("work",), _entities(value))
    return None


def _preference(clause: _Clause, match: re.Match[str], wording: str) -> Fact | None:
    value = _object_phrase(clause.text[match.end() :])
    if not value or _starts_with(value, _PREFERENCE_BAD_START):
        return None
    if _is_hypothetical(clause, clause.text[: match.end() + len(value)]):
        return None
    return Fact(f"User {wording} {value}", "preference", MemoryType.PREFERENCE, ("preferences",), _entities(value))


def _match_preference(clause: _Clause) -> Fact | None:
    match = _PREFERENCE_VERB.match(clause.text)
    if match:
        verb = match.group("verb").lower()
        if match.group("neg"):
            wording = _NEGATED_PREFERENCE_WORDS.get(verb)
            return _preference(clause, match, wording) if wording else None
        return _preference(clause, match, _PREFERENCE_WORDS[verb])
    match = _PREFERENCE_STAND.match(clause.text)
    if match:
        return _preference(clause, match, "dislikes")
    match = _PREFERENCE_FAN.match(clause.text)
    if match:
        return _preference(clause, match, "dislikes" if match.group("neg") else "likes")
    return None


def _match_fact(clause: _Clause) -> Fact | None:
    match = _MY_IS.match(clause.text) or _MY_CONTRACTED.match(clause.text)
    if match:
        return _my_attribute(clause, match)
    match = _ALLERGY.match(clause.text)
    if match:
        value = _object_phrase(clause.text[match.end() :], max_words=5)
        if value and not _starts_with(value, _BAD_FACT_VALUE_START) and not _is_hypothetical(clause, clause.text):
            return Fact(f"User is allergic to {value}", "fact", MemoryType.SEMANTIC, ("health",), _entities(value))
        return None
    match = _DIET.match(clause.text)
    if match and not _is_hypothetical(clause, clause.text):
        diet = match.group("v").lower().replace(" ", "-")
        return Fact(f"User is {diet}", "fact", MemoryType.SEMANTIC, ("diet",), ())
    match = _AGE.match(clause.text)
    if match and not _is_hypothetical(clause, clause.text):
        return Fact(f"User is {match.group('v')} years old", "fact", MemoryType.SEMANTIC, ("identity",), ())
    match = _LANGUAGE.match(clause.text)
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
    if any(w in _ATTRIBUTE_NON_NOUNS for w in words) or words[-1] in _DISCOURSE_ATTRIBUTES:
        return None
    if _SENSITIVE_ATTRIBUTES.search(attr) or words == ["name"]:
        return None
    value = _object_phrase(clause.text[match.end() :])
    if not value or _starts_with(value, _BAD_FACT_VALUE_START):
        return None
    if _is_hypothetical(clause, clause.text[: match.end() + len(value)]):
        return None
    # "my brother's favourite band" is the brother's taste, not the user's.
    own_taste = re.search(r"\b(?:favou?rites?|preferred|favs?)\b", attr) and "'" not in attr
    memory_type = MemoryType.PREFERENCE if own_taste else MemoryType.SEMANTIC
    topic = attr.replace("'s", "").replace("'", "")
    return Fact(f"User's {attr} {verb} {value}", "fact", memory_type, (topic,), _entities(value))


def _match_remember(sentence: str) -> Fact | None:
    match = _REMEMBER.match(sentence)
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
    if not _FIRST_PERSON.search(content) and not (explicit and len(words) >= 3):
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
    text = text.translate(_QUOTES)
    allow_lower = not any(ch.isupper() for ch in text)
    facts: list[Fact] = []
    after_greeting = False
    for raw_sentence in sentences(text):
        sentence = raw_sentence.strip()
        greeted_before, after_greeting = after_greeting, bool(_GREETING.fullmatch(sentence + " "))
        if "remember" in categories:
            fact = _match_remember(_FILLER.sub("", sentence))
            if fact:
                facts.append(fact)
                continue
        if sentence.rstrip("\"')").endswith("?"):
            continue
        for start, raw_clause, reported in _clauses(sentence):
            if reported or len(raw_clause) > MAX_CLAUSE_CHARS:
                continue
            greeting = _GREETING.match(raw_clause)
            stripped = raw_clause[greeting.end() :] if greeting else raw_clause
            stripped = _FILLER.sub("", _LEADING_SYMBOLS.sub("", stripped)).strip()
            if not stripped or stripped[0] in "\"'" or _QUESTION_START.match(stripped):
                continue
            prefix = sentence[:start]
            greeted = (
                bool(greeting) or bool(_GREETING.fullmatch(prefix.strip() + " ")) or (greeted_before and not start)
            )
            clause = _Clause(stripped, prefix, greeted, allow_lower)
            for category, rule in _CLAUSE_RULES:
                if category not in categories:
                    continue
                fact = rule(clause)
                if fact:
                    facts.append(fact)
                    break
    return facts


def clean_config(config: dict[str, Any]) -> dict[str, Any]:
    unknown = set(config) - {"categories"}
    if unknown:
        raise InvalidInput(
            f"unknown setting(s) for the rules strategy: {', '.join(sorted(unknown))}",
            details={"field": "extraction_config"},
        )
    if "categories" not in config:
        return {}
    categories = config["categories"]
    if (
        not isinstance(categories, list)
        or not categories
        or any(not isinstance(c, str) or c not in CATEGORIES for c in categories)
    ):
        raise InvalidInput(
            f"categories must be a non-empty list of: {', '.join(CATEGORIES)}",
            details={"field": "extraction_config.categories"},
        )
    return {"categories": list(dict.fromkeys(categories))}


class RulesStrategy:
    name = "rules"
    chunk_size = 500

    def __init__(self, config: dict[str, Any]) -> None:
        self.categories = frozenset(config.get("categories") or CATEGORIES)

    def extract(self, batch: Batch) -> list[Candidate]:
        by_text: dict[str, Candidate] = {}
        for message in batch.messages:
            if message.role != "user" or not message.content:
                continue
            for fact in facts_in(message.content, self.categories):
                candidate = by_text.get(fact.text)
                if candidate is None:
                    by_text[fact.text] = Candidate(
                        text=fact.text,
                        evidence=[message.pk],
                        memory_type=fact.memory_type,
                        topics=list(fact.topics),
                        entities=list(fact.entities),
                        metadata={"rule": fact.category},
                    )
                elif message.pk not in candidate.evidence:
                    candidate.evidence.append(message.pk)
        return list(by_text.values())
