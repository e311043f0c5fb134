"""Milestones told as they happened, whatever the clause: each gives the attribute it changes, in plain words.

People tell a change as the moment it happened: "HE PROPOSED at the top of Sugarloaf!!! I said yes", "we signed the
divorce papers on thursday", "day 30 vegan ✅", "dr put me on a low FODMAP diet", "signed for Brixton Athletic last
week", "I'm all in on the Niners", "new girlfriend is called Maya". The clause reading (`news`, `facts`) keeps the
words; this reads the fact they give ("Pat is engaged"), so the memory states the attribute and supersedes the old
value. Someone else's milestone ("my sister signed the divorce papers") and a question give nothing.
"""

from __future__ import annotations

import re

from memoryadmin.extraction.strategies.offline.asides import NO_CHANGE
from memoryadmin.extraction.strategies.offline.changes import OF_OTHERS, ON_THE_WAY, SAID_ANYWAY
from memoryadmin.extraction.strategies.offline.lexicon import INSTRUMENTS, OTHER_GOODS_AFTER, favourite_attribute
from memoryadmin.extraction.strategies.offline.names import canonical
from memoryadmin.extraction.strategies.offline.news import no_change_of_the_speakers
from memoryadmin.extraction.strategies.offline.phrases import (
    DIETS,
    FAITHS,
    FIELDS,
    HOME,
    LET_OUT,
    MAKES,
    NAME,
    NOT_NOW,
    PHONE,
    SENTENCE_BREAK,
    STILL,
    WORK_WORDS,
    asks,
    one_of,
    place,
)
from memoryadmin.extraction.strategies.offline.prefilter import Patterns
from memoryadmin.extraction.strategies.offline.shorthand import SHORTHAND, by_the_speaker
from memoryadmin.extraction.strategies.offline.speech import MAX_CLAUSE_CHARS

