"""Which patterns of a list may match a text at all, before any is searched.

The strategy tries long lists of patterns on every clause (`cues`, `facts`), and almost none
match: each search costs microseconds, a substring test a few dozen nanoseconds. From each
pattern's parse tree come what every match must contain: its literal words (one of a set, for an
alternation), each of them, and a digit where it needs one. A text in ASCII whose lowercase lacks
one of them cannot match, whatever the pattern's flags, and that pattern is skipped. A text
outside ASCII (where IGNORECASE also folds other letters onto ASCII ones, "ſ" onto "s") is
searched by every pattern, as without this.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

try:  # the parser `re` compiles with (Python 3.11+)
    from re import _constants as sre_constants  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    sre_constants = sre_parse = None

# A literal run this long or longer is a word to look for; two letters ("gp", "dr", "o2") tell little alone, and
# are looked for only beside a longer word's requirement.
MIN_NEEDLE = 3
MIN_WORD = 2
# Stands for "a digit": every match of `\d+` holds one ("my 30th birthday"). No word looked for is one letter long.
DIGIT = "0"
_DIGITS = frozenset(range(ord("0"), ord("9") + 1))
_A_DIGIT = re.compile(r"[0-9]")


def needles(pattern: re.Pattern[str]) -> tuple[frozenset[str], ...] | None:
    """What every match of `pattern` holds: sets of lowercase words, each set one whose words a match holds one
    of, the most telling set first; None when nothing is known."""
    if sre_parse is None:
        return None
    try:
        required = _required(list(sre_parse.parse(pattern.pattern, pattern.flags)))
    except Exception:
        return None
    # Fewest words first (each costs a look at the text), of those the longest; the same set once.
    ordered = sorted({frozenset(words) for words in required}, key=_telling)
    return tuple(ordered) or None


def _telling(words: frozenset[str]) -> tuple[int, int, int, tuple[str, ...]]:
    """How little a set of words tells, for the order of a pattern's requirements: a set of short words tells
    least, then one of many words; the words themselves settle ties, so the order is the same in every process."""
    shortest = min(len(w) for w in words)
    return (shortest < MIN_NEEDLE, len(words), -shortest, tuple(sorted(words)))


def _required(items: Iterable[tuple[object, object]]) -> list[set[str]]:
    """The requirements of a sequence of parsed items: sets of words, each set one whose words a match holds
    one of. Only what every match goes through counts: a literal run, a digit, a group, a repeat of at least
    one, an alternation whose every branch requires something; lookarounds and optional parts add nothing."""
    c = sre_constants
    found: list[set[str]] = []
    run = ""
    for op, value in items:
        if op is c.LITERAL and isinstance(value, int) and value < 128:
            run += chr(value).lower()
            continue
        if len(run) >= MIN_WORD:
            found.append({run})
        run = ""
        if op is c.SUBPATTERN:
            found.extend(_required(value[-1]))  # type: ignore[index]
        elif op is c.IN and _is_digit(value):
            found.append({DIGIT})
        elif op is c.BRANCH:
            branches = [_required(branch) for branch in value[1]]  # type: ignore[index]
            if all(branches):
                found.append(set().union(*(min(b, key=lambda ws: _telling(frozenset(ws))) for b in branches)))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and value[0] >= 1:  # type: ignore[index]
            found.extend(_required(value[2]))  # type: ignore[index]
    if len(run) >= MIN_WORD:
        found.append({run})
    return found


def _is_digit(items: object) -> bool:
    """Whether a character class holds digits only (`\\d`, `[0-9]`, `[2-5]`), in a text of ASCII."""
    c = sre_constants
    if not isinstance(items, list) or not items:
        return False
    for op, value in items:
        if op is c.CATEGORY and value is c.CATEGORY_DIGIT:
            continue
        if op is c.RANGE and set(range(value[0], value[1] + 1)) <= _DIGITS:  # type: ignore[index]
            continue
        if op is c.LITERAL and value in _DIGITS:
            continue
        return False
    return True


class Patterns[T]:
    """(pattern, value) pairs, searched in their order, each skipped when the text lacks what it requires.

    A pair is looked up by the words of its most telling requirement (a text's words say which pairs may
    match, whatever the length of the list); its other requirements are checked for those pairs only.
    """

    def __init__(self, pairs: Iterable[tuple[re.Pattern[str], T]]) -> None:
        self.pairs: Sequence[tuple[re.Pattern[str], T]] = list(pairs)
        self.needles = [needles(pattern) for pattern, _ in self.pairs]
        words = frozenset().union(*(w for n in self.needles if n is not None for w in n))
        # Each word under its first three letters: a text's own three-letter runs say which words to look for.
        self._by_start: dict[str, tuple[str, ...]] = {}
        for word in sorted(w for w in words if len(w) >= MIN_NEEDLE):
            self._by_start[word[:MIN_NEEDLE]] = (*self._by_start.get(word[:MIN_NEEDLE], ()), word)
        self._short = tuple(sorted(w for w in words if len(w) < MIN_NEEDLE and w != DIGIT))
        self._digits = DIGIT in words
        # The pairs under each word of their first requirement; the pairs with none are tried on every text.
        by_word: dict[str, list[int]] = {}
        for index, required in enumerate(self.needles):
            for word in required[0] if required else ():
                by_word.setdefault(word, []).append(index)
        self._by_word = {word: tuple(indexes) for word, indexes in by_word.items()}
        self._unfiltered = tuple(index for index, required in enumerate(self.needles) if required is None)

    def _present(self, low: str) -> set[str]:
        """The words of the list that `low` holds."""
        starts = {low[i : i + MIN_NEEDLE] for i in range(len(low) - MIN_NEEDLE + 1)}
        by_start = self._by_start
        present = {word for start in starts & by_start.keys() for word in by_start[start] if word in low}
        present.update(word for word in self._short if word in low)
        if self._digits and _A_DIGIT.search(low):
            present.add(DIGIT)
        return present

    def _indexes(self, text: str) -> Iterable[int]:
        """The indexes of the pairs that may match `text`, in order."""
        if not text.isascii():
            return range(len(self.pairs))
        present = self._present(text.lower())
        by_word = self._by_word
        looked_up = {index for word in present if word in by_word for index in by_word[word]}
        looked_up.update(self._unfiltered)
        needles = self.needles
        return [
            index
            for index in sorted(looked_up)
            if (required := needles[index]) is None or all(not present.isdisjoint(words) for words in required[1:])
        ]

    def possible(self, text: str) -> list[tuple[re.Pattern[str], T]]:
        """The pairs whose pattern may match `text`, in order: the text is lowered and its words looked for once."""
        pairs = self.pairs
        return [pairs[index] for index in self._indexes(text)]

    def search(self, text: str) -> Iterator[tuple[re.Match[str], T]]:
        """Each pair whose pattern matches `text`, with its match, in order."""
        pairs = self.pairs
        for index in self._indexes(text):
            pattern, value = pairs[index]
            match = pattern.search(text)
            if match is not None:
                yield match, value
