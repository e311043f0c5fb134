"""Where a clause is not plainly about the speaker: `news` uses these to find the speaker's own attribute anyway.

`LEFT_OUT` says how to give a subjectless clause its subject ("Living in Manila rn" -> "I'm living in
Manila rn"); `IN_PASSING` finds the speaker's attribute inside a clause about something else ("the bus
from my place in Hackney"); `NO_CHANGE` and `RELATIVE_SUBJECT` keep out what is no change of the
speaker's own; `RETIRED` and `DATING` say when one clause sets a second attribute.
"""

from __future__ import annotations

import re

from memoryadmin.extraction.strategies.offline.facts import Kind
from memoryadmin.extraction.strategies.offline.lexicon import PROFESSIONS
from memoryadmin.extraction.strategies.offline.phrases import (
    CAP,
    DIETS,
    GYM_NAME,
    NAME,
    rx,
)
from memoryadmin.memories.models import MemoryType

# "My husband got a new job at Google": the clause is about someone of the speaker's, not the speaker.
RELATIVE_SUBJECT = rx(
    r"^(?:my|our)\s+(?:(?:little|big|older|younger|best|new|ex|twin)\s+)?(?P<who>[a-z]+(?:-[a-z]+)*)(?![\w-])(?!(?:\s+(?-i:[A-Z])[a-z]+)?\s+(?:and\s+i\b|"
    r"(?:just\s+|finally\s+)?(?:dumped\s+me|left\s+me|broke\s+up\s+with\s+me)\b))"
)


# Not a change yet ("I applied for a PhD at Oxford", "waiting to hear back"), or none at all ("I still use my
# ThinkPad at home"): the value the speaker had stays current.
NO_CHANGE = rx(
    r"\b(?:applied|applying|apply|application|interview(?:ed|ing)?|waiting\s+to\s+hear|shortlisted|considering|"
    r"thinking\s+(?:about|of)|might|maybe|hoping|hope\s+to|plan(?:ning)?\s+to|want\s+to|would\s+love|"
    # "Still" says nothing changed, but not of the moment's aftermath: "i said yes, still shaking".
    r"still(?!\s+(?:shaking|in\s+shock|can't\s+believe|cannot\s+believe|processing|buzzing|crying|smiling|"
    r"pinching\s+myself|unpacking|getting\s+used|adjusting|settling\s+in|jet[- ]?lagged|feels?|seems?|sounds?|"
    r"sinking\s+in|hurts|stings))|"
    # A taste of it: "tried a free class at Orangetheory".
    r"tried|trying\s+out|trial|free\s+(?:class|session|week|pass)|guest\s+pass|day\s+pass|drop-in)\b"
)


