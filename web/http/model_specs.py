"""The model documents pages paint: what a page's boot JSON, its model JSON route and its live
model topic (:mod:`web.push.page_models`) carry, built from one :class:`ModelSpec`.

A spec is everything a page chose (its table or screen, language, theme, bead content, good
roads, columns; the embed's roads and size; a lobby's tables, paging and title), parsed from the
request once (:func:`table_spec`, :func:`embed_spec`, :func:`lobby_spec`; a bad option is a
:class:`web.http.errors.BadRequest` naming it) and then built without a request
(:func:`build`), so the live model topics can rebuild a page's document whenever its table or
the lobby changes. Documents::

    table, embed: {"models": {"landscape": model, "portrait": model} | {orientation: model}
                             | {"fixed": model}, "release", "version": snapshot version, "shoe"}
    lobby:        {"pages": {"landscape": [page model, ...], "portrait": [...]}, "release",
                   "version": lobby version, "rotate_s"}

Models are :func:`web.render.model.board_model` and :func:`web.http.screen_options.lobby_page_model`;
``release`` is :data:`RELEASE` (a page whose release differs from the server's reloads).

A table spec with an ``orient`` (``landscape`` | ``portrait``) holds that orientation's model
only: a table page subscribes to the topic of the orientation it shows (and to the other one
when the viewport changes shape), so a screen gets, and a process builds, one model per update.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from flask import request

from web import i18n
from web.http import display, screen_options as screens
from web.http.errors import BadRequest
from web.http.query import BAD_PARAMETER, bad_parameter, int_arg
from web.paths import STATIC_DIR
from web.push import topics
from web.render.layout import LayoutError
from web.render.model import BoardOptions, ModelError, board_model
from web.render.theme import THEMES
from web.service import get_service

BOARD_SIZES: dict[str, tuple[int, int]] = {"landscape": (1920, 1080), "portrait": (1080, 1920)}
"""Nominal canvases of boards and screens; the page picks the one matching the viewport's shape."""

EMBED_DEFAULT_SIZE: tuple[int, int] = (800, 450)
"""Default design size (px) of the embed widget (``w``/``h``)."""


def _release() -> str:
    """A digest of what pages are drawn with (render code, scripts, styles, templates)."""
    h = hashlib.blake2b(digest_size=6)
    web_dir = Path(__file__).resolve().parents[1]
    for folder, pattern in ((web_dir / "render", "*.py"), (Path(STATIC_DIR) / "js", "*.js"),
                            (Path(STATIC_DIR) / "css", "*.css"), (web_dir / "templates", "*.html")):
        for path in sorted(Path(folder).glob(pattern)):
            h.update(path.read_bytes())
    return h.hexdigest()


RELEASE = _release()
"""The release digest of this process (:func:`_release`)."""


@dataclass(frozen=True)
class ModelSpec:
    """What a page shows, without the request: ``page`` (``table`` | ``embed`` | ``lobby``),
    ``table`` (table and embed), ``lang``, ``theme``, ``bead``, ``patterns`` (good roads),
    ``columns``, ``orient`` (table: one orientation's model, ``None`` = both); embed: ``roads``
    and ``size`` (w, h px); lobby: ``screen`` (a named screen or ``None``), ``tables`` (ids in
    order, ``None`` = all), ``per_page``, ``rotate_s``, ``title``, ``states`` (the state filter,
    ``None`` = all) and ``sort`` (``"open"`` or ``None``, :mod:`web.http.screen_options`)."""

    page: str
    table: str | None
    lang: str
    theme: str
    bead: str
    patterns: tuple[str, ...]
    columns: int | None = None
    roads: tuple[str, ...] | None = None
    size: tuple[int, int] | None = None
    screen: str | None = None
    tables: tuple[str, ...] | None = None
    per_page: int = screens.DEFAULT_PER_PAGE
    rotate_s: int | None = None
    title: str | None = None
    states: tuple[str, ...] | None = None
    sort: str | None = None
    orient: str | None = None

    @property
    def topic(self) -> str:
        """The live model topic of this spec: ``"model:<16 hex digits>"`` (a digest of the spec)."""
        return topics.model(hashlib.blake2b(repr(self).encode(), digest_size=8).hexdigest())

    @property
    def source(self) -> str:
        """The hub topic whose messages change this document: ``table:<id>`` or ``lobby``."""
        return topics.table(self.table) if self.page in ("table", "embed") else topics.LOBBY  # type: ignore[arg-type]


