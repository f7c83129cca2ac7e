"""The service layer: tables, their shoes and rounds, validated writes, immutable snapshots.

One :class:`Service` per app (``app.extensions["roads.service"]``, see :func:`init_app` and
:func:`get_service`). It owns the tables' in-memory state, the :class:`web.stores.Store` and the
:class:`web.hub.Hub`.

Writes (the feed): ``record_round``, ``start_shoe``, ``void_round``, ``correct_round``. Each
takes the table's lock, checks the request against the table's state (ordering,
idempotency, card copies), appends one :class:`web.stores.Event` to the store (durable before
anything else happens), applies it, builds the new snapshot and its JSON once, and publishes
both to the hub: topic ``f"table:{table_id}"`` (payload: snapshot JSON, version: the table's
version) and ``"lobby"`` (payload: JSON of :meth:`Service.list_tables`, version: the lobby
counter). Bad input raises a :class:`web.http.errors.ApiError` before anything is stored.

Snapshot reads (``snapshot``, ``snapshot_json``, ``table``, ``list_tables``, ``lobby_json``:
the API, pages, PNG and WebSocket hot paths) never take a table lock: they read the table's
latest immutable view (snapshot dict + JSON bytes), swapped in whole after each write. The
shoe listings and exports (``shoes``, ``shoe``, ``rounds``) and the rebuild of a past shoe's
snapshot read mutable shoe state, so they hold the table's lock while they copy it out.
Returned dicts are shared: do not mutate them.

Versions: a table's version is the number of events applied to it (1, 2, 3, ... with no
gaps), so a restart that replays the store gives the same versions; a shoe's version is
the table version of the last event that changed that shoe; the lobby version is the sum of
all table versions.

Event payloads (``Event.data``; ``round`` = the canonical round of :mod:`web.http.schemas`, i.e.
``{"player": [...], "banker": [...]}`` or ``{"result": {...}}`` plus optional ``burn`` and
``cut_card``):

- ``"shoe"``: ``{"burn": [...], "cut_card_position": int | None, "variant": id, "decks": int}``
- ``"round"``: ``{"round": {...}}``, plus ``"opens_shoe": {"variant": id, "decks": int}`` when the
  round's higher shoe number started the shoe
- ``"void"``: ``{"reason": str}``
- ``"correct"``: ``{"round": {...}, "reason": str | None}``
"""

from __future__ import annotations

import collections
import json
import logging
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Mapping

from flask import Flask, current_app

from roads.cards import Card, CardError, parse_cards
from roads.outcome import ResultError, RoundResult
from roads.shoe_roads import ShoeRoads
from roads.snapshot import build_snapshot
from roads.tableau import TableauError
from roads.variants import DEFAULT_VARIANT_ID, get_variant
from web.http import schemas
from roads.ids import TABLE_ID_RULE, is_table_id
from web.settings import ConfigError, get_settings
from web.http.errors import BadRequest, Conflict, NotFound, Unavailable, Unprocessable
from web.hub import Hub
from web.stores import Event, SeqTaken, Store, StoreUnavailable, open_store

log = logging.getLogger(__name__)

EXTENSION = "roads.service"
"""The ``app.extensions`` key of the app's :class:`Service`."""

PAST_SHOE_CACHE = 64
"""Snapshots of past shoes kept in memory (LRU, per service); older ones are rebuilt on demand
by replaying the shoe's recorded operations."""

APPEND_ATTEMPTS = 5
"""Times a write is validated and appended again after another process took its ``seq``."""