_TOGETHER = (
    r"\bme\s+and\s+(?P<name>(?-i:[A-Z][a-z]+))\s+are\s+(?:officially\s+)?(?:official|together|a\s+thing|dating|an\s+item)\b"
    r"(?!\s+(?:again\s+)?(?:for|at|on|in|with)\b)|"
    r"\b(?P<name2>(?-i:[A-Z][a-z]+))\s+and\s+i\s+are\s+(?:officially\s+)?(?:official|together|a\s+thing|dating|an\s+item)\b"
    r"(?!\s+(?:again\s+)?(?:for|at|on|in|with)\b)"
)
_TITLE = (
    r"(?:(?!(?:cat|dog|pet|home|house|plant|proud|volunteer|teacher's)\b)[a-z]+\s+){0,2}?"
    r"(?:manager|supervisor|lead|head|director|partner|chef|editor|captain|analyst|engineer|developer|"
    r"designer|consultant|nurse|teacher|officer|associate|coordinator|specialist|architect|principal|vp|president|"
    r"ceo|cto|cfo|founder|foreman|sergeant|lecturer|professor|registrar|paralegal|solicitor|accountant|scientist|"
    r"tester|owner|administrator|executive|technician|pharmacist)"
    r"(?!'s|\s+of\s+(?:the|our|my)\b|\s+on\s+(?:the|linkedin|paper)\b)"
)
_HAIR = (
    r"(?:(?:dark|light|honey|ash|platinum|strawberry|jet|copper|bright|pastel|deep|natural|mousy|dirty)\s+)?"
    r"(?:blonde?|brunette|brown|black|red|ginger|auburn|grey|gray|silver|white|pink|purple|blue|green|lilac|copper|"
    r"teal|orange)"
)
_NAMED_FOR_HAIR = re.compile(r"\b(?:blonde?|brunette|ginger|auburn)\b", re.IGNORECASE)
_SPEAKS_OF_HAIR = re.compile(r"\b(?:hair|dye|dyed|hairdresser|salon|faded|roots|highlights|bleach(?:ed)?)\b", re.I)
_PARTNERS = one_of("girlfriend | boyfriend | gf | bf | partner | wife | husband | fiance | fiancee | fiancé | fiancée")
# (pattern, topic, attribute, what the speaker is: a template over the pattern's groups).
MILESTONES: tuple[tuple[re.Pattern[str], str, str, str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), topic, attribute, template)
    for pattern, topic, attribute, template in (
        (
            r"\b(?:he|she|they|(?-i:[A-Z][a-z]+))\s+(?:finally\s+)?proposed\b.*\b(?:i|we)\s+said\s+yes\b",
            "relationships",
            "relationship_status",
            "{speaker} is engaged",
        ),
        (
            r"\b(?:signed|got)\s+(?:the|our)\s+divorce\s+papers\b|\bdivorce\s+(?:came|went)\s+through\b|"
            r"\b(?:the|my|our)\s+divorce(?:'s|\s+is)\s+(?:final|official|through)\b",
            "relationships",
            "relationship_status",
            "{speaker} is divorced",
        ),
        (
            r"\b(?:my|our)\s+new\s+(?P<partner>" + _PARTNERS + r")\s+(?:is\s+called|is\s+named|'s\s+called|is)\s+"
            r"(?P<name>(?-i:[A-Z][a-z]+))\b|^new\s+(?P<partner2>" + _PARTNERS + r")\s+(?:is\s+called|is\s+named|'s\s+"
            r"called|is)\s+(?P<name2>(?-i:[A-Z][a-z]+))\b",
            "relationships",
            "partner",
            "{speaker}'s partner is {name}",
        ),
        (
            r"^(?:day\s+\d+\s+(?:of\s+(?:being\s+)?)?|(?:\w+\s+){1,2}(?:days|weeks|months)\s+(?:fully\s+|strictly\s+)?|"
            r"going\s+|gone\s+(?:fully\s+|full\s+|strictly\s+|completely\s+)?)(?P<diet>"
            + DIETS
            + r")\b|\b(?:put|started)\s+me\s+on\s+(?:a|the)\s+"
            r"(?P<diet2>(?:[\w-]+\s+){0,2}?)diet\b|"
            # "I'm back to vegetarian", "convinced me to go vegan".
            r"\b(?:i'm|i\s+am)\s+back\s+to\s+(?:being\s+)?(?P<diet3>" + DIETS + r")\b|"
            r"\b(?:i've|i\s+have)\s+gone\s+(?:plain|full|fully|strictly)\s+(?P<diet5>" + DIETS + r")\b|"
            r"(?:^|\bi\s+|\bjust\s+|\bfinally\s+)went\s+(?:fully\s+|full\s+|strictly\s+|completely\s+)?(?P<diet6>"
            + DIETS
            + r")\b(?!\s+(?:for|at)\b|\s+in\s+(?:uni|school|college|my)\b)|"
            r"\b(?:convinced|persuaded|got)\s+me\s+to\s+go\s+(?P<diet4>" + DIETS + r")\b",
            "diet",
            "diet",
            "{speaker} is on a {diet} diet",
        ),
        (
            r"\b(?:i'm|i\s+am|we're)\s+(?:all\s+in\s+on|now\s+rooting\s+for)\s+(?P<team>(?:the\s+)?" + NAME + r")",
            "sports",
            "team",
            "{speaker} supports {team}",
        ),
        (
            # Not someone else's: "my brother just signed for Leinster's academy".
            r"(?:^|\bi\s+(?:just\s+)?|(?<![a-z]\s)\bjust\s+)(?:signed\s+for|now\s+play\s+for|play\s+for)\s+(?:the\s+)?"
            r"(?P<team>" + NAME + r")(?!'s\b)",
            "sports",
            "team",
            "{speaker} plays for {team}",
        ),
        (
            r"\b(?:i'm|i\s+am)\s+(?:now\s+)?(?:an?\s+)(?P<field>" + FIELDS + r")\s+(?:major|student)\b|"
            r"\b(?:i'm|i\s+am)\s+doing\s+(?P<field3>" + FIELDS + r")\s+(?:instead\s+of|now)\b|"
            r"^(?:i'm\s+|i\s+am\s+)?doing\s+(?P<field2>" + FIELDS + r")\s+(?:at|in)\s+(?:uni|university|college|"
            r"(?-i:[A-Z])[\w&'.-]*|[a-z][\w'-]+(?=\s*(?:,|$)))",
            "education",
            "course",
            "{speaker} studies {field}",
        ),
        (
            r"\bmoved\s+me\s+(?:over\s+)?to\s+(?:the\s+)?(?P<instrument>" + INSTRUMENTS + r")\b|"
            r"^(?:the\s+)?(?P<instrument2>" + INSTRUMENTS + r")\s+since\b|"
            r"^(?:i'm\s+|i\s+am\s+)?playing\s+(?:the\s+)?(?P<instrument3>"
            + INSTRUMENTS
            + r")\s+(?:now|these\s+days)\b",
            "music",
            "instrument",
            "{speaker} plays the {instrument}",
        ),
        (
            r"^(?:an?\s+)?(?P<phone>(?:" + MAKES + r")"
            r"(?:\s+[\w+]{1,6}){0,2}?)\s+user\b",
            "possessions",
            "phone",
            "{speaker} uses a {phone}",
        ),
        (
            r"\b(?:they|the\s+boss|my\s+boss|management|the\s+company)\s+(?:made|promoted)\s+me\s+(?:to\s+)?"
            r"(?P<title>(?:[a-z]+\s+){0,2}?(?:manager|supervisor|lead|head|director|partner|chef|editor|captain))\b",
            "work",
            "occupation",
            "{speaker}'s job is {title}",
        ),
        (
            r"(?:^|\bi\s+|\bjust\s+|\bhad\s+to\s+)(?:change|changed)\s+my\s+(?:phone\s+|mobile\s+)?number\b",
            "contact",
            "phone_number",
            "{speaker} has a new phone number",
        ),
        (
            # "Porto-based designer here", "I'm now living at my daughter's in Christchurch".
            r"^(?P<place>(?-i:[A-Z])[\w'.]+)-based\b|\b(?:i'm|i\s+am)\s+(?:now\s+)?living\s+(?:at|with)\s+[^,.!?]{1,40}?\s+in\s+"
            r"(?P<place2>(?-i:[A-Z])[\w'.-]+(?:\s+(?-i:[A-Z])[\w'.-]+)?)",
            "home",
            "residence",
            "{speaker} lives in {place}",
        ),
        (
            r"\b(?:sold|scrapped|crashed|totaled|totalled|wrote\s+off)\s+(?:my|the|our)\s+car\b|"
            r"\b(?:my|the|our)\s+car\s+(?:was|got)\s+(?:written\s+off|totaled|totalled|stolen|scrapped)\b",
            "possessions",
            "car",
            "{speaker} no longer has their car",
        ),
        (
            # A phone lost may be found: only one sold or stolen is gone.
            r"\bsold\s+my\s+phone\b|\bmy\s+phone\s+(?:was|got)\s+stolen\b",
            "possessions",
            "phone",
            "{speaker} no longer has their phone",
        ),
        (
            r"\bi\s+(?:re)?married\b(?!\s+(?:them|him|her|a\s+couple|my\s+(?:friends|brother|sister|cousin)))|\bi\s+got\s+remarried\b|^(?:just\s+|finally\s+|officially\s+)?(?:got\s+)?remarried\b",
            "relationships",
            "relationship_status",
            "{speaker} is married",
        ),
        (
            r"\bwe\s+(?:separated|split\s+up|have\s+separated|are\s+separated)\b(?!\s+(?:the|into|our|my|them|it|a|an)\b)|"
            r"\b(?:the|my|our)\s+separation(?:'s|\s+is)\s+(?:final|official|through)\b",
            "relationships",
            "relationship_status",
            "{speaker} is separated",
        ),
        (
            # "me and Priya are official", "Sam and I are together now".
            _TOGETHER,
            "relationships",
            "relationship_status",
            "{speaker} is in a relationship",
        ),
        (
            _TOGETHER,
            "relationships",
            "partner",
            "{speaker}'s partner is {name}",
        ),
        (
            # A favourite said without a verb: "favourite colour purple!", "fave film: Notting Hill".
            r"^(?:my\s+)?(?:new\s+)?(?:all[- ]time\s+)?(?:fave|fav|favourite|favorite)\s+"
            r"(?P<what>colou?r|film|movie|band|song|food|dish|meal|book|novel|show|series|game|album|artist|singer|drink|snack|sport|author)\s*[:=-]?\s+"
            r"(?P<value>(?!is\b|has\b|was\b|of\b|ever\b|right\b|at\b|now\b)[^,.!?:;()]{2,40}?)"
            r"\s*(?=$|[^\w\s'&-]|\s+(?:and|but|"
            r"so|always|forever|ever|since|tbh|lol|fr|no\s+question)\b)",
            "preferences",
            "favourite {what}",
            "{speaker}'s favourite {what} is {value}",
        ),
        (
            r"^(?:i'm\s+|im\s+|i\s+am\s+)?(?:officially\s+)?an?\s+(?P<team>" + NAME + r")\s+fan\s+now\b",
            "sports",
            "team",
            "{speaker} supports {team}",
        ),
        (
            r"\b(?:upgraded|switched(?:\s+back)?|moved|changed|went)\s+(?:over\s+)?"
            r"(?:from\s+(?:an?\s+|the\s+|my\s+)?[\w-]+(?:\s+[\w-]+)?\s+)?to\s+(?:the\s+|an?\s+)?"
            r"(?P<phone>" + PHONE + r")(?![\s\d]*\s(?:screen|store|group|chat)\b)" + OTHER_GOODS_AFTER,
            "possessions",
            "phone",
            "{speaker}'s phone is the {phone}",
        ),
        (
            # "officially Senior Analyst as of this week", "sous chef now", "first term as deputy head done".
            r"^(?:i'm\s+|im\s+|i\s+am\s+)?officially\s+(?:an?\s+|the\s+)?(?P<title>" + _TITLE + r")\b|"
            r"^(?P<title2>" + _TITLE + r")\s+now\b|"
            r"^(?:(?:just\s+)?(?:finished|survived|done)\s+)?(?:my\s+)?first\s+(?:term|week|month|day|year|shift)\s+as\s+"
            r"(?:an?\s+|the\s+)?(?P<title3>" + _TITLE + r")\b|"
            # "now that i'm shift manager", "started as charge nurse this week", "title's data scientist now",
            # "moved from QA into a product owner role".
            r"\bnow\s+that\s+(?:i'm|im|i\s+am)\s+(?:an?\s+|the\s+)?(?P<title4>" + _TITLE + r")\b|"
            r"(?:^|\bi\s+|\bjust\s+)started\s+as\s+(?:an?\s+|the\s+)?(?P<title5>" + _TITLE + r")\b|"
            r"\b(?:my\s+)?title(?:'s|\s+is)\s+(?:now\s+)?(?P<title6>" + _TITLE + r")\b|"
            r"\binto\s+(?:an?|the)\s+(?P<title7>" + _TITLE + r")\s+role\b",
            "work",
            "occupation",
            "{speaker}'s job is {title}",
        ),
        (
            # "went honey blonde", "dyed it copper red", "my hair is jet black"; a colour that is no hair's alone
            # ("went back to brown") only where the message speaks of hair.
            r"\b(?:went|gone|going|dyed\s+(?:it|my\s+hair))\s+(?:back\s+)?(?:to\s+)?(?:my\s+)?(?:natural\s+)?(?P<hair>"
            + _HAIR
            + r")\b(?![^.!?\n]{0,60}\b(?:for\s+(?:the|a|my)\s+(?:party|night|day|weekend|festival|wedding|show|game|"
            r"photoshoot|shoot)|washes\s+out|wash\s+out|temporary|semi-permanent|wig|spray|halloween)\b)|"
            r"^my\s+hair(?:'s|\s+is)\s+(?:now\s+|still\s+)?(?:bright\s+|dark\s+|light\s+)?(?P<hair2>" + _HAIR + r")\b|"
            r"\b(?:rocking|sporting)\s+(?:my|the|a)\s+(?P<hair3>"
            + _HAIR
            + r")\s+(?:bob|hair|pixie|curls|locks|crop|fringe)\b",
            "appearance",
            "hair colour",
            "{speaker}'s hair is {hair}",
        ),
        (
            # "started at google monday, onboarding is a lot": a name, then when, and the message speaks of work.
            r"(?:^|\bi\s+|\bjust\s+|\bfinally\s+)started\s+(?:work\s+|a\s+new\s+job\s+)?at\s+"
            r"(?!(?:the|a|an|my|uni|university|school|college|home|work|noon|midnight|dawn|last|first|\d)\b)"
            r"(?P<employer>[\w&'.-]+(?:\s+[\w&'.-]+)?)\s+"
            r"(?:on\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|yesterday|this\s+week|"
            r"last\s+week)\b(?=.*" + WORK_WORDS + r"|.*\b(?:hours|induction|payslip|payroll|daytime|nights)\b)",
            "work",
            "employer",
            "{speaker} works at {employer}",
        ),
        (
            # "started dating someone new, hannah", "started seeing Priya".
            r"(?:^|\bi\s+|\bjust\s+|\bi've\s+)started\s+(?:dating|seeing)\s+(?:someone\s+(?:new\s*)?,?\s*"
            r"(?P<name>[A-Za-z][a-z]+)|(?!(?:Dr|Doctor|Mr|Mrs|Ms|Miss|Someone|Friends|Marvel)\b)(?P<name2>(?-i:[A-Z])[a-z]+))\b"
            r"(?!'s|\s+(?-i:[A-Z])|\s+(?:reruns|films?|movies?|shows?|more|every|again)\b)",
            "relationships",
            "partner",
            "{speaker}'s partner is {name}",
        ),
        (
            # "moved into my dorm at UC Davis", "first week of uni at UNSW".
            r"\b(?:(?:my|our|into\s+(?:my|the))\s+(?:dorm|halls)|first\s+(?:week|term|semester|year)\s+of\s+(?:uni|university|"
            r"college))\s+at\s+"
            r"(?P<school>" + NAME + r")",
            "education",
            "school",
            "{speaker} goes to {school}",
        ),
        (
            # "I'm Anglican", "I've become a Buddhist", "I'd call myself agnostic now", "converted to Islam".
            r"(?:^|\b(?:so|and|now)\s+)(?:i'm|im|i\s+am)\s+(?:now\s+)?(?:an?\s+)?(?:practising\s+|practicing\s+|devout\s+)?(?P<faith>"
            + FAITHS
            + r")\b|\b(?:i've|i\s+have)\s+become\s+(?:an?\s+)?(?P<faith2>"
            + FAITHS
            + r")\b|"
            r"\b(?:i'd|i\s+would)\s+call\s+myself\s+(?:an?\s+)?(?P<faith3>" + FAITHS + r")\b|"
            r"\b(?:i\s+|just\s+|^)converted\s+to\s+(?P<faith4>" + FAITHS + r"|islam|judaism|christianity|hinduism|"
            r"buddhism|sikhism|catholicism)\b(?!\s+(?:on|about|when|if|for)\b)",
            "beliefs",
            "religion",
            "{speaker} is {faith}",
        ),
        (
            # A new surname: "it's Emma Okafor now 💍".
            r"(?:^|[,:]\s*|\s[-–—]\s+)(?:it's|its|it\s+is)\s+(?P<name>(?-i:[A-Z][a-z]+)\s+(?-i:[A-Z])[\w'-]+)\s+now\b(?!\s+(?:on|for|in)\b)",
            "identity",
            "name",
            "{speaker}'s name is {name}",
        ),
        (
            r"^i\s+(?:go\s+to|attend)\s+(?P<school>" + NAME + r")\s*,?\s+(?:freshman|sophomore|junior|senior|first|"
            r"second|third|fourth|final|1st|2nd|3rd|4th)\s+year\b",
            "education",
            "school",
            "{speaker} goes to {school}",
        ),
        (
            r"\b(?:moved|switched|changed|joined)\s+(?:over\s+)?(?:to\s+)?(?:the\s+)?(?!(?:hotel|home|office|work|school|uni)\s)"
            r"(?P<gym>(?:[\w'-]+\s+){0,3}?gym)\b"
            r"(?!\s+(?:class|session|buddy|bag|shoes|kit|playlist|days?|routine|schedule|time|times|clothes|music|plan))"
            r"(?<!\bmy\sgym)",
            "fitness",
            "gym",
            "{speaker} goes to the {gym}",
        ),
        (
            r"\bi\s+have\s+a\s+(?:girlfriend|boyfriend|partner)\s+now\b",
            "relationships",
            "relationship_status",
            "{speaker} is in a relationship",
        ),
        (
            r"\b(?:being|i'm|im|i\s+am)\s+single\s+again\b|^(?:i'm\s+|im\s+|i\s+am\s+)?(?:newly|officially|recently)\s+"
            r"single\b(?!\s+(?:for|friends|people|mums?|dads?|parents?|life|malt|bed|room|ticket|use)\b)",
            "relationships",
            "relationship_status",
            "{speaker} is single",
        ),
        (
            r"\b(?:i'm|i\s+am)\s+back\s+to\s+eating\s+meat\b|\bi've\s+been\s+eating\s+meat\s+(?:again|since)\b|"
            r"\b(?:started|i'm|i\s+am|im)\s+eating\s+meat\s+again\b",
            "diet",
            "diet",
            "{speaker} eats meat",
        ),
        (
            r"(?:^|\bi've\s+|\bi\s+|\bjust\s+)(?:started|taken\s+up|took\s+up)\s+(?:learning\s+|playing\s+)?(?:the\s+)?"
            r"(?P<instrument>" + INSTRUMENTS + r")\b(?!.*\b(?:too|as\s+well|also)\b)(?!\s+lessons\s+for)",
            "music",
            "instrument",
            "{speaker} plays the {instrument}",
        ),
        (
            # "spent my 45th at a karaoke bar", "my 64th came and went", "it's my 30th birthday".
            r"\b(?:spent|celebrated|had|celebrating|spending)\s+my\s+(?P<age>\d{1,3})(?:st|nd|rd|th)\b"
            r"(?!\s+(?:time|year|day|week|month|attempt|try|place|anniversary|grade|game|marathon|race|book|job|cup))|"
            r"\b(?:it's|it\s+is|today\s+is|today's)\s+my\s+(?P<age2>\d{1,3})(?:st|nd|rd|th)\s+(?:birthday|bday)\b|"
            r"\bmy\s+(?P<age3>\d{1,3})(?:st|nd|rd|th)\s+(?:birthday\s+|bday\s+)?came\s+and\s+went\b|"
            # "a lovely party for my 75th on Sunday", "birthday was yesterday, officially 30", "40 as of Saturday".
            r"\bparty\s+for\s+my\s+(?P<age4>\d{1,3})(?:st|nd|rd|th)\b|"
            r"\b(?:birthday|bday)\b.{0,40}?\b(?:officially\s+(?P<age5>\d{1,2})\b|(?P<age7>\d{2})\s+now\b)|"
            r"\b(?:i've|i\s+have)\s+(?:hit|reached)\s+(?P<age10>\d{2})\b|^(?P<age6>\d{2})\s+as\s+of\b|^being\s+(?P<age9>\d{2})\s+(?:with|is|as|and)\b|\b(?:guess|so)\s+(?P<age8>\d{2})\s+is\s+official\b",
            "identity",
            "age",
            "{speaker} is {age}",
        ),
    )
)