# --------------------------------------------------------------------------- from the request

def orient_arg() -> str | None:
    """The ``orient`` option: ``landscape`` | ``portrait`` (one orientation), absent = both.
    Raises :class:`BadRequest` (field ``orient``) for another value."""
    raw = request.args.get("orient")
    if raw is not None and raw not in BOARD_SIZES:
        raise BadRequest(f"orient must be landscape or portrait, got {raw!r}", field="orient", code=BAD_PARAMETER)
    return raw


def table_spec(table_id: str) -> ModelSpec:
    """The board's spec from the query (``lang``, ``theme`` default dark, ``bead``, ``good``, ``cols``,
    ``orient``)."""
    return ModelSpec("table", table_id, display.lang_arg(), display.theme_arg("dark"), display.bead_arg(),
                     display.patterns_arg(), columns=int_arg("cols", None), orient=orient_arg())


def embed_spec(table_id: str) -> ModelSpec:
    """The embed's spec: as :func:`table_spec` (theme default light) plus ``roads`` and ``w``/``h``."""
    raw = request.args.get("roads")
    roads = None
    if raw is not None:
        roads = tuple(name.strip() for name in raw.split(",") if name.strip())
        if not roads:
            raise BadRequest(f"roads must name at least one road, got {raw!r}", field="roads", code=BAD_PARAMETER)
    size = (int_arg("w", EMBED_DEFAULT_SIZE[0]), int_arg("h", EMBED_DEFAULT_SIZE[1]))
    return ModelSpec("embed", table_id, display.lang_arg(), display.theme_arg("light"), display.bead_arg(),
                     display.patterns_arg(), columns=int_arg("cols", None), roads=roads, size=size)


def lobby_spec(screen_name: str | None = None) -> tuple[ModelSpec, int]:
    """``(spec, page)`` of a lobby screen (``screen_name``: a named screen of ``ROADS_SCREENS``,
    whose settings the query overrides; 404 for an unknown name); ``page`` is the ``page`` option."""
    preset = screens.screen(screen_name) if screen_name is not None else {}
    lang = display.lang_arg(default=preset.get("lang") if preset.get("lang") in i18n.LANGUAGES else None)
    theme = display.theme_arg(preset.get("theme") if preset.get("theme") in THEMES else "dark")
    bead = display.bead_arg(preset.get("bead") if preset.get("bead") in ("letters", "total", "colour") else "letters")
    good = preset.get("good")
    patterns = display.patterns_arg(display.parse_patterns(",".join(good) or "none") if good is not None else None)
    paging = screens.paging(request.args, preset)
    spec = ModelSpec("lobby", None, lang, theme, bead, patterns, screen=screen_name,
                     tables=tuple(paging["tables"]) if paging["tables"] else None, per_page=paging["per_page"],
                     rotate_s=paging["rotate_s"], title=preset.get("title"),
                     states=tuple(paging["states"]) if paging["states"] else None, sort=paging["sort"])
    return spec, paging["page"]


# --------------------------------------------------------------------------- building

