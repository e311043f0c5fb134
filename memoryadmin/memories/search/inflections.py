"""Irregular English forms: "won" is "win", "written" is "write", "children" is "child".

PostgreSQL's English stemmer folds regular endings ("plays", "played", "playing" -> "play")
but not irregular forms, so "When did Nate win his third tournament?" shared no word with
"Nate won a regional tournament". A query word with irregular forms matches any of them in
full text (candidates.py), and term similarity compares every form as its base word
(scoring.py), so they are the same word there too.

The table is the common irregular verbs and nouns of everyday English. Forms that are as
often another word are left out ("left" the side, "rose" the flower, "shot" a photo, "lit",
"bit"), and so are the verbs whose forms are stop words anyway ("be", "have", "do").
"""

from __future__ import annotations

from functools import cache

# A base word, a colon, its irregular forms; one entry a line.
_TABLE = """
become: became
begin: began, begun
blow: blew, blown
break: broke, broken
bring: brought
build: built
buy: bought
catch: caught
choose: chose, chosen
come: came
deal: dealt
dig: dug
draw: drew, drawn
drink: drank
drive: drove, driven
eat: ate, eaten
fall: fell, fallen
feed: fed
feel: felt
fight: fought
find: found
fly: flew, flown
forget: forgot, forgotten
forgive: forgave, forgiven
freeze: froze, frozen
get: got, gotten
give: gave, given
go: went, gone
grow: grew, grown
hang: hung
hear: heard
hide: hid, hidden
hold: held
keep: kept
know: knew, known
lead: led
lose: lost
make: made
mean: meant
meet: met
overcome: overcame
pay: paid
ride: rode, ridden
ring: rang, rung
run: ran
say: said
see: saw, seen
seek: sought
sell: sold
send: sent
shake: shook, shaken
show: shown
sing: sang, sung
sit: sat
sleep: slept
speak: spoke, spoken
spend: spent
stand: stood
steal: stole, stolen
stick: stuck
swim: swam, swum
take: took, taken
teach: taught
tear: tore, torn
tell: told
think: thought
throw: threw, thrown
understand: understood
wake: woke, woken
wear: wore, worn
win: won
write: wrote, written
child: children
man: men
woman: women
foot: feet
tooth: teeth
mouse: mice
"""


@cache
def _forms() -> dict[str, tuple[str, ...]]:
    """Each word of the table (a base or a form) and every word of its entry, the base first."""
    found: dict[str, tuple[str, ...]] = {}
    for line in _TABLE.strip().splitlines():
        base, listed = line.split(":", 1)
        entry = (base.strip(), *(form.strip() for form in listed.split(",")))
        for word in entry:
            found[word] = entry
    return found


def base_word(word: str) -> str:
    """The word the table gives as the base of `word` (lower case), or `word` itself."""
    entry = _forms().get(word)
    return entry[0] if entry else word


def other_forms(word: str) -> tuple[str, ...]:
    """The other words of `word`'s entry ("win" -> "won"; "won" -> "win"), none when it has none."""
    return tuple(w for w in _forms().get(word, ()) if w != word)
