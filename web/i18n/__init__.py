"""Label catalogues for the scoreboards: English, Chinese (Simplified and Traditional), Thai, Burmese,
Lao, Vietnamese, Korean.

Strings live in ``web/i18n/<lang>.json`` (flat ``{"key": "label"}`` objects), never in
templates or JavaScript. The HTML pages, the JavaScript renderer (which receives the whole
catalogue as JSON) and the PNG renderer all read the same catalogues.

Keys are grouped by prefix: ``winner.B|P|T`` and ``winner_short.*`` (bead letters),
``road.<road name>``, ``stats.<stat key>``, ``bet.<bet id>`` (the bet ids of
``roads.variants``), ``good_road.<pattern id>``, ``variant.<variant id>`` (game names, read through
:func:`variant_name`) and ``ui.*``. Labels may contain a ``{n}``
placeholder (see :func:`translate`).

The local words come from the source documents 000-004 (docs/domain.md section 5; the words
are listed in docs/frontend.md "Languages"): Burmese Player ထိုးသား, Banker ဒိုင်, Tie သရေ,
natural တန်းဒို, round အလှည့် and shoe ဖဲထုပ်ပေးစက် (000); Thai เพลเยอร์, แบงเกอร์, เสมอ,
ไพ่คู่ (pair), ไพ่ป๊อก (natural), ใหญ่/เล็ก (Big/Small), ซุปเปอร์ 6+ (001); Lao ຜູ້ຫຼິ້ນ, ເຈົ້າມື,
ເສມີ, ໄພ່ປ໋ອງ (natural), ຮອບ (round) (003);
Chinese 闲, 庄, 和 and the customary road names (大路, 珠盘路, 大眼仔, 小路, 蟑螂路).

Traditional Chinese (``zh-Hant``, for Macau and Hong Kong, where the derived roads were invented)
writes 莊, 閒, 和 and the lobby names 珠盤路, 大路, 大眼仔, 小路, 曱甴路 (World Gaming Magazine #55,
2018, pp. 20-21: the derived roads "下路" come from Casino Lisboa); 賭枱 is Macau's official word for a
gaming table (DICJ). Korean (``ko``) uses the Korean players' loanwords 뱅커, 플레이어, 타이, 내추럴,
페어 and their names of the roads: 육매 (bead plate), 본매 (big road), 중국점 1군/2군/3군 (big eye
boy, small road, cockroach pig), with 뱅/플/타 on the beads (the short forms of "플뱅" score cards;
bethelp247.com "바카라 매의 종류"). Vietnamese (``vi``) uses Nhà Cái, Nhà Con, Hòa and "cầu" for a
road (cầu bệt, cầu 1-1, cầu bi for the bead plate). Docs: docs/frontend.md "Languages".
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from collections.abc import Mapping
from typing import Any

LANGUAGES: tuple[str, ...] = ("en", "zh", "zh-Hant", "th", "my", "lo", "vi", "ko")
"""Supported language codes (ISO 639-1; ``zh-Hant`` a BCP 47 tag with its script), English first: it
is the fallback for every key. ``zh`` is Simplified Chinese."""

DEFAULT_LANGUAGE = "en"

CATALOGUE_DIR = Path(__file__).resolve().parent
"""Folder of the ``<lang>.json`` catalogues."""

_LANGUAGE_ALIASES = {
    # Tags whose primary subtag differs from ours but mean the same language.
    "bur": "my",  # ISO 639-2 Burmese
    "mya": "my",
    "tha": "th",
    "lao": "lo",
    "zho": "zh",
    "chi": "zh",
    "cmn": "zh",
    "vie": "vi",
    "kor": "ko",
}
_TRADITIONAL_SUBTAGS = frozenset({"hant", "tw", "hk", "mo"})
"""Subtags of a Chinese tag that choose Traditional characters: the script, or the regions that
write it (Taiwan, Hong Kong, Macau)."""
_CANTONESE = frozenset({"yue", "zh-yue"})
"""Cantonese, spoken in Hong Kong and Macau: read in Traditional characters."""
_TAG_RE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$")


class UnknownLanguageError(ValueError):
    """A language code that is not one of :data:`LANGUAGES` (after normalising the tag)."""

    def __init__(self, lang: object) -> None:
        super().__init__(f"unknown language {lang!r}; expected one of {', '.join(LANGUAGES)}")
        self.lang = lang


class UnknownLabelError(ValueError):
    """A label key that is in no catalogue, not even the English one."""

    def __init__(self, key: object) -> None:
        super().__init__(f"unknown label key {key!r}")
        self.key = key


_lock = threading.Lock()
_cache: dict[str, dict[str, str]] = {}
_extra: dict[str, dict[str, str]] = {}  # lang -> {key: label}: the operator's pattern names
_generation = 0


def normalize_language(tag: str | None) -> str | None:
    """Map a language tag (``"zh-CN"``, ``"th_TH"``, ``"MY"``, ``"mya"``) to one of :data:`LANGUAGES`.

    Returns ``None`` for an empty, malformed or unsupported tag (callers fall back). Chinese
    with script ``Hant`` or region ``TW``, ``HK`` or ``MO`` (``zh-TW``, ``zh-Hant-HK``,
    ``zh_Hant_TW``), and Cantonese (``yue``), give ``"zh-Hant"``; other Chinese tags (``zh``,
    ``zh-CN``, ``zh-Hans-HK``, ``zh-SG``) give ``"zh"``.
    """
    if not tag or not isinstance(tag, str) or not _TAG_RE.match(tag.strip()):
        return None
    parts = [p.lower() for p in re.split(r"[-_]", tag.strip())]
    if parts[0] in _CANTONESE or "-".join(parts[:2]) in _CANTONESE:
        return "zh-Hant"
    primary = _LANGUAGE_ALIASES.get(parts[0], parts[0])
    if primary == "zh":
        if "hans" in parts[1:]:
            return "zh"
        return "zh-Hant" if _TRADITIONAL_SUBTAGS & set(parts[1:]) else "zh"
    return primary if primary in LANGUAGES else None


def add_labels(labels: Mapping[str, Mapping[str, str]]) -> None:
    """Add labels from the settings, process-wide: ``{key: {lang: label}}`` (the operator's
    good-road pattern names, ``good_road.<id>``; ``ROADS_GOOD_ROAD_PATTERNS``). A key the
    catalogue files have keeps their labels; a language without a label falls back to English."""
    global _generation
    with _lock:
        for key, names in labels.items():
            for lang, text in names.items():
                _extra.setdefault(lang, {})[key] = text
        _generation += 1


def generation() -> int:
    """Counts :func:`add_labels` calls (caches of labels key on it)."""
    return _generation


def catalogue(lang: str) -> dict[str, str]:
    """The complete catalogue for ``lang``: every English key, with ``lang``'s label where it has one.

    Returns a new dict each call (callers may mutate it, e.g. to serialise it into a page).
    Catalogue files are read once per process.

    Raises :class:`UnknownLanguageError` if ``lang`` is not one of :data:`LANGUAGES`.
    """
    if lang not in LANGUAGES:
        raise UnknownLanguageError(lang)
    merged = {**_extra.get(DEFAULT_LANGUAGE, {}), **_load(DEFAULT_LANGUAGE)}
    if lang != DEFAULT_LANGUAGE:
        merged.update(_extra.get(lang, {}))
        merged.update(_load(lang))
    return merged


def translate(key: str, lang: str, **values: Any) -> str:
    """The label for ``key`` in ``lang`` (English when ``lang`` lacks it), ``{name}`` filled from ``values``.

    Example: ``translate("ui.rounds_left", "th", n=19)`` -> ``"เหลือ 19 รอบ"``.

    Raises :class:`UnknownLanguageError` for a language not in :data:`LANGUAGES` and
    :class:`UnknownLabelError` for a key that not even the English catalogue has.
    """
    if lang not in LANGUAGES:
        raise UnknownLanguageError(lang)
    label = _load(lang).get(key)
    if label is None:
        label = _extra.get(lang, {}).get(key) or _load(DEFAULT_LANGUAGE).get(key) or _extra.get(DEFAULT_LANGUAGE, {}).get(key)
    if label is None:
        raise UnknownLabelError(key)
    for name, value in values.items():
        label = label.replace("{" + name + "}", str(value))
    return label


def variant_name(variant: str | Mapping[str, Any] | None, lang: str) -> str:
    """The display name of a table variant in ``lang``: the catalogue's ``variant.<id>`` label.

    ``variant`` is a preset id (``"seed001"``, :data:`roads.variants.PRESETS`) or the
    snapshot's ``{"id", "name"}`` object. The one place every page, board model, lobby tile,
    PNG and the shoes page take a game's name from. An id no catalogue names (a variant added
    without labels) gives the object's English ``name``, else the id itself; ``None`` gives ``""``.
    Example: ``variant_name("seed004_mini", "th")`` -> ``"มินิ แบคคาร่า"`` (document 004's title,
    docs/domain.md section 5).

    Raises :class:`UnknownLanguageError` for a language not in :data:`LANGUAGES`.
    """
    if lang not in LANGUAGES:
        raise UnknownLanguageError(lang)
    if isinstance(variant, Mapping):
        vid, fallback = variant.get("id"), variant.get("name")
    else:
        vid, fallback = variant, None
    if not vid:
        return str(fallback or "")
    key = f"variant.{vid}"
    label = _load(lang).get(key) or _load(DEFAULT_LANGUAGE).get(key)
    return label if label is not None else str(fallback or vid)


def pick_language(request: Any) -> str:
    """The page language for a Flask ``request``: ``?lang=`` if supported, else Accept-Language, else English.

    ``?lang=`` accepts any tag :func:`normalize_language` understands (``zh-CN``, ``th``);
    an unsupported ``?lang=`` is ignored rather than rejected, so a shared link with a
    language we lack still shows the board. Accept-Language entries are tried in quality
    order (``"my-MM,my;q=0.9,en;q=0.5"`` -> ``"my"``).
    """
    chosen = normalize_language(request.args.get("lang"))
    if chosen:
        return chosen
    for tag, _quality in request.accept_languages:  # werkzeug sorts by quality, best first
        chosen = normalize_language(tag)
        if chosen:
            return chosen
    return DEFAULT_LANGUAGE


def label_keys(lang: str = DEFAULT_LANGUAGE) -> frozenset[str]:
    """The keys that ``lang``'s own file defines (without the English fallback). For completeness tests."""
    if lang not in LANGUAGES:
        raise UnknownLanguageError(lang)
    return frozenset(_load(lang))


def _load(lang: str) -> Mapping[str, str]:
    with _lock:
        cached = _cache.get(lang)
        if cached is None:
            path = CATALOGUE_DIR / f"{lang}.json"
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in data.items()
            ):
                raise ValueError(f"catalogue {str(path)!r} must be a flat object of strings")
            cached = _cache[lang] = data
        return cached
