"""Chat as it is dictated or thumbed. Punctuation said aloud, as speech-to-text types it: "bike got stolen period now I
have a scooty", "day 30 without cigarette exclamation mark I quit finally", "I'm bartender now comma better tips".
Read as the marks they stand for, so a message dictated in one breath has its sentences again. A word is a mark only
where it cannot be the noun: not after a word that makes it one ("a trial period", "my period", "the comma", "a new
line of work"). And chat's shorthand for the little words a reading looks for, typed in lower case: "w/ my cousin"
(with), "bc rent is insane" (because), "back at my parents' rn" (right now), "my gf maya" (girlfriend). And the
forms of English as a learner writes it, in the standard form: "I am having a Maruti Swift" (I have), "I am working
by Bosch" (at), "Since two weeks I live in Hamburg" (I live in Hamburg), "I use Xiaomi 12" (a Xiaomi 12).
"""

from __future__ import annotations

import re

from memoryadmin.extraction.strategies.offline.lexicon import GENERIC_THINGS, PROFESSIONS, THINGS, word_set

_SPOKEN = re.compile(r"comma|period|full\s+stop|new\s+(?:line|paragraph)|exclamation|question\s+mark", re.IGNORECASE)
_MARK = re.compile(
    r"(?P<before>[\w'%$)]+)\s+(?:(?P<comma>comma)|(?P<stop>full\s+stop|new\s+line|new\s+paragraph)|"
    r"(?P<bang>exclamation\s+(?:mark|point))|(?P<ask>question\s+mark)|(?P<period>period))\b(?!\s+of\b)[.!?,]?",
    re.IGNORECASE,
)
# Words after which "period" is the noun: "a trial period", "my period", "the same period".
_NOUN_AFTER = word_set(
    """a an the this that my her his their your our its one any each every trial grace probation probationary notice
    waiting cooling time long short same whole entire study free off peak rainy dry holiday transition honeymoon first
    second third last next reporting billing bad painful heavy late introductory adjustment settling sleep quiet busy
    renaissance victorian historical jurassic class lesson exam school"""
)


_SHORT = re.compile(r"(?<![\w/.])(?:w/o|w/|bc|cuz|coz|rn|ppl|gf|bf|bday|tho|ur|wfh)(?![\w/])")
_LONG = {
    "w/o": "without",
    "w/": "with",
    "bc": "because",
    "cuz": "because",
    "coz": "because",
    "rn": "right now",
    "ppl": "people",
    "gf": "girlfriend",
    "bf": "boyfriend",
    "bday": "birthday",
    "tho": "though",
    "ur": "your",
    "wfh": "work from home",
}


_CALENDAR = (
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|"
    r"september|october|november|december|christmas|easter|then|now|tomorrow|next|the)\b"
)
# The makes and models of phones and cars: not their kinds, nor a system ("android") or a kind named by a make ("jeep").
_MAKES = "|".join(sorted((THINGS["phone"] | THINGS["car"]) - GENERIC_THINGS - word_set("android jeep")))
_LEARNER = re.compile(
    # "I am having a Maruti Swift": to own, not to eat or to hold an event (a make follows).
    r"\b(?P<have>i\s+am|i'm|im|we\s+are|we're)\s+having\s+(?=(?:a|an)\s+(?:" + _MAKES + r")\b)|"
    # "From this month I am joined in Bosch": joined.
    r"\b(?P<joined>i\s+am|i'm|im)\s+joined\s+(?:in\s+|to\s+)?(?=(?-i:[A-Z]))|"
    # "I am working by Bosch", "I work by Siemens since January": at an employer (named, not a day or a time).
    r"\b(?P<work>work|works|working|worked)\s+by\s+(?=(?!" + _CALENDAR + r")(?-i:[A-Z]))|"
    # "Since two weeks I live in Hamburg", "Since one month I am at Porsche": a duration said with "since".
    r"(?:^|(?<=[.!?]\s))since\s+(?:one|two|three|four|five|six|seven|eight|nine|ten|a|\d+|few|some|many|several)\s+"
    r"(?:days?|weeks?|months?|years?)(?:\s+now|\s+only)?\s*,?\s+(?=(?:i|i'm|im|we|we're|my|our)\b)|"
    # "My husband and me we are separating": the speaker named second, and again.
    r"(?:^|(?<=[.!?]\s))(?P<pair>(?:my|our)\s+[a-z]+)\s+and\s+me\s+(?:we\s+)?(?=[a-z])|"
    # "I use Xiaomi 12", "my phone is iPhone 13", "I am having Maruti Swift": a make without its article. The device
    # is all the phrase names (its make, its model's words, then the clause goes on or ends): "I have iPhone
    # issues", "we got Samsung fridge" name none.
    r"\b(?P<verb>use|using|have|has|drive|driving|bought|got|having|(?:phone|mobile|car)(?:'s|\s+is))\s+(?=(?:"
    + _MAKES
    + r")\b"
    r"(?!\s+(?:pay|health|notes|cloud|music|tv|watch|buds|tab|wallet|account|id|store|stock|shares)\b)"
    r"[\w-]*(?:\s+(?:(?-i:[A-Z0-9])[\w+-]*|pro|max|plus|ultra|mini|lite|ev))*\s*(?:[,.!?;:)]|$|\s+(?:now|and|but|so|"
    r"since|from|with|for|lol|too|as|these|this|at|in|which|that|because|instead|only|also|though)\b))",
    re.IGNORECASE,
)


