"""Good roads (the lobby's trend alerts): named patterns read off the big road's columns.

A pattern describes what the big road *has done*; it is history, not a prediction,
and the labels say only what happened. Every pattern has a stable ``id`` (used by the
i18n catalogues and clients), an English ``label`` and a ``threshold``; the shoe shows the
pattern when its measured ``length`` reaches the threshold.

Patterns are read from the logical columns of the big road (``lengths`` and ``winners``;
ties are not results here). The newest column may still grow: a pattern that needs the
newest column to reach a certain length is not broken while it is shorter ("in
progress"); it counts only once it has that length, and is broken when it grows past it.

:func:`good_roads` measures from scratch; :class:`GoodRoadTracker` (what
:class:`roads.shoe_roads.ShoeRoads` uses) keeps the same numbers up to date column by
column. Patterns overlap by design (a ping-pong run of four columns is also two side-by-side
pairs); each alert states its own fact.

Default patterns (:data:`DEFAULT_GOOD_ROADS`):

============================ ============================================= =========
id                           length measured                               threshold
============================ ============================================= =========
long_banker / long_player    cells in the newest column, when it is that     4
                             side's
ping_pong                    newest columns of exactly one cell in a row     4
double_jump                  newest columns of exactly two cells in a row    3
one_banker_two_player        newest columns alternating Banker 1 / Player 2  4
two_banker_one_player        newest columns alternating Banker 2 / Player 1  4
banker_jump / player_jump    that side's newest columns that are single      3
                             cells, in a row (other side's columns skipped)
side_by_side                 newest adjacent pairs of columns, each pair     2
                             two columns of equal length
============================ ============================================= =========
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from roads.road_patterns import Rule, parse

KINDS: tuple[str, ...] = ("streak", "run", "jump", "side_by_side")
"""Pattern kinds: see :class:`GoodRoad`."""


class GoodRoadError(ValueError):
    """A good-road pattern definition that makes no sense (the message quotes it)."""


@dataclass(frozen=True)
class GoodRoad:
    """One configurable good-road pattern.

    * ``id``: stable identifier (``"long_banker"``); ``label``: English name;
      ``threshold``: the smallest ``length`` at which the pattern is shown (>= 1);
      ``description``: a neutral sentence for docs and tooltips.
    * ``kind`` ``"streak"``: ``side`` (``"B"``/``"P"``) holds the newest column; length =
      its cells.
    * ``kind`` ``"run"``: every newest column has the length required for its side
      (``banker_length`` / ``player_length``); length = such columns in a row.
    * ``kind`` ``"jump"``: ``side``'s newest columns are single cells; length = such columns
      in a row, the other side's columns skipped.
    * ``kind`` ``"side_by_side"``: the newest columns form adjacent pairs of equal length;
      length = such pairs in a row.

    Raises :class:`GoodRoadError` for an unknown kind, a missing/invalid side or length, a
    threshold < 1 or an empty id.
    """

    id: str
    label: str
    kind: str
    threshold: int
    side: str | None = None
    banker_length: int | None = None
    player_length: int | None = None
    description: str = ""
    _spec: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise GoodRoadError(f"good road id must be a non-empty string, got {self.id!r}")
        if self.kind not in KINDS:
            raise GoodRoadError(f"good road {self.id!r}: kind must be one of {KINDS}, got {self.kind!r}")
        if isinstance(self.threshold, bool) or not isinstance(self.threshold, int) or self.threshold < 1:
            raise GoodRoadError(f"good road {self.id!r}: threshold must be an integer >= 1, got {self.threshold!r}")
        if self.kind in ("streak", "jump") and self.side not in ("B", "P"):
            raise GoodRoadError(f"good road {self.id!r}: side must be 'B' or 'P', got {self.side!r}")
        if self.kind == "run":
            for name in ("banker_length", "player_length"):
                v = getattr(self, name)
                if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                    raise GoodRoadError(f"good road {self.id!r}: {name} must be an integer >= 1, got {v!r}")
        code = KINDS.index(self.kind)
        if code == 1:
            a, b = self.banker_length, self.player_length
        else:
            a, b = self.side, None
        object.__setattr__(self, "_spec", (code, a, b, self.threshold, self.id, self.label))

    def measure(self, lengths: Sequence[int], winners: Sequence[str]) -> int:
        """The pattern's current length for big-road columns ``lengths``/``winners`` (0 = absent).

        ``lengths``/``winners`` are a big road's logical column lengths and winner letters
        (consecutive columns always have different winners).
        """
        return _values((self._spec,), lengths, winners)[0] if lengths else 0

    def json(self, length: int) -> dict:
        """Snapshot entry ``{"pattern", "label", "length", "threshold"}``."""
        return {"pattern": self.id, "label": self.label, "length": length, "threshold": self.threshold}


def _values(specs: Sequence[tuple], lengths: Sequence[int], winners: Sequence[str]) -> list[int]:
    """Measured length of each pattern spec for non-empty big-road columns, by scanning back
    from the newest column (the from-scratch definition; :class:`GoodRoadTracker` gives the
    same numbers without a scan). Big-road columns alternate winners, which the run and jump
    kinds use.
    """
    c = len(lengths) - 1
    n = lengths[c]
    w = winners[c]
    out = []
    for code, a, b, _t, _id, _label in specs:
        if code == 0:  # streak: a = side
            v = n if w == a else 0
        elif code == 1:  # run: a = banker length, b = player length
            need, other = (a, b) if w == "B" else (b, a)
            if n > need:
                v = 0
            else:
                i = c - 1
                while i >= 0 and lengths[i] == (other if (c - i) & 1 else need):
                    i -= 1
                # columns i+1 .. c-1 match; the newest counts once it has its length.
                v = c - 1 - i + (1 if n == need else 0)
        elif code == 2:  # jump: a = side; that side's columns are every other column
            i = c if w == a else c - 1
            j = i
            while i >= 0 and lengths[i] == 1:
                i -= 2
            v = (j - i) // 2
        else:
            v = _side_by_side(lengths)
        out.append(v)
    return out


def _pairs_ending_at(lengths: Sequence[int], end: int) -> int:
    count = 0
    i = end
    while i >= 1 and lengths[i] == lengths[i - 1]:
        count += 1
        i -= 2
    return count


def _side_by_side(lengths: Sequence[int]) -> int:
    last = len(lengths) - 1
    # The newest column either completes a pair, starts a new pair (any length so far),
    # or is the shorter-so-far second column of a pair in progress.
    best = _pairs_ending_at(lengths, last)
    if last >= 1:
        v = _pairs_ending_at(lengths, last - 1)
        if v > best:
            best = v
        if lengths[last] < lengths[last - 1]:
            v = _pairs_ending_at(lengths, last - 2)
            if v > best:
                best = v
    return best


DEFAULT_GOOD_ROADS: tuple[GoodRoad, ...] = (
    GoodRoad("long_banker", "Long Banker", "streak", 4, side="B",
             description="The newest big-road column is Banker with at least 4 results."),
    GoodRoad("long_player", "Long Player", "streak", 4, side="P",
             description="The newest big-road column is Player with at least 4 results."),
    GoodRoad("ping_pong", "Ping Pong", "run", 4, banker_length=1, player_length=1,
             description="The newest big-road columns alternate single results, at least 4 columns."),
    GoodRoad("double_jump", "Double Jump", "run", 3, banker_length=2, player_length=2,
             description="The newest big-road columns have exactly 2 results each, at least 3 columns."),
    GoodRoad("one_banker_two_player", "One Banker Two Player", "run", 4, banker_length=1, player_length=2,
             description="The newest columns alternate 1 Banker and 2 Player results, at least 4 columns."),
    GoodRoad("two_banker_one_player", "Two Banker One Player", "run", 4, banker_length=2, player_length=1,
             description="The newest columns alternate 2 Banker and 1 Player results, at least 4 columns."),
    GoodRoad("banker_jump", "Banker Jump", "jump", 3, side="B",
             description="Banker's newest 3 or more columns each hold a single result."),
    GoodRoad("player_jump", "Player Jump", "jump", 3, side="P",
             description="Player's newest 3 or more columns each hold a single result."),
    GoodRoad("side_by_side", "Side by Side", "side_by_side", 2,
             description="The newest columns stand in pairs of equal length, at least 2 pairs."),
)
"""The default pattern list, in display order (the thresholds of the table above)."""

BUILTIN_PRIORITY: dict[str, int] = {p.id: 10 * (i + 1) for i, p in enumerate(DEFAULT_GOOD_ROADS)}
"""Priority of each built-in pattern (docs/patterns.md "Priority"): 10, 20, ... 90 in the order of
:data:`DEFAULT_GOOD_ROADS` (long streaks first, side by side last). A lower number is shown first;
an operator's pattern (:class:`CustomRoad`) slots in between by its own number."""