# A statement about the speaker with its subject left out, as chat drops it: what to say it with.
# An opening that ends in "=" replaces the words the pattern matched: "As a writer" -> "I'm a writer".
LEFT_OUT = (
    (rx(r"^as\s+(?=(?:a|an)\s+(?:[a-z-]+\s+){0,3}(?:" + PROFESSIONS + r")\s*$)"), "I'm ="),
    (
        rx(
            r"^(?:(?:just|finally|now|currently|still)\s+)*"
            r"(?:living|based|settling|working|studying|majoring|dating|seeing|renting|using|driving|riding|starting|"
            r"supporting|learning|going|training|playing|doing\s+(?:a|an|my)\s|taking\s+(?:[a-z-]+\s+)?(?:classes|courses)\s)\b"
        ),
        "I'm ",
    ),
    (rx(r"^(?:just\s+|finally\s+)?(?:quit|split\s+up|broke\s+up|joined|started\s+at|transferred|signed)\b"), "I "),
    (rx(r"^(?:still\s+)?(?:drive|own)\s+(?:a|an)\s"), "I "),
    (
        rx(
            r"^(?:a\s+|current\s+)?(?:freshman|sophomore|junior|senior|"
            r"(?:first|second|third|final|\d(?:st|nd|rd|th))[- ]year)"
            r"(?:\s+[a-z-]+){0,2}?\s+(?:student\s+)?(?:at|student)\b"
        ),
        "I'm a ",
    ),
    (rx(r"^(?:" + DIETS + r")\s+(?:since|for|now)\b|^doing\s+(?:strict\s+)?(?:" + DIETS + r")\b"), "I'm "),
    (rx(r"^(?:officially\s+|now\s+)?(?:a|an)\s+" + CAP + r"[\w-]*\s+resident\b"), "I'm "),
    (rx(r"^(?:my\s+)?last\s+day\s+at\s+" + CAP), "my "),
    # "first week at KPMG done": the speaker's first week, said with whose it is.
    (rx(r"^(?:first|second|third)\s+(?:day|week|month|shift|term|semester)\s+at\s+(?:the\s+)?" + CAP), "my "),
    (
        rx(
            r"^(?:my\s+(?:boyfriend|girlfriend|bf|gf|partner|husband|wife)\s+and\s+i|"
            r"me\s+and\s+my\s+(?:boyfriend|girlfriend|bf|gf|partner))\b"
        ),
        "",
    ),
    (rx(r"^(?:currently|now)\s+(?:at|with)\s+" + CAP), "I'm "),
    (rx(r"^(?:happily\s+|newly\s+)?(?:married|single|engaged|divorced|separated|widowed)\b"), "I'm "),
    (rx(r"^(?:now\s+|just\s+)?enrolled\b"), "I'm "),
    (rx(r"^(?:lifelong|life-long|die[- ]hard)\s+" + NAME + r"\s+fan\b"), "I'm a "),
    (rx(r"^\d{1,3}\s+(?:now|today)\b"), "I'm "),
    (rx(r"^(?:now\s+|currently\s+|still\s+)?work(?:ing)?\s+(?:as|at|for)\b"), "I "),
    (rx(r"^(?:a\s+)?member\s+(?:at|of)\s+(?=(?:the\s+)?(?-i:[A-Z]))"), "I'm a member at ="),
    (rx(r"^in\s+a\s+relationship\s+(?:with|w/?)\s+"), "I'm in a relationship with ="),
    (rx(r"^(?:fave?|favou?rite)\s+[a-z]+\s*(?:is|are|:)"), "my "),
    (rx(r"^new\s+(?:phone\s+|cell\s+|mobile\s+)?number\s*:"), "my "),
    (rx(r"^(?:you\s+can\s+)?(?:reach|call|text|ring|whatsapp|message)\s+me\s+(?:at|on)\s+\+?\(?\d"), ""),
    (rx(r"^(?:(?:junior|senior|lead|head|staff|trainee)\s+)?(?:" + PROFESSIONS + r")\s+here\b"), "I'm a "),
    (rx(r"^new\s+(?:[\w-]+\s+){0,3}(?:is|'s)\s"), "my "),
    (rx(r"^new\s+(?:job|gig|role|position)\b"), "I have a "),
    (rx(r"^home\s+(?:is|'s)\s"), "my "),
    (
        rx(r"^(?:officially|now|just|finally)\s+\d{1,3}\b(?!\s*(?:%|am|pm|mins?|minutes|hours|days|weeks|km|miles))"),
        "I'm ",
    ),
)