# Changes told in chat's shorthand (shorthand.py), read after these.
MILESTONES += tuple(
    (re.compile(pattern, re.IGNORECASE), topic, attribute, template)
    for pattern, topic, attribute, template in SHORTHAND
)
_OF_SHORTHAND = frozenset(row[0] for row in MILESTONES[-len(SHORTHAND) :])
# Where the speaker lives now, said in passing, in a question or a request too: "vegan places near my new apartment
# in Denver?", "got the keys to the flat in leith!!", "first night in the Geelong house", "back in Montréal for good".
PASSING: tuple[tuple[re.Pattern[str], str, str, str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), topic, attribute, template)
    for pattern, topic, attribute, template in (
        (
            r"\b(?:my|our)\s+new\s+" + HOME + r"\s+in\s+" + place("place", lower_case=False) + r"|"
            r"\b(?:at|into|in)\s+the\s+new\s+" + HOME + r"\s+in\s+" + place("place6") + r"|"
            r"\b(?:so\s+|and\s+|^)" + place("place7") + r"\s+is\s+(?:officially\s+)?(?:my\s+)?home\s+now\b(?!\s+for\b)|"
            r"\bfirst\s+(?:winter|year)\s+(?:living\s+)?in\s+"
            + place("place8")
            + r"\b(?!\s+(?:trip|holiday|was|were)\b)(?!.*\b(?:was|were)\b)|"
            r"\bgot\s+the\s+keys\s+(?:to|for)\s+(?:the|our|my)\s+(?:new\s+)?"
            + HOME
            + r"\s+in\s+"
            + place("place2")
            + r"|\bfirst\s+(?:night|week|weekend)\s+in\s+the\s+"
            + place("place3")
            + r"\s+"
            + HOME
            + r"\b|"
            r"(?:^|[,;]\s*|\bi'm\s+|\bi\s+am\s+|\bnow\s+)back\s+in\s+"
            + place("place4")
            + r"\s+(?:for\s+good|permanently)\b|"
            r"^(?:my|our)\s+(?:home\s+)?address\s+is\s+in\s+" + place("place5") + r"|"
            r"\b(?:my|our)\s+(?:new\s+)?(?:home\s+)?address\s+is\s+(?:now\s+)?in\s+"
            + place("place9", lower_case=False),
            "home",
            "residence",
            "{speaker} lives in {place}",
        ),
        (
            r"\bmy\s+(?:new\s+)?(?P<phone>(?:(?:samsung|google|apple|xiaomi|motorola)\s+)?(?:iphone|pixel|galaxy(?:\s+[a-z])?|"
            r"oneplus|xiaomi|redmi(?:\s+note)?|moto(?:\s+[a-z])?)\s*\d{1,3}"
            r"(?:\s+(?:pro|max|plus|ultra|mini|fe|xl|lite))*)\b",
            "possessions",
            "phone",
            "{speaker}'s phone is the {phone}",
        ),
        *ON_THE_WAY,
        *OF_OTHERS,
        *SAID_ANYWAY,
    )
)
_SAID_ANYWAY = frozenset(row[0] for row in PASSING[-len(SAID_ANYWAY) :])
_SAID_OF_OTHERS = frozenset(row[0] for row in PASSING[-len(OF_OTHERS) - len(SAID_ANYWAY) : -len(SAID_ANYWAY)])
# A birthday long past: "for my 18th birthday back in 2013", "celebrated my 21st when I was in Leeds".
_LONG_AGO = re.compile(r"\bback\s+(?:in|then|when)\b|\byears\s+ago\b|\b(?:19|20)\d\d\b|\bwhen\s+i\s+was\b", re.I)
_NEAR = 60
# What is asked about is the value itself: "my new flat in Bristol? no, still looking".
_ASKED = re.compile(r"\s*\?")
# "is a accountant" -> "is an accountant".
_AN = re.compile(r"\ba (?=[aeiou])", re.IGNORECASE)
_OF_ME = re.compile(
    r"\b(?:convinced|persuaded|got|put|started)\s+me\s+(?:to|on)\b|\b(?:made|promoted)\s+me\b", re.IGNORECASE
)
_MILESTONES = Patterns((row[0], row) for row in MILESTONES)
_PASSING = Patterns((row[0], row) for row in PASSING)


