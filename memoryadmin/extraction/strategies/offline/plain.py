"""Facts about the speaker stated plainly, as chat types them: "i go to ucla", "i'm on verizon", "our house is in
sugar land", "i work retail at h&m", "been married 12 years".

Rows of (pattern, topic, attribute) that `facts` reads after the providers, each over a first-person clause of which
the message's well-known names are already spelt as names (`names.spelt`). They state the value the speaker has now,
so a later change of it ("switched to mint mobile", "dropped out of kcl") has something to replace.
"""

from __future__ import annotations

from memoryadmin.extraction.strategies.offline.names import named
from memoryadmin.extraction.strategies.offline.phrases import ADV, CAP, DIETS, HAIR, HOME, NAME, place

_I = r"^(?:i|we)\s+(?:still\s+)?" + ADV
_AM = r"^(?:i'm|im|i\s+am|we're|we\s+are)\s+(?:still\s+)?" + ADV
_SCHOOL = (
    named("schools")
    + r"|"
    + CAP
    + r"[\w'.&-]*(?:\s+"
    + CAP
    + r"[\w'.&-]*){0,3}\s+(?-i:University|College|Uni|School|Academy|Institute|Polytechnic|High|Elementary|Primary)\b"
    + r"|(?:the\s+)?(?-i:University|College|Institute)\s+of\s+"
    + CAP
    + r"[\w'.&-]*(?:\s+"
    + CAP
    + r"[\w'.&-]*){0,2}"
)
_DEGREE = r"(?:masters|master's|phd|ph\.d|doctorate|degree|bachelors|bachelor's|mba|msc|ma|ba|bsc|pgce|llm)"
_HOW_LONG = (
    r"(?:for\s+)?(?:(?:about|nearly|almost|over)\s+)?(?:\d+|a\s+few|a\s+couple(?:\s+of)?|two|three|four|five|six|seven|"
    r"eight|nine|ten|eleven|twelve|\w+teen|\w+ty|many)\s+"
)
# The words that may say what kind of home it is: "our little flat", "a two bed council flat"; not "our beach house".
_HOME_SIZE = (
    r"(?:(?:new|own|little|small|tiny|big|lovely|two[- ]bed|three[- ]bed|2[- ]bed|3[- ]bed|one[- ]bed|1[- ]bed|"
    r"council|rented|shared|student|semi|detached|terraced|ground[- ]floor)\s+)"
)
# Lived in for long: "for nearly twenty years", "since 2009"; not "since thursday".
_FOR_LONG = (
    r"[^.!?]{0,20}\b(?:for\s+(?:nearly\s+|almost\s+|over\s+|about\s+)?(?:\d+|a\s+few|many|\w+ty|two|three|four|"
    r"five|six|seven|eight|nine|ten)\s+(?:years|yrs)|since\s+(?:19|20)\d\d|since\s+(?:uni|school|college))"
)
_SHIFT = r"(?:night|day|early|late|afternoon|morning|evening|graveyard|swing|first|second|third)"
# Said of a while only: "i work from home when the kids are sick", "i work days this week only".
_NOW_AND_THEN = r"(?![^.!?]{0,20}\b(?:when|if|sometimes|occasionally|this\s+week|today|only|till|until|for\s+now)\b)"

