"""One-card shoes and card scanners on a serial line: one card code a line (a barcode reader per
card), in deal order. The adapter gives each card its deal position by the tableau
(:class:`shoes.deal.RoundFollower`); a line with the new-shoe code (``NEWSHOE``, e.g. a
barcode on the shuffle card) says the next card is the turned card of a new shoe, then its
burn (docs/shoes.md "Line scanner").

A card code is a rank and a suit in either order (``H10``, ``10H``, ``TH``, ``AS``, ``SA``; case
and blanks ignored: rank letters and suit letters never overlap). Lines end with LF, CR or CRLF.
A line that is neither is counted (``bad_lines``) and logged, never guessed.
"""

from __future__ import annotations

import logging
from typing import Any

from roads.cards import Card, CardError
from shoes import deal

log = logging.getLogger("roads.shoe")

NEW_SHOE_CODE = "NEWSHOE"
"""The line that starts a new shoe."""

MAX_LINE = 64
"""Longest line kept, in bytes; a longer one is a bad line."""


def parse_card_code(text: str) -> str:
    """A scanner's card code -> canonical card (``"H10"`` -> ``"TH"``). Raises
    :class:`roads.cards.CardError` quoting it."""
    s = text.strip().upper().replace(" ", "")
    if s[:1] in ("S", "H", "D", "C") and len(s) >= 2:
        s = s[1:] + s[0]
    return str(Card.parse(s))


class LineDecoder:
    """Lines of card codes as a :class:`shoes.pipeline.Decoder`. ``new_shoe_code``: the line
    that starts a new shoe."""

    new_shoe_code = NEW_SHOE_CODE

    def __init__(self, buffer: bytes = b"", cards: int = 0, bad_lines: int = 0, new_shoes: int = 0) -> None:
        self.buffer, self.cards, self.bad_lines, self.new_shoes = bytearray(buffer), cards, bad_lines, new_shoes

    def feed(self, data: bytes) -> list[deal.Event]:
        """Events of the lines ``data`` completes."""
        self.buffer += data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        out: list[deal.Event] = []
        *lines, rest = self.buffer.split(b"\n")
        self.buffer = bytearray(rest)
        if len(self.buffer) > MAX_LINE:
            lines.append(bytes(self.buffer))
            self.buffer.clear()
        for raw in lines:
            out += self._line(raw)
        return out

    def _line(self, raw: bytes) -> list[deal.Event]:
        text = raw.decode("ascii", "replace").strip()
        if not text:
            return []
        if text.upper() == self.new_shoe_code.upper():
            self.new_shoes += 1
            return [deal.NewShoe()]
        try:
            card = parse_card_code(text) if len(raw) <= MAX_LINE else None
        except CardError:
            card = None
        if card is None:
            self.bad_lines += 1
            log.warning("scanner line %r is not a card code: ignored", text[:MAX_LINE])
            return []
        self.cards += 1
        return [deal.Drawn(None, None, card)]

    def flush(self) -> list[deal.Event]:
        """The stream ended: a last line without its end is read."""
        rest, self.buffer = bytes(self.buffer), bytearray()
        return self._line(rest)

    def state(self) -> dict[str, Any]:
        """JSON-ready state."""
        return {"buffer": self.buffer.hex(), "cards": self.cards, "bad_lines": self.bad_lines,
                "new_shoes": self.new_shoes}

    @classmethod
    def from_state(cls, data: dict[str, Any]) -> "LineDecoder":
        """The decoder :meth:`state` described."""
        return cls(bytes.fromhex(data["buffer"]), data["cards"], data["bad_lines"], data["new_shoes"])

    def counters(self) -> dict[str, int]:
        """cards, bad lines, new shoes."""
        return {"cards": self.cards, "bad_lines": self.bad_lines, "new_shoes": self.new_shoes}


def _command() -> Any:
    from shoes.cli import stream_command

    return stream_command("line-scanner", LineDecoder, expects_result=False, baud=9600,
                          help="A one-card shoe or card scanner on a serial line: one card code a line "
                               f"('H10', 'TH', 'AS'), in deal order; positions come from the tableau; a "
                               f"'{NEW_SHOE_CODE}' line starts a new shoe (next: the turned card, then its burn).")


def _shoe_type() -> Any:
    from shoes.plugins import ShoeType

    return ShoeType("line-scanner", "one-card shoe or scanner, one card code a line (serial)", _command)


SHOE_TYPE = _shoe_type()
"""This protocol in the ``roads.shoes`` entry-point group."""
