"""The mover of :class:`web.stores.redis_history.RedisHistoryStore`: closed shoes from Redis to
PostgreSQL, exactly once (docs/history.md, "Several processes").

Per shoe to move (a ``closed`` entry, or events in the stream of a shoe before the live one):

1. one PostgreSQL transaction (:meth:`web.stores.postgres.PostgresHistory.move_shoe`): the
   summary and document unless PostgreSQL has that version or a newer one, and the shoe's events
   merged into its detail by seq;
2. only after that commit, in Redis: its events deleted from the stream (``XDEL``, then
   ``XTRIM MINID`` below the first entry left) and its rounds from the rounds hash, and its
   ``closed`` entry deleted only if it still holds the moved version (a Lua compare-and-delete:
   a newer edit that came meanwhile stays for the next pass).

A process killed anywhere leaves either step undone, never half of step 1; the next pass of any
process redoes what is left (the merge by seq and the version guard make it idempotent): no gap
(Redis keeps a shoe until PostgreSQL has it) and no double. Only events the head hash reflects
(``seq`` at most its ``seq``) and never the live shoe's are moved.

The catch-up (:meth:`Mover.catch_up`) brings a table's head hash and ``closed`` entries up to its
stream (events appended through the release's interface, the migration of the release's data):
the table is restored from its live part and each later event committed as the service would,
:data:`CATCH_UP_BATCH` events per script, conditional on the head hash's seq (two processes
catching up at once: one wins, the other stops).

Where it runs: a daemon thread per process (:meth:`Mover.start`), woken by each commit that closes
or changes a shoe, else every ``interval_s``; once at start (the migration, when the layout key
is missing); and on demand (:meth:`RedisHistoryStore.compact`). A Redis lock with expiry
(``P + "mover"``) keeps processes from doing the same work at once; correctness does not depend
on it.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from typing import Any, Iterable

from roads.events import Event
from roads.record import ShoeRecord
from roads.table import Table
from web.stores import codec
from web.stores.base import StoreError, StoreUnavailable
from web.stores.postgres import ShoeRow
from web.stores.redis_scripts import CATCH_UP_SCRIPT, FORGET_SCRIPT, LOCK_RELEASE_SCRIPT, LOCK_RENEW_SCRIPT, closed_value

log = logging.getLogger(__name__)

CATCH_UP_BATCH = 2000
"""Events caught up per script (the migration's progress is kept per batch)."""

LOCK_TTL_MS = 30_000
"""Expiry of the mover lock, renewed per table and per batch: a dead mover's lock frees itself."""

READ_BATCH = 1000
"""Stream entries read per ``XRANGE`` by the mover."""

BACKOFF_MAX_S = 60.0
"""Longest wait of the mover thread after a failed pass (Redis or PostgreSQL unreachable)."""


def _chunks(items: list, n: int = 500) -> Iterable[list]:
    for i in range(0, len(items), n):
        yield items[i:i + n]


class _Pending:
    """:class:`roads.archive.PastShoes` of a catch-up: shoes the catch-up closed or changed and has
    not written yet, over the store's reader."""

    def __init__(self, store: Any, table: str) -> None:
        self.store, self.table = store, table
        self.kept: dict[int, ShoeRecord] = {}

    def get(self, number: int) -> ShoeRecord | None:
        s = self.kept.get(number)
        return s if s is not None else self.store.past_shoe(self.table, number)

    def put(self, shoe: ShoeRecord) -> None:
        self.kept[shoe.number] = shoe

    def numbers(self) -> list[int]:
        return sorted(set(self.store.shoe_numbers(self.table)) | set(self.kept))


class Mover:
    """Moves closed shoes of ``store`` (a :class:`web.stores.redis_history.RedisHistoryStore`, which
    makes its mover) to its PostgreSQL history (module doc); ``interval_s``: the thread's pass
    period when no commit wakes it."""

    def __init__(self, store: Any, *, interval_s: float = 10.0) -> None:
        self.store = store
        self.interval_s = interval_s
        self.lock_key = store.prefix + "mover"
        self._token = uuid.uuid4().hex
        db = store.db
        self._catch_up_script = db.register_script(CATCH_UP_SCRIPT)
        self._forget_script = db.register_script(FORGET_SCRIPT)
        self._renew_script = db.register_script(LOCK_RENEW_SCRIPT)
        self._release_script = db.register_script(LOCK_RELEASE_SCRIPT)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._catch_lock = threading.Lock()
        self._tables: dict[str, tuple[Table, _Pending]] = {}
        self._broken: set[str] = set()
        self.moved = 0
        """Shoes this process moved."""
        self.last_error: str | None = None
        """Why the last pass failed (``None`` after a good one)."""

    # ------------------------------------------------------------------ thread
    def start(self) -> None:
        """Start the daemon thread (a first pass at once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name=f"roads-mover {self.store.prefix}", daemon=True)
            self._thread.start()

    def wake(self) -> None:
        """Ask the thread for a pass now (a commit closed or changed a shoe)."""
        self._wake.set()

    def stop(self) -> None:
        """Stop the thread (after the shoe it is moving)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=30)

    def _loop(self) -> None:
        wait = 0.0
        while not self._stop.is_set():
            self._wake.wait(wait)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self.run_pass()
                if self.last_error is not None:
                    log.warning("mover: working again")
                self.last_error = None
                wait = self.interval_s
            except Exception as e:  # noqa: BLE001 - Redis or PostgreSQL down, a bug: log and retry later
                if self._stop.is_set():
                    return
                if self.last_error is None:
                    log.warning("mover: pass failed (%s); retrying with backoff", getattr(e, "detail", None) or e,
                                exc_info=not isinstance(e, StoreUnavailable))
                self.last_error = str(e)
                wait = min(max(wait * 2, 1.0), BACKOFF_MAX_S)

    # ------------------------------------------------------------------ lock
    def _acquire(self) -> bool:
        return bool(self.store.db.set(self.lock_key, self._token, nx=True, px=LOCK_TTL_MS))

    def _renew(self) -> bool:
        return bool(self._renew_script(keys=[self.lock_key], args=[self._token, LOCK_TTL_MS]))

    def _release(self) -> None:
        try:
            self._release_script(keys=[self.lock_key], args=[self._token])
        except Exception:  # noqa: BLE001 - it expires by itself
            pass

    # ------------------------------------------------------------------ passes
    def run_pass(self, tables: list[str] | None = None, *, lock: bool = True) -> int:
        """Catch up and move every table with work (or ``tables``), under the mover lock unless
        ``lock`` is false (a pass whose lock another process holds does nothing). Returns the
        shoes moved. Raises :class:`StoreUnavailable` and redis-py's connection errors."""
        if lock and not self._acquire():
            return 0
        try:
            moved = 0
            for table in self.tables_with_work(tables):
                if self._stop.is_set() or (lock and not self._renew()):
                    break
                try:
                    self.catch_up(table)
                except StoreError as e:
                    if table not in self._broken:
                        log.error("mover: %s; its shoes stay in Redis", e)
                    self._broken.add(table)
                    continue
                self._broken.discard(table)
                moved += self.move_table(table)
            return moved
        finally:
            if lock:
                self._release()

    def tables_with_work(self, tables: list[str] | None = None) -> list[str]:
        """Tables whose head hash lags their stream, with ``closed`` entries, or with events
        before the live shoe's opening in their stream."""
        db, s = self.store.db, self.store
        if tables is None:
            tables = sorted(db.hkeys(s._heads_key))
        pending = {field.rpartition(":")[0] for field in db.hkeys(s.closed_key)}
        pipe = db.pipeline(transaction=False)
        for table in tables:
            pipe.hget(s._heads_key, table)
            pipe.hmget(s.head_key(table), "seq", "live_from")
            pipe.xrange(s.events_key(table), count=1)
        replies = pipe.execute()
        out = []
        for i, table in enumerate(tables):
            head, (seq, live_from), first = replies[3 * i:3 * i + 3]
            first_seq = int(first[0][0].partition("-")[0]) if first else None
            if int(head or 0) > int(seq or 0) or table in pending or \
                    (first_seq is not None and live_from is not None and first_seq < int(live_from)):
                out.append(table)
        return out

    def migrate(self) -> bool:
        """Bring Redis data of the release before (whole streams, no head hashes) to this layout,
        under the mover lock: table by table, catch up :data:`CATCH_UP_BATCH` events and move what
        they closed, then set the layout key. Resumable after a kill at any point. Returns False
        (nothing done) while another process holds the lock."""
        db, s = self.store.db, self.store
        if not self._acquire():
            return False
        try:
            tables = sorted(db.hkeys(s._heads_key))
            began = time.monotonic()
            log.info("migrating the Redis data of %d tables: closed shoes to the history database", len(tables))
            moved = 0
            for i, table in enumerate(tables, 1):
                try:
                    n = self.catch_up(table, move=True)
                except StoreError as e:
                    log.error("%s; its shoes stay in Redis (the release's interface still reads them)", e)
                    continue
                moved += self.move_table(table)
                log.info("table %r migrated (%d events caught up; %d of %d tables)", table, n, i, len(tables))
            db.set(s.layout_key, "1")
            log.info("Redis data migrated in %.1f s", time.monotonic() - began)
            return True
        finally:
            self._release()

    # ------------------------------------------------------------------ catch-up
    def catch_up(self, table: str, *, move: bool = False) -> int:
        """Bring ``table``'s head hash and ``closed`` entries up to its stream (module doc); with
        ``move``, move what each batch closed before the next (the migration). Returns the events
        caught up. Raises :class:`StoreError` for events that do not fit the record."""
        with self._catch_lock:
            return self._catch_up(table, move)

    def _catch_up(self, table: str, move: bool) -> int:
        s = self.store
        db = s.db
        seq = int(db.hget(s.head_key(table), "seq") or 0)
        if int(db.hget(s._heads_key, table) or 0) <= seq:
            return 0
        cached = self._tables.pop(table, None)
        if cached is not None and cached[0].seq == seq:
            t, past = cached
        else:
            past = _Pending(s, table)
            try:
                t = Table.restore(s.live_part(table, catch_up=False), past=past)
            except ValueError as e:
                raise StoreError(f"table {table!r}: its live part does not fit its record: {e}") from None
        done = 0
        while not self._stop.is_set():
            entries = db.xrange(s.events_key(table), min=f"{t.seq + 1}-0", max="+", count=CATCH_UP_BATCH)
            events = [Event.from_json(json.loads(f["e"])) for _, f in entries]
            if not events or events[0].seq != t.seq + 1:
                break  # nothing more (or another process caught up and its mover moved them)
            first = t.seq
            closed: dict[int, ShoeRow] = {}
            opened, state = ("", "", ""), ""
            for ev in events:
                if ev.seq != t.seq + 1:
                    break
                try:
                    c = t.commit(ev)
                    t.apply(ev)
                except ValueError as e:
                    raise StoreError(f"table {table!r} event {ev.seq} does not fit its record: {e}") from None
                if c.archive is not None:
                    closed[c.archive.number] = ShoeRow.of(table, c.archive)
                if c.opens:
                    opened = (str(ev.shoe), str(ev.seq), codec.text(c.status_at_open))
                if c.status is not None:
                    state = codec.text(c.status)
            triples = []
            for row in closed.values():
                version, value = closed_value(row)
                triples += [f"{table}:{row.shoe}", version, value]
            status, _ = self._catch_up_script(keys=[s.head_key(table), s.closed_key],
                                              args=[first, t.seq, *opened, state, *triples])
            if status != "ok":
                return done  # another process caught up first: its state is the one
            past.kept.clear()
            done += t.seq - first
            if move:
                self._renew()
                self.move_table(table)
        self._tables[table] = (t, past)
        return done

    # ------------------------------------------------------------------ moving
    def _read(self, table: str, low: str, high: str) -> list[Event]:
        key, db, out = self.store.events_key(table), self.store.db, []
        while True:
            entries = db.xrange(key, min=low, max=high, count=READ_BATCH)
            out += [Event.from_json(json.loads(f["e"])) for _, f in entries]
            if len(entries) < READ_BATCH:
                return out
            low = f"{out[-1].seq + 1}-0"

    def move_table(self, table: str) -> int:
        """Move ``table``'s closed shoes (module doc). Returns the shoes moved."""
        s = self.store
        rows = {r.shoe: r for r in s.closed_rows(table)}  # read before the head: each row's events are <= its seq
        seq, live, live_from = s.db.hmget(s.head_key(table), "seq", "live_shoe", "live_from")
        if live is None:
            return 0
        seq, live, live_from = int(seq), int(live), int(live_from)
        events = self._read(table, "-", f"{live_from - 1}-0") if live_from > 1 else []
        if any(r.version >= live_from for r in rows.values()):  # edits of past shoes after the live one opened
            events += [e for e in self._read(table, f"{live_from}-0", f"{seq}-0") if e.shoe < live]
        by_shoe: dict[int, list[Event]] = {}
        for e in events:
            by_shoe.setdefault(e.shoe, []).append(e)
        moved = 0
        for shoe in sorted(set(rows) | set(by_shoe)):
            row, evs = rows.get(shoe), by_shoe.get(shoe, [])
            s.history.move_shoe(table, shoe, row, evs)
            self._forget(table, shoe, row, evs)
            moved += 1
        self.moved += moved
        return moved

    def _forget(self, table: str, shoe: int, row: ShoeRow | None, events: list[Event]) -> None:
        """Step 2 (module doc), after the PostgreSQL commit."""
        s = self.store
        pipe = s.db.pipeline(transaction=False)
        for ids in _chunks([f"{e.seq}-0" for e in events]):
            pipe.xdel(s.events_key(table), *ids)
        for fields in _chunks([f"{shoe}:{e.round}" for e in events if e.kind == "round"]):
            pipe.hdel(s.rounds_key(table), *fields)
        pipe.execute()
        self._forget_script(keys=[s.closed_key, s.events_key(table)],
                            args=["" if row is None else f"{table}:{shoe}", 0 if row is None else row.version])
