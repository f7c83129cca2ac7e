"""Road cells of the board model: where every mark of a road sits on the canvas, and what it is.

From a snapshot's road (docs/domain.md §4; snapshot shape in ``roads/schema``) and a grid region
of :mod:`web.render.layout`, :func:`road_cells` gives one dict per visible cell, in placement
order (so a new round appends cells, and only the previous newest cell changes: it loses
``n``). Keys (absent = false / none, to keep updates small):

``k``  stable key of the cell within its road (bead: round number; big road: ``"col.row"``
       of the logical column; derived roads: index in the road's sequence)
``x``, ``y``, ``s``  left, top and size of the cell in canvas px
``m``  shape: ``disc`` (bead plate), ``ring`` (big road), ``eye`` (big eye boy, hollow),
       ``dot`` (small road, solid), ``slash`` (cockroach pig), ``tie`` (a big road of ties only),
       ``pip`` (a legend's pair / natural dot)
``c``  palette colour name (:mod:`web.render.theme`): ``banker``/``player``/``tie``; derived roads
       ``repeat`` (red: the pattern repeats) or ``break`` (blue: it breaks)
``t``  text in the bead (letter, winning total, or none for colour only); ``ties`` tie count
``bp``, ``pp``, ``nat``  banker pair dot (top-left), player pair dot (bottom-right), natural
       (top-right); ``n`` the newest cell of its road (marked until the next result)

Shape proportions (fractions of ``s``) are :data:`GEOMETRY`; both painters read them from the
model, so a ring has the same radius in the PNG and on the page.
"""

from __future__ import annotations

import bisect
from typing import Any, Callable, Mapping, Sequence

from roads.window import bead_plate_offset, road_offset

GEOMETRY: dict[str, dict[str, float]] = {
    "ring": {"r": 0.35, "w": 0.12},
    "disc": {"r": 0.43},
    "eye": {"r": 0.30, "w": 0.15},
    "dot": {"r": 0.36},
    "slash": {"a": 0.2, "b": 0.8, "w": 0.16},
    "tie": {"a": 0.16, "b": 0.84, "w": 0.11},
    "mark": {"r": 0.12, "halo": 0.05},
    "pip": {"r": 0.24},
    "bp": {"x": 0.18, "y": 0.18},
    "pp": {"x": 0.82, "y": 0.82},
    "nat": {"x": 0.82, "y": 0.18},
    "newest": {"inset": 0.02, "w": 0.08, "radius": 0.16},
    "letter": {"one": 0.52, "two": 0.40},
    "count": {"size": 0.46},
}
"""Shape proportions, as fractions of the cell size: radius ``r`` and stroke width ``w`` of
circles (centred in the cell); slashes from ``(a, b)`` to ``(b, a)``; pair and natural dots of
radius ``mark.r`` centred at ``(x, y)`` with a halo ``mark.halo`` wide in the cell colour; the
newest-result outline inset ``newest.inset``, ``newest.w`` wide with corner ``newest.radius``;
bead text of one (``letter.one``) or more characters (``letter.two``), tie counts ``count.size``."""

DERIVED_SHAPES: dict[str, str] = {"big_eye_boy": "eye", "small_road": "dot", "cockroach_pig": "slash"}
"""Shape of each derived road's marks."""

WINNER_COLOURS: dict[str, str] = {"B": "banker", "P": "player", "T": "tie"}
DERIVED_COLOURS: dict[str, str] = {"red": "repeat", "blue": "break"}

BEAD_CONTENT: tuple[str, ...] = ("letters", "total", "colour")
"""What a bead shows: the winner's letter, the winning total, or colour only."""


def _marks(cell: dict[str, Any], entry: Mapping[str, Any]) -> None:
    if entry.get("banker_pair"):
        cell["bp"] = 1
    if entry.get("player_pair"):
        cell["pp"] = 1
    if entry.get("natural"):
        cell["nat"] = 1


def bead_text(bead: Mapping[str, Any], content: str, letters: Mapping[str, str]) -> str:
    """What one bead shows: ``letters[winner]``, the winning total (a tie: the tied total), or ``""``."""
    if content == "colour":
        return ""
    if content == "total":
        w = bead.get("winner")
        total = bead.get("banker_total") if w == "B" else bead.get("player_total")
        return "" if total is None else str(total)
    return letters.get(str(bead.get("winner")), str(bead.get("winner") or ""))


MEMO_SIZE = 8192
"""How many roads (one road of one table drawn in one grid) :func:`road_cells` remembers the
cells of; the memo is cleared when it is full."""

