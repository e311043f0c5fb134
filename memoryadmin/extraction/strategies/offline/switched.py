"""Changes told with what they are for, whatever the name: "ported my number to Airtel", "moved my salary account to
HDFC", "switched to KIT Karlsruhe for my masters", "the move is done I'm in Hamburg now", "enrolled in a data science
bootcamp instead", "I'm smoking again". Rows of (pattern, topic, attribute, template) read with `shorthand.SHORTHAND`
as milestones: a name need not be in the lexicon, for the words around it say what it is of.
"""

from __future__ import annotations

from memoryadmin.extraction.strategies.offline.lexicon import PROFESSIONS
from memoryadmin.extraction.strategies.offline.phrases import FIELDS, NAME, NOT_LIVED_IN, place

_TITLE = r"(?:[\w-]+\s+){0,2}?(?:" + PROFESSIONS + r")"

# A provider changed, named: "changed dentist going to Dr Iyer now", "changed my family doctor to Dr Fernandes",
# "I switched therapist now with Ms Reyes". (what it is called, topic, attribute)
_PROVIDERS_CHANGED = tuple(
    (
        r"\b(?:changed|switched)\s+(?:my\s+|our\s+)?(?:" + nouns + r")\s*,?\s+(?:to\s+|now\s+(?:with\s+)?|with\s+)?"
        r"(?:(?:i'm\s+|i\s+am\s+)?(?:going\s+to|seeing)\s+)?"
        r"(?P<name>(?:(?:dr|ms|mr|mrs)\.?\s+)?(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+){0,2})",
        topic,
        attribute,
        "{speaker}'s " + attribute + " is {name}",
    )
    for nouns, topic, attribute in (
        ("dentist", "health", "dentist"),
        (r"(?:family\s+)?(?:doctor|gp|physician)s?", "health", "doctor"),
        (r"therapist|counsell?or|psychologist", "health", "therapist"),
        ("hairdresser|barber|stylist|salon", "appearance", "hairdresser"),
        ("vet|vets", "pets", "vet"),
    )
)

