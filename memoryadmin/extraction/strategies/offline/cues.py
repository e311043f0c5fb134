"""The cues `news` reads in a clause that has the speaker as its subject, each with the attribute it sets.

`CUES` are read in order, with `FIRST_CUES` before them and `later_cues.LATER_CUES` after; the first that matches
decides.
"""

from __future__ import annotations

import re

from memoryadmin.extraction.strategies.offline.facts import Kind
from memoryadmin.extraction.strategies.offline.lexicon import BANDS_IN_PLURAL, INSTRUMENTS
from memoryadmin.extraction.strategies.offline.names import named, not_a_provider
from memoryadmin.extraction.strategies.offline.phrases import (
    ADV,
    AM,
    CAP,
    COUPLE_STATES,
    DIETS,
    FIELDS,
    GYM_NAME,
    HAIR,
    NAME,
    NOT_FOR_A_SERVICE,
    SUBJECT,
    WORK_WORDS,
    rx,
)
from memoryadmin.memories.models import MemoryType

CUES: tuple[tuple[re.Pattern[str], Kind], ...] = (
    (
        # "…the football is just more fun to watch": a fan of a named side, told with its sport.
        rx(
            AM
            + r"(?:a\s+|an\s+)?(?:big\s+|huge\s+|die[- ]hard\s+|lifelong\s+)?(?:the\s+)?"
            + NAME
            + r"\s+fan\b(?=.*\b(?:football|soccer|match|matches|game|games|season|league|playoffs|nfl|nba|mlb|nhl|"
            r"premier\s+league|stadium)\b)|"
            r"\b(?:become|became)\s+(?:a|an)\s+"
            + NAME
            + r"\s+fan\b|"
            # "I'm a Seahawks fan": a side named in the plural, as most are.
            + AM
            + r"(?:a\s+|an\s+)?(?:big\s+|huge\s+|massive\s+)?(?:the\s+)?(?!"
            + BANDS_IN_PLURAL
            + r"\s)"
            r"(?-i:[A-Z][a-z]+s)\s+fan\b|" + AM + r"(?:a|an)\s+" + NAME + r"\s+fan\s+(?:now|these\s+days|nowadays)\b"
        ),
        Kind(MemoryType.SEMANTIC, "sports", "team"),
    ),
    (
        rx(
            r"\b(?:split\s+up|broke\s+up)\s+with\b|\btied\s+the\s+knot\b|\b(?:been|started)\s+dating\s+\w|"
            r"\bdivorce\s+(?:was|is|got|has\s+been)\s+(?:finali[sz]ed|final|through)\b|"
            r"^(?:my\s+(?:boyfriend|girlfriend|bf|gf|partner|husband|wife)\s+and\s+i|"
            r"me\s+and\s+my\s+(?:boyfriend|girlfriend|bf|gf|partner))\s+(?:have\s+been|'ve\s+been|are|were)\s+"
            + COUPLE_STATES
        ),
        Kind(MemoryType.SEMANTIC, "relationships", "relationship_status", negation_ok=True),
    ),
    (
        rx(
            r"\b(?:got|get|have|had|take)\s+(?:to\s+get\s+)?a\s+new\s+(?:phone\s+|cell\s+|mobile\s+)?number\b|"
            r"\b(?:reach|call|text|ring|whatsapp)\s+me\s+(?:at|on)\s+\+?\(?\d"
        ),
        Kind(MemoryType.SEMANTIC, "contact", "phone_number"),
    ),
    (
        rx(r"\b(?:reach|email|e-mail|contact|mail)\s+me\s+(?:is\s+|at\s+|on\s+)?\S+@|\buse\s+\S+@\S+\s+now\b"),
        Kind(MemoryType.SEMANTIC, "contact", "email"),
    ),
    (
        rx(AM + r"\d{1,3}\s+(?:years\s+old\s+)?(?:now|today|as\s+of)\b"),
        Kind(MemoryType.SEMANTIC, "identity", "age"),
    ),
    (
        rx(
            SUBJECT
            + r"(?:moved|relocated|shifted)\s+(?:back\s+)?to\s+"
            + not_a_provider()
            + r"(?:my\s+hometown\b|"
            + CAP
            + r")"
            + NOT_FOR_A_SERVICE
            + r"|"
            r"\b(?:since|after)\s+(?:the|my|our)\s+move\s+to\s+" + CAP + r"|"
            r"\b(?:since|after)\s+(?:moving|relocating)\s+(?:back\s+)?to\s+"
            + CAP
            + r"|"
            + AM
            + r"(?:living|based|settled|settling)\s+(?:in|into)\s+"
            + CAP
            + r"|^(?:i'm\s+|we're\s+)?settl(?:ing|ed)\s+(?:in|into)\s+"
            + CAP
            + r"|\b(?:a|an)\s+"
            + CAP
            + r"[\w-]*\s+resident\b|"
            r"\bsigned\s+(?:a|the)\s+lease\s+in\s+" + CAP + r"|"
            r"\b(?:rent|own|share)\s+(?:a|an|the)\s+(?:[\w-]+\s+){0,3}(?:studio|flat|apartment|house|condo|room)\s+in\s+"
            + CAP
            + r"|^(?:my|our)\s+"
            r"(?!(?:beach|holiday|summer|vacation|old|former|previous|second|weekend|country|lake|ski)\b)"
            r"(?:[\w-]+\s+){0,2}(?:house|flat|apartment|place|home|condo|studio)\s+in\s+"
            + CAP
            + r"|^(?:my\s+)?home\s+(?:is|'s)\s+(?:in\s+)?"
            + CAP
        ),
        Kind(MemoryType.SEMANTIC, "home", "residence"),
    ),
    (
        rx(
            r"\bnew\s+job\s+(?:at|with)\s+" + CAP + r"|"
            r"\b(?:first|second)\s+(?:day|week|month)\s+at\s+(?!"
            + NAME
            + r"\s+(?:University|College|School|High|Academy))"
            + CAP
            + r"|"
            + SUBJECT
            + r"(?:left|quit)\s+"
            + NAME
            + r"\s+(?:and|to)\s+(?:joined|join|started|moved)\b|"
            r"\bjoined\s+(?:a|an)\s+(?:[\w-]+\s+){0,3}(?:company|startup|start-up|fintech|firm|agency|bank|consultancy|"
            r"charity|nonprofit|non-profit|hospital|law\s+firm)\b|"
            r"\bstarted\s+(?:working\s+)?(?:at|with|for)\s+" + CAP + r"|"
            r"\bbeen\s+(?:at|with)\s+" + NAME + r"\s+for\s+(?:\d+|a|an|one|two|three|four|five|six|ten|many)\s+"
            r"(?:years?|months?)\b"
        ),
        Kind(MemoryType.SEMANTIC, "work", "employer"),
    ),
    (
        rx(r"\blet\s+me\s+go\b|\bhanded\s+in\s+my\s+notice\b|\bmy\s+last\s+day\s+at\s+" + CAP),
        Kind(MemoryType.EPISODIC, "work", "employer", negation_ok=True),
    ),
    (
        # "I'm with Accenture, consulting side", "currently at Google on the Maps team", "switched over to Kaiser".
        rx(
            r"(?:"
            + AM
            + r"(?:currently\s+)?(?:at|with)\s+|^currently\s+at\s+|"
            + SUBJECT
            + r"(?:switched|moved)\s+(?:over\s+)?to\s+)"
            # Not a carrier, a bank or a provider: "I'm with Vodafone on a 24-month contract".
            + r"(?!(?:"
            + named("carriers", "banks", "isps")
            + r")(?:\s+|$|[,.!]))"
            + NAME
            + r"(?=.*"
            + WORK_WORDS
            + r")"
        ),
        Kind(MemoryType.SEMANTIC, "work", "employer"),
    ),
    (
        rx(
            r"\b(?:i'm|i\s+am|i've|i\s+have|i)\s+" + ADV + r"retired\b(?!\s+(?:the|my|our|a|an|it|them|that|this)\b)|"
            r"^retired\b|\bretired\s+(?:now|last)\b"
        ),
        Kind(MemoryType.SEMANTIC, "work", "occupation", negation_ok=True),
    ),
    (
        rx(
            r"\b(?:freshman|sophomore|junior|senior|student|undergrad|grad\s+student|postgrad|(?:first|second|"
            r"third|final)[- ]year)\s+at\s+(?:the\s+)?" + CAP + r"|"
            r"\b(?:undergrad|degree|masters|master's|phd|bachelor's|studies|doctorate)\s+at\s+" + CAP + r"|"
            r"\bstudying\s+at\s+(?:the\s+)?" + CAP
        ),
        Kind(MemoryType.SEMANTIC, "education", "school"),
    ),
    (
        rx(
            r"^my\s+(?:course|degree|major|programme|program|subject)\s+(?:is|'s)\s+\w|"
            + SUBJECT
            + r"(?:switched|changed|moved)\s+(?:over\s+)?to\s+"
            + FIELDS
            + r"\b|"
            + AM
            + r"(?:doing|studying|taking)\s+"
            + FIELDS
            + r"\s+(?:now|these\s+days)\b"
        ),
        Kind(MemoryType.SEMANTIC, "education", "course"),
    ),
    (
        rx(
            r"\b(?:i've|i\s+have)\s+" + ADV + r"gone\s+" + DIETS + r"\b|"
            r"\bstarted\s+(?:going|being|eating)\s+"
            + DIETS
            + r"\b|"
            + AM
            + r"(?:doing|on)\s+(?:a\s+)?"
            + DIETS
            + r"\b|"
            r"\bstarted\s+eating\s+(?:meat|fish|chicken|dairy)\s+again\b|\beating\s+(?:meat|fish)\s+again\b|"
            r"\b(?:quit|stopped|gave\s+up|dropped)\s+(?:being\s+|doing\s+|eating\s+)?" + DIETS + r"\b|"
            r"\b(?:i've|i\s+have)\s+been\s+(?:a\s+)?" + DIETS + r"\b|"
            r"\beat\s+(?:pretty\s+much\s+|basically\s+)?(?:everything|anything)\b"
        ),
        Kind(MemoryType.SEMANTIC, "diet", "diet", negation_ok=True),
    ),
    (
        rx(
            r"\b(?:picked\s+up|took\s+up|switched\s+to)\s+(?:the\s+)?(?:" + INSTRUMENTS + r")\b|"
            r"\b(?:dropped|gave\s+up|quit|stopped\s+playing)\s+(?:the\s+)?(?:"
            + INSTRUMENTS
            + r")\b|"
            + AM
            + r"learning\s+(?:the\s+)?(?:"
            + INSTRUMENTS
            + r")\s+now\b"
        ),
        Kind(MemoryType.SEMANTIC, "music", "instrument", negation_ok=True),
    ),
    (
        rx(
            r"^my\s+gym\s+(?:is|'s)\s+\w|\bswitched\s+gyms\b|"
            r"\b(?:lift|train|work\s+out|go|going|joined|signed\s+up\s+(?:at|with|for)|cancell?ed|quit|left)\s+"
            r"(?:at\s+|to\s+)?(?:the\s+)?"
            + GYM_NAME
            + r"(?!\s+(?:now\s+and\s+then|sometimes|occasionally|once\s+in\s+a))|"
            r"\bmember\s+(?:of|at)\s+(?:the\s+)?" + GYM_NAME + r"|"
            r"\b(?:lift|train)\s+at\s+" + CAP + r"|\bmembership\s+(?:over\s+)?to\s+(?:the\s+)?" + CAP
        ),
        Kind(MemoryType.SEMANTIC, "fitness", "gym"),
    ),
    (
        rx(
            r"^my\s+hair\s*(?:'s|is)\s+(?:now\s+)?(?:naturally\s+)?(?:(?:long|short|curly|straight|wavy|thick|"
            r"shoulder[- ]length)\s+(?:and\s+)?)*" + HAIR + r"\b|"
            r"\b(?:dyed|dye)\s+(?:my\s+hair|it)\s+"
            + HAIR
            + r"\b(?![^.!?\n]{0,60}\b(?:for\s+(?:the|a|my)\s+(?:party|night|day|weekend|festival|wedding|show|game|"
            r"shoot)|washes\s+out|wash\s+out|temporary|semi-permanent|halloween)\b)|"
            + AM
            + r"(?:a\s+)?(?:natural\s+|platinum\s+|dirty\s+|strawberry\s+)?(?:blonde?|brunette|redhead|ginger)\b|"
            r"\bwent\s+(?:permanently\s+|fully\s+)?(?:dark\s+|light\s+|platinum\s+)?(?:brown|blonde?|red|ginger|grey|gray|pink|"
            r"purple|blue)\b|"
            r"\b(?:i|i've|i\s+have)\s+(?:got\s+)?(?:(?:long|short|curly|straight|wavy|thick|thin|mousy|natural|"
            r"shoulder[- ]length)\s+)*" + HAIR + r"\s+hair\b"
        ),
        Kind(MemoryType.SEMANTIC, "appearance", "hair colour"),
    ),
)

# Read before `CUES`: a first week at a university is school, not work; a lifelong fan is a team's.
FIRST_CUES: tuple[tuple[re.Pattern[str], Kind], ...] = (
    (
        rx(
            r"\b(?:first|second|last)\s+(?:day|week|month|semester|term|year)\s+at\s+(?:the\s+)?"
            + CAP
            + r"(?=.*\b(?:uni|university|college|school|semester|classes|lectures|campus|course|degree|high|"
            r"academy)\b)|"
            r"\b(?:first|second|last)\s+(?:day|week|month|semester|term|year)\s+at\s+(?:" + named("schools") + r")"
        ),
        Kind(MemoryType.SEMANTIC, "education", "school"),
    ),
    (
        rx(AM + r"(?:a\s+)?(?:lifelong|life-long|die[- ]hard)\s+" + NAME + r"\s+fan\b"),
        Kind(MemoryType.SEMANTIC, "sports", "team"),
    ),
)
