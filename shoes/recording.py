"""Recorded byte streams of a shoe (``roads shoe record``), for support and for ``--replay``.

A recording is text: a first line ``# roads shoe record v1 ...`` then one line per read,
``<seconds since the start> <the bytes in hex>`` (``0.016667 053053033630``), so the splits of
the reads and their timing are kept. ``--replay`` also takes a plain binary file of raw bytes
(no timing: one chunk). Lines starting with ``#`` are comments.
"""

from __future__ import annotations

from pathlib import Path

MAGIC = "# roads shoe record v1"
"""First line of a recording."""


class RecordingError(ValueError):
    """A recording with a line that is not ``<seconds> <hex>``; the message names the line."""


def header(device: str, baud: int, started: str) -> str:
    """The first line of a recording (ending with a newline)."""
    return f"{MAGIC} device={device} baud={baud} started={started}\n"


def line(seconds: float, data: bytes) -> str:
    """One read as a line (ending with a newline)."""
    return f"{seconds:.6f} {data.hex()}\n"


def read_chunks(path: Path) -> list[tuple[float, bytes]]:
    """``(seconds, bytes)`` of each read of a recording, or ``[(0.0, whole file)]`` for raw bytes.

    Raises :class:`RecordingError` naming the line of a bad recording line, ``OSError`` when
    the file cannot be read.
    """
    raw = Path(path).read_bytes()
    if not raw.startswith(MAGIC.encode()):
        return [(0.0, raw)] if raw else []
    out = []
    for number, text in enumerate(raw.decode("utf-8", "replace").splitlines(), 1):
        text = text.strip()
        if not text or text.startswith("#"):
            continue
        try:
            t, hexbytes = text.split(None, 1)
            out.append((float(t), bytes.fromhex(hexbytes)))
        except ValueError:
            raise RecordingError(f"{path} line {number}: not '<seconds> <hex bytes>': {text[:60]!r}") from None
    return out
