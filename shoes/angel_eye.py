"""The Angel Eye card-reading shoe: its serial frames, read exactly, and what each one means.

Serial line: 4800 baud, 8 data bits, no parity, 1 stop bit (8N1). A frame is::

    0x05 | seq | command | data (0-2 bytes) | 0x03 | BCC

``seq`` is an ASCII digit ``'0'``-``'9'`` that steps by one per new frame (wrapping after
``'9'``); ``command`` one ASCII letter (:data:`COMMANDS`); every data byte has bit 7 set
(positions, cards, results and error codes are all ``0x80 | ...``); ``BCC`` is two ASCII hex
digits (upper or lower case), the XOR of the bytes from ``seq`` through the ``0x03``. The shoe
sends each frame up to three times: a frame equal to the one before it is a repeat. Reads split
frames and join several; bytes outside frames occur (line noise at power-up).

Sources (docs/shoes.md "Angel Eye"): issue 24's protocol notes and the worked examples
``05 36 49 81 b2 03 34 46`` ("card shown: Player's 1st, suit 3, rank 2") and
``05 32 47 c2 03 42 34`` ("Banker wins, Banker pair"); a public reader of this shoe (its files
say "angleEye") for the suit numbers (1 diamonds, 2 clubs, 3 spades, 4 hearts), the position
byte (bit 4 the Banker, low nibble the order), the result codes and the error texts.

:class:`FrameReader` turns bytes into frames (counting repeats, noise, BCC errors and sequence
gaps); :func:`shoe_events` turns a frame into the events of :mod:`shoes.deal`.
Standard library only.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from typing import Any

from shoes import deal

log = logging.getLogger("roads.shoe")

ENQ = 0x05
"""First byte of a frame."""
ETX = 0x03
"""Byte that ends a frame's body; the two BCC digits follow it."""
BAUD = 4800
"""Line speed in bits per second (8N1: 480 bytes a second)."""

COMMANDS: dict[str, str] = {
    "S": "start of communication (the shoe powered on)",
    "P": "stand-by between rounds",
    "D": "card drawn: position byte, card byte (0x80 = drawn face down)",
    "I": "card shown: position byte, card byte",
    "G": "round result: 0x80 | code << 4 | pairs",
    "E": "error: 0x80 | code",
    "e": "error cleared",
    "d": "extra card drawn, outside the round in progress (after an overdraw)",
    "i": "extra card(s) revoked",
    "R": "card drawing retransmitted: the extra card is used, at the position given",
    "L": "lock operation",
    "M": "preset value changed",
}
"""The commands of the protocol and what each says (docs/shoes.md)."""

DATA_LENGTH = {"S": 0, "P": 0, "D": 2, "I": 2, "G": 1, "E": 1, "e": 0, "d": 2, "i": 0, "R": 2}
"""Data bytes of the commands whose data the adapter reads; a frame of one of these commands
with another count is refused (counted as a bad frame). ``L`` and ``M`` may carry 0-2 bytes."""

MAX_FRAME = 8
"""Bytes in the longest frame: ENQ, seq, command, 2 data bytes, ETX, 2 BCC digits."""

SUITS = {1: "D", 2: "C", 3: "S", 4: "H"}
"""Suit number of a card byte (bits 4-6) -> suit letter of :mod:`roads.cards`."""
RANKS = {1: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "T", 11: "J", 12: "Q", 13: "K"}
"""Rank number of a card byte (bits 0-3) -> rank letter of :mod:`roads.cards`."""

FACE_DOWN = 0x80
"""Card byte of a card drawn face down (its face not read yet)."""

RESULT_CODES = {1: ("P", False), 2: ("T", False), 4: ("B", False), 5: ("B", True)}
"""Result code (bits 4-6 of ``G``'s byte) -> ``(winner, banker wins with 6)``."""

ERRORS = {
    1: "card_unreadable", 2: "overdraw", 3: "button_mishandled", 4: "card_returned_exit",
    5: "card_returned_inside", 6: "card_code_error", 7: "drawing_timeout",
}
"""Error code (``E``'s byte & 0x3F) -> the name the feed and the boards use (docs/shoes.md)."""


class FrameError(ValueError):
    """A frame whose data does not decode (a card byte outside the 52 cards, an unknown result
    code, a position without bit 7); the message quotes the frame in hex."""


