"""Who or what serves the speaker, one at a time: a doctor, a dentist, a bank, an internet provider.

"My GP is Dr Patel", "I bank with Lloyds", "our broadband is with Virgin Media": each names the one the speaker
has now, so a later "my GP is Dr O'Connor now" replaces it. (pattern, topic, attribute), read by `facts` in its
order; a pattern is searched case-insensitively, the name after it must be capitalised.
"""

from __future__ import annotations

PROVIDERS: tuple[tuple[str, str, str], ...] = (
    (
        r"^(?:my|our)\s+(?:family\s+|new\s+)?(?:gp|doctor|physician)(?:'s|\s+is)\s+(?:now\s+)?(?:dr\.?\s|doctor\s)|"
        # "Dr Shah is my GP now".
        r"^dr\.?\s+(?-i:[A-Z])[\w'-]+\s+is\s+(?:now\s+)?(?:my|our)\s+(?:new\s+)?(?:gp|doctor)\b",
        "health",
        "doctor",
    ),
    (
        r"^(?:my|our)\s+(?:new\s+)?dentist(?:'s|\s+is)\s+(?:now\s+)?(?:dr\.?\s|(?-i:[A-Z]))|"
        r"^dr\.?\s+(?-i:[A-Z])[\w'-]+\s+is\s+(?:now\s+)?(?:my|our)\s+(?:new\s+)?dentist\b",
        "health",
        "dentist",
    ),
    (
        r"^(?:my|our)\s+(?:main\s+|new\s+)?bank(?:'s|\s+is)\s+(?:now\s+)?(?-i:[A-Z])|"
        r"^(?:i|we)\s+(?:still\s+|now\s+|only\s+)?bank\s+with\s+(?-i:[A-Z])",
        "money",
        "bank",
    ),
    (
        r"^(?:my|our)\s+(?:home\s+|new\s+)?(?:internet|broadband|wifi|wi-fi|isp)(?:\s+provider)?(?:'s|\s+is)\s+"
        r"(?:now\s+)?(?:with\s+)?(?-i:[A-Z])|"
        r"^(?:i|we)\s+(?:have|'ve\s+got|have\s+got|got)\s+(?-i:[A-Z])[\w&'.+-]*(?:\s+(?-i:[A-Z])[\w&'.+-]*)?\s+"
        r"(?:broadband|internet|fibre|fiber)\b(?!.*\bat\s+(?:the\s+)?(?:office|work)\b)",
        "home",
        "internet_provider",
    ),
)
