"""JSON text decoded within bounds: every input gives a value or one :class:`JsonInputError`.

The standard library's :func:`json.loads` can fail in ways other than
:class:`json.JSONDecodeError` on hostile input: an array nested about a thousand levels deep
raises :class:`RecursionError`, an integer literal of more than 4,300 digits raises a plain
:class:`ValueError` (Python's integer-string conversion limit), ``1e999`` silently becomes
infinity, ``NaN`` is accepted, a ``\\ud800`` escape yields a string that cannot be encoded
again, and a repeated key silently keeps the last value. :func:`loads` refuses all of these,
before or while decoding, with :class:`JsonInputError`, so a caller needs exactly one
``except`` clause. It serves the HTTP feed (``web.http.schemas.load_json``) and feed files
(``web.cli.feed_file.parse_feed_line``).

Bounds (module constants, overridable per call): nesting depth :data:`MAX_DEPTH`, number
literals :data:`MAX_INT_CHARS` / :data:`MAX_FLOAT_CHARS` characters. Sizes of the whole
text are the caller's to bound (the HTTP body limit, a feed file's line length).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DEPTH = 32
"""Deepest nesting of arrays and objects accepted (a feed message nests 2 levels)."""

MAX_INT_CHARS = 32
"""Longest integer literal accepted, sign included (the largest number any feed field takes,
a shoe number, has 10 digits)."""

MAX_FLOAT_CHARS = 64
"""Longest literal with a fraction or exponent accepted; its value must also be finite."""

# A JSON string (possessive: linear time even on an unterminated string), or one bracket.
_TOKENS = re.compile(r'"(?:[^"\\]++|\\.)*+"|[\[\]{}]')


class JsonInputError(ValueError):
    """Text that is not JSON within the bounds. ``str(err)`` says what and where (line and
    column when the decoder knows them, quoting at most a few characters of the input);
    ``field`` is the key concerned (a repeated key) or ``None``."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def _check_depth(text: str, limit: int) -> None:
    """Raise :class:`JsonInputError` when arrays/objects nest deeper than ``limit``.

    Brackets inside strings do not count. Linear in ``len(text)``; skipped outright when the
    text has no more than ``limit`` opening brackets in all.
    """
    if text.count("[") + text.count("{") <= limit:
        return
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token == "[" or token == "{":
            depth += 1
            if depth > limit:
                raise JsonInputError(f"nested deeper than {limit} levels (at character {match.start() + 1})")
        elif token == "]" or token == "}":
            depth -= 1


def _int(limit: int):
    def parse(literal: str) -> int:
        if len(literal) > limit:
            raise JsonInputError(f"integer literal of {len(literal)} characters; at most {limit} are accepted")
        return int(literal)
    return parse


def _float(limit: int):
    def parse(literal: str) -> float:
        if len(literal) > limit:
            raise JsonInputError(f"number literal of {len(literal)} characters; at most {limit} are accepted")
        value = float(literal)
        if not math.isfinite(value):
            raise JsonInputError(f"number {literal[:24]} is too large to represent")
        return value
    return parse


def _constant(name: str) -> Any:
    raise JsonInputError(f"{name} is not valid JSON")


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise JsonInputError(f"key {key[:40]!r} appears twice in one object", key)
        out[key] = value
    return out


def _check_strings(value: Any) -> None:
    """Raise :class:`JsonInputError` for a string (key or value) holding a lone surrogate."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError as e:
                raise JsonInputError(f"string with an unpaired surrogate escape (\\u{ord(node[e.start]):04x})") from None
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def loads(text: str, *, max_depth: int = MAX_DEPTH, max_int_chars: int = MAX_INT_CHARS,
          max_float_chars: int = MAX_FLOAT_CHARS) -> Any:
    """Decode one JSON value from ``text`` (a ``str``), within the bounds.

    Returns what :func:`json.loads` would (dicts, lists, str, int, float, bool, ``None``).
    Raises :class:`JsonInputError` for malformed JSON (message with line and column), nesting
    deeper than ``max_depth``, an integer literal longer than ``max_int_chars`` or another
    number literal longer than ``max_float_chars`` or not finite, ``NaN``/``Infinity``, a key
    repeated within one object, or an unpaired surrogate escape in a string.
    """
    _check_depth(text, max_depth)
    try:
        value = json.loads(text, object_pairs_hook=_unique, parse_int=_int(max_int_chars),
                           parse_float=_float(max_float_chars), parse_constant=_constant)
    except json.JSONDecodeError as e:
        raise JsonInputError(f"{e.msg} at line {e.lineno} column {e.colno}") from None
    except RecursionError:  # only reachable with max_depth near the interpreter's own limit
        raise JsonInputError("nested too deeply") from None
    if "\\u" in text:  # a surrogate can only come from an escape: decoded text holds none
        _check_strings(value)
    return value