def bcc(body: bytes) -> int:
    """XOR of ``body``: the bytes from ``seq`` through ``0x03``."""
    out = 0
    for b in body:
        out ^= b
    return out


def encode_frame(seq: int, command: str, data: bytes = b"") -> bytes:
    """The bytes of one frame (``seq`` 0-9, one-letter ``command``, 0-2 data bytes), with its
    BCC in upper-case hex. Raises ``ValueError`` for a seq, command or data outside the protocol."""
    if not 0 <= seq <= 9 or len(command) != 1 or not command.isascii() or not command.isalpha() or len(data) > 2:
        raise ValueError(f"not an Angel Eye frame: seq {seq!r}, command {command!r}, data {data.hex()!r}")
    if any(b < 0x80 for b in data):
        raise ValueError(f"data bytes have bit 7 set, got {data.hex(' ')!r}")
    body = bytes([0x30 + seq, ord(command)]) + data + bytes([ETX])
    return bytes([ENQ]) + body + f"{bcc(body):02X}".encode("ascii")


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame as read: ``seq`` 0-9, ``command`` (one letter), ``data`` (0-2 bytes),
    ``gap``: frames missing before it by the sequence counter (0 when none)."""

    seq: int
    command: str
    data: bytes
    gap: int = 0

    def key(self) -> tuple[int, str, bytes]:
        """What makes two frames equal (a repeat): seq, command and data."""
        return self.seq, self.command, self.data

    def __str__(self) -> str:
        return encode_frame(self.seq, self.command, self.data).hex(" ")


@dataclass(slots=True)
class ReaderStats:
    """Counters of a :class:`FrameReader`: ``frames`` new frames, ``repeats`` repeated frames
    dropped, ``noise_bytes`` bytes outside any frame, ``bcc_errors`` frames whose BCC did not
    match (dropped), ``bad_frames`` frames with a good BCC but data the protocol does not have,
    ``frames_lost`` frames missing by the sequence counter."""

    frames: int = 0
    repeats: int = 0
    noise_bytes: int = 0
    bcc_errors: int = 0
    bad_frames: int = 0
    frames_lost: int = 0


@dataclass(slots=True)
class FrameReader:
    """Bytes in, frames out, exactly: :meth:`feed` any split of the stream, get its new frames.

    A candidate frame starts at ``0x05``, has an ASCII digit ``seq``, a letter command, data
    bytes with bit 7 set, ``0x03`` and two hex digits; a byte that cannot start one is noise.
    A candidate whose BCC does not match is dropped and counted (never passed on). A frame
    equal to the last one passed on is a repeat (dropped and counted). The whole state is plain
    data (:meth:`state`, :meth:`from_state`), so a spool can keep it.
    """

    buffer: bytearray = field(default_factory=bytearray)
    last: tuple[int, str, str] | None = None
    stats: ReaderStats = field(default_factory=ReaderStats)

    def feed(self, chunk: bytes) -> list[Frame]:
        """The new frames completed by ``chunk`` (in order; repeats left out)."""
        self.buffer += chunk
        out: list[Frame] = []
        buf = self.buffer
        i = 0
        n = len(buf)
        while i < n:
            if buf[i] != ENQ:
                j = buf.find(ENQ, i)
                j = n if j < 0 else j
                self.stats.noise_bytes += j - i
                i = j
                continue
            size = _frame_size(buf, i)
            if size == 0:  # not enough bytes yet
                break
            if size < 0:  # cannot be a frame: this 0x05 is noise
                self.stats.noise_bytes += 1
                i += 1
                continue
            raw = bytes(buf[i:i + size])
            i += size
            body = raw[1:-2]
            if int(raw[-2:], 16) != bcc(body):
                self.stats.bcc_errors += 1
                continue
            frame = self._accept(body[0] - 0x30, chr(body[1]), body[2:-1])
            if frame is not None:
                out.append(frame)
        del buf[:i]
        return out

    def flush(self) -> None:
        """The stream ended: bytes of an unfinished frame count as noise."""
        self.stats.noise_bytes += len(self.buffer)
        self.buffer.clear()

    def _accept(self, seq: int, command: str, data: bytes) -> Frame | None:
        key = (seq, command, data.hex())
        if key == self.last:
            self.stats.repeats += 1
            return None
        gap = 0
        if self.last is not None and command != "S":
            gap = (seq - self.last[0] - 1) % 10
        self.last = key
        if command in DATA_LENGTH and len(data) != DATA_LENGTH[command]:
            self.stats.bad_frames += 1
            return None
        self.stats.frames += 1
        self.stats.frames_lost += gap
        return Frame(seq, command, data, gap)

    def state(self) -> dict[str, Any]:
        """The reader as JSON-ready data."""
        return {"buffer": self.buffer.hex(), "last": list(self.last) if self.last else None,
                "stats": asdict(self.stats)}

    @classmethod
    def from_state(cls, data: dict[str, Any]) -> "FrameReader":
        """The reader :meth:`state` described."""
        last = data.get("last")
        return cls(bytearray.fromhex(data.get("buffer", "")), tuple(last) if last else None,  # type: ignore[arg-type]
                   ReaderStats(**data.get("stats", {})))


_HEX = frozenset(b"0123456789ABCDEFabcdef")


def _frame_size(buf: bytearray, i: int) -> int:
    """Length of the candidate frame at ``buf[i]`` (a 0x05): > 0 a whole candidate, 0 more bytes
    needed, -1 not a frame (the byte at ``i`` is noise)."""
    n = len(buf)
    if i + 1 < n and not 0x30 <= buf[i + 1] <= 0x39:
        return -1
    if i + 2 < n and not (0x41 <= buf[i + 2] <= 0x5A or 0x61 <= buf[i + 2] <= 0x7A):
        return -1
    for k in range(i + 3, min(i + 6, n)):  # data bytes (bit 7 set), then ETX
        b = buf[k]
        if b == ETX:
            if k + 2 >= n:
                return 0
            if buf[k + 1] in _HEX and buf[k + 2] in _HEX:
                return k + 3 - i
            return -1
        if b < 0x80 or k == i + 5:
            return -1
    return 0 if n < i + MAX_FRAME else -1


# ----------------------------------------------------------------------------- meaning
def decode_position(b: int) -> tuple[str, int, bool]:
    """Position byte -> ``(side, order, new_shoe)``: ``0x80 | 0x40 new shoe | 0x10 Banker |
    order`` (order 1-3 in a round; at a new shoe, 0 for the turned card and any order for the
    burned cards, which are taken in the order they come). Raises :class:`FrameError` for a byte
    without bit 7, with bit 5, or a round's order outside 1-3."""
    new_shoe = bool(b & 0x40)
    if not b & 0x80 or b & 0x20 or (not new_shoe and not 1 <= b & 0x0F <= 3):
        raise FrameError(f"position byte {b:02x} is not 0x80 | 0x10 banker | order 1-3 "
                         "(or 0x80 | 0x40 new shoe | order)")
    return ("banker" if b & 0x10 else "player"), b & 0x0F, new_shoe


