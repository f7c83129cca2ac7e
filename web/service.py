"""The service: writes to the tables' records, made durable, applied and published.

One :class:`Service` per app (``app.extensions["roads.service"]``, see :func:`init_app` and
:func:`get_service`). It owns the :class:`web.stores.Store` and the read model
(:attr:`Service.read`, a :class:`web.read_model.ReadModel` on the :class:`web.push.hub.Hub`),
which readers use directly.

A write (:data:`roads.table.Write`: record a round, start a shoe, void or correct a round,
cards of a round dealt card by card, the table's state) is orchestration only; the rules are
the record's (:class:`roads.table.Table`):

1. take the table's lock;
2. ``Table.decide``: the event that records the write, or unchanged (a repeat), or a
   :mod:`roads.errors` error (nothing stored). A conflict, an unknown shoe/round or an
   "unchanged" may come from a record that is behind another process sharing the store
   (``Store.shared``): the service catches up from the store and decides once more before
   refusing or answering "unchanged";
3. with a history store (:class:`web.stores.HistoryStore`: SQLite, Redis + PostgreSQL)
   ``store.commit(table.commit(event))``: the event with the shoe it closes or changes and the
   table's head in one transaction (docs/history.md); with the Redis store alone
   ``Store.append``. Durable before anything else happens; when another process took the
   ``seq`` (:class:`web.stores.SeqTaken`), catch up and decide again;
4. ``Table.apply`` and ``ReadModel.refresh`` (new snapshot encoded once, published to the hub);
   a shoe the event closed or changed is dropped from the past-shoe cache
   (:meth:`web.read_model.ReadModel.forget_past`), and a close wakes the :class:`Maintenance`
   thread (compactor and retention, off the request path);
5. once the table's lock is released, the table's watched page models are rebuilt in the
   writer's own thread and the lobby's handed to their worker (:class:`web.push.page_models.PageModels`:
   a screen has the round when the write has been answered).

Start: with a history store each table is restored from its live part (``store.load_live()``,
:meth:`roads.table.Table.restore` with ``past=store.past_shoes(id)``): no history is read, so
start time and memory follow the live tables. With the Redis store alone every stored event is
replayed (the release's path).

Versions: a table's version is the number of events applied to it (1, 2, 3, ... with no
gaps), so a restart that replays the store gives the same versions; a shoe's version is the
table version of the last event that changed that shoe; the lobby version is the sum of all
table versions. Event payloads: :mod:`roads.events`.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from flask import Flask, current_app

from roads.errors import (BadTableId, NotInRecord, RecordConflict, TableError, TableNotAllowed, TooManyTables,
                          UnknownTable)
from roads.events import CARD, CORRECT, ROUND, SHOE, VOID, Event
from roads.ids import TABLE_ID_RULE, is_table_id
from roads.table import Unchanged, Write
from roads.table_state import SetState
from roads.variants import get_variant
from web import extensions
from web import gc_tuning
from web.heap_trim import HeapTrim
from web.push import topics
from web.push.hub import Hub
from web.push.page_models import PageModels
from web.read_model import ReadModel
from web.settings import ConfigError, get_settings, setting_path
from web.snapshots import state_json
from web.stores import HistoryStore, SeqTaken, Store, StoreUnavailable, TableLimitReached, open_store
from web.tables import TableSlot

log = logging.getLogger(__name__)

EXTENSION = extensions.SERVICE
"""The ``app.extensions`` key of the app's :class:`Service`."""

APPEND_ATTEMPTS = 5
"""Times a write is decided and appended again after another process took its ``seq``."""

MAINTENANCE_INTERVAL_S = 86_400.0
"""The maintenance thread runs at least this often (retention is by age: once a day)."""


@dataclass(frozen=True, slots=True)
class Ack:
    """A write's outcome: ``created`` False for a no-op repeat; ``body`` the JSON response."""

    created: bool
    body: dict[str, Any]


