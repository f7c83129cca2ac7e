"""The display-text rule (roads.text, docs/api.md "Display text"): hand-picked characters of every
refused category, texts that keep the rule in every script the boards show, and the painters' clean-up."""

from __future__ import annotations

import re

import pytest

from roads.text import (DISPLAY_TEXT_PATTERN, DisplayTextError, check_display_text, clean_display_text,
                        display_text_problem)

REFUSED = [
    ("Anna\rX", "holds U+000D (a control character) at index 4"),  # issue 21: raqm_layout() failed
    ("Anna\r\n", "holds U+000D (a control character) at index 4"),  # a name read from a CRLF file
    ("a\nb", "holds U+000A (a control character) at index 1"),
    ("\tTab", "holds U+0009 (a control character) at index 0"),
    ("nul\x00", "holds U+0000 (a control character) at index 3"),
    ("del\x7f", "holds U+007F (a control character) at index 3"),
    ("c1\x85", "holds U+0085 (a control character) at index 2"),  # NEL
    ("East\u202eWest", "holds U+202E (a format character) at index 4"),  # right-to-left override
    ("zw\u200bsp", "holds U+200B (a format character) at index 2"),
    ("\ufeffBOM", "holds U+FEFF (a format character) at index 0"),
    ("soft\u00adhyphen", "holds U+00AD (a format character) at index 4"),
    ("tag\U000e0041", "holds U+E0041 (a format character) at index 3"),
    ("line\u2028sep", "holds U+2028 (a line separator) at index 4"),
    ("para\u2029", "holds U+2029 (a paragraph separator) at index 4"),
    ("lone\ud800", "holds U+D800 (a surrogate) at index 4"),
    ("", "is blank"),
    ("   ", "is blank"),
    ("\u3000", "is blank"),  # ideographic space
]


@pytest.mark.parametrize("text, problem", REFUSED)
def test_control_format_separator_characters_and_blank_text_are_refused(text, problem):
    assert display_text_problem(text) == problem
    with pytest.raises(DisplayTextError, match=re.escape(problem)):
        check_display_text(text)
    if not 0xD800 <= ord(text[-1:] or " ") <= 0xDFFF:  # surrogates: no JSON text carries one (module doc)
        assert re.fullmatch(DISPLAY_TEXT_PATTERN, text) is None


@pytest.mark.parametrize("text", ["Anna", "百家乐 1", "บาคาร่า", "ဘာကာရာ", "ບາກາຣາ", "Table  2", " padded ",
                                  "emoji 🂡", "\u00a0nbsp", "é combining e\u0301"])
def test_text_in_every_script_keeps_the_rule(text):
    assert display_text_problem(text) is None
    assert check_display_text(text) is text
    assert re.fullmatch(DISPLAY_TEXT_PATTERN, text) is not None
    assert clean_display_text(text) is text


@pytest.mark.parametrize("text, shown", [
    ("Anna\rX", "Anna X"), ("Anna\r\n", "Anna"), ("a\u2029b\u2028c", "a b c"), ("\tTab", "Tab"),
    ("East\u202eWest", "East West"), ("\x00", ""),
])
def test_painters_show_old_text_with_refused_characters_as_spaces(text, shown):
    assert clean_display_text(text) == shown
