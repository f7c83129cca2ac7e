"""Copy one table's Redis + PostgreSQL data under many table ids (``bench/bench_service_history.py
--big --redis``): the several-process counterpart of that script's ``clone_store`` (SQLite).

The template is one table written by :func:`history_gen.generate_redis` (the feed's path: every
write through ``decide``/``commit``/``apply``, ``RedisHistoryStore.commit_many``, the mover putting
each closed shoe in PostgreSQL after its close). Its data is copied under ids ``c001``...
(``copies`` of them), every stored byte as the feed path would have stored it for that id:

PostgreSQL (:func:`clone_history`): a new database whose schema is made by
:class:`web.stores.postgres.PostgresHistory` (as the service makes it); the template table's rows of
every ``roads`` table that has a ``table_id`` column (``shoes``, ``shoe_docs``, ``shoe_details``;
checked, so a new one is not missed) are copied into temporary tables (``COPY`` binary from the
template's database) and inserted with ``INSERT ... SELECT`` under each id, every other column as
it is (no line, statistics, document or detail embeds the table id: the detail's events carry it
in the row, :mod:`web.stores.codec`). Rows go in shoe by shoe, the tables interleaved (ordered by
shoe, then id), as 200 tables closing shoes side by side would have written them; then ``VACUUM
ANALYZE`` (what autovacuum does to a month-old database).

Redis (:func:`clone_redis`), per id: the head hash and the rounds hash (no value names the table)
by ``DUMP``/``RESTORE``; the event stream (the live shoe's events, the rest moved) entry by entry
under the same entry ids, each ``e`` value (the event JSON, which carries ``"table"``) decoded and
encoded again with the id changed (``web.stores.redis._event_json``, the encoding the commit
script was given; re-encoding the template's own event gives its bytes back, checked), the write
token ``w`` as it is, and the stream's counters (``XSETID``: last id, entries added, largest
deleted id) as the template's; its field in ``heads``; ``closed`` entries (shoes not moved yet:
none once the generator's mover ran) under ``"<id>:<shoe>"``. The shared ``log`` (every event of
every table, trimmed to about ``LOG_MAXLEN`` entries) is rebuilt as 200 tables dealing the same
games at the same times would have left it: the template's last ``LOG_MAXLEN // copies`` events,
each under every id, in (time, seq, id) order, each entry's ``p`` the id of the entry before it.
"""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Any

import psycopg
from psycopg import sql

from roads.events import Event
from web.stores.postgres import PostgresHistory
from web.stores.redis import LOG_MAXLEN, _event_json


def clone_ids(copies: int) -> list[str]:
    """``c001``, ``c002``... (the ids of ``bench_service_history.clone_store`` too)."""
    return [f"c{k + 1:03d}" for k in range(copies)]


def _columns(conn: psycopg.Connection, table: str) -> list[str]:
    return [r[0] for r in conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'roads' AND table_name = %s "
        "ORDER BY ordinal_position", (table,))]


def id_tables(conn: psycopg.Connection) -> list[str]:
    """The ``roads`` tables with a ``table_id`` column."""
    return [r[0] for r in conn.execute(
        "SELECT table_name FROM information_schema.columns WHERE table_schema = 'roads' AND column_name = 'table_id' "
        "ORDER BY table_name")]


def clone_history(src_url: str, table: str, dst_url: str, copies: int, *, chunk: int = 25) -> dict[str, int]:
    """The template ``table``'s PostgreSQL rows (database ``src_url``) under ``copies`` ids in the
    empty database ``dst_url`` (module doc). Returns rows per table inserted."""
    PostgresHistory(dst_url, pool_size=1).close()  # the schema, as the service creates it
    ids = clone_ids(copies)
    inserted: dict[str, int] = {}
    with psycopg.connect(src_url) as src, psycopg.connect(dst_url, autocommit=True) as dst:
        tables = id_tables(dst)
        assert tables == ["shoe_details", "shoe_docs", "shoes"], f"tables with a table_id: {tables}"
        assert id_tables(src) == tables
        for t in tables:
            dst.execute(sql.SQL("CREATE TEMP TABLE {} (LIKE roads.{})").format(sql.Identifier(f"tmpl_{t}"),
                                                                               sql.Identifier(t)))
            with src.cursor().copy(sql.SQL("COPY (SELECT * FROM roads.{} WHERE table_id = {}) TO STDOUT (FORMAT BINARY)")
                                   .format(sql.Identifier(t), sql.Literal(table))) as out, \
                    dst.cursor().copy(sql.SQL("COPY {} FROM STDIN (FORMAT BINARY)").format(sql.Identifier(f"tmpl_{t}"))) as into:
                for data in out:
                    into.write(data)
        dst.execute("CREATE TEMP TABLE clone_ids (id text NOT NULL)")
        with dst.cursor().copy("COPY clone_ids (id) FROM STDIN") as into:
            for i in ids:
                into.write_row((i,))
        shoes = [r[0] for r in dst.execute("SELECT DISTINCT shoe FROM tmpl_shoe_details UNION "
                                           "SELECT DISTINCT shoe FROM tmpl_shoes ORDER BY 1")]
        order = ["shoes", "shoe_docs", "shoe_details"]  # as the mover writes one shoe
        began = time.monotonic()
        for k in range(0, len(shoes), chunk):
            lo, hi = shoes[k], shoes[min(k + chunk, len(shoes)) - 1]
            with dst.transaction():
                for t in order:
                    cols = _columns(dst, t)
                    select = sql.SQL(", ").join(sql.SQL("i.id") if c == "table_id" else sql.SQL("s.{}").format(sql.Identifier(c))
                                                for c in cols)
                    cur = dst.execute(sql.SQL("INSERT INTO roads.{} ({}) SELECT {} FROM {} s CROSS JOIN clone_ids i "
                                              "WHERE s.shoe BETWEEN %s AND %s ORDER BY s.shoe, i.id").format(
                        sql.Identifier(t), sql.SQL(", ").join(map(sql.Identifier, cols)), select,
                        sql.Identifier(f"tmpl_{t}")), (lo, hi))
                    inserted[t] = inserted.get(t, 0) + cur.rowcount
            print(f"  PostgreSQL: shoes {lo}-{hi} of {shoes[-1]} under {copies} ids "
                  f"({time.monotonic() - began:.0f} s)", flush=True)
        for t in order:
            dst.execute(sql.SQL("VACUUM ANALYZE roads.{}").format(sql.Identifier(t)))
    return inserted


