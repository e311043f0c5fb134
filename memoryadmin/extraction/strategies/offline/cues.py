"""The cues `news` reads: patterns of a clause about the speaker, each with the attribute it sets.

`CUES` (with `FIRST_CUES` before and `LATER_CUES` after) are read in a clause that has the speaker as its
subject; `LEFT_OUT` says how to give a subjectless clause its subject; `IN_PASSING` finds the speaker's
attribute inside a clause about something else. `NO_CHANGE` and `RELATIVE_SUBJECT` keep out what is no
change of the speaker's own.
"""

from __future__ import annotations

import re

from memoryadmin.extraction.strategies.offline.facts import Kind
from memoryadmin.extraction.strategies.offline.lexicon import INSTRUMENTS, PROFESSIONS
from memoryadmin.memories.models import MemoryType

_CAP = r"(?-i:[A-Z])"
# A proper name of one to four words: "Monzo", "Planet Fitness", "The Gym Group".
_NAME = _CAP + r"[\w&.'-]*(?:\s+" + _CAP + r"[\w&.'-]*){0,3}"
_ADV = (
    r"(?:(?:just|finally|recently|officially|now|already|actually|also|since|kinda|basically|pretty\s+much|fully|"
    r"completely|totally|strictly)\s+)*"
)
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


