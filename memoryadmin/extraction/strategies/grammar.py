"""Rewriting what someone said about themselves in the third person, under their name.

The one grammar of the offline strategies: `offline` writes every memory with it, `rules` the
content of "remember that…".

"I just got back from a trip with my family in my new Prius", said by Evan,
becomes "Evan just got back from a trip with their family in their new Prius".
The first self-reference takes the speaker's name ("I" -> "Evan", "my" ->
"Evan's", "me" -> "Evan"), later ones "they" / "their" / "them"; the verb after
a subject "I" agrees with it ("I love" -> "Evan loves", "I'm" -> "Evan is", "I've"
-> "Evan has"). "We" becomes "Evan and others" ("Evan and their partner" for what a couple does: "we broke up",
"we're engaged"). A clause that drops its subject,
as chat does ("Started hitting the gym last week"), gets the speaker back
("Evan started hitting the gym last week").

English only, and by rule rather than by parse: a verb is the word after the
subject once adverbs are skipped, and its form is read off its spelling and a
list of irregular verbs.
"""

from __future__ import annotations

import re

from memoryadmin.extraction.strategies.offline.lexicon import STATE_ADJECTIVES, word_set

# Spellings of chat that hide the words a rewrite needs to see.
_SPELLINGS = {
    "gonna": "going to",
    "wanna": "want to",
    "gotta": "have to",
    "cuz": "because",
    "coz": "because",
    "im": "I'm",
    "ive": "I've",
    "i": "I",
    "u": "you",
    # Apostrophes left out and common slips of the keyboard.
    "dont": "don't",
    "didnt": "didn't",
    "doesnt": "doesn't",
    "cant": "can't",
    "isnt": "isn't",
    "wasnt": "wasn't",
    "havent": "haven't",
    "couldnt": "couldn't",
    "wouldnt": "wouldn't",
    "shouldnt": "shouldn't",
    "thats": "that's",
    "whats": "what's",
    "youre": "you're",
    "theyre": "they're",
    "teh": "the",
    "alot": "a lot",
    "becuase": "because",
    "becasue": "because",
    "definately": "definitely",
    "tommorow": "tomorrow",
    "tomorow": "tomorrow",
    "yesterdy": "yesterday",
    "realy": "really",
    "freind": "friend",
    "freinds": "friends",
}
_IRREGULAR_PAST = word_set(
    """was were had did went got made said thought knew grew lived came saw took gave told became began bought
    brought felt found left lost met paid ran sat sold sent spent stood understood won wrote ate drank drove flew
    fell forgot heard kept led meant slept spoke swam taught threw woke wore broke built caught chose dealt drew fed
    fought forgave froze hid held hung hurt laid lent lit rode rang rose shook shot shut sang sank slid spun stole
    stuck struck swore swept tore wept wound bent bled blew bred burnt dreamt dug fled flung forbade forgot
    ground knelt leapt learnt overcame rebuilt sought shone shrank slung spat sprang stank strode strove stung
    swung thrust trod undertook underwent upset withdrew"""
)
_MODALS = word_set(
    """can could will would shall should may might must can't cannot couldn't won't wouldn't shouldn't mustn't
    didn't wasn't weren't hadn't used"""
)
_THIRD_SINGULAR = {
    "am": "is",
    "be": "is",
    "have": "has",
    "haven't": "hasn't",
    "do": "does",
    "don't": "doesn't",
    "go": "goes",
    "were": "was",
    "aren't": "isn't",
}
_CHAT_SPELLING = re.compile(r"\b(" + "|".join(_SPELLINGS) + r")\b(?!')", re.IGNORECASE)
_SAME_IN_THE_PAST = word_set("read put cut hit let set quit shut cost hurt spread upset bet burst cast split")
_PLURAL = {"am": "are", "was": "were", "wasn't": "weren't", "be": "are"}
# Skipped between a subject and its verb.
_ADVERBS = word_set(
    """really also just finally recently actually still totally kinda kind sort of always usually never often
    sometimes even only absolutely definitely truly honestly literally mostly already then now currently both all
    officially basically seriously genuinely simply probably certainly barely hardly nearly almost sorta"""
)
_NOT_VERBS = word_set("and or but too as so with to in on at for of the a an")
_HELPERS = word_set("do don't didn't am have haven't will won't can can't")
# Verbs a speaker goes on with after "and", said of themselves still ("…and commute to The Hague daily").
_AND_VERBS = word_set(
    """work commute live study teach drive run play love like hate enjoy go take have own use train cook walk cycle
    ride spend visit travel volunteer write sing dance paint coach manage lead help care make need want try
    speak rent share support follow eat drink swim climb practise practice attend belong"""
)
_TOKEN = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?|'[A-Za-z]+|[^A-Za-z']+|'")
_CONTRACTED = {
    "i'm": ("is", "are"),
    "i've": ("has", "have"),
    "i'll": ("will", "will"),
    "we're": ("are", "are"),
    "we've": ("have", "have"),
    "we'll": ("will", "will"),
    "we'd": ("would", "would"),
}
_PARTICIPLE_HINT = word_set("been gone done seen had got made taken given known")
_MY_X_AND_I = re.compile(r"\b(my|our)\s+((?:[^\W\d_]+\s+)?[^\W\d_]+)\s+and\s+I\b", re.IGNORECASE)
_ME_AND_MY_X = re.compile(r"\bme\s+and\s+(my|our)\b", re.IGNORECASE)