class Service:
    """Writes to the tables' records over a :class:`Store`, and their read model (module doc).

    ``tables`` is the parsed ``ROADS_TABLES`` setting (:attr:`web.settings.Settings.tables`:
    ``name``, ``variant`` and ``limits`` of each table);
    ``read`` the read model to fill (default: a new one on a new hub); ``page_models`` the
    page-model topics told of every change (:class:`web.push.page_models.PageModels`, default
    none); ``clock`` returns Unix seconds (tests may fix it); ``max_tables`` and
    ``only_configured_tables`` bound the tables that writes may create (``ROADS_MAX_TABLES``,
    ``ROADS_ONLY_CONFIGURED_TABLES``; :meth:`write`). Construction loads the tables (a history
    store: each table's live part; else every stored event), publishes every table and the
    lobby, starts the store's follower and, with a history store, the :class:`Maintenance`
    thread (``maintenance`` False: none). Raises
    :class:`web.settings.ConfigError` for a configured variant that is not a preset or bad
    configured limits, :class:`web.stores.StoreError` for a store that cannot be read.
    """

    def __init__(self, store: Store, *, tables: Mapping[str, Mapping[str, Any]] | None = None,
                 read: ReadModel | None = None, page_models: PageModels | None = None,
                 clock: Callable[[], float] = time.time, max_tables: int | None = None,
                 only_configured_tables: bool = False, maintenance: bool = True) -> None:
        self.store = store
        self.history: HistoryStore | None = store if isinstance(store, HistoryStore) else None
        self.read = read or ReadModel(Hub())
        self.hub = self.read.hub
        self.tables = self.read.tables
        self.maintenance: Maintenance | None = None
        self.heap_trim = HeapTrim()
        """Freed memory handed back to the system after maintenance passes (:mod:`web.heap_trim`)."""
        self._on_close: list[Callable[[], object]] = []
        if self.history is not None:
            self.tables.past_for = self.history.past_shoes
            self.read.history = self.history
        self.page_models = page_models
        self.clock = clock
        self.max_tables = max_tables
        self.only_configured_tables = only_configured_tables
        self._create_lock = threading.Lock()
        for table_id, cfg in (tables or {}).items():
            variant_id = cfg.get("variant")
            if variant_id is not None:
                try:
                    get_variant(variant_id)
                except ValueError as e:
                    raise ConfigError(f"{setting_path('ROADS_TABLES', table_id, 'variant')}: {e}") from None
            try:
                self.tables.add_configured(table_id, cfg.get("name"), variant_id, cfg.get("limits"))
            except TableError as e:
                raise ConfigError(f"{setting_path('ROADS_TABLES', table_id, e.field or 'limits')}: {e}") from None
        with gc_tuning.paused():
            self._load()
        self.store.start(self.apply_external)
        if self.history is not None and maintenance:
            # SQLite: the compactor and retention; Redis + PostgreSQL: its mover thread compacts,
            # this runs retention only.
            self.maintenance = Maintenance(self.history, lambda: list(self.tables.slots),
                                           compact=not self.store.shared)
            self.maintenance.add_task(self.heap_trim.maybe)

    def _load(self) -> None:
        started = time.monotonic()
        count = 0
        if self.history is not None:
            for part in self.history.load_live():
                slot = self.tables.slot(part.table)
                try:
                    slot.restore(part, self.history.past_shoes(part.table))
                except ValueError as e:
                    raise StoreUnavailable(f"table {part.table!r} cannot be restored from the store: {e}") from None
                count += len(part.events)
        else:
            for ev in self.store.load():
                self.tables.slot(ev.table).table.apply(ev)
                count += 1
        self.tables.sort_order()
        for t in self.tables.slots.values():
            self.read.refresh(t, publish_lobby=False)
        self.read.publish_lobby()
        log.info("loaded %d %sevents of %d tables in %.2f s", count, "live " if self.history is not None else "",
                 len(self.tables.slots), time.monotonic() - started)

    # ------------------------------------------------------------------ writes
    def write(self, table_id: str, write: Write) -> Ack:
        """Record ``write`` on table ``table_id``; ``Ack.created`` False for a repeat.

        A write that may open a table (``write.creates_table``: a round, a shoe start) creates
        it on its first stored event; the others need a known table. Raises the
        :mod:`roads.errors` error of a refused write (:class:`roads.errors.UnknownTable` for an
        unknown table), :class:`roads.errors.BadTableId` for a table id that is not a slug,
        :class:`roads.errors.TableNotAllowed` (an id outside ``ROADS_TABLES`` when only those
        may be written) or :class:`roads.errors.TooManyTables` (the table would be one more
        than ``ROADS_MAX_TABLES``), and :class:`web.stores.StoreUnavailable` when the store
        cannot be read or written (the HTTP edge maps each, ``web.http.errors``). Nothing
        changes when it raises.
        """
        before = self._seq(table_id)
        try:
            return self._write(table_id, write)
        finally:
            if self._seq(table_id) != before:  # (a catch-up may change a table a refused write named)
                self._changed(table_id, here=True)

    def _seq(self, table_id: str) -> int | None:
        """The version of table ``table_id`` in this process, ``None`` when it knows no such table."""
        t = self.tables.slots.get(table_id)
        return t.table.seq if t is not None else None

    def _write(self, table_id: str, write: Write) -> Ack:
        known = self.tables.slots.get(table_id)
        if self.only_configured_tables and (known is None or not known.configured):
            raise TableNotAllowed(f"table {table_id[:40]!r} is not one of the configured tables (ROADS_TABLES), "
                                  "and only those may be written (ROADS_ONLY_CONFIGURED_TABLES)", field="table_id")
        if known is not None and known.visible:
            with known.lock:
                return self._write_locked(known, write)
        if not write.creates_table:
            return self._write_unknown(table_id, write)
        # This write may create the table: check the limit and create one table at a time.
        self._check_table_id(table_id)
        with self._create_lock:
            self._check_room(table_id)
            with self.tables.locked(table_id) as t:  # dropped again when the write is refused
                return self._write_locked(t, write)

    def _check_room(self, table_id: str) -> None:
        """403 ``too_many_tables`` when table ``table_id`` would be one more than ``max_tables``
        (caller holds ``_create_lock``). Counts the tables this process knows; a store shared by
        processes (Redis) counts every process's tables again in the append itself
        (:class:`web.stores.TableLimitReached`), so the limit holds for all of them together."""
        if self.max_tables is None:
            return
        known = self.tables.slots.get(table_id)
        if known is not None and known.visible:  # created meanwhile (by another process)
            return
        count = self.tables.count()
        if count >= self.max_tables:
            raise _too_many_tables(f"the service already keeps {count} tables", table_id)

    def _write_locked(self, t: TableSlot, write: Write) -> Ack:
        """Decide, append, apply and publish ``write`` on ``t`` (the module docstring's steps;
        the caller holds ``t.lock``)."""
        table_id = t.id
        for _ in range(APPEND_ATTEMPTS):
            try:
                outcome = t.table.decide(write, self.clock)
            except (RecordConflict, NotInRecord):
                # With a shared store (Redis) another process may have stored events this one
                # has not applied yet: judge again after catching up before refusing.
                if not self._catch_up_for_write(t):
                    raise
                outcome = t.table.decide(write, self.clock)
            if isinstance(outcome, Unchanged):
                # The same for "unchanged": a repeat of what this process last saw may be a change
                # of what another process stored since (A stores "result", B still sees "dealing").
                if self.store.shared and self._catch_up_for_write(t):
                    continue
                return Ack(False, ack_body(t, "unchanged", write, outcome.shoe, outcome.round))
            closed = None
            try:
                if self.history is not None:
                    c = t.table.commit(outcome)
                    self.history.commit(c)
                    if c.archive is not None:
                        closed = c.archive.number
                else:
                    self.store.append(outcome)
            except SeqTaken:
                self._catch_up_for_write(t)
                continue
            except TableLimitReached as e:
                raise _too_many_tables(str(e), table_id) from None
            except StoreUnavailable as e:
                raise StoreUnavailable(f"the store cannot take writes now; nothing was recorded ({e})",
                                       detail=e.detail) from None
            new_table = t.table.seq == 0
            t.table.apply(outcome)
            if closed is not None:
                self.read.forget_past(t.id, closed)
                if self.maintenance is not None:
                    self.maintenance.wake((t.id, closed))
            if new_table:
                self.tables.add_to_order(t.id)
            self.read.refresh(t)
            return Ack(True, ack_body(t, "recorded", write, outcome.shoe, outcome.round))
        raise StoreUnavailable(f"table {table_id!r} is being written by other processes; try again")

    @staticmethod
    def _check_table_id(table_id: str) -> None:
        if not is_table_id(table_id):
            raise BadTableId(f"table id {table_id[:40]!r} is not {TABLE_ID_RULE}", field="table_id")

    def _write_unknown(self, table_id: str, write: Write) -> Ack:
        """``write`` (one that cannot create a table) to a table this process does not show:
        another process may have created it, so catch up from the store first. Raises
        :class:`roads.errors.UnknownTable` when the store has no such table (nothing is kept)."""
        if is_table_id(table_id):
            with self.tables.locked(table_id) as t:
                if not t.visible:
                    self._catch_up_for_write(t)
                if t.visible:
                    return self._write_locked(t, write)
        raise UnknownTable(f"no table {table_id!r}", field="table_id")

    def _catch_up_for_write(self, t: TableSlot) -> bool:
        """:meth:`_catch_up` inside a write (caller holds ``t.lock``): True when events of other
        processes were applied. Raises :class:`web.stores.StoreUnavailable` when the store cannot be read."""
        before = t.table.seq
        try:
            self._catch_up(t)
        except StoreUnavailable as e:
            raise StoreUnavailable(f"the store cannot be read now; nothing was recorded ({e})", detail=e.detail) from None
        return t.table.seq != before

    def _catch_up(self, t: TableSlot) -> None:
        """Apply events other processes stored after ours (caller holds ``t.lock``)."""
        events = self.store.events_after(t.id, t.table.seq)
        for ev in events:
            self._apply(t, ev)
        if events:
            self.tables.add_to_order(t.id)
            self.read.refresh(t)

    def apply_external(self, event: Event) -> None:
        """Apply an event another process stored (the store's follower thread calls this).

        Ignores events already applied; catches up from the store when ``event`` skips ahead
        (raising :class:`web.stores.StoreUnavailable` when the store cannot be read then).
        """
        with self.tables.locked(event.table) as t:
            if event.seq <= t.table.seq:
                return
            if event.seq > t.table.seq + 1:
                self._catch_up(t)
            else:
                self._apply(t, event)
                self.tables.add_to_order(t.id)
                self.read.refresh(t)
        self._changed(event.table, here=False)

    def _apply(self, t: TableSlot, event: Event) -> None:
        """Apply an event another process stored (caller holds ``t.lock``); a past shoe it closes
        or changes leaves the past-shoe cache (the other process wrote its document)."""
        changed = changed_shoe(t, event)
        t.table.apply(event)
        if changed is not None:
            self.read.forget_past(t.id, changed)
            if self.maintenance is not None:
                self.maintenance.wake((t.id, changed), housekeeping=False)

    def _changed(self, table_id: str, *, here: bool) -> None:
        """Table ``table_id`` (and so the lobby) changed and its lock is released: rebuild the
        page models of the table in this thread (``here``: a feed write, which answers once they
        are out) or have the worker do it, and the lobby's in the worker."""
        if self.page_models is None:
            return
        self.page_models.changed(topics.LOBBY)
        if here:
            self.page_models.rebuild(topics.table(table_id))
        else:
            self.page_models.changed(topics.table(table_id))

    def on_close(self, fn: Callable[[], object]) -> None:
        """Call ``fn`` at :meth:`close`, after the maintenance thread stopped (a cache to close)."""
        self._on_close.append(fn)

    def close(self) -> None:
        """Stop the maintenance thread, call the :meth:`on_close` callbacks, then close the store."""
        if self.maintenance is not None:
            self.maintenance.stop()
        for fn in self._on_close:
            try:
                fn()
            except Exception:
                log.exception("closing %r failed", fn)
        self.store.close()


