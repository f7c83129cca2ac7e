"""How stores write history as bytes: JSON text (the one encoding of lines and documents) and the
zlib-compressed blobs of shoe documents and shoe details (docs/history.md).

A detail blob is zlib over JSON lines, one event a line: ``[seq, kind, round, data, at]`` (the
table and shoe are the row's). JSON text is compact, UTF-8, key order as built: exactly the
service's response encoding (``json.dumps(..., ensure_ascii=False, separators=(",", ":"))``),
so a stored shoe-list line is served as it is.
"""

from __future__ import annotations

import json
import zlib
from typing import Any, Iterable, Iterator

import orjson

from roads.events import Event

DOC_LEVEL = 6
"""zlib level of shoe documents (read on demand: decompression is the same at any level)."""

DETAIL_LEVEL = 9
"""zlib level of shoe details (written once, rarely read)."""


def text(obj: Any) -> str:
    """Compact JSON text, non-ASCII kept, key order as built."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def loads(data: str | bytes) -> Any:
    """JSON text or UTF-8 bytes as Python values, exactly as ``json.loads`` gives them: orjson
    (about 4x faster: a restart decodes every live shoe's events), and ``json.loads`` for what
    orjson refuses but the standard library reads (integers beyond 64 bits, ``NaN``); raises
    ``ValueError`` for text that is not JSON."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)


def pack_doc(doc: Any) -> bytes:
    """A shoe document as stored: zlib of its JSON text."""
    return zlib.compress(text(doc).encode("utf-8"), DOC_LEVEL)


def unpack_doc(blob: bytes) -> Any:
    """Inverse of :func:`pack_doc`. Raises ``ValueError`` (``zlib.error`` is one) for damaged bytes."""
    try:
        return loads(zlib.decompress(blob))
    except zlib.error as e:
        raise ValueError(f"damaged shoe document: {e}") from None


def pack_detail(events: Iterable[Event]) -> bytes:
    """The events of one shoe as a detail blob (module doc)."""
    lines = "\n".join(text([e.seq, e.kind, e.round, e.data, e.at]) for e in events)
    return zlib.compress(lines.encode("utf-8"), DETAIL_LEVEL)


def unpack_detail(table: str, shoe: int, blob: bytes) -> Iterator[Event]:
    """The events of a detail blob of ``table``'s shoe ``shoe``, in stored (seq) order."""
    for line in zlib.decompress(blob).decode("utf-8").split("\n"):
        if line:
            seq, kind, rnd, data, at = loads(line)
            yield Event(table, seq, kind, shoe, rnd, data, at)