# What names a school: "Roosevelt High", "Monash University".
_SCHOOL = r"\s+(?:University|College|School|High|Academy|Uni)\b"
# The speaker's own attribute inside a clause about something else: "the bus from my place in Hackney took
# forever", "My employer, Siemens, announced…", "As a nurse I see…", "First week at Shopify has been wild".
IN_PASSING: tuple[tuple[re.Pattern[str], Kind], ...] = (
    (
        rx(
            r"\b(?:my|our)\s+(?:(?:new|little|tiny|small|big|own)\s+)?(?:house|flat|apartment|place|home|condo|studio)\s+"
            r"(?:(?:here|over|out|up|down)\s+)?in\s+"
            + CAP
            + r"|\bthe\s+new\s+(?:house|flat|apartment|place|condo)\s+in\s+"
            + CAP
            + r"|^as\s+someone\s+who\s+lives\s+in\s+"
            + CAP
        ),
        Kind(MemoryType.SEMANTIC, "home", "residence"),
    ),
    (
        rx(
            r"^my\s+(?:employer|company)\s*,?\s+(?:is\s+)?" + CAP + r"|"
            r"\b(?:the|my)\s+new\s+(?:job|role|position|gig)\s+(?:at|with)\s+(?:the\s+)?" + CAP + r"|"
            r"^(?:my\s+)?(?:first|second)\s+(?:day|week|month)\s+at\s+(?!" + NAME + _SCHOOL + r")" + CAP
        ),
        Kind(MemoryType.SEMANTIC, "work", "employer"),
    ),
    (
        rx(r"^(?:my\s+)?(?:first|second)\s+(?:day|week|month|term|semester)\s+at\s+(?:the\s+)?" + NAME + _SCHOOL),
        Kind(MemoryType.SEMANTIC, "education", "school"),
    ),
    (
        rx(
            r"^as\s+(?:a|an)\s+(?:[a-z-]+\s+){0,3}(?:" + PROFESSIONS + r")\b|"
            r"\b(?:bumped|moved)\s+me\s+up\s+to\s+\w|\bpromoted\s+me\s+to\s+\w|"
            r"\bmade\s+me\s+(?:a\s+|an\s+|the\s+)?(?:[a-z-]+\s+){0,2}(?:" + PROFESSIONS + r")\b"
        ),
        Kind(MemoryType.SEMANTIC, "work", "occupation"),
    ),
    (
        rx(r"^(?:(?:the|my|our)\s+)?divorce\s+(?:was|is|got|has\s+been)\s+(?:finali[sz]ed|final|through)\b"),
        Kind(MemoryType.EPISODIC, "relationships", "relationship_status"),
    ),
    (
        rx(r"\bput\s+me\s+on\s+(?:a|an)\s+" + DIETS + r"\s+diet\b|^as\s+(?:a|an)\s+" + DIETS + r"\b"),
        Kind(MemoryType.SEMANTIC, "diet", "diet"),
    ),
    (
        rx(r"^(?:my\s+)?last\s+day\s+at\s+" + CAP),
        Kind(MemoryType.EPISODIC, "work", "employer"),
    ),
    (
        rx(r"^(?:my\s+)?" + GYM_NAME + r"\s+membership\b"),
        Kind(MemoryType.SEMANTIC, "fitness", "gym"),
    ),
    (
        rx(
            r"\boffered\s+me\s+(?:a\s+|an\s+|the\s+)?(?:[a-z-]+\s+){0,2}(?:" + PROFESSIONS + r"|role|job|position)\b|"
            r"\bas\s+an?\s+(?:full[- ]time\s+|part[- ]time\s+)?(?:[a-z-]+\s+){0,2}(?:" + PROFESSIONS + r")\s+now\b"
        ),
        Kind(MemoryType.SEMANTIC, "work", "occupation"),
    ),
    (
        rx(r"\b(?:leg\s+day|workout|session|class|training)\s+at\s+(?:the\s+)?" + GYM_NAME),
        Kind(MemoryType.SEMANTIC, "fitness", "gym"),
    ),
    (
        rx(r"^age\s*:\s*\d{1,3}\b"),
        Kind(MemoryType.SEMANTIC, "identity", "age"),
    ),
    (
        rx(r"^as\s+an?\s+\d{1,3}[- ]year[- ]old\b"),
        Kind(MemoryType.SEMANTIC, "identity", "age"),
    ),
    (
        rx(
            r"\bmy\s+(?:mobile|cell|number|phone\s+number|new\s+number)\s*[:,]?\s+\+?\(?\d{2}|"
            r"\bsave\s+(?:this\s*:\s*)?\+?\(?\d{3}|\b(?:update|change)\s+my\s+(?:phone\s+|mobile\s+|cell\s+)?number\s+to\s+"
            r"\+?\(?\d|^new\s+number(?:\s+\w+)?\s*[:,]|\bnew\s+(?:phone\s+)?number\s*[:,]?\s+\+?\(?\d{2}"
        ),
        Kind(MemoryType.SEMANTIC, "contact", "phone_number"),
    ),
    (
        rx(
            r"\buse\s+\S+@\S+\s+(?:now|from\s+now\s+on|instead)\b|\bmy\s+e-?mail(?:\s+address)?\s*[,:]?\s+\S+@|"
            r"\S+@\S+\s+(?:from\s+now\s+on|going\s+forward)\b|\buse\s+\S+@\S+?[.!]?\s*$"
        ),
        Kind(MemoryType.SEMANTIC, "contact", "email"),
    ),
)


# "I'm a nurse at St Thomas'", "a civil engineer with Julius Berger": the occupation's employer, by its name.
AT_EMPLOYER = rx(r"\b(?:at|with|for)\s+(?:the\s+)?(?P<org>" + NAME + r")")
NOT_EMPLOYED = rx(r"\b(?:student|volunteer|volunteering|member|patient|customer|guest|fan)\b")
# Held for a while only: "acting audit manager for two weeks", "covering for my boss", "on secondment".
FOR_A_WHILE = rx(
    r"\b(?:acting|interim|temporarily|temporary|covering\s+for|filling\s+in|on\s+secondment|seconded|on\s+loan|"
    r"froze|frozen|paused|on\s+hold|suspended|"
    # Background to something else: "played tabla for 3 years before switching to sitar".
    r"(?:before|until)\s+(?:switching|moving|changing|joining|starting|transferring)|"
    r"for\s+(?:a\s+few|a\s+couple\s+of|two|three|\d+)\s+(?:days|weeks)\s+while|"
    # "I went vegan for a week as a challenge at work", "dry for January".
    r"(?:went|tried|did|going|gone)\s+[\w-]+\s+for\s+(?:a|one|two|three|\d+)\s+(?:day|week|month)s?|"
    r"as\s+(?:a|an)\s+(?:challenge|experiment|dare|trial)|for\s+(?:lent|veganuary|dry\s+january|january))\b"
)
RETIRED = rx(r"\bretired\b|\bretiring\s+(?:today|now)\b")


