"""What a page asks for, parsed from its request: the :class:`web.push.documents.ModelSpec` of a
table board, an embed or a lobby screen (:func:`table_spec`, :func:`embed_spec`, :func:`lobby_spec`;
a bad option is a :class:`web.http.errors.BadRequest` naming it), and the "If Banker" / "If
Player" preview's snapshot (:func:`hypothetical`).

The documents themselves are built without a request (:class:`web.push.documents.Documents`,
the page models of :mod:`web.push.page_models`); :func:`checked` turns a model or layout error
of a page's options into the 400 naming the page's option.
"""

from __future__ import annotations

from typing import Any

from flask import request

from web import i18n
from web.http import display, screen_options as screens
from web.http.errors import BadRequest
from web.http.query import BAD_PARAMETER, bad_parameter, int_arg
from web.push.documents import BOARD_SIZES, EMBED_DEFAULT_SIZE, ModelSpec
from web.render.layout import LayoutError
from web.render.model import ModelError
from web.render.theme import THEMES
from web.service import get_service

__all__ = ["MOTIONS", "checked", "embed_spec", "hypothetical", "lobby_spec", "orient_arg", "still_arg", "table_spec"]


def orient_arg() -> str | None:
    """The ``orient`` option: ``landscape`` | ``portrait`` (one orientation), absent = both.
    Raises :class:`BadRequest` (field ``orient``) for another value."""
    raw = request.args.get("orient")
    if raw is not None and raw not in BOARD_SIZES:
        raise BadRequest(f"orient must be landscape or portrait, got {raw!r}", field="orient", code=BAD_PARAMETER)
    return raw


MOTIONS: tuple[str, ...] = ("full", "none")


def still_arg() -> bool:
    """The lite option ``motion=none`` (no animation, no countdown ticking: docs/signage.md); ``full``
    (the default) or absent: ``False``. Raises :class:`BadRequest` (field ``motion``) for another value."""
    raw = request.args.get("motion")
    if raw is not None and raw not in MOTIONS:
        raise BadRequest(f"motion must be full or none, got {raw!r}", field="motion", code=BAD_PARAMETER)
    return raw == "none"


def table_spec(table_id: str) -> ModelSpec:
    """The board's spec from the query (``lang``, ``theme`` default dark, ``bead``, ``good``, ``cols``,
    ``orient``, ``motion``)."""
    return ModelSpec("table", table_id, **display.board_query("dark"), columns=int_arg("cols", None),
                     orient=orient_arg(), still=still_arg())


def embed_spec(table_id: str) -> ModelSpec:
    """The embed's spec: as :func:`table_spec` (theme default light) plus ``roads`` and ``w``/``h``."""
    raw = request.args.get("roads")
    roads = None
    if raw is not None:
        roads = tuple(name.strip() for name in raw.split(",") if name.strip())
        if not roads:
            raise BadRequest(f"roads must name at least one road, got {raw!r}", field="roads", code=BAD_PARAMETER)
    size = (int_arg("w", EMBED_DEFAULT_SIZE[0]), int_arg("h", EMBED_DEFAULT_SIZE[1]))
    return ModelSpec("embed", table_id, **display.board_query("light"), columns=int_arg("cols", None), roads=roads,
                     size=size, still=still_arg())


def lobby_spec(screen_name: str | None = None) -> tuple[ModelSpec, int]:
    """``(spec, page)`` of a lobby screen (``screen_name``: a named screen of ``ROADS_SCREENS``,
    whose settings the query overrides; 404 for an unknown name); ``page`` is the ``page`` option."""
    preset = screens.screen(screen_name) if screen_name is not None else {}
    good = preset.get("good")
    filtered = screens.good_road_filter(request.args.get("good_road"), preset.get("good_road"))
    if good is None and filtered:  # a screen of good roads highlights what it filters for
        good = list(display.pattern_ids()) if filtered == ["any"] else filtered
    shown = display.board_query(
        preset.get("theme") if preset.get("theme") in THEMES else "dark",
        lang=preset.get("lang") if preset.get("lang") in i18n.LANGUAGES else None,
        bead=preset.get("bead") if preset.get("bead") in ("letters", "total", "colour") else "letters",
        patterns=display.parse_patterns(",".join(good) or "none") if good is not None else None)
    paging = screens.paging(request.args, preset)
    spec = ModelSpec("lobby", None, **shown, screen=screen_name,
                     tables=tuple(paging["tables"]) if paging["tables"] else None, per_page=paging["per_page"],
                     rotate_s=paging["rotate_s"], title=preset.get("title"),
                     states=tuple(paging["states"]) if paging["states"] else None, sort=paging["sort"],
                     good_road=tuple(paging["good_road"]) if paging["good_road"] else None, still=still_arg())
    return spec, paging["page"]


def checked(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with a model or layout error as a 400 naming the page's option."""
    try:
        return fn(*args, **kwargs)
    except (LayoutError, ModelError) as e:
        field = {"width": "w", "height": "h", "columns": "cols"}.get(getattr(e, "field", ""), None)
        raise bad_parameter(e, field) from None


def hypothetical(table_id: str, snap: dict[str, Any], side: str) -> dict[str, Any]:
    """``snap`` with its roads as they would be if ``side`` (``banker`` | ``player``) won the next
    round (the ask road preview): the shoe's counted rounds (public ``rounds()``, read back with
    :meth:`roads.outcome.RoundResult.from_json`) and then that result, by
    :meth:`roads.shoe_roads.ShoeRoads.with_next`. Raises :class:`BadRequest` (field ``ask``) for
    another side."""
    from roads.outcome import RoundResult
    from roads.shoe_roads import ShoeRoads

    if side not in ("banker", "player"):
        raise BadRequest(f"ask must be banker or player, got {side!r}", field="ask", code=BAD_PARAMETER)
    counted = [(r["round"], RoundResult.from_json(r["result"]))
               for r in get_service().read.rounds(table_id, int(snap.get("shoe") or 1)) if not r.get("void")]
    roads = ShoeRoads.from_rounds(counted).with_next("B" if side == "banker" else "P")
    out = dict(snap)
    out["bead_plate"] = roads.bead_plate_json()
    out["big_road"] = roads.big_road_json()
    for k, name in ((1, "big_eye_boy"), (2, "small_road"), (3, "cockroach_pig")):
        out[name] = roads.derived_json(k)
    return out
