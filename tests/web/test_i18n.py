"""Label catalogues (web/i18n/): complete in every language, local words from the seeds,
English fallback, narrow errors, language choice from ?lang= and Accept-Language."""

from __future__ import annotations

import json
import re

import pytest
from werkzeug.test import EnvironBuilder
from werkzeug.wrappers import Request

from web import i18n

PLACEHOLDER = re.compile(r"\{(\w+)\}")


def request_for(query: str = "", accept_language: str | None = None) -> Request:
    headers = {"Accept-Language": accept_language} if accept_language else {}
    return Request(EnvironBuilder(path="/", query_string=query, headers=headers).get_environ())


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_catalogue_has_exactly_the_english_keys(lang):
    assert i18n.label_keys(lang) == i18n.label_keys("en")


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_label_keeps_the_placeholders_of_its_english_original(lang):
    en = i18n.catalogue("en")
    local = i18n.catalogue(lang)
    for key, text in en.items():
        assert set(PLACEHOLDER.findall(local[key])) == set(PLACEHOLDER.findall(text)), (lang, key)
        assert local[key].strip() == local[key] and local[key], (lang, key)


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_catalogue_files_are_flat_utf8_json_objects_of_strings(lang):
    data = json.loads((i18n.CATALOGUE_DIR / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict) and all(isinstance(v, str) for v in data.values())


@pytest.mark.parametrize(
    ("lang", "player", "banker", "tie"),
    [
        # the seeds (docs/frontend.md "Languages"): Burmese (seed 000), Thai (seed 001), Lao (seed 003).
        ("my", "ထိုးသား", "ဒိုင်", "သရေ"),
        ("th", "เพลเยอร์", "แบงเกอร์", "เสมอ"),
        ("lo", "ຜູ້ຫຼິ້ນ", "ເຈົ້າມື", "ເສມີ"),
        ("zh", "闲", "庄", "和"),
        ("en", "Player", "Banker", "Tie"),
        # Macau/Hong Kong lobby boards; Korean players' loanwords; Vietnamese Nhà Con / Nhà Cái / Hòa
        ("zh-Hant", "閒", "莊", "和"),
        ("ko", "플레이어", "뱅커", "타이"),
        ("vi", "Nhà Con", "Nhà Cái", "Hòa"),
    ],
)
def test_player_banker_tie_use_the_local_words(lang, player, banker, tie):
    assert i18n.translate("winner.P", lang) == player
    assert i18n.translate("winner.B", lang) == banker
    assert i18n.translate("winner.T", lang) == tie


@pytest.mark.parametrize(
    ("lang", "key", "word"),
    [
        ("my", "ui.natural", "တန်းဒို"),  # seed 000: a two-card 8 or 9
        ("th", "ui.natural", "ไพ่ป๊อก"),  # seed 001
        ("lo", "ui.natural", "ໄພ່ປ໋ອງ"),  # seed 003
        ("th", "bet.player_pair", "เพลเยอร์ ไพ่คู่"),  # seed 001's payout table
        ("th", "bet.big", "ใหญ่"),
        ("th", "bet.small", "เล็ก"),
        ("my", "ui.round", "အလှည့်"),  # seed 000: round limit "အလှည့် ကန့်သတ်ချက်"
        # the Traditional road names of Macau's lobbies (WGM #55: 大眼仔, 小路, 曱甴路 from Casino Lisboa)
        ("zh-Hant", "road.bead_plate", "珠盤路"),
        ("zh-Hant", "road.big_road", "大路"),
        ("zh-Hant", "road.big_eye_boy", "大眼仔"),
        ("zh-Hant", "road.small_road", "小路"),
        ("zh-Hant", "road.cockroach_pig", "曱甴路"),
        ("zh-Hant", "winner_short.P", "閒"),
        # Korean score cards: 육매 (six-row bead plate), 본매 (big road), 중국점 1-3군 (the derived roads)
        ("ko", "road.bead_plate", "육매"),
        ("ko", "road.big_road", "본매"),
        ("ko", "road.big_eye_boy", "중국점 1군"),
        ("ko", "road.small_road", "중국점 2군"),
        ("ko", "road.cockroach_pig", "중국점 3군"),
        ("ko", "ui.natural", "내추럴"),
        ("vi", "good_road.long_banker", "Bệt Nhà Cái"),  # "cầu bệt": a long streak
        ("vi", "good_road.ping_pong", "Cầu 1-1"),
    ],
)
def test_seed_terms_are_used(lang, key, word):
    assert i18n.translate(key, lang) == word


def test_every_bet_of_every_variant_and_every_good_road_has_a_label():
    from roads import good_roads, variants

    keys = i18n.label_keys("en")
    for variant in variants.PRESETS.values():
        for bet in variant.bets:
            assert f"bet.{bet.bet}" in keys, (variant.id, bet.bet)
    for pattern in good_roads.DEFAULT_GOOD_ROADS:
        assert f"good_road.{pattern.id}" in keys, pattern.id
    for road in ("bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig"):
        assert f"road.{road}" in keys


def test_translate_fills_placeholders():
    assert i18n.translate("ui.rounds_left", "en", n=19) == "19 left"
    assert i18n.translate("ui.rounds_left", "th", n=19) == "เหลือ 19 รอบ"
    assert i18n.translate("ui.shoe_n", "zh", n=3) == "第 3 靴"


def test_catalogue_is_a_copy_callers_may_change():
    first = i18n.catalogue("th")
    first["winner.P"] = "changed"
    assert i18n.catalogue("th")["winner.P"] == "เพลเยอร์"


def test_unknown_language_is_a_narrow_value_error_quoting_it():
    with pytest.raises(i18n.UnknownLanguageError, match=r"unknown language 'fr'") as info:
        i18n.translate("winner.P", "fr")
    assert isinstance(info.value, ValueError) and info.value.lang == "fr"
    with pytest.raises(i18n.UnknownLanguageError, match=r"'EN'"):
        i18n.catalogue("EN")


def test_unknown_label_key_is_a_narrow_value_error_quoting_it():
    with pytest.raises(i18n.UnknownLabelError, match=r"unknown label key 'winner.X'") as info:
        i18n.translate("winner.X", "my")
    assert isinstance(info.value, ValueError) and info.value.key == "winner.X"


@pytest.mark.parametrize(
    ("tag", "expected"),
    [
        ("zh-CN", "zh"), ("zh_Hant_TW", "zh-Hant"), ("TH", "th"), ("my-MM", "my"), ("mya", "my"),
        ("lo-LA", "lo"), ("en-GB", "en"), ("fr", None), ("", None), (None, None), ("*", None),
        ("th;q=0.5", None), ("../../etc", None),
        # Traditional Chinese: the script, or the regions that write it; Simplified otherwise
        ("zh-TW", "zh-Hant"), ("zh-HK", "zh-Hant"), ("zh-MO", "zh-Hant"), ("zh-hant", "zh-Hant"),
        ("zh-Hant-HK", "zh-Hant"), ("zh-Hans-HK", "zh"), ("zh-SG", "zh"), ("zh", "zh"), ("yue-HK", "zh-Hant"),
        ("yue", "zh-Hant"), ("vi-VN", "vi"), ("vie", "vi"), ("ko-KR", "ko"), ("kor", "ko"),
    ],
)
def test_normalize_language(tag, expected):
    assert i18n.normalize_language(tag) == expected


@pytest.mark.parametrize(
    ("query", "accept", "expected"),
    [
        ("lang=lo", "th", "lo"),
        ("lang=xx", "th", "th"),
        ("", "fr;q=1.0, my;q=0.7, zh;q=0.9", "zh"),
        ("", "de, fr", "en"),
        ("", None, "en"),
        ("lang=", "my", "my"),
        ("", "zh-TW,zh;q=0.9,en;q=0.5", "zh-Hant"),
        ("", "zh-MO", "zh-Hant"),
        ("", "zh-CN,zh;q=0.9", "zh"),
        ("lang=zh-HK", "en", "zh-Hant"),
        ("lang=zh", "zh-TW", "zh"),
        ("", "ko-KR,ko;q=0.9", "ko"),
        ("", "vi-VN,vi;q=0.9,en;q=0.8", "vi"),
    ],
)
def test_pick_language(query, accept, expected):
    assert i18n.pick_language(request_for(query, accept)) == expected


def test_every_preset_bet_label_is_the_english_catalogue_name():
    # one name per bet (docs/domain.md section 3 wording, e.g. "Lucky Six 2-card"): the API's
    # label (roads.variants) and the pages' English catalogue say the same words
    import json
    from pathlib import Path

    from roads.variants import PRESETS

    en = json.loads((Path(__file__).resolve().parents[2] / "web" / "i18n" / "en.json").read_text(encoding="utf-8"))
    for variant in PRESETS.values():
        for spec in variant.bets:
            assert spec.label.lower() == en[f"bet.{spec.bet}"].lower(), (variant.id, spec.bet)
