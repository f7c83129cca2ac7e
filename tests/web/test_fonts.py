"""Fonts of the PNG renderer: every label in every language is covered (no missing-glyph
boxes), complex scripts are shaped by raqm, the fallback chain, Chinese table names.

Coverage is checked two independent ways: the fonts' character maps (web.render.fonts reads
the cmap table) and FreeType itself: each character rendered alone must not look like
the font's .notdef glyph (the box FreeType draws for a character the font lacks).
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageFont, features

from web import i18n
from web.render import fonts

LANGS = fonts.LANGUAGES


def all_labels(lang: str) -> list[str]:
    """Every catalogue string in ``lang`` with placeholders filled (what the boards draw)."""
    return [text.replace("{n}", "19") for text in i18n.catalogue(lang).values()]


def test_languages_match_the_catalogues():
    assert fonts.LANGUAGES == i18n.LANGUAGES


SHIPPED = ("NotoSans-Regular.ttf", "NotoSans-Bold.ttf", "NotoSansThai-Regular.ttf", "NotoSansThai-Bold.ttf",
           "NotoSansLao-Regular.ttf", "NotoSansLao-Bold.ttf", "NotoSansMyanmar-Regular.ttf",
           "NotoSansMyanmar-Bold.ttf", "NotoSansSC-Bold.otf", "NotoSansTC-Bold.otf", "NotoSansKR-Bold.otf")
CJK_FILE = fonts.FONT_DIR / "NotoSansSC-Bold.otf"


@pytest.fixture
def fresh_machine(monkeypatch):
    """Only the shipped fonts: no system Noto folders, no ROADS_FONT_DIR (a machine without fonts-noto-*)."""
    monkeypatch.setattr(fonts, "SYSTEM_FONT_DIRS", ())
    monkeypatch.setattr(fonts, "_extra_dir", None)
    fonts.reset_caches()
    yield
    monkeypatch.undo()
    fonts.reset_caches()


def test_shipped_fonts_and_licence_are_in_static_fonts():
    names = {p.name for p in fonts.FONT_DIR.iterdir()}
    assert names == {*SHIPPED, "OFL.txt"}
    licence = (fonts.FONT_DIR / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in licence
    for name in SHIPPED:
        assert name in licence  # each file's origin is noted
    total = sum(p.stat().st_size for p in fonts.FONT_DIR.iterdir())
    # SC 2.45 MiB, TC 1.61 MiB, KR 0.37 MiB, the rest 1.5 MiB; a browser fetches only its page's
    # scripts (unicode-range), the service worker keeps what a screen used
    assert total < 7 * 1024 * 1024


def test_the_cjk_font_is_one_face_not_a_collection():
    """One OpenType file for the PNG renderer (index 0) and for browsers (@font-face cannot pick
    a face out of a .ttc): CFF outlines, ~2.5 MB."""
    head = CJK_FILE.read_bytes()[:4]
    assert head == b"OTTO"
    assert CJK_FILE.stat().st_size < 4 * 1024 * 1024
    font = ImageFont.truetype(str(CJK_FILE), 20)
    assert font.getname() == ("Noto Sans SC Subset", "Bold")


def _decode_all(codec: str, leads, trails) -> set[str]:
    out = set()
    for hi in leads:
        for lo in trails:
            try:
                out.add(bytes([hi, lo]).decode(codec))
            except UnicodeDecodeError:
                pass
    return out


def test_the_cjk_subset_covers_gb2312_big5_level_1_and_the_chinese_catalogue():
    """The subset's promise (tools/subset_cjk_font.py): every hanzi of GB2312 (6,763) and of
    Big5 level 1 (5,401), CJK punctuation, and every character of the Chinese labels."""
    face = fonts.Face("cjk", str(CJK_FILE), 0)
    have = fonts.coverage(face)
    gb2312 = _decode_all("gb2312", range(0xB0, 0xF8), range(0xA1, 0xFF))
    big5 = _decode_all("big5", range(0xA4, 0xC6), [*range(0x40, 0x7F), *range(0xA1, 0xFF)])
    assert len(gb2312) == 6763 and len(big5) > 5300
    assert {c for c in gb2312 | big5 if ord(c) not in have} == set()
    assert {c for c in "，。、：；！？（）《》「」【】…·" if ord(c) not in have} == set()
    labels = {c for text in all_labels("zh") for c in text if ord(c) > 0x7F}
    assert labels and {c for c in labels if ord(c) not in have} == set()


@pytest.mark.parametrize("lang", LANGS)
def test_every_chain_starts_with_the_shipped_faces(lang):
    """Seven shipped faces (Latin first); a full system CJK face may follow, for rare hanzi."""
    chain = fonts.font_chain(lang)
    assert [f.script for f in chain][0] == "latin"
    assert len(chain) in (7, 8)
    for face in chain[:7]:
        assert Path(face.path).parent == fonts.FONT_DIR
    assert {f.script for f in chain[:7]} == {"latin", "cjk", "tc", "kr", "thai", "lao", "myanmar"}
    if len(chain) == 8:
        assert chain[7] == fonts.full_cjk_face(lang=lang) and Path(chain[7].path).name not in fonts.SUBSET_CJK_FILES


@pytest.mark.parametrize("lang", LANGS)
def test_every_label_is_covered_by_the_shipped_fonts_chosen_for_it(lang, fresh_machine):
    """On a machine with no fonts of its own, every label is drawn by a shipped face that has its glyphs."""
    chain = fonts.font_chain(lang)
    assert len(chain) == 7 and all(Path(f.path).parent == fonts.FONT_DIR for f in chain)
    for text in all_labels(lang):
        assert fonts.missing_characters(text, lang) == set(), text
        for run, face in fonts.runs(text, lang):
            assert face is not None, (text, run)
            for ch in run:
                if not ch.isspace() and ch not in "\u200b\u200c\u200d":
                    assert fonts.covers(face, ch), (text, ch, face)


RARE = "堃"  # U+5803, in personal names: in GBK, not in GB2312 nor Big5 level 1


def test_a_hanzi_outside_the_subset_is_missing_on_a_fresh_machine(fresh_machine):
    assert fonts.full_cjk_face() is None
    assert fonts.missing_characters(f"{RARE}龙厅", "zh") == {RARE}


def test_a_hanzi_outside_the_subset_uses_a_full_system_cjk_face_when_installed():
    full = fonts.full_cjk_face()
    if full is None:
        pytest.skip("no full Noto Sans CJK on this machine (fonts-noto-cjk)")
    runs = fonts.runs(f"龙{RARE}厅", "en")
    assert [(t, Path(f.path).name) for t, f in runs] == [
        ("龙", "NotoSansSC-Bold.otf"), (RARE, Path(full.path).name), ("厅", "NotoSansSC-Bold.otf")]
    assert fonts.missing_characters(RARE, "en") == set()


@pytest.mark.parametrize("lang,script", [("zh", "cjk"), ("th", "thai"), ("my", "myanmar"), ("lo", "lao"),
                                         ("zh-Hant", "tc"), ("ko", "kr"), ("vi", "latin")])
def test_local_labels_use_their_script_face(lang, script):
    runs = fonts.runs(i18n.translate("winner.P", lang), lang)
    assert [f.script for _, f in runs] == [script]


def _notdef_mask(font: ImageFont.FreeTypeFont) -> bytes:
    # U+0378 is unassigned in Unicode: no font maps it, so FreeType draws .notdef
    return bytes(font.getmask("\u0378"))


def _basic(face: fonts.Face) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(face.path, 40, index=face.index, layout_engine=ImageFont.Layout.BASIC)


@pytest.mark.parametrize("lang", LANGS)
def test_no_label_character_renders_as_the_missing_glyph_box(lang):
    """FreeType's own mapping: each character, drawn alone by the face the runs chose, differs
    from that face's .notdef glyph."""
    seen: set[tuple[str, str]] = set()
    for text in all_labels(lang):
        for run, face in fonts.runs(text, lang):
            font = _basic(face)
            notdef = _notdef_mask(font)
            for ch in run:
                if ch.isspace() or unicodedata.category(ch) in ("Cf",) or (ch, face.path) in seen:
                    continue
                seen.add((ch, face.path))
                assert bytes(font.getmask(ch)) != notdef, (lang, text, ch, face.path)
    assert seen