DATING = rx(
    r"\b(?:dating|seeing)\s+(?:(?:a\s+(?:[\w-]+\s+){0,2}?(?:guy|girl|man|woman|boy|chap|lad|lady|fella|bloke)|someone|"
    r"somebody)\s+(?:named|called)\s+|this\s+(?:guy|girl|man|woman|boy|lad|lady|fella|bloke)\s+(?:named\s+|called\s+)?)?"
    # Not a doctor seen: "I'm seeing Dr Wisniewska now for the diabetes".
    r"(?!(?:Dr|Doctor|Prof|Professor|Nurse|Mr|Mrs|Ms)\b)(?P<name>(?-i:[A-Z][a-z]+))\b"
)

# What the speaker says they left behind, by its name: "switched from Barclays to Monzo", "replaced the Civic with
# a Mazda", "cancelled PureGym", "left Spotify and joined Stripe", "not going back to Carla". A trip away ("left
# Paris for a week") or a note left for someone ("left Spotify a review") is not leaving.
_OLD = r"(?:the\s+|my\s+)?(?P<old>" + NAME + r")"
LEFT_BEHIND = (
    rx(
        r"\b(?:switched|changed|moved|relocated)\s+(?:over\s+)?(?:my\s+[a-z]+(?:\s+[a-z]+)?\s+)?from\s+"
        + _OLD
        + r"\s+(?:(?:up|down|over|back|across)\s+)?to\b"
    ),
    # "I just switched to an iPhone 15 from my old Galaxy".
    rx(r"\bswitched\s+(?:over\s+)?to\s+[^.!?,]{1,30}?\s+from\s+(?:my\s+|the\s+)?(?:old\s+)?(?P<old>" + NAME + r")"),
    rx(r"\b(?:replaced|swapped)\s+" + _OLD + r"\s+(?:with|for)\b"),
    rx(r"\btraded\s+(?:in\s+)?" + _OLD + r"\s+for\b"),
    rx(
        r"\b(?:cancell?ed|cancell?ing|closed|ditched|dumped|sold|retired)\s+(?:my\s+)?"
        + _OLD
        + r"(?:\s+(?:account|membership|subscription|contract|plan))?(?:\s+(?:entirely|completely|for\s+good|today))?"
        r"\s*(?:$|[,.!;]|\s+(?:and|so|because|after)\b)"
    ),
    rx(
        r"\b(?:left|quit)\s+"
        + _OLD
        + r"\s*(?:$|[,.!;]|\s+(?:and|so|because|after|last|in|back|behind|for\s+good|to\s+join)\b)"
    ),
    rx(
        r"\b(?:said\s+goodbye\s+to|gave\s+up\s+on|given\s+up\s+on|not\s+going\s+back\s+to|done\s+with|"
        r"pulled\s+(?:everything|my\s+money)\s+out\s+of|transferred\s+out\s+of|moved\s+(?:away\s+from|out\s+of)|"
        r"got\s+rid\s+of|handed\s+in\s+my\s+notice\s+at|bye(?:\s+bye)?|goodbye|so\s+long)\s+"
        + _OLD
        # Not for a while: "said goodbye to London for two weeks".
        + r"(?![^.!?]{0,40}\bfor\s+(?:a|the|one|two|three|four|\d+|a\s+few|a\s+couple\s+of)\s+(?:night|day|week|month|"
        r"weekend)s?\b)"
    ),
)


# "Arctic Monkeys are my all-time favourite band", "it's my new favourite movie".
FAVOURITE = rx(
    r"\b(?:is|are|'s|'re|ha(?:s|ve)\s+always\s+been|became|(?:ha(?:s|ve)\s+)?become|(?:will|'ll)\s+(?:always|forever)\s+be)"
    r"\s+(?:now\s+|officially\s+|still\s+)?my\s+"
    r"(?:(?:new|all[- ]time|absolute|ultimate|very|top|forever)\s+){0,2}(?:favou?rite|fave?|number\s+one|\#1)\s+"
    r"(?P<what>[a-z]+)\b|"
    r"\b(?:replaced|overtaken|beaten|dethroned)\s+.+?\s+as\s+my\s+(?:new\s+)?(?:all[- ]time\s+)?"
    r"(?:favou?rite|fave?|\#1|number\s+one)\s+"
    r"(?P<what2>[a-z]+)\b|\bnew\s+(?:favou?rite|fave?)\s+(?P<what3>[a-z]+)\b|"
    r"^my\s+(?:favou?rite|fave?)\s+(?P<what4>[a-z]+)\s*:\s*\S|"
    # "Since my trip to Oaxaca my favourite food has become mole negro".
    r"\bmy\s+(?:new\s+|all[- ]time\s+)?(?:favou?rite|fave?)\s+(?P<what5>[a-z]+)\s+"
    r"(?:has\s+(?:now\s+)?become|became|is\s+now|now\s+is)\s+\w"
)
