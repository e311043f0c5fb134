"""What the speaker says is gone from their life, named as they name it, whoever the clause's subject is.

`news.left_behind` reads a clause of the speaker's own ("I left Spotify"). People also tell it with the thing as
the subject, or in lower case, as chat is typed: "the ranger's gone mate", "Miso passed away", "chris moved out in
feb", "it's over with Rahul", "quit aldi", "dropped out of monash", "ditched hotmail", "sold the City to my cousin".
Each name is only a lead: the extraction run replaces the speaker's current facts that name it, and nothing else
(`memories.queries.memories_stating`), so a name no fact carries changes nothing. A common word ("work", "smoking")
is never a name, nor is what someone else of the speaker's left ("my sister quit Tesco").
"""

from __future__ import annotations

import re

from memoryadmin.extraction.strategies.offline.lexicon import RELATIONS, STOPWORDS, word_set
from memoryadmin.extraction.strategies.offline.news import no_change_of_the_speakers
from memoryadmin.extraction.strategies.offline.phrases import NAME, NOT_NOW, asks
from memoryadmin.extraction.strategies.offline.prefilter import Patterns
from memoryadmin.extraction.strategies.offline.shorthand import OWN_OPENING

# Words that join a name to what is around it and are never part of one typed in lower case.
_GLUE = (
    r"(?:to|of|out|and|or|on|in|at|for|with|from|that|this|these|those|a|an|the|my|our|up|down|off|back|away|more|"
    r"it|its|them|him|her|ever|anymore|again|now|today|yet|already|too|though|either|lol|tbh|is|was|are|were|be|been)"
)
# A proper name, or one word as chat types it: "the Corolla", "my redmi", "aldi"; a group after it ("the knitting
# circle") is what the name is of.
_THING = (
    r"(?:the\s+|my\s+|our\s+)?(?:(?:old|former|previous)\s+(?=(?-i:[A-Z])))?(?P<old>"
    + NAME
    + r"|(?!"
    + _GLUE
    + r"\b)[a-z0-9][\w&'-]*"
    r"(?:\s+(?!" + _GLUE + r"\b)"
    r"[a-z0-9][\w&'-]*){0,2}?)"
    r"(?:\s+(?:club|circle|group|league|choir|class|classes|team|band|membership))?"
)
# What follows a name that ends the clause: "quit aldi.", "ditched hotmail, too much spam", "sold the City to …".
_END = (
    r"(?=\s*(?:$|[^\w\s'&-]|[-–—](?:\s|$)|\s(?:and|so|bc|after|last|on|in|this|yesterday|today|for\s+good|"
    r"for(?!\s+(?:a\s+while|now|a\s+bit|the\s+(?:time\s+being|moment)|a\s+(?:week|month|few|couple)))|"
    r"now|honestly|to|lol|tbh|"
    r"when|because|as|since|before|with|house|flat|apartment|place|condo|membership|account|contract|plan|"
    r"subscription|thing|stuff|for\s+me|any\s+day|i|i've|i'm|we|we've|we're|was|is|were|ages|years|months|"
    r"weeks|ago|finally|already|\d+)\b))"
)
# Where a clause with the thing as its subject may begin: "Since the Mazda got written off…".
_AFTER = r"(?:\b(?:and|so|but|since|after|when|now\s+that|ever\s+since|fyi|btw|ok|okay|well)\s+|^|[,.;!(]\s*)"
# The thing as the subject of what ended it: "Miso passed away", "the Hilux finally died", "Kiwi escaped".
_SUBJECT_GONE = (
    _AFTER
    + _THING
    + r"\s+(?:finally\s+|just\s+)?(?:died|passed\s+away|passed|escaped|ran\s+away|flew\s+off|flew\s+away|"
    r"went\s+missing|moved\s+out|moved\s+away|(?:finally\s+)?got\s+retired|didn't\s+survive|did\s+not\s+survive|went\s+to\s+(?:a|the)\s+(?:\w+\s+)?"
    r"(?:rescue|shelter|sanctuary|farm|new\s+home)|"
    r"went\s+to\s+live\s+with|got\s+stolen|"
    r"was\s+stolen|was\s+written\s+off|got\s+written\s+off|got\s+totaled|got\s+totalled|folded|closed\s+down|shut\s+(?:its|their)\s+doors|shut\s+down|went\s+bust|went\s+under|"
    r"gave\s+up\s+on\s+me|died\s+on\s+me|gave\s+up\s+the\s+ghost|packed\s+in|packed\s+up|conked\s+out|"
    r"bit\s+the\s+dust|"
    r"called\s+off\s+the\s+engagement|broke\s+up\s+with\s+me|dumped\s+me|"
    r"left\s+me(?!\s+(?:a|an|the|some|with|on|at|in|alone|for|hanging|speechless|out|to)\b)|went\s+to\s+(?:my|our)\s+"
    r"(?:\w+\s+)?(?:nephew|niece|son|daughter|brother|sister|cousin|friend|parents|mum|mom|dad))\b"
)
# "goodbye virgin, won't miss you"; not a trip's farewell ("goodbye London, two weeks in Tokyo!").
_FAREWELL = (
    r"\b(?:goodbye|bye\s+bye|bye|farewell|so\s+long|(?:had\s+to\s+)?say\s+goodbye\s+to|said\s+goodbye\s+to)\s+"
    + _THING
    + _END
)
_TRIP = re.compile(
    r"\b(?:holiday|holidays|vacation|trip|hols|see\s+you\s+(?:soon|next|in)|until\s+next|back\s+(?:on|in|next|soon)|"
    r"(?:for\s+)?(?:a|the|one|two|three|four|\d+)\s+(?:night|day|week|month|weekend)s?\s+(?:in|at|away|off)|"
    r"for\s+(?:a|the|two|three|\d+)\s+(?:night|day|week|month|weekend)s?)\b",
    re.IGNORECASE,
)
_INSTEAD = (
    r"^(?![^.!?]*\b(?:this|next|on)\s+(?:easter|christmas|time|once|week|weekend|sunday|saturday|friday|year|trip|"
    r"holiday|occasion)\b|[^.!?]*\b(?:today|tonight|tomorrow)\b)[^.!?]*?\binstead\s+of\s+" + _THING + _END
)
# Leaving done by someone: "Tom left Google", "Half my department has left Tesco", "My in-laws have switched from…".
_AGENT_VERB = re.compile(
    r"\s*\b(?:left|quit|switched|moved|converted|transferred|defected|ported|changed|stopped|cancell?ed|dropped|"
    r"ditched|dumped|sold|closed|gave\s+up)\b",
    re.IGNORECASE,
)
_LEAVER = re.compile(
    r"(?:\b(?P<pronoun>he|she|they|everyone|everybody|people|someone|somebody|half|most)|"
    r"\b(?:my|our|his|her|their)\s+(?:[\w'-]+\s+){0,2}?(?P<relation>[\w'-]+)|\b(?P<name>(?-i:[A-Z])[a-z][\w'-]*))"
    r"(?:\s+(?:has|have|had|just|finally|also|both|recently|already|all))*\s*$",
    re.IGNORECASE,
)


