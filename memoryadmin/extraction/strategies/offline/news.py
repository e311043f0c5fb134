"""Single-valued attributes told as news or in passing, where `facts.classify` finds none.

`facts.classify` reads a clause that opens with its fact ("I live in Lyon"). People
also give the fact inside a longer clause, or as news of a change: "since the move
to Denver I've been hiking", "now that I'm living in Bristol", "I left Spotify and
joined a small fintech called Monzo", "first week at Stripe was a blur", "I'm doing
keto now", "picked up the cello and dropped the violin". Each cue below names the
speaker (a first-person verb, or a phrase only the speaker's own life fills) and
the attribute it sets, so the memory it makes supersedes the older value.

What is not a change stays out: the caller has already dropped hypothetical,
hedged and negated clauses and those about someone else; a value said as one
more ("I also play the drums") replaces nothing (`facts.single_valued`).
"""

from __future__ import annotations

import re

from memoryadmin.extraction.strategies.offline.facts import Kind, classify, single_valued
from memoryadmin.extraction.strategies.offline.lexicon import INSTRUMENTS, PROFESSIONS, RELATIONS, THING_OF, word_set
from memoryadmin.memories.models import MemoryType

_CAP = r"(?-i:[A-Z])"
# A proper name of one to four words: "Monzo", "Planet Fitness", "The Gym Group".
_NAME = _CAP + r"[\w&.'-]*(?:\s+" + _CAP + r"[\w&.'-]*){0,3}"
_ADV = r"(?:(?:just|finally|recently|officially|now|already|actually|also|since|kinda|basically|pretty\s+much)\s+)*"
# The speaker as the subject of a verb: "I", "we", "I've", "we have", "I'd".
_SUBJECT = r"\b(?:i|we)(?:'ve|\s+have|'d|\s+had)?\s+" + _ADV
_AM = r"\b(?:i'm|i\s+am|we're|we\s+are)\s+" + _ADV
_WORK_WORDS = (
    r"\b(?:team|job|jobs|work|working|shift|shifts|office|role|position|boss|manager|coworkers?|colleagues?|"
    r"department|commute|salary|pay|onboarding|badge|hired|backend|frontend|engineering|consulting|sales|"
    r"clients?|customers|contract|side)\b"
)
_FIELDS = (
    r"(?:philosophy|biology|chemistry|physics|mathematics|maths|math|economics|history|law|medicine|nursing|"
    r"psychology|sociology|anthropology|linguistics|english|literature|french|spanish|german|art|fine\s+art|"
    r"architecture|computer\s+science|cs|engineering|(?:mechanical|civil|electrical|chemical|software)\s+engineering|"
    r"accounting|finance|business|marketing|journalism|education|geography|politics|political\s+science|"
    r"music|design|graphic\s+design|film|theatre|theater|pharmacy|dentistry|veterinary\s+science|statistics|"
    r"data\s+science|neuroscience|biochemistry|genetics|agriculture|classics|theology|communications)"
)
_DIETS = r"(?:vegan|vegetarian|pescatarian|pescetarian|keto|paleo|plant[- ]based|gluten[- ]free|low[- ]carb|carnivore)"
_HAIR = r"(?:black|brown|dark\s+brown|light\s+brown|blonde?|platinum(?:\s+blonde?)?|red|ginger|auburn|grey|gray|"
_HAIR += r"white|silver|pink|purple|blue|green|teal|orange|brunette)"


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# (pattern, kind) in order; the first that matches decides.
_CUES: tuple[tuple[re.Pattern[str], Kind], ...] = (
    (
        # "…the football is just more fun to watch": a fan of a named side, told with its sport.
        _rx(
            _AM
            + r"(?:a\s+|an\s+)?(?:big\s+|huge\s+|die[- ]hard\s+|lifelong\s+)?(?:the\s+)?"
            + _NAME
            + r"\s+fan\b(?=.*\b(?:football|soccer|match|matches|game|games|season|league|playoffs|nfl|nba|mlb|nhl|"
            r"premier\s+league|stadium)\b)|"
            r"\b(?:become|became)\s+(?:a|an)\s+"
            + _NAME
            + r"\s+fan\b|"
            + _AM
            + r"(?:a|an)\s+"
            + _NAME
            + r"\s+fan\s+(?:now|these\s+days|nowadays)\b"
        ),
        Kind(MemoryType.SEMANTIC, "sports", "team"),
    ),
    (
        _rx(
            r"\b(?:split\s+up|broke\s+up)\s+with\b|\btied\s+the\s+knot\b|\b(?:been|started)\s+dating\s+\w|"
            r"\bdivorce\s+(?:was|is|got|has\s+been)\s+(?:finali[sz]ed|final|through)\b|"
            r"^(?:my\s+(?:boyfriend|girlfriend|bf|gf|partner|husband|wife)\s+and\s+i|"
            r"me\s+and\s+my\s+(?:boyfriend|girlfriend|bf|gf|partner))\s+(?:have\s+been|'ve\s+been|are|were)\b"
        ),
        Kind(MemoryType.SEMANTIC, "relationships", "relationship_status", negation_ok=True),
    ),
    (
        _rx(
            r"\b(?:got|get|have|had)\s+(?:to\s+get\s+)?a\s+new\s+(?:phone\s+|cell\s+|mobile\s+)?number\b|"
            r"\b(?:reach|call|text|ring|whatsapp)\s+me\s+(?:at|on)\s+\+?\(?\d"
        ),
        Kind(MemoryType.SEMANTIC, "contact", "phone_number"),
    ),
    (
        _rx(r"\b(?:reach|email|e-mail|contact|mail)\s+me\s+(?:is\s+|at\s+|on\s+)?\S+@|\buse\s+\S+@\S+\s+now\b"),
        Kind(MemoryType.SEMANTIC, "contact", "email"),
    ),
    (
        _rx(_AM + r"\d{1,3}\s+(?:years\s+old\s+)?(?:now|today|as\s+of)\b"),
        Kind(MemoryType.SEMANTIC, "identity", "age"),
    ),
    (
        _rx(
            _SUBJECT + r"(?:moved|relocated)\s+(?:back\s+)?to\s+(?:my\s+hometown\b|" + _CAP + r")|"
            r"\b(?:since|after)\s+(?:the|my|our)\s+move\s+to\s+" + _CAP + r"|"
            r"\b(?:since|after)\s+(?:moving|relocating)\s+(?:back\s+)?to\s+"
            + _CAP
            + r"|"
            + _AM
            + r"(?:living|based|settled|settling)\s+(?:in|into)\s+"
            + _CAP
            + r"|^(?:i'm\s+|we're\s+)?settl(?:ing|ed)\s+(?:in|into)\s+"
            + _CAP
            + r"|\b(?:a|an)\s+"
            + _CAP
            + r"[\w-]*\s+resident\b|"
            r"\bsigned\s+(?:a|the)\s+lease\s+in\s+" + _CAP + r"|"
            r"\b(?:rent|own|share)\s+(?:a|an|the)\s+(?:[\w-]+\s+){0,3}(?:studio|flat|apartment|house|condo|room)\s+in\s+"
            + _CAP
            + r"|^(?:my|our)\s+(?:[\w-]+\s+){0,2}(?:house|flat|apartment|place|home|condo|studio)\s+in\s+"
            + _CAP
            + r"|^(?:my\s+)?home\s+(?:is|'s)\s+(?:in\s+)?"
            + _CAP
        ),
        Kind(MemoryType.SEMANTIC, "home", "residence"),
    ),
    (
        _rx(
            r"\bnew\s+job\s+(?:at|with)\s+" + _CAP + r"|"
            r"\b(?:first|second)\s+(?:day|week|month)\s+at\s+(?!"
            + _NAME
            + r"\s+(?:University|College|School|High|Academy))"
            + _CAP
            + r"|"
            + _SUBJECT
            + r"(?:left|quit)\s+"
            + _NAME
            + r"\s+(?:and|to)\s+(?:joined|join|started|moved)\b|"
            r"\bjoined\s+(?:a|an)\s+(?:[\w-]+\s+){0,3}(?:company|startup|start-up|fintech|firm|agency|bank|consultancy|"
            r"charity|nonprofit|non-profit|hospital|law\s+firm)\b|"
            r"\bstarted\s+(?:working\s+)?(?:at|with|for)\s+" + _CAP + r"|"
            r"\bbeen\s+(?:at|with)\s+" + _NAME + r"\s+for\s+(?:\d+|a|an|one|two|three|four|five|six|ten|many)\s+"
            r"(?:years?|months?)\b"
        ),
        Kind(MemoryType.SEMANTIC, "work", "employer"),
    ),
    (
        _rx(r"\blet\s+me\s+go\b|\bhanded\s+in\s+my\s+notice\b|\bmy\s+last\s+day\s+at\s+" + _CAP),
        Kind(MemoryType.EPISODIC, "work", "employer", negation_ok=True),
    ),
    (
        # "I'm with Accenture, consulting side", "currently at Google on the Maps team", "switched over to Kaiser".
        _rx(
            r"(?:"
            + _AM
            + r"(?:currently\s+)?(?:at|with)\s+|^currently\s+at\s+|"
            + _SUBJECT
            + r"(?:switched|moved)\s+(?:over\s+)?to\s+)"
            + _NAME
            + r"(?=.*"
            + _WORK_WORDS
            + r")"
        ),
        Kind(MemoryType.SEMANTIC, "work", "employer"),
    ),
    (
        _rx(r"\b(?:i'm|i\s+am|i've|i\s+have|i)\s+" + _ADV + r"retired\b|^retired\b|\bretired\s+(?:now|last)\b"),
        Kind(MemoryType.SEMANTIC, "work", "occupation", negation_ok=True),
    ),
    (
        _rx(
            r"\b(?:freshman|sophomore|junior|senior|student|undergrad|grad\s+student|postgrad|(?:first|second|"
            r"third|final)[- ]year)\s+at\s+" + _CAP + r"|"
            r"\b(?:undergrad|degree|masters|master's|phd|bachelor's|studies|doctorate)\s+at\s+" + _CAP + r"|"
            r"\bstudying\s+at\s+(?:the\s+)?" + _CAP
        ),
        Kind(MemoryType.SEMANTIC, "education", "school"),
    ),
    (
        _rx(
            r"^my\s+(?:course|degree|major|programme|program|subject)\s+(?:is|'s)\s+\w|"
            + _SUBJECT
            + r"(?:switched|changed|moved)\s+(?:over\s+)?to\s+"
            + _FIELDS
            + r"\b|"
            + _AM
            + r"(?:doing|studying|taking)\s+"
            + _FIELDS
            + r"\s+(?:now|these\s+days)\b"
        ),
        Kind(MemoryType.SEMANTIC, "education", "course"),
    ),
    (
        _rx(
            r"\b(?:i've|i\s+have)\s+" + _ADV + r"gone\s+" + _DIETS + r"\b|"
            r"\bstarted\s+(?:going|being|eating)\s+"
            + _DIETS
            + r"\b|"
            + _AM
            + r"(?:doing|on)\s+(?:a\s+)?"
            + _DIETS
            + r"\b|"
            r"\bstarted\s+eating\s+(?:meat|fish|chicken|dairy)\s+again\b|\beating\s+(?:meat|fish)\s+again\b|"
            r"\b(?:quit|stopped|gave\s+up|dropped)\s+(?:being\s+)?" + _DIETS + r"\b|"
            r"\beat\s+(?:pretty\s+much\s+|basically\s+)?(?:everything|anything)\b"
        ),
        Kind(MemoryType.SEMANTIC, "diet", "diet", negation_ok=True),
    ),
    (
        _rx(
            r"\b(?:picked\s+up|took\s+up|switched\s+to)\s+(?:the\s+)?(?:" + INSTRUMENTS + r")\b|"
            r"\b(?:dropped|gave\s+up|quit|stopped\s+playing)\s+(?:the\s+)?(?:"
            + INSTRUMENTS
            + r")\b|"
            + _AM
            + r"learning\s+(?:the\s+)?(?:"
            + INSTRUMENTS
            + r")\s+now\b"
        ),
        Kind(MemoryType.SEMANTIC, "music", "instrument", negation_ok=True),
    ),
    (
        _rx(
            r"^my\s+gym\s+(?:is|'s)\s+\w|\bswitched\s+gyms\b|"
            r"\b(?:lift|train|work\s+out|go|going|joined|signed\s+up\s+(?:at|with|for)|cancell?ed|quit|left)\s+"
            r"(?:at\s+|to\s+)?(?:the\s+)?(?:" + _CAP + r"[\w'&-]*\s+){0,3}(?-i:Gym|Fitness|YMCA|CrossFit|Crossfit)\b|"
            r"\b(?:lift|train)\s+at\s+" + _CAP + r"|\bmembership\s+(?:over\s+)?to\s+(?:the\s+)?" + _CAP
        ),
        Kind(MemoryType.SEMANTIC, "fitness", "gym"),
    ),
    (
        _rx(
            r"^my\s+hair\s*(?:'s|is)\s+(?:now\s+)?(?:naturally\s+)?" + _HAIR + r"\b|"
            r"\bdyed\s+(?:my\s+hair|it)\s+"
            + _HAIR
            + r"\b|"
            + _AM
            + r"(?:a\s+)?(?:natural\s+|platinum\s+|dirty\s+|strawberry\s+)?(?:blonde?|brunette|redhead|ginger)\b|"
            r"\bwent\s+(?:dark\s+|light\s+|platinum\s+)?(?:brown|blonde?|red|ginger|grey|gray|pink|purple|blue)\b|"
            r"\b(?:i|i've|i\s+have)\s+(?:got\s+)?" + _HAIR + r"\s+hair\b"
        ),
        Kind(MemoryType.SEMANTIC, "appearance", "hair colour"),
    ),
)