def decode_card(b: int) -> str | None:
    """Card byte -> card text (``"2S"``), or ``None`` for :data:`FACE_DOWN`. Raises
    :class:`FrameError` for a suit outside 1-4 or a rank outside 1-13."""
    if b == FACE_DOWN:
        return None
    suit, rank = (b >> 4) & 0x07, b & 0x0F
    if not b & 0x80 or suit not in SUITS or rank not in RANKS:
        raise FrameError(f"card byte {b:02x} is not 0x80 | suit 1-4 << 4 | rank 1-13")
    return RANKS[rank] + SUITS[suit]


def encode_card(card: str | None) -> int:
    """Card text (``"2S"``, ``None`` face down) -> card byte; the inverse of :func:`decode_card`."""
    if card is None:
        return FACE_DOWN
    rank = next(k for k, v in RANKS.items() if v == card[0])
    suit = next(k for k, v in SUITS.items() if v == card[1])
    return 0x80 | suit << 4 | rank


def encode_position(side: str, order: int, new_shoe: bool = False) -> int:
    """``(side, order, new_shoe)`` -> position byte; the inverse of :func:`decode_position`."""
    return 0x80 | (0x40 if new_shoe else 0) | (0x10 if side == "banker" else 0) | order


def decode_result(b: int) -> deal.ShoeResult:
    """``G``'s byte -> the shoe's result. Raises :class:`FrameError` for a code outside 1, 2, 4, 5."""
    code = (b >> 4) & 0x07
    if not b & 0x80 or code not in RESULT_CODES:
        raise FrameError(f"result byte {b:02x}: code {code} is not 1 (Player), 2 (Tie), 4 (Banker), 5 (Banker with 6)")
    winner, six = RESULT_CODES[code]
    return deal.ShoeResult(winner, six, bool(b & 1), bool(b & 2))


