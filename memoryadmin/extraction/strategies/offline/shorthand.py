"""Changes told in chat's shorthand, read as milestones (`milestones`): what the speaker's value is now.

"i'm officially a seattle person now", "moved back home to fresno", "rented an actual apartment in boise", "switched
to mint mobile", "moved everything to ally", "i do the ymca now", "dropped out of kcl", "graduated!!!", "not vegan
anymore", "eating fish again", "fedex hired me as a courier". Each row is (pattern, topic, attribute, template), as
`MILESTONES`; names typed in lower case are spelt already (`names.spelt`), and someone else's change, a question, or
a sentence of no change now (`phrases.NOT_NOW`) gives nothing, as for every milestone.
"""

from __future__ import annotations

import re

from memoryadmin.extraction.strategies.offline.changes import CHANGES
from memoryadmin.extraction.strategies.offline.lexicon import INSTRUMENTS, OTHER_GOODS_AFTER, PROFESSIONS, word_set
from memoryadmin.extraction.strategies.offline.names import named
from memoryadmin.extraction.strategies.offline.phrases import (
    CAP,
    DIETS,
    FAITHS,
    HOME,
    NAME,
    NOT_LIVED_IN,
    PHONE,
    place,
)
from memoryadmin.extraction.strategies.offline.switched import SWITCHED

_HOME_SIZE = (
    r"(?:(?:first|new|own|little|small|tiny|big|dream|forever|actual|lovely|gorgeous|proper|ground[- ]floor|"
    r"(?:one|two|three|four|1|2|3|4)[- ]bed(?:room)?|housing\s+association|council|rented|semi|detached|terraced)\s+)"
)
_BY_ME = r"(?:^|(?<=[,;]\s)|(?<=[,;])|\bi\s+|\bwe\s+|\bjust\s+|\bfinally\s+|\bofficially\s+|\bso\s+)"
_TITLES = "(?:" + PROFESSIONS + ")"
_INSTRUMENTS = "(?:" + INSTRUMENTS + ")"
# Where a name ends its phrase: "switched to ally, chase fees…", not "switched to ally's team" or "to chase sapphire".
_ENDS = (
    r"(?=\s*(?:[,.!?;)]|$|\s+(?:and|so|but|now|today|finally|instead|because|cause|cuz|lol|tho|though|from|"
    r"after|last|this|for\s+(?:the\s+)?[£$\d]|for\s+(?:the\s+|a\s+)?(?:better|lower|cheaper|higher)\b)\b))"
)
# The words that may stand before a change told by the speaker, in its clause: "ok so i", "update: finally".
OWN_OPENING = word_set(
    """i we i've we've ive weve i'm im we're i'd just finally so and now officially ok okay update lol well guess
    what actually also then yeah yep ugh omg welp btw anyway today yesterday recently literally basically last
    week month year night tbh big news have has had been got already kinda sorta oh hey hi hello good great sad
    wow really don't um uh ya yo fyi wanted let you know that to know went like this on weekend morning evening
    afternoon monday tuesday wednesday thursday friday saturday sunday"""
)
# Where a clause starts again: a stop, a comma, an emoji or other sign, a dash, a joining word.
_CLAUSE_BREAK = re.compile(r".*(?:[^\w\s'’-]|\s[-–—]\s|\b(?:and|but|so|then|because|cause|plus|also)\b)", re.S)
# The speaker named in the change itself: as the one it happens to ("fedex hired me", "forced us back", "made my
# role fully remote"), or as its subject ("whitefield where i live now", "since moving I've become an Atletico fan").
_TO_THE_SPEAKER = re.compile(
    r"\b(?:me|us|my\s+(?:role|job|position|request)|i\s+live|i\s+met|i\s+became|i'm|i've|i\s+am|i\s+have)(?![\w'])",
    re.IGNORECASE,
)
_WORDS = re.compile(r"[a-z']+")
_COUNT = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|a\s+couple\s+of)"
_FOODS = r"(?:fish|meat|chicken|beef|pork|dairy|cheese|eggs|seafood|bacon|burgers|steak|animal\s+products)"