# "Arctic Monkeys are my all-time favourite band", "it's my new favourite movie".
_FAVOURITE = _rx(
    r"\b(?:is|are|'s)\s+(?:now\s+)?my\s+(?:new\s+)?(?:all[- ]time\s+)?(?:favou?rite|fave?)\s+(?P<what>[a-z]+)\b"
)


# "My husband got a new job at Google": the clause is about someone of the speaker's, not the speaker.
_RELATIVE_SUBJECT = _rx(
    r"^(?:my|our)\s+(?:(?:little|big|older|younger|best|new|ex|twin)\s+)?(?P<who>[a-z]+)\b(?!\s+and\s+i\b)"
)


def news_kind(clause: str, *, past: bool) -> Kind | None:
    """The attribute a first-person clause sets when it says the fact inside a longer clause, or None."""
    relative = _RELATIVE_SUBJECT.match(clause)
    if relative is not None and relative.group("who").lower() in RELATIONS:
        return None
    for pattern, kind in _CUES:
        if pattern.search(clause):
            if past and kind.memory_type == MemoryType.SEMANTIC and kind.topic not in ("diet", "appearance"):
                kind = Kind(MemoryType.EPISODIC, kind.topic, kind.attribute, kind.negation_ok)
            return single_valued(kind, clause)
    for pattern, kind in _IN_PASSING:
        if pattern.search(clause):
            return kind
    favourite = _FAVOURITE.search(clause)
    if favourite:
        return Kind(MemoryType.PREFERENCE, "preferences", f"favourite {favourite.group('what').lower()}")
    return None


