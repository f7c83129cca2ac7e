"""Display windows: the part of each road that fits a board ``columns`` grid columns wide.

A window shows whole grid columns only, and the newest
column is always visible:

* bead plate: the window drops whole columns of 6 beads from the left (it never shifts
  every bead by one row); it ends at the column of the newest bead;
* big road and derived roads: the window ends at the road's right edge (the rightmost
  cell, which may belong to an older dragon tail) unless that would hide the start of the
  newest logical column; then it starts at that column's start. When the newest column is
  itself wider than the window (a long dragon tail), the window ends at its newest cell.

Windows keep the snapshot's shapes: cell lists are filtered and their ``x`` made relative
to the window (``x - offset``); ``offset`` says where the window starts in the road.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from roads.grid import ROWS

ROAD_NAMES: tuple[str, ...] = ("bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig")
"""Roads :func:`window_snapshot` knows."""


class WindowError(ValueError):
    """A bad window request: a width below 1 or an unknown road (the message quotes it)."""


def _check_columns(columns: object) -> int:
    if isinstance(columns, bool) or not isinstance(columns, int) or columns < 1:
        raise WindowError(f"window width must be an integer >= 1 grid columns, got {columns!r}")
    return columns


def bead_plate_offset(beads: int, columns: int, rows: int = ROWS) -> int:
    """First visible grid column of a bead plate of ``beads`` beads in a window ``columns``
    wide. Raises :class:`WindowError` for ``columns`` < 1."""
    _check_columns(columns)
    used = (beads + rows - 1) // rows
    return used - columns if used > columns else 0


def road_offset(cells: Sequence[Mapping], columns: int) -> int:
    """First visible grid column of a big road or derived road (its snapshot ``cells``, in
    placement order, each with ``x`` and ``column``) in a window ``columns`` wide.

    Raises :class:`WindowError` for ``columns`` < 1.
    """
    _check_columns(columns)
    if not cells:
        return 0
    right = max(c["x"] for c in cells) + 1
    offset = right - columns if right > columns else 0
    newest = cells[-1]
    col = newest["column"]
    start = newest["x"]
    for c in reversed(cells):
        if c["column"] != col:
            break
        start = min(start, c["x"])
    if newest["x"] - start + 1 > columns:  # the newest column alone is wider than the window
        return newest["x"] - columns + 1
    return min(offset, start)


def _shift(cells: Sequence[Mapping], offset: int, columns: int) -> list[dict]:
    end = offset + columns
    if offset == 0:
        return [dict(c) for c in cells if c["x"] < end]
    return [{**c, "x": c["x"] - offset} for c in cells if offset <= c["x"] < end]


def bead_plate_window(beads: Sequence[Mapping], columns: int, rows: int = ROWS) -> dict:
    """``{"offset", "columns", "cells"}``: the visible beads (snapshot ``bead_plate`` items)
    with ``x`` relative to the window. Raises :class:`WindowError` for ``columns`` < 1."""
    offset = bead_plate_offset(len(beads), columns, rows)
    return {"offset": offset, "columns": columns, "cells": _shift(beads, offset, columns)}


def road_window(road: Mapping, columns: int) -> dict:
    """A copy of a snapshot road (``big_road`` or a derived road) whose ``cells`` are only the
    visible ones, ``x`` relative to the window, plus ``"window": {"offset", "columns"}``.
    Other keys (``columns``, ``sequence``, ``leading_ties``, ...) are kept as they are.

    Raises :class:`WindowError` for ``columns`` < 1.
    """
    offset = road_offset(road["cells"], columns)
    out = dict(road)
    out["cells"] = _shift(road["cells"], offset, columns)
    out["window"] = {"offset": offset, "columns": columns}
    return out


def window_snapshot(snapshot: Mapping, columns: Mapping[str, int]) -> dict:
    """A copy of ``snapshot`` with each road named in ``columns`` cut to its window.

    ``columns`` maps road names (:data:`ROAD_NAMES`) to window widths in grid columns. The
    bead plate stays a list (visible beads, ``x`` relative) and its window goes to
    ``snapshot["windows"]["bead_plate"] = {"offset", "columns"}``; other roads get
    ``"window"`` (see :func:`road_window`) and the same entry in ``"windows"``. Raises
    :class:`WindowError` for an unknown road name or a width < 1.
    """
    out = dict(snapshot)
    windows: dict[str, dict] = dict(snapshot.get("windows") or {})
    for name, width in columns.items():
        if name not in ROAD_NAMES:
            raise WindowError(f"unknown road {name!r}; expected one of {ROAD_NAMES}")
        if name == "bead_plate":
            w = bead_plate_window(snapshot["bead_plate"], width)
            out["bead_plate"] = w["cells"]
            windows[name] = {"offset": w["offset"], "columns": width}
        else:
            road = road_window(snapshot[name], width)
            out[name] = road
            windows[name] = road["window"]
    out["windows"] = windows
    return out