def _values(match: re.Match[str]) -> dict[str, str]:
    """A match's named values, the alternatives' numbered groups under one name, written as they are named: a
    phone without brackets ("iphone (15 pro" -> "iphone 15 pro"), a place or a name typed in lower case with its
    capital ("leith" -> "Leith")."""
    values = {key.rstrip("0123456789"): value for key, value in match.groupdict().items() if value}
    for key in ("diet", "course"):
        # "Keto is going well", "Nursing degree year 2": a sentence's capital; not "low FODMAP", not "Udemy".
        value = values.get(key, "")
        if value[1:2].islower() and (key == "diet" or _A_FIELD.match(value.lower())):
            values[key] = value[:1].lower() + value[1:]
    if "phone" in values:
        values["phone"] = " ".join(values["phone"].replace("(", " ").replace(")", " ").split())
    for key in ("place", "name", "org", "bank", "carrier", "isp", "gym", "school", "car"):
        if key in values:
            # A sentence's stop is no part of the name ("moved back to my hometown, Columbus.").
            value = values[key].rstrip(".") if key == "place" else values[key]
            values[key] = canonical(value, capital=key in ("place", "name"))
    return values


_A_FIELD = re.compile(FIELDS + r"\b")
_COURTESY = re.compile(
    r"^\s*(?:i\s+(?:just\s+)?wanted\s+to\s+(?:let\s+you\s+know|tell\s+you|update\s+you)|just\s+to\s+(?:let\s+you\s+know|"
    r"update\s+you)|quick\s+update)\s*(?:that\b|:|,)?\s*",
    re.IGNORECASE,
)


