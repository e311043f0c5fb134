"""Changes told as news, in the middle of a request or of catching up: "Since I'm in Vancouver now and it barely snows",
"we packed up everything and relocated to Porto", "Ravi and I have been together five years", "I'm officially Sarah
Okoro now", "I got the charge nurse role!", "Being a staff nurse on the cardiac ward is tiring", "now that I've
started at KPMG", "Jio user, how do I check my data balance?". Rows of (pattern, topic, attribute, template) read
with `shorthand.SHORTHAND` as milestones: each says the value the speaker has now, so an earlier one is replaced, and
a clause of someone else's or of a wish or a plan says nothing (`milestones_in`, `shorthand.by_the_speaker`).
"""

from __future__ import annotations

from memoryadmin.extraction.strategies.offline.lexicon import PROFESSIONS
from memoryadmin.extraction.strategies.offline.names import named
from memoryadmin.extraction.strategies.offline.phrases import DIETS, FIELDS, NAME, place

_TITLE = r"(?:[\w-]+\s+){0,2}?(?:" + PROFESSIONS + r")"
_AM = r"(?:i'm|im|i\s+am|we're|we\s+are)\s+"
# Where someone is for a while, not where they live: "I'm in Paris now for the conference", "in Leeds for now".
_NOT_A_STAY = (
    r"(?![^.!?\n]{0,40}\b(?:for\s+(?:the|a|an|two|three|four|\d+|work|business|now|a\s+few|the\s+next)|visiting|"
    r"on\s+(?:holiday|vacation|a\s+trip|business|a\s+work\s+trip)|until|till|this\s+(?:week|weekend)|trip|conference|"
    r"hotel|airbnb|hostel|layover)\b)"
)
# A capitalised name after "in" that is no place: a department, a year, a school, a ward.
_NOT_A_PLACE = (
    r"(?!(?:HR|IT|Sales|Marketing|Finance|Accounting|Accounts|Legal|Ops|Year|Grade|Form|Class|Team|Group|Level|"
    r"Stage|Phase|Week|Love|Charge|Recovery|Remission)\b)"
    r"(?![\w'.-]+(?:\s+[\w'.-]+)?\s+(?:University|College|School|State|Uni|Academy|Institute|Hospital|Ward|Clinic|"
    r"Office|Team|Department)\b)"
)
_HOMES = r"(?:room|flat|apartment|house|place|studio|condo|duplex|townhouse|cottage|bungalow|piso|[1-4]\s?bhk)"
_SPLIT = (
    r"(?:(?:have\s+|'ve\s+|had\s+)?(?:finally\s+|officially\s+|just\s+)?(?:decided\s+to\s+)?(?:call(?:ed)?\s+it\s+quits|"
    r"went\s+(?:our\s+)?separate\s+ways|(?:have\s+|'ve\s+)?gone\s+(?:our\s+)?separate\s+ways|split\s+up|broke\s+up|"
    r"ended\s+things|separated|divorced))"
)
_FIRST_NAME = r"(?-i:[A-Z][a-z]+)"
# An employer by its name; not a school's ("Lincoln High", "Monash University").
_EMPLOYER = (
    r"(?!" + NAME + r"\s+(?:University|College|School|High|Academy|Uni)\b)" + NAME + r"(?:\s+&\s+" + NAME + r")?"
)

