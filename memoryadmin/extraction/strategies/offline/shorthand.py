"""Changes told in chat's shorthand, read as milestones (`milestones`): what the speaker's value is now.

"i'm officially a seattle person now", "moved back home to fresno", "rented an actual apartment in boise", "switched
to mint mobile", "moved everything to ally", "i do the ymca now", "dropped out of kcl", "graduated!!!", "not vegan
anymore", "eating fish again", "fedex hired me as a courier". Each row is (pattern, topic, attribute, template), as
`MILESTONES`; names typed in lower case are spelt already (`names.spelt`), and someone else's change, a question, or
a sentence of no change now (`phrases.NOT_NOW`) gives nothing, as for every milestone.
"""

from __future__ import annotations

from memoryadmin.extraction.strategies.offline.names import named
from memoryadmin.extraction.strategies.offline.phrases import CAP, DIETS, FAITHS, HOME, NAME, PHONE, place

_BY_ME = r"(?:^|\bi\s+|\bwe\s+|\bjust\s+|\bfinally\s+|\bofficially\s+|\bso\s+)"
_FOODS = r"(?:fish|meat|chicken|beef|pork|dairy|cheese|eggs|seafood|bacon|burgers|steak|animal\s+products)"

SHORTHAND: tuple[tuple[str, str, str, str], ...] = (
    (
        r"\b(?:i'm|im|i\s+am|we're|we\s+are)\s+(?:officially\s+|now\s+)?an?\s+"
        + place("place", lower_case=False)
        + r"\s+(?:person|resident|local|girl|guy|gal|family)\s+now\b|"
        r"\bmoved\s+back\s+home\s+to\s+" + place("place2") + r"|"
        r"\b(?:bought|closed\s+on|got\s+the\s+keys\s+to)\s+(?:a|our|my|the)\s+(?:first\s+|new\s+|own\s+)?"
        r"(?:house|home|flat|condo|place|apartment)\W{0,5}\s*in\s+" + place("place3") + r"|"
        r"\brented\s+(?:a|an|my|our)\s+(?:own\s+|actual\s+|new\s+|little\s+|small\s+|tiny\s+)?"
        r"(?:apartment|flat|house|place|studio|room)\s+in\s+" + place("place4") + r"|"
        r"\bfirst\s+(?:night|week|weekend|day|month)\s+in\s+"
        + place("place5")
        + r"\s+(?:and|&)\s+(?:the|our|my)\s+(?:new\s+)?"
        + HOME
        + r"\b|"
        r"\bmoved\s+(?:off\s+campus\s+)?into\s+(?:a|an|my|our|the)\s+(?:new\s+)?"
        + HOME
        + r"\b[^.!?]{0,40}?\s+in\s+"
        + place("place6", lower_case=False),
        "home",
        "residence",
        "{speaker} lives in {place}",
    ),
    (
        # "fedex hired me as a courier", "guess who's a zara employee now", "joined wipro from this month".
        r"(?:^|,\s*|\band\s+)(?P<org>" + NAME + r")\s+(?:hired|took)\s+me\b(?!\s+(?:on\s+)?(?:for|to)\b)|"
        r"\b(?:i'm|im|i\s+am|who's)\s+(?:a|an)\s+(?P<org2>"
        + NAME
        + r")\s+(?:employee|staffer|hire|intern)\s+now\b|"
        + _BY_ME
        + r"joined\s+(?P<org3>"
        + named("employers")
        + r")|\bfirst\s+shift\s+at\s+(?P<org4>"
        + NAME
        + r")",
        "work",
        "employer",
        "{speaker} works at {org}",
    ),
    (
        r"\b(?:switched|moved|ported|went)\s+(?:over\s+)?(?:my\s+(?:number|phone|plan)\s+)?to\s+(?P<carrier>"
        + named("carriers")
        + r")(?!\s+(?:wifi|broadband|internet|fibre|fiber)\b)",
        "contact",
        "mobile_carrier",
        "{speaker}'s mobile carrier is {carrier}",
    ),
    (
        r"\b(?:got|switched\s+to|have|went\s+with)\s+(?:fiber|fibre|broadband|internet)\s+(?:from|with|through)\s+"
        r"(?P<isp>" + named("isps") + r")|\bswitched\s+(?:our\s+|the\s+|my\s+)?(?:internet|broadband|wifi)\s+to\s+"
        r"(?P<isp2>" + named("isps") + r")",
        "home",
        "internet_provider",
        "{speaker}'s internet provider is {isp}",
    ),
    (
        r"\b(?:moved|switched|transferred)\s+(?:everything|all\s+my\s+money|my\s+(?:money|savings|account|accounts|"
        r"banking|paycheck|salary))\s+(?:over\s+)?to\s+(?P<bank>" + named("banks") + r")",
        "money",
        "bank",
        "{speaker} banks with {bank}",
    ),
    (
        r"\bi\s+(?:do|go\s+to|use|train\s+at)\s+(?:the\s+)?(?P<gym>" + named("gyms") + r")\s+now\b|"
        r"\b(?:joined|switched\s+to|moved\s+to)\s+(?:the\s+)?(?P<gym2>" + named("gyms") + r")",
        "fitness",
        "gym",
        "{speaker} goes to {gym}",
    ),
    (
        r"\b(?:moved|switched|transferred|assigned)\s+(?:over\s+)?to\s+dr\.?\s+(?P<name>[a-z][\w'-]+)",
        "health",
        "doctor",
        "{speaker}'s doctor is Dr {name}",
    ),
    (
        r"\b(?:got|bought|picked\s+up|upgraded\s+to|switched\s+to|went\s+with|treated\s+myself\s+to)\s+"
        r"(?:a|an|the|myself\s+a)\s+(?:new\s+|used\s+|refurbished\s+|shiny\s+)?(?P<phone>" + PHONE + r")",
        "possessions",
        "phone",
        "{speaker}'s phone is the {phone}",
    ),
    (
        # "picked up a used bolt", "bought a 2018 civic hatch".
        r"\b(?:picked\s+up|bought|got\s+myself|went\s+with|traded\s+(?:it\s+)?in\s+for)\s+(?:a|an)\s+"
        r"(?:(?:new|used|secondhand|second-hand|\d{4})\s+)*(?P<car>(?:"
        + named("cars")
        + r")(?:\s+(?-i:[A-Z0-9])[\w-]*)?)",
        "possessions",
        "car",
        "{speaker} drives a {car}",
    ),
    (
        # "3 weeks no cigs!!!", "quit smoking", "i'm sober now, 30 days today".
        r"\b(?:quit|stopped|gave\s+up)\s+(?:smoking|cigs|cigarettes|vaping)\b|\b(?:\d+|one|two|three|four|a\s+few)\s+"
        r"(?:days|weeks|months)\s+(?:smoke[- ]free|no\s+(?:cigs|cigarettes|smokes|smoking|vaping))\b",
        "health",
        "smoking",
        "{speaker} quit smoking",
    ),
    (
        r"\b(?:i'm|im|i\s+am)\s+(?:officially\s+)?sober\s+now\b|\b(?:quit|stopped|gave\s+up)\s+(?:drinking|alcohol|booze)\b|"
        r"\b(?:\d+|one|two|three|a\s+few)\s+(?:days|weeks|months)\s+sober\b",
        "health",
        "drinking",
        "{speaker} is sober",
    ),
    (
        # "company forced us back to the office", "they made my role fully remote".
        r"\b(?:forced|called|ordered|brought)\s+(?:us|everyone)\s+back\s+(?:in)?to\s+the\s+office\b|"
        r"\bback\s+in\s+the\s+office\s+(?:full[- ]time|\d\s+days)\b",
        "work",
        "work mode",
        "{speaker} works in the office",
    ),
    (
        r"\bmade\s+my\s+(?:role|job|position)\s+(?:fully\s+|100%\s+)?remote\b|\b(?:i'm|im|i\s+am)\s+(?:fully\s+)?remote\s+now\b",
        "work",
        "work mode",
        "{speaker} works remotely",
    ),
    (
        r"\b(?:moved|switched|transferred)\s+(?:me\s+)?to\s+(?P<shift>day|days|night|nights|morning|evening|the\s+day|the\s+night)"
        r"(?:\s+shifts?)\b",
        "work",
        "shift",
        "{speaker} works {shift} shifts",
    ),
    (
        r"\b(?:not|no\s+longer)\s+(?P<diet>"
        + DIETS
        + r")\s+(?:any\s*more|now)\b|\bno\s+longer\s+(?P<diet2>"
        + DIETS
        + r")\b|\bquit\s+being\s+(?P<diet3>"
        + DIETS
        + r")\b",
        "diet",
        "diet",
        "{speaker} is no longer {diet}",
    ),
    (
        r"(?:^|\b(?:i'm|im|i\s+am|been|started)\s+)eating\s+(?P<food>" + _FOODS + r")\s+again\b",
        "diet",
        "diet",
        "{speaker} eats {food} again",
    ),
    (
        r"\b(?:(?:i|i'm|im|i\s+am)\s+)?(?:not|no\s+longer)\s+(?:really\s+)?(?:a\s+)?(?P<faith>"
        + FAITHS
        + r")\s+any\s*more\b|\bconsider\s+myself\s+(?:a\s+)?(?P<faith2>"
        + FAITHS
        + r")\s+any\s*more\b",
        "identity",
        "religion",
        "{speaker} is no longer {faith}",
    ),
    (
        _BY_ME
        + r"dropped\s+out\s+of\s+(?P<school>(?:uni|university|college|school|grad\s+school|"
        + named("schools")
        + r"|"
        + CAP
        + r"[\w'.&-]*(?:\s+"
        + CAP
        + r"[\w'.&-]*){0,3}))\b",
        "education",
        "school",
        "{speaker} dropped out of {school}",
    ),
    (
        # "graduated!!!", "officially graduated 🎓"; not long ago ("graduated in 2009", "graduated years ago").
        _BY_ME + r"graduated\b(?![^.!?]{0,40}\b(?:in|back\s+in)\s+(?:19|20)\d\d|[^.!?]{0,30}\byears\s+ago)"
        r"(?![^.!?]{0,30}\b(?:high\s+school|kindergarten|preschool)\b)",
        "education",
        "school",
        "{speaker} graduated",
    ),
)