def _standard(match: re.Match[str]) -> str:
    if have := match.group("have"):
        return ("I" if have[0] in "iI" else have[:2]) + " have "
    if match.group("joined"):
        return "I joined "
    if pair := match.group("pair"):
        return "Me and " + pair[0].lower() + pair[1:] + " "
    if work := match.group("work"):
        return work + " at "
    if verb := match.group("verb"):
        return verb + (" an " if match.string[match.end() : match.end() + 1].lower() in "aeiou" else " a ")
    return ""


# "hi! I'm Kim, I work as a nurse", "Hello, I am Rahul from Pune", "hey, Kim here": the speaker's name, given as they
# greet. Only after a greeting, and only a capitalised word that is no nationality, faith or state ("Hi, I'm new").
_INTRODUCED = re.compile(
    r"^(?P<greet>\s*(?:hi|hey|hello|hiya|heya|howdy|good\s+(?:morning|afternoon|evening))(?:\s+there)?\s*[!,.\-–—]*\s*)"
    r"(?:(?:i'm|i’m|im|i\s+am|this\s+is|it's|it’s)\s+(?P<name>(?-i:[A-Z][a-z]+(?:-[A-Z][a-z]+)?))|"
    r"(?P<here>(?-i:[A-Z][a-z]+(?:-[A-Z][a-z]+)?))\s+here)"
    r"(?:(?=\s*(?:[,.!;]|$))|\s+(?P<more>and|from)\b)",
    re.IGNORECASE,
)
_NO_NAMES = word_set(
    """american british english canadian australian indian chinese japanese german french italian spanish mexican
    brazilian irish scottish welsh dutch polish russian korean african european asian muslim jewish catholic christian
    hindu buddhist vegan vegetarian back home fine good great okay ok here done sorry new ready sure just still also
    really very currently going looking trying working doing not so glad happy excited tired single married"""
)


def _introduced(text: str) -> str:
    match = _INTRODUCED.match(text)
    if match is None:
        return text
    name = match.group("name") or match.group("here")
    if name.lower() in _NO_NAMES:
        return text
    more = {"from": ", I'm from", "and": ", and"}.get((match.group("more") or "").lower(), "")
    return f"{match.group('greet')}My name is {name}{more}{text[match.end() :]}"


# "fave film: Notting Hill", a favourite given as a label: "favourite film is Notting Hill".
_FAVOURITE_LABEL = re.compile(
    r"^(?P<my>\s*(?:my\s+)?(?:all[- ]time\s+)?)(?:fave?|favou?rite|favorite)\s+(?P<what>[a-z]+)\s*[:=]\s*(?=\w)",
    re.IGNORECASE,
)


# A form's field filled in for an assistant ("Marital status: single.", "Occupation: self-employed electrician."):
# said as the person would say it ("I'm single.", "I'm a self-employed electrician.").
_FORM_FIELD = re.compile(
    r"(?:^|(?<=[.!?]\s))(?:(?:my\s+)?(?:marital|relationship)\s+status\s*[:=-]\s*(?P<status>single|married|divorced|"
    r"widowed|separated|engaged|in\s+a\s+relationship)|(?:my\s+)?(?:occupation|job\s+title|profession)\s*[:=-]\s*"
    r"(?P<title>[a-z]+(?:[ -][a-z]+){0,3}))\s*(?=[.!?;,]|$)",
    re.IGNORECASE,
)