def shoe_events(frame: Frame) -> list[deal.Event]:
    """The events of :mod:`shoes.deal` that one new frame says (a gap in the sequence first).

    Raises :class:`FrameError` for data that does not decode. ``L`` and ``M`` say nothing a
    board shows: they give an empty list.
    """
    out: list[deal.Event] = []
    if frame.gap:
        out.append(deal.FramesLost(frame.gap))
    c, data = frame.command, frame.data
    if c == "S":
        out.append(deal.PowerOn())
    elif c == "P":
        out.append(deal.StandBy())
    elif c in ("D", "I", "R", "d"):
        side, order, new_shoe = decode_position(data[0])
        card = decode_card(data[1])
        if c == "d":
            out.append(deal.ExtraDrawn(card))
        elif new_shoe:
            out.append(deal.ShoeCard(order, card, shown=c == "I"))
        elif c == "I":
            if card is None:
                raise FrameError(f"frame {frame}: a card shown face down")
            out.append(deal.Shown(side, order, card))
        else:
            out.append(deal.Drawn(side, order, card, extra_used=c == "R"))
    elif c == "G":
        out.append(decode_result(data[0]))
    elif c == "E":
        code = data[0] & 0x3F
        out.append(deal.ShoeFault(code, ERRORS.get(code, f"error_{code}")))
    elif c == "e":
        out.append(deal.FaultCleared())
    elif c == "i":
        out.append(deal.ExtraRevoked())
    return out


class AngelEyeDecoder:
    """The Angel Eye protocol as a :class:`shoes.pipeline.Decoder`: :class:`FrameReader` then
    :func:`shoe_events`; a frame whose data does not decode is counted (``bad_frames``) and logged."""

    def __init__(self, reader: FrameReader | None = None) -> None:
        self.reader = reader or FrameReader()

    def feed(self, data: bytes) -> list[deal.Event]:
        """Events of the frames ``data`` completes."""
        out: list[deal.Event] = []
        for frame in self.reader.feed(data):
            try:
                out += shoe_events(frame)
            except FrameError as e:
                self.reader.stats.bad_frames += 1
                log.warning("Angel Eye frame %s dropped: %s", frame, e)
        return out

    def flush(self) -> list[deal.Event]:
        """The stream ended (an unfinished frame counts as noise)."""
        self.reader.flush()
        return []

    def state(self) -> dict[str, Any]:
        """The reader's state."""
        return self.reader.state()

    @classmethod
    def from_state(cls, data: dict[str, Any]) -> "AngelEyeDecoder":
        """The decoder :meth:`state` described."""
        return cls(FrameReader.from_state(data))

    def counters(self) -> dict[str, int]:
        """frames, repeats, noise bytes, BCC errors, bad frames, frames lost."""
        s = self.reader.stats
        return {"frames": s.frames, "repeats": s.repeats, "noise_bytes": s.noise_bytes, "BCC_errors": s.bcc_errors,
                "bad_frames": s.bad_frames, "frames_lost": s.frames_lost}


def _command() -> Any:
    from shoes.cli import stream_command

    return stream_command("angel-eye", AngelEyeDecoder, expects_result=True, baud=BAUD,
                          help="Angel Eye card-reading shoe on a serial port (4800 baud 8N1): cards as drawn "
                               "(face down shown as a card back) and shown, the new shoe's burn, the shoe's "
                               "errors; each round checked against the shoe's own result.")


def _shoe_type() -> Any:
    from shoes.plugins import ShoeType

    return ShoeType("angel-eye", "Angel Eye card-reading shoe, serial 4800 baud", _command)


SHOE_TYPE = _shoe_type()
"""This protocol in the ``roads.shoes`` entry-point group."""