_MEMO: dict[tuple[Any, ...], tuple[Any, list[Any], list[dict[str, Any]], list[int]]] = {}


def _reused(key: tuple[Any, ...] | None, state: Any, sources: list[Any],
            make: Callable[[int], dict[str, Any] | None]) -> list[dict[str, Any]]:
    """The cells ``make(i)`` (``None``: source ``i`` is not visible) of ``sources``, in order,
    reusing the cells the previous call with ``key`` made for the longest common prefix of its
    ``sources`` (compared with ``==``) when its ``state`` (window offset, ...) was the same:
    a new round re-makes only the new cells, and the unchanged ones are the same objects,
    which :func:`web.push.delta.diff` passes over by identity. ``key`` ``None``: no memo.

    The cells returned and remembered are shared between documents: nobody mutates them
    (the newest cell's ``n`` is set on a copy, :func:`_newest`)."""
    hit = _MEMO.get(key) if key is not None else None
    start = 0
    cells: list[dict[str, Any]] = []
    src_of: list[int] = []
    if hit is not None and hit[0] == state:
        prev = hit[1]
        p = min(len(prev), len(sources))
        if sources[:p] != prev[:p]:
            p = next(i for i in range(p) if sources[i] != prev[i])
        kept = bisect.bisect_left(hit[3], p)
        cells, src_of, start = hit[2][:kept], hit[3][:kept], p
    for i in range(start, len(sources)):
        cell = make(i)
        if cell is not None:
            cells.append(cell)
            src_of.append(i)
    if key is not None:
        if len(_MEMO) >= MEMO_SIZE:
            _MEMO.clear()
        _MEMO[key] = (state, sources[:], cells, src_of)  # the sources as they are now (entries: read-only)
    return list(cells)


def _newest(out: list[dict[str, Any]]) -> None:
    """Mark the last cell of ``out`` as the newest of its road (a copy with ``n``: the cell
    without it may be shared, :func:`_reused`)."""
    out[-1] = {**out[-1], "n": 1}


def bead_cells(beads: Sequence[Mapping[str, Any]], region: Mapping[str, int], *, content: str,
               letters: Mapping[str, str], memo: tuple[Any, ...] | None = None, shoe: Any = None) -> list[dict[str, Any]]:
    """Cells of the bead plate (newest columns visible, roads.window), one per bead.
    ``memo``: a key of this road of this table in this region, ``shoe`` its shoe (cells are
    reused only within one shoe; :func:`_reused`)."""
    cols, rows, s = region["cols"], region["rows"], region["cell"]
    off = bead_plate_offset(len(beads), cols, rows) if beads else 0
    rx, ry = region["x"], region["y"]
    beads = beads if type(beads) is list else list(beads)

    def make(i: int) -> dict[str, Any] | None:
        b = beads[i]
        cx = b["x"] - off
        if not 0 <= cx < cols or not 0 <= b["y"] < rows:
            return None
        cell: dict[str, Any] = {"k": b.get("round"), "x": rx + cx * s, "y": ry + b["y"] * s, "s": s,
                                "m": "disc", "c": WINNER_COLOURS.get(b.get("winner"), "muted")}
        text = bead_text(b, content, letters)
        if text:
            cell["t"] = text
        _marks(cell, b)
        return cell

    key = None if memo is None else (*memo, rx, ry, cols, rows, s, content, tuple(letters.items()))
    out = _reused(key, (shoe, off), beads, make)
    if out and beads and out[-1]["k"] == beads[-1].get("round"):
        _newest(out)
    return out


