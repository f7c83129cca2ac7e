"""Several processes with history: Redis is the live stream, PostgreSQL keeps every closed shoe
(docs/history.md, "Several processes"; docs/deploy.md).

:class:`RedisHistoryStore` is the Redis store of the release (:class:`web.stores.redis.RedisStore`:
per-table streams, ``heads``, rounds hashes, the shared log every process follows, the conditional
append) with, per table, what a :class:`web.stores.HistoryStore` needs, and a
:class:`web.stores.postgres.PostgresHistory` for the past. Keys added (``P`` = the prefix):

``P + "t:<table>:head"`` (hash)
    ``seq`` (every stored event up to it is reflected here), ``live_shoe``, ``live_from`` (the seq
    of the event that opened it), ``state`` and ``state_at_open`` (JSON): the table's live part
    with the live shoe's events of its stream (:meth:`RedisHistoryStore.load_live`).
``P + "closed"`` (hash)
    ``"<table>:<shoe>"`` -> ``"<version>:<JSON>"`` (:func:`closed_value`): a shoe closed or changed
    by a commit and not moved to PostgreSQL yet (summary, statistics, document).
``P + "history"`` (string)
    ``"1"`` once the Redis data is in this layout (the release's whole streams are migrated at the
    first start: :meth:`web.stores.redis_mover.Mover.migrate`).
``P + "mover"`` (string, with expiry)
    The lock of the process moving shoes now (only saves work: moving is idempotent).

:meth:`RedisHistoryStore.commit` writes the event with its ``closed`` entry and head fields in one
Lua script (:data:`web.stores.redis_scripts.COMMIT_SCRIPT`): Redis's transaction. The mover
(:mod:`web.stores.redis_mover`) then puts each ``closed`` shoe and its events in PostgreSQL (one
PostgreSQL transaction), and only after that deletes them from Redis: the streams keep the live
shoes and what is not moved yet. A past shoe is read from ``closed`` first (newer, not moved
yet), else from PostgreSQL.

The release's interface (``load``, ``append``, ``events_after``, ``start``) works on the same keys:
an appended event leaves the head hash behind (``seq``) and is caught up by the mover (or by the
next :meth:`~RedisHistoryStore.load_live` or commit of the table); reads of events that were
moved come from PostgreSQL's details.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from typing import Any, Iterable, Iterator, Mapping, Sequence

import redis

from roads.archive import Commit, LivePart, shoe_from_document
from roads.record import ShoeRecord
from web.stores import codec
from web.stores.base import Event, HistoryStore, SeqTaken, ShoeSummary, StoreUnavailable, TableLimitReached
from web.stores.postgres import PostgresHistory, ShoeRow
from web.stores.redis import _CONNECTION_ERRORS, APPEND_ATTEMPTS, LOG_MAXLEN, RedisStore, StoreDiverged, _event_json
from web.stores.redis_mover import Mover
from web.stores.redis_scripts import COMMIT_SCRIPT, LIVE_SCRIPT, closed_value, parse_closed

log = logging.getLogger(__name__)

LAYOUT = "1"
"""Value of the ``history`` key once the Redis data is in this layout."""


def _glob_escape(text: str) -> str:
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


class RedisHistoryStore(RedisStore, HistoryStore):
    """The live stream in Redis and the history in PostgreSQL, shared by every process (module doc).

    ``url``: ``ROADS_REDIS_URL``; ``history``: the PostgreSQL history (``ROADS_HISTORY_URL``), closed
    with this store; ``prefix``, ``timeout_s``: ``ROADS_REDIS_PREFIX``, ``ROADS_REDIS_TIMEOUT_S``;
    ``max_tables`` and ``tables`` (the configured ids): ``ROADS_MAX_TABLES``, ``ROADS_TABLES``;
    ``move_interval_s``: how often the mover thread looks for work besides the commits that close a
    shoe (it starts with :meth:`start`). No I/O until used. Raises
    :class:`web.settings.ConfigError` for a URL redis-py cannot parse.
    """

    def __init__(self, url: str, history: PostgresHistory, *, prefix: str = "roads:", timeout_s: float = 2.0,
                 max_tables: int = 1000, tables: Sequence[str] = (), move_interval_s: float = 10.0) -> None:
        super().__init__(url, prefix=prefix, timeout_s=timeout_s, max_tables=max_tables, configured=tables)
        self.history = history
        self._commit_script = self._db.register_script(COMMIT_SCRIPT)
        self._live_script = self._db.register_script(LIVE_SCRIPT)
        self.closed_key = prefix + "closed"
        self.layout_key = prefix + "history"
        self.mover = Mover(self, interval_s=move_interval_s)

    def __repr__(self) -> str:
        return f"RedisHistoryStore({self._safe_url()!r}, prefix={self.prefix!r}, history={self.history!r})"

    def head_key(self, table: str) -> str:
        """The table's head hash."""
        return f"{self.prefix}t:{table}:head"

    def events_key(self, table: str) -> str:
        """The table's event stream."""
        return self._events_key(table)

    def rounds_key(self, table: str) -> str:
        """The table's rounds hash."""
        return self._rounds_key(table)

    # ------------------------------------------------------------------ start
    def ensure_layout(self) -> None:
        """Migrate Redis data of the release before (whole streams) if needed, or wait while another
        process does (:meth:`web.stores.redis_mover.Mover.migrate`). Raises :class:`StoreUnavailable`."""
        try:
            while self._db.get(self.layout_key) != LAYOUT:
                if not self._db.hlen(self._heads_key):
                    self._db.set(self.layout_key, LAYOUT)
                    return
                if self.mover.migrate():
                    return
                log.warning("another process is migrating the Redis data to the history; waiting")
                time.sleep(1.0)
        except _CONNECTION_ERRORS as e:
            raise self._unavailable("checking the data layout", e) from None

    def load(self) -> Iterator[Event]:
        """The release's full load (every event: PostgreSQL's details and the streams), after the
        layout check (:meth:`ensure_layout`)."""
        self.ensure_layout()
        return super().load()

    def start(self, on_event: Any) -> None:
        """Follow the shared log (:meth:`RedisStore.start`) and start the mover thread."""
        super().start(on_event)
        self.mover.start()

    def close(self) -> None:
        """Stop the mover and the follower, close Redis and PostgreSQL connections."""
        self.mover.stop()
        super().close()
        self.history.close()

    def load_live(self) -> Iterator[LivePart]:
        """Every table's live part, tables in id order, read from Redis only (the layout checked
        first; a table whose head hash lags its stream is caught up). Marks where the follower
        starts. Raises :class:`StoreUnavailable`."""
        self.ensure_layout()
        try:
            tail = self._db.xrevrange(self._log_key, count=1)
            parts = [self.live_part(table) for table in sorted(self._db.hkeys(self._heads_key))]
        except _CONNECTION_ERRORS as e:
            raise self._unavailable("loading the live tables", e) from None
        self._log_id = tail[0][0] if tail else "0-0"
        for p in parts:
            self._note_seen(p.table, p.head)
        return iter(parts)

    def live_part(self, table: str, *, catch_up: bool = True) -> LivePart:
        """``table``'s live part as its head hash stands (caught up first unless ``catch_up`` is false)."""
        head, fields, texts = self._live_script(keys=[self._heads_key, self.head_key(table), self._events_key(table)],
                                                args=[table])
        f = dict(zip(fields[::2], fields[1::2]))
        seq = int(f.get("seq", 0))
        if catch_up and seq < int(head):
            self.mover.catch_up(table)
            return self.live_part(table, catch_up=False)
        live = None if "live_shoe" not in f else int(f["live_shoe"])
        events = [e for e in (Event.from_json(codec.loads(text)) for text in texts) if e.shoe == live]
        state, at_open = f.get("state"), f.get("state_at_open")
        return LivePart(table, seq, None if state is None else json.loads(state), live,
                        None if not at_open else json.loads(at_open), events)

    # ------------------------------------------------------------------ writes
    def commit(self, commit: Commit) -> None:
        """See :meth:`HistoryStore.commit`: one Lua script (module doc). A table whose head hash
        lags (old-interface appends) is caught up and the commit tried again. Raises as
        :meth:`RedisStore.append`."""
        self._commit(commit, uuid.uuid4().hex)

    def commit_many(self, commits: Sequence[Commit]) -> None:
        """:meth:`commit` each in order, in one round trip (a pipeline of scripts; bulk writers).
        Redis has no transaction across scripts that a refusal would roll back: each commit is
        stored or refused on its own, then the first refusal raises as :meth:`commit` would
        (commits of a table whose head hash lags are caught up and stored one by one)."""
        if not commits:
            return
        pipe = self._db.pipeline(transaction=False)
        for c in commits:
            keys, args = self._commit_args(c, uuid.uuid4().hex)
            self._commit_script(keys=keys, args=args, client=pipe)
        try:
            replies = pipe.execute(raise_on_error=False)
        except _CONNECTION_ERRORS as e:
            raise self._unavailable(f"committing {len(commits)} events", e) from None
        refused = []
        for c, reply in zip(commits, replies):
            if isinstance(reply, Exception):
                raise StoreUnavailable(f"the Redis store refused the commit of table {c.event.table!r} seq "
                                       f"{c.event.seq}", detail=f"Redis at {self._safe_url()}: {reply}")
            if reply[0] == "ok":
                self._note_seen(c.event.table, c.event.seq)
            else:
                refused.append(c)
        if any(c.archive is not None for c in commits):
            self.mover.wake()
        for c in refused:  # lagging: caught up and stored; else raises what the status says
            self._commit(c, uuid.uuid4().hex)

    def _commit_args(self, c: Commit, token: str) -> tuple[list[str], list[Any]]:
        ev = c.event
        row = None if c.archive is None else ShoeRow.of(ev.table, c.archive)
        version, value = ("", "") if row is None else closed_value(row)
        keys = [self._heads_key, self._events_key(ev.table), self._rounds_key(ev.table), self._log_key,
                self.head_key(ev.table), self.closed_key]
        args = [ev.table, ev.seq, f"{ev.shoe}:{ev.round}" if ev.kind == "round" else "", _event_json(ev), token,
                LOG_MAXLEN, self.max_tables, ev.shoe, "1" if c.opens else "",
                codec.text(c.status_at_open) if c.opens else "", "" if c.status is None else codec.text(c.status),
                "" if row is None else f"{ev.table}:{row.shoe}", version, value, *self._configured]
        return keys, args

    def _commit(self, c: Commit, token: str, *, caught_up: bool = False) -> None:
        ev = c.event
        keys, args = self._commit_args(c, token)
        deadline = time.monotonic() + 2 * self.timeout_s
        for attempt in range(APPEND_ATTEMPTS):
            try:
                status, number, stored_token = self._commit_script(keys=keys, args=args)
                break
            except _CONNECTION_ERRORS as e:
                if attempt + 1 == APPEND_ATTEMPTS or time.monotonic() >= deadline:
                    raise self._unavailable(f"committing table {ev.table!r} seq {ev.seq}", e) from None
                time.sleep(0.05 * attempt)
            except redis.RedisError as e:
                raise StoreUnavailable(f"the Redis store refused the commit of table {ev.table!r} seq {ev.seq}",
                                       detail=f"Redis at {self._safe_url()}: {e}") from None
        if status == "ok" or (status == "seq_taken" and stored_token == token):
            self._note_seen(ev.table, ev.seq)
            if c.archive is not None:
                self.mover.wake()
            return
        if status == "lagging" and not caught_up:
            self.mover.catch_up(ev.table)
            return self._commit(c, token, caught_up=True)
        if status in ("seq_taken", "lagging"):
            raise SeqTaken(f"table {ev.table!r} seq {ev.seq} is not its next (Redis holds up to seq {number})")
        if status == "too_many_tables":
            raise TableLimitReached(f"the processes sharing this Redis already keep {number} tables", number)
        if status == "round_taken":
            raise SeqTaken(f"table {ev.table!r} shoe {ev.shoe} round {ev.round} is taken (by seq {number})")
        raise StoreDiverged(f"table {ev.table!r}: this process is at seq {ev.seq - 1} but Redis holds only "
                            f"{number} events; Redis lost events (restarted without persistence?)")

    # ------------------------------------------------------------------ the release's interface
    def _range(self, db: redis.Redis, table: str, after: int) -> list[Event]:
        """Events after ``after`` from the stream, and from PostgreSQL's details when the stream
        misses some up to the table's head (moved). The stream is read first: whatever it misses
        was moved, so PostgreSQL has it by then."""
        head = int(db.hget(self._heads_key, table) or 0)
        events = super()._range(db, table, after)
        if not events and head <= after:
            return events
        if events and events[0].seq == after + 1 and events[-1].seq >= head and \
                all(b.seq == a.seq + 1 for a, b in zip(events, events[1:])):
            return events
        merged = {e.seq: e for e in self.history.detail_events(table, after)}
        merged.update((e.seq, e) for e in events)
        return [merged[s] for s in sorted(merged)]

    # ------------------------------------------------------------------ past shoes
    def closed_rows(self, table: str | None = None) -> list[ShoeRow]:
        """The ``closed`` entries (of ``table``, or all), not moved yet."""
        match = "*" if table is None else _glob_escape(table) + ":*"
        try:
            return [parse_closed(f, v) for f, v in self._db.hscan_iter(self.closed_key, match=match, count=1000)]
        except _CONNECTION_ERRORS as e:
            raise self._unavailable("reading closed shoes", e) from None

    def _closed(self, table: str, shoe: int) -> ShoeRow | None:
        try:
            value = self._db.hget(self.closed_key, f"{table}:{shoe}")
        except _CONNECTION_ERRORS as e:
            raise self._unavailable(f"reading table {table!r} shoe {shoe}", e) from None
        return None if value is None else parse_closed(f"{table}:{shoe}", value)

    def past_document(self, table: str, shoe: int) -> dict[str, Any] | None:
        """A past shoe's document: from ``closed`` (not moved yet), else PostgreSQL; or ``None``."""
        row = self._closed(table, shoe)
        return codec.unpack_doc(row.doc) if row is not None else self.history.past_document(table, shoe)

    def past_shoe(self, table: str, shoe: int) -> ShoeRecord | None:
        """See :meth:`HistoryStore.past_shoe` (Redis first, then PostgreSQL)."""
        doc = self.past_document(table, shoe)
        return None if doc is None else shoe_from_document(doc)

    def shoe_numbers(self, table: str) -> list[int]:
        """See :meth:`HistoryStore.shoe_numbers`."""
        pending = {r.shoe for r in self.closed_rows(table)}
        return sorted(pending.union(self.history.shoe_numbers(table)))

    def shoe_summary(self, table: str, shoe: int, *, stats: bool = False) -> ShoeSummary | None:
        """See :meth:`HistoryStore.shoe_summary`."""
        row = self._closed(table, shoe)
        return row.summary(stats) if row is not None else self.history.shoe_summary(table, shoe, stats=stats)

    def shoe_summaries(self, table: str, *, before: int | None = None, limit: int = 50,
                       stats: bool = False) -> list[ShoeSummary]:
        """See :meth:`HistoryStore.shoe_summaries` (PostgreSQL's page with the shoes not moved yet)."""
        pending = {r.shoe: r.summary(stats) for r in self.closed_rows(table) if before is None or r.shoe < before}
        rows = {s.shoe: s for s in self.history.shoe_summaries(table, before=before, limit=limit, stats=stats)}
        rows.update(pending)
        return [rows[n] for n in sorted(rows, reverse=True)[:limit]]

    def shoe_summaries_between(self, start: float, end: float, *, table: str | None = None,
                               stats: bool = True) -> list[ShoeSummary]:
        """See :meth:`HistoryStore.shoe_summaries_between`."""
        pending = {(r.table, r.shoe): r.summary(stats) for r in self.closed_rows(table) if start <= r.started_at < end}
        rows = {(s.table, s.shoe): s for s in self.history.shoe_summaries_between(start, end, table=table, stats=stats)}
        rows.update(pending)
        return [rows[k] for k in sorted(rows)]

    def stream_rounds(self, table: str, shoes: Iterable[int]) -> Iterator[tuple[int, Any]]:
        """See :meth:`HistoryStore.stream_rounds`."""
        for number in shoes:
            s = self.past_shoe(table, number)
            if s is not None:
                for r in s.rounds:
                    yield number, r

    def shoe_detail(self, table: str, shoe: int) -> list[Event] | None:
        """See :meth:`HistoryStore.shoe_detail`: PostgreSQL's detail and the events not moved yet."""
        try:
            live = [e for e in super()._range(self._db, table, 0) if e.shoe == shoe]
        except _CONNECTION_ERRORS as e:
            raise self._unavailable(f"reading table {table!r}", e) from None
        stored = self.history.shoe_detail(table, shoe)
        if stored is None:
            return None
        merged = {e.seq: e for e in stored}
        merged.update((e.seq, e) for e in live)
        return [merged[s] for s in sorted(merged)]

    def apply_retention(self, now: float | None = None) -> int:
        """See :meth:`web.stores.postgres.PostgresHistory.apply_retention`."""
        return self.history.apply_retention(now)

    def compact(self, *, table: str | None = None, limit: int | None = None) -> int:
        """One pass of the mover now, in this thread (:meth:`web.stores.redis_mover.Mover.run_pass`):
        catch up and move every table's closed shoes (or ``table``'s). Returns the shoes moved."""
        return self.mover.run_pass(tables=None if table is None else [table], lock=False)

    def memory(self, table: str) -> Mapping[str, int]:
        """``{key: bytes}`` of ``table``'s keys (``MEMORY USAGE``; figures and tests)."""
        out = {}
        for key in (self._events_key(table), self._rounds_key(table), self.head_key(table)):
            out[key] = int(self._db.memory_usage(key, samples=0) or 0)
        return out
