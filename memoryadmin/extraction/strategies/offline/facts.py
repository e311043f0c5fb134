"""What kind of fact a clause about the speaker states, and which single-valued attribute it sets.

`classify` reads a first-person clause ("I moved to Paris last month") and says what it is: its memory type
(semantic, episodic, preference), a topic, and, for facts of which a person has one at a time, the attribute a newer
statement replaces ("residence": "I live in Lyon" then "I moved to Paris"); a clause no pattern knows, the strategy.

Attributes (docs/extraction.md lists them): residence, employer, occupation, partner, school, car, diet, phone…;
other facts (trips, pets, plans, family) have none. `changes` and `milestones` read changes told as news.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memoryadmin.extraction.strategies.offline.lexicon import (
    INSTRUMENTS,
    OWNS_A_THING,
    PETS,
    PROFESSIONS,
    RELATIONS,
    THING_OF,
    TOPICS,
    favourite_attribute,
    word_set,
)
from memoryadmin.extraction.strategies.offline.names import not_a_provider
from memoryadmin.extraction.strategies.offline.phrases import NOT_A_STATE, NOT_FOR_A_SERVICE
from memoryadmin.extraction.strategies.offline.plain import STATED
from memoryadmin.extraction.strategies.offline.prefilter import Patterns
from memoryadmin.extraction.strategies.offline.providers import PROVIDERS
from memoryadmin.extraction.strategies.offline.things import NOT_A_NEW_ONE, owned_thing
from memoryadmin.memories.models import MemoryType

_ADV = (
    r"(?:(?:really|also|just|finally|recently|actually|still|totally|kinda|officially|now|currently|already|even|"
    r"only|both|all|basically|originally|happily|full[- ]time|part[- ]time|mostly|usually|always|often|sometimes|"
    r"so|absolutely|definitely|truly|genuinely|especially|particularly|quite|do|did|literally|seriously|"
    r"newly|since|fully|strictly)\s+)*"
)
_I = r"^(?:i|we)\s+" + _ADV
_AM = r"^(?:i'm|i\s+am|we're|we\s+are)\s+" + _ADV
_HAVE = r"^(?:i've|i\s+have|we've|we\s+have)\s+" + _ADV
# A school by its name: "Lincoln High", "Monash University"; where one starts is no employer.
_A_SCHOOL = (
    r"(?-i:[A-Z])[\w'.&-]*(?:\s+(?-i:[A-Z])[\w'.&-]*){0,3}\s+(?-i:University|College|School|High|Academy|Uni|"
    r"Elementary|Primary|Institute)\b"
)


@dataclass(frozen=True)
class Kind:
    """What a clause states: its memory type, a topic, and the attribute it sets, if any."""

    memory_type: str
    topic: str
    attribute: str = ""
    # The pattern means what it means with its negation ("I don't eat meat", "I can't stand jazz").
    negation_ok: bool = False
    # A possession or place read from the clause ("Prius", "Paris"), for the entities.
    value: str = ""


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# (pattern, kind) in order; the first that matches decides. A kind with an attribute of "*" is
# completed by the code below (possessions name their category, favourites what they are of).
_PATTERNS: tuple[tuple[re.Pattern[str], Kind], ...] = (
    (_rx(r"^my\s+(?:first\s+|full\s+|real\s+)?name(?:'s|\s+is)\s+\w"), Kind(MemoryType.SEMANTIC, "identity", "name")),
    (
        _rx(r"^(?:people\s+|everyone\s+|friends\s+|you\s+can\s+)?call\s+me\s+(?!at\b|on\b)\w|^i\s+go\s+by\s+\w"),
        Kind(MemoryType.SEMANTIC, "identity", "name"),
    ),
    (
        _rx(
            r"^my\s+(?:new\s+)?(?:phone\s+|cell\s+|mobile\s+|cell\s+phone\s+|contact\s+)?number(?:'s|\s+is|\s*:)\s+"
            r"(?:now\s+)?\+?\(?\d|"
            r"^my\s+(?:new\s+)?(?:cell|mobile)(?:'s|\s+is)\s+(?:now\s+)?\+?\(?\d|"
            + _I
            + r"(?:changed|got\s+a\s+new)\s+(?:my\s+)?(?:phone\s+|cell\s+|mobile\s+)?number\b"
        ),
        Kind(MemoryType.SEMANTIC, "contact", "phone_number"),
    ),
    (
        _rx(
            r"^my\s+(?:new\s+)?(?:personal\s+)?e-?mail(?:\s+address)?(?:'s|\s+is)\s+(?:now\s+)?\S+@|"
            + _I
            + r"(?:changed|switched)\s+my\s+e-?mail(?:\s+address)?\s+to\s+\S+@"
        ),
        Kind(MemoryType.SEMANTIC, "contact", "email"),
    ),
    (
        _rx(
            _AM
            + r"\d{1,3}(?:\s+years?\s+old|\s*yo)?\s*(?:$|,|\s+(?:and|but|so|now|today|this)\b)|"
            + _I
            + r"turned\s+\d{1,3}\b"
        ),
        Kind(MemoryType.SEMANTIC, "identity", "age"),
    ),
    (
        _rx(
            _I
            + r"(?:live|reside)\s+in\s|"
            + _AM
            + r"(?:living|residing|based|located|settled)\s+in\s"
            + NOT_A_STATE
            + "|"
            + _HAVE
            + r"(?:been\s+)?(?:living|lived|based)\s+in\s|"
            + r"^(?:i|we)(?:'ve|\s+have)?\s+"
            + _ADV
            # "I finally packed up and moved to Glasgow".
            + r"(?:(?:packed\s+up|upped\s+sticks|sold\s+up|took\s+the\s+plunge)\s+and\s+)?"
            # A place ("moved to cork"), not "moved to keys", a team, a gym or a provider ("to Virgin for broadband").
            + r"(?:moved|relocated|shifted|emigrated|immigrated)\s+(?:(?:back|home|up|down|over)\s+){0,2}"
            r"(?:from\s+(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*){0,2}\s+)?to\s+"
            r"(?!(?:the\s+)?(?:[\w'-]+\s+){0,3}(?:gym|office|team|department|branch|shift|class|course|programme|"
            r"program|studio|club|league|ward|site|campus|store|role|position|chat|group|channel|server)\b)"
            + NOT_FOR_A_SERVICE
            + NOT_A_STATE
            + not_a_provider()
            + r"(?!(?:a|an|my|our|his|her|their|this|that|it|another|remote|"
            r"nights|days|part[- ]time|full[- ]time|"
            + INSTRUMENTS
            + r")\b)(?![a-z]+ing\b)|"
            + _I
            + r"(?:live|reside)\s+(?:just\s+)?(?:outside|near|close\s+to|by)\s+(?-i:[A-Z])|"
            # "My flat in Leeds is freezing": where the speaker's home is, said in passing.
            r"^(?:my|our)\s+(?:new\s+)?(?:house|flat|apartment|place|home|condo)\s+in\s+(?-i:[A-Z])|"
            + _I
            + r"(?:rent|own|share)\s+(?:a|an|our|my)\s+(?:[\w-]+\s+){0,2}(?:place|flat|room|apartment|house|studio|"
            r"piso|condo|duplex|bungalow|cottage|[1-4]\s?bhk)"
            r"\s+in\s+(?-i:[A-Z])"
        ),
        Kind(MemoryType.SEMANTIC, "home", "residence"),
    ),
    (
        _rx(r"^(?:i|we)(?:'ve|\s+have)?\s+" + _ADV + r"moved\s+into\s+(?:a|an|my|our|the)\s+(?:new\s+)?\w+"),
        Kind(MemoryType.EPISODIC, "home", "home"),
    ),
    (
        _rx(
            _AM + r"(?:originally\s+)?from\s|" + _I + r"(?:come|came)\s+from\s|^i\s+grew\s+up\s+in\s|"
            r"^i\s+was\s+born\s+(?:and\s+raised\s+)?in\s"
        ),
        Kind(MemoryType.SEMANTIC, "origin", "origin"),
    ),
    (
        _rx(
            r"^i\s+"
            + _ADV
            + r"work\s+(?:at|for)\s|"
            + _AM
            + r"(?:working|driving|delivering)\s+(?:at|for)\s|"
            + _HAVE
            + r"been\s+working\s+(?:at|for)\s|"
            + _AM
            + r"employed\s+(?:at|by)\s|"
            + _I
            + r"(?:got|started|landed|accepted|took)\s+(?:a|an|my|the)\s+(?:new\s+)?"
            r"(?:full[- ]time\s+|part[- ]time\s+)?(?:job|position|role|internship|gig)\s+(?:at|with|in)\s|"
            + _I
            + r"(?:got|was|have\s+been|'ve\s+been)\s+hired\s(?!as\b)|"
            + _I
            + r"(?:accepted|took)\s+(?:an?\s+|the\s+)?(?:job\s+)?offer\s+(?:from|at|with)\s|"
            + _I
            + r"(?:started|began)\s+(?:working\s+)?(?:at|for)\s+(?:the\s+)?(?!"
            + _A_SCHOOL
            + r")(?-i:[A-Z])|"
            # "starting at the Sainsbury's on Holloway Rd monday".
            + _AM
            + r"starting\s+(?:work\s+|a\s+(?:new\s+)?job\s+)?at\s+(?:the\s+)?(?!"
            + _A_SCHOOL
            + r")(?-i:[A-Z])|"
            + _I
            + r"(?:switched|moved)\s+to\s+(?:working|driving|delivering)\s+for\s+(?-i:[A-Z])|"
            # "I joined Shopify", "I left IBM and joined Microsoft": a capitalised name, not a club or an app.
            r"^(?:i|we)\b(?:(?!\b(?:gym|club|choir|team|class|league|group|band|app)\b).)*?\bjoined\s+"
            # Not a gym of the lexicon ("I joined PureGym").
            + not_a_provider("gyms")
            + r"(?-i:[A-Z])(?!.*\b(?:gym|fitness|club|choir|team|class|league|group|band|app)\b)"
        ),
        Kind(MemoryType.SEMANTIC, "work", "employer"),
    ),
    (
        _rx(
            _I
            + r"(?:lost|quit|left)\s+my\s+(?:\w+\s+)?job\b|"
            + _I
            + r"(?:got|was)\s+(?:fired|laid\s+off|let\s+go)\b|"
            + _I
            + r"retired\b(?!\s+(?:the|my|our|a|an|it|them|that|this|his|her)\b)|"
            + _AM
            + r"(?:retired|unemployed|between\s+jobs|out\s+of\s+work)\b"
        ),
        Kind(MemoryType.EPISODIC, "work", "employer", negation_ok=True),
    ),
    (
        _rx(
            _I + r"(?:go|went|transferred|moved)\s+to\s+(?:the\s+)?(?-i:(?:[A-Z][\w'.-]*\s+){0,4}"
            r"(?:High|School|College|University|Academy|Institute|Uni|Polytechnic|Prep|Elementary|Middle))\b|"
            + _I
            + r"transferred\s+to\s+(?-i:[A-Z])|"
            + _I
            + r"got\s+(?:into|accepted\s+(?:into|to|at))\s+(?-i:[A-Z])|"
            + _AM
            + r"(?:studying|enrolled|a\s+(?:\w+\s+)?student)\s+at\s|"
            + _AM
            + r"(?:in\s+year\s+\d+\s+)?at\s+(?:the\s+)?(?-i:(?:[A-Z][\w'.-]*\s+){0,4}"
            r"(?:High|School|College|University|Academy|Institute|Polytechnic|Elementary|Middle))\b|"
            + _AM
            + r"at\s+(?-i:[A-Z])[\w'.-]*(?:\s+(?-i:[A-Z])[\w'.-]*)*\s+(?:now\s+)?(?:for|doing|studying)\s+"
            r"(?:my|a|an|the)\s+"
            r"(?:masters|master's|degree|phd|doctorate|bachelor's|ba|bsc|msc|mba|studies)\b"
        ),
        Kind(MemoryType.SEMANTIC, "education", "school"),
    ),
    (
        _rx(
            _AM + r"(?:studying|majoring\s+in|"
            r"doing\s+(?:a|my)\s+(?:\w+\s+)?(?:degree|masters|master's|phd|bachelor's)\s+in)"
            r"\s+(?!at\b|for\b|hard\b|late\b|now\b|abroad\b|with\b|to\b|a\b|the\b|my\b)\w|"
            + _I
            + r"(?:major|majored)\s+in\s+\w|^my\s+major\s+is\s+\w|"
            + _I
            + r"(?:switched|changed)\s+(?:my\s+major|majors|courses|my\s+course|my\s+degree)\s+to\s+\w|"
            + _I
            + r"(?:switched|changed)\s+to\s+(?:a|an)\s+(?:[a-z-]+\s+){1,2}(?:degree|major)\b"
        ),
        Kind(MemoryType.SEMANTIC, "education", "course"),
    ),
    (
        _rx(
            r"^i\s+"
            + _ADV
            + r"work\s+as\s+(?:a|an)\s|"
            + _AM
            # "a first year law student" studies.
            + r"(?:a|an)\s+(?![a-z]+[- ]year\b)(?:[a-z-]+\s+){0,3}(?:"
            + PROFESSIONS
            + r")\b(?!"
            + OWNS_A_THING
            + r")|^i\s+"
            + _ADV
            + r"became\s+(?:a|an)\s+(?:[a-z-]+\s+){0,2}(?:"
            + PROFESSIONS
            + r")\b|"
            + _I
            + r"(?:got|was|have\s+been|'ve\s+been)\s+promoted\s+to\s+\w"
        ),
        Kind(MemoryType.SEMANTIC, "work", "occupation"),
    ),
    (
        _rx(
            _AM + r"(?:single|married|engaged|divorced|separated|widowed|in\s+a\s+relationship|seeing\s+someone|"
            r"dating\b(?!\s+(?:apps?|sites?|profiles?|scene|life|shows?|advice|pool)))\b(?!\s+to\s+(?:my|the)\s+(?:job|work))|"
            r"^(?:i|we)\s+" + _ADV + r"got\s+(?:married|engaged|divorced|hitched)\b|"
            r"^(?:i|we)\s+" + _ADV + r"broke\s+up\b"
        ),
        Kind(MemoryType.SEMANTIC, "relationships", "relationship_status"),
    ),
    (
        _rx(
            _AM + r"(?:an?\s+)?(?:vegetarian|vegan|pescatarian|pescetarian)\b|"
            r"^i\s+"
            + _ADV
            + r"(?:went|became|turned|have\s+gone|'ve\s+gone)\s+(?:vegetarian|vegan|pescatarian)\b|"
            + _HAVE
            + r"been\s+(?:an?\s+)?(?:vegetarian|vegan|pescatarian)\b|"
            + _AM
            + r"on\s+an?\s+(?:keto|paleo|low[- ]carb|vegan|plant[- ]based|gluten[- ]free)\s+diet\b|"
            + _I
            + r"(?:went\s+back\s+to|started|am\s+back\s+to)\s+eating\s+meat\b|^i\s+"
            + _ADV
            + r"eat\s+(?:everything|anything|meat)\b"
        ),
        Kind(MemoryType.SEMANTIC, "diet", "diet"),
    ),
    (
        # A diet changed: "I stopped eating meat last month", "i'm gluten free now".
        _rx(
            r"^i\s+"
            + _ADV
            + r"(?:stopped|quit|gave\s+up)\s+eating\s+(?:meat|red\s+meat|animal\s+products|fish|dairy|gluten)\b|"
            + _AM
            + r"(?:gluten[- ]free|dairy[- ]free)\s+now\b"
        ),
        Kind(MemoryType.SEMANTIC, "diet", "diet"),
    ),
    (
        _rx(
            r"^i\s+"
            + _ADV
            + r"(?:don't|do\s+not|never|no\s+longer)\s+(?:eat|drink(?!\s+(?:at\s+all|alcohol|anymore)\b))\s+\w|^i\s+"
            + _ADV
            + r"(?:stopped|quit|gave\s+up)\s+(?:eating|drinking)\s+\w|^i\s+"
            # "I can't eat gluten", "I can't have dairy": what the speaker's body refuses.
            + r"(?:can't|cannot|can\s+not)\s+(?:eat|have|drink|tolerate|digest)\s+(?:any\s+)?(?:gluten|dairy|wheat|"
            r"lactose|milk|cheese|nuts|peanuts|tree\s+nuts|eggs|shellfish|seafood|fish|meat|pork|beef|soy|sugar|"
            r"alcohol|caffeine|spicy\s+food)\b|"
            + _AM
            + r"(?:lactose[- ]intolerant|gluten[- ]free|diabetic|celiac|coeliac)\b"
        ),
        Kind(MemoryType.SEMANTIC, "diet", negation_ok=True),
    ),
    (
        _rx(_AM + r"(?:severely\s+|very\s+|mildly\s+|deathly\s+|highly\s+)?allergic\s+to\s+\w"),
        Kind(MemoryType.SEMANTIC, "health"),
    ),
    (
        _rx(
            r"^i\s+(?:was|got|have\s+been|'ve\s+been)\s+(?:just\s+)?diagnosed\s+with\b|"
            # "I have…", "I've got…", "I have got…".
            + r"^(?:i|we)(?:'ve|\s+have)?\s+"
            + _ADV
            + r"(?:have|had|got|caught)\s+(?:a\s+|the\s+|an\s+)?(?:bad\s+)?(?:cold|flu|covid|fever|migraine|asthma|"
            r"diabetes|cancer|surgery|operation|injury|concussion|infection|food\s+poisoning|broken\s+\w+|"
            # Conditions people live with: "I have ADHD", "I've got endometriosis".
            r"adhd|autism|dyslexia|epilepsy|arthritis|ibs|crohn's|eczema|psoriasis|migraines|insomnia|"
            r"long\s+covid|lupus|endometriosis|pcos|hypertension|high\s+blood\s+pressure|heart\s+condition|"
            r"sleep\s+apnea|anemia|anaemia|tinnitus|celiac\s+disease|coeliac\s+disease)\b|"
            + _I
            + r"(?:broke|sprained|injured|hurt|twisted|fractured)\s+my\s|"
            + _AM
            + r"(?:sick|ill|pregnant|recovering|in\s+(?:the\s+)?hospital)\b"
        ),
        Kind(MemoryType.EPISODIC, "health"),
    ),
    (
        _rx(
            _I
            + r"(?:support|root\s+for|cheer\s+for|follow)\s+(?:the\s+)?(?-i:[A-Z])|"
            + _AM
            + r"(?:rooting|cheering)\s+for\s+(?:the\s+)?(?-i:[A-Z])|"
            + _I
            + r"switched\s+to\s+(?:supporting|rooting\s+for|cheering\s+for)\s+(?:the\s+)?(?-i:[A-Z])|"
            + _HAVE
            + r"(?:supported|rooted\s+for|cheered\s+for|followed)\s+(?:the\s+)?(?-i:[A-Z])"
        ),
        Kind(MemoryType.SEMANTIC, "sports", "team"),
    ),
    (
        _rx(
            r"^my\s+(?:main\s+|primary\s+|first\s+)?instrument\s+is\s+\w|"
            + _I
            + r"(?:play|switched\s+(?:from\s+(?:the\s+)?\w+\s+)?to)\s+(?:the\s+)?(?:"
            + INSTRUMENTS
            + r")\b"
        ),
        Kind(MemoryType.SEMANTIC, "music", "instrument"),
    ),
    (
        _rx(_I + r"(?:switched|upgraded|changed|moved)\s+(?:from\s+(?:a|an|my|the)\s+[\w-]+\s+)?to\s+(?P<thing>.*)"),
        Kind(MemoryType.EPISODIC, "possessions", "*"),
    ),
    (
        _rx(
            r"(?:" + _I + r"|" + _HAVE + r"|^(?:i|we)\b[^,;]*?\band\s+(?:then\s+)?)"
            r"(?:got|bought|buy|purchased|have|own|drive|leased|picked\s+up|adopted|rescued|use|ride)"
            r"\s+(?P<thing>(?:a|an|my|our|two|three|the|some)\b.*)|^my\s+(?:new\s+)?(?P<owned>[a-z-]+)(?:\s+is|'s)\s+(?:an?\s|(?:old|new|used)\s)|"
            + _I
            + r"traded\s+(?:in\s+)?(?:my|our|the)?\s*[\w-]+(?:\s+in)?\s+for\s+(?P<traded>(?:a|an|the)\b.*)|"
            # "I'm driving a Corolla now", "I'm on a MacBook Pro now", "working on my 2017 MacBook Air".
            + _AM
            + r"(?:driving|using|riding|on|working\s+on)\s+(?P<using>(?:a|an|my|our)\b.*)|"
            r"^(?:i've|i\s+have)\s+been\s+(?:on|using)\s+(?:the\s+same\s+)?(?P<been_on>(?:a|an|my|our|the)?\b.*)|"
            r"\b(?:typing|writing)\s+(?:this\s+)?(?:from|on)\s+(?P<typing>(?:a|an|my)\b.*)"
        ),
        Kind(MemoryType.EPISODIC, "possessions", "*"),
    ),
    (
        _rx(
            _I
            + r"(?P<neg>don't\s+|do\s+not\s+|didn't\s+|never\s+)?"
            + _ADV
            + r"(?:prefer|like|love|enjoy|adore|hate|dislike|detest|loathe|despise)\s+(?:it\s+when\s+\w|"
            r"(?!it\b|that\b|this\b|you\b|them\b|him\b|her\b|those\b|these\b|to\s+(?:think|say|know|hear|see))\w)|"
            + _I
            + r"(?:can't|cannot)\s+stand\s+\w|"
            + _AM
            + r"(?:not\s+)?(?:a\s+(?:big\s+|huge\s+|massive\s+)?fan\s+of|into|fond\s+of|obsessed\s+with|"
            r"passionate\s+about|crazy\s+about|keen\s+on|a\s+sucker\s+for)\s+\w"
        ),
        Kind(MemoryType.PREFERENCE, "preferences", negation_ok=True),
    ),
    (
        _rx(
            r"^my\s+(?:(?:all[- ]time|new|absolute|ultimate)\s+)?(?:favou?rite|fave?)\s+"
            r"(?P<what>[a-z]+(?:\s+(?!right\b|now\b|these\b|at\b|lately\b|ever\b|of\b|has\b)[a-z]+)?)\s+"
            r"(?:(?:these\s+days|now|right\s+now|at\s+the\s+moment|lately|ever|of\s+all\s+time)\s+)?"
            r"(?:is|are|was|would\s+be|has\s+(?:now\s+)?become|became|is\s+now)\s+\w"
        ),
        Kind(MemoryType.PREFERENCE, "preferences", "*"),
    ),
    (
        _rx(
            _AM + r"(?:planning|going|hoping|about|aiming|preparing|getting\s+ready|looking\s+forward|"
            r"thinking\s+(?:about|of)|gearing\s+up)\s+(?:to|on|for|about|of)?\s*\w|"
            + _I
            + r"(?:plan|intend|hope|want|aim|need|am\s+going|decided)\s+to\s+\w|^(?:i|we)(?:'ll|\s+will)\s+"
            + _ADV
            + r"\w|"
            + _I
            + r"(?:can't|cannot)\s+wait\s+(?:to|for)\s+\w"
        ),
        Kind(MemoryType.SEMANTIC, "plans", negation_ok=True),
    ),
    (
        _rx(
            _AM + r"(?:a|an)\s+(?:[a-z-]+\s+)?(?:person|introvert|extrovert|perfectionist|morning\s+person|night\s+owl|"
            r"cook|dancer|singer|runner|writer|reader|artist|musician|athlete|gamer|nerd|geek|homebody|planner|"
            r"procrastinator|optimist|pessimist|animal\s+lover|dog\s+person|cat\s+person)\b|"
            + _AM
            + r"(?:shy|introverted|extroverted|outgoing|organized|organised|creative|competitive|patient|impatient|"
            r"stubborn|ambitious|lazy|anxious|optimistic|pessimistic|confident|independent|sensitive|curious|"
            r"adventurous|spontaneous|introverted)\b|"
            + _I
            + r"(?:consider|see)\s+myself\b|"
            + _I
            + r"(?:think|feel|believe)\s+(?:that\s+)?(?:i'm|i\s+am|i've|i\s+have)\s"
        ),
        Kind(MemoryType.SEMANTIC, "self"),
    ),
    # Who or what serves the speaker, one at a time (providers.py).
    *((_rx(pattern), Kind(MemoryType.SEMANTIC, topic, attribute)) for pattern, topic, attribute in PROVIDERS),
    # Stated plainly, as chat types it (plain.py).
    *((_rx(pattern), Kind(MemoryType.SEMANTIC, topic, attribute, *ok)) for pattern, topic, attribute, *ok in STATED),
    (
        # "I go to Equinox", "I go to Ohio State": where the speaker goes, named; what a later "quit Equinox" ends.
        _rx(r"^(?:i|we)\s+" + _ADV + r"(?:go|still\s+go)\s+to\s+(?:the\s+)?(?-i:[A-Z])[\w'&.-]*\s*$"),
        Kind(MemoryType.SEMANTIC, "routine"),
    ),
    (
        _rx(
            r"^(?:my|our)\s+(?:(?:little|big|older|younger|best|new|ex|late|twin|eldest|youngest|oldest|baby|dear|"
            r"step|grand)[- ]?\s*)?(?P<relation>[a-z]+)\b"
        ),
        Kind(MemoryType.SEMANTIC, "*"),
    ),
)


def topic_of(text: str) -> str | None:
    words = set(re.findall(r"[a-z]+", text.lower()))
    for topic, keys in TOPICS:
        if words & keys:
            return topic
    return None


def classify(clause: str, *, past: bool) -> Kind | None:
    """The kind of fact a first-person clause states, or None when no pattern knows it.

    A value said as one more ("I also play the drums", "another car") is no update of the attribute:
    a person may have several of those, and the first stays true.
    """
    clause = _LEADING_WORDS.sub("", clause, count=1)
    kind = _classify(clause, past=past)
    return single_valued(kind, clause) if kind is not None else None


def single_valued(kind: Kind, clause: str) -> Kind:
    """`kind`, without its attribute when the clause says the value as one more of several."""
    if kind.attribute in _MANY_VALUED and _ADDITION.search(clause):
        return Kind(kind.memory_type, kind.topic, "", kind.negation_ok, kind.value)
    return kind


# "Now I live in Hamburg", "Since we moved to Bergen…": the clause's subject comes after these.
_LEADING_WORDS = re.compile(
    r"^(?:(?:now|so|since|and|but|then|finally|today|anyway|well|nowadays|these\s+days|as\s+of\s+now|"
    r"officially|yesterday|(?:from|as\s+of)\s+(?:this|last)\s+(?:week|month)|(?:this|last)\s+(?:week|month))\s*,?\s+)+"
    r"(?=(?:i|we|i'm|we're|i've|we've|my|our)\b)",
    re.IGNORECASE,
)
# Attributes of which a person may have more than one at a time: said as an addition, they replace nothing.
_MANY_VALUED = word_set(
    """instrument team car phone computer bicycle motorbike home employer occupation course school bank doctor dentist
    internet_provider mobile_carrier gym therapist hairdresser vet supermarket"""
)
# "second year", "the second half" say when, not one more.
_ADDITION = re.compile(
    r"\b(?:also|too|as\s+well|another|second(?![\s-]+(?:year|semester|term|grade|half|round|time|week|month))|both|"
    r"extra|spare|(?:work|company|office)\s+(?:phone|mobile|laptop|computer|car|van)|for\s+(?:the\s+)?business|"
    r"locum|for\s+today|today\s+only|for\s+\w+\s+only|only\s+for|in\s+the\s+(?:show|game|play))\b",
    re.IGNORECASE,
)
_PARTNER_NAMED = re.compile(
    r"^(?:my|our)\s+(?:(?:new|current)\s+)?(?:boyfriend|girlfriend|husband|wife|partner|fianc[eé]e?|spouse)"
    r"(?:'s\s+name)?(?:,?\s+|\s+(?:is|'s)\s+(?:called\s+|named\s+)?)(?-i:[A-Z][a-z]+)\b",
    re.IGNORECASE,
)


_STILL_OLD = re.compile(r"\bstill\s+(?:\w+\s+){0,2}my\s+old\b", re.IGNORECASE)
# Searched in this order; a pattern whose words a clause lacks is skipped (`prefilter`).
_SEARCHED = Patterns(_PATTERNS)


def _classify(clause: str, *, past: bool) -> Kind | None:
    for match, kind in _SEARCHED.search(clause):
        groups = match.groupdict()
        if "thing" in groups:
            thing = owned_thing(
                groups.get("thing")
                or groups.get("owned")
                or groups.get("traded")
                or groups.get("using")
                or groups.get("typing")
                or groups.get("been_on")
                or ""
            )
            attribute = THING_OF.get(thing)
            if attribute is None:
                if thing in PETS:
                    return Kind(MemoryType.EPISODIC if past else MemoryType.SEMANTIC, "pets")
                continue
            # "my old phone" was had; "still rocking my old Nokia" is had still.
            if (
                re.search(r"\bmy\s+old\b", clause, re.IGNORECASE) and not _STILL_OLD.search(clause)
            ) or NOT_A_NEW_ONE.search(clause):
                return Kind(MemoryType.EPISODIC, "possessions")
            return Kind(MemoryType.EPISODIC if past else MemoryType.SEMANTIC, "possessions", attribute, value=thing)
        if "what" in groups:
            return Kind(MemoryType.PREFERENCE, "preferences", favourite_attribute(groups["what"], clause))
        if "relation" in groups:
            if groups["relation"].lower() not in RELATIONS:
                continue
            if _PARTNER_NAMED.match(clause):
                return Kind(MemoryType.SEMANTIC, "relationships", "partner")
            return Kind(MemoryType.EPISODIC if past else MemoryType.SEMANTIC, "family")
        if past and kind.memory_type == MemoryType.SEMANTIC and kind.topic not in ("identity", "origin", "diet"):
            return Kind(MemoryType.EPISODIC, kind.topic, kind.attribute, kind.negation_ok)
        return kind
    return None