# Verbs whose present ends as a past does ("I need a new laptop by friday").
_PRESENT_IN_ED = word_set("need feed bleed breed speed succeed proceed exceed heed weed seed embed shred")


def is_past_form(word: str) -> bool:
    low = word.lower()
    return low in _IRREGULAR_PAST or (low.endswith("ed") and len(low) > 3 and low not in _PRESENT_IN_ED)


def third_singular(verb: str) -> str:
    """The verb as it goes with "she" or "Evan": "love" -> "loves", "am" -> "is", "went" -> "went"."""
    low = verb.lower()
    if low in _THIRD_SINGULAR:
        return _THIRD_SINGULAR[low]
    if low in _MODALS or is_past_form(low) or not low.isalpha() or low.endswith("ing"):
        return verb
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def normalise_spelling(text: str) -> str:
    """Chat spellings the rewrite must see through: "gonna" -> "going to", a lone "i" -> "I"."""
    if "'cause" in text:
        text = text.replace("'cause", "because")
    return _CHAT_SPELLING.sub(lambda m: _SPELLINGS[m.group(1).lower()], text)


def restore_subject(clause: str) -> str:
    """Give a clause that dropped its subject its "I" back: "Been busy lately" -> "I've been busy lately"."""
    words = clause.split(None, 2)
    if not words:
        return clause
    first = words[0].lower()
    skip = 0
    while first in _ADVERBS and skip + 1 < len(words):
        skip += 1
        first = words[skip].lower()
    if clause[:8].lower() == "call me ":
        return clause
    if first == "been":
        return "I've " + clause[0].lower() + clause[1:]
    if first.endswith("ing") or first == "going" or first in STATE_ADJECTIVES:
        return "I'm " + clause[0].lower() + clause[1:]
    return "I " + clause[0].lower() + clause[1:]


