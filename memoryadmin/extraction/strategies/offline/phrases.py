"""Pieces of pattern the attribute cues share: the speaker as subject, a proper name, fields of study, diets."""

from __future__ import annotations

import re

from memoryadmin.extraction.strategies.offline.lexicon import RELATIONS

CAP = r"(?-i:[A-Z])"
# A proper name of one to four words: "Monzo", "Planet Fitness", "The Gym Group".
NAME = CAP + r"[\w&.'-]*(?:\s+" + CAP + r"[\w&.'-]*){0,3}"
ADV = (
    r"(?:(?:just|finally|recently|officially|now|already|actually|also|since|kinda|basically|pretty\s+much|fully|"
    r"completely|totally|strictly)\s+)*"
)
# The speaker as the subject of a verb: "I", "we", "I've", "we have", "I'd".
SUBJECT = r"\b(?:i|we)(?:'ve|\s+have|'d|\s+had)?\s+" + ADV
AM = r"\b(?:i'm|i\s+am|we're|we\s+are)\s+" + ADV
WORK_WORDS = (
    r"\b(?:team|job|jobs|work|working|shift|shifts|office|role|position|boss|manager|coworkers?|colleagues?|"
    r"department|commute|salary|pay|onboarding|badge|hired|backend|frontend|engineering|consulting|sales|"
    r"clients?|customers|contract|side)\b"
)
FIELDS = (
    r"(?:philosophy|biology|chemistry|physics|mathematics|maths|math|economics|history|law|medicine|nursing|midwifery|"
    r"nutrition|physiotherapy|social\s+work|criminology|hospitality|fashion|photography|animation|"
    r"psychology|sociology|anthropology|linguistics|english|literature|french|spanish|german|art|fine\s+art|"
    r"architecture|computer\s+science|cs|engineering|(?:mechanical|civil|electrical|chemical|software)\s+engineering|"
    r"accounting|finance|business|marketing|journalism|education|geography|politics|political\s+science|"
    r"music|design|graphic\s+design|film|theatre|theater|pharmacy|dentistry|veterinary\s+science|statistics|"
    r"data\s+science|neuroscience|biochemistry|genetics|agriculture|classics|theology|communications|psych|econ|"
    r"poli\s+sci|comp\s+sci|ece|mass\s+comm|informatics|media\s+studies|sports\s+science|physiotherapy)"
)
# What a couple is, not what the two of them do together ("my wife and i were in paris"): "my boyfriend and i are
# engaged", "me and my gf are doing long distance".
COUPLE_STATES = (
    r"(?:now\s+|officially\s+|finally\s+|happily\s+)?(?:together|engaged|married|getting\s+(?:married|divorced)|"
    r"dating|a\s+couple|separated|separating|divorced|splitting|done|over|official|an\s+item|seeing\s+each\s+other|"
    r"(?:doing\s+)?long[- ]distance|living\s+together|moving\s+in\s+together)\b"
)
DIETS = r"(?:vegan|vegetarian|pescatarian|pescetarian|keto|paleo|plant[- ]based|gluten[- ]free|low[- ]carb|carnivore)"
HAIR = r"(?:black|brown|dark\s+brown|light\s+brown|blonde?|platinum(?:\s+blonde?)?|red|ginger|auburn|grey|gray|"
HAIR += r"white|silver|pink|purple|blue|green|teal|orange|brunette)"


# A gym by its name: "PureGym", "Planet Fitness", "Gold's Gym", "the YMCA".
GYM_NAME = (
    r"(?-i:[A-Z][\w'&-]*(?:Gym|Fitness)|(?:[A-Z][\w'&-]*\s+){0,3}(?:Gym|Fitness|YMCA|CrossFit|Crossfit)|"
    # Chains named without "gym" or "fitness".
    r"Equinox|Orangetheory|F45|PureGym|Crunch|Barry's|SoulCycle|Virgin\s+Active|David\s+Lloyd|Nuffield\s+Health|"
    r"Bannatyne's|Cult(?:\.fit)?|GoodLife|Jetts|Smart\s+Fit|Bodytech|Basic-Fit|McFit|Third\s+Space)\b"
)


