"""Make the shipped CJK faces from Noto Sans CJK Bold: ``static/fonts/NotoSansSC-Bold.otf``
(Simplified Chinese, ``--face sc``, the default), ``NotoSansTC-Bold.otf`` (Traditional Chinese,
``--face tc``) and ``NotoSansKR-Bold.otf`` (Korean, ``--face kr``), each one face, subset.

Dev-time tool, not part of the service. It uses fontTools, a dependency of the service
(``web/render/fonts.py`` reads the fonts' character maps with it), so the project's virtualenv
runs it::

    .venv/bin/python tools/subset_cjk_font.py /usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc
    .venv/bin/python tools/subset_cjk_font.py --face tc /usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc
    .venv/bin/python tools/subset_cjk_font.py --face kr /usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc

The source is the Bold collection of Debian's ``fonts-noto-cjk`` (1:20220127, the file this
repository shipped before, see git history of ``static/fonts/``); its faces 2, 3 and 1 are
"Noto Sans CJK SC", "TC" and "KR".

Traditional Chinese (``zh-Hant``): the hanzi of Big5 level 1 (5,401), Big5's punctuation and
symbols (0xA140-0xA3BF), CJK punctuation, fullwidth forms and every character of
``web/i18n/zh-Hant.json`` (曱甴 of 曱甴路, 枱 of 賭枱 are not in level 1): about 5,900 characters
drawn in the TC face's forms (Taiwan's standard; Hong Kong's differ in a few strokes of a few
hundred characters). Korean (``ko``): the 2,350 Hangul syllables of KS X 1001 (every syllable of
everyday Korean), its compatibility jamo, CJK punctuation, fullwidth forms and every character of
``web/i18n/ko.json``; no hanja (hanzi in Korean table names come from the SC face).

Kept in the SC face (about 9,200 characters, ~2.5 MB instead of the 20 MB collection):

- the 6,763 hanzi of GB2312 (Simplified Chinese in everyday use);
- the 5,401 hanzi of Big5 level 1 (common Traditional forms: 澳門, 貴賓廳, 龍虎 in table names),
  2,073 of them not already in GB2312; drawn in the SC face's style;
- GB2312 row 1 (the punctuation and symbols Chinese text uses: ·、。—～‖…‘’“”〔〕〈〉《》「」『』【】±×÷∶°℃ ...),
  CJK symbols and punctuation (U+3000-303F) and halfwidth/fullwidth forms (U+FF00-FFEF);
- every non-ASCII character of every string in ``web/i18n/zh.json`` (e.g. "…").

Left out: other hanzi (rarer characters in table names fall back to the system's fonts
in the browser and to the rest of the fallback chain, or nothing, in PNG boards), kana,
hangul, and the ``locl`` glyph variants for Japanese/Korean/Traditional (the SC forms are
the face's defaults). Latin letters and digits come from Noto Sans, not from this file.

The subsets are renamed "Noto Sans SC Subset" (TC, KR) so that none is mistaken for the full
font (e.g. by fontconfig if someone installs it). It stays under the SIL OFL 1.1
(``static/fonts/OFL.txt``); the name avoids the Reserved Font Name "Source".
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "static" / "fonts" / "NotoSansSC-Bold.otf"
SC_INDEX = 2  # faces of NotoSansCJK-*.ttc: 0 JP, 1 KR, 2 SC, 3 TC, 4 HK, 5-9 Mono
FAMILY = "Noto Sans SC Subset"
PS_NAME = "NotoSansSCSubset-Bold"

FACES: dict[str, dict] = {
    # face: collection index, its family name in the source, output file, family and PostScript
    # names of the subset, the catalogue whose characters it must have, the note in its name table
    "sc": {"index": SC_INDEX, "source": "Noto Sans CJK SC", "out": OUT, "family": FAMILY, "ps": PS_NAME,
           "catalogue": "zh", "note": "subset: GB2312 + Big5 level 1 hanzi, punctuation, fullwidth forms"},
    "tc": {"index": 3, "source": "Noto Sans CJK TC", "out": OUT.with_name("NotoSansTC-Bold.otf"),
           "family": "Noto Sans TC Subset", "ps": "NotoSansTCSubset-Bold", "catalogue": "zh-Hant",
           "note": "subset: Big5 level 1 hanzi, punctuation, fullwidth forms"},
    "kr": {"index": 1, "source": "Noto Sans CJK KR", "out": OUT.with_name("NotoSansKR-Bold.otf"),
           "family": "Noto Sans KR Subset", "ps": "NotoSansKRSubset-Bold", "catalogue": "ko",
           "note": "subset: KS X 1001 Hangul, punctuation, fullwidth forms"},
}


def _decode_all(codec: str, lead: range, trail: list[int]) -> set[str]:
    out = set()
    for hi in lead:
        for lo in trail:
            try:
                out.add(bytes([hi, lo]).decode(codec))
            except UnicodeDecodeError:
                pass
    return out


def _hanzi(chars: set[str]) -> set[str]:
    return {c for c in chars if 0x4E00 <= ord(c) <= 0x9FFF or 0x3400 <= ord(c) <= 0x4DBF}


def gb2312_hanzi() -> set[str]:
    """GB2312 rows 16-87: the 6,763 hanzi."""
    return _hanzi(_decode_all("gb2312", range(0xB0, 0xF8), list(range(0xA1, 0xFF))))


def gb2312_punctuation() -> set[str]:
    """GB2312 row 1 (0xA1A1-0xA1FE): punctuation and symbols. Python maps 0xA1A4 and 0xA1AA to
    U+30FB and U+2015; other tables (GBK, Windows) map them to U+00B7 and U+2014: keep both."""
    return _decode_all("gb2312", range(0xA1, 0xA2), list(range(0xA1, 0xFF))) | {"\u00b7", "\u2014"}


def big5_level1_hanzi() -> set[str]:
    """Big5 0xA440-0xC67E: the 5,401 frequently used Traditional hanzi."""
    trail = list(range(0x40, 0x7F)) + list(range(0xA1, 0xFF))
    chars = _decode_all("big5", range(0xA4, 0xC6), trail) | _decode_all("big5", range(0xC6, 0xC7), list(range(0x40, 0x7F)))
    return _hanzi(chars)


def big5_symbols() -> set[str]:
    """Big5 0xA140-0xA3BF: the punctuation and symbols Traditional Chinese text uses."""
    trail = list(range(0x40, 0x7F)) + list(range(0xA1, 0xFF))
    return {c for c in _decode_all("big5", range(0xA1, 0xA4), trail) if ord(c) > 0x7F}


def ksx1001_hangul() -> set[str]:
    """KS X 1001 rows 16-40 (EUC-KR 0xB0A1-0xC8FE): the 2,350 Hangul syllables of everyday Korean."""
    return {c for c in _decode_all("euc_kr", range(0xB0, 0xC9), list(range(0xA1, 0xFF))) if 0xAC00 <= ord(c) <= 0xD7A3}


def compatibility_jamo() -> set[str]:
    """U+3131-318E: the jamo KS X 1001 row 4 writes alone (ㄱ, ㅏ ...)."""
    return {chr(c) for c in range(0x3131, 0x318F)}


def catalogue_chars(lang: str = "zh") -> set[str]:
    data = json.loads((ROOT / "web" / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    return {c for text in data.values() for c in text if ord(c) > 0x7F}


def wanted(face: str = "sc") -> set[str]:
    punct = {chr(c) for a, b in ((0x3000, 0x303F), (0xFF00, 0xFFEF)) for c in range(a, b + 1)}
    own = catalogue_chars(FACES[face]["catalogue"])
    if face == "tc":
        return big5_level1_hanzi() | big5_symbols() | punct | own
    if face == "kr":
        return ksx1001_hangul() | compatibility_jamo() | punct | own
    return gb2312_hanzi() | big5_level1_hanzi() | gb2312_punctuation() | punct | own


def _rename(font: TTFont, note: str, family: str = FAMILY, ps_name: str = PS_NAME) -> None:
    name = font["name"]
    for rec in list(name.names):
        if rec.nameID in (16, 17, 18, 21, 22):  # typographic names: not needed for one face
            name.removeNames(nameID=rec.nameID)
    for lang_rec in [r for r in name.names if r.nameID in (1, 3, 4, 5, 6)]:
        text = {1: family, 3: f"2.004;GOOG;{ps_name};{note}", 4: f"{family} Bold", 6: ps_name,
                5: f"{lang_rec.toUnicode()}; {note}"}[lang_rec.nameID]
        lang_rec.string = text
    cff = font["CFF "].cff
    top = cff.topDictIndex[0]
    cff.fontNames = [ps_name]
    top.FullName, top.FamilyName = f"{family} Bold", family


def build(source: Path, out: Path, face: str = "sc") -> TTFont:
    spec = FACES[face]
    font = TTCollection(str(source)).fonts[spec["index"]]
    family = font["name"].getDebugName(1)
    if family != spec["source"]:
        raise SystemExit(f"{source}: face {spec['index']} is {family!r}, expected {spec['source']!r}")
    options = subset.Options()
    options.name_IDs = ["*"]  # keep copyright, licence (13, 14) and credits
    options.name_languages = ["*"]
    options.name_legacy = True
    options.notdef_outline = True  # a missing character shows the font's box, as before
    # Default OpenType features without 'locl': its variants for the other regions would double
    # the size, and each face's default glyphs are already its own region's forms.
    options.layout_features = [f for f in options.layout_features if f != "locl"]
    subsetter = subset.Subsetter(options)
    chars = wanted(face)
    subsetter.populate(unicodes=sorted(ord(c) for c in chars))
    subsetter.subset(font)
    _rename(font, spec["note"], spec["family"], spec["ps"])
    font.save(str(out))
    return font


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source", type=Path, help="NotoSansCJK-Bold.ttc (fonts-noto-cjk)")
    ap.add_argument("--face", choices=sorted(FACES), default="sc")
    ap.add_argument("--out", type=Path, default=None, help="default: static/fonts/NotoSans<face>-Bold.otf")
    args = ap.parse_args(argv)
    args.out = args.out or FACES[args.face]["out"]
    font = build(args.source, args.out, args.face)
    cmap = font.getBestCmap()
    print(f"{args.out}: {len(cmap)} characters, {font['maxp'].numGlyphs} glyphs, "
          f"{args.out.stat().st_size:,} bytes (source {args.source.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