HIGHLIGHTED_BY_DEFAULT: tuple[str, ...] = ("long_banker", "long_player", "ping_pong")
"""Ids of the patterns a board highlights unless the page or screen chooses: the two long
streaks and the ping-pong (the default of ``ROADS_GOOD_ROADS``, :mod:`web.settings`)."""


def good_roads(lengths: Sequence[int], winners: Sequence[str],
               patterns: Sequence[GoodRoad] = DEFAULT_GOOD_ROADS) -> list[dict]:
    """Snapshot piece: ``[{"pattern", "label", "length", "threshold"}, ...]`` for every pattern
    whose length reaches its threshold, in ``patterns`` order. ``lengths``/``winners`` are
    the big road's logical column lengths and winner letters."""
    if not lengths:
        return []
    specs = [p._spec for p in patterns]
    return [
        {"pattern": spec[4], "label": spec[5], "length": v, "threshold": spec[3]}
        for spec, v in zip(specs, _values(specs, lengths, winners))
        if v >= spec[3]
    ]


class _Column:
    """What the finished columns contribute to the patterns while one big-road column is the
    newest, and that column's ``winner``: ``done`` (per pattern: run, matching columns in a
    row; jump, that side's single columns in a row; others 0) and ``candidates`` (``spec +
    (done,)`` of the patterns that can still reach their threshold in this column);
    ``side_by_side``: whether a side-by-side pattern is among them.

    The next column's :class:`_Column` depends only on this one and on ``(length of the
    column that just finished (0 before the first column; capped, see
    :class:`GoodRoadTracker`), winner of the new column, side-by-side bound (capped))``, so
    it is memoised in ``successors`` under that key. Likewise the
    :meth:`GoodRoadTracker.json` answer is memoised in ``answers`` by the newest column's
    length (and the side-by-side length when ``side_by_side``). Equal columns are one
    object, shared by every tracker of the same patterns (see :func:`_column_cache`): never
    changed once made, apart from the two memo dicts filling up; the answers are shared
    lists: read-only.
    """

    __slots__ = ("winner", "done", "candidates", "side_by_side", "successors", "answers")

    def __init__(self, winner: str, done: tuple[int, ...], candidates: tuple[tuple, ...]) -> None:
        self.winner = winner
        self.done = done
        self.candidates = candidates
        self.side_by_side = any(spec[0] == 3 for spec in candidates)
        self.successors: dict[tuple[int, str, int], _Column] = {}
        self.answers: dict[int | tuple[int, int], list[dict]] = {}


