"""Every way a change's pattern can match fills its template: a branch that matches without the value its
template names would fail the extraction run of the message that says it ("I took my shahada." once did)."""

from __future__ import annotations

import re
import string
from re import _constants as c
from re import _parser

import pytest

from memoryadmin.extraction.strategies.offline.milestones import MILESTONES, PASSING


def _guaranteed(items, names: dict[int, str]) -> set[str]:
    """The value names (numbered alternatives under one name) every match of this part of a pattern sets."""
    found: set[str] = set()
    for op, av in items:
        if op is c.SUBPATTERN:
            group, _, _, inner = av
            if group is not None and group in names:
                found.add(names[group].rstrip("0123456789"))
            found |= _guaranteed(inner, names)
        elif op is c.BRANCH:
            alternatives = [_guaranteed(branch, names) for branch in av[1]]
            found |= set.intersection(*alternatives)
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            low, _, inner = av
            if low > 0:
                found |= _guaranteed(inner, names)
        elif op is c.ATOMIC_GROUP:
            found |= _guaranteed(av, names)
    return found


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name and name != "speaker"}


ROWS = [(row[0], row[2], row[3]) for row in (*MILESTONES, *PASSING)]


@pytest.mark.parametrize(("pattern", "attribute", "template"), ROWS, ids=lambda v: getattr(v, "pattern", v)[:40])
def test_every_branch_sets_what_its_template_names(pattern: re.Pattern[str], attribute: str, template: str) -> None:
    names = {index: name for name, index in pattern.groupindex.items()}
    parsed = _parser.parse(pattern.pattern, pattern.flags)
    assert _fields(template) | _fields(attribute) <= _guaranteed(parsed, names), template
