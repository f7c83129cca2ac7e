"""Make ``static/fonts/NotoSansSC-Bold.otf``: one Simplified Chinese face, subset, from Noto Sans CJK.

Dev-time tool, not part of the service. It uses fontTools, a dependency of the service
(``web/render/fonts.py`` reads the fonts' character maps with it), so the project's virtualenv
runs it::

    .venv/bin/python tools/subset_cjk_font.py /usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc

The source is the Bold collection of Debian's ``fonts-noto-cjk`` (the file this repository
shipped before, see git history of ``static/fonts/``); face 2 of it is "Noto Sans CJK SC".

Kept (about 9,200 characters, ~2.5 MB instead of the 20 MB collection):

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

The subset is renamed "Noto Sans SC Subset" so that it is never mistaken for the full
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


def catalogue_chars() -> set[str]:
    data = json.loads((ROOT / "web" / "i18n" / "zh.json").read_text(encoding="utf-8"))
    return {c for text in data.values() for c in text if ord(c) > 0x7F}


def wanted() -> set[str]:
    punct = {chr(c) for a, b in ((0x3000, 0x303F), (0xFF00, 0xFFEF)) for c in range(a, b + 1)}
    return gb2312_hanzi() | big5_level1_hanzi() | gb2312_punctuation() | punct | catalogue_chars()


def _rename(font: TTFont, note: str) -> None:
    name = font["name"]
    for rec in list(name.names):
        if rec.nameID in (16, 17, 18, 21, 22):  # typographic names: not needed for one face
            name.removeNames(nameID=rec.nameID)
    for lang_rec in [r for r in name.names if r.nameID in (1, 3, 4, 5, 6)]:
        text = {1: FAMILY, 3: f"2.004;GOOG;{PS_NAME};{note}", 4: f"{FAMILY} Bold", 6: PS_NAME,
                5: f"{lang_rec.toUnicode()}; {note}"}[lang_rec.nameID]
        lang_rec.string = text
    cff = font["CFF "].cff
    top = cff.topDictIndex[0]
    cff.fontNames = [PS_NAME]
    top.FullName, top.FamilyName = f"{FAMILY} Bold", FAMILY


def build(source: Path, out: Path) -> TTFont:
    font = TTCollection(str(source)).fonts[SC_INDEX]
    family = font["name"].getDebugName(1)
    if family != "Noto Sans CJK SC":
        raise SystemExit(f"{source}: face {SC_INDEX} is {family!r}, expected 'Noto Sans CJK SC'")
    options = subset.Options()
    options.name_IDs = ["*"]  # keep copyright, licence (13, 14) and credits
    options.name_languages = ["*"]
    options.name_legacy = True
    options.notdef_outline = True  # a missing character shows the font's box, as before
    # Default OpenType features without 'locl': its JP/KR/TC variants would double the size
    # and the SC face's default glyphs are already the Simplified Chinese forms.
    options.layout_features = [f for f in options.layout_features if f != "locl"]
    subsetter = subset.Subsetter(options)
    chars = wanted()
    subsetter.populate(unicodes=sorted(ord(c) for c in chars))
    subsetter.subset(font)
    _rename(font, "subset: GB2312 + Big5 level 1 hanzi, punctuation, fullwidth forms")
    font.save(str(out))
    return font


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source", type=Path, help="NotoSansCJK-Bold.ttc (fonts-noto-cjk)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    font = build(args.source, args.out)
    cmap = font.getBestCmap()
    print(f"{args.out}: {len(cmap)} characters, {font['maxp'].numGlyphs} glyphs, "
          f"{args.out.stat().st_size:,} bytes (source {args.source.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