def big_road_cells(big: Mapping[str, Any], region: Mapping[str, int],
                   memo: tuple[Any, ...] | None = None, shoe: Any = None) -> list[dict[str, Any]]:
    """Cells of the big road: rings with tie slash / count, pair dots and natural mark.
    ``memo``: a key of this road of this table in this region, ``shoe`` its shoe (cells are
    reused only within one shoe; :func:`_reused`)."""
    columns = big.get("columns") or []
    cells = big.get("cells") or []
    leading = int(big.get("leading_ties") or 0)
    cols, rows, s = region["cols"], region["rows"], region["cell"]
    if not columns:
        if not leading:
            return []
        # a shoe of only ties so far: the ties wait on the first cell
        cell: dict[str, Any] = {"k": "0.0", "x": region["x"], "y": region["y"], "s": s, "m": "tie", "c": "tie", "n": 1}
        if leading > 1:
            cell["ties"] = leading
        return [cell]
    off = road_offset(cells, cols) if cells else 0
    rx, ry = region["x"], region["y"]
    # what each cell is drawn from: its place and its column entry (a tie changes the entry only)
    sources = [(c, columns[c["column"]][c["row"]]) for c in cells]

    def make(i: int) -> dict[str, Any] | None:
        c, entry = sources[i]
        cx = c["x"] - off
        if not 0 <= cx < cols or not 0 <= c["y"] < rows:
            return None
        cell = {"k": f"{c['column']}.{c['row']}", "x": rx + cx * s, "y": ry + c["y"] * s, "s": s,
                "m": "ring", "c": WINNER_COLOURS.get(entry.get("winner"), "muted")}
        ties = int(entry.get("ties") or 0) + (leading if c["column"] == 0 and c["row"] == 0 else 0)
        if ties:
            cell["ties"] = ties
        _marks(cell, entry)
        return cell

    key = None if memo is None else (*memo, rx, ry, cols, rows, s)
    out = _reused(key, (shoe, off, leading), sources, make)
    if out and cells and out[-1]["k"] == f"{cells[-1]['column']}.{cells[-1]['row']}":
        _newest(out)
    return out


def derived_cells(road: Mapping[str, Any], name: str, region: Mapping[str, int],
                  memo: tuple[Any, ...] | None = None, shoe: Any = None) -> list[dict[str, Any]]:
    """Cells of a derived road (``name`` in :data:`DERIVED_SHAPES`), coloured repeat / break.
    ``memo``: a key of this road of this table in this region, ``shoe`` its shoe (cells are
    reused only within one shoe; :func:`_reused`)."""
    cells = road.get("cells") or []
    cols, rows, s = region["cols"], region["rows"], region["cell"]
    off = road_offset(cells, cols) if cells else 0
    shape = DERIVED_SHAPES[name]
    rx, ry = region["x"], region["y"]
    cells = cells if type(cells) is list else list(cells)

    def make(i: int) -> dict[str, Any] | None:
        c = cells[i]
        cx = c["x"] - off
        if not 0 <= cx < cols or not 0 <= c["y"] < rows:
            return None
        return {"k": i, "x": rx + cx * s, "y": ry + c["y"] * s, "s": s, "m": shape,
                "c": DERIVED_COLOURS.get(c.get("color"), "muted")}

    key = None if memo is None else (*memo, name, rx, ry, cols, rows, s)
    out = _reused(key, (shoe, off), cells, make)
    if out and out[-1]["k"] == len(cells) - 1:
        _newest(out)
    return out


def road_cells(name: str, snapshot: Mapping[str, Any], region: Mapping[str, int], *, content: str = "letters",
               letters: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """The visible cells of road ``name`` (one of ``web.render.layout.ROAD_NAMES``) of ``snapshot``
    in grid ``region`` (``x``, ``y``, ``cols``, ``rows``, ``cell``). ``content``: bead content
    (:data:`BEAD_CONTENT`); ``letters``: winner letters of the board's language. The cells
    the previous call for the same road of the same table and shoe in the same grid made are
    reused where their sources did not change (:func:`_reused`). The memo keeps one entry per
    road of a table and grid, whatever the shoe (a key per shoe kept every dealt shoe's cells
    until the memo filled: memory grew with each shoe dealt)."""
    memo = ("road", name, snapshot.get("table"))
    shoe = snapshot.get("shoe")
    if name == "bead_plate":
        return bead_cells(snapshot.get("bead_plate") or [], region, content=content,
                          letters=letters or {"B": "B", "P": "P", "T": "T"}, memo=memo, shoe=shoe)
    if name == "big_road":
        return big_road_cells(snapshot.get("big_road") or {}, region, memo=memo, shoe=shoe)
    return derived_cells(snapshot.get(name) or {}, name, region, memo=memo, shoe=shoe)


def probe(cell: Mapping[str, Any]) -> tuple[float, float]:
    """A canvas point inside the painted part of ``cell``'s main shape (where its colour is
    solid), for tests that sample a painter's output: the bottom of a disc, the right of a
    ring or eye, the centre of a dot or a slash."""
    s = cell["s"]
    x, y = cell["x"] + s / 2, cell["y"] + s / 2
    m = cell["m"]
    if m == "disc":
        return x, y + s * GEOMETRY["disc"]["r"] * 0.82
    if m in ("ring", "eye"):
        return x + s * GEOMETRY[m]["r"], y
    return x, y
