"""Whether two memories state the same fact in other words: the semantic side of near-duplicate merging.

Embeddings put "User lives in Lyon" near "User lives in Paris" and "User is not allergic to
peanuts" near "User is allergic to peanuts": close in meaning, different in fact. So a high
cosine similarity is only the first test. Then the two texts must agree on every number, on
negation, tense and modality markers ("not", "used to", "will", a past "-ed"), and each
content word of one must have a counterpart in the other: the same word (up to a plural or a
verb ending) or one WordLlama puts very close. The shorter text may lack one word the longer
adds ("User likes jazz" / "User likes jazz music"), never more. The set in
tests/memories/paraphrase_pairs.py measures the result (docs/benchmarks.md).
"""

from __future__ import annotations

import re

import numpy as np

from memoryadmin.memories.embeddings import content_words, word_vectors

# Cosine similarity of the two texts' embeddings needed to consider them at all.
MIN_SIMILARITY = 0.8
# Two different words count as the same only this close (WordLlama word vectors).
MIN_WORD_SIMILARITY = 0.75

_NUMBERS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty"
)
_NUMBER_WORDS = {word: str(value) for value, word in enumerate(_NUMBERS.split())}
_MARKERS = {
    **dict.fromkeys(("not", "no", "never", "none", "nothing", "nobody", "without", "neither", "nor"), "not"),
    **dict.fromkeys(("used", "formerly", "former", "previously", "anymore", "ex", "once", "longer"), "past"),
    **dict.fromkeys(("was", "were", "had", "did"), "past"),
    **dict.fromkeys(("will", "would", "might", "may", "plan", "plans", "planning", "going", "hope", "hopes"), "maybe"),
    **dict.fromkeys(("dislike", "dislikes", "hate", "hates", "disliked", "hated"), "not"),
}
_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)


def _stem(word: str) -> str:
    word = word.replace("’", "'").removesuffix("'s")
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _signals(text: str) -> tuple[frozenset[str], frozenset[str], bool, list[str]]:
    """Numbers, markers, whether a verb is in the past, and the remaining content words."""
    tokens = [t.lower().replace("’", "'") for t in _TOKEN.findall(text)]
    numbers = frozenset(_NUMBER_WORDS.get(t, t) for t in tokens if t.isdigit() or t in _NUMBER_WORDS)
    markers = frozenset(_MARKERS[t] for t in tokens if t in _MARKERS) | frozenset(
        "not" for t in tokens if t.endswith("n't")
    )
    past = any(t.endswith("ed") and len(t) > 4 and t not in _MARKERS for t in tokens)
    words = [
        w
        for w in content_words(text)
        if w not in _MARKERS and not w.isdigit() and w not in _NUMBER_WORDS and not w.endswith("n't")
    ]
    return numbers, markers, past, words


def _uncovered(words: list[str], others: list[str], similarity: np.ndarray) -> int:
    """How many of `words` have no counterpart among `others` (rows of `similarity` are `words`)."""
    other_stems = {_stem(o) for o in others}
    missing = 0
    for i, word in enumerate(words):
        if _stem(word) in other_stems:
            continue
        if similarity.shape[1] and similarity[i].max() >= MIN_WORD_SIMILARITY:
            continue
        missing += 1
    return missing


def same_fact(text_a: str, text_b: str, vector_a: np.ndarray, vector_b: np.ndarray) -> bool:
    """Whether the two texts say the same thing (embeddings of one model, unit length)."""
    if float(vector_a @ vector_b) < MIN_SIMILARITY:
        return False
    numbers_a, markers_a, past_a, words_a = _signals(text_a)
    numbers_b, markers_b, past_b, words_b = _signals(text_b)
    if numbers_a != numbers_b or markers_a != markers_b or past_a != past_b:
        return False
    if not words_a or not words_b:
        return words_a == words_b
    similarity = word_vectors(words_a) @ word_vectors(words_b).T
    missing_a = _uncovered(words_a, words_b, similarity)
    missing_b = _uncovered(words_b, words_a, similarity.T)
    if len(words_a) == len(words_b):
        return missing_a == 0 and missing_b == 0
    # The shorter text must be covered whole; the longer may add one word.
    (short_missing, _), (long_missing, _) = sorted(
        [(missing_a, len(words_a)), (missing_b, len(words_b))], key=lambda pair: pair[1]
    )
    return short_missing == 0 and long_missing <= 1


# Two unit vectors each at least MIN_SIMILARITY from a third are at least this similar to each
# other (cos 2θ): every memory that could bridge a group lies within this radius of the new text.
BRIDGE_RADIUS = 2 * MIN_SIMILARITY**2 - 1


def semantic_target(text: str, vector: np.ndarray, pool: list[tuple[object, str, np.ndarray]]) -> object | None:
    """The memory of `pool` a new text merges into as the same fact, or None.

    `pool` is (key, text, vector) of the person's memories within BRIDGE_RADIUS of the text.
    The same cohesion gate as for trigram near duplicates: every member states the same fact
    as every other, and no memory outside the group states the same fact as a member.
    """
    if not pool:
        return None
    keys = [key for key, _, _ in pool]
    texts = [t for _, t, _ in pool]
    matrix = np.stack([v for _, _, v in pool])
    near = matrix @ vector
    group = [
        i
        for i in np.argsort(-near, kind="stable")
        if near[i] >= MIN_SIMILARITY and same_fact(text, texts[i], vector, matrix[i])
    ]
    if not group:
        return None
    members = set(group)
    around = matrix[group] @ matrix.T
    for row, i in enumerate(group):
        for k in np.flatnonzero(around[row] >= MIN_SIMILARITY):
            if k == i:
                continue
            fact = same_fact(texts[i], texts[k], matrix[i], matrix[k])
            if k in members and not fact:
                return None  # not cohesive
            if k not in members and fact:
                return None  # bridged
        for k in members - {i}:
            if around[row][k] < MIN_SIMILARITY:
                return None
    return keys[group[0]]
