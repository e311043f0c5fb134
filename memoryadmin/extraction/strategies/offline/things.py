"""Things of a single-valued kind the speaker names in passing: "…in my new Prius", "My Honda Civic just hit 200k".

Each gives a memory of its own ("Pat has a new Prius") with the attribute of its kind (`car`, `phone`,
`computer`…), so a later one supersedes it. A thing the speaker still has alongside another ("I still use my
ThinkPad at home", "back in my Corolla"), or only has for a while (a rental, a loaner), is no new value.
"""

from __future__ import annotations

import re

from memoryadmin.extraction.strategies.offline.lexicon import GENERIC_THINGS, OTHER_GOODS, PETS, THING_OF, word_set

_NEW_THING = re.compile(
    r"\b(?:my|our)\s+(?:brand[- ]new|new)\s+(?P<phrase>(?:[a-z0-9-]+\s+)?(?P<thing>[a-z-]+))\b", re.IGNORECASE
)
# "My Honda Civic just hit 200k miles", "my iPhone 12 battery dies by lunchtime": a make or model named in passing.
_NAMED_THING = re.compile(
    r"\b(?:my|our)\s+(?P<phrase>(?:(?:19|20)\d\d\s+)?(?P<thing>[a-z][a-z-]*)(?:\s+(?-i:[A-Z0-9])[\w-]*){0,2})",
    re.IGNORECASE,
)

# Makes and product lines of many models: named alone in passing, they restate rather than replace.
_MAKES = word_set(
    """iphone pixel galaxy samsung android oneplus motorola moto xiaomi huawei redmi honor oppo vivo realme tecno
    infinix doro nokia macbook thinkpad dell lenovo asus
    acer hp chromebook imac tesla toyota honda ford chevy chevrolet bmw audi mercedes volkswagen vw subaru mazda nissan
    hyundai kia volvo lexus porsche jaguar fiat peugeot renault skoda opel vauxhall citroen dacia"""
)


# "I still use my ThinkPad at home", "glad to be back in my Corolla", "a BMW as a rental", "some Tesla stock":
# nothing new to drive or carry.
NOT_A_NEW_ONE = re.compile(
    # "I still use my iPhone for everything personal" beside a work phone; "I still drive my old 2009 Civic" is the
    # car the speaker has, however old.
    r"\bstill\s+(?:use|using|have|got|drive|driving|ride|riding|own|rocking)\b(?!\s+(?:my|our)\s+old\b)|"
    r"\bback\s+(?:in|to|on)\s+(?:my|our)\b|"
    r"\b(?:rental|rented|borrow(?:ed|ing)?|loaner|courtesy|test[- ]drive|stock|stocks|shares)\b|"
    # One beside the one the speaker uses: "a Nokia 3310 as a backup phone".
    r"\b(?:backup|back-up|spare|second|burner)\s+(?:phone|car|laptop)\b|"
    # A present for someone else: "Got my mum a Samsung Galaxy for her birthday".
    r"\b(?:got|get|bought|buy|gave|give|ordered)\s+(?:my|our)\s+[a-z]+\s+(?:a|an|the|his|her|their)\b|\bfor\s+(?:her|his|their)\s+birthday\b|"
    r"\bfor\s+(?:my|our)\s+(?:mum|mom|dad|mother|father|son|daughter|kids?|nephew|niece|brother|sister|wife|husband|"
    r"partner|friend|grandma|grandpa|grandson|granddaughter|cousin|girlfriend|boyfriend)\b",
    re.IGNORECASE,
)


def possession_in(clause: str) -> tuple[str, str] | None:
    """A thing of a single-valued kind mentioned in passing: (attribute, what the speaker has).

    "…in my new Prius" -> ("car", "a new Prius"); "My Honda Civic just hit 200k miles" -> ("car", "a Honda Civic").
    """
    if NOT_A_NEW_ONE.search(clause):
        return None
    for match in _NEW_THING.finditer(clause):
        attribute = THING_OF.get(match.group("thing").lower())
        if attribute:
            phrase = match.group("phrase")
            first = phrase.split()[0].lower()
            if first != match.group("thing").lower() and first in ("and", "or", "one", "very", "so"):
                phrase = match.group("thing")
            return attribute, f"a new {phrase}"
    for match in _NAMED_THING.finditer(clause):
        thing = match.group("thing").lower()
        phrase = match.group("phrase")
        # "while my Pixel gets a new screen": a make or a line alone says which one no better than the fact before.
        if thing in THING_OF and thing not in GENERIC_THINGS and not (thing in _MAKES and phrase.lower() == thing):
            return THING_OF[thing], f"an {phrase}" if phrase[:1].lower() in "aeiou" else f"a {phrase}"
    return None


def owned_thing(phrase: str) -> str:
    """The kind of thing a short noun phrase names: "a used 2019 Honda Civic" -> "honda", "two cats" -> "cats"."""
    words = re.findall(r"[a-z][a-z-]*|\d+", phrase.lower())[:6]
    for index, word in enumerate(words):
        if word in THING_OF or word in PETS:
            after = words[index + 1] if index + 1 < len(words) else ""
            # A make of other goods too: "a Samsung TV" is no phone, "a Samsung laptop" a computer.
            if word in _MAKES and THING_OF.get(after, THING_OF[word]) != THING_OF[word]:
                return after
            if word in _MAKES and after in OTHER_GOODS:
                return ""
            return word
        if word in _PHRASE_ENDS:
            break
    return ""


_PHRASE_ENDS = word_set("for from to at in on with because since when and but so that which who yesterday")