SHORTHAND: tuple[tuple[str, str, str, str], ...] = (
    (
        r"(?:\b(?:i'm|im|i\s+am|we're|we\s+are)\s+(?:officially\s+|now\s+)?|(?:^|(?<=[,;]\s))officially\s+)an?\s+"
        + place("place", lower_case=False)
        + r"\s+(?:person|resident|local)\s+now\b|"
        # "moving day was saturday, officially a Galway girl now": a girl of a place after a move ("a Chelsea girl
        # now" alone supports a side).
        r"\b(?:mov(?:ed|ing)|relocat\w+|keys|unpack\w*|lease)\b[^.!?\n]{0,60}?\b(?:officially\s+|now\s+)?an?\s+"
        + place("place17", lower_case=False)
        + r"\s+(?:girl|boy|guy|gal|lad|lass)\s+now\b|"
        r"\bmoved\s+back\s+(?:home\s+to|to\s+my\s+home\s*town,?)\s+" + place("place2", lower_case=False) + r"|"
        # "settling into Vancouver slowly", "just signed a lease in Seattle".
        r"\bsettling\s+into\s+(?:life\s+in\s+)?" + place("place15", lower_case=False) + r"|"
        r"\brelocated\s+(?:from\s+[^.!?,]{1,30}?\s+)?(?:(?:up|down|over|back|across)\s+)?to\s+"
        + place("place18", lower_case=False)
        + r"|"
        r"\bsigned\s+(?:a|the|our|my)\s+(?:new\s+|\d+[- ]month\s+|year[- ]long\s+)?lease\s+"
        r"(?:on\s+(?:a|an)\s+[\w\s-]{1,20}?\s+)?in\s+" + place("place16", lower_case=False) + r"|"
        r"\b(?:bought|closed\s+on|(?:got|collected|picked\s+up)\s+the\s+keys\s+to)\s+(?:a|our|my|the)\s+(?:[A-Z]{2,5}\s+)?"
        + _HOME_SIZE
        + r"{0,3}"
        r"(?:house|home|flat|condo|place|apartment|bungalow|cottage)\W{0,5}\s*in\s+"
        + place("place3", lower_case=False)
        + NOT_LIVED_IN
        + r"|"
        # "got a housing association flat in dunstable now", "we're in a three bed in walthamstow now".
        r"\bgot\s+(?:a|an|our|my)\s+"
        + _HOME_SIZE
        + r"{0,3}(?:flat|house|place|apartment|home|bungalow)\s+in\s+"
        + place("place7", lower_case=False)
        + r"\s+now\b|"
        r"\b(?:i'm|im|we're)\s+in\s+(?:a|an|our|my)\s+"
        + _HOME_SIZE
        + r"{1,3}in\s+"
        + place("place8", lower_case=False)
        + r"\s+now\b|"
        r"\bmoved\s+in\s+with\s+[^,.!?]{1,40}?\s+in\s+" + place("place9", lower_case=False) + r"|"
        r"\b(?:i'm|im|i\s+am|we're)\s+back\s+home\s+in\s+" + place("place10", lower_case=False) + r"|"
        r"\brented\s+(?:a|an|my|our)\s+" + _HOME_SIZE + r"{0,2}"
        r"(?:apartment|flat|house|place|studio|room)\s+in\s+" + place("place4", lower_case=False) + r"|"
        r"\bfirst\s+(?:night|week|weekend|day|month)\s+in\s+"
        + place("place5", lower_case=False)
        + r"\s+(?:and|&)\s+(?:the|our|my)\s+(?:new\s+)?"
        + HOME
        + r"\b|"
        r"\bmoved\s+(?:off\s+campus\s+)?into\s+(?:a|an|my|our|the)\s+(?:new\s+)?"
        + HOME
        + r"\b[^.!?]{0,40}?\s+in\s+"
        + place("place6", lower_case=False)
        + r"|\b(?:made|finished|did|completed)\s+the\s+(?:jump|move|big\s+move)\s+(?:over\s+|down\s+|up\s+)?to\s+"
        + place("place11", lower_case=False)
        + r"|\b(?:the|our|my)\s+(?:big\s+)?move\s+to\s+"
        + place("place14", lower_case=False)
        + r"\s+is\s+(?:finally\s+|officially\s+)?(?:done|complete|finished|official|happening)\b"
        + r"|(?:^|\b(?:in|near|around|by)\s+)"
        + place("place12", lower_case=False)
        + r"\s+where\s+i\s+live\s+now\b|\bliving\s+with\s+[^,.!?]{1,30}?\s+in\s+"
        + place("place13", lower_case=False)
        + r"\s+now\b",
        "home",
        "residence",
        "{speaker} lives in {place}",
    ),
    (
        # "fedex hired me as a courier", "guess who's a zara employee now", "joined wipro from this month".
        r"(?:^|(?<=,\s)|(?<=,)|(?<=\band\s)|(?<=\bbut\s))(?P<org>"
        + NAME
        + r"|"
        + named("employers")
        + r")(?:\s+(?:across|in|down|up|over)\s+(?:the\s+)?(?:town|road|street|city|way))?\s+"
        r"(?:hired\s+me|took\s+me\s+on)\b(?!\s+(?:for|to)\b)|"
        r"\b(?:i'm|im|i\s+am|who's)\s+(?:a|an)\s+(?P<org2>"
        + NAME
        + r"|"
        + named("employers")
        + r")\s+(?:employee|staffer|hire|intern)\s+now\b|"
        + _BY_ME
        + r"joined\s+(?P<org3>"
        + named("employers")
        + r")(?=[^.!?]{0,40}\b(?:team|as\s+an?|role|job|office|from\s+this\s+month|package|salary|notice|hired)\b)|"
        r"\bfirst\s+shift\s+at\s+(?P<org4>" + NAME + r"|" + named("employers") + r")|"
        # "I'm on the tills at the Lidl by the ring road now", "signed the contract with KPMG today".
        r"\b(?:i'm|im|i\s+am)\s+(?:now\s+)?on\s+the\s+(?:tills?|checkouts?|counter|floor|line|desk|phones|wards?|door)\s+at\s+"
        r"(?:the\s+)?(?P<org7>" + NAME + r"|" + named("employers") + r")|"
        r"\bsigned\s+(?:the|my|a)\s+(?:\w+\s+)?contract\s+with\s+(?P<org8>" + NAME + r"|" + named("employers") + r")|"
        # "I'm at Wealthsimple now, the Shopify layoffs got me", "I'm now with Seplat, the offer was too good": where
        # the speaker is now, in a message of a job changed.
        r"\b(?:i'm|im|i\s+am)\s+(?:now\s+(?:at|with)\s+(?P<org5>"
        + NAME
        + r")|(?:at|with)\s+(?P<org6>"
        + NAME
        + r")\s+now)\b(?=[^\n]*\b(?:offer|layoffs?|laid\s+off|hired|new\s+(?:job|role)|relocation|notice|resigned|"
        r"package|onboarding|contract|switched\s+jobs|changed\s+jobs)\b)",
        "work",
        "employer",
        "{speaker} works at {org}",
    ),
    (
        r"\b(?:switched|moved|ported)\s+(?:over\s+)?(?:my\s+(?:number|phone|plan)\s+)?(?:over\s+)?to\s+(?P<carrier>"
        + named("carriers")
        + r")"
        + _ENDS
        # "Contract ended so I've gone to Smarty SIM-only", "went with Lebara pay as you go".
        + r"|\b(?:gone|went|moved|switched)\s+(?:over\s+)?(?:to|with)\s+(?P<carrier2>"
        + NAME
        + r")\s+(?:sim[- ]only|sim|pay[- ]as[- ]you[- ]go|prepaid|pre-paid|monthly\s+plan)\b",
        "contact",
        "mobile_carrier",
        "{speaker}'s mobile carrier is {carrier}",
    ),
    (
        r"\b(?:got|switched\s+to|have|went\s+with)\s+(?:fiber|fibre|broadband|internet)\s+(?:from|with|through)\s+"
        r"(?P<isp>"
        + named("isps")
        + r")"
        + _ENDS
        + r"|\b(?:went|switched|signed\s+up)\s+(?:us\s+|me\s+)?(?:with|to|for)\s+(?P<isp3>"
        + NAME
        + r"\s+(?:full\s+)?(?:fiber|fibre|broadband|internet))\b|"
        r"\b(?:switched|moved)\s+(?:over\s+)?to\s+(?P<isp4>" + named("isps") + r")(?!\s+(?:mobile|sim))" + _ENDS + r"|"
        r"\bswitched\s+(?:our\s+|the\s+|my\s+)?(?:internet|broadband|wifi)\s+to\s+"
        r"(?P<isp2>" + named("isps") + r")" + _ENDS,
        "home",
        "internet_provider",
        "{speaker}'s internet provider is {isp}",
    ),
    (
        r"\b(?:moved|switched|transferred)\s+(?:everything|all\s+my\s+money|(?:all\s+)?(?:my|our)\s+(?:\w+\s+)?"
        r"(?:money|account|accounts|banking|paycheck|salary|savings))\s+(?:over\s+)?to\s+(?P<bank>"
        + named("banks")
        + r")"
        + _ENDS
        + r"|\bswitched\s+(?:banks\s+)?to\s+(?P<bank2>"
        + named("banks")
        + r")"
        + _ENDS
        + r"|\b(?:switched|moved)\s+(?:banks\s+|(?:all\s+)?(?:my|our)\s+(?:\w+\s+)?(?:money|accounts?|banking|"
        r"savings)\s+)?(?:over\s+)?to\s+"
        r"(?P<bank3>(?:a|an|the)\s+(?:local\s+)?(?:credit\s+union|building\s+society))\b",
        "money",
        "bank",
        "{speaker} banks with {bank}",
    ),
    (
        r"\bi\s+(?:do|go\s+to|use|train\s+at)\s+(?:the\s+)?(?P<gym>" + named("gyms") + r")\s+now\b(?!\s+and\s+then)|"
        r"\b(?:joined|switched\s+to|moved\s+to)\s+(?:the\s+)?(?P<gym2>" + named("gyms") + r")" + _ENDS + r"|"
        # "got a membership at Anytime Fitness by my flat".
        r"\b(?:got|bought|signed\s+up\s+for|took\s+out)\s+a\s+(?:new\s+)?(?:gym\s+)?membership\s+(?:at|with)\s+(?:the\s+)?"
        r"(?P<gym3>" + named("gyms") + r"|" + CAP + r"[\w'&-]*(?:\s+" + CAP + r"[\w'&-]*){0,2})",
        "fitness",
        "gym",
        "{speaker} goes to {gym}",
    ),
    (
        r"\b(?:moved|switched|transferred|assigned|changed)\s+(?:over\s+)?to\s+dr\.?\s+(?P<name>[a-z][\w'-]+)" + _ENDS,
        "health",
        "doctor",
        "{speaker}'s doctor is Dr {name}",
    ),
    (
        # "Dr. Hoffmann has been my doctor since I was a kid", "Dr Patel is my GP". (Rows of their own: each is tried
        # only on a text with its words.)
        r"\bdr\.?\s+(?P<name>[a-z][\w'-]*?)\s*(?:\s+has\s+(?:always\s+)?been|\s+is|'s)\s+(?:still\s+)?(?:my|our)\s+"
        r"(?:doctor|gp|physician|family\s+doctor)\b(?!\s+(?:any\s*more|now))",
        "health",
        "doctor",
        "{speaker}'s doctor is Dr {name}",
    ),
    (
        # "so I'm seeing Dr. Okafor now".
        r"\b(?:i'm|im|i\s+am|we're|we\s+are)\s+(?:now\s+)?(?:seeing|with|registered\s+with)\s+dr\.?\s+(?P<name>[a-z][\w'-]+)"
        r"(?:\s+now\b|\s+instead\b|(?=\s*[,.!]))",
        "health",
        "doctor",
        "{speaker}'s doctor is Dr {name}",
    ),
    (
        r"\b(?:got|bought|picked\s+up|upgraded\s+to|switched\s+to|went\s+with|went\s+for|treated\s+myself\s+to|"
        r"set\s+me\s+up\s+with)\s+"
        r"(?:a|an|the|myself\s+a)\s+(?:new\s+|used\s+|refurbished\s+|shiny\s+)?(?P<phone>"
        + PHONE
        + r")"
        + OTHER_GOODS_AFTER
        + r"(?![^.!?]{0,30}\b(?:for\s+(?:on\s+call|work)|work\s+phone|company\s+phone)\b)",
        "possessions",
        "phone",
        "{speaker}'s phone is the {phone}",
    ),
    (
        # "picked up a used bolt", "bought a 2018 civic hatch".
        r"\b(?:picked\s+up|bought|got|got\s+myself|went\s+with|traded\s+(?:it\s+)?in\s+for)\s+(?:a|an)\s+"
        r"(?:(?:new|used|secondhand|second-hand|\d{4})\s+)*(?P<car>(?:"
        + named("cars", everyday=False)
        + r")(?:\s+(?-i:[A-Z0-9])[\w-]*){0,2})"
        r"(?:\s+(?:estate|hatchback|hatch|saloon|sedan|wagon|convertible|coupe|suv|pickup|hybrid|ev))?"
        r"(?=\s*(?:[.!?;),]|$|\s+(?:and|so|but|now|for|yesterday|today|last|this|on|from|at|with|instead)\b))|"
        # "it's a Kia Niro now btw, traded the Polo in", "so it's a Subaru Forester now".
        r"\b(?:it's|its|it\s+is)\s+(?:a|an)\s+(?:(?:new|used|second-hand|secondhand)\s+)?(?P<car3>(?:"
        + named("cars", everyday=False)
        + r")(?:\s+(?-i:[A-Z0-9])[\w-]*){0,2})\s+now\b|"
        # "sold the Golf, driving a Tesla Model 3 now".
        r"(?:^|(?<=[,;]\s)|\bi'm\s+|\bim\s+|\bi\s+am\s+)(?:now\s+)?driving\s+(?:a|an)\s+"
        r"(?:(?:new|used|secondhand|\d{4})\s+)*"
        r"(?P<car2>(?:" + named("cars", everyday=False) + r")(?:\s+(?-i:[A-Z0-9])[\w-]*){0,2})\s+now\b",
        "possessions",
        "car",
        "{speaker} drives a {car}",
    ),
    (
        # "3 weeks no cigs!!!", "quit smoking", "i'm sober now, 30 days today".
        r"\b(?:quit|stopped|gave\s+up|given\s+up)\s+(?:smoking|(?:the\s+)?(?:cigs|cigarettes?|fags)|vaping|the\s+vape)\b"
        r"(?!\s+(?:in|inside|indoors|around|near|at)\b)|"
        # "It's been four weeks since my last cigarette", "sixty days without a pipe".
        r"\b(?:it's\s+been\s+|been\s+)?(?:\w+\s+)?(?:days|weeks|months)\s+(?:since\s+my\s+last|without\s+a)\s+"
        r"(?:cigarette|cig|smoke|fag|pipe|vape)\b|\b" + _COUNT + r"\s+"
        r"(?:days|weeks|months)\s+(?:smoke[- ]free|no\s+(?:cigs|cigarettes|smokes|smoking|vaping)|"
        r"off\s+the\s+(?:fags|baccy|cigs|cigarettes|smokes))\b",
        "health",
        "smoking",
        "{speaker} quit smoking",
    ),
    (
        r"\b(?:i'm|im|i\s+am)\s+(?:officially\s+)?sober\s+now\b|\b(?:doing|going|gone|went)\s+(?:completely\s+|fully\s+|totally\s+)?sober\b|\b(?:quit|stopped|gave\s+up|given\s+up|cut\s+out)\s+(?:drinking\b(?!\s+(?:coffee|tea|soda|pop|fizzy|energy|diet|milk|after|before))|alcohol\b|booze\b)|"
        r"\b"
        + _COUNT
        + r"\s+(?:days|weeks|months)\s+sober\b|\b(?:i've|i\s+have|ive)\s+been\s+sober\s+(?:since|for|\d)|"
        r"^sober\s+(?:for\b|since\b|\d+\s+(?:days|weeks|months|years)\b)|\bcut\s+(?:alcohol|booze|drinking)\s+out\b",
        "health",
        "drinking",
        "{speaker} is sober",
    ),
    (
        # "company forced us back to the office", "they made my role fully remote".
        r"\b(?:forced|ordered)\s+(?:us|everyone)\s+back\s+(?:in)?to\s+the\s+office\b(?![^.!?]{0,30}\bfor\s+(?:the|a)\b)|"
        r"\bback\s+(?:in\s+the\s+office|in\s+person|in\s+office)\s+(?:full[- ]time|(?:\d|five|four|three)\s+days|"
        r"every\s+day)\b"
        r"(?![^.!?]{0,25}\b(?:this\s+week|for\s+training|then\s+home|just\s+for))|"
        r"\b(?:made|making|forcing|forced|ordered)\s+us\s+(?:to\s+)?(?:go\s+|come\s+)?back\s+(?:in)?to\s+the\s+office\b|"
        r"\b(?:made|making|forcing)\s+us\s+(?:back\s+)?(?:in|into\s+the\s+office)\s+(?:\w+\s+)?days\s+a\s+week\b",
        "work",
        "work mode",
        "{speaker} works in the office",
    ),
    (
        r"\bmade\s+my\s+(?:role|job|position)\s+(?:fully\s+|100%\s+)?remote\b|\b(?:i'm|im|i\s+am|we're|we\s+are)\s+(?:all\s+)?(?:fully\s+)?remote\s+now\b|"
        r"\b(?:went|gone|go|going)\s+(?:fully|100%|completely)\s+remote\b|"
        # "my role went fully remote", "my company just went remote-first".
        r"\bmy\s+(?:role|job|position|team|company|employer|office)\s+(?:just\s+|has\s+)?(?:went|gone|has\s+gone)\s+"
        r"(?:fully\s+|100%\s+)?remote(?:[- ]first)?\b",
        "work",
        "work mode",
        "{speaker} works remotely",
    ),
    (
        r"(?![^.!?]*\b(?:for\s+cover|just\s+the\s+one|just\s+for|this\s+(?:sat|sun|week|weekend)|tomorrow|tonight)\b)"
        r"\b(?:moved|switched|transferred|put)\s+(?:me\s+)?(?:on)?to\s+(?P<shift>days|nights)\b"
        r"(?!\s+(?:inn|of|ago|later|before|after|off|in\s+advance)\b)|"
        r"(?![^.!?]*\b(?:for\s+cover|just\s+the\s+one|just\s+for|this\s+(?:sat|sun|week|weekend)|tomorrow|tonight)\b)"
        r"\b(?:moved|switched|transferred|put)\s+(?:me\s+|us\s+)?(?:on)?to\s+(?:the\s+)?(?P<shift2>day|night|morning|"
        r"evening|early|late|afternoon|graveyard)\s+shifts?\b|"
        r"(?![^.!?]*\b(?:for\s+cover|just\s+the\s+one|just\s+for|this\s+(?:sat|sun|week|weekend)|tomorrow|tonight)\b)"
        r"\bput\s+(?:me|us)\s+on\s+(?:the\s+)?(?P<shift3>day|night|morning|evening|early|late|afternoon|graveyard)\s+"
        r"shifts?\b",
        "work",
        "shift",
        "{speaker} works {shift} shifts",
    ),
    (
        r"\b(?:not|no\s+longer)\s+(?P<diet>"
        + DIETS
        + r")\s+(?:any\s*more|now)\b|\bno\s+longer\s+(?P<diet2>"
        + DIETS
        + r")\b|\b(?:quit|gave\s+up(?:\s+on)?|stopped)\s+being\s+(?:a\s+)?(?P<diet3>"
        + DIETS
        + r"|veggie)\b",
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
        + r"(?:had\s+to\s+)?(?:dropped|drop)\s+out\s+of\s+(?:the\s+|my\s+)?(?P<school>(?:uni|university|college|school|"
        r"grad\s+school|mba|masters|master's|phd|degree|course|"
        + named("schools")
        + r"|"
        + CAP
        + r"[\w'.&-]*(?:\s+"
        + CAP
        + r"[\w'.&-]*){0,3}))\b(?!'s|\s+(?:group|chat|course|class|club|society|team|league|program|programme|"
        r"app|race|competition|tournament))",
        "education",
        "school",
        "{speaker} dropped out of {school}",
    ),
    (
        r"\b(?:i've\s+|i\s+)?left\s+(?P<school>college|uni|university|sixth\s+form)\b(?!\s+(?:at|early|for)\b)",
        "education",
        "school",
        "{speaker} left {school}",
    ),
    (
        r"\bfinished\s+(?:my|our)\s+(?:[\w-]+\s+){0,2}(?P<course>degree|masters|master's|phd|apprenticeship|"
        r"a-levels)\b(?!\s+(?:of|in\s+(?:first|cpr)))",
        "education",
        "course",
        "{speaker} finished their {course}",
    ),
    (
        # "first week as headteacher", "proper solicitor now", "inspector as of monday".
        r"\bfirst\s+(?:day|week|shift|month)\s+as\s+(?:a\s+|an\s+|the\s+)?(?!student|volunteer)(?P<title>"
        + _TITLES
        + r")\b(?!\s+(?:of|for|again|at\s+(?:the\s+)?(?:party|club|quiz)))|"
        r"\b(?:fully\s+qualified|qualified|newly\s+qualified)\s+(?P<title2>" + _TITLES + r")\s+now\b|"
        r"(?:^|\.\s+)(?P<title3>" + _TITLES + r")\s+as\s+of\s+(?:today|monday|tuesday|wednesday|thursday|friday|"
        r"saturday|sunday|this\s+week|now)\b",
        "work",
        "occupation",
        "{speaker} is a {title}",
    ),
    (
        r"\b(?:had\s+to\s+|i've\s+|i\s+)?(?:give|gave|given)\s+up\s+(?:the|my)\s+(?P<instrument>"
        + _INSTRUMENTS
        + r")\b(?![^.!?]{0,30}\b(?:room|space|sofa|couch|move|moving|sell|selling)\b)",
        "music",
        "instrument",
        "{speaker} no longer plays the {instrument}",
    ),
    (
        r"\b(?:i'm|im|i\s+am)\s+not\s+single\s+any\s*more\b|\b(?:we're|we\s+are)\s+(?:officially\s+)?(?:a\s+couple|together|"
        r"an\s+item|courting)\s+now\b|\b(?:we're|we\s+are)\s+officially\s+(?:a\s+couple|together|an\s+item|dating)\b",
        "relationships",
        "relationship_status",
        "{speaker} is in a relationship",
    ),
    (
        # Not asked or rumoured: "people keep asking if Priya and I broke up".
        r"(?<!\bif\s)(?<!\bwhether\s)(?<!\bthat\s)(?<!\bthink\s)"
        r"\b(?:(?:my\s+(?:boyfriend|girlfriend|husband|wife|partner|fianc[eé]e?)\s+)?(?-i:[A-Z][a-z]+)\s+and\s+i|"
        r"me\s+and\s+(?-i:[A-Z][a-z]+))\s+(?:have\s+|'ve\s+)?(?:finally\s+|officially\s+)?(?:decided\s+to\s+)?"
        r"(?:separated|split\s+up|broken\s+up|broke\s+up|call(?:ed)?\s+it\s+(?:a\s+day|quits)|are\s+(?:done|finished|over)|"
        r"ended\s+things|went\s+(?:our\s+)?separate\s+ways|(?:have\s+|'ve\s+)?gone\s+(?:our\s+)?separate\s+ways)\b"
        r"(?!\s+(?:the|into|in|a|an|our|my|their|it|them|with\s+(?:the|work|it))\b)|"
        r"\bdecree\s+absolute\s+(?:came|went|has\s+come)\s+through\b|"
        r"^(?:my\s+(?:boyfriend|girlfriend|husband|wife|partner|fianc[eé]e?)\s+)?(?-i:[A-Z][a-z]+)\s+(?:just\s+|finally\s+)?"
        r"(?:dumped\s+me|broke\s+up\s+with\s+me|left\s+me)\b(?!\s+(?:a|an|the|some|with|on|at|in|alone\s+for)\b)",
        "relationships",
        "relationship_status",
        "{speaker} is no longer with their partner",
    ),
    (
        # "graduated!!!", "officially graduated 🎓"; not long ago ("graduated in 2009", "graduated years ago").
        _BY_ME + r"graduated(?=\s*(?:[^\w\s]|$|\s+(?:from\s+(?:uni|university|college|law\s+school|med\s+school|"
        r"grad\s+school|(?-i:[A-Z]))|today|yesterday|last|this|finally|at\s+last|with|and|so)\b))\b(?![^.!?]{0,40}\b(?:in|back\s+in)\s+(?:19|20)\d\d|[^.!?]{0,30}\byears\s+ago)"
        r"(?![^.!?]{0,30}\b(?:high\s+school|kindergarten|preschool)\b)",
        "education",
        "school",
        "{speaker} graduated",
    ),
    (
        # "officially converted to the Canucks", "switched to the Chiefs".
        r"\b(?:converted|switched|changed)\s+(?:allegiance\s+)?to\s+(?:the\s+)?(?P<team>" + named("teams") + r")\b",
        "sports",
        "team",
        "{speaker} supports the {team}",
    ),
    (
        r"\bconverted\s+to\s+(?P<faith>islam|christianity|catholicism|judaism|buddhism|hinduism|sikhism)\b",
        "beliefs",
        "religion",
        "{speaker} converted to {faith}",
    ),
    (r"\btook\s+my\s+shahada\b", "beliefs", "religion", "{speaker} converted to Islam"),
    (
        # "we're getting divorced", "me and my husband are separating", "we filed for divorce last week".
        r"\b(?:(?:i'm|im|i\s+am|we're|we\s+are|(?:me\s+and\s+my\s+(?:husband|wife|partner)|my\s+(?:husband|wife|partner)\s+"
        r"and\s+(?:me|i)(?:\s+we)?)\s+are)\s+(?:getting\s+(?:a\s+)?"
        r"divorced?|separating)|(?:we've|we\s+have|i've|i\s+have)\s+decided\s+to\s+(?:divorce|separate)|"
        r"(?:we|i)\s+(?:have\s+|'ve\s+)?filed\s+for\s+(?:a\s+)?divorce)\b(?!\s+(?:papers\s+)?(?:for|from)\s+(?:my|our|his|her)\b)",
        "relationships",
        "relationship_status",
        "{speaker} is getting divorced",
    ),
    (
        # "haven't had an actual cigarette in 3 weeks".
        r"\bhaven't\s+(?:had|smoked|touched)\s+(?:a|an|one)\s+(?:actual\s+|single\s+)?(?:cigarette|cig|smoke|fag)\s+in\s+"
        + _COUNT
        + r"\s+(?:days|weeks|months)\b",
        "health",
        "smoking",
        "{speaker} quit smoking",
    ),
    (
        r"\b(?:we've|we\s+have|i've|i\s+have)\s+(?:gone|moved)\s+(?:fully\s+|100%\s+)?remote\b",
        "work",
        "work mode",
        "{speaker} works remotely",
    ),
    (
        r"\bswitched\s+banks\s+to\s+(?P<bank>" + NAME + r")",
        "money",
        "bank",
        "{speaker} banks with {bank}",
    ),
    (
        r"\bregistered\s+(?:at|with)\s+(?:the|a)\s+new\s+(?:gp\s+)?(?P<gp>surgery|practice|gp|doctor'?s?)\b",
        "health",
        "doctor",
        "{speaker} is registered with a new {gp}",
    ),
    (
        r"\b(?:my|a)\s+new\s+(?:doctor|gp)\s*,?\s+(?:is\s+|called\s+)?dr\.?\s+(?P<name>[a-z][\w'-]+)",
        "health",
        "doctor",
        "{speaker}'s doctor is Dr {name}",
    ),
    (
        # "rent here in austin is $1800", "manchester flat is finally feeling like home".
        r"(?:^|\b(?:rent|rates|the\s+(?:weather|winters?|summers?|traffic|rent|schools)|living)\s+)"
        r"(?:out\s+|over\s+|up\s+|down\s+)?here\s+in\s+"
        + place("place", lower_case=False)
        + r"(?![^.!?]{0,40}\b(?:for\s+(?:the|a|one|two|\d+)\s+\w+|visiting|trip|holiday|vacation|conference)\b)|"
        r"(?:^|(?<=[,;:]\s)|\b(?:the|my|our)\s+)"
        + place("place2", lower_case=False)
        + r"\s+(?:flat|house|apartment|place)\s+(?:is|has)\s+(?:finally\s+|now\s+)?(?:feeling|starting\s+to\s+feel)\s+"
        r"like\s+home\b",
        "home",
        "residence",
        "{speaker} lives in {place}",
    ),
    (
        # "Girlfriend's name is Ella", "I've been seeing a lovely chap called Roger".
        r"^(?:my\s+)?(?:girlfriend|boyfriend|partner|wife|husband|fianc[eé]e?)(?:'s\s+name\s+is|\s+is\s+called)\s+"
        r"(?P<name>(?-i:[A-Z][a-z]+))\b|"
        r"\b(?:i've|i\s+have)\s+been\s+seeing\s+(?:a\s+)?(?!(?:[\w-]+\s+){0,2}?(?:counsell?or|(?:psycho)?therapist|"
        r"psychologist|psychiatrist|doctor|dentist|physio|specialist|consultant|coach|tutor|trainer)\b)"
        r"(?:[\w-]+\s+){0,3}?(?:called|named)\s+(?P<name2>(?-i:[A-Z][a-z]+))\b",
        "relationships",
        "partner",
        "{speaker}'s partner is {name}",
    ),
    *SWITCHED,
    *CHANGES,
)


def by_the_speaker(match: re.Match[str]) -> bool:
    """Whether a change's clause opens with the speaker, said or left out ("ok so i moved…", "finally moved…"), not
    with someone else ("jake finally moved…", "tyler's first winter in boston") or a doubt ("almost ported…")."""
    if _TO_THE_SPEAKER.search(match.group(0)):
        return True
    before = match.string[: match.start()]
    opening = _CLAUSE_BREAK.sub("", before, count=1) if _CLAUSE_BREAK.match(before) else before
    return all(word in OWN_OPENING for word in _WORDS.findall(opening.lower()))
