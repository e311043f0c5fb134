"""The `rules` strategy's word lists and patterns: what a clause must look like to state a fact."""

from __future__ import annotations

import re

from memoryadmin.extraction.strategies.offline.lexicon import CONFIDENTIAL_WORDS, REPORTING_VERBS, word_set
from memoryadmin.extraction.strategies.offline.speech import CURLY_QUOTES

CATEGORIES = ("name", "place", "work", "preference", "fact", "remember")
MAX_VALUE_WORDS = 8
MAX_REMEMBER_WORDS = 40


def _phrases(text: str) -> tuple[str, ...]:
    return tuple(phrase.strip() for phrase in text.split(","))


# --- sentences and clauses -------------------------------------------------

QUOTES = str.maketrans(CURLY_QUOTES)
# A new clause starts where a conjunction or comma hands the sentence back to the user.
CLAUSE_BREAK = re.compile(
    r"\s*;\s*|\s+[-–—]\s+|,?\s+(?:and|but|so|plus|also|then|while|whereas)\s+(?=(?:i|my)\b)|[,:]\s+(?=(?:i|my)\b)",
    re.IGNORECASE,
)
# Words that, ending the previous clause, make the next one someone else's words ("as I said" stays the user's).
REPORTING_TAIL = re.compile(r"(?<!\bi )\b(?:" + REPORTING_VERBS + r"|thought)\s*[,:]?\s*$", re.IGNORECASE)
FILLER = re.compile(
    r"^(?:(?:oh\s+and|and\s+also|well|so|oh|ah|um|uh|actually|btw|by\s+the\s+way|also|and|but|yes|yeah|yep|"
    r"no|nope|ok|okay|fyi|anyway|anyways|honestly|basically|plus|just\s+so\s+you\s+know|for\s+the\s+record|"
    r"for\s+context|fwiw|as\s+you\s+know|as\s+i\s+said|like\s+i\s+said|as\s+i\s+mentioned|currently|now|"
    r"these\s+days|nowadays|at\s+the\s+moment|right\s+now|these\s+days)\b[\s,:!.-]*)+",
    re.IGNORECASE,
)
GREETING = re.compile(
    r"^(?:hi|hello|hey|hiya|greetings|good\s+(?:morning|afternoon|evening))(?:\s+(?:there|everyone|all))?"
    r"\b[\s,!.-]*",
    re.IGNORECASE,
)
QUESTION_START = re.compile(
    r"^(?:what|where|when|why|how|who|whom|whose|which|do|does|did|is|are|am|was|were|can|could|would|will|"
    r"should|shall|may|might|have|has|had|isn't|aren't|don't|doesn't|didn't|won't|wouldn't|shouldn't|"
    r"couldn't|can't)\b",
    re.IGNORECASE,
)
# Anything before the fact (or inside it) that makes it imagined, wished, planned or pretended.
HYPOTHETICAL = re.compile(
    r"\b(?:if|unless|whether|would|wouldn't|could|couldn't|might|maybe|perhaps|suppose|supposing|imagine|"
    r"imagining|pretend|pretending|hypothetically|wish|wished|someday|one\s+day|dream|dreams|dreaming|"
    r"let's\s+say|lets\s+say|assume|assuming|what\s+if|roleplay|role-play|role\s+play|in\s+this\s+story|"
    r"in\s+my\s+story|in\s+my\s+novel|i'd|should)\b",
    re.IGNORECASE,
)
LEADING_SYMBOLS = re.compile(r"^[^\w\"']+")
TRAILING_NEGATION = re.compile(r"\b(?:anymore|any\s+more|no\s+more|no\s+longer)\b", re.IGNORECASE)

# --- values ----------------------------------------------------------------

VALUE_BREAK = re.compile(
    r"\s*[,;:!?()\[\]]|(?<!\bSt)(?<!\bDr)(?<!\bMt)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bInc)(?<!\bLtd)(?<!\bCo)"
    r"\.(?:\s|$)|\s[-–—]\s|\s(?:because|since|although|though|but|when|whenever|while|if|"
    r"unless|until|whereas|so\s+that|as\s+long\s+as|especially|which|who|where|cause|cuz|coz)\b",
    re.IGNORECASE,
)
VALUE_TAIL = re.compile(
    r"(?:\s+(?:a\s+lot|so\s+much|very\s+much|too\s+much|quite\s+a\s+bit|a\s+bit|too|also|as\s+well|though|lol|"
    r"haha|btw|anyway|actually|now|right\s+now|these\s+days|currently|honestly|really|for\s+real))+$",
    re.IGNORECASE,
)
WORD = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ0-9][\wÀ-ÖØ-öø-ÿ'&.-]*")
OBJECT_PRONOUNS = {"my": "their", "me": "them", "myself": "themselves", "mine": "theirs"}
FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'll|i'd|my|me|mine|myself)\b", re.IGNORECASE)