CHANGES: tuple[tuple[str, str, str, str], ...] = (
    (
        # Where the speaker is now: "Since I'm in Vancouver now", "now that I'm up in Minneapolis", "I'm in Jersey City
        # now, sharing a place", "relocated to Porto last week", "the move up to Brisbane wiped me out", "home is Jersey
        # City now", "got my own 1BHK in Koramangala", "found a room in Peckham and moved in".
        r"(?:^|(?<=\s))"
        + _AM
        + r"(?:(?:up|down|over|out|back)\s+)?in\s+"
        + _NOT_A_PLACE
        + place("place", lower_case=False)
        + r"\s+now\b"
        + _NOT_A_STAY
        + r"|\brelocated\s+(?:back\s+)?(?:(?:up|down|over|out)\s+)?to\s+"
        + place("place3", lower_case=False)
        + r"|\b(?:since|after)\s+(?:the|my|our)\s+move\s+(?:(?:up|down|over|out|back)\s+)?to\s+"
        + place("place4", lower_case=False)
        + r"|\bthe\s+move\s+(?:(?:up|down|over|out|back)\s+)?to\s+"
        + place("place5", lower_case=False)
        + r"\s+(?:wiped|took|has\s+taken|knocked|was\s+(?:a\s+lot|exhausting|hard|worth))"
        + r"|\bhome\s+is\s+(?:now\s+)?"
        + place("place6", lower_case=False)
        + r"\s+now\b|\bhome\s+is\s+now\s+"
        + place("place7", lower_case=False)
        + r"|\bgot\s+(?:my|our)\s+own\s+(?:[\w-]+\s+){0,2}?"
        + _HOMES
        + r"\s+in\s+"
        + place("place8", lower_case=False)
        + r"|\b(?:found|rented)\s+(?:a|an)\s+(?:[\w-]+\s+){0,2}?"
        + _HOMES
        + r"\s+in\s+"
        + place("place9", lower_case=False)
        + r"\s+and\s+moved\s+in\b",
        "home",
        "residence",
        "{speaker} lives in {place}",
    ),
    (
        # A partner named with the speaker: "Ravi and I have been together five years", "Kenji and I are still going
        # strong", "Jon and I are celebrating two years together"; a new one: "we're officially a couple now! His name
        # is Mateo", "met a lovely lady called Margaret … we're courting now".
        r"(?:^|(?<=[,.;!]\s)|(?<=\band\s)|(?<=\bbut\s)|(?<=\bso\s))(?P<name>"
        + _FIRST_NAME
        + r")\s+and\s+i\s+(?:(?:have|'ve)\s+been\s+(?:together|married|dating|a\s+couple)|"
        r"are\s+(?:still\s+)?(?:together|going\s+strong|married|engaged|a\s+couple|an\s+item)|"
        r"are\s+celebrating\s+(?:our\s+)?(?:\w+\s+){1,2}(?:together|anniversary))\b|"
        r"\b(?:officially\s+(?:a\s+couple|together|dating|an\s+item)|made\s+it\s+official|seeing\s+someone(?:\s+new)?|"
        r"met\s+someone)\b[^\n]{0,80}?\b(?:his|her|their)\s+name(?:'s|\s+is)\s+(?P<name2>" + _FIRST_NAME + r")\b|"
        r"\bmet\s+(?:a|an|this)\s+(?:[\w-]+\s+){0,3}?(?:lady|woman|man|guy|girl|gentleman|fella|chap|bloke)\s+"
        r"(?:called|named)\s+(?P<name3>"
        + _FIRST_NAME
        + r")(?=[^\n]{0,80}\b(?:courting|dating|seeing\s+each\s+other|together\s+now|a\s+couple|official)\b)|"
        # "after the breakup with Lena I met Sophie, we've been together a month", "Omar and I split, but I'm now with
        # Daniel, met him at a friend's wedding".
        r"\b(?:i\s+|i've\s+)?met\s+(?P<name4>"
        + _FIRST_NAME
        + r")\s*[,;]?\s+(?:and\s+)?(?:we've|we\s+have)\s+been\s+(?:together|dating|"
        r"seeing\s+each\s+other)\b|"
        r"\b(?:i'm|im|i\s+am)\s+(?:now\s+)?with\s+(?P<name5>"
        + _FIRST_NAME
        + r")\b(?=[^\n]{0,40}\b(?:met\s+(?:him|her|them)|"
        r"met|together|dating|boyfriend|girlfriend|partner|marry|married|wedding|engaged)\b)|"
        r"\b(?:split|broke\s+up|separated|divorce|divorced|breakup|break-up)\b[^.!?\n]{0,40}\b(?:i'm|im|i\s+am)\s+now\s+"
        r"with\s+(?P<name6>" + _FIRST_NAME + r")\b",
        "relationships",
        "partner",
        "{speaker}'s partner is {name}",
    ),
    (
        # "I'm a Celtics fan now", "I've become a proper Atletico fan".
        r"\b(?:i'm|im|i\s+am)\s+(?:now\s+)?(?:a\s+|an\s+)?(?:proper\s+|big\s+|huge\s+|massive\s+)?(?P<team>"
        + NAME
        + r")\s+fan\s+now\b|\b(?:i've|i\s+have|i)\s+become\s+(?:a\s+|an\s+)?(?:proper\s+|big\s+|huge\s+)?(?P<team2>"
        + NAME
        + r")\s+fan\b|\bi\s+became\s+(?:a\s+|an\s+)?(?:proper\s+|big\s+|huge\s+)?(?P<team3>"
        + NAME
        + r")\s+fan\b|(?:^|(?<=[,.;!]\s))as\s+(?:a|an)\s+(?:lifelong\s+|life-long\s+|die[- ]hard\s+|huge\s+|big\s+)?"
        r"(?P<team4>" + NAME + r")\s+fan\b",
        "sports",
        "team",
        "{speaker} supports {team}",
    ),
    (
        # "Daniel's my fiancé now!!", "Sam is officially my husband".
        r"(?:^|(?<=[,.;!]\s))(?P<name>" + _FIRST_NAME + r")(?:'s|\s+is)\s+(?:now\s+|officially\s+)?my\s+"
        r"fianc[eé]e?\b",
        "relationships",
        "partner",
        "{speaker} is engaged to {name}",
    ),
    (
        r"(?:^|(?<=[,.;!]\s))(?P<name>" + _FIRST_NAME + r")(?:'s|\s+is)\s+(?:now\s+|officially\s+)?my\s+"
        r"(?:husband|wife)\b",
        "relationships",
        "partner",
        "{speaker} is married to {name}",
    ),
    (
        # A role taken: "I got the charge nurse role!", "just started as ward sister", "my title changed to Marketing
        # Manager", "I'm the cafe's shift supervisor now"; a role had: "Being a staff nurse on the cardiac ward is
        # tiring", "Life as an accountant is pretty boring", "as a teaching assistant how can I…".
        r"\bgot\s+the\s+(?P<title>" + _TITLE + r")\s+(?:role|position|job|post|promotion)\b|"
        r"\b(?:just\s+)?started\s+(?:work\s+)?as\s+(?:a\s+|an\s+|the\s+)?(?P<title2>" + _TITLE + r")\b|"
        r"\bmy\s+(?:job\s+)?title\s+(?:changed\s+to|is\s+now|is|has\s+changed\s+to)\s+(?P<title3>" + _TITLE + r")\b|"
        r"\bnew\s+(?:role|job|title|position)\s*[,:-]\s*(?:a\s+|an\s+)?(?P<title7>" + _TITLE + r")\b|"
        r"\bmade\s+(?P<title8>partner|director|principal|associate|vp|senior\s+[\w-]+|head\s+of\s+[\w-]+)\b(?=\s*[!.,]|\s+at\b)|"
        r"\b" + _AM + r"(?:now\s+)?the\s+(?:[\w']+\s+){0,2}?(?P<title4>" + _TITLE + r")\s+now\b|"
        r"^(?:being|life\s+as)\s+(?:a\s+|an\s+)?(?P<title5>"
        + _TITLE
        + r")\b(?=[^.!?\n]{0,40}\b(?:is|means|has\s+been|keeps)\b)",
        "work",
        "occupation",
        "{speaker} is a {title}",
    ),
    (
        # "started sixth form at Queen Mary's College".
        r"\bstarted\s+(?:sixth\s+form|uni|university|college|school|high\s+school|year\s+\d+|my\s+\w+)\s+at\s+(?P<school>"
        + NAME
        + r")",
        "education",
        "school",
        "{speaker} studies at {school}",
    ),
    (
        # "Proud owner of a (second-hand) Renault Clio as of Saturday!".
        r"\bproud\s+owner\s+of\s+(?:a|an)\s+(?:\([\w-]+\)\s+|[\w-]+\s+)?(?P<car>(?:"
        + named("cars", everyday=False)
        + r")(?:\s+(?-i:[A-Z0-9])[\w-]*)?)",
        "possessions",
        "car",
        "{speaker} drives a {car}",
    ),
    (
        # "The divorce was finalised on Thursday": what ends a marriage, said of it.
        r"\b(?:the\s+|my\s+|our\s+)?divorce\s+(?:from\s+\w+\s+)?(?:was|is|has\s+been|came|went)\s+(?:finally\s+|officially\s+)?"
        r"(?:finali[sz]ed|final|through)\b",
        "relationships",
        "relationship_status",
        "{speaker} is divorced",
    ),
    (
        # "I'm at Deloitte now, the team is lovely": where the speaker works, said where what follows speaks of work.
        r"(?:^|(?<=\s))(?:i'm|im|i\s+am)\s+(?:now\s+)?at\s+(?P<org>"
        + NAME
        + r")\s+now\b(?<!University\snow)(?<!College\snow)(?<!School\snow)(?=[^\n]*\b(?:job|work|team|office|role|"
        r"position|started|joined|hired|colleagues|boss|manager|salary|onboarding|badge|company|shifts?|quit|left)\b)",
        "work",
        "employer",
        "{speaker} works at {org}",
    ),
    (
        # "I'm doing contract work for BBVA now", "driving for the school district now".
        r"\b(?:doing\s+(?:contract|freelance|agency|some)\s+work|contracting|freelancing|consulting|driving|working)\s+"
        r"for\s+(?P<org>" + NAME + r")\s+now\b",
        "work",
        "employer",
        "{speaker} works at {org}",
    ),
)