# A statement about the speaker with its subject left out, as chat drops it: what to say it with.
_LEFT_OUT = (
    (
        _rx(
            r"^(?:(?:just|finally|now|currently|still)\s+)*"
            r"(?:living|based|settling|working|studying|dating|renting|using|driving|riding)\b"
        ),
        "I'm ",
    ),
    (_rx(r"^(?:just\s+|finally\s+)?(?:quit|split\s+up|broke\s+up)\b"), "I "),
    (
        _rx(
            r"^(?:my\s+(?:boyfriend|girlfriend|bf|gf|partner|husband|wife)\s+and\s+i|"
            r"me\s+and\s+my\s+(?:boyfriend|girlfriend|bf|gf|partner))\b"
        ),
        "",
    ),
    (_rx(r"^(?:currently|now)\s+(?:at|with)\s+" + _CAP), "I'm "),
    (_rx(r"^new\s+(?:[\w-]+\s+){0,2}(?:is|'s)\s"), "my "),
    (_rx(r"^new\s+(?:job|gig|role|position)\b"), "I have a "),
    (_rx(r"^home\s+(?:is|'s)\s"), "my "),
    (_rx(r"^(?:officially|now|just)\s+\d{1,3}\b"), "I'm "),
)


# The speaker's own attribute inside a clause about something else: "the bus from my place in Hackney took
# forever", "My employer, Siemens, announced…", "As a nurse I see…", "First week at Shopify has been wild".
_IN_PASSING: tuple[tuple[re.Pattern[str], Kind], ...] = (
    (
        _rx(
            r"\b(?:my|our)\s+(?:(?:new|little|tiny|small|big)\s+)?(?:house|flat|apartment|place|home|condo|studio)\s+in\s+"
            + _CAP
            + r"|^the\s+new\s+(?:house|flat|apartment|place|condo)\s+in\s+"
            + _CAP
            + r"|^as\s+someone\s+who\s+lives\s+in\s+"
            + _CAP
        ),
        Kind(MemoryType.SEMANTIC, "home", "residence"),
    ),
    (
        _rx(
            r"^my\s+(?:employer|company)\s*,?\s+(?:is\s+)?" + _CAP + r"|"
            r"^(?:my\s+)?(?:first|second)\s+(?:day|week|month)\s+at\s+(?!"
            + _NAME
            + r"\s+(?:University|College|School|High|Academy))"
            + _CAP
        ),
        Kind(MemoryType.SEMANTIC, "work", "employer"),
    ),
    (
        _rx(r"^as\s+(?:a|an)\s+(?:[a-z-]+\s+){0,2}(?:" + PROFESSIONS + r")\b"),
        Kind(MemoryType.SEMANTIC, "work", "occupation"),
    ),
)