@pytest.mark.parametrize("lang", LANGS)
def test_cmap_reader_agrees_with_freetype(lang):
    """web.render.fonts' cmap reader says "covered" exactly when FreeType draws something else than .notdef."""
    face = fonts.primary_face(lang)
    font = _basic(face)
    notdef = _notdef_mask(font)
    probes = "AZaz09%:·…" + "庄闲和靴局" + "แบงเกอร์" + "ဒိုင်" + "ເຈົ້າມື" + "\u0378\uE123\U0001F600"
    for ch in probes:
        if unicodedata.category(ch) == "Mn":
            continue  # a lone mark may legitimately render empty
        drawn = bytes(font.getmask(ch)) != notdef
        assert fonts.covers(face, ch) == drawn, (face.path, ch)


CHINESE_TABLE_NAMES = ["百家乐 贵宾厅", "澳门一号台", "龍虎 8"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", CHINESE_TABLE_NAMES)
def test_chinese_table_names_render_in_every_language(lang, name):
    assert fonts.missing_characters(name, lang) == set()
    scripts = {f.script for t, f in fonts.runs(name, lang) if t.strip() and not t.strip().isdigit()}
    # Traditional pages draw the hanzi of Big5 level 1 in the TC face, the Simplified ones in the SC face
    assert scripts == ({"tc", "cjk"} if lang == "zh-Hant" and name != "龍虎 8" else {"tc"} if lang == "zh-Hant" else {"cjk"})
    img = Image.new("L", (600, 80), 0)
    box = fonts.draw_text(ImageDraw.Draw(img), (10, 40), name, size=40, fill=255, lang=lang, anchor="lm")
    ink = img.getbbox()
    assert ink is not None and ink[2] - ink[0] > 40 * (len(name.replace(" ", "")) - 1)
    assert box[2] > box[0]


def test_traditional_and_korean_faces_are_subsets_with_their_own_names():
    for name, family, face in (("NotoSansTC-Bold.otf", "Noto Sans TC Subset", "tc"),
                               ("NotoSansKR-Bold.otf", "Noto Sans KR Subset", "kr")):
        path = fonts.FONT_DIR / name
        assert path.read_bytes()[:4] == b"OTTO"
        assert ImageFont.truetype(str(path), 20).getname() == (family, "Bold")
        assert fonts.font_chain("zh-Hant" if face == "tc" else "ko")[1] == fonts.Face(face, str(path), 0)


def test_the_tc_subset_covers_big5_level_1_and_the_traditional_catalogue():
    have = fonts.coverage(fonts.Face("tc", str(fonts.FONT_DIR / "NotoSansTC-Bold.otf"), 0))
    big5 = _decode_all("big5", range(0xA4, 0xC6), [*range(0x40, 0x7F), *range(0xA1, 0xFF)])
    assert len(big5) > 5300 and {c for c in big5 if ord(c) not in have} == set()
    labels = {c for text in all_labels("zh-Hant") for c in text if ord(c) > 0x7F}
    assert {"曱", "甴", "莊", "閒", "枱"} <= labels and {c for c in labels if ord(c) not in have} == set()


def test_the_kr_subset_covers_ks_x_1001_hangul_and_the_korean_catalogue():
    have = fonts.coverage(fonts.Face("kr", str(fonts.FONT_DIR / "NotoSansKR-Bold.otf"), 0))
    hangul = {c for c in _decode_all("euc_kr", range(0xB0, 0xC9), range(0xA1, 0xFF)) if "\uac00" <= c <= "\ud7a3"}
    assert len(hangul) == 2350 and {c for c in hangul if ord(c) not in have} == set()
    labels = {c for text in all_labels("ko") for c in text if ord(c) > 0x7F}
    assert {c for c in labels if ord(c) not in have} == set()


def test_traditional_forms_differ_from_the_simplified_face():
    """The TC face draws Taiwan's forms: 骨 (its inner stroke turns the other way) is drawn differently
    by the TC and SC subsets at the same size, so a Traditional page is not SC glyphs in disguise."""
    tc = ImageFont.truetype(str(fonts.FONT_DIR / "NotoSansTC-Bold.otf"), 80)
    sc = ImageFont.truetype(str(CJK_FILE), 80)
    assert bytes(tc.getmask("骨")) != bytes(sc.getmask("骨"))
    assert bytes(tc.getmask("大")) == bytes(sc.getmask("大"))


@pytest.mark.parametrize("size", [24, 36, 60])
def test_vietnamese_stacked_marks_are_one_latin_run_drawn_whole(size):
    """Vietnamese letters with two marks (ấ, ệ, ở, ữ) are precomposed in Noto Sans: every label is
    drawn by the Latin face alone, and a mark above a capital is inked above its cap height."""
    for text in all_labels("vi"):
        assert {f.script for _, f in fonts.runs(text, "vi")} == {"latin"}, text
    plain = fonts.line_metrics("A", size=size, lang="vi")
    stacked = fonts.line_metrics("Ấ", size=size, lang="vi")
    assert stacked[0] > plain[0] + size * 0.2  # the circumflex and acute stand clear of the A
    img = Image.new("L", (size * 4, size * 3), 0)
    fonts.draw_text(ImageDraw.Draw(img), (size, size * 2), "Ấ", size=size, fill=255, anchor="ls")
    top = img.getbbox()[1]
    assert size * 2 - top == pytest.approx(stacked[0], abs=2)


def test_a_chinese_table_name_reaches_the_board(tmp_path):
    """Through the service: a configured table named in Chinese; its header has drawn text."""
    import io

    from web import create_app
    from web.render.layout import board_layout

    app = create_app({"TESTING": True, "ROADS_FEED_TOKEN": "x", "ROADS_DATA_DIR": str(tmp_path),
                      "ROADS_TABLES": {"T8": {"name": "百家乐贵宾厅"}}})
    client = app.test_client()
    r = client.get("/tables/T8/board.png?width=1280&height=720&lang=en")
    assert r.status_code == 200
    img = Image.open(io.BytesIO(r.data)).convert("RGB")
    header = board_layout(1280, 720)["regions"]["header"]
    crop = img.crop((header["x"], header["y"], header["x"] + header["w"] // 2, header["y"] + header["h"] // 2))
    bright = sum(1 for p in crop.convert("L").tobytes() if p > 200)  # the name is drawn in near-white on dark
    assert bright > 200


def test_pillow_has_raqm_and_fonts_use_it():
    assert features.check("raqm"), "Pillow without raqm cannot shape Thai, Lao and Burmese"
    assert fonts.HAS_RAQM
    for lang in LANGS:
        for face in fonts.font_chain(lang):
            assert fonts.get_font(face, 20).layout_engine == ImageFont.Layout.RAQM


def _draw(text: str, font) -> Image.Image:
    img = Image.new("L", (300, 160), 0)
    ImageDraw.Draw(img).text((40, 30), text, font=font, fill=255)
    return img


def _differing_pixels(a: Image.Image, b: Image.Image) -> int:
    return sum(1 for p in ImageChops.difference(a, b).tobytes() if p > 128)


@pytest.mark.parametrize(
    "lang,text,visual",
    [
        # Burmese vowel sign e (U+1031) and medial ra (U+103C) are typed after the consonant but
        # drawn before it: shaped output looks like the signs drawn first (visual order)
        ("my", "ကေ", "ေက"),
        ("my", "ကြ", "ြက"),
        # Lao pre-base vowel sign e (U+0EC0) is typed first already; Thai stacked marks
        ("lo", "ເຈົ້າ", None),
        ("th", "ที่", None),
    ],
)
def test_complex_scripts_are_shaped(lang, text, visual):
    """raqm's shaping differs from naive glyph-by-glyph layout and matches the visual order."""
    face = fonts.primary_face(lang)
    basic = ImageFont.truetype(face.path, 60, layout_engine=ImageFont.Layout.BASIC)
    raqm = ImageFont.truetype(face.path, 60, layout_engine=ImageFont.Layout.RAQM)
    shaped, naive = _draw(text, raqm), _draw(text, basic)
    assert shaped.tobytes() != naive.tobytes()
    if visual is not None:
        by_hand = _draw(visual, basic)
        assert _differing_pixels(shaped, by_hand) < _differing_pixels(shaped, naive) / 2


def test_shaped_marks_do_not_add_width():
    """Thai tone marks sit on their consonant: a cluster is as wide as its base letter."""
    base = fonts.text_width("ท", size=50, lang="th")
    cluster = fonts.text_width("ที่", size=50, lang="th")
    assert abs(cluster - base) < 2


def test_mixed_runs_split_by_script():
    runs = fonts.runs("เหลือ 19 รอบ", "th")
    assert [(t, f.script) for t, f in runs] == [("เหลือ ", "thai"), ("19 ", "latin"), ("รอบ", "thai")]
    runs = fonts.runs("剩 19 局", "zh")
    assert [f.script for _, f in runs] == ["cjk", "latin", "cjk"]


def test_unknown_language_and_weight_raise():
    with pytest.raises(fonts.FontError, match="'xx'"):
        fonts.font_chain("xx")
    with pytest.raises(fonts.FontError, match="'heavy'"):
        fonts.font_chain("en", "heavy")


def test_without_any_font_file_text_still_draws_with_pillows_font(tmp_path, monkeypatch):
    """Last resort of the chain: no Noto anywhere -> Pillow's built-in font, no crash."""
    monkeypatch.setattr(fonts, "FONT_DIR", tmp_path)
    monkeypatch.setattr(fonts, "SYSTEM_FONT_DIRS", ())
    monkeypatch.setattr(fonts, "_extra_dir", None)
    fonts.reset_caches()
    try:
        assert fonts.font_chain("en") == ()
        assert fonts.runs("Banker 7", "en") == [("Banker 7", None)]
        img = Image.new("L", (200, 50), 0)
        fonts.draw_text(ImageDraw.Draw(img), (5, 25), "Banker 7", size=20, fill=255, anchor="lm")
        assert img.getbbox() is not None
    finally:
        monkeypatch.undo()
        fonts.reset_caches()


def test_fit_and_ellipsize():
    text = "Longest Banker streak"
    full = fonts.text_width(text, size=40, lang="en")
    size = fonts.fit_size(text, full / 2, 40, lang="en")
    assert size < 40 and fonts.text_width(text, size=size, lang="en") <= full / 2
    cut = fonts.ellipsize(text, full / 2, size=40, lang="en")
    assert cut.endswith("…") and fonts.text_width(cut, size=40, lang="en") <= full / 2
    # a Thai cut never leaves a dangling mark (marks stay with their consonant)
    cut = fonts.ellipsize("แบงเกอร์ติดกันยาวสุด", 120, size=30, lang="th")
    assert not unicodedata.category(cut[-2]).startswith("M")


def test_the_thai_face_maps_every_assigned_thai_letter_and_nothing_unassigned():
    """Unicode's Thai block: U+0E01-U+0E3A and U+0E3F-U+0E5B are assigned, U+0E3B-U+0E3E are not."""
    face = fonts.Face("thai", str(fonts.FONT_DIR / "NotoSansThai-Bold.ttf"), 0)
    have = fonts.coverage(face)
    assigned = {*range(0x0E01, 0x0E3B), *range(0x0E3F, 0x0E5C)}
    assert len(assigned) == 87 and assigned <= have
    assert not have & {0x0E3B, 0x0E3C, 0x0E3D, 0x0E3E, 0xFFFF}


def test_a_file_that_is_not_a_font_is_a_font_error(tmp_path):
    bad = tmp_path / "NotoSans-Bold.ttf"
    bad.write_bytes(b"not a font at all")
    with pytest.raises(fonts.FontError, match="not a readable TrueType/OpenType font"):
        fonts.coverage(fonts.Face("latin", str(bad), 0))


def test_the_app_gives_the_renderer_its_font_folder_at_start_up(tmp_path, monkeypatch):
    """ROADS_FONT_DIR reaches web.render.fonts through create_app (the renderer never reads the
    settings): a folder holding a copy of the Thai face wins over the shipped one for Thai."""
    import shutil

    from web import create_app

    shutil.copy(fonts.FONT_DIR / "NotoSansThai-Bold.ttf", tmp_path / "NotoSansThai-Bold.ttf")
    monkeypatch.setattr(fonts, "_extra_dir", None)
    try:
        create_app({"ROADS_DATA_DIR": str(tmp_path / "data"), "ROADS_FEED_TOKEN": "t" * 16,
                    "ROADS_FONT_DIR": str(tmp_path)})
        assert fonts.font_dir() == tmp_path
        assert fonts.primary_face("th") == fonts.Face("thai", str(tmp_path / "NotoSansThai-Bold.ttf"), 0)
        assert Path(fonts.primary_face("en").path).parent == fonts.FONT_DIR  # not in the folder: shipped
        create_app({"ROADS_DATA_DIR": str(tmp_path / "data2"), "ROADS_FEED_TOKEN": "t" * 16})
        assert fonts.font_dir() is None
        assert Path(fonts.primary_face("th").path).parent != tmp_path
    finally:
        fonts.set_font_dir(None)