def _field_said(match: re.Match[str]) -> str:
    if match.group("status"):
        return f"I'm {match.group('status').lower()}"
    title = match.group("title")
    return f"I'm {'an' if title[:1].lower() in 'aeiou' else 'a'} {title}"


# "guess who's vegan now", "guess who lives in Glasgow now!!", "guess who got promoted": news told as a riddle, the
# speaker its answer ("I'm vegan now", "I live in Glasgow now", "I got promoted").
_GUESS_WHO = re.compile(
    r"\bguess\s+who(?:'s|\s+is|\s+(?P<verb>[a-z]+))\b(?!\s+(?:back|here|coming|calling|called|texted|this))",
    re.IGNORECASE,
)
_NOT_OWN_VERBS = word_set("i you he she it we they this that the a an my just")


def _answered(match: re.Match[str]) -> str:
    verb = match.group("verb")
    if verb is None:
        return "I'm"
    low = verb.lower()
    if low in _NOT_OWN_VERBS:
        return match.group(0)
    if low == "has":
        return "I have"
    if low.endswith(("ches", "shes", "sses", "xes", "zes", "oes")):
        return "I " + verb[:-2]
    if low.endswith("ies") and len(low) > 4:
        return "I " + verb[:-3] + "y"
    if low.endswith("s") and not low.endswith("ss"):
        return "I " + verb[:-1]
    return "I " + verb  # a past form: "guess who got the job"


# "freelance graphic designer here, clients keep asking…", "nurse here - quick question": who the speaker is, said
# as they sign a message.
_SIGNED = re.compile(
    r"^(?P<lead>\s*)(?:(?:a|an)\s+)?(?P<title>(?:(?![\w-]*-based\b)[a-z-]+\s+){0,2}?(?:" + PROFESSIONS + r"))\s+here\b"
    r"\s*[,.!:;-]*\s*",
    re.IGNORECASE,
)


# "Please update my details: as of 1 May my home address is in Utrecht", "Kindly amend my profile: I qualified…":
# what to note, said after the request to note it.
_NOTE_THIS = re.compile(
    r"^\s*(?:(?:please|pls|kindly|can\s+you|could\s+you)\s+)?(?:update|amend|change|note|record|add\s+to)\s+"
    r"(?:my|your)\s+(?:details|profile|info|information|records?|notes?|memory|file)\s*(?:to\s+say\s*)?[:;,.-]+\s*",
    re.IGNORECASE,
)


# "You'll laugh, but I've become a pescatarian!", "Don't laugh, but I support Brighton now": the news after it.
_BRACE = re.compile(
    r"^\s*(?:you'll\s+laugh|you\s+will\s+laugh|don't\s+laugh|promise\s+not\s+to\s+laugh|brace\s+yourself|"
    r"you\s+won't\s+believe\s+(?:it|this))\s*[,.!:;-]*\s*(?:but\s+)?",
    re.IGNORECASE,
)


# Hesitations said aloud and typed by speech-to-text ("um", "uh", "erm"), and "so yeah" between two thoughts: where
# the words before want no more, the thought ends there ("I'm a nurse on the cardiac ward um twelve hour shifts are
# killing me"); inside a phrase the hesitation is only left out ("I'm um a nurse").
_HESITATION = re.compile(r"\b(?-i:[uU]m+|[uU]h+|[uU]hm+|[eE]rm+|[sS]o\s+yeah)\b")
# Lower case or opening a sentence, never an acronym ("I study at UM", "I work in ERM").
_HESITATED = re.compile(
    r"\b(?P<before>[\w'%]+)(?P<mark>[,.]?)\s+(?-i:[uU]m+|[uU]h+|[uU]hm+|[eE]rm+|[sS]o\s+yeah)(?:,|\.(?!\.))?\s+"
    r"(?=[\w'])"
)
_WANTS_MORE = word_set(
    """a an the to at in on of my your our their his her its is was are were am be been i i'm im i've i'd i'll we
    we're and or but for with as from by about like so very really just that this than then if when because"""
)


