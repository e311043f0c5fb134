"""Facts about the speaker stated plainly, as chat types them: "i go to ucla", "i'm on verizon", "our house is in
sugar land", "i work retail at h&m", "been married 12 years".

Rows of (pattern, topic, attribute) that `facts` reads after the providers, each over a first-person clause of which
the message's well-known names are already spelt as names (`names.spelt`). They state the value the speaker has now,
so a later change of it ("switched to mint mobile", "dropped out of kcl") has something to replace.
"""

from __future__ import annotations

from memoryadmin.extraction.strategies.offline.names import named
from memoryadmin.extraction.strategies.offline.phrases import ADV, CAP, HOME, NAME, place

_I = r"^(?:i|we)\s+(?:still\s+)?" + ADV
_AM = r"^(?:i'm|im|i\s+am|we're|we\s+are)\s+(?:still\s+)?" + ADV
_SCHOOL = (
    named("schools")
    + r"|"
    + CAP
    + r"[\w'.&-]*(?:\s+"
    + CAP
    + r"[\w'.&-]*){0,3}\s+(?-i:University|College|Uni|School|Academy|Institute|Polytechnic)\b"
)
_DEGREE = r"(?:masters|master's|phd|ph\.d|doctorate|degree|bachelors|bachelor's|mba|msc|ma|ba|bsc|pgce|llm)"
_HOW_LONG = r"(?:for\s+)?(?:\d+|a\s+few|a\s+couple(?:\s+of)?|two|three|four|five|six|seven|eight|nine|ten|many)\s+"

STATED: tuple[tuple[str, str, str], ...] = (
    (
        # "our house is in sugar land", "i'm in a shared flat in glasgow", "renting a room in lisbon", "i still live
        # with my parents in jersey", "im in leeds atm, been here since uni".
        r"^(?:my|our)\s+(?:[\w-]+\s+){0,2}" + HOME + r"\s+(?:is|'s)\s+in\s+" + place("place") + r"|"
        r"^(?:my|our)\s+(?:[\w-]+\s+){0,2}"
        + HOME
        + r"\s+in\s+"
        + place("place2")
        + r"|"
        + _AM
        + r"(?:renting|sharing|in|living\s+in)\s+(?:(?:a|an|my|our)\s+(?:[\w-]+\s+){0,3}?)?"
        r"(?:room|flat|apartment|house|place|studio|condo|dorm|bedsit|bungalow|housing|halls)\s+(?:in|at)\s+"
        + place("place3")
        + r"|"
        + _I
        + r"live\s+with\s+(?:my|our)\s+[^,.!?]{1,25}?\s+in\s+"
        + place("place4")
        + r"|"
        + _AM
        + r"in\s+"
        + CAP
        + r"[\w'.-]*(?:\s+"
        + CAP
        + r"[\w'.-]*)?\b[^.!?]{0,16}?\b(?:(?:been|lived|living)\s+here|have\s+been)\s+(?:since|for)\b|"
        # "we've been in our little bungalow in harrogate for nearly twenty years".
        r"^(?:i've|we've|i\s+have|we\s+have)\s+been\s+in\s+(?:a|an|my|our)\s+(?:[\w-]+\s+){0,3}"
        + HOME
        + r"\s+in\s+"
        + place("place5"),
        "home",
        "residence",
    ),
    (
        # "i drive for uber full time", "i work retail at h&m", "my job is in infosys".
        _I + r"(?:drive|deliver|ride)\s+for\s+" + CAP + r"|"
        r"^i\s+" + ADV + r"work\s+(?:[a-z-]+\s+){1,2}(?:at|for)\s+(?:the\s+)?" + CAP + r"|"
        r"^my\s+(?:job|work)\s+is\s+(?:at|in|with|for)\s+" + named("employers") + r"|"
        r"^(?:i've|i\s+have)\s+been\s+(?:at|with)\s+" + NAME + r"\s+" + _HOW_LONG + r"(?:years|yrs|months)\b",
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
        _I
        + r"(?:go|went)\s+to\s+(?:"
        + _SCHOOL
        + r")|"
        + _AM
        + r"at\s+(?:"
        + _SCHOOL
        + r")(?!\s+(?:for|to|with)\s+(?:a|an|the|my)\b)|"
        r"^(?:i'm\s+|i\s+am\s+)?doing\s+(?:my|a|an)\s+" + _DEGREE + r"\s+at\s+" + CAP,
        "education",
        "school",
    ),
    (
        # "im a bio major", "doing a history degree".
        _AM + r"(?:a|an)\s+(?:[\w-]+\s+){1,2}major\b|"
        r"^(?:i'm\s+|i\s+am\s+)?doing\s+(?:a|an|my)\s+(?!masters|phd|degree)[\w-]+(?:\s+[\w-]+)?\s+degree\b",
        "education",
        "course",
    ),
    (
        # "i'm on verizon", "we're with three".
        _AM + r"(?:on|with)\s+(?:" + named("carriers") + r")(?!\s+(?:wifi|broadband|internet|fibre|fiber)\b)",
        "contact",
        "mobile_carrier",
    ),
    (
        # "we have comcast", "i've got xfinity".
        r"^(?:i|we)\s+(?:have|'ve\s+got|have\s+got|got|use|are\s+on|'re\s+on)\s+(?:" + named("isps") + r")\s*$",
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
        + r")",
        "fitness",
        "gym",
    ),
    (
        # "i smoke like a pack a day", "i drink most weekends", "i work from home full time", "i work nights".
        r"^i\s+(?:still\s+)?smoke\b(?!\s+(?:weed|pot|a\s+joint))",
        "health",
        "smoking",
    ),
    (r"^i\s+(?:still\s+)?drink\s+(?:most|every|a\s+lot|like|on|pretty\s+much)\b", "health", "drinking"),
    (
        r"^i\s+(?:still\s+)?" + ADV + r"work\s+(?:from\s+home|remotely|remote)\b|" + _AM + r"(?:fully\s+)?remote\b|"
        r"^i\s+(?:still\s+)?" + ADV + r"work\s+(?:in|at)\s+the\s+office\b",
        "work",
        "work mode",
    ),
    (
        r"^i\s+(?:still\s+)?" + ADV + r"work\s+(?:nights|days|the\s+(?:night|day)\s+shift|night\s+shifts?)\b",
        "work",
        "shift",
    ),
    (
        # "i have a 2015 f-150", "i drive my grandpa's old buick".
        r"^(?:i|we)\s+(?:still\s+)?"
        + ADV
        + r"(?:have|drive|own|got)\s+(?:a|an|my|our)\s+(?:[\w'-]+\s+){0,3}?(?:"
        + named("cars")
        + r")(?=\s*(?:[,.!?;)]|$|\s+(?:and|so|but|which|that|i|it|with|for|lol|now)\b|\s+(?-i:[A-Z0-9])))",
        "possessions",
        "car",
    ),
)
