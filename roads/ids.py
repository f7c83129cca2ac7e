"""Identifiers: the table id, the one name a table has in every URL, store key and feed write.

A table id is a slug of 1-32 letters, digits, ``_`` or ``-``, starting with a letter or digit
(docs/api.md, "Settings"), so it is safe in a URL path segment, a file name and a Redis key
(it never holds ``:``).
"""

from __future__ import annotations

import re

TABLE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$"
"""The table id as a regular expression (also the OpenAPI ``pattern`` of every ``table_id``)."""

TABLE_ID_RE = re.compile(TABLE_ID_PATTERN)
""":data:`TABLE_ID_PATTERN`, compiled."""

TABLE_ID_RULE = "a slug of 1-32 letters, digits, '_' or '-'"
"""The rule in words, for error messages: ``f"table id {x!r} is not {TABLE_ID_RULE}"``."""


def is_table_id(value: object) -> bool:
    """Whether all of ``value`` is a ``str`` matching :data:`TABLE_ID_PATTERN`: a full match, as JSON
    Schema reads the pattern (``re.match`` lets ``$`` match before a trailing newline, so ``"a\\n"``
    would pass)."""
    return isinstance(value, str) and TABLE_ID_RE.fullmatch(value) is not None