# A service named as the speaker's by using it: "I'm with Nubank, how do I…", "I'm still with Barclays", "I'm on
# Airtel", "Jio user, how do I…", "Monzo customer here".
_SERVICES_USED = tuple(
    (
        r"\b(?:i'm|im|i\s+am)\s+(?:still\s+)?(?:" + joined + r")\s+(?P<" + group + r">" + named(label) + r")\b|"
        r"^(?P<" + group + r"2>" + named(label) + r")\s+(?:user|customer|client|subscriber)\b",
        topic,
        attribute,
        template,
    )
    for label, group, joined, topic, attribute, template in (
        ("banks", "bank", "with", "money", "bank", "{speaker} banks with {bank}"),
        ("carriers", "carrier", "with|on", "possessions", "mobile_carrier", "{speaker}'s mobile carrier is {carrier}"),
    )
)

# A service left for another, the new one named as its group's ("finally left o2 for voxi", "ditched Vodafone for
# EE", "switched from Comcast to AT&T Fiber", "moved over from Barclays to Monzo"): said with or without "I".
_SERVICES_SWAPPED = tuple(
    (
        r"\b(?:left|ditched|dumped|dropped|swapped|traded|quit|cancelled|canceled|binned)\s+(?:my\s+)?"
        + named(label)
        + r"(?:\s+(?:account|contract|plan|membership|broadband|sim))?\s+(?:for|to)\s+(?P<"
        + group
        + r">"
        + named(label)
        + r")|\b(?:switched|moved|changed|went|ported(?:\s+my\s+number)?)\s+(?:over\s+|across\s+)?from\s+"
        + named(label)
        + r"\s+(?:over\s+)?to\s+(?P<"
        + group
        + r"2>"
        + named(label)
        + r")",
        topic,
        attribute,
        template,
    )
    for label, group, topic, attribute, template in (
        ("banks", "bank", "money", "bank", "{speaker} banks with {bank}"),
        ("carriers", "carrier", "possessions", "mobile_carrier", "{speaker}'s mobile carrier is {carrier}"),
        ("isps", "isp", "home", "internet_provider", "{speaker}'s internet provider is {isp}"),
        ("gyms", "gym", "health", "gym", "{speaker} goes to {gym}"),
    )
)