NOT_NAMES = word_set(
    "not a an the later back tomorrow today tonight now soon anytime whenever sometime maybe please again crazy "
    "old names anything whatever on at in by when if after before you it that this what sir madam anytime "
    "everyone everybody nobody someone something nothing here there"
)
TITLES = word_set("mr mrs ms miss dr prof sir dame")
NOT_GREETING_NAMES = word_set(
    "french english german spanish italian american british canadian chinese japanese korean indian irish "
    "scottish welsh dutch swiss swedish danish norwegian finnish polish russian brazilian mexican australian "
    "portuguese greek turkish new back here fine good great okay ok sorry glad happy ready tired done not just "
    "so very also still currently looking trying working going sure excited home"
)
PLACE_CONNECTORS = word_set("of de du la le del des da upon on am an der di y and")
PLACE_STOP = word_set(
    "a an the my our this that here there with for since and but because now at on near by so which where when "
    "to from in of right currently anymore too also for with until till while during around"
)
WORK_BAD_START = _phrases(
    "night, nights, home, the moment, weekends, the weekend, midnight, noon, dawn, the same time, all, "
    "least, most, first, times, well, much, hard, long, usual, normal, always, though, my own pace, it, "
    "this, that"
)
PREFERENCE_BAD_START = _phrases(
    "it, that, this, these, those, them, him, her, you, your, yours, what, how, when, where, why, who, "
    "which, whatever, some, one, both, either, neither, the idea, the way, the first, the second, the "
    "third, the last, the other, the former, the latter, the answer, the suggestion, the response, "
    "option, number, talking, chatting, to think, to know, to say, to ask, to hear, hearing, more, less, "
    "so, too, very, a lot, lots, much, all of, everything, anything, nothing, something, everyone, "
    "anyone, if, because, and, but, or, i, i'm, us"
)
# The attribute of "my X is Y" that is conversation, not a fact about the user.
DISCOURSE_ATTRIBUTES = word_set(
    "question questions problem problems issue issues point guess concern concerns understanding bad pleasure "
    "apologies apology answer reply request message code error errors output input bug script program test "
    "tests query fault mistake turn thought thoughts opinion take feeling impression idea plan plans hope "
    "internet connection wifi screen battery account order ticket case suggestion advice point reason "
    "point main worry fear assumption experience"
)
# Never kept, whatever the wording: an attribute that names a secret, or any "secret", "token" or "login".
SENSITIVE_ATTRIBUTES = re.compile(r"\b(?:" + CONFIDENTIAL_WORDS + r"|secret|token|login)\b", re.IGNORECASE)
ATTRIBUTE_NON_NOUNS = word_set(
    "says said thinks thought believes believed told tells knows knew claims reckons mentioned wrote asked "
    "wants wanted likes loves hates lives works is are was were has had does did will would can could should "
    "i my me you your and or but"
)
BAD_FACT_VALUE_START = _phrases(
    "that, whether, if, how, what, why, when, where, who, not, so, too, very, really, kind of, sort of, a "
    "bit, being, getting, going, gone, broken, down, dead, missing, late, here, there, ok, okay, fine, "
    "good, bad, great, weird, wrong, correct, right, done, over, up, empty, full, off, out, it, this, the "
    "same, same, like, different, unknown, none, nothing, something, still, also, to"
)

# --- patterns --------------------------------------------------------------

ADV = (
    r"(?:(?:really|also|currently|now|still|actually|just|recently|finally|originally|mostly|basically|"
    r"technically|officially|happily|both|since|full[- ]time|part[- ]time)\s+)*"
)
ADV_PREF = (
    r"(?:(?:really|absolutely|also|truly|just|kind\s+of|kinda|totally|generally|usually|honestly|"
    r"definitely|actually|still|do|much|simply|genuinely|especially|particularly|quite|always)\s+)*"
)
AM = r"i(?:'m|\s+am)\s+"
HAVE = r"i(?:'ve|\s+have)\s+"


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


