"""Bounded JSON decoding: hostile texts give one JsonInputError, never another exception.

The limits the standard library runs into are Python's own: a RecursionError about 1,000
levels deep and the 4,300-digit integer-string conversion limit (sys.get_int_max_str_digits).
"""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import given, settings, strategies as st

from roads.bounded_json import MAX_DEPTH, MAX_INT_CHARS, JsonInputError, loads


def test_the_standard_library_fails_on_these_texts_in_other_ways():
    # Why the module exists: these escape a caller that catches only JSONDecodeError.
    with pytest.raises(RecursionError):
        json.loads("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError) as info:
        json.loads("1" * 4301)
    assert not isinstance(info.value, json.JSONDecodeError)
    assert sys.get_int_max_str_digits() == 4300
    assert json.loads("1e999") == float("inf")


@pytest.mark.parametrize("text, words", [
    ("[" * 1000 + "]" * 1000, f"nested deeper than {MAX_DEPTH} levels"),
    ('{"a":' * 1000 + "1" + "}" * 1000, f"nested deeper than {MAX_DEPTH} levels"),
    ("[" * 100_000, f"nested deeper than {MAX_DEPTH} levels"),
    ("1" * 4301, "integer literal of 4301 characters"),
    ('{"shoe": -' + "9" * 40 + "}", "integer literal of 41 characters"),
    ("1e999", "too large to represent"),
    ("-1e400", "too large to represent"),
    ("0." + "1" * 100, "number literal of 102 characters"),
    ("NaN", "NaN is not valid JSON"),
    ("[Infinity]", "Infinity is not valid JSON"),
    ("-Infinity", "-Infinity is not valid JSON"),
    ('{"a": 1, "a": 1}', "key 'a' appears twice"),
    ('["\\ud800"]', "unpaired surrogate"),
    ('{"\\udfff": 1}', "unpaired surrogate"),
    ('{"shoe": 1, "round": ', "Expecting value at line 1 column 22"),
    ("", "Expecting value at line 1 column 1"),
])
def test_hostile_or_bad_texts_raise_json_input_error(text, words):
    with pytest.raises(JsonInputError) as info:
        loads(text)
    assert words in str(info.value)


def test_the_depth_limit_is_exact_and_brackets_in_strings_do_not_count():
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    with pytest.raises(JsonInputError):
        loads("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    text = json.dumps(["[" * 500, {"k{{{{": "]]]]\\\"[[["}])
    assert loads(text) == ["[" * 500, {"k{{{{": "]]]]\\\"[[["}]


def test_numbers_at_the_limits_and_a_paired_surrogate_pass():
    assert loads("9" * MAX_INT_CHARS) == int("9" * MAX_INT_CHARS)
    assert loads("1e308") == 1e308
    assert loads('"\\ud83c\\udca1"') == "\U0001f0a1"  # a surrogate pair: PLAYING CARD ACE OF SPADES


def test_a_repeated_key_names_the_field():
    with pytest.raises(JsonInputError) as info:
        loads('{"shoe": 1, "round": 2, "shoe": 1}')
    assert info.value.field == "shoe"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from('[]{}",:0123456789-+.eE\\ntrufalsNIy \n\u00e9\ud800'), max_size=200))
def test_any_text_gives_a_value_or_json_input_error(text):
    try:
        loads(text)
    except JsonInputError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
                    max_leaves=20))
def test_valid_json_within_the_bounds_decodes_as_the_standard_library_does(value):
    text = json.dumps(value)
    try:
        got = loads(text)
    except JsonInputError as e:  # only a lone surrogate drawn by st.text may be refused
        assert "surrogate" in str(e)
        return
    assert got == json.loads(text)