_MAX_COLUMNS = 10_000
"""Memoised :class:`_Column` objects per pattern list before its cache starts afresh."""

# pattern specs -> {(winner, done, candidates): _Column}; the root (no column yet: every
# ``done`` 0) is under the key None. Equal columns are one object: their memos are shared.
_caches: dict[tuple, dict] = {}


def _column_cache(specs: tuple) -> dict:
    """The shared memo of a pattern spec tuple (made on first use, started afresh when full)."""
    cache = _caches.get(specs)
    if cache is None or len(cache) > _MAX_COLUMNS:
        if len(_caches) >= 64:
            _caches.clear()
        cache = _caches[specs] = {None: _Column("", (0,) * len(specs), ())}
    return cache


class GoodRoadTracker:
    """Good roads kept up to date column by column: no scan of the big road per round.

    Same results as :func:`good_roads` (a property test checks it). For each pattern it
    keeps what the finished columns contribute, updated when a new big-road column starts
    (:meth:`column_started`) and undone when the newest column is removed
    (:meth:`column_removed`); :meth:`json` combines that with the newest column, looking
    only at the patterns that can still reach their threshold in this column. The per-column
    contributions are memoised and shared between trackers of the same patterns (the same
    few situations recur in every shoe), so starting a column is usually one dict lookup.

    Raises :class:`GoodRoadError` for a bad pattern list (see :func:`check_patterns`).
    """

    __slots__ = ("patterns", "_specs", "_cache", "_columns", "_pairs", "_length_cap", "_pairs_cap")

    def __init__(self, patterns: Sequence[GoodRoad] = DEFAULT_GOOD_ROADS) -> None:
        self.patterns = check_patterns(patterns)
        self._specs = tuple(p._spec for p in self.patterns)
        self._cache = _column_cache(self._specs)
        # The memo keys keep only what _next_column reads: a finished column's length matters
        # up to the longest length a run needs (jumps need 1), the side-by-side bound up to
        # the highest side-by-side threshold. Longer ones are all alike.
        self._length_cap = 1 + max([1] + [n for s in self._specs if s[0] == 1 for n in s[1:3]])
        self._pairs_cap = max([0] + [s[3] for s in self._specs if s[0] == 3])
        # _columns[c]: the _Column of column c (what columns 0..c-1 contribute while column c
        # is the newest). _pairs[e]: adjacent equal pairs in a row ending at finished column e.
        self._columns: list[_Column] = []
        self._pairs: list[int] = []

    def column_started(self, lengths: Sequence[int], winners: Sequence[str]) -> None:
        """Call after the big road started a new column (the newest in ``lengths``)."""
        c = len(lengths) - 1
        if c == 0:
            self._cache = _column_cache(self._specs)  # a new shoe: the current memo
            prev = self._cache[None]
            key = (0, winners[0], 0)
        else:
            e = c - 1
            le = lengths[e]
            pairs = self._pairs
            if e >= 1 and le == lengths[e - 1]:
                pairs.append(1 + (pairs[e - 2] if e >= 2 else 0))
            else:
                pairs.append(0)
            # Side by side can reach at most the larger of the pairs ending at c-1 and at c.
            sbs_max = max(pairs[e], (pairs[e - 1] if e >= 1 else 0) + 1)
            prev = self._columns[e]
            key = (min(le, self._length_cap), winners[c], min(sbs_max, self._pairs_cap))
        column = prev.successors.get(key)
        if column is None:
            column = prev.successors[key] = self._next_column(prev.done, *key)
        self._columns.append(column)

    def _next_column(self, prev: tuple[int, ...], le: int, w: str, sbs_max: int) -> _Column:
        """The :class:`_Column` of a new column won by ``w`` after a finished column of ``le``
        cells (``le`` 0 for the first column), with ``prev`` what came before it."""
        we = "B" if w == "P" else "P"  # the finished column's winner: columns alternate
        done = []
        cand = []
        for spec, d in zip(self._specs, prev):
            code = spec[0]
            if code == 0:  # streak: always a candidate
                d = 0
                cand.append(spec + (0,))
            elif code == 3:
                d = 0
                if sbs_max >= spec[3]:
                    cand.append(spec + (0,))
            else:
                if le:
                    if code == 1:  # run: finished column matches the length its side needs
                        d = d + 1 if le == (spec[1] if we == "B" else spec[2]) else 0
                    elif we == spec[1]:  # jump: that side's finished column is a single
                        d = d + 1 if le == 1 else 0
                if d + 1 >= spec[3]:  # the newest column can add at most one
                    cand.append(spec + (d,))
            done.append(d)
        key = (w, tuple(done), tuple(cand))
        column = self._cache.get(key)
        if column is None:
            column = self._cache[key] = _Column(*key)
        return column

    def column_removed(self) -> None:
        """Call after the big road removed its newest column (undo of :meth:`column_started`)."""
        self._columns.pop()
        if len(self._pairs) > max(len(self._columns) - 1, 0):  # one entry per finished column
            self._pairs.pop()

    def json(self, lengths: Sequence[int], winners: Sequence[str]) -> list[dict]:
        """The snapshot piece, as :func:`good_roads` returns it, for the current columns.

        A new list for no columns; otherwise the list is memoised and shared (read-only)."""
        if not lengths:
            return []
        c = len(lengths) - 1
        n = lengths[c]
        column = self._columns[c]
        sbs = self._side_by_side(lengths, c, n) if column.side_by_side else 0
        key = (n, sbs) if column.side_by_side else n
        out = column.answers.get(key)
        if out is None:
            out = column.answers[key] = self._answer(column, n, sbs)
        return out

    @staticmethod
    def _answer(column: _Column, n: int, sbs: int) -> list[dict]:
        """The snapshot piece while ``column`` is the newest, with ``n`` cells, and the
        side-by-side length is ``sbs``."""
        w = column.winner
        out = []
        for code, a, b, t, pid, label, d in column.candidates:
            if code == 0:
                v = n if w == a else 0
            elif code == 1:
                need = a if w == "B" else b
                v = 0 if n > need else (d + 1 if n == need else d)
            elif code == 2:
                v = (d + 1 if n == 1 else 0) if w == a else d
            else:
                v = sbs
            if v >= t:
                out.append({"pattern": pid, "label": label, "length": v, "threshold": t})
        return out

    def _side_by_side(self, lengths: Sequence[int], c: int, n: int) -> int:
        if c == 0:
            return 0
        pairs = self._pairs
        prev = lengths[c - 1]
        before = pairs[c - 2] if c >= 2 else 0
        best = pairs[c - 1]  # the newest column starts a new pair
        if n == prev and before + 1 > best:  # it completes a pair with the previous column
            best = before + 1
        elif n < prev and before > best:  # it is the second column of a pair in progress
            best = before
        return best


