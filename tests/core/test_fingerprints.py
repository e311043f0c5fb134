"""Text fingerprints: the stored one first, then the other readings a tombstone is checked against."""

from __future__ import annotations

from memoryadmin.core.fingerprints import other_text_fingerprints, text_fingerprint, text_fingerprints


def test_a_plain_text_has_one_fingerprint() -> None:
    assert other_text_fingerprints("Alice likes tea") == ()
    assert text_fingerprints("Alice likes tea") == (text_fingerprint("Alice likes tea"),)


def test_a_space_inside_a_word_adds_the_fingerprint_of_the_joined_word() -> None:
    assert other_text_fingerprints("Alice li\u00a0kes tea") == (text_fingerprint("Alice likes tea"),)
    assert text_fingerprints("Alice li\u00a0kes tea") == (
        text_fingerprint("Alice li\u00a0kes tea"),
        *other_text_fingerprints("Alice li\u00a0kes tea"),
    )