def milestones_in(content: str, speaker: str) -> list[tuple[str, str, str]]:
    """(topic, attribute, text) for each milestone of the speaker's own the message tells."""
    found: list[tuple[str, str, str]] = []
    milestones = [row for _, row in _MILESTONES.possible(content)]
    passing = [row for _, row in _PASSING.possible(content)]
    if not milestones and not passing:
        return found
    # "I wanted to let you know that Lorraine and I have separated": the news is what follows the courtesy.
    every = [_COURTESY.sub("", s) for s in SENTENCE_BREAK.split(content) if s and not NOT_NOW.search(s)]
    # A value said to hold still is said ("I'm still with Barclays").
    told = [s for s in every if len(s) <= MAX_CLAUSE_CHARS and not no_change_of_the_speakers(STILL.sub("", s))]
    raw: list[str] | None = None
    for pattern, topic, attribute, template in passing:
        # In a request ("places near my new apartment in Denver?"), not as the question itself ("my new flat in
        # Bristol? no, still looking").
        pool = told
        if pattern in _SAID_OF_OTHERS:
            pool = every
        elif pattern in _SAID_ANYWAY:
            pool = raw if raw is not None else (raw := [s for s in SENTENCE_BREAK.split(content) if s])
        said = (pattern.search(s) for s in pool)
        match = next((m for m in said if m and not (m.start() < 3 and _ASKED.match(m.string, m.end()))), None)
        if match is not None:
            found.append((topic, attribute, template.format(speaker=speaker, **_values(match))))
    sentences = [s for s in every if not asks(s)]
    own = [s for s in sentences if not no_change_of_the_speakers(s)]
    text = " ".join(own)
    # "My granddaughter convinced me to go vegan": someone of the speaker's acts, the speaker changes.
    told_of_me = " ".join(s for s in sentences if _OF_ME.search(s) and not NO_CHANGE.search(s))
    for pattern, topic, attribute, template in milestones:
        match = next(filter(None, map(pattern.search, own)), None)
        if match is None and len(own) > 1:
            match = pattern.search(text)
        if match is None and told_of_me:
            match = pattern.search(told_of_me)
        if match is None or (pattern in _OF_SHORTHAND and not by_the_speaker(match)):
            continue
        if attribute == "residence" and pattern in _OF_SHORTHAND and LET_OUT.search(content):
            continue
        values = _values(match)
        if "age" in values and _LONG_AGO.search(text[max(0, match.start() - _NEAR) : match.end() + _NEAR]):
            continue
        if "diet" in values:
            values["diet"] = " ".join(values["diet"].split())
            if not values["diet"]:
                continue
            if template.endswith("diet") and values["diet"].lower() in ("vegan", "vegetarian", "pescatarian"):
                template = "{speaker} is {diet}"
        if "hair" in values and not (_NAMED_FOR_HAIR.search(values["hair"]) or _SPEAKS_OF_HAIR.search(text)):
            continue
        if "what" in values:
            values["what"] = favourite_attribute(values["what"], text).removeprefix("favourite ")
            values["value"] = values["value"].strip()
        said = template.format(speaker=speaker, **values)
        found.append((topic, attribute.format(**values), _AN.sub("an ", said) if "title" in values else said))
    return found