def changed_shoe(t: TableSlot, event: Event) -> int | None:
    """The past shoe ``event`` (not applied yet) closes (it opens a newer one: the current shoe)
    or changes (a void or correction of a shoe that is not the current one), or ``None``."""
    cur = t.table.current
    if event.kind == SHOE or (event.kind in (ROUND, CARD) and "opens_shoe" in event.data):
        return cur.number if cur is not None else None
    if event.kind in (VOID, CORRECT) and (cur is None or event.shoe != cur.number):
        return event.shoe
    return None


class Maintenance:
    """The history store's housekeeping off the request path (docs/history.md): a daemon thread
    that runs the compactor (``compact``: SQLite, each table in turn, one shoe per transaction)
    and retention (:meth:`web.stores.HistoryReader.apply_retention`) once at start, after every
    :meth:`wake` (a commit closed a shoe) and at least every :data:`MAINTENANCE_INTERVAL_S`, then
    the tasks of :meth:`add_task` (the day statistics' warming). A failure is logged and retried
    at the next wake; a feed write waits at most for one shoe's transaction (the store's lock is
    released between shoes)."""

    def __init__(self, store: HistoryStore, tables: Callable[[], list[str]], *, compact: bool,
                 interval_s: float = MAINTENANCE_INTERVAL_S) -> None:
        self.store = store
        self.tables = tables
        self.compact = compact
        self.interval_s = interval_s
        self.passes = 0
        """Completed passes (tests wait on it)."""
        self.moved = 0
        """Shoes the compactor moved so far."""
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._idle = threading.Condition()  # guards passes and the pending work below
        self._due = True  # a pass is wanted (the first: at start)
        self._housekeeping = True
        self._running = False
        self._shoes: list[tuple[str, int]] = []
        self._tasks: list[Callable[[list[tuple[str, int]]], object]] = []
        self._thread = threading.Thread(target=self._run, name="roads-maintenance", daemon=True)
        self._thread.start()

    def wake(self, shoe: tuple[str, int] | None = None, *, housekeeping: bool = True) -> None:
        """Run a pass soon (a shoe closed, or a past one changed: ``(table, shoe)``); without
        ``housekeeping`` (another process's close) only the tasks."""
        with self._idle:
            self._due = True
            self._housekeeping = self._housekeeping or housekeeping
            if shoe is not None:
                self._shoes.append(shoe)
        self._wake.set()

    def add_task(self, task: Callable[[list[tuple[str, int]]], object]) -> None:
        """Run ``task(shoes)`` after each pass's housekeeping (and once soon, without it), with the
        ``(table, shoe)`` pairs woken for since the last pass; its failure is logged."""
        with self._idle:
            self._tasks.append(task)
            self._due = True
        self._wake.set()

    def wait_idle(self, passes: int, timeout_s: float = 30.0) -> bool:
        """Wait until at least ``passes`` passes are done; False on timeout (tests)."""
        with self._idle:
            return self._idle.wait_for(lambda: self.passes >= passes, timeout_s)

    def idle(self, timeout_s: float = 30.0) -> bool:
        """Wait until no pass runs nor is due (every wake so far handled); False on timeout (tests)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._stop.is_set() or not (self._due or self._running), timeout_s)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            with self._idle:
                housekeeping, shoes, tasks = self._housekeeping, self._shoes, list(self._tasks)
                self._due = self._housekeeping = False
                self._shoes = []
                self._running = True
            try:
                if housekeeping:
                    self._pass()
            except Exception:  # a full disk, a locked file: try again at the next wake
                log.exception("history maintenance failed; retrying at the next close")
            for task in tasks:
                if self._stop.is_set():
                    break
                try:
                    task(shoes)
                except Exception:
                    log.exception("maintenance task %r failed; it runs again at the next close", task)
            with self._idle:
                self.passes += 1
                self._running = False
                self._idle.notify_all()
            if not self._wake.wait(self.interval_s):
                with self._idle:
                    self._due = self._housekeeping = True

    def _pass(self) -> None:
        if self.compact:
            for table_id in self.tables():
                if self._stop.is_set():
                    return
                self.moved += self.store.compact(table=table_id)
                time.sleep(0)  # let request threads (or greenlets) in between tables
        if not self._stop.is_set():
            self.store.apply_retention()

    def stop(self, timeout_s: float = 10.0) -> None:
        """Stop the thread (it finishes the shoe it is moving) and wait for it."""
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout_s)


def ack_body(t: TableSlot, status: str, write: Write, shoe: int, round_no: int | None = None) -> dict[str, Any]:
    """The response body of a write: ``{"status", "table", "version", "shoe"}`` plus, for a
    round, ``"round"``, its ``"result"`` and ``"void"`` as stored now (``"held"`` for a round held
    for the supervisor), or ``"in_progress"``
    while it is dealt card by card; for a table state, ``{"status", "table", "version",
    "state"}`` (caller holds the lock)."""
    table = t.table
    if isinstance(write, SetState):
        return {"status": status, "table": t.id, "version": table.seq, "state": state_json(table)}
    body: dict[str, Any] = {"status": status, "table": t.id, "version": table.seq, "shoe": shoe}
    if round_no is not None:
        body["round"] = round_no
        s = table.get_shoe(shoe)
        stored = s.round(round_no) if s is not None else None
        if stored is not None:
            body["result"] = None if stored.result is None else stored.result.to_json()
            body["void"] = stored.void_json()
            if stored.held is not None:
                body["held"] = stored.held_json()
        elif s is not None and s.in_progress is not None and s.in_progress.number == round_no:
            body["in_progress"] = s.in_progress.to_json()
    return body


def _too_many_tables(kept: str, table_id: str) -> TooManyTables:
    """The 403 ``too_many_tables`` refusal of table ``table_id``; ``kept`` says how many tables are kept."""
    return TooManyTables(f"{kept}, the most ROADS_MAX_TABLES allows; table {table_id!r} was not created",
                         field="table_id")


# ----------------------------------------------------------------------------- flask glue
def init_app(app: Flask, read: ReadModel, page_models: PageModels | None = None) -> Service:
    """Open the store the settings select, load it into ``read`` by a :class:`Service` that
    tells ``page_models`` of every change, and keep the service in ``app.extensions["roads.service"]``.
    Raises :class:`web.settings.ConfigError` for bad settings."""
    settings = get_settings(app)
    read.past_cache = settings.past_shoe_cache
    store = open_store(settings)
    try:
        service = Service(store, tables={k: v.as_dict() for k, v in settings.tables.items()}, read=read,
                          page_models=page_models, max_tables=settings.max_tables,
                          only_configured_tables=settings.only_configured_tables)
    except BaseException:
        store.close()
        raise
    app.extensions[EXTENSION] = service
    return service


def get_service(app: Flask | None = None) -> Service:
    """The :class:`Service` of ``app`` (default: the current app)."""
    return (app or current_app).extensions[EXTENSION]
