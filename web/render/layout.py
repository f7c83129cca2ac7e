"""Pixel geometry of scoreboards, shared by the HTML/SVG pages and the Pillow renderer.

Pure arithmetic (no Pillow, no Flask): from an image or viewport size in pixels, the kind
of board and the number of columns to show, compute one square cell size and the
rectangle of every region. Both renderers draw cell ``(col, row)`` of a road at::

    x = region["x"] + col * region["cell"]
    y = region["y"] + row * region["cell"]

so the HTML board and the PNG never disagree about where a cell is. Cells are whole,
even pixels (derived roads use half cells, also whole pixels), so grid lines land on
pixel boundaries and symbols stay crisp at every size.

Region names (shared by the PNG renderer and the pages): ``header``, ``last_result``, ``bead_plate``,
``big_road``, ``big_eye_boy``, ``small_road``, ``cockroach_pig``, ``ask``, ``stats``,
``side_bets``, ``good_roads``. Road regions are grids of ``rows`` = 6 and ``cols``
columns of ``cell`` px each (``w == cols * cell``, ``h == rows * cell``). Text regions
(``header``, ``last_result``, ``stats``, ``side_bets``, ``good_roads``) have
``cols == rows == 0``; ``ask`` is a 2-row grid (next Banker, next Player) of 4 columns
(the side letter, then big eye boy, small road, cockroach pig). A region absent from
``regions`` is not shown in that kind/size.

Kinds:
- ``"board"``: the full table scoreboard (landscape when width >= height, else portrait).
- ``"embed"``: a compact board for embedding: header strip and the roads only; with a
  subset of ``roads`` the named roads are stacked, each filling the width (one road = the
  whole image, no header).
- ``"tile"``: one lobby tile: header strip, the big road, a good-roads strip.

Road conventions (6 rows, derived roads read from the big road): docs/domain.md §4.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

ROAD_NAMES: tuple[str, ...] = ("bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig")
"""The five roads, in display order."""

DERIVED_ROADS: tuple[str, ...] = ("big_eye_boy", "small_road", "cockroach_pig")
"""Roads derived from the big road (k = 1, 2, 3), drawn in half cells on the full board."""

KINDS: tuple[str, ...] = ("board", "embed", "tile")
"""Accepted ``kind`` values."""

ROWS = 6
"""Every road has 6 rows (docs/domain.md §4)."""

MIN_SIDE = 64
"""Smallest accepted width or height, in pixels."""

MAX_WIDTH = 3840
"""Largest accepted width, in pixels (4K UHD)."""

MAX_HEIGHT = 3840
"""Largest accepted height, in pixels (portrait 4K is 2160 x 3840)."""

MAX_PIXELS = 3840 * 2160
"""Largest accepted width * height (one 4K UHD frame), in pixels."""

MIN_COLUMNS = 1
MAX_COLUMNS = 200
"""Accepted range of ``columns`` (big-road columns to show)."""

MIN_CELL = 4
"""Smallest cell, in pixels; a request that would need smaller cells is rejected."""

DEFAULT_PORTRAIT_COLUMNS = 16
"""Big-road columns of a portrait board when ``columns`` is not given."""


class LayoutError(ValueError):
    """A size, kind, road or column count that cannot be laid out.

    ``field`` names the offending parameter (``"width"``, ``"height"``, ``"columns"``,
    ``"kind"``, ``"roads"``, ``"tables"``) so the web layer can answer 400 naming it.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def check_size(width: Any, height: Any) -> tuple[int, int]:
    """Validate an image size in pixels; returns ``(width, height)`` as ints.

    Raises :class:`LayoutError` (field ``"width"`` or ``"height"``) when a side is not an
    integer, is outside ``MIN_SIDE..MAX_WIDTH`` / ``MIN_SIDE..MAX_HEIGHT``, or when
    ``width * height`` exceeds ``MAX_PIXELS``. Then the side is named that leaves the 4K frame
    of the image's orientation (3840x2160 landscape, 2160x3840 portrait): ``height`` for a
    landscape or square image (3840x3840: the width is a 4K width, the height is too tall),
    ``width`` for a portrait one (2500x3840), with the largest value it may take beside the other.
    """
    out = []
    for field, value, top in (("width", width, MAX_WIDTH), ("height", height, MAX_HEIGHT)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise LayoutError(field, f"{field} must be an integer number of pixels, got {value!r}")
        if not MIN_SIDE <= value <= top:
            raise LayoutError(field, f"{field} must be between {MIN_SIDE} and {top} pixels, got {value!r}")
        out.append(value)
    w, h = out
    if w * h > MAX_PIXELS:
        field, other = ("width", h) if w < h else ("height", w)
        raise LayoutError(field, f"width × height {w}×{h} is more than {MAX_PIXELS} pixels (3840×2160 "
                                 f"or 2160×3840); reduce {field} to at most {MAX_PIXELS // other}")
    return w, h


def check_columns(columns: Any) -> int | None:
    """Validate ``columns`` (``None`` = automatic); :class:`LayoutError` (field ``"columns"``)."""
    if columns is None:
        return None
    if isinstance(columns, bool) or not isinstance(columns, int):
        raise LayoutError("columns", f"columns must be an integer, got {columns!r}")
    if not MIN_COLUMNS <= columns <= MAX_COLUMNS:
        raise LayoutError("columns", f"columns must be between {MIN_COLUMNS} and {MAX_COLUMNS}, got {columns!r}")
    return columns


def check_roads(roads: Iterable[str] | None) -> tuple[str, ...]:
    """Validate road names (``None`` = all five, in display order); :class:`LayoutError` ("roads")."""
    if roads is None:
        return ROAD_NAMES
    names = tuple(roads)
    if not names:
        raise LayoutError("roads", "roads must name at least one road")
    for name in names:
        if name not in ROAD_NAMES:
            raise LayoutError("roads", f"unknown road {name!r}; expected one of {', '.join(ROAD_NAMES)}")
    if len(set(names)) != len(names):
        raise LayoutError("roads", f"roads repeats a name: {names!r}")
    return names


def _even(value: float) -> int:
    """Largest even integer <= value (cells are even so half cells are whole pixels)."""
    v = int(value)
    return v - (v % 2)


def _rect(x: float, y: float, w: float, h: float, cols: int = 0, rows: int = 0, cell: int = 0) -> dict[str, int]:
    return {"x": int(x), "y": int(y), "w": int(w), "h": int(h), "cols": int(cols), "rows": int(rows), "cell": int(cell)}


def _grid(x: float, y: float, cols: int, cell: int, rows: int = ROWS) -> dict[str, int]:
    return _rect(x, y, cols * cell, rows * cell, cols, rows, cell)


def _text_sizes(cell: int) -> dict[str, int]:
    """Suggested font sizes in pixels for a board whose main cell is ``cell`` px."""
    return {
        "title": max(12, round(cell * 0.62)),
        "label": max(10, round(cell * 0.40)),
        "value": max(10, round(cell * 0.46)),
        "small": max(9, round(cell * 0.32)),
        "cell": max(8, round(cell * 0.50)),
    }


def _margins(cell: int) -> tuple[int, int]:
    """(outer margin, gap between regions) in pixels for a main cell of ``cell`` px."""
    return max(2, round(cell * 0.3)), max(2, round(cell * 0.25))


def _finish(kind: str, width: int, height: int, cell: int, columns: int, orientation: str,
            regions: dict[str, dict[str, int]]) -> dict[str, Any]:
    # a region squeezed to nothing (tiny images, few columns) is left out rather than drawn wrong
    regions = {
        name: r for name, r in regions.items()
        if r["w"] >= 1 and r["h"] >= 1 and r["x"] >= 0 and r["y"] >= 0
        and r["x"] + r["w"] <= width and r["y"] + r["h"] <= height
        and (r["cell"] == 0 or r["cell"] >= 2)
    }
    return {
        "kind": kind,
        "width": width,
        "height": height,
        "orientation": orientation,
        "cell": cell,
        "columns": columns,
        "text": _text_sizes(cell),
        "regions": regions,
    }


def _pick_cell(c_height: float, c_width_for: Any, columns: int | None, field_hint: str) -> int:
    cell = c_height if columns is None else min(c_height, c_width_for(columns))
    cell = _even(cell)
    if cell < MIN_CELL:
        raise LayoutError(field_hint, f"the image is too small for this board (cell would be {cell} px)")
    return cell


# Landscape board, vertical units of the cell: margin 0.3 + header 1.5 + gap 0.25 + big road 6
# + gap + lower band 6 + gap + footer 1.2 + margin 0.3 = 16.05; horizontal: the road grid plus
# a sidebar of 6 cells, a gap and two margins = grid + 6.85 cells.
_LAND_V = 16.05
_LAND_SIDE = 6.85
# Portrait: margin + header 2 + big road 6 + big eye boy, small road, cockroach pig (3 each,
# full width) + bead plate 6 + footer (>= 3) + 7 gaps + margin = 28.35 at least; horizontal:
# grid + 0.6.
_PORT_V = 28.35
_PORT_SIDE = 0.6


def _board_landscape(width: int, height: int, columns: int | None) -> dict[str, Any]:
    cell = _pick_cell(height / _LAND_V, lambda n: width / (n + _LAND_SIDE), columns, "height" if columns is None else "columns")
    m, g = _margins(cell)
    header_h, footer_h = round(cell * 1.5), round(cell * 1.2)
    sidebar_min = 6 * cell
    if columns is None:
        columns = int((width - 2 * m - g - sidebar_min) // cell)
        if columns < 4:
            raise LayoutError("width", f"width {width} is too narrow for a landscape board of height {height}")
    grid_w = columns * cell
    sidebar_w = width - 2 * m - g - grid_w
    used_h = 2 * m + header_h + footer_h + 12 * cell + 3 * g
    top = m + max(0, (height - used_h) // 2)
    x0 = m
    half = cell // 2
    # Lower band: bead plate on the left (about 40% of the grid), derived roads on the right.
    bead_cols = max(1, min(columns - 1, round(columns * 0.4))) if columns > 1 else 1
    derived_cells = columns - bead_cols
    regions: dict[str, dict[str, int]] = {}
    regions["header"] = _rect(x0, top, grid_w, header_h)
    side_x = x0 + grid_w + g
    regions["last_result"] = _rect(side_x, top, sidebar_w, header_h)
    y_big = top + header_h + g
    regions["big_road"] = _grid(x0, y_big, columns, cell)
    y_low = y_big + 6 * cell + g
    regions["bead_plate"] = _grid(x0, y_low, bead_cols, cell)
    if derived_cells > 0:
        dx = x0 + bead_cols * cell
        regions["big_eye_boy"] = _grid(dx, y_low, derived_cells * 2, half)
        small_cols = derived_cells  # each of small road / cockroach pig gets half the band
        regions["small_road"] = _grid(dx, y_low + 3 * cell, small_cols, half)
        regions["cockroach_pig"] = _grid(dx + small_cols * half, y_low + 3 * cell, derived_cells * 2 - small_cols, half)
    # Sidebar from the big road's top to the lower band's bottom: ask, stats, side bets.
    side_top, side_bottom = y_big, y_low + 6 * cell
    ask_cell = _even(min(cell * 0.9, (sidebar_w - 2) / 6))
    ask_h = 2 * ask_cell
    regions["ask"] = _grid(side_x, side_top, 4, ask_cell, rows=2)
    stats_top = side_top + ask_h + g
    avail = side_bottom - stats_top
    stats_h = round(avail * 0.52)
    regions["stats"] = _rect(side_x, stats_top, sidebar_w, stats_h)
    regions["side_bets"] = _rect(side_x, stats_top + stats_h + g, sidebar_w, side_bottom - (stats_top + stats_h + g))
    regions["good_roads"] = _rect(x0, side_bottom + g, width - 2 * m, footer_h)
    return _finish("board", width, height, cell, columns, "landscape", regions)


def _board_portrait(width: int, height: int, columns: int | None) -> dict[str, Any]:
    want = DEFAULT_PORTRAIT_COLUMNS if columns is None else columns
    cell = _even(min(height / _PORT_V, width / (want + _PORT_SIDE)))
    if cell < MIN_CELL:
        raise LayoutError("columns" if columns else "width", f"the image is too small for this board (cell would be {cell} px)")
    m, g = _margins(cell)
    if columns is None:
        columns = max(4, int((width - 2 * m) // cell))
    grid_w = columns * cell
    x0 = (width - grid_w) // 2
    half = cell // 2
    header_h = 2 * cell
    regions: dict[str, dict[str, int]] = {}
    # the last result is read first: nearly half the width (a narrow board: a third)
    last_w = max(4 * cell, round(grid_w * 0.44)) if grid_w >= 12 * cell else grid_w // 3
    y = m
    regions["header"] = _rect(x0, y, grid_w - last_w - g, header_h)
    regions["last_result"] = _rect(x0 + grid_w - last_w, y, last_w, header_h)
    y += header_h + g
    regions["big_road"] = _grid(x0, y, columns, cell)
    y += 6 * cell + g
    for name in DERIVED_ROADS:
        regions[name] = _grid(x0, y, columns * 2, half)
        y += 3 * cell + g
    bead_cols = max(1, round(columns * 0.55))
    regions["bead_plate"] = _grid(x0, y, bead_cols, cell)
    stats_x = x0 + bead_cols * cell + g
    regions["stats"] = _rect(stats_x, y, x0 + grid_w - stats_x, 6 * cell)
    y += 6 * cell + g
    footer_h = height - m - y
    ask_cell = _even(min(cell * 0.9, footer_h / 3.2, grid_w / 4 / 2.5))
    ask = _grid(x0, y, 4, ask_cell, rows=2)
    regions["ask"] = ask
    good_h = round(cell * 1.6)  # room for the legend in two rows
    side_x = x0 + ask["w"] + 2 * g
    regions["side_bets"] = _rect(side_x, y, x0 + grid_w - side_x, max(ask["h"], footer_h - good_h - g))
    regions["good_roads"] = _rect(x0, height - m - good_h, grid_w, good_h)
    return _finish("board", width, height, cell, columns, "portrait", regions)


def _embed(width: int, height: int, roads: Sequence[str], columns: int | None) -> dict[str, Any]:
    orientation = "landscape" if width >= height else "portrait"
    if tuple(roads) == ROAD_NAMES:
        # Compact: header strip 1 cell, big road, then bead plate | derived roads (half cells).
        v_units = 0.6 + 1.0 + 0.25 + 6 + 0.25 + 6
        cell = _pick_cell(height / v_units, lambda n: width / (n + 0.6), columns, "height" if columns is None else "columns")
        m, g = _margins(cell)
        if columns is None:
            columns = max(2, int((width - 2 * m) // cell))
        half = cell // 2
        x0 = (width - columns * cell) // 2
        header_h = cell
        regions = {}
        last_w = min(columns * cell // 3, 4 * cell)
        regions["header"] = _rect(x0, m, columns * cell - last_w, header_h)
        regions["last_result"] = _rect(x0 + columns * cell - last_w, m, last_w, header_h)
        y = m + header_h + g
        regions["big_road"] = _grid(x0, y, columns, cell)
        y += 6 * cell + g
        bead_cols = max(1, min(columns - 1, round(columns * 0.4))) if columns > 1 else 1
        regions["bead_plate"] = _grid(x0, y, bead_cols, cell)
        derived = columns - bead_cols
        if derived > 0:
            dx = x0 + bead_cols * cell
            regions["big_eye_boy"] = _grid(dx, y, derived * 2, half)
            regions["small_road"] = _grid(dx, y + 3 * cell, derived, half)
            regions["cockroach_pig"] = _grid(dx + derived * half, y + 3 * cell, derived, half)
        return _finish("embed", width, height, cell, columns, orientation, regions)
    # A subset: each named road stacked, 6 rows of full cells, filling the width.
    n = len(roads)
    gap_units = 0.25 * (n - 1)
    cell = _pick_cell(height / (6 * n + gap_units), lambda c: width / c, columns, "height" if columns is None else "columns")
    g = max(2, round(cell * 0.25)) if n > 1 else 0
    if columns is None:
        columns = max(1, width // cell)
    x0 = (width - columns * cell) // 2
    used = n * 6 * cell + (n - 1) * g
    y = (height - used) // 2
    regions = {}
    for name in roads:
        regions[name] = _grid(x0, y, columns, cell)
        y += 6 * cell + g
    return _finish("embed", width, height, cell, columns, orientation, regions)


def _tile(width: int, height: int, columns: int | None) -> dict[str, Any]:
    # margin 0.3 + header 1.4 + gap 0.25 + big road 6 + gap 0.25 + good roads 1.0 + margin 0.3
    v_units = 9.5
    cell = _pick_cell(height / v_units, lambda n: width / (n + 0.6), columns, "height" if columns is None else "columns")
    m, g = _margins(cell)
    if columns is None:
        columns = max(2, int((width - 2 * m) // cell))
    grid_w = columns * cell
    x0 = (width - grid_w) // 2
    header_h = round(cell * 1.4)
    last_w = min(grid_w // 3, round(cell * 3.2))
    regions = {}
    regions["header"] = _rect(x0, m, grid_w - last_w - g, header_h)
    regions["last_result"] = _rect(x0 + grid_w - last_w, m, last_w, header_h)
    y = m + header_h + g
    regions["big_road"] = _grid(x0, y, columns, cell)
    y += 6 * cell + g
    regions["good_roads"] = _rect(x0, y, grid_w, max(0, height - m - y))
    return _finish("tile", width, height, cell, columns, "landscape" if width >= height else "portrait", regions)


def board_layout(width: int, height: int, *, kind: str = "board", roads: Sequence[str] | None = None,
                 columns: int | None = None) -> dict[str, Any]:
    """Pixel geometry of one board.

    ``width``/``height``: image or viewport size in pixels (``MIN_SIDE``..``MAX_WIDTH`` /
    ``MAX_HEIGHT``, at most ``MAX_PIXELS``). ``kind``: ``"board"``, ``"embed"`` or ``"tile"``.
    ``roads``: road names to show (``None`` = all five; only ``"embed"`` shows a subset).
    ``columns``: big-road columns to show (for a one-road embed: that road's columns);
    ``None`` = as many as fit at the largest cell the height allows (portrait boards: 16).

    Returns ``{"kind", "width", "height", "orientation": "landscape"|"portrait",
    "cell": main cell px (even), "columns": big-road columns shown,
    "text": {"title","label","value","small","cell"} suggested font px,
    "regions": {name: {"x","y","w","h","cols","rows","cell"}}}`` with every rectangle
    inside the image. Road regions have ``rows == 6``; derived roads on boards use half
    cells (``region["cell"] == cell // 2``): always draw with the region's own ``cell``.

    Raises :class:`LayoutError` naming ``width``/``height``/``columns``/``kind``/``roads``.
    """
    width, height = check_size(width, height)
    columns = check_columns(columns)
    names = check_roads(roads)
    if kind == "board":
        if width >= height:
            return _board_landscape(width, height, columns)
        return _board_portrait(width, height, columns)
    if kind == "embed":
        return _embed(width, height, names, columns)
    if kind == "tile":
        return _tile(width, height, columns)
    raise LayoutError("kind", f"unknown board kind {kind!r}; expected one of {', '.join(KINDS)}")