@dataclass(frozen=True)
class CustomRoad:
    """An operator's pattern (docs/patterns.md): ``id`` (a slug, not a built-in id), English
    ``label``, ``rule`` (:func:`roads.road_patterns.parse` of ``pattern``) and ``priority``
    (see :data:`BUILTIN_PRIORITY`). :meth:`of` parses the text."""

    id: str
    label: str
    pattern: str
    priority: int
    rule: Rule

    @classmethod
    def of(cls, id: str, label: str, pattern: str, priority: int) -> "CustomRoad":
        """Parse ``pattern``; raises :class:`roads.road_patterns.PatternError` (position, expected)
        and :class:`GoodRoadError` for an id a built-in pattern has."""
        if id in BUILTIN_PRIORITY:
            raise GoodRoadError(f"good road id {id!r} is a built-in pattern's")
        return cls(id, label, pattern, priority, parse(pattern))

    def entry(self, lengths: Sequence[int], winners: Sequence[str]) -> dict | None:
        """The snapshot entry ``{"pattern", "label", "length", "threshold"}`` when on, else ``None``."""
        v = self.rule.measure(lengths, winners)
        t = self.rule.threshold
        return {"pattern": self.id, "label": self.label, "length": v, "threshold": t} if v >= t else None


def priority_of(pattern: str, custom: Sequence[CustomRoad] = ()) -> int:
    """The priority of pattern id ``pattern`` (built-in or one of ``custom``; unknown ids last)."""
    p = BUILTIN_PRIORITY.get(pattern)
    if p is not None:
        return p
    for c in custom:
        if c.id == pattern:
            return c.priority
    return 1 << 30