def third_person(text: str, name: str, *, past: bool = False) -> str:
    """`text`, said by `name` about themselves, in the third person.

    With `past`, a verb that reads the same in the present and the past ("read", "put") is left alone.
    """
    text = _MY_X_AND_I.sub(lambda m: f"I and {m.group(1)} {m.group(2)}", text)
    text = _ME_AND_MY_X.sub(lambda m: f"I and {m.group(1)}", text)
    tokens = _TOKEN.findall(text)
    out: list[str] = []
    named = False
    # Whether the sentence's verb was said of the speaker alone: "I live in Leeds and work at Asda" -> "works".
    alone = False
    index = 0
    count = len(tokens)

    def next_word(start: int) -> int:
        look = start
        while look < count and (not tokens[look].strip() or tokens[look].lower() in _ADVERBS):
            look += 1
        return look

    while index < count:
        token = tokens[index]
        low = token.lower()
        if low in ("i", "we"):
            singular = low == "i" and not named
            # "Kenji and I are…": the speaker as the second of two subjects takes the verb as it is.
            joined = next((t for t in reversed(out) if t.strip()), "").lower() == "and"
            out.append((name if low == "i" else _we(name, tokens, index)) if not named else "they")
            plural_subject = low == "we" or named or joined
            named = True
            look = next_word(index + 1)
            if look < count and tokens[look][:1].isalpha() and tokens[look].lower() not in _NOT_VERBS:
                verb = tokens[look]
                out.extend(tokens[index + 1 : look])
                if singular and not plural_subject:
                    out.append(verb if past and verb.lower() in _SAME_IN_THE_PAST else third_singular(verb))
                    # Not after a modal or a helper: "I can swim and dance", "I don't smoke and drink".
                    alone = not past and verb.lower() not in _MODALS and verb.lower() not in _HELPERS
                elif low == "i":
                    out.append(_PLURAL.get(verb.lower(), verb))
                else:
                    out.append(verb)
                index = look
        elif low in _CONTRACTED or low in ("i'd", "we'd"):
            singular = low.startswith("i") and not named
            subject = (name if low.startswith("i") else _we(name, tokens, index)) if not named else "they"
            if low in ("i'd", "we'd"):
                look = next_word(index + 1)
                following = tokens[look].lower() if look < count else ""
                verb = "had" if is_past_form(following) or following in _PARTICIPLE_HINT else "would"
            else:
                singular_form, plural_form = _CONTRACTED[low]
                verb = singular_form if singular else plural_form
            out.append(f"{subject} {verb}")
            # "I'm single and want to…" -> "Pat is single and wants to…".
            alone = singular and low in ("i'm", "im", "i've", "ive")
            named = True
        elif low in ("my", "our"):
            out.append("their" if named else f"{name}'s")
            named = True
        elif low == "me" or (low == "us" and not token.isupper()):  # "the US" is a country
            out.append("them" if named else name)
            named = True
        elif low in ("myself", "ourselves"):
            out.append("themselves")
        elif low in ("mine", "ours"):
            out.append("theirs" if named else f"{name}'s")
            named = True
        elif low == "and" and alone and (look := next_word(index + 1)) < count and tokens[look] in _AND_VERBS:
            out.extend(tokens[index:look])
            out.append(third_singular(tokens[look]))
            index = look
        else:
            # An infinitive goes on with its own verbs: "I like to run and play".
            if alone and (
                any(mark in token for mark in ".!?;")
                or (low == "to" and (after := next_word(index + 1)) < count and tokens[after] in _AND_VERBS)
            ):
                alone = False
            out.append(token)
        index += 1
    result = "".join(out).strip()
    return result[:1].upper() + result[1:]


# What only a couple does together, after "we": the other is the speaker's partner ("we met" may be friends).
_COUPLE = re.compile(
    r"\s+(?:(?:just|finally|officially|have|had|are|were|got|are getting|just got)\s+)?(?:"
    r"(?:broke|split) up|separated|divorced|married|engaged|getting (?:married|divorced)|separating|divorcing|"
    r"moved in together|had (?:a|our) (?:baby(?!\s+shower)|son|daughter|little)|had twins|"
    r"(?:will|'ll|are going to|are gonna) (?:get )?marr(?:y|ied)|are marrying|"
    r"expecting(?=\s*(?:[!.]|$|a\s+baby|our\s+first|twins|a\s+(?:boy|girl)\b)))\b",
    re.IGNORECASE,
)


def _we(name: str, tokens: list[str], index: int) -> str:
    """Who "we" (or "we're", "we've"…) at `index` is: "we broke up", "we're engaged" are the speaker and their
    partner; anything else the speaker and others."""
    following = "".join(tokens[index + 1 : index + 10])
    return f"{name} and their partner" if _COUPLE.match(following) else f"{name} and others"