def iso_time(at: float | None) -> str | None:
    """Unix seconds -> ISO 8601 UTC with milliseconds (``"2024-06-15T12:00:00.000Z"``), ``None`` kept."""
    if at is None:
        return None
    return datetime.fromtimestamp(at, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def encode(obj: Any) -> bytes:
    """Compact UTF-8 JSON (non-ASCII kept, key order as built): every snapshot's one encoding."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def burn_count(turned: Card) -> int:
    """Cards burned after the turned card at a new shoe: its value, 10 for T/J/Q/K (seeds 000-002)."""
    return turned.value or 10


def result_of(round_data: Mapping[str, Any]) -> RoundResult:
    """The :class:`RoundResult` of a canonical round (cards or result-level).

    Raises :class:`roads.cards.CardError`, :class:`roads.tableau.TableauError` or
    :class:`roads.outcome.ResultError` when it breaks the rules.
    """
    if "result" in round_data:
        r = dict(round_data["result"])
        return RoundResult.from_result(
            r.pop("winner"), r.pop("player_total"), r.pop("banker_total"),
            r.pop("player_pair"), r.pop("banker_pair"), r.pop("natural"), **r,
        )
    return RoundResult.from_cards(parse_cards(round_data["player"]), parse_cards(round_data["banker"]))


_ROUND_KEYS = ("player", "banker", "result", "burn", "cut_card")
_RESULT_KEYS = tuple(schemas.ResultIn.model_fields)


def ordered_round(round_data: Mapping[str, Any]) -> dict[str, Any]:
    """A canonical round with its keys in one fixed order (player, banker, result, burn,
    cut_card; result fields in :class:`web.http.schemas.ResultIn` order), so a round read back
    from a store that sorts keys encodes to the same bytes as when it was recorded."""
    out: dict[str, Any] = {}
    for key in _ROUND_KEYS:
        if key in round_data:
            value = round_data[key]
            if key == "result":
                value = {k: value[k] for k in _RESULT_KEYS if k in value}
            out[key] = value
    return out


def _round_cards(round_data: Mapping[str, Any]) -> list[tuple[str, Card]]:
    """``(field, card)`` for every card a round took out of the shoe: burn, player, banker."""
    out: list[tuple[str, Card]] = []
    for side in ("burn", "player", "banker"):
        for i, text in enumerate(round_data.get(side) or ()):
            out.append((f"{side}[{i}]", Card.parse(text)))
    return out


def _unknown_table(table_id: str) -> NotFound:
    return NotFound(f"no table {table_id!r}", field="table_id", code="unknown_table")


def _describe(round_data: Mapping[str, Any]) -> str:
    """Short text of a canonical round for messages: ``"player 4S KD 9H, banker 7C JD"``."""
    if "result" in round_data:
        r = round_data["result"]
        return f"result {r['winner']} (player {r['player_total']}, banker {r['banker_total']})"
    return f"player {' '.join(round_data['player'])}, banker {' '.join(round_data['banker'])}"


# ----------------------------------------------------------------------------- state
@dataclass(slots=True)
class StoredRound:
    """One recorded round of a shoe (mutable only under its table's lock)."""

    number: int
    data: dict[str, Any]
    """The canonical round as it stands now (after corrections)."""
    original: dict[str, Any]
    """The canonical round as first recorded (a retry of it is still a no-op success)."""
    result: RoundResult
    at: float
    void: dict[str, Any] | None = None
    """``{"reason", "at"}`` once voided: kept in the record, counted in no road or counter."""
    corrections: list[dict[str, Any]] = field(default_factory=list)
    """``[{"at", "reason", "previous"}]``, oldest first."""

    def export(self, shoe: int) -> dict[str, Any]:
        """JSON-ready record: the feed body (replayable), result, void and correction history."""
        return {
            "round": self.number,
            "at": iso_time(self.at),
            "feed": {"shoe": shoe, "round": self.number, **self.data},
            "result": self.result.to_json(),
            "void": None if self.void is None else {"reason": self.void["reason"], "at": iso_time(self.void["at"])},
            "corrections": [
                {"at": iso_time(c["at"]), "reason": c["reason"], "previous": c["previous"]} for c in self.corrections
            ],
        }


@dataclass(slots=True)
class ShoeState:
    """One shoe of a table (mutable only under its table's lock).

    ``ops`` is the sequence of road operations applied to this shoe, so a past shoe's roads can
    be rebuilt exactly by replaying it; ``roads`` is kept only while the shoe is current.
    """

    number: int
    variant: Any
    decks: int
    started_at: float
    explicit: bool
    burn: tuple[str, ...] = ()
    cut_card_position: int | None = None
    rounds: list[StoredRound] = field(default_factory=list)
    copies: collections.Counter = field(default_factory=collections.Counter)
    ops: list[tuple[str, int, RoundResult | None]] = field(default_factory=list)
    roads: Any = None
    version: int = 0
    updated_at: float = 0.0
    _summary: tuple[int, bool, dict[str, Any]] | None = None
    """``(version, live, summary)`` of the last :meth:`summary`: every change of the shoe
    moves ``version``, so a shoe is summarised once per version, not per listing."""

    def round(self, number: int) -> StoredRound | None:
        """The stored round ``number`` (1-based) or ``None``."""
        return self.rounds[number - 1] if 1 <= number <= len(self.rounds) else None

    def cut_card_round(self) -> int | None:
        """The number of the counted round flagged ``cut_card`` (the shoe's last), if any."""
        for r in self.rounds:
            if r.void is None and r.data.get("cut_card"):
                return r.number
        return None

    def summary(self, live: bool) -> dict[str, Any]:
        """JSON-ready line of ``GET /api/tables/<id>/shoes`` (shared: do not mutate), built once
        per ``(version, live)`` (caller holds the table's lock)."""
        cached = self._summary
        if cached is not None and cached[0] == self.version and cached[1] == live:
            return cached[2]
        voided = sum(1 for r in self.rounds if r.void is not None)
        last_at = self.rounds[-1].at if self.rounds else None
        out = {
            "shoe": self.number,
            "live": live,
            "variant": {"id": self.variant.id, "name": self.variant.name},
            "decks": self.decks,
            "rounds": len(self.rounds),
            "counted": len(self.rounds) - voided,
            "voided": voided,
            "started_at": iso_time(self.started_at),
            "ended_at": None if live else iso_time(last_at if last_at is not None else self.started_at),
            "last_round_at": iso_time(last_at),
            "burn": list(self.burn),
            "cut_card_position": self.cut_card_position,
            "cut_card_round": self.cut_card_round(),
            "version": self.version,
        }
        self._summary = (self.version, live, out)
        return out


@dataclass(frozen=True, slots=True)
class TableView:
    """What readers see of a table, replaced whole after every write (never mutated)."""

    version: int
    snapshot: dict[str, Any]
    json: bytes
    lobby_entry: dict[str, Any]
    lobby_json: bytes


class TableState:
    """One table: identity, lock, event counter, shoes, and the current :class:`TableView`."""

    def __init__(self, table_id: str, name: str | None, variant_id: str | None, configured: bool) -> None:
        self.id = table_id
        self.name = name or table_id
        self.variant_id = variant_id
        self.configured = configured
        self.lock = threading.Lock()
        self.seq = 0
        self.shoes: dict[int, ShoeState] = {}
        self.current: ShoeState | None = None
        self.view: TableView | None = None

    @property
    def visible(self) -> bool:
        """Configured, or has at least one stored event (a refused first round leaves no table)."""
        return self.configured or self.seq > 0


@dataclass(frozen=True, slots=True)
class Ack:
    """A write's outcome: ``created`` False for a no-op repeat; ``body`` the JSON response."""

    created: bool
    body: dict[str, Any]


# ----------------------------------------------------------------------------- service
class Service:
    """Tables, validated writes and immutable snapshots over a :class:`Store` (see module doc).

    ``tables`` is the parsed ``ROADS_TABLES`` setting (:func:`web.settings.table_configs`);
    ``clock`` returns Unix seconds (tests may fix it). Construction loads every stored event
    and publishes every table and the lobby. Raises :class:`web.settings.ConfigError` for a
    configured variant that is not a preset.
    """

    def __init__(self, store: Store, *, tables: Mapping[str, Mapping[str, Any]] | None = None,
                 hub: Hub | None = None, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.hub = hub or Hub()
        self.clock = clock
        self._registry_lock = threading.Lock()
        self._tables: dict[str, TableState] = {}
        self._order: list[str] = []
        self._lobby_lock = threading.Lock()
        self._lobby: tuple[int, bytes] = (0, b"[]")
        self._past: collections.OrderedDict[tuple[str, int], tuple[int, dict[str, Any], bytes]] = collections.OrderedDict()
        self._past_lock = threading.Lock()
        for table_id, cfg in (tables or {}).items():
            variant_id = cfg.get("variant")
            if variant_id is not None:
                try:
                    get_variant(variant_id)
                except ValueError as e:
                    raise ConfigError(f"ROADS_TABLES[{table_id!r}].variant: {e}") from None
            self._tables[table_id] = TableState(table_id, cfg.get("name"), variant_id, configured=True)
            self._order.append(table_id)
        self._load()
        self.store.start(self.apply_external)

    # ------------------------------------------------------------------ loading
    def _load(self) -> None:
        count = 0
        for ev in self.store.load():
            t = self._tables.get(ev.table)
            if t is None:
                t = self._tables[ev.table] = TableState(ev.table, None, None, configured=False)
            self._apply(t, ev)
            count += 1
        self._order = list(self._order) + sorted(i for i, t in self._tables.items() if not t.configured)
        for t in self._tables.values():
            self._refresh(t, publish_lobby=False)
        self._publish_lobby()
        log.info("loaded %d events of %d tables", count, len(self._tables))

    # ------------------------------------------------------------------ reads
    def _visible(self, table_id: str) -> TableState:
        t = self._tables.get(table_id)
        if t is None or not t.visible or t.view is None:
            raise _unknown_table(table_id)
        return t

    @staticmethod
    def _shoe_of(t: TableState, number: int) -> ShoeState:
        """Shoe ``number`` of ``t``; raises :class:`NotFound` (``unknown_shoe``)."""
        s = t.shoes.get(number)
        if s is None:
            raise NotFound(f"table {t.id!r} has no shoe {number}", field="shoe", code="unknown_shoe")
        return s

    def table(self, table_id: str) -> dict[str, Any]:
        """``{"id", "name", "variant": {"id", "name"}}`` (the current shoe's variant, else the
        configured one). Raises :class:`web.http.errors.NotFound` for an unknown table."""
        t = self._visible(table_id)
        v = t.view.lobby_entry["variant"]  # type: ignore[union-attr]
        return {"id": t.id, "name": t.name, "variant": v}

    def list_tables(self) -> list[dict[str, Any]]:
        """Every table, configured ones first in configuration order, then the others by id:
        ``{"id", "name", "variant": {"id", "name"}, "shoe", "round", "last", "good_roads",
        "side_bets", "version", "big_road"}`` (before the first shoe: ``shoe`` 1, ``round`` 0, empty roads)."""
        out = []
        for table_id in self._order:
            t = self._tables.get(table_id)
            if t is not None and t.visible and t.view is not None:
                out.append(t.view.lobby_entry)
        return out

    def lobby_json(self) -> tuple[int, bytes]:
        """``(lobby version, JSON of list_tables())``, encoded once per change."""
        return self._lobby

    def snapshot(self, table_id: str, shoe: int | None = None) -> dict[str, Any]:
        """The snapshot dict (roads.snapshot shape plus ``name`` and ``live``) of the current shoe
        (``shoe`` None) or of shoe ``shoe``. Raises :class:`web.http.errors.NotFound`."""
        return self._snapshot(table_id, shoe)[1]

    def snapshot_json(self, table_id: str, shoe: int | None = None) -> tuple[int, bytes]:
        """``(version, snapshot JSON bytes)``, encoded once per version. Raises :class:`NotFound`."""
        version, _, data = self._snapshot(table_id, shoe)
        return version, data

    def _snapshot(self, table_id: str, shoe: int | None) -> tuple[int, dict[str, Any], bytes]:
        t = self._visible(table_id)
        view: TableView = t.view  # type: ignore[assignment]  # _visible checked it
        if shoe is None or shoe == view.snapshot.get("shoe"):
            if shoe is not None:
                self._shoe_of(t, shoe)  # a configured table shows shoe 1 before it exists
            return view.version, view.snapshot, view.json
        return self._past_snapshot(t, shoe)

    def _past_snapshot(self, t: TableState, number: int) -> tuple[int, dict[str, Any], bytes]:
        s = self._shoe_of(t, number)
        key = (t.id, number)
        with self._past_lock:
            hit = self._past.get(key)
            if hit is not None and hit[0] == s.version:
                self._past.move_to_end(key)
                return hit
        with t.lock:
            roads = self._replay(s)
            snap = self._build(t, s, roads, s.version, live=False)
        entry = (s.version, snap, encode(snap))
        with self._past_lock:
            self._past[key] = entry
            self._past.move_to_end(key)
            while len(self._past) > PAST_SHOE_CACHE:
                self._past.popitem(last=False)
        return entry

    def shoes(self, table_id: str) -> list[dict[str, Any]]:
        """Every shoe of the table, oldest first: ``{"shoe", "live", "variant", "decks", "rounds"
        (recorded, voided included), "counted", "voided", "started_at", "ended_at" (ISO 8601
        UTC; ``null`` while live), "last_round_at", "burn", "cut_card_position",
        "cut_card_round", "version"}``. Raises :class:`NotFound`."""
        t = self._visible(table_id)
        with t.lock:
            return [s.summary(s is t.current) for _, s in sorted(t.shoes.items())]

    def shoe(self, table_id: str, shoe: int) -> dict[str, Any]:
        """One line of :meth:`shoes`. Raises :class:`NotFound` for an unknown table or shoe."""
        t = self._visible(table_id)
        with t.lock:
            s = self._shoe_of(t, shoe)
            return s.summary(s is t.current)

    def rounds(self, table_id: str, shoe: int) -> list[dict[str, Any]]:
        """Every recorded round of a shoe for export, voided ones included: ``{"round", "at",
        "feed" (the body the feed accepts), "result", "void", "corrections"}``. Raises :class:`NotFound`."""
        t = self._visible(table_id)
        with t.lock:
            return [r.export(shoe) for r in self._shoe_of(t, shoe).rounds]

    # ------------------------------------------------------------------ writes
    def _table_for_write(self, table_id: str) -> TableState:
        if not is_table_id(table_id):
            raise BadRequest(
                f"table id {table_id!r} is not {TABLE_ID_RULE}",
                field="table_id", code="bad_table_id",
            )
        t = self._tables.get(table_id)
        if t is not None:
            return t
        with self._registry_lock:
            t = self._tables.get(table_id)
            if t is None:
                t = self._tables[table_id] = TableState(table_id, None, None, configured=False)
            return t

    def _write(self, table_id: str, plan: Callable[[TableState], Event | Ack]) -> Ack:
        """Validate (``plan``), append, apply, publish; retried after a lost ``seq`` race."""
        t = self._table_for_write(table_id)
        with t.lock:
            for _ in range(APPEND_ATTEMPTS):
                try:
                    outcome = plan(t)
                except (Conflict, NotFound):
                    # With a shared store (Redis) another process may have stored events
                    # this one has not applied yet: judge again after catching up before refusing.
                    if not self._catch_up_for_write(t):
                        raise
                    outcome = plan(t)
                if isinstance(outcome, Ack):
                    return outcome
                try:
                    self.store.append(outcome)
                except SeqTaken:
                    self._catch_up_for_write(t)
                    continue
                except StoreUnavailable as e:
                    raise Unavailable(f"the store cannot take writes now; nothing was recorded ({e})") from None
                new_table = t.seq == 0
                self._apply(t, outcome)
                if new_table and t.id not in self._order:
                    self._add_to_order(t.id)
                self._refresh(t)
                return Ack(True, self._ack(t, "recorded", outcome.shoe, outcome.round))
        raise Unavailable(f"table {table_id!r} is being written by other processes; try again")

    def _add_to_order(self, table_id: str) -> None:
        with self._registry_lock:
            configured = [i for i in self._order if self._tables[i].configured]
            others = sorted({i for i in self._order if not self._tables[i].configured} | {table_id})
            self._order = configured + others

    @staticmethod
    def _ack(t: TableState, status: str, shoe: int, round_no: int | None = None) -> dict[str, Any]:
        """The response body of a write: ``{"status", "table", "version", "shoe"}`` plus, for a
        round, ``"round"``, its ``"result"`` and ``"void"`` as stored now."""
        body: dict[str, Any] = {"status": status, "table": t.id, "version": t.seq, "shoe": shoe}
        if round_no is not None:
            body["round"] = round_no
            s = t.shoes.get(shoe)
            stored = s.round(round_no) if s is not None else None
            if stored is not None:
                body["result"] = stored.result.to_json()
                body["void"] = None if stored.void is None else {"reason": stored.void["reason"], "at": iso_time(stored.void["at"])}
        return body

    def _catch_up_for_write(self, t: TableState) -> bool:
        """:meth:`_catch_up` inside a write (caller holds ``t.lock``): True when events of other
        processes were applied. Raises :class:`Unavailable` when the store cannot be read."""
        before = t.seq
        try:
            self._catch_up(t)
        except StoreUnavailable as e:
            raise Unavailable(f"the store cannot be read now; nothing was recorded ({e})") from None
        return t.seq != before

    def _catch_up(self, t: TableState) -> None:
        """Apply events other processes stored after ours (caller holds ``t.lock``)."""
        events = self.store.events_after(t.id, t.seq)
        for ev in events:
            self._apply(t, ev)
        if events:
            if t.id not in self._order:
                self._add_to_order(t.id)
            self._refresh(t)

    def apply_external(self, event: Event) -> None:
        """Apply an event another process stored (the store's follower thread calls this).

        Ignores events already applied; catches up from the store when ``event`` skips ahead
        (raising :class:`web.stores.StoreUnavailable` when the store cannot be read then).
        """
        t = self._tables.get(event.table)
        if t is None:
            with self._registry_lock:
                t = self._tables.setdefault(event.table, TableState(event.table, None, None, configured=False))
        with t.lock:
            if event.seq <= t.seq:
                return
            if event.seq > t.seq + 1:
                self._catch_up(t)
                return
            self._apply(t, event)
            if t.id not in self._order:
                self._add_to_order(t.id)
            self._refresh(t)

    def _default_variant(self, t: TableState) -> Any:
        return get_variant(t.variant_id or DEFAULT_VARIANT_ID)

    def _check_copies(self, s_copies: collections.Counter, decks: int, cards: Iterable[tuple[str, Card]],
                      shoe: int, removed: Iterable[Card] = ()) -> None:
        counts = collections.Counter(s_copies)
        counts.subtract(removed)
        for where, card in cards:
            counts[card] += 1
            if counts[card] > decks:
                raise Unprocessable(
                    f"{card} would be copy {counts[card]} of {card} in shoe {shoe}, "
                    f"but a {decks}-deck shoe holds {decks}",
                    field=where, code="too_many_copies",
                )

    # -- rounds
    def record_round(self, table_id: str, body: schemas.RoundIn) -> Ack:
        """Record one round (``POST /api/tables/<id>/rounds``); ``Ack.created`` False for a repeat.

        A higher shoe number than the current shoe's starts that shoe (its round must be 1).
        Raises :class:`Unprocessable` (tableau, result contradiction, too many copies of a
        card), :class:`Conflict` (``round_conflict`` with the stored round, ``round_gap``,
        ``shoe_backwards``, ``shoe_ended``), :class:`BadRequest` (bad table id) and
        :class:`Unavailable` (store down). Nothing changes when it raises.
        """
        data = ordered_round(body.canonical())
        self._check_result(data)
        return self._write(table_id, lambda t: self._plan_round(t, body.shoe, body.round, data))

    @staticmethod
    def _check_result(data: Mapping[str, Any]) -> None:
        """Refuse (422, before any lock is taken) a round that breaks the tableau or contradicts
        itself. ``_apply`` computes the result again from the stored event (replay needs that)."""
        try:
            result_of(data)
        except TableauError as e:
            side = "banker" if e.rule.startswith("banker") else "player"
            if e.rule == "natural":
                side = "player" if len(data.get("player", ())) == 3 else "banker"
            raise Unprocessable(f"{e} (rule {e.rule})", field=side, code="tableau") from None
        except ResultError as e:
            raise Unprocessable(str(e), field=f"result.{e.field}", code="result_contradiction") from None
        except CardError as e:  # pragma: no cover - schemas already parsed every card
            raise BadRequest(str(e), code="bad_card") from None

    def _conflict(self, t: TableState, shoe: ShoeState, stored: StoredRound, data: Mapping[str, Any]) -> Conflict:
        return Conflict(
            f"shoe {shoe.number} round {stored.number} of table {t.id!r} is already stored as "
            f"{_describe(stored.data)}; this round ({_describe(data)}) differs. "
            f"To correct the stored round, PUT it to /api/tables/{t.id}/shoes/{shoe.number}/rounds/{stored.number}",
            field="round", code="round_conflict", extra={"stored": stored.export(shoe.number)},
        )

    def _plan_round(self, t: TableState, shoe_no: int, round_no: int, data: dict[str, Any]) -> Event | Ack:
        cur = t.current
        at = self.clock()
        if cur is None or shoe_no > cur.number:
            if round_no != 1:
                where = f"after shoe {cur.number}" if cur else "as the table's first shoe"
                raise Conflict(
                    f"round {round_no} would start shoe {shoe_no} {where}; a shoe starts at round 1",
                    field="round", code="round_gap",
                )
            variant = self._default_variant(t)
            self._check_copies(collections.Counter(), variant.decks, _round_cards(data), shoe_no)
            return Event(t.id, t.seq + 1, "round", shoe_no, 1,
                         {"round": data, "opens_shoe": {"variant": variant.id, "decks": variant.decks}}, at)
        shoe = cur if shoe_no == cur.number else t.shoes.get(shoe_no)
        if shoe is None or (shoe is not cur and round_no > len(shoe.rounds)):
            raise Conflict(
                f"shoe {shoe_no} is before table {t.id!r}'s current shoe {cur.number}; shoe numbers never go back",
                field="shoe", code="shoe_backwards",
            )
        stored = shoe.round(round_no)
        if stored is not None:
            if data == stored.data or data == stored.original:
                return Ack(False, self._ack(t, "unchanged", shoe_no, round_no))
            raise self._conflict(t, shoe, stored, data)
        expected = len(shoe.rounds) + 1
        if round_no != expected:
            raise Conflict(
                f"shoe {shoe_no} of table {t.id!r} expects round {expected} next, got {round_no}; "
                "round numbers are consecutive",
                field="round", code="round_gap",
            )
        last = shoe.cut_card_round()
        if last is not None:
            raise Conflict(
                f"shoe {shoe_no} ended with round {last} (the cut card came out); "
                f"round {round_no} belongs to a new shoe",
                field="round", code="shoe_ended",
            )
        self._check_copies(shoe.copies, shoe.decks, _round_cards(data), shoe_no)
        return Event(t.id, t.seq + 1, "round", shoe_no, round_no, {"round": data}, at)

    # -- shoes
    def start_shoe(self, table_id: str, body: schemas.ShoeIn) -> Ack:
        """Start shoe ``body.shoe`` (``POST /api/tables/<id>/shoes``); a repeat is a no-op.

        Raises :class:`Unprocessable` (unknown variant, burn count against the turned card,
        too many copies), :class:`Conflict` (``shoe_backwards``, ``shoe_conflict`` when the
        shoe exists with other burn cards / cut card / variant, or was started by a round).
        """
        return self._write(table_id, lambda t: self._plan_shoe(t, body))

    def _plan_shoe(self, t: TableState, body: schemas.ShoeIn) -> Event | Ack:
        if body.variant is not None:
            try:
                variant = get_variant(body.variant)
            except ValueError as e:
                raise Unprocessable(str(e), field="variant", code="unknown_variant") from None
        else:
            variant = self._default_variant(t)
        burn = [Card.parse(c) for c in body.burn]
        cur = t.current
        if cur is not None and body.shoe <= cur.number:
            existing = t.shoes.get(body.shoe)
            if existing is not None:
                same = (existing.explicit and list(existing.burn) == list(body.burn)
                        and existing.cut_card_position == body.cut_card_position
                        and (body.variant is None or body.variant == existing.variant.id))
                if same:
                    return Ack(False, self._ack(t, "unchanged", body.shoe))
                how = "explicitly with other burn cards, cut card or variant" if existing.explicit else "by its first round"
                raise Conflict(f"shoe {body.shoe} of table {t.id!r} was already started {how}",
                               field="shoe", code="shoe_conflict",
                               extra={"stored": existing.summary(existing is cur)})
            raise Conflict(
                f"shoe {body.shoe} is before table {t.id!r}'s current shoe {cur.number}; shoe numbers never go back",
                field="shoe", code="shoe_backwards",
            )
        if burn:
            need = 1 + burn_count(burn[0])
            if len(burn) != need:
                raise Unprocessable(
                    f"turned card {burn[0]} burns {need - 1} more card(s), so burn holds {need} cards; got {len(burn)}",
                    field="burn", code="burn_count",
                )
        self._check_copies(collections.Counter(), variant.decks,
                           [(f"burn[{i}]", c) for i, c in enumerate(burn)], body.shoe)
        return Event(t.id, t.seq + 1, "shoe", body.shoe, None,
                     {"burn": list(body.burn), "cut_card_position": body.cut_card_position,
                      "variant": variant.id, "decks": variant.decks}, self.clock())

    # -- void and correct
    def _find(self, t: TableState, shoe_no: int, round_no: int) -> tuple[ShoeState, StoredRound]:
        s = self._shoe_of(t, shoe_no)
        r = s.round(round_no)
        if r is None:
            raise NotFound(f"shoe {shoe_no} of table {t.id!r} has no round {round_no}", field="round", code="unknown_round")
        return s, r

    def void_round(self, table_id: str, shoe: int, round_no: int, reason: str) -> Ack:
        """Void a round (kept in the record, counted nowhere); a repeat with the same reason is a
        no-op. Raises :class:`NotFound` (table, shoe, round) or :class:`Conflict`
        (``already_voided`` with another reason)."""
        t = self._existing_for_write(table_id)

        def plan(t: TableState) -> Event | Ack:
            s, r = self._find(t, shoe, round_no)
            if r.void is not None:
                if r.void["reason"] == reason:
                    return Ack(False, self._ack(t, "unchanged", shoe, round_no))
                raise Conflict(f"shoe {shoe} round {round_no} is already voided (reason {r.void['reason']!r})",
                               field="reason", code="already_voided", extra={"stored": r.export(shoe)})
            return Event(t.id, t.seq + 1, "void", shoe, round_no, {"reason": reason}, self.clock())

        return self._write(t.id, plan)

    def correct_round(self, table_id: str, shoe: int, round_no: int, body: schemas.CorrectionIn) -> Ack:
        """Replace a recorded round (``PUT``); the same content again is a no-op.

        Raises :class:`BadRequest` (shoe/round in the body differ from the path),
        :class:`NotFound`, :class:`Unprocessable` (tableau, result, copies), :class:`Conflict`
        (``round_voided``; ``shoe_ended`` when a ``cut_card`` flag would end the shoe before
        rounds already recorded).
        """
        for name, given, path in (("shoe", body.shoe, shoe), ("round", body.round, round_no)):
            if given is not None and given != path:
                raise BadRequest(f"{name} {given} in the body differs from {name} {path} in the path",
                                 field=name, code="path_mismatch")
        data = ordered_round(body.canonical())
        self._check_result(data)
        t = self._existing_for_write(table_id)

        def plan(t: TableState) -> Event | Ack:
            s, r = self._find(t, shoe, round_no)
            if r.void is not None:
                raise Conflict(f"shoe {shoe} round {round_no} is voided ({r.void['reason']!r}); a voided round is not corrected",
                               field="round", code="round_voided", extra={"stored": r.export(shoe)})
            if data == r.data:
                return Ack(False, self._ack(t, "unchanged", shoe, round_no))
            if data.get("cut_card") and round_no < len(s.rounds):
                raise Conflict(f"round {round_no} cannot carry the cut card: shoe {shoe} has rounds up to {len(s.rounds)}",
                               field="cut_card", code="shoe_ended")
            self._check_copies(s.copies, s.decks, _round_cards(data), shoe,
                               removed=[c for _, c in _round_cards(r.data)])
            return Event(t.id, t.seq + 1, "correct", shoe, round_no, {"round": data, "reason": body.reason}, self.clock())

        return self._write(t.id, plan)

    def _existing_for_write(self, table_id: str) -> TableState:
        t = self._tables.get(table_id)
        if (t is None or not t.visible) and is_table_id(table_id):
            t = self._table_for_write(table_id)  # another process may have created it (shared store)
            with t.lock:
                self._catch_up_for_write(t)
        if t is None or not t.visible:
            raise _unknown_table(table_id)
        return t

    # ------------------------------------------------------------------ applying events
    def _variant_or_default(self, variant_id: str) -> Any:
        try:
            return get_variant(variant_id)
        except ValueError:
            log.warning("stored variant %r is no longer a preset; using %r", variant_id, DEFAULT_VARIANT_ID)
            return get_variant(DEFAULT_VARIANT_ID)

    def _open_shoe(self, t: TableState, number: int, info: Mapping[str, Any], at: float, explicit: bool) -> ShoeState:
        s = ShoeState(number=number, variant=self._variant_or_default(info["variant"]), decks=int(info["decks"]),
                      started_at=at, explicit=explicit, burn=tuple(info.get("burn") or ()),
                      cut_card_position=info.get("cut_card_position"))
        s.copies.update(Card.parse(c) for c in s.burn)
        s.roads = ShoeRoads()
        if t.current is not None:
            t.current.roads = None  # past shoes are rebuilt from their ops on demand
        t.shoes[number] = s
        t.current = s
        return s

    def _apply(self, t: TableState, ev: Event) -> None:
        """Apply one stored event (caller holds ``t.lock`` or is loading). Deterministic: the
        same events in the same order give the same state. Raises ``ValueError`` for an event
        that does not fit the state (a damaged store)."""
        if ev.seq != t.seq + 1:
            raise ValueError(f"table {t.id!r}: event seq {ev.seq} after {t.seq}")
        d = ev.data
        if ev.kind == "shoe":
            s = self._open_shoe(t, ev.shoe, d, ev.at, explicit=True)
        elif ev.kind == "round":
            if "opens_shoe" in d:
                self._open_shoe(t, ev.shoe, d["opens_shoe"], ev.at, explicit=False)
            s = self._stored_shoe(t, ev)
            if ev.round != len(s.rounds) + 1:
                raise ValueError(f"table {t.id!r} shoe {ev.shoe}: round {ev.round} after {len(s.rounds)}")
            data = ordered_round(d["round"])
            result = result_of(data)
            s.rounds.append(StoredRound(ev.round, data, data, result, ev.at))
            s.copies.update(c for _, c in _round_cards(data))
            s.ops.append(("record", ev.round, result))
            if s.roads is not None:
                s.roads.record(ev.round, result)
        elif ev.kind == "void":
            s = self._stored_shoe(t, ev)
            r = self._stored_round(s, ev)
            r.void = {"reason": d["reason"], "at": ev.at}
            s.ops.append(("void", r.number, None))
            if s.roads is not None:
                s.roads.void(r.number)
        else:  # correct
            s = self._stored_shoe(t, ev)
            r = self._stored_round(s, ev)
            data = ordered_round(d["round"])
            result = result_of(data)
            s.copies.subtract(c for _, c in _round_cards(r.data))
            s.copies.update(c for _, c in _round_cards(data))
            r.corrections.append({"at": ev.at, "reason": d.get("reason"), "previous": r.data})
            r.data, r.result = data, result
            s.ops.append(("correct", r.number, result))
            if s.roads is not None:
                s.roads.correct(r.number, result)
        s.version = ev.seq
        s.updated_at = ev.at
        t.seq = ev.seq

    @staticmethod
    def _stored_shoe(t: TableState, ev: Event) -> ShoeState:
        s = t.shoes.get(ev.shoe)
        if s is None:
            raise ValueError(f"table {t.id!r} event {ev.seq}: no shoe {ev.shoe}")
        return s

    @staticmethod
    def _stored_round(s: ShoeState, ev: Event) -> StoredRound:
        r = s.round(ev.round or 0)
        if r is None:
            raise ValueError(f"event {ev.seq}: shoe {s.number} has no round {ev.round}")
        return r

    def _replay(self, s: ShoeState) -> Any:
        roads = ShoeRoads()
        for op, number, result in s.ops:
            if op == "record":
                roads.record(number, result)
            elif op == "void":
                roads.void(number)
            else:
                roads.correct(number, result)
        return roads

    # ------------------------------------------------------------------ views and publishing
    def _build(self, t: TableState, s: ShoeState | None, roads: Any, version: int, *, live: bool) -> dict[str, Any]:
        if s is None:  # a configured table before its first shoe: shoe 1 awaiting round 1
            variant = self._default_variant(t)
            snap = build_snapshot(table=t.id, shoe=1, version=version, roads=ShoeRoads(), variant=variant)
        else:
            snap = build_snapshot(table=t.id, shoe=s.number, version=version, roads=roads, variant=s.variant)
        snap["name"] = t.name
        snap["live"] = live
        return snap

    def _refresh(self, t: TableState, *, publish_lobby: bool = True) -> None:
        """Build the table's new view from its current shoe and publish it (caller holds the lock)."""
        s = t.current
        snap = self._build(t, s, s.roads if s is not None else None, t.seq, live=True)
        variant = s.variant if s is not None else self._default_variant(t)
        entry = {
            "id": t.id,
            "name": t.name,
            "variant": {"id": variant.id, "name": variant.name},
            "shoe": snap.get("shoe", 0),
            "round": snap.get("round", 0),
            "last": snap.get("last"),
            "good_roads": snap.get("good_roads", []),
            "side_bets": snap.get("side_bets", []),
            "version": t.seq,
            "big_road": snap.get("big_road"),
        }
        view = TableView(t.seq, snap, encode(snap), entry, encode(entry))
        t.view = view
        self.hub.publish(f"table:{t.id}", view.version, view.json)
        if publish_lobby:
            self._publish_lobby()

    def _publish_lobby(self) -> None:
        with self._lobby_lock:
            parts = []
            total = 0
            for table_id in list(self._order):
                t = self._tables.get(table_id)
                if t is not None and t.visible and t.view is not None:
                    parts.append(t.view.lobby_json)
                    total += t.view.version
            self._lobby = (total, b"[" + b",".join(parts) + b"]")
            self.hub.publish("lobby", total, self._lobby[1])

    def close(self) -> None:
        """Close the store."""
        self.store.close()


# ----------------------------------------------------------------------------- flask glue
def init_app(app: Flask) -> None:
    """Open the store the settings select, load it into a :class:`Service`, and keep that in
    ``app.extensions["roads.service"]``. Raises :class:`web.settings.ConfigError` for bad settings."""
    settings = get_settings(app)
    store = open_store(settings)
    try:
        service = Service(store, tables=settings.tables)
    except BaseException:
        store.close()
        raise
    app.extensions[EXTENSION] = service


def get_service(app: Flask | None = None) -> Service:
    """The :class:`Service` of ``app`` (default: the current app), ``app.extensions["roads.service"]``."""
    return (app or current_app).extensions[EXTENSION]
