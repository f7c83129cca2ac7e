"""Statistics of a shoe: counts, shares, pairs, naturals and streaks of the counted rounds.

docs/domain.md section 4 ("Statistics"). Voided rounds are not counted. A *streak*
is a big-road column: consecutive Banker (or Player) results, ties neither extending nor
breaking it (the big-road convention), so the current streak is the newest big-road column
and the longest Banker streak is the longest Banker column.
"""

from __future__ import annotations

from roads.outcome import RoundResult, Winner

_B, _P, _T = Winner.BANKER, Winner.PLAYER, Winner.TIE


def share(count: int, rounds: int) -> float:
    """``count`` as a percentage of ``rounds``, rounded half up to one decimal; 0.0 when
    ``rounds`` is 0 (integer arithmetic, so 1/8 gives 12.5 exactly and 1/3 gives 33.3)."""
    return ((2000 * count + rounds) // (2 * rounds)) / 10 if rounds else 0.0


_SHARE_ROWS_MAX = 256
_SHARE_ROWS: dict[int, tuple[float, ...]] = {}
"""``_SHARE_ROWS[rounds][count] == share(count, rounds)``: the shares looked up instead of
computed, every round; filled on first use for shoes of fewer than ``_SHARE_ROWS_MAX`` rounds."""


class ShoeStats:
    """Running counts of a shoe, updated per counted round (:meth:`push`, undo :meth:`pop`).

    Attributes (ints, all start at 0): ``rounds``, ``banker``, ``player``, ``tie``,
    ``banker_pair``, ``player_pair``, ``natural`` (rounds with either pair flag / natural,
    ties included), ``longest_banker``, ``longest_player`` (longest streak of each side).
    """

    __slots__ = (
        "rounds", "banker", "player", "tie", "banker_pair", "player_pair", "natural",
        "longest_banker", "longest_player", "_history",
    )

    def __init__(self) -> None:
        self.rounds = self.banker = self.player = self.tie = 0
        self.banker_pair = self.player_pair = self.natural = 0
        self.longest_banker = self.longest_player = 0
        # (rounds, longest_banker, longest_player) before each push that raised a longest streak
        self._history: list[tuple[int, int, int]] = []

    def push(self, result: RoundResult, streak: int) -> None:
        """Count one round. ``streak`` is the length of the newest big-road column after the
        round was added to the big road (ignored for a tie)."""
        w = result.winner
        if w is _B:
            self.banker += 1
            if streak > self.longest_banker:
                self._history.append((self.rounds, self.longest_banker, self.longest_player))
                self.longest_banker = streak
        elif w is _P:
            self.player += 1
            if streak > self.longest_player:
                self._history.append((self.rounds, self.longest_banker, self.longest_player))
                self.longest_player = streak
        else:
            self.tie += 1
        self.rounds += 1
        if result.banker_pair:
            self.banker_pair += 1
        if result.player_pair:
            self.player_pair += 1
        if result.natural:
            self.natural += 1

    def pop(self, result: RoundResult) -> None:
        """Undo the newest :meth:`push`, which counted ``result``. ``IndexError`` when empty."""
        if not self.rounds:
            raise IndexError("pop from empty shoe statistics")
        self.rounds -= 1
        history = self._history
        if history and history[-1][0] == self.rounds:
            _, self.longest_banker, self.longest_player = history.pop()
        w = result.winner
        if w is _B:
            self.banker -= 1
        elif w is _P:
            self.player -= 1
        else:
            self.tie -= 1
        if result.banker_pair:
            self.banker_pair -= 1
        if result.player_pair:
            self.player_pair -= 1
        if result.natural:
            self.natural -= 1

    def json(self, streak_winner: str | None, streak_length: int) -> dict:
        """Snapshot piece.

        ``{"rounds", "banker", "player", "tie", "banker_pair", "player_pair", "natural",
        "shares": {"banker", "player", "tie"} (percent of rounds, one decimal),
        "current_streak": {"winner", "length"} or None, "longest_banker_streak",
        "longest_player_streak"}``. ``streak_winner``/``streak_length`` describe the newest
        big-road column (``None``/0 before the first Banker/Player round).
        """
        n = self.rounds
        row = _SHARE_ROWS.get(n)
        if row is None and n < _SHARE_ROWS_MAX:
            row = _SHARE_ROWS[n] = tuple(share(count, n) for count in range(n + 1))
        if row is not None:
            shares = {"banker": row[self.banker], "player": row[self.player], "tie": row[self.tie]}
        else:
            shares = {"banker": share(self.banker, n), "player": share(self.player, n), "tie": share(self.tie, n)}
        return {
            "rounds": n,
            "banker": self.banker,
            "player": self.player,
            "tie": self.tie,
            "banker_pair": self.banker_pair,
            "player_pair": self.player_pair,
            "natural": self.natural,
            "shares": shares,
            "current_streak": None if streak_winner is None else {"winner": streak_winner, "length": streak_length},
            "longest_banker_streak": self.longest_banker,
            "longest_player_streak": self.longest_player,
        }