def with_custom(entries: list[dict], custom: Sequence[CustomRoad], lengths: Sequence[int],
                winners: Sequence[str]) -> list[dict]:
    """The built-in snapshot piece ``entries`` (priority order) with the ``custom`` patterns that
    are on, in priority order: lower number first, a built-in before an operator's pattern of
    the same number, operators' patterns of one number in ``custom``'s order. ``entries`` itself
    when no custom pattern is on (it may be a shared list: never changed here)."""
    on = [(c.priority, i, e) for i, c in enumerate(custom) if (e := c.entry(lengths, winners)) is not None]
    if not on:
        return entries
    ranked = [(BUILTIN_PRIORITY.get(e["pattern"], 0), -1, e) for e in entries] + on
    ranked.sort(key=lambda r: (r[0], r[1]))
    return [e for _, _, e in ranked]


def catalogue(custom: Sequence[CustomRoad] = ()) -> list[dict]:
    """Every pattern ``{"id", "label", "priority"}`` in priority order (ties as :func:`with_custom`)."""
    rows = [(BUILTIN_PRIORITY[p.id], -1, p.id, p.label) for p in DEFAULT_GOOD_ROADS]
    rows += [(c.priority, i, c.id, c.label) for i, c in enumerate(custom)]
    rows.sort(key=lambda r: (r[0], r[1]))
    return [{"id": pid, "label": lab, "priority": pr} for pr, _, pid, lab in rows]


def check_patterns(patterns: Sequence[GoodRoad]) -> tuple[GoodRoad, ...]:
    """Validate a pattern list: :class:`GoodRoad` items with unique ids. Returns it as a tuple;
    raises :class:`GoodRoadError` naming the bad item."""
    seen: set[str] = set()
    for p in patterns:
        if not isinstance(p, GoodRoad):
            raise GoodRoadError(f"good road patterns must be GoodRoad objects, got {p!r}")
        if p.id in seen:
            raise GoodRoadError(f"good road id {p.id!r} appears twice")
        seen.add(p.id)
    return tuple(patterns)