def _someone_else(opening: str) -> bool:
    """Whether the words before a leaving verb name someone else as who leaves."""
    who = _LEAVER.search(opening)
    if who is None:
        return False
    if who.group("name"):
        return who.group("name").lower() not in OWN_OPENING and who.group("name") not in ("Im", "Ive")
    return who.group("relation") is None or who.group("relation").lower() != "own"


GONE = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # The thing as the subject: "the ranger's gone", "Miso passed away", "the mini died", "chris moved out".
        _AFTER + _THING + r"(?:'s|\s+is|\s+are|\s+has|\s+have)\s+(?:finally\s+|long\s+|officially\s+|now\s+)?"
        r"(?:gone|dead|no\s+more|done\s+for\s+me|over\s+for\s+me|off\s+the\s+table|behind\s+me|history|a\s+distant\s+memory|"
        r"old\s+news|sold|a\s+thing\s+of\s+the\s+past|going\s+in\s+the\s+drawer|going\s+on\s+(?:ebay|marketplace|"
        r"gumtree|vinted|craigslist|facebook\s+marketplace)|up\s+for\s+sale)\b",
        # An account closed, not a place closed for a while: "SBI one is closed", not "my F45 is closed for renos".
        _AFTER + r"(?:the\s+|my\s+|our\s+)?(?P<old>" + NAME + r"|[a-z0-9][\w&'-]*)\s+(?:account|one)(?:'s|\s+is|"
        r"\s+has\s+been|\s+got)\s+(?:now\s+)?closed\b",
        _AFTER + _THING + r"\s+era\s+is\s+over\b",
        # "Bath feels like a lifetime ago honestly".
        _AFTER + _THING + r"\s+(?:feels|seems)\s+like\s+(?:a\s+lifetime|forever|ages|another\s+life)\s+ago\b",
        # "dubai chapter closed", "goodbye virgin, won't miss you".
        _AFTER
        + _THING
        + r"\s+(?:chapter|era|days|experiment)\s+(?:is\s+|'s\s+)?(?:officially\s+)?(?:closed|over|done|finished)\b",
        # "leaving jimmy's was the right call", "handed the keys back on the bristol flat".
        r"\bleaving\s+"
        + _THING
        + r"\s+(?:was|has\s+been|is)\s+(?:the\s+)?(?:best|right)\s+(?:call|decision|choice|move|"
        r"thing)\b(?!.*\b(?:my|his|her|their|your)\s+\w+\s+(?:ever\s+)?(?:did|made)\b)",
        r"\bhanded\s+(?:back\s+)?(?:the\s+)?keys\s+(?:back\s+)?(?:on|for|to)\s+(?:the|my|our)\s+"
        + _THING
        + r"\s+(?:flat|house|place|apartment)\b",
        _FAREWELL,
        _SUBJECT_GONE,
        # A doctor who retired: "Dr Patel retired so I'm with Dr Osei now".
        _AFTER + r"(?P<old>(?:Dr|Doctor)\.?\s+[a-z][\w'-]+)\s+(?:has\s+|just\s+)?retired\b",
        # The speaker ends it: "it's over with Rahul", "me and priya broke up", "put Miso down", "rehomed Gerald".
        r"\b(?:it's|it\s+is)\s+over\s+(?:with|between\s+me\s+and)\s+" + _THING + _END,
        r"\bme\s+and\s+"
        + _THING
        + r"\s+(?:broke\s+up(?!\s+(?:the|a|an|some|it|my|our)\b)|split(?:\s+up)?(?!\s+(?:the|a|an|"
        r"some|it|my|our)\b)|ended\s+things|called\s+it\s+quits)\b",
        r"\b(?:broke\s+up|split\s+up|ended\s+things)\s+with\s+" + _THING + _END,
        r"\b(?:put|had)\s+" + _THING + r"\s+(?:down|put\s+down|put\s+to\s+sleep)\b",
        r"\b(?:rehomed|re-homed|buried|sold|flogged|ditched|dumped|quit|stopped|cancell?ed|gave\s+up(?:\s+on)?|given\s+up(?:\s+on)?|"
        r"got\s+rid\s+of|gotten\s+rid\s+of|gave\s+back|"
        r"handed\s+back|returned|dropped|dropped\s+out\s+of|pulled\s+out\s+of|moved\s+on\s+from|finished\s+with|"
        r"done\s+with|left|switched\s+from|moved\s+from|traded\s+in|traded|replaced)\s+" + _THING + _END,
        r"\b(?:traded|swapped|sold)\s+" + _THING + r"\s+(?:in\s+)?(?:for|on)\b",
        r"\b(?:traded|swapped|part[- ]exchanged)\s+in\s+" + _THING + r"\s+for\b",
        r"\bmoved\s+(?:all\s+)?(?:my|our)\s+(?:\w+\s+){0,2}?(?:account|accounts|money|banking)\s+from\s+"
        + _THING
        + _END,
        r"\bdropped\s+" + _THING + r"\s+(?:for|down|in)\b",
        r"\bno\s+more\s+" + _THING + _END,
        r"\b(?:rip|r\.i\.p\.?)\s+(?:my\s+|our\s+|sweet\s+)?" + _THING + _END,
        r"\bme\s+and\s+"
        + _THING
        + r"\s+(?:are\s+(?:done|over|finished|through)(?!\s+\w+ing)|called\s+it\s+(?:off|quits|a\s+day))\b",
        r"\b(?:had\s+to\s+)?(?:rehome|re-home)\s+" + _THING + _END,
        r"\b(?:don't|do\s+not|no\s+longer)\s+(?:play|drive|use|go\s+to|support|eat|have|own|ride|work\s+(?:at|for)|"
        r"shop\s+at|bank\s+with|live\s+in|train\s+at|study\s+at|attend|see)\s+(?:the\s+)?"
        + _THING
        + r"\s+(?:anymore|any\s+more)\b",
        r"\b(?:ripped\s+up|tore\s+up|didn't\s+renew|did\s+not\s+renew)\s+(?:my\s+|the\s+)?" + _THING + _END,
        # The old one compared: "so much more room than the i30 had", "way more romantic than Daniel ever was".
        r"\bthan\s+(?:the\s+|my\s+)?(?:old\s+)?" + _THING + r"\s+(?:ever\s+)?(?:had|was|did|could)\b",
        r"\bcompared\s+to\s+(?:my|the)\s+(?:old\s+)?" + _THING + _END,
        r"\b(?:banned|stopped)\s+me\s+from\s+" + _THING + _END,
        r"\b(?:guy|woman|man|lady|someone|somebody|buyer|person)\s+(?:who\s+)?bought\s+my\s+"
        + _THING
        + r"\s+(?:already|has|had|is|was|just|sent|took|drove)\b",
        # Dead to the speaker: "After that trade the Raptors are dead to me".
        r"\b(?:the\s+)?(?P<old>" + NAME + r")\s+(?:is|are|'s)\s+dead\s+to\s+me\b",
        r"\b(?:switched|moved)\s+over\s+from\s+" + _THING + _END,
        r"(?:^|[,.;!]\s*)" + _THING + r"(?:'s|\s+is|\s+are)\s+(?:a\s+)?(?:close\s+)?second\b",
        # "…it's officially my favourite now, Inception second".
        r"\b(?:favou?rite|fave|number\s+one|\#1)\b[^.!?]*?[,;]\s*" + _THING + r"\s+second\b",
        r"\b(?:separat(?:ed|ing)|split(?:ting)?\s+up|graduated|graduating|laid\s+off|let\s+go|fired|kicked\s+out|"
        r"dropped\s+out|resigned)\s+from\s+" + _THING + _END,
        r"\b(?:since|after)\s+(?:leaving|quitting|dropping|selling|losing)\s+" + _THING + _END,
        r"\bthings\s+with\s+" + _THING + r"\s+(?:(?:are|is)\s+over|ended|are\s+done)\b",
        r"\b(?:stop|stopped|had\s+to\s+stop|quit|given\s+up|giving\s+up)\s+(?:playing|going\s+to|using|driving|doing|"
        r"shopping\s+at|banking\s+with|seeing|following|supporting)\s+"
        r"(?:the\s+)?" + _THING + _END,
        r"\b(?:gave|given|lent|sold)\s+(?:(?:the|my)\s+)?" + _THING + r"\s+(?:away|to\s+(?:a|my|the|our)\b)",
        # A pet gone to live elsewhere, or lost: "Mochi lives with my mom now", "We lost Hector in the autumn".
        _AFTER + _THING + r"\s+(?:lives|is\s+living|stays)\s+with\s+(?:my|our)\s+\w+\s+now\b",
        r"\b(?:we|i)\s+lost\s+(?:our\s+|my\s+)?(?P<old>(?-i:[A-Z])[a-z]+)\s+(?:in|last|this|on|to|after|a\s+(?:few|couple)|\d+|two|three|,|\.)",
        r"\b(?:closed|shut)\s+(?:down\s+)?(?:everything|all\s+my\s+accounts?|my\s+accounts?)\s+(?:at|with)\s+"
        + _THING
        + _END,
        r"\b(?:shut\s+down|closed)\s+(?:the|my|our)\s+" + _THING + r"\s+(?:one|account|accounts)\b",
        r"\b(?:ended|cancell?ed|stopped|let|closed)\s+(?:the|my|our)\s+"
        + _THING
        + r"\s+(?:membership|subscription|account)\b",
        r"\b" + _THING + r"(?:\s+(?:centre|center|gym|club|studio))?\s+(?:membership|subscription)\s+"
        r"(?:cancell?ed|ended|over|gone)\b",
        r"\b(?:took|taken)\s+the\s+top\s+spot\s+from\s+" + _THING + _END,
        _AFTER + _THING + r"(?:'s|\s+has|\s+have)\s+been\s+(?:demoted|dethroned|replaced)\b",
        r"\b(?:i'm|i\s+am|im)\s+(?:so\s+|totally\s+|completely\s+)?over\s+" + _THING + _END,
        # Over with someone: "Raj and I are done", "Keiko and I called it off".
        _AFTER
        + _THING
        + r"\s+and\s+i\s+(?:are\s+(?:long\s+|so\s+|totally\s+|well\s+and\s+truly\s+)?(?:done|over|finished|through)|"
        r"broke\s+up|split(?:\s+up)?|"
        r"(?:have\s+|'ve\s+)?(?:finally\s+|officially\s+)?(?:separated|divorced)|(?:have\s+|'ve\s+)?(?:decided\s+to\s+)?"
        r"call(?:ed)?\s+it\s+(?:off|quits|a\s+day)|ended\s+things|are\s+no\s+more|"
        r"(?:went|have\s+gone|'ve\s+gone)\s+(?:our\s+)?separate\s+ways)\b",
        # "The divorce from Sarah was finalised", "Santander let me go", "the Enfield had to go".
        r"\bdivorce\s+from\s+" + _THING + r"\s+(?:was|is|has\s+been|came|went)\s+(?:finali[sz]ed|final|through)\b",
        _AFTER + _THING + r"\s+(?:let\s+me\s+go|laid\s+me\s+off|fired\s+me|made\s+me\s+redundant)\b",
        _AFTER + r"(?:the|my|our)\s+(?P<old>" + NAME + r")\s+had\s+to\s+go\b",
        # Replaced in the speaker's affection: "has replaced Mamma Mia as my favourite", "taken ABBA's place".
        r"\b(?:replaced|overtaken|overtook|dethroned|knocked)\s+" + _THING + r"\s+(?:as|off|from|for\s+me)\b",
        r"\bforget\s+about\s+" + _THING + _END,
        r"\blast\s+(?:day|shift)\s+at\s+" + _THING + _END,
        r"\bhanded\s+(?:in\s+)?(?:my\s+)?notice\s+(?:in\s+)?(?:at|to)\s+" + _THING + _END,
        r"\bput\s+(?:the|my)\s+" + _THING + r"\s+away\b",
        r"\bput\s+" + _THING + r"\s+on\s+hold\b(?=[^.!?]*\b(?:switched|instead|started|signed\s+up))",
        r"\bhung\s+up\s+(?:my|the)\s+(?P<old>[a-z]+)\s+(?:boots|gloves|skates|racket|racquet|cleats|spikes)\b",
        r"\b(?:switched|transferred)\s+out\s+of\s+" + _THING + _END,
        r"\b" + _THING + r"\s+number\s+(?:doesn't|does\s+not|no\s+longer)\s+work",
        r"\b(?:taken|took)\s+" + _THING + r"(?:'s)?\s+place\b",
        r"\bruined\s+" + _THING + r"\s+for\s+me\b",
        r"\bwent\s+off\s+" + _THING + _END,
        # Not there any more: "I'm not at Ambev anymore", "no longer with Vodafone".
        r"\b(?:i'm|i\s+am|im|we're|we\s+are)\s+not\s+(?:at|with|on|in)\s+" + _THING + r"\s+(?:anymore|any\s+more)\b",
        r"\bno\s+longer\s+(?:at|with|on|in)\s+" + _THING + _END,
        r"\b(?:i|we)\s+no\s+longer\s+(?:live|work|bank|study|train|shop)\s+(?:in|at|for|with)\s+" + _THING + _END,
        # Moved from it, whatever was moved: "moved everything from TD to Tangerine", "converted from tennis"; not
        # money moved between accounts ("transferred $200 from Chase").
        r"\b(?:switched|moved|converted|transferred|defected|ported|changed)\s+(?!(?:money|cash|funds|\$|\d)\b)"
        r"(?:(?!(?:money|cash|funds)\b)[\w']+\s+){0,2}?from\s+" + _THING + _END,
        # Chosen over it: "learning piano now instead of guitar", "Storm alerts instead of Broncos"; not for one
        # occasion ("the cathedral this Easter instead of St Anne's").
        _INSTEAD,
        # A home whose lease ended: "my Singapore lease ended".
        r"\b" + _THING + r"\s+(?:lease|tenancy|rental)\s+(?:ended|ran\s+out|is\s+up|expired|finished)\b",
        # An account closed: "The Scotiabank accounts are closed", "Santander is closed", "commbank closed 🙌"; not a
        # place closed for a while ("the gym is closed for renos").
        _AFTER
        + r"(?:the\s+|my\s+|our\s+)?(?P<old>"
        + NAME
        + r"|[a-z0-9][\w&'-]*)(?:\s+accounts?)?\s+(?:(?:is|are|was|has\s+been|have\s+been|got)\s+(?:now\s+)?)?closed\b"
        r"(?!\s+(?:for|on|until|till|today|tonight|this|over|due|early|at|in|down|off))",
        # The badge handed back: "Handed my Google badge back on Friday".
        r"\bhanded\s+(?:in\s+)?(?:my|the)\s+" + _THING + r"\s+(?:badge|lanyard|pass|laptop|keys)\s+(?:back|in)\b",
        r"\bnot\s+going\s+back\s+to\s+"
        + _THING
        + _END
        + r"(?![^.!?]*\b(?:this|next)\s+(?:year|summer|winter|week|weekend|time|trip|holiday|christmas|easter)\b)",
        # A membership that ended: "my YMCA membership ran out".
        r"\b" + _THING + r"\s+(?:membership|subscription|contract)\s+(?:ran\s+out|expired|lapsed|ended)\b",
    )
)
# Words that are never the name of something the speaker had, whatever the pattern.
_NOT_NAMES = (
    STOPWORDS
    | RELATIONS
    | word_set(
        """it them him her that this everything something anything all job jobs work office house flat home place
    apartment car phone school uni college gym team band course class classes lessons studio company firm shop store
    day night
    week month year weekend time smoking drinking sugar meat dairy alcohol booze coffee caffeine bread carbs twitter
    instagram facebook tiktok social media way stuff thing things plan plans idea city town country area one ones
    boyfriend girlfriend husband wife partner dog cat pet kids kid baby mum mom dad parents family friends friend
    contract lease deal number email account membership subscription line sim diet habit hobby project degree major
    minor keys key bag wallet laptop computer bike pc tv me us you myself early late out up down off over back open
    alone behind there here town centre center"""
    )
)
# Words that may begin a name ("Old Wesley", "New Look") but are none alone: "sold the old one".
_NOT_ALONE = word_set("old new current previous first last other")
# What a name typed in lower case is of, not part of it: "the natwest account's gone", "SBI one is closed".
_OF_A_NAME = word_set("account one sim contract plan membership subscription card number")
# Common words that end a place's name typed in lower case: "smile studio", "the riverside centre".
_ENDS_A_NAME = word_set("studio centre center club gym school college")
# Gone for a while only: "Pepe escaped for 2 hours today!! found him in the neighbour's tree".
_BACK = re.compile(
    r"\bfound\s+(?:him|her|it|them)\b|\b(?:came|come|is|'s|are|got)\s+(?:back|home)\b|\bback\s+home\b|"
    r"\b(?:he|she|it)(?:'s|\s+is)\s+(?:fine|ok|okay|safe)\b",
    re.IGNORECASE,
)
_NEGATED_BEFORE = re.compile(
    r"\b(?:haven't|havent|hasn't|didn't|didnt|don't|dont|won't|wont|not|never|nobody|wouldn't|can't)\s+(?:\w+\s+)?$",
    re.IGNORECASE,
)
# A thing dropped and broken, not given up: "Dropped my OnePlus and cracked the screen".
_DAMAGED = re.compile(r"\b(?:cracked|smashed|shattered|broke|broken|screen|repair|fixed|floor|toilet)\b", re.IGNORECASE)
_CLAUSE_OPENS = re.compile(
    r"[,;]\s*(?:(?:and|but|so|then)\s+)?|\s+(?:and|but|so|then|since|because|as|when|after)\s+", re.IGNORECASE
)
_NEW_SUBJECT = re.compile(r"\s*(?:i|i'm|i've|i'd|we|we're|we've|he|she|they|my|our)\b", re.IGNORECASE)
_SEARCHED = Patterns((pattern, None) for pattern in GONE)
_WHO = re.compile(r"(?:^|[,;]\s*)(?:the\s+)?(?P<old>" + NAME + r"|[a-z][\w'-]+)\s+who\?+$", re.IGNORECASE)
_SENTENCES = re.compile(r"(?<=[.!?;])(?<!\.\.\.)\s+|\n+")


