"""Angel Eye byte streams written from the protocol (docs/shoes.md), for the adapter's tests:
rounds dealt by the rules engine as a shoe reports them (each card drawn face down then shown,
or drawn face up), the new shoe's turned card and burn, repeats, noise, bad BCCs, errors and
extra cards.

:class:`StreamWriter` numbers frames as the shoe does (``seq`` 0-9, wrapping) and sends each
one 1-3 times; :func:`deal_frames` gives the frames of one round.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from roads.cards import Card
from roads.tableau import deal_round
from shoes.angel_eye import encode_card, encode_frame, encode_position


@dataclass
class StreamWriter:
    """Collects frames into a byte stream. ``repeats``: (min, max) copies of each frame;
    ``rng`` decides the copies. :attr:`data` is the stream so far."""

    rng: random.Random = field(default_factory=lambda: random.Random(0))
    repeats: tuple[int, int] = (1, 3)
    seq: int = 0
    data: bytearray = field(default_factory=bytearray)
    frames: int = 0
    copies: int = 0

    def frame(self, command: str, payload: bytes = b"") -> bytes:
        """Append one new frame (sent 1-3 times); returns its bytes."""
        raw = encode_frame(self.seq, command, payload)
        self.seq = (self.seq + 1) % 10
        n = self.rng.randint(*self.repeats)
        self.data += raw * n
        self.frames += 1
        self.copies += n - 1
        return raw

    def start(self) -> None:
        """``S``: the shoe powers on (its counter starts at 0)."""
        self.seq = 0
        self.frame("S")

    def noise(self, data: bytes) -> None:
        """Bytes outside any frame."""
        self.data += data

    def card(self, command: str, side: str, order: int, card: str | None, new_shoe: bool = False) -> None:
        """A ``D``/``I``/``R``/``d`` frame."""
        self.frame(command, bytes([encode_position(side, order, new_shoe), encode_card(card)]))

    def result(self, winner: str, six: bool = False, player_pair: bool = False, banker_pair: bool = False) -> None:
        """A ``G`` frame."""
        code = {"P": 1, "T": 2, "B": 5 if six else 4}[winner]
        self.frame("G", bytes([0x80 | code << 4 | int(player_pair) | int(banker_pair) << 1]))

    def new_shoe(self, turned: str, burned: list[str]) -> None:
        """The turned card and the cards it burns (face up)."""
        self.card("D", "player", 0, turned, new_shoe=True)
        for k, c in enumerate(burned, 1):
            self.card("D", "player", k, c, new_shoe=True)

    def round(self, player: list[str], banker: list[str], *, face_down: bool = True, result: bool = True,
              stand_by: bool = True, wrong_result: str | None = None) -> None:
        """One round: its cards in deal order (drawn face down then shown, or drawn face up), the
        shoe's result (``wrong_result``: another winner), then stand-by."""
        for side, order, card in deal_keys(player, banker):
            if face_down:
                self.card("D", side, order, None)
                self.card("I", side, order, card)
            else:
                self.card("D", side, order, card)
        if result:
            self.result(*shoe_result(player, banker, wrong_result))
        if stand_by:
            self.frame("P")


def deal_keys(player: list[str], banker: list[str]) -> list[tuple[str, int, str]]:
    """``(side, order, card)`` in deal order: P1 B1 P2 B2, the Player's third, the Banker's."""
    out = [("player", 1, player[0]), ("banker", 1, banker[0]), ("player", 2, player[1]), ("banker", 2, banker[1])]
    if len(player) == 3:
        out.append(("player", 3, player[2]))
    if len(banker) == 3:
        out.append(("banker", 3, banker[2]))
    return out


def shoe_result(player: list[str], banker: list[str], wrong: str | None = None) -> tuple[str, bool, bool, bool]:
    """``(winner, banker six, player pair, banker pair)`` worked from the cards by hand-written
    rules (totals mod 10, pairs by rank), independent of roads.outcome."""
    value = {"A": 1, "T": 0, "J": 0, "Q": 0, "K": 0}
    pt = sum(value.get(c[0], int(c[0]) if c[0].isdigit() else 0) for c in player) % 10
    bt = sum(value.get(c[0], int(c[0]) if c[0].isdigit() else 0) for c in banker) % 10
    winner = "B" if bt > pt else "P" if pt > bt else "T"
    if wrong is not None:
        winner = wrong
    return winner, winner == "B" and bt == 6 and wrong is None, player[0][0] == player[1][0], banker[0][0] == banker[1][0]


def dealt_rounds(count: int, seed: int) -> list[tuple[list[str], list[str]]]:
    """``count`` rounds dealt by the rules engine from a shuffled 8-deck shoe."""
    rng = random.Random(seed)
    cards = [Card(r, s) for r in "A23456789TJQK" for s in "SHDC"] * 8
    rng.shuffle(cards)
    it = iter(cards)
    out = []
    for _ in range(count):
        p, b = deal_round(lambda: next(it))
        out.append(([str(c) for c in p], [str(c) for c in b]))
    return out


def recording(data: bytes, rng: random.Random, device: str = "/dev/ttyUSB0") -> str:
    """``data`` as a ``roads shoe record`` file: split into reads of 1-24 bytes as a serial port
    returns them, timed at 4800 baud (480 bytes a second) with pauses between frames."""
    from shoes import recording as rec

    out = [rec.header(device, 4800, "2025-01-01T00:00:00+00:00")]
    t, i = 0.0, 0
    while i < len(data):
        n = rng.randint(1, 24)
        t += n / 480 + rng.choice((0.0, 0.0, 0.05, 0.4))
        out.append(rec.line(t, data[i:i + n]))
        i += n
    return "".join(out)