GYM_WORDS = r"(?=.*\b(?:gym|squat|lifting|workout|weights|treadmill|spin\s+class|membership)\b)"


def rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def one_of(phrases: str) -> str:
    """A non-capturing alternation of the phrases, one per line or "|"-separated, spaces matching any space."""
    found = [" ".join(p.split()) for line in phrases.splitlines() for p in line.split("|") if p.strip()]
    return "(?:" + "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in found) + ")"


# Where a message's sentences part, for the readings that look at a whole message (contacts, milestones); an
# ellipsis goes on with the same thought ("paris is my home now... for the weekend lol").
# A stop, a line break, or a dash between spaces ("Ported my number to Mint Mobile - anything I need to do?").
SENTENCE_BREAK = re.compile(
    r"(?<=[.!?])(?<!\.\.\.)(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<!\bSt\.)(?<!\bProf\.)\s+|\n+|\s+[-–—]+\s+"
)


# "still" before what it says holds: "I'm still with Barclays", "still loving my little flat in Leith".
STILL = re.compile(r"\bstill\s+", re.IGNORECASE)


def asks(sentence: str) -> bool:
    """Whether a sentence is a question: it ends in "?", quotes and brackets aside; "pescatarian i guess?" hedges."""
    said = sentence.rstrip(" \"')")
    return said.endswith("?") and not _HEDGED.search(said)


# A statement that ends unsure of itself, not a question: "pescatarian i guess?", "it's fine i think??".
_HEDGED = re.compile(r"\b(?:i\s+guess|i\s+think|i\s+suppose)\s*\?+$", re.IGNORECASE)


# A sentence of a whole-message reading (milestones, what is said in passing, what is gone) that tells no change
# of the speaker's now: imagined ("if i moved", "would be nice"), for a while ("for the weekend", "until next
# season"), on a trip ("visiting", "the airbnb"), for someone else ("for my mum", "for you"), long ago ("back in
# 2015", "in uni"), taken back ("didn't last", "turned it down", "jk"), or done with a day's work ("after my shift").
# Told of a home that is not the speaker's to live in: let out, an investment, a second home.
LET_OUT = re.compile(
    r"\b(?:rent\s+(?:it\s+)?out|investment|tenants|holiday\s+let|buy[- ]to[- ]let|airbnb|rental|let\s+out)\b", re.I
)
NOT_LIVED_IN = r"(?![^\n]{0,60}" + LET_OUT.pattern + ")"
# States one lives in that are no place: "living in hope", "based in reality", "moved to tears".
STATES = "hope fear denial sin peace harmony style luxury poverty comfort sync reality limbo chaos bliss dread tears"
NOT_A_STATE = (
    r"(?!(?:" + "|".join(STATES.split()) + r"|the\s+(?:moment|past|present|now|dark|shadows?)|a\s+(?:bubble|dream)|"
    r"my\s+head)\b)"
)
# A move to a provider, not a place: "moved to Virgin Media for broadband".
NOT_FOR_A_SERVICE = (
    r"(?![^,.;!?]{0,40}\bfor\s+(?:broadband|internet|fibre|fiber|wifi|my\s+(?:phone|mobile|banking|savings))\b)"
)
NOT_NOW = re.compile(
    r"\b(?:would\s+(?!you\b|u\b)|if\s+(?:i|we)\b|(?:i|we)\s+wish\b|someday|one\s+day|hypothetically|imagine|pretend)|"
    r"\bfor\s+(?:the|a|one|two|three|\d+)\s+(?:weekend|week|day|night|month|bit|afternoon|evening)s?\b|"
    r"\bfor\s+(?:today|tonight|halloween|charity|veganuary|lent|ramadan|christmas|easter|thanksgiving|diwali|eid)\b|\btoday\s+only\b|\buntil\s+next\b|"
    r"\b(?:on\s+(?:a|my|our|the)\s+(?:\w+\s+)?trip|(?:work|business|school|road)\s+trip|visiting|holiday|holidays|"
    r"vacation|airbnb|hotel|getting\s+(?:them|it)\s+back)\b|"
    r"\bfor\s+(?:my|our)\s+(?:\w+\s+)?(?:mum|mom|dad|son|daughter|kids?|brother|sister|friend|mate|boss|wife|husband|lad|lass|boy|girl|"
    r"partner|gran|nan|grandma|grandad|grandpa|nephew|niece|cousin|parents|family|student|tenant|clients?)\b|"
    r"\bfor\s+(?:you|him|her|them|mum|mom|dad|nan|gran|grandma|grandad)\b|"
    r"\b(?:till|til|until)\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tmrw|the\s+weekend|"
    r"next\s+\w+|the\s+snow|it's\s+fixed)\b|"
    r"\b(?:conference|convention|in\s+my\s+head|daydream\w*|courtesy\s+car|rental\s+car|hire\s+car|loaner)\b|"
    r"\bafter\s+(?:one|a|1|two)\s+(?:weekend|week|day|trip|visit)\b|\bafter\s+(?:college|uni|graduation|school)\b|"
    r"\bfor\s+\w+\s+weekend\b|"
    r"\b(?:back\s+in\s+(?:(?:19|20)\d\d|the\s+day|uni|school|college)|years\s+ago|when\s+i\s+was|in\s+uni)\b|"
    r"\b(?:didn't\s+last|didn't\s+work\s+out|turned\s+(?:it|them|that)\s+down|jk|just\s+kidding)\b|"
    r"\bafter\s+(?:my|the)\s+(?:shift|class|lecture|practice|session|lesson|meeting)\b|\bafter\s+work\b",
    re.IGNORECASE,
)