# A message dictated in one breath, with no mark inside it: "I" opening a thought after a word that wants none more
# starts a sentence ("so I finally did it I'm not nursing anymore I started as a paramedic on Monday").
_UNMARKED = re.compile(r"[^.!?,;:]{40,}[.!?]?")
_RUN_ON = re.compile(r"(?P<before>[\w']+)\s+(?=(?-i:I)(?:'m|'ve|'d|'ll)?\s)")
_LEADS_ON = _WANTS_MORE | word_set(
    """think know guess hope said say says realised realized feel felt mean wish bet suppose reckon believe heard
    told tell what where how why who whether since until till before after while cos coz cause once unless though
    although whenever wherever which whom whose did do does can could would should will might must now then today
    yesterday tomorrow tonight finally also still just actually honestly recently lately currently suddenly"""
)
# A thought that opens with a clause of its own goes on after it ("since the move to Denver I've been hiking").
_SUBORDINATE = word_set(
    """since when after because if as while before once although though whenever until till unless cos coz"""
)


def _run_ons_parted(text: str) -> str:
    """The text with a stop before each "I" that opens a new thought: after at least three words of the one before
    ("Yesterday I ran…", "Imagine I'm a pirate" are one thought), and not after a word that leads on."""
    parts: list[str] = []
    last = 0
    for match in _RUN_ON.finditer(text):
        before = match.group("before")
        words = text[last : match.end("before")].split()
        opening = next((w.lower().strip(".,") for w in words if w.lower() not in ("so", "btw", "and", "but", "ok")), "")
        if before.lower() in _LEADS_ON or len(words) < 3 or opening in _SUBORDINATE:
            if opening in _SUBORDINATE and len(words) >= 3:
                last = match.end("before")  # the main clause after it is a thought of its own
            continue
        parts.append(text[last : match.end("before")] + ".")
        last = match.end("before")
    return "".join(parts) + text[last:] if parts else text


def _hesitations_left_out(text: str) -> str:
    """The text without its hesitations: a stop where the thought ends there (a stop before one is kept), a space
    inside a phrase; again until none is left ("um uh")."""
    while True:
        parts: list[str] = []
        last = 0
        for match in _HESITATED.finditer(text):
            before = match.group("before")
            ends = match.group("mark") == "." or before.lower() not in _WANTS_MORE
            rest = text[match.end() :]
            parts.append(text[last : match.end("before")] + (". " + rest[:1].upper() if ends else " " + rest[:1]))
            last = match.end() + 1
        if not parts:
            return text
        text = "".join(parts) + text[last:]


def undictated(text: str) -> str:
    """The text with punctuation said aloud written as marks, chat's shorthand written out and a learner's forms
    in their standard form; a text without any is returned as it is."""
    if text.lstrip()[:1] in "hHgG":  # a cheap test before the greeting's pattern
        text = _introduced(text)
    if text.lstrip()[:1] in "pPkKcCuUaAnNrR" and (noted := _NOTE_THIS.match(text)):
        rest = text[noted.end() :]
        text = rest[:1].upper() + rest[1:]
    if "laugh" in text or "believe" in text or "brace" in text:
        braced = _BRACE.match(text)
        text = text[braced.end() :] if braced and braced.end() < len(text) else text
    if " here" in text:
        text = _SIGNED.sub(lambda m: f"{m.group('lead')}I'm a {m.group('title')}. ", text, count=1)
    if "uess" in text:
        text = _GUESS_WHO.sub(_answered, text)
    if ":" in text or "=" in text:
        text = _FAVOURITE_LABEL.sub(lambda m: f"{m.group('my')}favourite {m.group('what')} is ", text)
        if "tatus" in text or "ccupation" in text or "itle" in text or "rofession" in text:
            text = _FORM_FIELD.sub(_field_said, text)
    if _SHORT.search(text) is not None:
        text = _SHORT.sub(lambda m: _LONG[m.group(0)], text)
    text = _LEARNER.sub(_standard, text)
    if " I" in text and _UNMARKED.fullmatch(text.strip()):
        text = _run_ons_parted(text)
    if _HESITATION.search(text) is not None:
        text = _hesitations_left_out(text)
    if _SPOKEN.search(text) is None:
        return text

    def mark(match: re.Match[str]) -> str:
        before = match.group("before")
        if before.lower() in _NOUN_AFTER:
            return match.group(0)
        if match.group("comma"):
            return before + ","
        if match.group("ask"):
            return before + "?"
        if match.group("bang"):
            return before + "!"
        return before + "."

    return _MARK.sub(mark, text)