def checked(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with a model or layout error as a 400 naming the page's option."""
    try:
        return fn(*args, **kwargs)
    except (LayoutError, ModelError) as e:
        field = {"width": "w", "height": "h", "columns": "cols"}.get(getattr(e, "field", ""), None)
        raise bad_parameter(e, field) from None


def _options(spec: ModelSpec, kind: str, size: tuple[int, int], **extra: Any) -> BoardOptions:
    return BoardOptions(kind=kind, width=size[0], height=size[1], roads=spec.roads, columns=spec.columns,
                        lang=spec.lang, theme=spec.theme, bead=spec.bead, patterns=spec.patterns, **extra)


def board_doc(spec: ModelSpec, snap: Mapping[str, Any]) -> dict[str, Any]:
    """The table or embed document of ``spec`` for snapshot ``snap`` (see the module docstring)."""
    facts = display.shoe_facts(get_service().read, spec.table, snap)
    tz = display.venue_tz()
    if spec.page == "embed":
        sizes = {"fixed": spec.size or EMBED_DEFAULT_SIZE}
    elif spec.orient is not None:
        sizes = {spec.orient: BOARD_SIZES[spec.orient]}
    else:
        sizes = BOARD_SIZES
    models = {name: checked(board_model, snap, _options(spec, spec.page if spec.page == "embed" else "board", size),
                            last_at=facts["last_at"], tz=tz) for name, size in sizes.items()}
    return {"models": models, "release": RELEASE, "version": snap.get("version"), "shoe": snap.get("shoe")}


def _paging(spec: ModelSpec, page: int) -> dict[str, Any]:
    return {"tables": list(spec.tables) if spec.tables else None, "per_page": spec.per_page, "page": page,
            "rotate_s": spec.rotate_s, "states": list(spec.states) if spec.states else None, "sort": spec.sort}


def lobby_page(spec: ModelSpec, page: int, orient: str | None = None) -> dict[str, Any]:
    """``{"models": {orientation: page model}, "release", "version"}`` of lobby page ``page``
    (clamped to the last page; ``orient`` one orientation only)."""
    read = get_service().read
    models = {}
    for name, size in BOARD_SIZES.items():
        if orient in BOARD_SIZES and orient != name:
            continue
        opts = _options(spec, "tile", size, min_text=screens.SCREEN_MIN_TEXT, extra={"screen": True})
        models[name] = checked(screens.lobby_page_model, read, opts, _paging(spec, page), title=spec.title,
                               with_stale=False)
    return {"models": models, "release": RELEASE, "version": _lobby_version()}


def _lobby_version() -> int:
    return get_service().read.lobby_version()


def lobby_doc(spec: ModelSpec) -> dict[str, Any]:
    """The lobby document of ``spec``: every page in both orientations (see the module docstring)."""
    version = _lobby_version()
    first = lobby_page(spec, 1)["models"]
    pages = {name: [model] for name, model in first.items()}
    for n in range(2, first["landscape"]["pages"] + 1):
        for name, model in lobby_page(spec, n)["models"].items():
            pages[name].append(model)
    rotate = spec.rotate_s
    if rotate is None and len(pages["landscape"]) > 1:
        rotate = screens.DEFAULT_ROTATE_S
    return {"pages": pages, "release": RELEASE, "version": version, "rotate_s": rotate or None}


def build(spec: ModelSpec) -> dict[str, Any]:
    """The live document of ``spec`` now (needs an app context). Raises as the service does for an
    unknown table, and :class:`BadRequest` for an option no model can be drawn with."""
    if spec.page == "lobby":
        return lobby_doc(spec)
    return board_doc(spec, get_service().read.snapshot(spec.table))


def hypothetical(table_id: str, snap: dict[str, Any], side: str) -> dict[str, Any]:
    """``snap`` with its roads as they would be if ``side`` (``banker`` | ``player``) won the next
    round: the shoe's counted rounds (public ``rounds()``) replayed by the roads, plus that result
    (the ask road preview). Raises :class:`BadRequest` (field ``ask``) for another side."""
    from roads.outcome import RoundResult
    from roads.shoe_roads import ShoeRoads

    if side not in ("banker", "player"):
        raise BadRequest(f"ask must be banker or player, got {side!r}", field="ask", code=BAD_PARAMETER)
    pairs = []
    for r in get_service().read.rounds(table_id, int(snap.get("shoe") or 1)):
        if r.get("void"):
            continue
        res = r.get("result") or {}
        pairs.append((int(r["round"]), RoundResult(
            winner=res["winner"], player_total=int(res["player_total"]), banker_total=int(res["banker_total"]),
            player_pair=bool(res.get("player_pair")), banker_pair=bool(res.get("banker_pair")),
            natural=bool(res.get("natural")))))
    roads = ShoeRoads.from_rounds(pairs)
    winner = "B" if side == "banker" else "P"
    roads.record(max([n for n, _ in pairs], default=0) + 1, RoundResult(
        winner=winner, player_total=0 if winner == "B" else 1, banker_total=1 if winner == "B" else 0,
        player_pair=False, banker_pair=False, natural=False))
    out = dict(snap)
    out["bead_plate"] = roads.bead_plate_json()
    out["big_road"] = roads.big_road_json()
    for k, name in ((1, "big_eye_boy"), (2, "small_road"), (3, "cockroach_pig")):
        out[name] = roads.derived_json(k)
    return out
