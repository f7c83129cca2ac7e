"""Every catalogue is really translated: no label is left in English.

A label of a language written in another script (``zh``, ``zh-Hant``, ``th``, ``my``, ``lo``,
``ko``) may equal its English original, or carry Latin words at all, only where the allow-list
below says why (a file-format name; the bead letters B/P/T that Thai, Burmese and Lao boards
print as they are). Vietnamese is written in Latin letters: its labels may carry no word of the
English catalogue outside :data:`VIETNAMESE_SAME_AS_ENGLISH`. A label without any letter (digits
and signs only, e.g. "8/9") may match English anyway.
"""

from __future__ import annotations

import re

import pytest

from web import i18n

FORMAT_NAMES = frozenset({"JSON", "PNG"})
"""Names of file formats, written the same in every language."""

SAME_AS_ENGLISH: dict[str, frozenset[str]] = {
    "zh": frozenset({"ui.json"}),
    # The bead plate's B/P/T: the letters international boards print in these countries
    # (local characters are a bead-content choice of the board, not a catalogue gap).
    "th": frozenset({"ui.json", "winner_short.B", "winner_short.P", "winner_short.T"}),
    "my": frozenset({"ui.json", "winner_short.B", "winner_short.P", "winner_short.T"}),
    "lo": frozenset({"ui.json", "winner_short.B", "winner_short.P", "winner_short.T"}),
    "zh-Hant": frozenset({"ui.json"}),
    "ko": frozenset({"ui.json"}),
    # Vietnamese live tables print B/P/T on the beads as the international boards do
    "vi": frozenset({"ui.json", "winner_short.B", "winner_short.P", "winner_short.T"}),
}
"""Per language, the keys whose label may be exactly the English one."""

VIETNAMESE_SAME_AS_ENGLISH: frozenset[str] = frozenset({
    "baccarat",  # the game's name in Vietnamese too ("Baccarat trực tiếp")
    "mini",      # a Vietnamese loanword ("Baccarat mini")
    "to",        # Vietnamese "big" (cầu mắt to: big eye boy)
    "web",       # "trang web", Vietnamese for a web page
    "chi",       # "chi tiết", Vietnamese for details (English "chi-square" is in the trends labels)
})
"""Words of the English catalogue that are Vietnamese words too (lower case)."""

LATIN_WORD = re.compile(r"[A-Za-z]+")
PLACEHOLDER = re.compile(r"\{\w+\}")
WORD = re.compile(r"\w+")
LOCAL = [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT_LANGUAGE]
OTHER_SCRIPT = [lang for lang in LOCAL if lang != "vi"]


def _has_letters(text: str) -> bool:
    return any(ch.isalpha() for ch in PLACEHOLDER.sub("", text))


@pytest.mark.parametrize("lang", LOCAL)
def test_no_label_equals_its_english_original_outside_the_allow_list(lang):
    en = i18n.catalogue("en")
    own = i18n.catalogue(lang)
    same = sorted(k for k, v in own.items() if v == en[k] and _has_letters(v) and k not in SAME_AS_ENGLISH[lang])
    assert same == [], f"{lang}: untranslated labels {[(k, own[k]) for k in same]}"


@pytest.mark.parametrize("lang", OTHER_SCRIPT)
def test_no_label_carries_english_words_outside_the_allow_list(lang):
    own = i18n.catalogue(lang)
    leftovers = []
    for key, text in own.items():
        if key in SAME_AS_ENGLISH[lang]:
            continue
        words = set(LATIN_WORD.findall(PLACEHOLDER.sub("", text))) - FORMAT_NAMES
        if words:
            leftovers.append((key, text))
    assert leftovers == [], f"{lang}: Latin words in {leftovers}"


def test_no_vietnamese_label_carries_a_word_of_the_english_catalogue():
    english = {w.lower() for text in i18n.catalogue("en").values() for w in WORD.findall(PLACEHOLDER.sub("", text))}
    english -= {w for w in english if not any(ch.isalpha() for ch in w)}
    own = i18n.catalogue("vi")
    leftovers = []
    for key, text in own.items():
        if key in SAME_AS_ENGLISH["vi"]:
            continue
        words = {w.lower() for w in WORD.findall(PLACEHOLDER.sub("", text))} & english
        words -= VIETNAMESE_SAME_AS_ENGLISH | {f.lower() for f in FORMAT_NAMES}
        if words:
            leftovers.append((key, text, sorted(words)))
    assert leftovers == [], f"vi: English words in {leftovers}"


def test_the_allow_list_names_only_existing_keys():
    keys = i18n.label_keys("en")
    for lang, allowed in SAME_AS_ENGLISH.items():
        assert allowed <= keys, (lang, allowed - keys)
    assert set(SAME_AS_ENGLISH) == set(LOCAL)


@pytest.mark.parametrize(("key", "word"), [
    ("bet.big", "အကြီး"),        # "the big one": Big wins with 5 or 6 cards (seed 002)
    ("bet.small", "အသေး"),       # "the small one": Small wins with 4 cards
    ("bet.super_six", "စူပါ 6+"),  # Super 6, in Burmese script as seed 002 says "Super 6 ဇယား"
])
def test_burmese_side_bets_are_in_burmese(key, word):
    assert i18n.translate(key, "my") == word