# (pattern, topic, attribute) or, for a fact said with its negation ("I don't smoke"), (…, True).
STATED: tuple[tuple[str, str, str] | tuple[str, str, str, bool], ...] = (
    (
        # "our house is in sugar land", "i'm in a shared flat in glasgow", "renting a room in lisbon", "i still live
        # with my parents in jersey", "im in leeds atm, been here since uni", "we've been in our little bungalow in
        # harrogate for nearly twenty years". A place's name has its capital (spelt by `names` if typed without).
        r"^(?:my|our)\s+"
        + _HOME_SIZE
        + r"{0,2}"
        + HOME
        + r"\s+(?:is|'s)\s+in\s+"
        + place("place", lower_case=False)
        + r"|^(?:my|our)\s+"
        + _HOME_SIZE
        + r"{0,2}"
        + HOME
        + r"\s+in\s+"
        + place("place2", lower_case=False)
        + r"|"
        + _AM
        + r"(?:renting|sharing|in|living\s+in)\s+(?:(?:a|an|my|our)\s+"
        + _HOME_SIZE
        + r"{0,3})?"
        r"(?:room|flat|apartment|house|studio|condo|dorm|bedsit|bungalow|halls|sheltered\s+housing)\s+(?:in|at)\s+"
        + place("place3", lower_case=False)
        + r"|"
        + r"(?:"
        + _I
        + r"live|"
        + _AM
        + r"living)\s+with\s+(?:my|our)\s+[^,.!?]{1,25}?\s+in\s+"
        + place("place4", lower_case=False)
        + r"|"
        + _AM
        + r"in\s+"
        + NAME
        + r"\b[^.!?]{0,16}?\b(?:(?:been|lived|living)\s+here|have\s+been)"
        + _FOR_LONG
        + r"|^(?:i've|we've|i\s+have|we\s+have)\s+been\s+in\s+(?:a|an|my|our)\s+"
        + _HOME_SIZE
        + r"{0,3}"
        + HOME
        + r"\s+in\s+"
        + place("place5", lower_case=False)
        + _FOR_LONG,
        "home",
        "residence",
    ),
    (
        # "renting a flat above the chippy on the high street in Luton", "we rent a 2 bed in Clontarf".
        _AM
        + r"renting\s+(?:a|an)\s+(?:room|flat|apartment|house|studio)\b[^,.!?]{0,40}?\s+in\s+"
        + place("place8", lower_case=False)
        + r"|"
        + _I
        + r"(?:rent|own)\s+(?:a|an|our|my)\s+(?:one|two|three|four|1|2|3|4)[- ]bed(?:room)?\s+in\s+"
        + place("place9", lower_case=False),
        "home",
        "residence",
    ),
    (
        # "my fiancé and I are planning a wedding": engaged.
        r"^(?:my|our)\s+(?:fianc[eé]e?)\b(?!'s\s+(?:brother|sister|mum|mom|dad|family|parents))",
        "relationships",
        "relationship_status",
    ),
    (
        # "I'm a stay-at-home dad with three kids", "I have been teaching mathematics at the local secondary school for
        # thirty-one years": what the speaker does, with no title from the list of professions.
        _AM + r"(?:a\s+)?(?:stay[- ]at[- ]home\s+(?:mum|mom|dad|parent|mother|father)|homemaker|housewife|househusband|"
        r"full[- ]time\s+(?:mum|mom|dad|parent))\b|"
        r"^(?:i've|i\s+have)\s+been\s+teaching\s+(?!(?:myself|my\s+|him|her|them|the\s+kids))\w",
        "work",
        "occupation",
    ),
    (
        # "I'm registered with the Church Street surgery".
        _AM + r"registered\s+(?:with|at)\s+(?:the\s+)?(?:[\w'-]+\s+){1,3}"
        r"(?:surgery|practice|medical\s+centre|health\s+centre)\b",
        "health",
        "doctor",
    ),
    (
        # "i drive for uber full time", "i work retail at h&m", "my job is in infosys, bangalore office".
        _I + r"(?:drive|deliver|ride)\s+for\s+" + CAP + r"|"
        r"^i\s+" + ADV + r"work\s+(?!out\b)(?:[a-z-]+\s+){1,2}(?:at|for)\s+(?:the\s+)?" + CAP + r"|"
        r"^my\s+(?:job|work)\s+is\s+(?:at|in|with|for)\s+" + named("employers") + r"(?=\s*(?:[,.!]|$|\s+as\b))|"
        r"^(?:i've|i\s+have)\s+(?:been\s+at|worked\s+(?:at|for))\s+(?:the\s+)?"
        + NAME
        + r"(?:'s)?[^.!?]{0,30}?\s+"
        + _HOW_LONG
        + r"(?:years|yrs|months)\b",
        "work",
        "employer",
    ),
    (
        r"^(?:i've|we've|i\s+have|we\s+have)\s+been\s+(?:happily\s+)?married\s+"
        + _HOW_LONG
        + r"(?:years|yrs)\b|"
        + _AM
        + r"(?:a\s+)?(?:widow|widower|widowed)\b",
        "relationships",
        "relationship_status",
    ),
    (
        # "i go to ucla", "im at kings college london", "doing my masters at edinburgh".
        r"^(?:i|we)(?:'ve|\s+have)?\s+(?:still\s+)?"
        + ADV
        + r"(?:go\s+to|started\s+at|started\s+(?:school|college|uni|university)\s+at|transferred\s+to)\s+(?:"
        + _SCHOOL
        + r")|"
        + _AM
        + r"(?:a\s+(?:first|second|third|fourth|final)[- ]year\s+)?at\s+(?:"
        + _SCHOOL
        + r")(?!\s+(?:for|to|with)\s+(?:a|an|the|my)\b)"
        r"(?![^.!?]{0,20}\b(?:this\s+week|today|tonight|for\s+the|conference|visiting|weekend)\b)|"
        r"^(?:i'm\s+|i\s+am\s+)?doing\s+(?:my|a|an)\s+(?:part[- ]time\s+|full[- ]time\s+|online\s+)?"
        + _DEGREE
        + r"\s+at\s+"
        + CAP,
        "education",
        "school",
    ),
    (
        # "im a bio major", "doing a history degree"; not a drum major or a 40 degree yoga class.
        _AM + r"(?:a|an)\s+(?!drum\b)(?:[\w-]+\s+){1,2}major\b|"
        r"^(?:i'm\s+|i\s+am\s+)?doing\s+(?:a|an|my)\s+(?!masters|phd|degree|\d)[\w-]+(?:\s+[\w-]+)?\s+degree\b"
        r"(?!\s+(?:hot|heat|angle|turn|weather|day|days|celsius|fahrenheit))|"
        # "I'm doing an MBA at night", "I'm taking a UX certificate at General Assembly".
        r"^(?:i'm\s+|i\s+am\s+|im\s+)?(?:doing|taking|pursuing)\s+(?:(?:a|an|my|the)\s+|(?=(?:mba|msc|bsc|llm)\b))"
        r"(?:part[- ]time\s+|online\s+|night\s+)?"
        r"(?:mba|ba|bsc|ma|msc|llm|diploma|(?:[\w-]+\s+){1,3}(?:certificate|diploma|bootcamp|apprenticeship))\b"
        r"(?!\s+(?:exam|test|class|lesson)\b)|"
        # "taking evening classes in accounting at the community college".
        r"^(?:i'm\s+|i\s+am\s+|im\s+)?taking\s+(?:(?:evening|night|online|weekend|part[- ]time)\s+)?"
        r"(?:classes|courses)\s+in\s+[a-z]",
        "education",
        "course",
    ),
    (
        # "i'm on verizon", "we're with giffgaff"; not "on mint tea".
        _AM
        + r"(?:on|with)\s+(?:"
        + named("carriers")
        + r")(?=\s*(?:[,.!]|$|\s+(?:and|now|since|for\s+(?:years|ages))\b))|"
        # Any name, with what it is for: "I'm with Optus on a postpaid plan", "I'm using Jio sim in my phone".
        + _AM
        + r"(?:on|with|using)\s+(?:the\s+)?"
        + NAME
        + r"(?=[^.!?\n]{0,30}\b(?:network|sim|prepaid|postpaid|pre-paid|post-paid|line|(?:phone|mobile|data|unlimited|"
        r"monthly|family|cell|pay\s+as\s+you\s+go)\s+(?:plan|contract|deal)|plan\s+for\s+(?:my\s+)?(?:phone|number))\b)",
        "contact",
        "mobile_carrier",
    ),
    (
        # "we have comcast", "i've got xfinity".
        r"^(?:i|we)\s+(?:have|'ve\s+got|have\s+got|got|use|are\s+on|'re\s+on)\s+(?:" + named("isps") + r")\s*[.!]*\s*$",
        "home",
        "internet_provider",
    ),
    (
        # "i'm a member at equinox", "i go to planet fitness".
        _AM
        + r"(?:a\s+)?member\s+(?:at|of)\s+(?:the\s+)?(?:"
        + named("gyms")
        + r")|"
        + _I
        + r"(?:go|train|work\s+out)\s+(?:to|at)\s+(?:the\s+)?(?:"
        + named("gyms")
        + r")(?!\s+now\s+and\s+then)|"
        # "I go to gym called Body Line in Ikeja".
        + _I
        + r"(?:go|train|work\s+out)\s+(?:to|at)\s+(?:a\s+|the\s+)?gym\s+(?:called|named)\s+"
        + CAP,
        "fitness",
        "gym",
    ),
    (
        # "i smoke like a pack a day", "i drink most weekends", "i work from home full time", "i work nights".
        r"^i\s+(?:still\s+)?(?:smoke\b(?!\s+(?:weed|pot|a\s+joint))|vape\b)|"
        r"^(?:(?:i'm|im|i\s+am)\s+(?:still\s+)?(?:a\s+)?|(?:a\s+)?(?=pack))"
        r"(?:(?:social|occasional|heavy|chain|light|pack[- ]a[- ]day)\s+)?smoker\b(?!\s+(?:friendly|area|zone))|"
        r"^(?:i'm|im|i\s+am)\s+still\s+(?:smoking|vaping)\b",
        "health",
        "smoking",
    ),
    (
        # "I don't smoke and never have", "I'm a non-smoker", "I don't drink at all", "I'm teetotal".
        r"^i\s+(?:don't|do\s+not|never)\s+(?:smoke|vape)d?\b(?!\s+(?:weed|pot|indoors|inside|in\s+the))|"
        r"^(?:i'm|im|i\s+am)\s+(?:a\s+)?non[- ]?smoker\b",
        "health",
        "smoking",
        True,
    ),
    (
        # "I enjoy a glass or two of red with dinner most nights".
        r"^(?:i|we|i'll|i\s+will|we'll)\s+(?:\w+\s+)?(?:enjoy|have|drink)\s+(?:a\s+(?:glass|pint|bottle|drink|beer|couple)|"
        r"a\s+glass\s+or\s+two)\b"
        r"[^.!?]{0,40}\b(?:most|every|each)\s+(?:night|nights|evening|evenings|weekend|weekends)\b",
        "health",
        "drinking",
    ),
    (
        r"^i\s+haven't\s+had\s+a\s+drink\s+(?:in|for)\s+(?:years|ages|\w+\s+years)|"
        r"^i\s+(?:don't|do\s+not|never)\s+drink(?:\s+at\s+all|\s+alcohol|\s*$)|^(?:i'm|im|i\s+am)\s+(?:a\s+)?"
        r"(?:teetotal|teetotaller|non[- ]?drinker)\b",
        "health",
        "drinking",
        True,
    ),
    (
        r"^i\s+(?:still\s+)?drink\s+(?:(?:beer|wine|alcohol|spirits|cocktails)\s+)?"
        r"(?:most|every|a\s+lot|like|on|pretty\s+much)\b"
        r"(?![^.!?]{0,20}\b(?:coffees?|teas?|water|sodas?|juice|milk|smoothies?|energy\s+drinks?)\b)",
        "health",
        "drinking",
    ),
    (
        # "I follow a pescatarian diet", "i'm on a vegan diet", "I follow the 5:2 diet".
        r"^(?:i|we)\s+(?:follow|eat|keep)\s+the\s+[\w:-]+\s+diet\b|"
        # "I've become a pescatarian!", "I'm a total carnivore".
        r"^(?:i've|i\s+have|we've)\s+(?:finally\s+|officially\s+)?(?:become|gone)\s+(?:a\s+|an\s+)?(?:full\s+|strict\s+)?"
        + DIETS
        + r"\b|"
        + _AM
        + r"(?:a|an)\s+(?:total|complete|strict|proper|full)\s+"
        + DIETS
        + r"\b|"
        + _AM
        + r"following\s+(?:a|an)\s+(?:strict\s+|mostly\s+)?"
        + DIETS
        + r"\s+diet\b|"
        r"^(?:i|we)\s+(?:\w+\s+)?(?:follow|eat|keep)\s+(?:a\s+|an\s+)?(?:strict\s+|mostly\s+)?" + DIETS + r"\s+diet\b|"
        # "I do keto, so I stay under 20g carbs a day".
        r"^(?:i|we)\s+(?:still\s+)?do\s+(?:strict\s+)?"
        + DIETS
        + r"\b(?!\s+(?:recipes?|meals?|dinners?|baking|cooking))|"
        + _AM
        + r"on\s+(?:a|an)\s+(?:strict\s+)?"
        + DIETS
        + r"\s+diet\b",
        "diet",
        "diet",
    ),
    (
        r"^i\s+(?:still\s+)?"
        + ADV
        + r"work\s+(?:fully\s+|full[- ]time\s+|100%\s+)?(?:from\s+home|remotely|remote)\b"
        + _NOW_AND_THEN
        + r"|"
        + _AM
        + r"(?:fully\s+)?remote\b"
        + _NOW_AND_THEN
        + r"|"
        r"^i\s+(?:still\s+)?"
        + ADV
        + r"work\s+(?:in|at|from)\s+(?:the\s+)?office\b"
        + _NOW_AND_THEN
        + r"|"
        + _AM
        + r"(?:in\s+(?:the\s+)?office|going\s+(?:in)?to\s+(?:the\s+)?office)\s+(?:every\s*day|full[- ]time|five\s+days|"
        r"5\s+days)\b|^i\s+(?:still\s+)?go\s+(?:in)?to\s+(?:the\s+)?office\s+(?:every\s*day|daily|full[- ]time|"
        r"five\s+days|5\s+days)\b|"
        + _AM
        + r"hybrid\b(?!\s+(?:car|cars|vehicle|bike|model|owner|driver))"
        + _NOW_AND_THEN,
        "work",
        "work mode",
    ),
    (
        r"^i\s+(?:still\s+)?"
        + ADV
        + r"work\s+(?:nights|days|(?:the\s+|an?\s+)?"
        + _SHIFT
        + r"\s+shifts?)\b"
        + _NOW_AND_THEN
        + r"|"
        + _AM
        + r"on\s+(?:nights|days|(?:the\s+)?"
        + _SHIFT
        + r"\s+shifts?)\b"
        + _NOW_AND_THEN,
        "work",
        "shift",
    ),
    (
        # "i have a 2015 f-150", "i drive my grandpa's old buick"; a model that is an everyday word ("a golf") is
        # left to the clause readings that know a car from its context.
        r"^(?:i|we)(?:'ve\s+been\s+driving|\s+have\s+been\s+driving|\s+(?:still\s+)?"
        + ADV
        + r"(?:have|drive|own|got))\s+(?:a|an|my|our)\s+(?:[\w'-]+\s+){0,3}?(?:"
        + named("cars", everyday=False)
        + r")(?=\s*(?:[,.!?;)]|$|\s+(?:and|so|but|which|that|i|it|with|lol|now)\b|\s+(?-i:[A-Z0-9])))",
        "possessions",
        "car",
    ),
    (
        # "I don't own a car, I just bike everywhere": what a first car bought later changes.
        r"^(?:i|we)\s+(?:don't|do\s+not)\s+(?:own|have)\s+a\s+car\b|^(?:i|we)\s+(?:don't|do\s+not)\s+drive\s*$",
        "possessions",
        "car",
        True,
    ),
    (
        # How the speaker gets to work: "I drive 40 minutes to work", "I bike to the office in Utrecht", "I take the
        # train now instead of driving", "my commute is 90 minutes on the MRT"; not one day's ("I drove in today").
        r"^(?:i|we)\s+(?:now\s+|just\s+|usually\s+|always\s+|normally\s+|mostly\s+)?(?:drive|cycle|bike|walk|ride|"
        r"commute|scoot|take\s+the\s+\w+|get\s+the\s+\w+|catch\s+the\s+\w+)\s+(?:[\w-]+\s+){0,3}?(?:to|into)\s+"
        r"(?:work|the\s+office|my\s+office|the\s+hospital|the\s+plant|the\s+site)\b"
        + _NOW_AND_THEN
        + r"|^(?:i|we)\s+(?:now\s+)?(?:take|get|catch)\s+the\s+(?:train|bus|tube|metro|subway|tram|ferry)\s+now\b"
        r"|^(?:i|we)\s+(?:now\s+|usually\s+|mostly\s+)?commute\s+(?:by|on)\s+(?:car|train|bus|bike|bicycle|tube|metro|"
        r"subway|tram|ferry|foot|scooter|motorbike)\b"
        r"|^(?:i|we)(?:'ve|\s+have)?\s+(?:just\s+)?(?:started|have\s+to|now)\s+(?:cycling|biking|walking|driving|running|"
        r"taking\s+the\s+\w+|take\s+the\s+\w+|cycle|bike|walk|drive)\s+(?:[\w-]+\s+){0,2}?to\s+(?:work|the\s+office)\b"
        r"|^(?:i'm|im|i\s+am)\s+(?:now\s+)?(?:getting|taking|catching)\s+the\s+\w+\s+(?:to|into)\s+(?:work|the\s+office)\b"
        r"|^my\s+(?:daily\s+|morning\s+)?(?:commute\s+is(?!\s+(?:going\s+to|gonna|about\s+to))|(?:walk|drive|cycle|ride|bike\s+ride|bus\s+ride|train\s+ride)\s+"
        r"(?:to|into)\s+(?:work|the\s+office))\b",
        "work",
        "commute",
    ),
    (
        # "My hair's still blonde", "my hair is pink at the moment", "still rocking my dark brown bob".
        r"^my\s+hair(?:'s|\s+is)\s+(?:now\s+|still\s+)?(?:bright\s+|dark\s+|light\s+|jet\s+|natural\s+)?"
        + HAIR
        + r"\b|"
        r"^(?:i'm|im|i\s+am)\s+(?:still\s+)?(?:rocking|sporting)\s+(?:my|the|a)\s+(?:[\w-]+\s+)?" + HAIR + r"\s+"
        r"(?:bob|hair|pixie|curls|locks|crop|fringe)\b",
        "appearance",
        "hair colour",
    ),
)
