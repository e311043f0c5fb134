"""The attributes a question asks about: "Where does she work?" asks the person's `employer`.

Extraction gives the facts that change one value at a time an attribute (employer, residence,
phone…): the newest is current, the older superseded. A question in everyday words about such
a fact may share none of its words with the current memory ("where does she work?" and "User is
starting at KPMG on Monday"), and the memory that shared them is the superseded one. So a
person's current memories of the attributes a question asks about are candidates whatever
their words (candidates.py), and count a little more (scoring.ATTRIBUTE_WEIGHT).

Each word names the attributes it asks about; a question asks about every attribute its words name.
"""

from __future__ import annotations

_ASKED = {
    "employer": "work works working worked job jobs employer employed company firm office hired",
    "occupation": "job jobs occupation profession career role title position",
    "residence": "live lives living lived home address based reside resides moved move city town",
    "home": "home house flat apartment",
    "phone": "phone phones smartphone iphone android mobile",
    "phone_number": "number",
    "email": "email e-mail",
    "car": "car cars drive drives driving vehicle",
    "diet": "diet eat eats eating vegetarian vegan meat",
    "relationship_status": "single married dating relationship engaged divorced separated seeing",
    "partner": "partner boyfriend girlfriend husband wife fiance fiancé fiancee fiancée spouse dating seeing",
    "school": "school university uni college study studies studying student",
    "course": "study studies studying course degree major",
    "team": "team supporter",
    "age": "age old",
    "doctor": "doctor gp",
    "dentist": "dentist",
    "bank": "bank banks",
    "internet_provider": "internet broadband wifi provider",
    "gym": "gym",
    "smoking": "smoke smokes smoking cigarettes",
    "instrument": "instrument instruments",
    "shift": "shift shifts",
    "hair colour": "hair",
    "origin": "hometown grew grow raised",
    "computer": "computer laptop pc mac macbook",
    "bicycle": "bike bicycle",
    "motorbike": "motorbike motorcycle",
}
# "What's her favourite film?" asks `favourite movie`: one attribute for each kind of favourite, however it is
# named; extraction names the favourites it reads by the same words.
_FAVOURITE = frozenset({"favourite", "favorite", "fave", "fav"})
FAVOURITE_KINDS = {
    "dish": "food",
    "meal": "food",
    "foods": "food",
    "film": "movie",
    "films": "movie",
    "movies": "movie",
    "color": "colour",
    "group": "band",
    "bands": "band",
    "songs": "song",
    "books": "book",
    "drinks": "drink",
}

ATTRIBUTES_OF: dict[str, tuple[str, ...]] = {}
for _attribute, _words in _ASKED.items():
    for _word in _words.split():
        ATTRIBUTES_OF[_word] = (*ATTRIBUTES_OF.get(_word, ()), _attribute)


def attributes_asked(words: list[str]) -> tuple[str, ...]:
    """The attributes the question's content words ask about, in the order they are named."""
    found: dict[str, None] = {}
    favourite = not _FAVOURITE.isdisjoint(words)
    for word in words:
        for attribute in ATTRIBUTES_OF.get(word, ()):
            found[attribute] = None
        if favourite and word not in _FAVOURITE:
            found[f"favourite {FAVOURITE_KINDS.get(word, word)}"] = None
    return tuple(found)


def asking(attribute: str, words: list[str]) -> list[bool]:
    """Which of the question's words ask about `attribute` ("work" for employer; "favourite" and "film" for the
    favourite movie)."""
    if attribute.startswith("favourite "):
        kind = attribute.removeprefix("favourite ")
        return [word in _FAVOURITE or FAVOURITE_KINDS.get(word, word) == kind for word in words]
    return [attribute in ATTRIBUTES_OF.get(word, ()) for word in words]
