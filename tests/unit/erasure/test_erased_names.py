"""A subject's names found and replaced in text: whole words only, any case and width, any
spacing or punctuation between the words, keys and aliases alike, the longest form first;
what is stored of them is a hash salted with the client."""

from __future__ import annotations

import pytest

from kenning.domain.erasure.model import Subject
from kenning.domain.erasure.names import ERASED, NameMatch, form_hash, words

ANN = NameMatch.of("acme", ["Ann Lee", "person:ann-lee", "ann-lee", "person:al", "al"])


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("Ann Lee joined.", f"{ERASED} joined."),
        ("ANN   lee\tjoined", f"{ERASED}\tjoined"),
        ("ann\nlee", ERASED),
        ("see person:ann-lee now", f"see {ERASED} now"),
        ("see person:Ann_Lee now", f"see {ERASED} now"),
        # Fullwidth letters, written as escapes.
        ("\uff21\uff4e\uff4e \uff2c\uff45\uff45 (fullwidth)", f"{ERASED} (fullwidth)"),
        ("AL signed; al said so", f"{ERASED} signed; {ERASED} said so"),
        ("Ann Lee, Ann Lee.", f"{ERASED}, {ERASED}."),
        ("Ann Lee's desk", f"{ERASED}'s desk"),
    ],
)
def test_every_form_is_replaced_in_any_case_and_spacing(text: str, redacted: str) -> None:
    assert ANN.redact(text) == redacted
    assert ANN.mentions(text)


@pytest.mark.parametrize(
    "text",
    [
        "Anne Lee is someone else",
        "Ann Leeds is someone else",
        "Joanna Lee",
        "also an algorithm",
        "Ann alone",
        "Lee alone",
        "hall of fame",
        "",
    ],
)
def test_a_part_of_a_word_or_of_a_name_is_not_the_subject(text: str) -> None:
    assert ANN.redact(text) == text
    assert not ANN.mentions(text)


def test_the_longest_form_wins_so_a_key_goes_whole() -> None:
    assert ANN.redact("person:ann-lee|knows|person:bob") == f"{ERASED}|knows|person:bob"


def test_json_values_and_object_keys_are_redacted() -> None:
    value = {"to": ["Ann Lee", 3, None], "Ann Lee": {"note": "met al"}, "n": 1.5}
    assert ANN.redact_value(value) == {
        "to": [ERASED, 3, None],
        ERASED: {"note": f"met {ERASED}"},
        "n": 1.5,
    }
    assert ANN.value_mentions(value) and not ANN.value_mentions({"to": "Bob"})


def test_stored_hashes_match_as_the_names_do_and_hold_no_name() -> None:
    stored = NameMatch.stored(
        "acme", {form_hash("acme", words(f)): len(words(f)) for f in ["Ann Lee", "al"]}
    )
    assert stored.redact("Ann LEE and AL") == f"{ERASED} and {ERASED}"
    assert stored.patterns == () and all("ann" not in h for h in stored.hashes)


def test_the_salt_is_the_client_so_another_clients_tombstones_do_not_match() -> None:
    globex = NameMatch.stored("globex", {form_hash("acme", ("ann", "lee")): 2})
    assert globex.redact("Ann Lee") == "Ann Lee"


def test_like_patterns_find_every_candidate_text() -> None:
    assert ANN.patterns == ("%al%", "%ann%lee%", "%person%al%", "%person%ann%lee%")
    # Words are letters and digits, so no LIKE wildcard of the text reaches a pattern.
    assert NameMatch.of("acme", ["50%_off"]).patterns == ("%50%off%",)


def test_a_subjects_forms_are_its_keys_their_ids_and_its_names() -> None:
    subject = Subject(
        "person:ann-lee", frozenset({"person:ann-lee", "person:al"}), frozenset({"Ann Lee"})
    )
    assert subject.forms() == ["Ann Lee", "al", "ann-lee", "person:al", "person:ann-lee"]


def test_nothing_to_match_changes_nothing() -> None:
    empty = NameMatch.of("acme", ["", "  ", "--"])
    assert empty.empty and empty.redact("Ann Lee") == "Ann Lee"