# A gym by its name: "PureGym", "Planet Fitness", "Gold's Gym", "the YMCA".
_GYM_NAME = r"(?-i:[A-Z][\w'&-]*(?:Gym|Fitness)|(?:[A-Z][\w'&-]*\s+){0,3}(?:Gym|Fitness|YMCA|CrossFit|Crossfit))\b"


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# (pattern, kind) in order; the first that matches decides.
CUES: tuple[tuple[re.Pattern[str], Kind], ...] = (
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
            r"(?:at\s+|to\s+)?(?:the\s+)?" + _GYM_NAME + r"|\bmember\s+(?:of|at)\s+(?:the\s+)?" + _GYM_NAME + r"|"
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
FAVOURITE = _rx(
    r"\b(?:is|are|'s)\s+(?:now\s+)?my\s+(?:new\s+)?(?:all[- ]time\s+)?(?:favou?rite|fave?)\s+(?P<what>[a-z]+)\b"
)


_GYM_WORDS = r"(?=.*\b(?:gym|squat|lifting|workout|weights|treadmill|spin\s+class|membership)\b)"

# Read before `CUES`: a first week at a university is school, not work; a lifelong fan is a team's.
FIRST_CUES: tuple[tuple[re.Pattern[str], Kind], ...] = (
    (
        _rx(
            r"\b(?:first|second|last)\s+(?:day|week|month|semester|term|year)\s+at\s+(?:the\s+)?"
            + _CAP
            + r"(?=.*\b(?:uni|university|college|school|semester|classes|lectures|campus|course|degree)\b)"
        ),
        Kind(MemoryType.SEMANTIC, "education", "school"),
    ),
    (
        _rx(_AM + r"(?:a\s+)?(?:lifelong|life-long|die[- ]hard)\s+" + _NAME + r"\s+fan\b"),
        Kind(MemoryType.SEMANTIC, "sports", "team"),
    ),
)
# Read after `CUES`.
LATER_CUES: tuple[tuple[re.Pattern[str], Kind], ...] = (
    (
        _rx(
            r"\b(?:offered|accepted|took)\s+(?:the|a|an)\s+(?:[\w-]+\s+)?(?:position|job|role|offer)\s+(?:at|with)\s+"
            + _CAP
        ),
        Kind(MemoryType.SEMANTIC, "work", "employer"),
    ),
    (
        _rx(r"\bwork(?:ing)?\s+as\s+(?:a|an)\s+\w|^(?:i|we)\s+(?:teach|tutor)\s+\w"),
        Kind(MemoryType.SEMANTIC, "work", "occupation"),
    ),
    (
        _rx(r"\b(?:left|quit)\s+(?:teaching|nursing|medicine|law|accounting|engineering|retail|hospitality)\b"),
        Kind(MemoryType.EPISODIC, "work", "occupation", negation_ok=True),
    ),
    (
        _rx(
            r"\b(?:been\s+)?seeing\s+(?:someone|somebody|a\s+(?:guy|girl|man|woman|boy))\b|"
            r"^(?:i|we)\s+(?:have|'ve)\s+been\s+together\b|\bmade\s+it\s+official\b"
        ),
        Kind(MemoryType.SEMANTIC, "relationships", "relationship_status"),
    ),
    (
        _rx(
            r"\b(?:with|and|for|to|of)\s+my\s+(?:(?:new|current)\s+)?(?:boyfriend|girlfriend|husband|wife|partner|fianc[eé]e?)"
            r"\s*,?\s+(?-i:[A-Z][a-z]+)\b"
        ),
        Kind(MemoryType.SEMANTIC, "relationships", "partner"),
    ),
    (
        _rx(
            r"\bstudy(?:ing)?\s+at\s+(?:the\s+)?" + _CAP + r"|\benrolled\s+(?:at|in)\s+(?:the\s+)?" + _CAP + r"|"
            r"\byear\s+\d{1,2}\s+at\s+" + _CAP + r"|"
            r"\b(?:undergrad|degree|masters|master's|phd|bachelor's|studies|doctorate)\s+at\s+the\s+" + _CAP
        ),
        Kind(MemoryType.SEMANTIC, "education", "school"),
    ),
    (
        _rx(
            r"\b"
            + _FIELDS
            + r"\s+(?:major|student)\b|"
            + _AM
            + r"doing\s+(?:a|an|my)\s+"
            + _FIELDS
            + r"\s+(?:degree|masters|phd|course|diploma)\b"
        ),
        Kind(MemoryType.SEMANTIC, "education", "course"),
    ),
    (
        _rx(
            r"\bbeen\s+playing\s+(?:the\s+)?(?:" + INSTRUMENTS + r")\b|"
            r"^(?:the\s+)?(?:" + INSTRUMENTS + r")\s+is\s+my\s+(?:thing|instrument|jam|life)\b|"
            r"\bit's\s+all\s+(?:the\s+)?(?:" + INSTRUMENTS + r")\b"
        ),
        Kind(MemoryType.SEMANTIC, "music", "instrument"),
    ),
    (
        _rx(
            r"\b(?:joined|switched\s+to|signed\s+up\s+(?:at|with|for)|cancell?ed|quit|left|go\s+to|going\s+to)\s+"
            r"(?:the\s+)?" + _NAME + _GYM_WORDS + r"|\bmy\s+(?:the\s+)?" + _GYM_NAME + r"\s+membership\b|"
            r"^my\s+new\s+gym\s+(?:is|'s)\s"
        ),
        Kind(MemoryType.SEMANTIC, "fitness", "gym"),
    ),
    (
        _rx(r"\b(?:made|got|set\s+up|created)\s+(?:a\s+)?(?:new\s+|grown[- ]up\s+|proper\s+)?e-?mail\b.*\S+@"),
        Kind(MemoryType.SEMANTIC, "contact", "email"),
    ),
    (
        _rx(r"\b(?:had|celebrated)\s+my\s+\d{1,3}(?:st|nd|rd|th)\s+birthday\b"),
        Kind(MemoryType.SEMANTIC, "identity", "age"),
    ),
    (
        _rx(
            r"\b(?:i|we)\s+(?:now\s+)?work(?:ing)?\s+(?:at|for)\s+" + _CAP + r"|"
            r"\bmy\s+(?:manager|boss|team|colleagues?|coworkers?|co-workers?|office)\s+at\s+" + _CAP
        ),
        Kind(MemoryType.SEMANTIC, "work", "employer"),
    ),
    (
        _rx(
            r"\b(?:i'm|i\s+am)\s+(?:now\s+)?(?:the\s+)?(?:[a-z-]+\s+){0,2}(?:" + PROFESSIONS + r")\b|"
            r"\bwork(?:ing)?\s+as\s+\w"
        ),
        Kind(MemoryType.SEMANTIC, "work", "occupation"),
    ),
    (
        _rx(
            r"\b(?:i|now\s+i)\s+study\s+" + _FIELDS + r"\b|"
            r"\b(?:switched|changed)\s+(?:my\s+)?(?:major|course|degree|faculty|subject)\s+"
            r"(?:from\s+[a-z]+(?:\s+[a-z]+)?\s+)?to\s+\w|\bchanged?\s+my\s+faculty\b"
        ),
        Kind(MemoryType.SEMANTIC, "education", "course"),
    ),
    (
        _rx(
            r"\b(?:went|gone|turned|became)\s+(?:fully\s+|completely\s+|full\s+|100%\s+)?" + _DIETS + r"\b|"
            r"\beat\s+(?:keto|paleo|vegan|vegetarian|plant[- ]based|gluten[- ]free|low[- ]carb)\b"
        ),
        Kind(MemoryType.SEMANTIC, "diet", "diet"),
    ),
    (
        _rx(
            _AM + r"learning\s+(?:the\s+)?(?:" + INSTRUMENTS + r")\s+(?:at\s+the\s+moment|these\s+days|right\s+now)\b|"
            r"\bsold\s+my\s+(?:" + INSTRUMENTS + r")\b"
        ),
        Kind(MemoryType.SEMANTIC, "music", "instrument", negation_ok=True),
    ),
    (
        _rx(
            r"\b(?:have|got)\s+(?:a\s+)?new\s+(?:phone\s+|cell\s+|mobile\s+)?number\b|"
            r"\bmy\s+(?:phone\s+|cell\s+|mobile\s+)?number\s+(?:has\s+)?changed\b"
        ),
        Kind(MemoryType.SEMANTIC, "contact", "phone_number"),
    ),
    (
        _rx(r"\b(?:changed|switched)\s+my\s+e-?mail\b|\b(?:the|my)\s+e-?mail\s+(?:address\s+)?is\s+now\s+\S+@"),
        Kind(MemoryType.SEMANTIC, "contact", "email"),
    ),
)

# "My husband got a new job at Google": the clause is about someone of the speaker's, not the speaker.
RELATIVE_SUBJECT = _rx(
    r"^(?:my|our)\s+(?:(?:little|big|older|younger|best|new|ex|twin)\s+)?(?P<who>[a-z]+)\b(?!\s+and\s+i\b)"
)


# Not a change yet ("I applied for a PhD at Oxford", "waiting to hear back"), or none at all ("I still use my
# ThinkPad at home"): the value the speaker had stays current.
NO_CHANGE = _rx(
    r"\b(?:applied|applying|apply|application|interview(?:ed|ing)?|waiting\s+to\s+hear|shortlisted|considering|"
    r"thinking\s+(?:about|of)|might|maybe|hoping|hope\s+to|plan(?:ning)?\s+to|want\s+to|would\s+love|still)\b"
)


# A statement about the speaker with its subject left out, as chat drops it: what to say it with.
LEFT_OUT = (
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
    (_rx(r"^(?:happily\s+|newly\s+)?(?:married|single|engaged|divorced|separated|widowed)\b"), "I'm "),
    (_rx(r"^(?:now\s+|just\s+)?enrolled\b"), "I'm "),
    (_rx(r"^(?:lifelong|life-long|die[- ]hard)\s+" + _NAME + r"\s+fan\b"), "I'm a "),
    (_rx(r"^\d{1,3}\s+now\b"), "I'm "),
    (_rx(r"^(?:fave?|favou?rite)\s+[a-z]+\s+(?:is|are)\b"), "my "),
    (_rx(r"^new\s+(?:phone\s+|cell\s+|mobile\s+)?number\s*:"), "my "),
    (_rx(r"^(?:you\s+can\s+)?(?:reach|call|text|ring|whatsapp|message)\s+me\s+(?:at|on)\s+\+?\(?\d"), ""),
    (_rx(r"^(?:(?:junior|senior|lead|head|staff|trainee)\s+)?(?:" + PROFESSIONS + r")\s+here\b"), "I'm a "),
    (_rx(r"^new\s+(?:[\w-]+\s+){0,2}(?:is|'s)\s"), "my "),
    (_rx(r"^new\s+(?:job|gig|role|position)\b"), "I have a "),
    (_rx(r"^home\s+(?:is|'s)\s"), "my "),
    (_rx(r"^(?:officially|now|just)\s+\d{1,3}\b"), "I'm "),
)


# The speaker's own attribute inside a clause about something else: "the bus from my place in Hackney took
# forever", "My employer, Siemens, announced…", "As a nurse I see…", "First week at Shopify has been wild".
IN_PASSING: tuple[tuple[re.Pattern[str], Kind], ...] = (
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
        _rx(
            r"^as\s+(?:a|an)\s+(?:[a-z-]+\s+){0,2}(?:" + PROFESSIONS + r")\b|"
            r"\b(?:bumped|moved)\s+me\s+up\s+to\s+\w|\bpromoted\s+me\s+to\s+\w|"
            r"\bmade\s+me\s+(?:a\s+|an\s+|the\s+)?(?:[a-z-]+\s+){0,2}(?:" + PROFESSIONS + r")\b"
        ),
        Kind(MemoryType.SEMANTIC, "work", "occupation"),
    ),
    (
        _rx(r"^(?:the|my|our)\s+divorce\s+(?:was|is|got|has\s+been)\s+(?:finali[sz]ed|final|through)\b"),
        Kind(MemoryType.EPISODIC, "relationships", "relationship_status"),
    ),
    (
        _rx(r"\bput\s+me\s+on\s+(?:a|an)\s+" + _DIETS + r"\s+diet\b|^as\s+(?:a|an)\s+" + _DIETS + r"\b"),
        Kind(MemoryType.SEMANTIC, "diet", "diet"),
    ),
    (
        _rx(r"^as\s+an?\s+\d{1,3}[- ]year[- ]old\b"),
        Kind(MemoryType.SEMANTIC, "identity", "age"),
    ),
    (
        _rx(
            r"\bmy\s+(?:mobile|cell|number|phone\s+number|new\s+number)\s*[:,]?\s+\+?\(?\d{2}|"
            r"^new\s+number(?:\s+\w+)?\s*:"
        ),
        Kind(MemoryType.SEMANTIC, "contact", "phone_number"),
    ),
    (
        _rx(r"\buse\s+\S+@\S+\s+(?:now|from\s+now\s+on)\b|\bmy\s+e-?mail(?:\s+address)?\s*[,:]?\s+\S+@"),
        Kind(MemoryType.SEMANTIC, "contact", "email"),
    ),
)


RETIRED = _rx(r"\bretired\b|\bretiring\s+(?:today|now)\b")


DATING = _rx(
    r"\b(?:dating|seeing)\s+(?:a\s+(?:guy|girl|man|woman|boy)\s+(?:named|called)\s+)?(?P<name>(?-i:[A-Z][a-z]+))\b"
)