SWITCHED: tuple[tuple[str, str, str, str], ...] = (
    (
        # "enrolled in a data science bootcamp instead", "signed up for an electrician apprenticeship program".
        r"\b(?:enrolled|signed\s+up|registered)\s+(?:in|for|on)\s+(?:(?P<course>(?:a|an|the)\s+(?:[\w-]+\s+){0,3}?(?:"
        r"bootcamp|course|programme|program|apprenticeship|degree|diploma|certificate|mba|masters))|(?:that|this|my)\s+"
        r"(?P<course2>(?:[\w-]+\s+){0,3}?(?:bootcamp|course|programme|program|apprenticeship|diploma|certificate)))\b"
        r"(?![^.!?\n]{0,30}\b(?:next\s+(?:year|spring|fall|autumn)|for\s+(?:my|his|her)\s+\w+)\b)",
        "education",
        "course",
        "{speaker} enrolled in {course}",
    ),
    (
        # "I'm smoking again", "picked up vaping during finals".
        r"\b(?:i'm|im|i\s+am)\s+smoking\s+again\b|\bstarted\s+(?:smoking|vaping)\s+again\b|"
        r"\bback\s+(?:on|to)\s+(?:the\s+)?(?:cigs|cigarettes|fags|smoking|vaping)\b|\bpicked\s+up\s+(?:vaping|smoking)\b",
        "health",
        "smoking",
        "{speaker} smokes",
    ),
    (
        # "I've started having the odd cocktail", "started having glass of wine at dinner".
        r"\bstarted\s+(?:having|drinking)\s+(?:the\s+odd|an?|the\s+occasional|some)?\s*(?:glass\s+of\s+)?"
        r"(?:wine|beer|cocktail|drink|pint)s?\b|\b(?:i'm|im|i\s+am)\s+drinking\s+again\b",
        "health",
        "drinking",
        "{speaker} drinks now and then",
    ),
    (
        # Where the speaker is now, after the move: "the move is done I'm in Hamburg now", "moved back w my parents in
        # monterrey".
        r"\b(?:moved|relocated|(?:the\s+)?move\s+is\s+(?:done|over|finished)|done\s+moving)\b[^.!?\n]{0,60}?"
        r"\b(?:i'm|im|i\s+am|we're|we\s+are)\s+(?:now\s+)?(?:based\s+|living\s+|settled\s+)?in\s+"
        + place("place", lower_case=False)
        + r"\s+now\b|"
        r"\bmoved\s+(?:back\s+)?(?:in\s+)?(?:with|w/?)\s+[^,.!?\n]{1,40}?\s+in\s+"
        + place("place2", lower_case=False)
        + NOT_LIVED_IN,
        "home",
        "residence",
        "{speaker} lives in {place}",
    ),
    (
        # A school changed, told with what it is for: "switched to KIT Karlsruhe for my masters", "changed school this
        # year I'm at Modern School now".
        r"\b(?:switched|shifted|transferred|moved|changed)\s+(?:schools?\s+|unis?\s+|universities\s+|colleges?\s+)?to\s+"
        r"(?P<school>" + NAME + r")(?=[^.!?\n]{0,30}\b(?:for\s+my\s+(?:masters|master's|degree|phd|studies|mba|"
        r"bachelor'?s)|this\s+(?:sem|semester|term|fall|spring)|credits)\b)|"
        r"\b(?:changed|switched)\s+(?:schools?|unis?|colleges?)\b[^.!?\n]{0,40}?\b(?:i'm|im|i\s+am)\s+(?:now\s+)?at\s+"
        r"(?P<school2>" + NAME + r")",
        "education",
        "school",
        "{speaker} studies at {school}",
    ),
    (
        # Whatever its name, told by what was moved or what it is for: "ported my number to Airtel", "switched to Glo
        # for the data bundle", "moved my salary account to HDFC", "switched to ING no fees".
        r"\b(?:ported|port)\s+(?:my\s+(?:number|sim|line)\s+)?(?:over\s+)?to\s+(?P<carrier>" + NAME + r")|"
        r"\b(?:switched|moved|changed)\s+(?:my\s+(?:number|sim|line|mobile|phone\s+plan)\s+)(?:over\s+)?to\s+"
        r"(?P<carrier2>" + NAME + r")|"
        r"\b(?:switched|moved|changed)\s+(?:over\s+)?to\s+(?P<carrier3>" + NAME + r")(?=[^.!?\n]{0,40}\b(?:data|signal|"
        r"sim|network|coverage|bundle|prepaid|postpaid|pre-paid|post-paid|minutes|5g|4g)\b)",
        "contact",
        "mobile_carrier",
        "{speaker}'s mobile carrier is {carrier}",
    ),
    (
        r"\b(?:moved|switched|transferred|shifted)\s+(?:everything|my\s+(?:current\s+|main\s+|savings\s+|salary\s+|"
        r"checking\s+|chequing\s+)?(?:account|accounts|banking|paycheck|salary|money|(?:chequing|checking|savings)"
        r"(?:\s+and\s+(?:chequing|checking|savings))?))\s+(?:over\s+)?to\s+"
        r"(?P<bank>" + NAME + r")|"
        r"\bswitched\s+(?:over\s+)?to\s+(?P<bank2>" + NAME + r")(?=[^.!?\n]{0,30}\b(?:fees|account|banking|savings|"
        r"overdraft|debit\s+card|interest)\b)",
        "money",
        "bank",
        "{speaker} banks with {bank}",
    ),
    *_PROVIDERS_CHANGED,
    (
        # "day 20 no vape", "day 30 without cigarette".
        r"\b(?:day\s+\d+|\d+\s+(?:days|weeks|months))\s+(?:no|without)\s+(?:a\s+)?(?:vapes?|vaping|cigs?|cigarettes?|smoking|"
        r"smokes?|fags?)\b|"
        r"\b(?:i'm|im|i\s+am|i've\s+been|i\s+have\s+been)\s+(?:now\s+)?(?:smoke|nicotine)[- ]free\b",
        "health",
        "smoking",
        "{speaker} quit smoking",
    ),
    (
        # "new dentist: dr. chen at smile studio", "went to a new hairdresser called remi", "my new stylist is jules".
        r"\bnew\s+dentist\s*(?::|,|-|is)\s*(?P<name>dr\.?\s+[\w'-]+|(?-i:[A-Z])[\w'-]+)",
        "health",
        "dentist",
        "{speaker}'s dentist is {name}",
    ),
    (
        r"\bnew\s+(?:gp|doctor)\s*(?::|,|-|is)\s*(?P<name>dr\.?\s+[\w'-]+)",
        "health",
        "doctor",
        "{speaker}'s doctor is {name}",
    ),
    (
        r"\b(?:a|my)\s+new\s+(?:hairdresser|barber|stylist)\s+(?:called|named|is)\s+(?P<name>[\w'-]+)",
        "appearance",
        "hairdresser",
        "{speaker}'s hairdresser is {name}",
    ),
    (
        r"\bswitched\s+(?:my|our)\s+(?:weekly\s+|big\s+|grocery\s+|food\s+)?(?:shop|shopping|groceries)\s+to\s+"
        r"(?P<name>" + NAME + r")",
        "home",
        "supermarket",
        "{speaker} shops at {name}",
    ),
    (
        # "approved my request to work from home full-time", "I've negotiated a fully remote arrangement".
        r"\b(?:(?:i've|i\s+have|i)\s+(?:negotiated|got|landed|secured|agreed)\s+a\s+)?fully\s+remote\s+(?:arrangement|"
        r"role|job|position|contract)\b|\b(?:my\s+request\s+to\s+)?work(?:ing)?\s+from\s+home\s+(?:full[- ]time|"
        r"permanently|for\s+good)\b",
        "work",
        "work mode",
        "{speaker} works remotely",
    ),
    (
        # "I'm going to office 5 days now", "we are hybrid now".
        r"\b(?:going|go|coming|come|back)\s+(?:in)?to\s+(?:the\s+)?office\s+(?:\d|five|four|three)\s+days\b"
        r"(?![^.!?\n]{0,30}\b(?:this\s+week|for\s+(?:the|a)\b))",
        "work",
        "work mode",
        "{speaker} works in the office",
    ),
    (
        r"\b(?:we're|we\s+are|i'm|im|i\s+am)\s+(?:now\s+)?hybrid\s+now\b|^hybrid\s+(?:life|schedule|working)\b|"
        r"\b(?:two|three|\d)\s+days\s+(?:at\s+home|wfh|from\s+home)\b[^.!?\n]{0,30}\b(?:in\s+the\s+office|in\s+office)\b",
        "work",
        "work mode",
        "{speaker} works hybrid",
    ),
    (
        # "Monzo is my main bank now".
        r"(?:^|(?<=[:;,]\s))(?P<bank>" + NAME + r")\s+is\s+(?:now\s+)?(?:my|our)\s+(?:main\s+|new\s+)?bank\s+now\b",
        "money",
        "bank",
        "{speaker} banks with {bank}",
    ),
    (
        # A title given: "got bumped up to store manager", "the governors appointed me as headteacher", "taken up post
        # as a sergeant", "I'm bartender now".
        r"\b(?:bumped\s+up|promoted|moved\s+up|stepped\s+up)\s+to\s+(?:a\s+|an\s+|the\s+)?(?P<title>" + _TITLE + r")\b|"
        r"\bappointed\s+me\s+(?:as\s+)?(?:the\s+|a\s+|an\s+)?(?P<title2>" + _TITLE + r")\b|"
        r"\btaken\s+up\s+(?:a\s+|the\s+)?post\s+as\s+(?:a\s+|an\s+|the\s+)?(?P<title3>" + _TITLE + r")\b|"
        r"\b(?:i'm|im|i\s+am)\s+(?P<title4>" + _TITLE + r")\s+now\b",
        "work",
        "occupation",
        "{speaker} is a {title}",
    ),
    (
        # "We've moved to Virgin Media for broadband", "moved our fibre over to Openserve".
        r"\b(?:moved|switched|gone|went)\s+(?:over\s+)?to\s+(?P<isp>" + NAME + r")\s+for\s+(?:our\s+|my\s+|the\s+)?"
        r"(?:broadband|internet|fibre|fiber|wifi)\b|"
        r"\bmoved\s+(?:our|my|the)\s+(?:broadband|internet|fibre|fiber|wifi)\s+(?:over\s+)?to\s+(?P<isp2>"
        + NAME
        + r")",
        "home",
        "internet_provider",
        "{speaker}'s internet provider is {isp}",
    ),
    (
        # "lakers fan forever", "Arsenal fan till I die": a side supported, said without a subject.
        r"(?:^|(?<=[,.!;]\s)|\bi'm\s+|\bi\s+am\s+)(?:an?\s+)?(?P<team>"
        + NAME
        + r")\s+fan\s+(?:forever|for\s+life|ride\s+or\s+die|till\s+i\s+die|"
        r"through\s+and\s+through|from\s+now\s+on|since\s+(?:i\s+was|(?:19|20)\d\d|birth|forever)|all\s+my\s+life)\b|"
        # "I've switched to supporting Brentford", "I support Brentford now".
        r"\bswitched\s+(?:over\s+)?to\s+supporting\s+(?P<team2>"
        + NAME
        + r")|\bi\s+support\s+(?P<team3>"
        + NAME
        + r")\s+now\b",
        "sports",
        "team",
        "{speaker} supports {team}",
    ),
    (
        # "changed my course to journalism", "switched my major to computer science".
        r"\bswitched\s+to\s+(?:the\s+|a\s+)?(?P<course2>[a-z][\w -]{2,30}?)\s+(?:msc|ma|ba|bsc|mba|phd|degree|course|"
        r"programme|program|major)\b|"
        r"\b(?:changed|switched)\s+(?:my\s+)?(?:(?:evening|night|online|weekend)\s+)?(?:course|degree|major|"
        r"programme|program|class|classes|specialisation|specialization|concentration|pathway)\s+"
        r"(?:from\s+[\w' -]{2,30}?\s+)?to\s+"
        r"(?P<course>[\w' -]{2,40}?)"
        r"(?=\s*(?:[,.!?;]|$)|\s+(?:and|because|bc|since|as|now|still)\b)",
        "education",
        "course",
        "{speaker} studies {course}",
    ),
    (
        # "I've swapped out of chemistry into pharmacy this term", "dropped nursing and enrolled in midwifery instead".
        # Subjects on both sides: not "switched from Anytime Fitness to the university gym".
        r"\b(?:swapped|switched|moved|transferred)\s+(?:out\s+of|from)\s+" + FIELDS + r"\s+(?:into|to)\s+"
        r"(?P<course>" + FIELDS + r"(?:\s+(?:science|studies|engineering|management|law|design))?)\b|"
        r"\benrolled\s+(?:in|on)\s+(?P<course2>" + FIELDS + r"(?:\s+(?:science|studies|engineering|management))?)\s+"
        r"instead\b",
        "education",
        "course",
        "{speaker} studies {course}",
    ),
    (
        # "Transferred to the Complutense in Madrid for my second year".
        r"\btransferred\s+to\s+(?:the\s+)?(?P<school>(?-i:[A-Z])[\w'.&-]+(?:\s+(?-i:[A-Z])[\w'.&-]+){0,3})"
        r"(?:\s+in\s+(?-i:[A-Z])[\w'-]+)?\s+for\s+(?:my|the|our)\s+(?:first|second|third|fourth|final|last|next)\s+"
        r"(?:year|semester|term)\b",
        "education",
        "school",
        "{speaker} studies at {school}",
    ),
)