def speaker_left_out(clause: str, *, past: bool) -> tuple[str, Kind] | None:
    """A subjectless clause that gives the speaker's own attribute ("Living in Manila rn", "new job at Target"),
    said with its subject, and what it sets; None for any other."""
    for pattern, opening in _LEFT_OUT:
        if pattern.search(clause):
            said = opening + (clause[0].lower() + clause[1:] if opening else clause)
            kind = classify(said, past=past)
            if kind is None or not kind.attribute:
                kind = news_kind(said, past=past)
            return (said, kind) if kind is not None and kind.attribute else None
    for pattern, kind in _IN_PASSING:
        if pattern.search(clause):
            return clause, kind
    return None


_RETIRED = _rx(r"\bretired\b|\bretiring\s+(?:today|now)\b")


def retires(clause: str) -> bool:
    """Whether a clause that ends the speaker's employment says they retired: their occupation changes too."""
    return bool(_RETIRED.search(clause))


_NEW_THING = re.compile(
    r"\b(?:my|our)\s+(?:brand[- ]new|new)\s+(?P<phrase>(?:[a-z0-9-]+\s+)?(?P<thing>[a-z-]+))\b", re.IGNORECASE
)
# "My Honda Civic just hit 200k miles", "my iPhone 12 battery dies by lunchtime": a make or model named in passing.
_NAMED_THING = re.compile(
    r"\b(?:my|our)\s+(?P<phrase>(?:(?:19|20)\d\d\s+)?(?P<thing>[a-z][a-z-]*)(?:\s+(?-i:[A-Z0-9])[\w-]*){0,2})",
    re.IGNORECASE,
)
# Words that name a kind of thing, not a make or model: "my car" says nothing of which car.
_GENERIC_THINGS = word_set(
    """car cars truck pickup suv van minivan sedan hatchback convertible phone smartphone cellphone laptop computer
    pc desktop notebook bike bicycle e-bike ebike motorbike motorcycle scooter moped house apartment flat condo
    home townhouse cottage mini"""
)


def possession_in(clause: str) -> tuple[str, str] | None:
    """A thing of a single-valued kind mentioned in passing: (attribute, what the speaker has).

    "…in my new Prius" -> ("car", "a new Prius"); "My Honda Civic just hit 200k miles" -> ("car", "a Honda Civic").
    """
    for match in _NEW_THING.finditer(clause):
        attribute = THING_OF.get(match.group("thing").lower())
        if attribute:
            phrase = match.group("phrase")
            first = phrase.split()[0].lower()
            if first != match.group("thing").lower() and first in ("and", "or", "one", "very", "so"):
                phrase = match.group("thing")
            return attribute, f"a new {phrase}"
    for match in _NAMED_THING.finditer(clause):
        thing = match.group("thing").lower()
        if thing in THING_OF and thing not in _GENERIC_THINGS:
            phrase = match.group("phrase")
            return THING_OF[thing], f"an {phrase}" if phrase[:1].lower() in "aeiou" else f"a {phrase}"
    return None