NAME_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (_rx(r"^my\s+(?:first\s+|full\s+|real\s+|given\s+)?name(?:'s|\s+is)\s+"), "User's name is {}"),
    (_rx(AM + r"called\s+"), "User's name is {}"),
    (_rx(r"^(?:you\s+can\s+|please\s+|just\s+)?call\s+me\s+"), "User goes by {}"),
    (_rx(r"^(?:people|everyone|everybody|friends|my\s+friends)\s+call\s+me\s+"), "User goes by {}"),
    (_rx(r"^i\s+" + ADV + r"go\s+by\s+"), "User goes by {}"),
]
GREETING_NAME = _rx(AM + r"(?=[A-Z])")
PLACE_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (_rx(r"^i\s+" + ADV + r"(?:live|reside)\s+in\s+"), "User lives in {}"),
    (_rx(AM + ADV + r"(?:living|residing|based|located|settled)\s+in\s+"), "User lives in {}"),
    (_rx(HAVE + ADV + r"(?:been\s+)?(?:living|lived|based)\s+in\s+"), "User lives in {}"),
    (_rx(AM + ADV + r"from\s+"), "User is from {}"),
    (_rx(r"^i\s+" + ADV + r"come\s+from\s+"), "User is from {}"),
    (_rx(r"^i\s+was\s+born\s+(?:and\s+raised\s+)?in\s+"), "User was born in {}"),
    (_rx(r"^i\s+grew\s+up\s+in\s+"), "User grew up in {}"),
    (_rx(r"^i(?:'ve|\s+have)?\s+" + ADV + r"(?:moved|relocated)\s+(?:back\s+)?to\s+"), "User moved to {}"),
]
WORK_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (_rx(r"^i\s+" + ADV + r"work\s+(?P<prep>at|for|in)\s+"), "User works {prep} {}"),
    (_rx(AM + ADV + r"working\s+(?P<prep>at|for|in)\s+"), "User works {prep} {}"),
    (_rx(HAVE + ADV + r"(?:been\s+)?work(?:ing|ed)\s+(?P<prep>at|for|in)\s+"), "User works {prep} {}"),
    (_rx(AM + ADV + r"employed\s+(?P<prep>at|by)\s+"), "User is employed {prep} {}"),
    (_rx(r"^i\s+" + ADV + r"work\s+as\s+"), "User works as {}"),
    (_rx(AM + ADV + r"working\s+as\s+"), "User works as {}"),
]
PREFERENCE_VERB = _rx(
    r"^i\s+"
    + ADV_PREF
    + r"(?P<neg>don't\s+|do\s+not\s+|didn't\s+|never\s+)?"
    + ADV_PREF
    + r"(?P<verb>prefer|like|love|enjoy|adore|hate|dislike|detest|loathe|despise)\s+"
)
PREFERENCE_STAND = _rx(r"^i\s+" + ADV_PREF + r"(?:can't|cannot|can\s+not)\s+stand\s+")
PREFERENCE_FAN = _rx(
    AM + ADV_PREF + r"(?P<neg>not\s+)?(?:a\s+(?:big\s+|huge\s+|massive\s+)?fan\s+of|into|fond\s+of|"
    r"obsessed\s+with|passionate\s+about|crazy\s+about|keen\s+on)\s+"
)
# How a negated preference is worded; a plain one is its verb in the third person (`grammar.third_singular`).
NEGATED_PREFERENCE_WORDS = {"like": "dislikes", "enjoy": "does not enjoy", "love": "does not love"}
MY_IS = _rx(r"^my\s+(?P<attr>[a-z][a-z'-]*(?:\s+[a-z][a-z'-]*){0,3}?)\s+(?P<verb>is|are)\s+")
MY_CONTRACTED = _rx(r"^my\s+(?P<attr>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,3}?)'s\s+")
ALLERGY = _rx(AM + ADV + r"(?:severely\s+|very\s+|highly\s+|mildly\s+|deathly\s+)?allergic\s+to\s+")
DIET = _rx(
    AM + ADV + r"(?:an?\s+)?(?P<v>vegetarian|vegan|pescatarian|lactose[- ]intolerant|gluten[- ]free|diabetic|"
    r"celiac|coeliac|teetotal|teetotaler|teetotaller)(?=\s*[.!]?\s*$)"
)
AGE = _rx(AM + r"(?P<v>\d{1,3})\s*(?:years?\s+old|yo|y/o)(?=\s*[.!]?\s*$)")
LANGUAGE = _rx(r"^i\s+" + ADV + r"speak\s+(?P<q>(?:fluent|some|a\s+little|basic|native|good|decent)\s+)?")
REMEMBER = _rx(
    r"^(?:(?:please|pls|plz|kindly)\s+)?(?P<polite>(?:can|could|will)\s+you\s+(?:please\s+)?)?"
    r"(?P<trigger>remember|don't\s+forget|do\s+not\s+forget|keep\s+in\s+mind|note|make\s+a\s+note|take\s+note|"
    r"for\s+future\s+reference)"
    r"(?P<that>(?:\s*,?\s*(?:that|this|of\s+this|for\s+(?:the\s+)?future|for\s+next\s+time|for\s+later|"
    r"going\s+forward))*)\s*[:,-]?\s+"
)
