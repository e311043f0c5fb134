"""Who or what serves the speaker, one at a time: a doctor, a dentist, a bank, an internet provider.

"My GP is Dr Patel", "I bank with Lloyds", "our broadband is with Virgin Media", "my operator is Vivo", "I see a
therapist named Rachel", "I do my weekly shop at Tesco": each names the one the speaker has now, so a later "my GP is
Dr O'Connor now" replaces it. (pattern, topic, attribute), read by `facts` in its
order; a pattern is searched case-insensitively, the name after it must be capitalised.
"""

from __future__ import annotations

# Seeing someone for care: "I see Dr Nowak for my diabetes", "I see a therapist named Rachel on BetterHelp".
_SEE = (
    r"(?:^(?:i|we)\s+(?:still\s+|now\s+|regularly\s+|usually\s+)?see|^(?:i'm|i\s+am|im)\s+(?:now\s+)?seeing|"
    r"^(?:i've|i\s+have|we've)\s+been\s+(?:seeing|assigned\s+to))\s+"
)
_NAMED = r"(?:\s+(?:named|called))?\s+(?:dr\.?\s+)?(?-i:[A-Z])"

PROVIDERS: tuple[tuple[str, str, str], ...] = (
    (
        r"^(?:my|our)\s+(?:family\s+|new\s+|primary\s+care\s+)?(?:gp|doctor|physician|doc|pcp)(?:\s+there)?(?:'s|\s+is)\s+(?:now\s+)?"
        r"(?:dr\.?\s|doctor\s)|"
        # "I'm with Dr. Nakamura now".
        r"^(?:i'm|i\s+am|im|we're)\s+(?:now\s+)?with\s+dr\.?\s+(?-i:[A-Z])|"
        # "Dr Shah is my GP now".
        r"^dr\.?\s+(?-i:[A-Z])[\w'-]+\s+is\s+(?:now\s+)?(?:my|our)\s+(?:new\s+)?(?:gp|doctor)\b",
        "health",
        "doctor",
    ),
    (
        # "I see Dr Goldberg for my teeth": a dentist before a doctor.
        _SEE
        + r"(?:a\s+dentist"
        + _NAMED
        + r"|dr\.?\s+(?-i:[A-Z])[\w'-]+\s+for\s+(?:my\s+)?(?:teeth|tooth|dental|cleanings?|"
        r"check-?ups?\s+at\s+the\s+dentist))",
        "health",
        "dentist",
    ),
    (
        _SEE
        + r"(?:a\s+(?:gp|doctor|physician)"
        + _NAMED
        + r"|dr\.?\s+(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?(?:\s*$|\s+(?:now\s+)?"
        r"(?:for|at|about|every|once|twice|instead)\b))",
        "health",
        "doctor",
    ),
    (
        r"^(?:my|our)\s+(?:new\s+|current\s+)?(?:(?:psycho)?therapist|counsell?or|psychologist|psychiatrist)(?:\s+there)?(?:'s|\s+is)\s+"
        r"(?:now\s+)?(?:dr\.?\s+)?(?-i:[A-Z])|"
        + _SEE
        + r"(?:a\s+)?(?:(?:psycho)?therapist|counsell?or|psychologist|psychiatrist)"
        + _NAMED,
        "health",
        "therapist",
    ),
    (
        r"^(?:my|our)\s+(?:new\s+|regular\s+|usual\s+)?(?:hairdresser|hair\s+stylist|stylist|barber)(?:\s+there)?(?:'s|\s+is)\s+"
        r"(?:now\s+)?(?:(?-i:[A-Z])|[a-z][\w'-]+\s+(?:at|from)\s)|"
        + _SEE
        + r"(?:a\s+(?:hairdresser|stylist|barber)"
        + _NAMED
        + r"|(?-i:[A-Z])[\w'-]+\s+at\s+(?-i:[A-Z])[\w'& -]{0,30}?\b(?:salon|barbers?|barbershop|hair\w*|cuts|clips|"
        r"blowout))\b",
        "appearance",
        "hairdresser",
    ),
    (
        r"^(?:my|our)\s+(?:new\s+|regular\s+)?(?:vet|vets|veterinarian)(?:\s+there)?(?:'s|\s+is)\s+(?:now\s+)?(?:dr\.?\s+|the\s+)?"
        r"(?-i:[A-Z])",
        "pets",
        "vet",
    ),
    (
        # "my operator is Vivo", "my carrier is Telcel prepaid", "my network's O2".
        r"^(?:my|our)\s+(?:main\s+|current\s+|new\s+|mobile\s+|phone\s+|cell\s+)?(?:carrier|operator|network|"
        r"mobile\s+provider|phone\s+provider|cell\s+provider|sim|provider|(?:phone|mobile|cell)\s+(?:plan|contract))"
        r"(?:'s|\s+is)\s+(?:now\s+)?(?:with\s+|on\s+)?(?-i:[A-Z])|"
        # "My mobile is with Rogers", not "my mobile is a Nokia".
        r"^(?:my|our)\s+(?:mobile|cell|phone)(?:'s|\s+is)\s+(?:now\s+)?(?:with|on)\s+"
        r"(?-i:[A-Z])",
        "contact",
        "mobile_carrier",
    ),
    (
        # "I do my weekly shop at Tesco", "we do our groceries at Aldi".
        r"^(?:i|we)\s+(?:usually\s+|always\s+|now\s+|mostly\s+)?do\s+(?:my|our|the)\s+(?:weekly\s+|big\s+|grocery\s+|food\s+)?"
        r"(?:shop|shopping|groceries|grocery\s+shopping)\s+(?:at|in)\s+(?-i:[A-Z])|"
        r"^(?:my|our)\s+(?:usual\s+|regular\s+|main\s+)?(?:supermarket|grocery\s+store|grocer)(?:'s|\s+is)\s+(?:now\s+)?"
        r"(?-i:[A-Z])|"
        # "I get most of our groceries from FairPrice", "Our groceries come from Loblaws", "We've started doing our
        # grocery shopping at No Frills".
        r"^(?:i|we)(?:'ve|\s+have)?\s+(?:\w+\s+)?(?:get|buy|order|ordering|getting|buying)\s+(?:most\s+of\s+|all\s+)?"
        r"(?:my|our|the)?\s*(?:food|groceries|grocery\s+shopping|weekly\s+shop)\s+(?:online\s+)?(?:at|from)\s+(?-i:[A-Z])|"
        r"^(?:my|our)\s+groceries\s+(?:come|mostly\s+come)\s+from\s+(?-i:[A-Z])|"
        r"^(?:i|we)(?:'ve|\s+have)?\s+(?:started\s+)?doing\s+(?:my|our|the)\s+(?:weekly\s+|big\s+|grocery\s+|food\s+)?"
        r"(?:shop|shopping|groceries)\s+(?:at|in)\s+(?-i:[A-Z])",
        "home",
        "supermarket",
    ),
    (
        r"^(?:my|our)\s+(?:new\s+)?dentist(?:\s+there)?(?:'s|\s+is)\s+(?:now\s+)?(?:dr\.?\s|(?-i:[A-Z]))|"
        r"^dr\.?\s+(?-i:[A-Z])[\w'-]+\s+is\s+(?:now\s+)?(?:my|our)\s+(?:new\s+)?dentist\b",
        "health",
        "dentist",
    ),
    (
        r"^(?:my|our)\s+(?:main\s+|new\s+)?bank(?:'s|\s+is)\s+(?:now\s+)?(?-i:[A-Z])|"
        # "Monzo is my bank".
        r"^(?-i:[A-Z])[\w&'.-]*(?:\s+(?-i:[A-Z])[\w&'.-]*){0,2}\s+is\s+(?:now\s+)?(?:my|our)\s+(?:main\s+|new\s+)?bank\b|"
        r"^(?:i|we)\s+(?:still\s+|now\s+|only\s+)?bank\s+with\s+(?-i:[A-Z])",
        "money",
        "bank",
    ),
    (
        r"^(?:my|our)\s+(?:home\s+|new\s+)?(?:internet|broadband|wifi|wi-fi|isp|fibre|fiber)(?:\s+provider)?(?:'s|\s+is)\s+"
        r"(?:now\s+)?(?:with\s+|through\s+|from\s+)?(?-i:[A-Z])|"
        # "student house is on bt broadband" (the name spelt as one).
        r"^(?:(?:my|our|the)\s+)?(?:student\s+)?(?:house|flat|place|home|apartment)\s+(?:is|'s)\s+on\s+(?-i:[A-Z])[\w&'-]*\s+"
        r"(?:broadband|fibre|fiber|internet)\b|"
        r"^(?:i|we)\s+(?:get|have)\s+(?:our|my)\s+(?:home\s+)?(?:internet|broadband|wifi|fibre|fiber)\s+(?:through|from|with)\s+"
        r"(?-i:[A-Z])|"
        r"^(?:i|we)\s+(?:have|'ve\s+got|have\s+got|got)\s+(?-i:[A-Z])[\w&'.+-]*(?:\s+(?-i:[A-Z])[\w&'.+-]*)?\s+"
        r"(?:broadband|internet|fibre|fiber)\b(?!.*\bat\s+(?:the\s+)?(?:office|work)\b)",
        "home",
        "internet_provider",
    ),
)