# Said in a question or a request, as people tell an assistant about themselves on the way: "Since I'm in Vancouver
# now, should I sell the winter tires?", "as a teaching assistant how can I…", "Jio user, how do I…". Each is said of
# the speaker by its own words, so it is read whatever the clause is for.
ON_THE_WAY: tuple[tuple[str, str, str, str], ...] = (
    (
        # "new boyfriend's called Kofi, you'll love him", "Rob and I are good, two years together in May".
        r"\bnew\s+(?:boyfriend|girlfriend|partner|bf|gf)(?:'s|\s+is)\s+(?:called|named)\s+(?P<name>"
        + _FIRST_NAME
        + r")\b|"
        r"(?:^|(?<=[,.;!]\s))(?P<name2>"
        + _FIRST_NAME
        + r")\s+and\s+i\s+are\s+(?:good|great|fine|doing\s+well|solid),?\s+"
        r"(?:\w+\s+){1,2}(?:years?|months?)\s+together\b",
        "relationships",
        "partner",
        "{speaker}'s partner is {name}",
    ),
    (
        # "starting sixth form at Hartlepool College next week".
        r"\bstarting\s+(?:sixth\s+form|college|uni|university|school|high\s+school|year\s+\d{1,2})\s+at\s+"
        r"(?P<school>(?-i:[A-Z])[\w'.&-]+(?:\s+(?-i:[A-Z])[\w'.&-]+){0,3})",
        "education",
        "school",
        "{speaker} goes to {school}",
    ),
    (
        # "I changed course at Christmas, law wasn't for me, so I'm doing philosophy and politics now".
        r"\b(?:i'm|im|i\s+am)\s+(?:now\s+)?(?:doing|studying|reading)\s+(?P<course>"
        + FIELDS
        + r"(?:\s+(?:and|&)\s+"
        + FIELDS
        + r")?)\s+now\b",
        "education",
        "course",
        "{speaker} studies {course}",
    ),
    (
        # "everything's with ING now", "everything's on Monzo now".
        r"\beverything(?:'s|\s+is)\s+(?:with|on|at|in)\s+(?P<bank>" + named("banks") + r")\s+now\b",
        "money",
        "bank",
        "{speaker} banks with {bank}",
    ),
    (
        # "My season ticket's at Leyton Orient now".
        r"\bseason\s+ticket(?:'s|\s+is)\s+(?:now\s+)?at\s+(?P<team>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+){0,2})",
        "sports",
        "team",
        "{speaker} supports {team}",
    ),
    (
        # "go Bears", the whole message (a row of its own: anchored, it is tried at the message's start only).
        r"^go\s+(?P<team>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)\W*$",
        "sports",
        "team",
        "{speaker} supports {team}",
    ),
    (
        # "pulling shots at Ritual Roasters now", "got poached by Sainsbury's", "on shift at Tesco till 10",
        # "started at a small practice called Studio Mereth".
        r"(?:^|(?<=[,.;!]\s))(?:pulling\s+shots|serving|waiting\s+tables|bartending|cooking|baking|teaching|nursing|coding|"
        r"working)\s+(?:\w+\s+)?at\s+(?P<org>"
        + _EMPLOYER
        + r")\s+now\b|\bgot\s+poached\s+by\s+(?P<org2>"
        + _EMPLOYER
        + r")|"
        r"(?:^|(?<=[,.;!]\s))on\s+shift\s+at\s+(?P<org3>"
        + _EMPLOYER
        + r")|\bstarted\s+at\s+(?:a|an)\s+(?:[\w-]+\s+){0,3}"
        r"(?:called|named)\s+(?P<org4>" + _EMPLOYER + r")",
        "work",
        "employer",
        "{speaker} works at {org}",
    ),
    (
        # "We've been up in Kendal three weeks now and I still get lost walking to the Co-op".
        r"\b(?:we've|i've|we\s+have|i\s+have)\s+been\s+(?:(?:up|down|over|out)\s+)?in\s+"
        + place("place", lower_case=False)
        + r"\s+(?:for\s+)?(?:a\s+few|a\s+couple\s+of|\w+)\s+(?:weeks|months)\s+now\b",
        "home",
        "residence",
        "{speaker} lives in {place}",
    ),
    (
        # "home in brixton now", "new address is in walthamstow".
        r"(?:^|(?<=[,.;!]\s))home\s+(?:is\s+|'s\s+)?in\s+" + place("place") + r"\s+(?:now|these\s+days)\b|"
        r"(?:^|(?<=[,.;!]\s))(?:my\s+|our\s+|the\s+)?new\s+address\s+is\s+in\s+" + place("place2"),
        "home",
        "residence",
        "{speaker} lives in {place}",
    ),
    (
        # "since switching to the night shift as a nurse…", "finished at the restaurant, sous chef life is brutal".
        r"\bshifts?\s+as\s+(?:a|an)\s+(?P<title>" + _TITLE + r")\b|"
        r"(?:^|(?<=[,.;!]\s))(?P<title2>" + _TITLE + r")\s+life\s+(?:is|has\s+been)\b",
        "work",
        "occupation",
        "{speaker} is a {title}",
    ),
    (
        # "Sixth form at St Aidan's is so strict", "Year 11 at Hillcrest is brutal".
        r"(?:^|(?<=[,.;!]\s))(?:sixth\s+form|year\s+\d{1,2}|grade\s+\d{1,2}|high\s+school|middle\s+school)\s+at\s+"
        r"(?P<school>(?-i:[A-Z])[\w'.&-]+(?:\s+(?-i:[A-Z])[\w'.&-]+){0,3})",
        "education",
        "school",
        "{speaker} goes to {school}",
    ),
    (
        # "I'm in first-year chemistry at Uppsala", "Nursing degree year 2, placements are brutal".
        r"\b(?:i'm|im|i\s+am)\s+in\s+(?:first|second|third|fourth|final)[- ]year\s+(?P<course>[a-z]+(?:\s+(?:science|"
        r"studies|engineering))?)\s+at\b|(?:^|(?<=[,.;!]\s))(?P<course2>[a-z]+(?:\s+(?:science|studies|engineering))?)\s+"
        r"degree,?\s+(?:year\s+\d|(?:first|second|third|final)\s+year)\b",
        "education",
        "course",
        "{speaker} studies {course}",
    ),
    (
        # "so strictly gluten-free from now on", "Keto is going well, bread is a distant memory".
        r"\b(?:strictly\s+|fully\s+|100%\s+|totally\s+)?(?P<diet>" + DIETS + r")\s+from\s+now\s+on\b|"
        r"(?:^|(?<=[,.;!]\s))(?P<diet2>"
        + DIETS
        + r")\s+(?:is|has\s+been)\s+(?:going\s+)?(?:well|great|good|fine|ok|okay|"
        r"amazing|strong)\b",
        "diet",
        "diet",
        "{speaker} is on a {diet} diet",
    ),
    (
        # "Me and Priya have been together almost three years now".
        r"(?:^|(?<=[,.;!]\s))me\s+and\s+(?P<name>"
        + _FIRST_NAME
        + r")\s+(?:have|'ve)\s+been\s+(?:together|dating|a\s+couple)\b",
        "relationships",
        "partner",
        "{speaker}'s partner is {name}",
    ),
    (
        r"\b(?:now\s+that|since)\s+"
        + _AM
        + r"(?:now\s+)?(?:(?:up|down|over|out|back)\s+)?(?:here\s+)?in\s+"
        + _NOT_A_PLACE
        + place("place", lower_case=False)
        + _NOT_A_STAY,
        "home",
        "residence",
        "{speaker} lives in {place}",
    ),
    (
        # A new full name: "I'm officially Sarah Okoro now", "changed my surname to Shah".
        r"\b(?:i'm|im|i\s+am)\s+(?:officially\s+|now\s+)?(?P<name>" + _FIRST_NAME + r"\s+" + _FIRST_NAME + r")\s+now\b|"
        r"\bchanged\s+my\s+(?:name|surname|last\s+name)\s+to\s+(?P<name2>" + _FIRST_NAME + r")\b",
        "identity",
        "name",
        "{speaker}'s name is {name}",
    ),
    (
        # What the speaker is called now: "going by Sasha from now on", "I've started introducing myself as James now",
        # "please call me Daniel".
        r"\b(?:go|going)\s+by\s+(?P<name2>" + _FIRST_NAME + r")\s+(?:now|from\s+now\s+on|these\s+days)\b|"
        r"\bintroduc(?:e|ing)\s+myself\s+as\s+(?P<name3>" + _FIRST_NAME + r")\s+(?:now|from\s+now\s+on)\b|"
        r"(?:^|(?<=[,.;!]\s))(?:please\s+|pls\s+|plz\s+)?call\s+me\s+(?P<name5>"
        + _FIRST_NAME
        + r")\b(?!\s+(?:back|later|tomorrow|tonight))",
        "identity",
        "name",
        "{speaker} goes by {name}",
    ),
    (
        # "Now that we're married, how do I change my surname?", "since I'm divorced now, what happens to the house?"
        r"\b(?:now\s+that|since)\s+"
        + _AM
        + r"(?:now\s+)?(?:officially\s+)?(?P<status>married|engaged|divorced|separated|"
        r"single|widowed)\b(?!\s+(?:for|in|to|with)\b)",
        "relationships",
        "relationship_status",
        "{speaker} is {status}",
    ),
    (
        # "now that I'm vegan, give me a dinner idea", "I went back to being vegetarian", "I'm gluten-free from now on".
        r"\b(?:now\s+that|since)\s+"
        + _AM
        + r"(?:now\s+)?(?:fully\s+|strictly\s+|completely\s+)?(?P<diet>"
        + DIETS
        + r")\b|\bwent\s+back\s+to\s+(?:being\s+)?(?P<diet2>"
        + DIETS
        + r")\b|\b(?:i'm|im|i\s+am)\s+(?:fully\s+|strictly\s+|completely\s+)?(?P<diet3>"
        + DIETS
        + r")\s+from\s+now\s+on\b|(?:^|\bi've\s+|\bi\s+have\s+)been\s+(?:fully\s+|strictly\s+|completely\s+)?(?P<diet5>"
        + DIETS
        + r")\s+(?:since|for)\b|^being\s+(?P<diet4>"
        + DIETS
        + r")\s+(?:is|has\s+been)\b",
        "diet",
        "diet",
        "{speaker} is {diet}",
    ),
    (
        # "I've gone back to eating meat", "eating meat again".
        r"\b(?:gone|went|going|back)\s+(?:back\s+)?to\s+eating\s+meat\b|\beating\s+meat\s+again\b",
        "diet",
        "diet",
        "{speaker} eats meat",
    ),
    (
        # "My biology degree is going well".
        r"^my\s+(?P<course>[a-z]+(?:\s+(?:science|studies|engineering|management))?)\s+(?:degree|course|major)\s+"
        r"(?:is|has\s+been)\b",
        "education",
        "course",
        "{speaker} studies {course}",
    ),
    (
        # "I'm 34 and single - any tips for a dating profile?".
        r"\b(?:i'm|im|i\s+am)\s+(?:\d{2}\s+and\s+)?(?P<status>single|divorced|widowed|a\s+widow(?:er)?)\b"
        r"(?!\s+(?:mum|mom|dad|parent|mother|father|income|room|bed))",
        "relationships",
        "relationship_status",
        "{speaker} is {status}",
    ),
    (
        # "I'm a sophomore at Ohio State studying biology".
        r"\bat\s+" + NAME + r"\s+(?:studying|majoring\s+in|reading)\s+(?P<course>[a-z]+(?:\s+(?:science|studies|"
        r"engineering|management|law|history|arts|design))?)\b",
        "education",
        "course",
        "{speaker} studies {course}",
    ),
    (
        # "How often should I service my 2014 Honda Civic?": the car the speaker has, named; not an old one.
        r"\bmy\s+(?:new\s+|current\s+|trusty\s+|little\s+)?(?:(?:19|20)\d\d\s+)?(?P<car>(?:"
        + named("cars", everyday=False)
        + r")(?:\s+(?-i:[A-Z0-9])[\w-]*|\s+[a-z][\w-]*(?=\s+(?:has|is|was|'s|needs|keeps|just|still)\b))?)(?!'s)\b",
        "possessions",
        "car",
        "{speaker} drives a {car}",
    ),
    (
        # "I'm loving my classes at UCLA", "I'm a UP Diliman student now".
        r"\bmy\s+(?:classes|lectures|professors?|lecturers?|seminars?|tutors?)\s+at\s+(?P<school>"
        + NAME
        + r")|\b(?:i'm|im|i\s+am)\s+(?:now\s+)?(?:a|an)\s+(?P<school2>"
        + NAME
        + r")\s+student\b",
        "education",
        "school",
        "{speaker} studies at {school}",
    ),
    (
        # "Everyone at work calls me Jim", "Hey, it's Sarah Mitchell here".
        r"\b(?:everyone|everybody|people|they\s+all)\s+(?:at\s+\w+\s+)?calls?\s+me\s+(?P<name>" + _FIRST_NAME + r")\b",
        "identity",
        "name",
        "{speaker} goes by {name}",
    ),
    (
        r"\bit's\s+(?P<name>" + _FIRST_NAME + r"\s+" + _FIRST_NAME + r")\s+here\b",
        "identity",
        "name",
        "{speaker}'s name is {name}",
    ),
    *_SERVICES_USED,
    *_SERVICES_SWAPPED,
    (
        # "Dr. Reyes is my primary care doctor".
        r"^(?P<name>(?:Dr|Doctor)\.?\s+(?-i:[A-Z])[\w'-]+)\s+is\s+(?:still\s+)?my\s+(?:[\w-]+\s+){0,2}?(?:doctor|gp|physician)\b",
        "health",
        "doctor",
        "{speaker}'s doctor is {name}",
    ),
    (
        # A profile's fields, as people fill them in for a bot: "Current residence: Melbourne", "Employer: Deloitte",
        # "Relationship status: single", "Update: new employer is Accenture".
        r"^(?:my\s+)?(?:current\s+|new\s+)?(?:residence|home\s+city|city|location|home)\s*(?::|is\s+now)\s*"
        + place("place", lower_case=False),
        "home",
        "residence",
        "{speaker} lives in {place}",
    ),
    (
        r"^(?:my\s+)?(?:current\s+|new\s+)?(?:employer|company|workplace)\s*(?::|is(?:\s+now)?)\s*(?P<org>"
        + NAME
        + r")|\bnew\s+(?:employer|company)\s+is\s+(?P<org2>"
        + NAME
        + r")|\b(?:i'm|im|i\s+am)\s+working\s+(?:in|at|for|with)\s+(?P<org3>"
        + named("employers", everyday=False)
        + r")",
        "work",
        "employer",
        "{speaker} works at {org}",
    ),
    (
        r"^(?:my\s+)?(?:relationship\s+status|status)\s*:\s*(?P<status>single|married|engaged|divorced|widowed|separated|"
        r"in\s+a\s+relationship)\b",
        "relationships",
        "relationship_status",
        "{speaker} is {status}",
    ),
    (
        r"^as\s+(?:a|an)\s+(?P<title>" + _TITLE + r")\b(?=[^.!?\n]{0,60}\b(?:how|what|can|could|should|any|i)\b)",
        "work",
        "occupation",
        "{speaker} is a {title}",
    ),
    (
        # Where the speaker works now: "now that I've started at KPMG", "I work in the risk team at Banco Santander",
        # "my first team meeting at BMW".
        r"\bmy\s+first\s+(?:day|week|month|shift|(?:team\s+)?meeting|standup|all-hands)\s+at\s+(?P<org4>" + NAME + r")|"
        r"\b(?:i've|i\s+have|i|i'm|im|i\s+am|we've|we)\s+(?:just\s+|finally\s+|now\s+)?(?:started|starting)\s+(?:work\s+|working\s+|a\s+new\s+job\s+|my\s+new\s+job\s+)?at\s+(?P<org>"
        + NAME
        + r")(?![\w'-]*\s+(?:University|College|School|Uni|Academy|Institute)\b)|"
        r"^(?:working|work|life)\s+at\s+(?P<org3>" + NAME + r")\s+(?:has\s+been|is|means)\b|"
        r"\bi\s+work\s+(?:in|on)\s+(?:the|a)\s+(?:[\w-]+\s+){0,3}?(?:team|department|division|unit|group|branch|lab)\s+"
        r"(?:at|of|for)\s+(?P<org2>" + NAME + r")",
        "work",
        "employer",
        "{speaker} works at {org}",
    ),
    (r"\bbanking\s+with\s+(?P<bank>" + NAME + r")\s+now\b", "money", "bank", "{speaker} banks with {bank}"),
    (
        r"^(?P<gym>" + named("gyms") + r")\s+member\b",
        "health",
        "gym",
        "{speaker} goes to {gym}",
    ),
    (
        r"^(?P<isp>" + named("isps") + r")\s+(?:broadband|fibre|fiber|internet|user|customer)\b",
        "home",
        "internet_provider",
        "{speaker}'s internet provider is {isp}",
    ),
)

