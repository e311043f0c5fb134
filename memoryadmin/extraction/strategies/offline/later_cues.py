"""The cues `news` reads after `cues.CUES`, each with the attribute it sets: offers taken, a trade left, and the
wordings the earlier cues leave to these ("I'm a Rams fan now", "I'm the swim instructor now").
"""

from __future__ import annotations

import re

from memoryadmin.extraction.strategies.offline.facts import Kind
from memoryadmin.extraction.strategies.offline.lexicon import INSTRUMENTS, OWNS_A_THING, PROFESSIONS
from memoryadmin.extraction.strategies.offline.phrases import (
    AM,
    CAP,
    DIETS,
    FIELDS,
    GYM_NAME,
    GYM_WORDS,
    NAME,
    rx,
)
from memoryadmin.memories.models import MemoryType

LATER_CUES: tuple[tuple[re.Pattern[str], Kind], ...] = (
    (
        rx(
            r"\b(?:offered|accepted|took)\s+(?:the|a|an)\s+(?:[\w-]+\s+)?(?:position|job|role|offer)\s+(?:at|with)\s+"
            + CAP
        ),
        Kind(MemoryType.SEMANTIC, "work", "employer"),
    ),
    (
        rx(r"\bwork(?:ing)?\s+as\s+(?:a|an)\s+\w|^(?:i|we)\s+(?:teach|tutor)\s+\w"),
        Kind(MemoryType.SEMANTIC, "work", "occupation"),
    ),
    (
        rx(r"\b(?:left|quit)\s+(?:teaching|nursing|medicine|law|accounting|engineering|retail|hospitality)\b"),
        Kind(MemoryType.EPISODIC, "work", "occupation", negation_ok=True),
    ),
    (
        rx(
            r"\b(?:been\s+)?seeing\s+(?:someone|somebody|a\s+(?:guy|girl|man|woman|boy))\b|"
            r"^(?:i|we)\s+(?:have|'ve)\s+been\s+together\b|\bmade\s+it\s+official\b|"
            r"\b(?:we're|we\s+are)\s+(?:now\s+)?(?:officially\s+)?exclusive\b"
        ),
        Kind(MemoryType.SEMANTIC, "relationships", "relationship_status"),
    ),
    (
        rx(
            r"\b(?:with|and|for|to|of)\s+my\s+(?:(?:new|current)\s+)?(?:boyfriend|girlfriend|husband|wife|partner|fianc[eé]e?)"
            r"\s*,?\s+(?-i:[A-Z][a-z]+)\b"
        ),
        Kind(MemoryType.SEMANTIC, "relationships", "partner"),
    ),
    (
        rx(
            r"\bstudy(?:ing)?\s+at\s+(?:the\s+)?" + CAP + r"|\benrolled\s+(?:at|in)\s+(?:the\s+)?" + CAP + r"|"
            r"\byear\s+\d{1,2}\s+at\s+" + CAP + r"|"
            r"\b(?:undergrad|degree|masters|master's|phd|bachelor's|studies|doctorate)\s+at\s+the\s+" + CAP
        ),
        Kind(MemoryType.SEMANTIC, "education", "school"),
    ),
    (
        rx(
            r"\b"
            + FIELDS
            + r"\s+(?:major|student)\b|"
            + AM
            + r"doing\s+(?:a|an|my)\s+"
            + FIELDS
            + r"\s+(?:degree|masters|phd|course|diploma)\b"
        ),
        Kind(MemoryType.SEMANTIC, "education", "course"),
    ),
    (
        rx(
            r"\bbeen\s+playing\s+(?:the\s+)?(?:" + INSTRUMENTS + r")\b|"
            r"^(?:the\s+)?(?:" + INSTRUMENTS + r")\s+is\s+my\s+(?:thing|instrument|jam|life)\b|"
            r"\bit's\s+all\s+(?:the\s+)?(?:" + INSTRUMENTS + r")\b"
        ),
        Kind(MemoryType.SEMANTIC, "music", "instrument"),
    ),
    (
        rx(
            r"\b(?:joined|switched\s+to|signed\s+up\s+(?:at|with|for)|cancell?ed|quit|left|go\s+to|going\s+to)\s+"
            r"(?:the\s+)?" + NAME + GYM_WORDS + r"|\bmy\s+(?:the\s+)?" + GYM_NAME + r"\s+membership\b|"
            r"^my\s+new\s+gym\s+(?:is|'s)\s"
        ),
        Kind(MemoryType.SEMANTIC, "fitness", "gym"),
    ),
    (
        rx(r"\b(?:made|got|set\s+up|created)\s+(?:a\s+)?(?:new\s+|grown[- ]up\s+|proper\s+)?e-?mail\b.*\S+@"),
        Kind(MemoryType.SEMANTIC, "contact", "email"),
    ),
    (
        rx(r"\b(?:it's|it\s+is|today\s+is|had|celebrated|celebrating)\s+my\s+\d{1,3}(?:st|nd|rd|th)\s+birthday\b"),
        Kind(MemoryType.SEMANTIC, "identity", "age"),
    ),
    (
        rx(
            r"\b(?:i|we)\s+(?:now\s+)?work(?:ing)?\s+(?:at|for)\s+" + CAP + r"|"
            r"\bmy\s+(?:manager|boss|team|colleagues?|coworkers?|co-workers?|office)\s+at\s+" + CAP
        ),
        Kind(MemoryType.SEMANTIC, "work", "employer"),
    ),
    (
        rx(
            r"\b(?:i'm|i\s+am)\s+(?:now\s+)?(?:the\s+)?(?:[a-z-]+\s+){0,2}(?:"
            + PROFESSIONS
            + r")\b(?!"
            + OWNS_A_THING
            + r")|"
            r"\bwork(?:ing)?\s+as\s+\w"
        ),
        Kind(MemoryType.SEMANTIC, "work", "occupation"),
    ),
    (
        rx(
            r"\b(?:i|now\s+i)\s+study\s+" + FIELDS + r"\b|"
            r"\b(?:switched|changed)\s+(?:my\s+)?(?:major|course|degree|faculty|subject)\s+"
            r"(?:from\s+[a-z]+(?:\s+[a-z]+)?\s+)?to\s+\w|\bchanged?\s+my\s+faculty\b"
        ),
        Kind(MemoryType.SEMANTIC, "education", "course"),
    ),
    (
        rx(
            r"\b(?:went|gone|turned|became)\s+(?:fully\s+|completely\s+|full\s+|100%\s+)?" + DIETS + r"\b|"
            r"\beat\s+(?:keto|paleo|vegan|vegetarian|plant[- ]based|gluten[- ]free|low[- ]carb)\b"
        ),
        Kind(MemoryType.SEMANTIC, "diet", "diet"),
    ),
    (
        rx(
            AM + r"learning\s+(?:the\s+)?(?:" + INSTRUMENTS + r")\b(?!\s+(?:too|as\s+well))|"
            r"\bsold\s+my\s+(?:" + INSTRUMENTS + r")\b"
        ),
        Kind(MemoryType.SEMANTIC, "music", "instrument", negation_ok=True),
    ),
    (
        rx(
            r"\b(?:have|got)\s+(?:a\s+)?new\s+(?:phone\s+|cell\s+|mobile\s+)?number\b|"
            r"\bmy\s+(?:phone\s+|cell\s+|mobile\s+)?number\s+(?:has\s+)?changed\b"
        ),
        Kind(MemoryType.SEMANTIC, "contact", "phone_number"),
    ),
    (
        rx(r"\b(?:changed|switched)\s+my\s+e-?mail\b|\b(?:the|my)\s+e-?mail\s+(?:address\s+)?is\s+now\s+\S+@"),
        Kind(MemoryType.SEMANTIC, "contact", "email"),
    ),
    (
        rx(
            r"\bbeen\s+(?:at|with)\s+" + NAME + r"\s+(?:for\s+)?(?:\d+|a|an|one|two|three|four|five|six|ten)\s+"
            r"(?:years?|months?)\b|\bstart(?:ed|ing)?\s+(?:at|with)\s+" + CAP + r"|"
            r"\bmy\s+new\s+(?:team|manager|boss|colleagues?|coworkers?|office)\s+at\s+" + CAP
        ),
        Kind(MemoryType.SEMANTIC, "work", "employer"),
    ),
    (
        rx(
            r"\b(?:switched|moved|taken|took|accepted|started)\s+(?:into|to)?\s*(?:a|an|the)\s+(?:[a-z-]+\s+){0,3}"
            r"(?:role|job|position)\b"
        ),
        Kind(MemoryType.SEMANTIC, "work", "occupation"),
    ),
    (
        rx(
            r"\b(?:been\s+)?(?:seeing|dating)\s+(?:(?:someone|(?:this|a)\s+(?:guy|girl|man|woman))\s+(?:called\s+|named\s+)?)?"
            r"(?!(?:Dr|Doctor|Prof|Professor|Nurse|Mr|Mrs|Ms)\b)(?-i:[A-Z][a-z]+)\b"
        ),
        Kind(MemoryType.SEMANTIC, "relationships", "relationship_status"),
    ),
    (
        rx(
            r"\b(?:freshman|sophomore|junior|senior|student)\s+at\s+(?:a|an|the)\s+(?:[\w-]+\s+){0,2}"
            r"(?:college|university|school|uni)\b|\b\d(?:st|nd|rd|th)\s+year\s+at\s+" + CAP + r"|"
            r"\b(?:btech|bsc|msc|mba|ms|ma|ba|beng|llb|bachelors|masters)\s+at\s+(?:the\s+)?" + CAP + r"|"
            r"\b(?:shifted|transferred|moved|switched)\s+to\s+"
            + NAME
            + r"(?=.*\b(?:semester|campus|uni|university|college|school|classes|term)\b)"
        ),
        Kind(MemoryType.SEMANTIC, "education", "school"),
    ),
    (
        rx(AM + r"(?:a\s+)?(?:keto|paleo|carnivore|plant[- ]based)\b"),
        Kind(MemoryType.SEMANTIC, "diet", "diet"),
    ),
    (
        rx(
            AM
            + r"(?:supporting|rooting\s+for|following)\s+(?:the\s+)?"
            + CAP
            + r"|"
            + AM
            + r"(?:(?:a|an)\s+)?"
            + NAME
            + r"\s+(?:fan|guy|girl|supporter)\s+(?:now|these\s+days|nowadays)\b|"
            r"\bswitched\s+allegiance\s+to\s+(?:the\s+)?" + CAP
        ),
        Kind(MemoryType.SEMANTIC, "sports", "team"),
    ),
    (
        rx(r"\b(?:moved|switched)\s+(?:over\s+)?to\s+(?:the\s+)?(?:" + INSTRUMENTS + r")\b"),
        Kind(MemoryType.SEMANTIC, "music", "instrument"),
    ),
    (
        rx(r"\bswitched\s+to\s+(?:a|an|the)?\s*" + GYM_NAME),
        Kind(MemoryType.SEMANTIC, "fitness", "gym"),
    ),
    (
        rx(r"\bbuilt\s+(?:my\s+own|a|a\s+new)\s+(?:pc|computer|rig|gaming\s+pc)\b"),
        Kind(MemoryType.SEMANTIC, "possessions", "computer"),
    ),
    (
        rx(r"\bnow\s+that\s+(?:i'm|i\s+am)\s+\d{1,3}\b"),
        Kind(MemoryType.SEMANTIC, "identity", "age"),
    ),
    (
        rx(r"\b(?:weeks?|months?|years?)\s+of\s+living\s+in\s+" + CAP),
        Kind(MemoryType.SEMANTIC, "home", "residence"),
    ),
    (
        rx(r"\bnew\s+e-?mail(?:\s+\w+){0,3}\s+is\s+\S+@|\buse\s+\S+@\S+\s+instead\b"),
        Kind(MemoryType.SEMANTIC, "contact", "email"),
    ),
    (
        rx(
            r"\b(?:got|landed|started|accepted)\s+(?:a|my)\s+new\s+job\b|"
            r"^(?:i\s+)?(?:just\s+|finally\s+)?(?:got|landed)\s+the\s+job(?!\s+done)\b|"
            r"\b(?:enjoying|loving|starting|started|liking)\s+my\s+new\s+job\b|^my\s+new\s+job\b"
        ),
        Kind(MemoryType.SEMANTIC, "work", "employer"),
    ),
    (
        rx(r"\b(?:got|was|been|finally\s+got)\s+promoted\b"),
        Kind(MemoryType.EPISODIC, "work", "occupation"),
    ),
    (
        rx(
            AM
            + r"(?:now\s+)?at\s+(?:the\s+)?(?-i:University|College|Uni)\b|"
            + AM
            + r"(?:now\s+)?at\s+"
            + NAME
            + r"\s+(?-i:University|College|Uni)\b|\bfreshers?\s+week\s+at\s+"
            + CAP
        ),
        Kind(MemoryType.SEMANTIC, "education", "school"),
    ),
    (
        rx(r"\bdropped\s+" + FIELDS + r"\b.*\bswitched\s+to\s+" + FIELDS + r"\b"),
        Kind(MemoryType.SEMANTIC, "education", "course"),
    ),
    (
        rx(
            r"\bplayed\s+(?:the\s+)?(?:" + INSTRUMENTS + r")\s+for\s+(?:\d+|a|many|years)\b|"
            r"\btraded\s+(?:in\s+)?(?:my|the)\s+(?:"
            + INSTRUMENTS
            + r")\s+for\s+(?:a|an)\s+(?:[\w-]+\s+)?(?:"
            + INSTRUMENTS
            + r")\b"
        ),
        Kind(MemoryType.SEMANTIC, "music", "instrument"),
    ),
    (
        rx(r"\bhired\s+as\s+(?:a|an)\s+\w"),
        Kind(MemoryType.SEMANTIC, "work", "occupation"),
    ),
    (
        rx(r"\b(?:i'm|i\s+am)\s+(?:now\s+)?at\s+(?:a\s+)?community\s+college\b"),
        Kind(MemoryType.SEMANTIC, "education", "school"),
    ),
    (
        rx(AM + r"in\s+" + FIELDS + r"\s+now\b|\bswitched\s+from\s+" + FIELDS + r"\s+to\s+" + FIELDS + r"\b"),
        Kind(MemoryType.SEMANTIC, "education", "course"),
    ),
    (
        rx(AM + r"using\s+\+?\(?\d{2}"),
        Kind(MemoryType.SEMANTIC, "contact", "phone_number"),
    ),
    (
        rx(r"^my\s+team\s+is\s+(?:the\s+)?" + CAP + r"|\b(?:are|is)\s+my\s+team\s+now\b"),
        Kind(MemoryType.SEMANTIC, "sports", "team"),
    ),
)