def gone_in(content: str) -> list[str]:
    """The names of what the speaker says is gone from their life in a message ("the ranger's gone" -> ["ranger"])."""
    names: list[str] = []
    # Most messages hold none of the words any pattern requires, and ask after no one: nothing is searched.
    patterns = [pattern for pattern, _ in _SEARCHED.possible(content)]
    if not patterns and "who?" not in content.lower():
        return names
    back = bool(_BACK.search(content))
    damaged = bool(_DAMAGED.search(content))
    for sentence in _SENTENCES.split(content):
        if not sentence:
            continue
        if asks(sentence):
            # "Radiohead who?": the one asked after is forgotten, not asked about.
            who = _WHO.search(sentence.strip())
            names.extend([who.group("old")] if who else [])
            continue
        for pattern in patterns:
            for match in pattern.finditer(sentence):
                name = match.group("old").rstrip(".'")
                if back and pattern.pattern == _SUBJECT_GONE:
                    continue
                # "Haha no I haven't quit Ericsson", "Dropped my OnePlus and cracked the screen".
                if _NEGATED_BEFORE.search(sentence[max(0, match.start() - 30) : match.start()]):
                    continue
                if damaged and sentence[match.start() : match.start() + 8].lower().startswith("dropped"):
                    continue
                if pattern.pattern == _FAREWELL and _TRIP.search(content):
                    continue
                if name.lower().removesuffix("'s") in _NOT_NAMES or len(name) < 2:
                    continue
                # Typed in lower case, a name may run to three words ("the arctic monkeys as my number one", "left
                # smile studio"), never from a common word ("left work early"); what it is of goes ("natwest account").
                words = name.split()
                # "…yet, but Kenji and I split up": a joining word before the name is not of it.
                while len(words) > 1 and words[0].islower() and words[0] in _NOT_NAMES and words[1][:1].isupper():
                    words = words[1:]
                name = " ".join(words)
                # Spelt as a name ("Home Depot", "Great Clips"), it is one whatever its words.
                if (
                    len(words) > 1
                    and not all(w[:1].isupper() for w in words)
                    and (words[0].lower() in _NOT_NAMES or words[-1].lower() in _NOT_NAMES - _ENDS_A_NAME - _OF_A_NAME)
                ):
                    continue
                if len(words) > 1 and words[-1].lower() in _OF_A_NAME:
                    name = " ".join(words[:-1])
                if name.lower() in _NOT_ALONE:
                    continue
                # "Tom left Google", "Half my department has left Tesco": the one who leaves is not the speaker.
                if _AGENT_VERB.match(sentence, match.start()) and _someone_else(sentence[: match.start()]):
                    continue
                # "…, and my sister quit Infosys": the clause the name stands in has someone else as its subject.
                opens = _CLAUSE_OPENS.split(sentence[: match.start() + 1])[-1]
                # "Ditched Spotify, just for a month": for a while from its clause on; not "Remind me tomorrow, I
                # switched from Home Depot", whose earlier clause is another matter.
                # Up to the clause's end: "Mateo and I are long done, and I've been seeing Jonas for a month" ends
                # Mateo for good.
                rest = sentence[match.end() :]
                after = _CLAUSE_OPENS.search(rest)
                ends_here = after is not None and _NEW_SUBJECT.match(rest, after.end()) is not None
                clause = sentence[
                    match.start() + 1 - len(opens) : match.end() + (after.start() if ends_here else len(rest))
                ]
                if NOT_NOW.search(clause):
                    continue
                if no_change_of_the_speakers((opens + sentence[match.start() + 1 : match.end()]).strip(" ,;.!")):
                    continue
                names.append(name.removesuffix("'s"))
    return list(dict.fromkeys(names))
