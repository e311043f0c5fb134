"""Which patterns of a list may match a text at all, before any is searched.

The strategy tries long lists of patterns on every clause (`cues`, `facts`), and almost none
match: each search costs microseconds, a substring test a few dozen nanoseconds. From each
pattern's parse tree come the literal words a match must contain (one of a set, for an
alternation): a text in ASCII whose lowercase holds none of them cannot match, whatever the
pattern's flags, and that pattern is skipped. A text outside ASCII (where IGNORECASE also folds
other letters onto ASCII ones, "ſ" onto "s") is searched by every pattern, as without this.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

try:  # the parser `re` compiles with (Python 3.11+)
    from re import _constants as sre_constants  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    sre_constants = sre_parse = None

# Shorter literals are in too many texts to tell anything.
MIN_NEEDLE = 3


def needles(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """Lowercase words one of which every match of `pattern` contains, or None when none is known."""
    if sre_parse is None:
        return None
    try:
        required = _required(list(sre_parse.parse(pattern.pattern, pattern.flags)))
    except Exception:
        return None
    if not required:
        return None
    # The requirement with the fewest words (each costs a look at the text), of those the longest.
    return frozenset(max(required, key=lambda words: (-len(words), min(len(w) for w in words))))


def _required(items: Iterable[tuple[object, object]]) -> list[set[str]]:
    """The requirements of a sequence of parsed items: sets of words, each set one whose words a match holds
    one of. Only what every match goes through counts: a literal run, a group, a repeat of at least one, an
    alternation whose every branch requires something; lookarounds and optional parts add nothing."""
    c = sre_constants
    found: list[set[str]] = []
    run = ""
    for op, value in items:
        if op is c.LITERAL and isinstance(value, int) and value < 128:
            run += chr(value).lower()
            continue
        if len(run) >= MIN_NEEDLE:
            found.append({run})
        run = ""
        if op is c.SUBPATTERN:
            found.extend(_required(value[-1]))  # type: ignore[index]
        elif op is c.BRANCH:
            branches = [_required(branch) for branch in value[1]]  # type: ignore[index]
            if all(branches):
                found.append(set().union(*(max(b, key=lambda ws: min(len(w) for w in ws)) for b in branches)))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and value[0] >= 1:  # type: ignore[index]
            found.extend(_required(value[2]))  # type: ignore[index]
    if len(run) >= MIN_NEEDLE:
        found.append({run})
    return found


class Patterns[T]:
    """(pattern, value) pairs, searched in their order, each skipped when its words are not in the text."""

    def __init__(self, pairs: Iterable[tuple[re.Pattern[str], T]]) -> None:
        self.pairs: Sequence[tuple[re.Pattern[str], T]] = list(pairs)
        self.needles = [needles(pattern) for pattern, _ in self.pairs]
        self.words = frozenset().union(*(n for n in self.needles if n is not None))
        # Each word under its first three letters: a text's own three-letter runs say which words to look for.
        self._by_start: dict[str, tuple[str, ...]] = {}
        for word in sorted(self.words):
            self._by_start[word[:MIN_NEEDLE]] = (*self._by_start.get(word[:MIN_NEEDLE], ()), word)

        self._unfiltered = [pair for pair, words in zip(self.pairs, self.needles, strict=True) if words is None]

    def _present(self, low: str) -> set[str]:
        """The words of the list that `low` holds."""
        starts = {low[i : i + MIN_NEEDLE] for i in range(len(low) - MIN_NEEDLE + 1)}
        by_start = self._by_start
        return {word for start in starts & by_start.keys() for word in by_start[start] if word in low}

    def possible(self, text: str) -> list[tuple[re.Pattern[str], T]]:
        """The pairs whose pattern may match `text`, in order: the text is lowered and its words looked for once."""
        if not text.isascii():
            return list(self.pairs)
        present = self._present(text.lower())
        if not present:
            return list(self._unfiltered)
        return [
            pair
            for pair, words in zip(self.pairs, self.needles, strict=True)
            if words is None or not present.isdisjoint(words)
        ]

    def search(self, text: str) -> Iterator[tuple[re.Match[str], T]]:
        """Each pair whose pattern matches `text`, with its match, in order."""
        if text.isascii():
            present = self._present(text.lower())
            for (pattern, value), words in zip(self.pairs, self.needles, strict=True):
                if words is not None and present.isdisjoint(words):
                    continue
                match = pattern.search(text)
                if match is not None:
                    yield match, value
            return
        for pattern, value in self.pairs:
            match = pattern.search(text)
            if match is not None:
                yield match, value
