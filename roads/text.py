"""Display text: the one rule for text that a feed or a setting puts on a screen.

Table names (``ROADS_TABLES``), the dealer (table state feed), void and correction reasons, and
screen titles (``ROADS_SCREENS``) are shown on boards, tiles, lobby walls, PNGs in every language
and the pages' models. Such a text is refused (never normalised) when it

- holds a character of the Unicode categories in :data:`REFUSED_CATEGORIES`: controls (``Cc``:
  tab, CR, LF, NUL, DEL, the C1 controls), format characters (``Cf``: bidi overrides, zero-width
  joiners, soft hyphen, BOM), surrogates (``Cs``), the line and paragraph separators
  (``Zl`` U+2028, ``Zp`` U+2029): a CR or U+2029 makes the PNG text shaper (raqm) fail, a line
  break has no place on a one-line label, and bidi overrides can make a name read as another;
- or is blank (nothing but white space: nothing to show).

The feed answers such a text with a 400 naming the field; a setting holding one stops the start
naming the setting (docs/api.md, "Display text"). Text stored before this rule existed (an old data
directory) is shown through :func:`clean_display_text` by the painters instead of failing.
"""

from __future__ import annotations

import unicodedata

REFUSED_CATEGORIES: frozenset[str] = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
"""Unicode general categories a display text may not hold."""

DISPLAY_TEXT_RULE = "text without control, format or line/paragraph separator characters, and not blank"
"""The rule in words, for error messages: ``f"dealer must be {DISPLAY_TEXT_RULE}"``."""


class DisplayTextError(ValueError):
    """A text that breaks the display-text rule; the message says which character and where
    (``"holds U+000D (a control character) at index 4"``)."""


def _refused(char: str) -> bool:
    return unicodedata.category(char) in REFUSED_CATEGORIES


_SCANNED = (*range(0x40000), *range(0xE0000, 0xF0000))
"""Planes 0-3 and 14: planes 4-13 hold no character, 15-16 private use only (``Co``)."""


def _ranges() -> list[tuple[int, int]]:
    """The code points of :data:`REFUSED_CATEGORIES`, as inclusive ``(first, last)`` ranges."""
    out: list[tuple[int, int]] = []
    for cp in _SCANNED:
        if unicodedata.category(chr(cp)) in REFUSED_CATEGORIES:
            if out and out[-1][1] == cp - 1:
                out[-1] = (out[-1][0], cp)
            else:
                out.append((cp, cp))
    return out


def _escape(cp: int) -> str:
    # BMP code points as \uXXXX (both regex dialects read them); others as themselves (ECMAScript
    # has no \U escape, and a JSON document carries them escaped anyway).
    return f"\\u{cp:04x}" if cp <= 0xFFFF else chr(cp)


REFUSED_RANGES: tuple[tuple[int, int], ...] = tuple(_ranges())
"""Every refused code point as inclusive ``(first, last)`` ranges (from this Python's
``unicodedata``), for :data:`DISPLAY_TEXT_PATTERN`."""

_CLASS = "".join(_escape(a) if a == b else f"{_escape(a)}-{_escape(b)}" for a, b in REFUSED_RANGES
                 if not 0xD800 <= a <= 0xDFFF)  # no JSON text holds a surrogate, and Rust's regex refuses them

DISPLAY_TEXT_PATTERN = f"^[^{_CLASS}]*[^{_CLASS}\\s][^{_CLASS}]*$"
"""The rule as a regular expression (JSON Schema ``pattern`` of every display-text field in the
OpenAPI document; Python, ECMAScript and Rust read it alike): no refused character, at least one
character that is not white space. Surrogates are left out (no JSON text carries one, and some
regex engines refuse the range). Checking is :func:`display_text_problem`."""

_KIND = {"Cc": "a control character", "Cf": "a format character", "Cs": "a surrogate",
         "Zl": "a line separator", "Zp": "a paragraph separator"}


def display_text_problem(text: str) -> str | None:
    """What breaks the rule in ``text`` (``"holds U+000D (a control character) at index 4"``,
    ``"is blank"``), or ``None`` when it is a display text."""
    if not text.isprintable():  # fast path: printable text holds no Cc, Cf, Cs, Zl or Zp
        for i, char in enumerate(text):
            cat = unicodedata.category(char)
            if cat in REFUSED_CATEGORIES:
                return f"holds U+{ord(char):04X} ({_KIND[cat]}) at index {i}"
    if not text.strip():
        return "is blank"
    return None


def check_display_text(text: str) -> str:
    """``text`` unchanged when it is a display text; raises :class:`DisplayTextError` saying
    what breaks the rule (the caller names the field)."""
    problem = display_text_problem(text)
    if problem is not None:
        raise DisplayTextError(f"must be {DISPLAY_TEXT_RULE}; it {problem}")
    return text


def clean_display_text(text: str) -> str:
    """``text`` as a painter may show it: every refused character replaced by a space, the ends
    stripped of the spaces that made (``"Anna\\r\\n"`` -> ``"Anna"``, ``"Anna\\rX"`` -> ``"Anna X"``).
    For text stored before the rule (old data directories) and anything else that reaches a
    painter without the feed's check; text that keeps the rule comes back as is (same object)."""
    if text.isprintable():
        return text
    chars = [" " if _refused(c) else c for c in text]
    cleaned = "".join(chars)
    if cleaned == text:
        return text
    return cleaned.strip(" ")
