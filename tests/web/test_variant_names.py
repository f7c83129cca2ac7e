"""Game (variant) names on every display come from the catalogue (``variant.<id>``) through
one hook, :func:`web.i18n.variant_name`: every preset is named in all five languages, and a
Chinese board shows the Chinese name in its page model and in the model its PNG is painted from.

Expected words: the seeds' own names where they give one (seed 001 บาคาร่าประกันภัย and
บาคาร่าคอมมิชชั่น, seed 004 มินิ แบคคาร่า, seed 003 ບາກາຣ່າ, seed 002 ဘာကရက်), else the
customary Chinese names (真人百家乐, 迷你百家乐).
"""

from __future__ import annotations

import json
import re

import pytest

from roads.variants import PRESETS
from support.html import Page
from web import i18n

ROUND_B = {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}  # Banker 7-3 (tableau: player draws on 4)


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_preset_variant_has_its_own_name_in_every_language(lang):
    own = i18n.label_keys(lang)
    names = {}
    for vid in PRESETS:
        assert f"variant.{vid}" in own, (lang, vid)
        names[vid] = i18n.variant_name(vid, lang)
        assert names[vid].strip(), (lang, vid)
    assert len(set(names.values())) == len(PRESETS), names  # no two games share a name


@pytest.mark.parametrize(("vid", "lang", "name"), [
    ("seed001", "th", "บาคาร่าประกันภัย"),            # seed 001's title, "23. บาคาร่าประกันภัย"
    ("seed002_commission", "th", "บาคาร่าคอมมิชชั่น"),  # seed 001's pay table row
    ("seed004_mini", "th", "มินิ แบคคาร่า"),           # seed 004's title
    ("seed000_live", "zh", "真人百家乐"),
    ("seed004_mini", "zh", "迷你百家乐"),
    ("seed002_commission", "en", "Baccarat, commission"),
])
def test_names_use_the_seeds_words(vid, lang, name):
    assert i18n.variant_name(vid, lang) == name


def test_the_hook_takes_an_id_or_the_snapshot_object_and_falls_back():
    assert i18n.variant_name({"id": "seed004_mini", "name": "Mini Baccarat (seed 004)"}, "lo") == "ມິນິ ບາກາຣ່າ"
    assert i18n.variant_name({"id": "house_special", "name": "House Special"}, "th") == "House Special"
    assert i18n.variant_name("house_special", "th") == "house_special"
    assert i18n.variant_name(None, "en") == ""
    with pytest.raises(i18n.UnknownLanguageError):
        i18n.variant_name("seed001", "fr")


def _boot(html: str) -> dict:
    page = Page(html)
    return json.loads(page.find("script", id="boot").text)


def test_a_chinese_board_shows_the_chinese_game_name_in_html_and_png(client, feed, monkeypatch):
    from web.render import paint_png

    assert feed.shoe(1, variant="seed004_mini").status_code == 201
    assert feed.round(1, 1, **ROUND_B).status_code == 201
    resp = client.get("/tables/T1?lang=zh")
    assert resp.status_code == 200
    models = _boot(resp.get_data(as_text=True))["models"]
    for orient in ("landscape", "portrait"):
        header = next(p for p in models[orient]["panels"] if p["id"] == "header")
        words = [i["t"] for i in header["items"] if i["p"] == "t"]
        assert any("迷你百家乐" in w for w in words), (orient, words)
        assert not any("Mini" in w for w in words)
    painted = []
    real = paint_png.paint
    monkeypatch.setattr(paint_png, "paint", lambda model, **kw: painted.append(model) or real(model, **kw))
    assert client.get("/tables/T1/board.png?lang=zh").status_code == 200
    header = next(p for p in painted[0]["panels"] if p["id"] == "header")
    assert any("迷你百家乐" in i["t"] for i in header["items"] if i["p"] == "t")


def test_the_shoes_page_names_the_game_in_the_page_language(client, feed):
    assert feed.shoe(1, variant="seed001").status_code == 201
    assert feed.round(1, 1, **ROUND_B).status_code == 201
    page = Page(client.get("/tables/T1/shoes?lang=th").get_data(as_text=True))
    assert [el.text for el in page.find_all("td", data_field="variant")] == ["บาคาร่าประกันภัย"]


def test_no_module_reads_a_variant_name_for_display_but_the_hook():
    """Display code takes a game's name only through ``i18n.variant_name`` (never the preset's
    English ``["name"]`` / ``.name``)."""
    from pathlib import Path

    root = Path(i18n.__file__).resolve().parent.parent
    pattern = re.compile(r"variant[\"']?\]?\s*(\[[\"']name[\"']\]|\.name\b|\.get\([\"']name)")
    offenders = [str(p.relative_to(root)) for d in ("render", "http") for p in (root / d).glob("*.py")
                 if pattern.search(p.read_text(encoding="utf-8"))]
    assert offenders == []
