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

from typing import Any, Mapping, Sequence

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


def bead_cells(beads: Sequence[Mapping[str, Any]], region: Mapping[str, int], *, content: str,
               letters: Mapping[str, str]) -> list[dict[str, Any]]:
    """Cells of the bead plate (newest columns visible, roads.window), one per bead."""
    cols, rows, s = region["cols"], region["rows"], region["cell"]
    off = bead_plate_offset(len(beads), cols, rows) if beads else 0
    out = []
    for b in beads:
        cx = b["x"] - off
        if not 0 <= cx < cols or not 0 <= b["y"] < rows:
            continue
        cell: dict[str, Any] = {"k": b.get("round"), "x": region["x"] + cx * s, "y": region["y"] + b["y"] * s, "s": s,
                                "m": "disc", "c": WINNER_COLOURS.get(b.get("winner"), "muted")}
        text = bead_text(b, content, letters)
        if text:
            cell["t"] = text
        _marks(cell, b)
        out.append(cell)
    if out and beads and out[-1]["k"] == beads[-1].get("round"):
        out[-1]["n"] = 1
    return out


def big_road_cells(big: Mapping[str, Any], region: Mapping[str, int]) -> list[dict[str, Any]]:
    """Cells of the big road: rings with tie slash / count, pair dots and natural mark."""
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
    out = []
    for c in cells:
        cx = c["x"] - off
        if not 0 <= cx < cols or not 0 <= c["y"] < rows:
            continue
        entry = columns[c["column"]][c["row"]]
        cell = {"k": f"{c['column']}.{c['row']}", "x": region["x"] + cx * s, "y": region["y"] + c["y"] * s, "s": s,
                "m": "ring", "c": WINNER_COLOURS.get(entry.get("winner"), "muted")}
        ties = int(entry.get("ties") or 0) + (leading if c["column"] == 0 and c["row"] == 0 else 0)
        if ties:
            cell["ties"] = ties
        _marks(cell, entry)
        out.append(cell)
    if out and cells and out[-1]["k"] == f"{cells[-1]['column']}.{cells[-1]['row']}":
        out[-1]["n"] = 1
    return out


def derived_cells(road: Mapping[str, Any], name: str, region: Mapping[str, int]) -> list[dict[str, Any]]:
    """Cells of a derived road (``name`` in :data:`DERIVED_SHAPES`), coloured repeat / break."""
    cells = road.get("cells") or []
    cols, rows, s = region["cols"], region["rows"], region["cell"]
    off = road_offset(cells, cols) if cells else 0
    shape = DERIVED_SHAPES[name]
    out = []
    for i, c in enumerate(cells):
        cx = c["x"] - off
        if not 0 <= cx < cols or not 0 <= c["y"] < rows:
            continue
        out.append({"k": i, "x": region["x"] + cx * s, "y": region["y"] + c["y"] * s, "s": s, "m": shape,
                    "c": DERIVED_COLOURS.get(c.get("color"), "muted")})
    if out and out[-1]["k"] == len(cells) - 1:
        out[-1]["n"] = 1
    return out


def road_cells(name: str, snapshot: Mapping[str, Any], region: Mapping[str, int], *, content: str = "letters",
               letters: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """The visible cells of road ``name`` (one of ``web.render.layout.ROAD_NAMES``) of ``snapshot``
    in grid ``region`` (``x``, ``y``, ``cols``, ``rows``, ``cell``). ``content``: bead content
    (:data:`BEAD_CONTENT`); ``letters``: winner letters of the board's language."""
    if name == "bead_plate":
        return bead_cells(snapshot.get("bead_plate") or [], region, content=content,
                          letters=letters or {"B": "B", "P": "P", "T": "T"})
    if name == "big_road":
        return big_road_cells(snapshot.get("big_road") or {}, region)
    return derived_cells(snapshot.get(name) or {}, name, region)


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