# Where the speaker works or lives, said of the people there: read in a sentence whose subject is one of them
# (`ON_THE_WAY` rows are not).
OF_OTHERS: tuple[tuple[str, str, str, str], ...] = (
    (
        # "Deloitte has us doing the annual compliance modules again", "We're slammed at Bloom & Root".
        r"(?:^|(?<=[,.;!]\s))(?P<org>"
        + _EMPLOYER
        + r")\s+(?:has|have|had|is\s+making|made|makes)\s+us\s+(?:doing|do|work|"
        r"working|come|coming|go|going)\b|\b(?:we're|we\s+are|we\s+were)\s+(?:so\s+|absolutely\s+)?(?:slammed|swamped|"
        r"short[- ]staffed|understaffed|rammed)\s+at\s+(?P<org2>" + _EMPLOYER + r")|"
        # "Northwind Logistics just gave me my own team".
        r"(?:^|(?<=[,.;!]\s))(?P<org3>"
        + _EMPLOYER
        + r")\s+(?:just\s+|finally\s+)?(?:gave\s+me\s+(?:my\s+own|a|a\s+new)\s+"
        r"(?:team|raise|pay\s+rise|promotion|bonus|office|role)|promoted\s+me)\b",
        "work",
        "employer",
        "{speaker} works at {org}",
    ),
    (
        # "my Chase account charged me another overdraft fee", "my Monzo card got declined": the speaker's bank.
        r"\bmy\s+(?P<bank>"
        + named("banks")
        + r")\s+(?:current\s+|checking\s+|savings\s+|joint\s+)?(?:account|debit\s+card|"
        r"card|app|overdraft)\b|"
        # "Barclays froze my card again".
        r"(?:^|(?<=[,.;!]\s))(?P<bank2>"
        + named("banks")
        + r")\s+(?:froze|blocked|declined|locked|charged|closed)\s+my\s+"
        r"(?:card|account|debit\s+card|credit\s+card)\b",
        "money",
        "bank",
        "{speaker} banks with {bank}",
    ),
    (
        # "My Telcel plan ran out of data again", "EE signal in my flat is non-existent".
        r"\b(?:my|our)\s+(?P<carrier>"
        + named("carriers")
        + r")\s+(?:phone\s+|mobile\s+|data\s+|monthly\s+)?(?:plan|contract|"
        r"sim|bill|data)\b|(?:^|(?<=[,.;!]\s))(?P<carrier2>"
        + named("carriers")
        + r")\s+(?:signal|coverage|reception)\s+"
        r"(?:in|at|around)\s+(?:my|our)\b",
        "contact",
        "mobile_carrier",
        "{speaker}'s mobile carrier is {carrier}",
    ),
    (
        # "Our Comcast internet bill went up again".
        r"\b(?:my|our)\s+(?P<isp>" + named("isps") + r")\s+(?:internet|broadband|wifi|wi-fi|fibre|fiber|router|bill|"
        r"connection)\b",
        "home",
        "internet_provider",
        "{speaker}'s internet provider is {isp}",
    ),
    (
        # "My GP now is Dr. Amara Osei".
        r"\bmy\s+(?:new\s+)?(?:gp|doctor)\s+(?:now\s+)?is\s+(?:now\s+)?dr\.?\s+(?:(?-i:[A-Z])[\w'-]+\s+)?(?P<name>"
        r"(?-i:[A-Z])[\w'-]+)\b",
        "health",
        "doctor",
        "{speaker}'s doctor is Dr {name}",
    ),
    (
        # "Dr Okafor at the Elm Street surgery is lovely".
        r"(?:^|(?<=[,.;!]\s))(?:my\s+(?:gp|doctor),?\s+)?dr\.?\s+(?P<name>(?-i:[A-Z])[\w'-]+)\s+at\s+(?:the\s+)?"
        r"(?:[\w'-]+\s+){0,3}(?:surgery|practice|medical\s+centre|medical\s+center|health\s+centre|clinic)\b",
        "health",
        "doctor",
        "{speaker}'s doctor is Dr {name}",
    ),
    (
        # "Arsenal till I die", "I'm Boca all the way".
        r"(?:^|(?<=[,.;!]\s))(?P<team>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)\s+(?:till|until|'til|til)\s+i\s+die\b|"
        r"\b(?:i'm|im|i\s+am)\s+(?P<team2>(?-i:[A-Z])[\w'-]+)\s+all\s+the\s+way\b",
        "sports",
        "team",
        "{speaker} supports {team}",
    ),
    (
        # "the Mercadona where I work had a queue out the door", "I've been at Tanaka Seimitsu, the parts factory by
        # the river, since 2019".
        r"\b(?:the\s+)?(?P<org>" + _EMPLOYER + r")\s+where\s+i\s+(?:work|worked\s+for\s+(?:\d+|a\s+few)\s+years)\b|"
        r"^(?:i've|i\s+have)\s+been\s+(?:working\s+)?at\s+(?P<org2>"
        + _EMPLOYER
        + r")(?:,[^,]{1,60},)?\s+since\s+(?:19|20)\d\d\b",
        "work",
        "employer",
        "{speaker} works at {org}",
    ),
    (
        # Where the speaker works, said of the people or the shifts there: "my manager at Deloitte scheduled another
        # 7pm call", "our CTO at Monzo just announced…", "shift at Tesco again tomorrow", "officially a Bupa employee
        # as of today". Not a school ("my teacher at Lincoln High" names no work anyway).
        r"(?:^|(?<=[,.;!]\s)|\b(?:my|our)\s+(?:new\s+)?)(?:boss|manager|line\s+manager|supervisor|team\s+lead|"
        r"tech\s+lead|cto|ceo|cfo|coo|coworkers?|co-workers?|colleagues?|workmates?)\s+(?:over\s+)?at\s+(?:the\s+)?"
        r"(?P<org>" + _EMPLOYER + r")|"
        r"(?:^|(?<=[,.;!]\s)|\b(?:my|another)\s+)(?:(?:night|early|late|day|double|long|next|weekend|first)\s+)?"
        r"shifts?\s+at\s+(?:the\s+)?(?P<org2>" + _EMPLOYER + r")|"
        r"(?:^|(?<=[,.;!]\s)|\bi'm\s+|\bi\s+am\s+)(?:officially|now)\s+(?:a|an)\s+(?P<org3>" + _EMPLOYER + r")\s+"
        r"(?:employee|staffer)\b",
        "work",
        "employer",
        "{speaker} works at {org}",
    ),
    (
        # "my landlord in Leith still hasn't fixed the boiler", "our neighbours here in Didsbury are lovely".
        r"\b(?:my|our)\s+(?:new\s+)?(?:landlord|landlady|letting\s+agent|flatmates?|housemates?|roommates?|neighbou?rs?)\s+"
        r"(?:here\s+)?in\s+" + place("place", lower_case=False) + _NOT_A_STAY,
        "home",
        "residence",
        "{speaker} lives in {place}",
    ),
)