# The phones named by their make or line: "Pixel 8 user", "upgraded to the s24 ultra".
MAKES = r"iphone|pixel|galaxy|samsung|oneplus|xiaomi|redmi|motorola|moto|nokia"
PHONE = (
    r"(?:(?:samsung|google|apple|xiaomi|motorola)\s+(?=iphone|pixel|galaxy|redmi|moto))?"
    r"(?:" + MAKES + r"|s\d{2})(?:\s+(?=[a-z]?\d)|\s+[a-z](?=\d))?(?:\s*\(?[a-z]?\d{1,2}[a-z]?\)?)?"
    r"(?:\s+(?:pro|max|plus|ultra|mini|fe|xl|lite))*"
)

FAITHS = (
    r"(?:catholic|anglican|protestant|christian|muslim|jewish|hindu|buddhist|sikh|atheist|agnostic|orthodox|baptist|"
    r"methodist|mormon|pagan|jain|quaker|evangelical|lutheran|presbyterian)"
    # Not a faith in something else: "agnostic on pineapple pizza", "catholic in my guilt".
    r"(?![.…]*\s+(?:on|about|when|if|for|in)\b)"
)

HOME = r"(?:house|flat|apartment|place|home|condo|bungalow|cottage|pad)"

# Words typed in lower case where a place's name would be, that are none: "the puppy is home now", "in town".
NOT_A_PLACE = (
    r"(?:the|a|an|my|our|his|her|their|it|he|she|they|we|you|everyone|everybody|baby|puppy|kitten|dog|cat|town|city|"
    r"here|there|uni|work|school|hospital|" + "|".join(sorted(RELATIONS)) + r")"
)


def place(group: str, lower_case: bool = True) -> str:
    """A place's name in a group of that name; typed in lower case too, unless `lower_case` is False."""
    capitalised = r"(?-i:[A-Z])[\w'.-]+(?:\s+(?-i:[A-Z])[\w'.-]+)?"
    typed = r"|(?!" + NOT_A_PLACE + r"\b)[a-z][\w'-]+)"
    return r"(?P<" + group + r">" + capitalised + (typed if lower_case else ")")
