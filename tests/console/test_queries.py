from __future__ import annotations

from memoryadmin.console.templatetags.console import approx, word_diff
from memoryadmin.core.estimates import Estimate, estimate
from memoryadmin.memories.models import Memory


def test_it_counts_exactly_when_few(make_memory):
    for i in range(3):
        make_memory(f"User fact {i}")
    assert estimate(Memory.objects.all()) == Estimate(3, True)


def test_it_falls_back_to_the_planners_estimate_beyond_the_cap(make_memory):
    for i in range(5):
        make_memory(f"User fact {i}")
    result = estimate(Memory.objects.all(), exact_up_to=2)
    assert result.exact is False
    assert result.value >= 3


def test_it_shows_estimates_as_approximate():
    assert approx(Estimate(1234, True)) == "1,234"
    assert approx(Estimate(1_234_567, False)) == "≈ 1.2M"
    assert approx(Estimate(45_678, False)) == "≈ 46k"
    assert approx(Estimate(1_234, False)) == "≈ 1,200"
    assert approx(7) == "7"
    assert approx("") == "–"


def test_it_diffs_words_and_escapes_them():
    assert str(word_diff("a b c", "a x c")) == "a <del>b</del> <ins>x</ins> c"
    assert str(word_diff("<i>", "<b>")) == "&lt;<del>i</del> <ins>b</ins>&gt;"


def test_it_diffs_words_apart_from_the_punctuation_after_them():
    assert str(word_diff("User likes jazz", "User likes jazz, especially bebop")) == (
        "User likes jazz<ins>, especially bebop</ins>"
    )
    assert str(word_diff("User lives in Lyon.", "User lives in Paris now.")) == (
        "User lives in <del>Lyon</del> <ins>Paris now</ins>."
    )
    # Words changed on both sides of one kept space are one change.
    assert str(word_diff("the cat sat on the mat", "the dog sat in a hat")) == (
        "the <del>cat</del> <ins>dog</ins> sat <del>on the mat</del> <ins>in a hat</ins>"
    )