def check_history(src_url: str, table: str, dst_url: str, ids: list[str]) -> list[str]:
    """Problems (none = equal): each of ``ids``' rows in ``dst_url`` equal to the template's in
    ``src_url``, every column but ``table_id`` (bytes and numbers compared exactly)."""
    problems = []
    with psycopg.connect(src_url) as src, psycopg.connect(dst_url) as dst:
        for t in id_tables(dst):
            cols = [c for c in _columns(dst, t) if c != "table_id"]
            q = sql.SQL("SELECT {} FROM roads.{} WHERE table_id = %s ORDER BY shoe").format(
                sql.SQL(", ").join(map(sql.Identifier, cols)), sql.Identifier(t))
            want = src.execute(q, (table,)).fetchall()
            for i in ids:
                got = dst.execute(q, (i,)).fetchall()
                if got != want:
                    problems.append(f"{t} {i}: {len(got)} rows differ from the template's {len(want)}")
    return problems


def clone_redis(db: Any, src_prefix: str, table: str, dst_prefix: str, copies: int) -> dict[str, int]:
    """The template ``table``'s Redis keys under ``src_prefix`` copied under ``copies`` ids and
    ``dst_prefix`` (module doc). ``db``: a redis-py client without ``decode_responses``. Returns
    counts (stream entries a table, log entries)."""
    ids = clone_ids(copies)
    if any(True for _ in db.scan_iter(match=dst_prefix + "*", count=1000)):
        raise SystemExit(f"Redis already holds keys under {dst_prefix!r}")
    events_key, rounds_key, head_key = (f"{src_prefix}t:{table}:{k}".encode() for k in ("events", "rounds", "head"))
    head_seq = db.hget(src_prefix + "heads", table)
    entries = db.xrange(events_key)
    info = db.xinfo_stream(events_key)
    rounds, head = db.dump(rounds_key), db.dump(head_key)
    closed = [(f, v) for f, v in db.hscan_iter(src_prefix + "closed", match=f"{table}:*".encode(), count=1000)]
    assert db.get(src_prefix + "history") == b"1"

    def event_of(raw: bytes) -> Event:
        ev = Event.from_json(json.loads(raw))
        assert _event_json(ev).encode() == raw, raw  # the template's bytes come back
        assert ev.table == table
        return ev

    events = [(entry_id, event_of(f[b"e"]), f[b"w"]) for entry_id, f in entries]
    for entry_id, f in entries:
        assert list(f) == [b"e", b"w"], f
    for i in ids:
        pipe = db.pipeline(transaction=False)
        for name, dump in (("rounds", rounds), ("head", head)):
            if dump is not None:  # no rounds hash while the live shoe has no round yet
                pipe.restore(f"{dst_prefix}t:{i}:{name}", 0, dump)
        stream = f"{dst_prefix}t:{i}:events"
        for entry_id, ev, token in events:
            pipe.xadd(stream, {"e": _event_json(dataclasses.replace(ev, table=i)), "w": token}, id=entry_id)
        pipe.execute_command("XSETID", stream, info["last-generated-id"], "ENTRIESADDED", info["entries-added"],
                             "MAXDELETEDID", info["max-deleted-entry-id"])
        pipe.hset(dst_prefix + "heads", i, head_seq)
        for field, value in closed:
            pipe.hset(dst_prefix + "closed", i.encode() + field[len(table):], value)
        pipe.execute()
    db.set(dst_prefix + "history", b"1")
    per = LOG_MAXLEN // copies
    tail = [event_of(f[b"e"]) for _, f in reversed(db.xrevrange(src_prefix + "log", count=per))]
    rows = sorted(((ev.at, ev.seq, i, ev) for ev in tail for i in ids), key=lambda r: r[:3])
    base_ms, prev = int(time.time() * 1000), "0-0"
    log_key = dst_prefix + "log"
    pipe = db.pipeline(transaction=False)
    for n, (_, _, i, ev) in enumerate(rows):
        entry_id = f"{base_ms}-{n}"
        pipe.xadd(log_key, {"e": _event_json(dataclasses.replace(ev, table=i)), "p": prev}, id=entry_id,
                  maxlen=LOG_MAXLEN, approximate=True)
        prev = entry_id
        if len(pipe) >= 5000:
            pipe.execute()
    pipe.execute()
    return {"stream_entries": len(events), "log_entries": len(rows), "closed": len(closed)}