# The speaker's status said with their partner, or the car they have said by how it runs, whatever the sentence is
# for: "My wife and I are going to her parents' for Easter again", "married 15 years this june, any ideas?", "I'll
# drive, the Polo's got room for 4" (read in every sentence, a trip's or a plan's too: the status or the car holds
# however the sentence goes on).
SAID_ANYWAY: tuple[tuple[str, str, str, str], ...] = (
    (
        # "The Civic's making that rattling noise again", "my old Škoda Fabia is still going strong".
        r"(?:^|(?<=[,.;!]\s))(?:the|my|our)\s+(?:old\s+(?=[^.!?]*\bstill\b))?(?P<car>(?:"
        + named("cars", searched_first=True)
        + r")(?:\s+(?-i:[A-Z0-9])[\w-]*){0,2})(?:'s|\s+is|\s+has|\s+needs|\s+keeps|\s+won't|\s+just|\s+failed|"
        r"\s+broke)\s+(?!(?:gone|been\s+sold|sold|dead|written\s+off|history)\b)",
        "possessions",
        "car",
        "{speaker} drives a {car}",
    ),
    (
        # "Jamal and I got engaged over the holidays", "Anika and I are officially married now".
        r"(?:^|(?<=[,.;!]\s))(?-i:[A-Z][a-z]+)\s+and\s+i\s+(?:just\s+|finally\s+|officially\s+)?(?:got|are\s+(?:now\s+)?"
        r"(?:officially\s+)?|have\s+(?:just\s+)?got)\s*(?P<status>engaged|married)\b",
        "relationships",
        "relationship_status",
        "{speaker} is {status}",
    ),
    (
        # "married 15 years this june, any ideas for a crystal anniversary?", "my wife and I are celebrating…".
        r"(?:^|(?<=[,.;!]\s))(?:happily\s+)?married\s+(?:for\s+)?(?:\d+|a\s+few|two|three|four|five|six|seven|eight|nine|"
        r"ten|eleven|twelve|\w+teen|\w+ty|\w+ty[- ]\w+)\s+(?:years|yrs)\b|"
        r"(?:^|(?<=[,.;!]\s))(?:my\s+(?:husband|wife)(?:\s+(?-i:[A-Z])[a-z]+)?\s+and\s+i|me\s+and\s+my\s+(?:husband|wife))\b"
        r"(?![^.!?\n]{0,60}\b(?:split|separat\w*|divorc\w*|broke\s+up)\b)",
        "relationships",
        "relationship_status",
        "{speaker} is married",
    ),
    (
        # "I lost my husband Harold in March", "my wife passed away in the spring".
        r"\b(?:i|we)\s+lost\s+my\s+(?:husband|wife)\b(?!'s)(?!\s+(?:at|in\s+the\s+(?:crowd|shop|store)))|"
        r"(?:^|(?<=[,.;!]\s))my\s+(?:late\s+)?(?:husband|wife)(?:\s+(?-i:[A-Z])[a-z]+)?\s+(?:passed\s+away|died)\b",
        "relationships",
        "relationship_status",
        "{speaker} is widowed",
    ),
    (
        # "my boyfriend and I hit our 2 year anniversary next week, any gift ideas?".
        r"(?:^|(?<=[,.;!]\s))(?:my\s+(?:boyfriend|girlfriend|partner)\s+and\s+i|me\s+and\s+my\s+(?:boyfriend|girlfriend|"
        r"partner))\b(?![^.!?\n]{0,60}\b(?:split|separat\w*|broke\s+up|ended|over)\b)",
        "relationships",
        "relationship_status",
        "{speaker} is in a relationship",
    ),
)
