"""A child process for the kill -9 tests of the history store (tests/web/test_history_kill.py).

``python -m support.history_child write DIR SEED TABLES SHOES KILL_IN KILL_AT``: restores every
table of the SQLite store in DIR from its live part and carries on with the deterministic writes
of :func:`support.histories.table_writes` (seed ``SEED + i`` for table ``t<i>``), as the service
will: decide, ``store.commit(table.commit(event))``, apply, and after a commit that closes a shoe
the compactor for that table. Prints ``ack <table> <seq>`` once a commit returned, ``done`` at the
end. ``python -m support.history_child migrate DIR KILL_IN KILL_AT``: opens the store (a version 2
file migrates) and prints ``done``.

``KILL_AT`` > 0: the process sends itself SIGKILL as the ``KILL_AT``-th SQL statement starts
among those counted: ``KILL_IN`` = ``close`` (statements of a commit that closes or changes a past
shoe), ``compact`` (statements of the compactor), ``any`` (every statement).
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import sys

from roads.events import Event
from roads.table import Table
from support.histories import Clock, outcome, table_writes

_counting = {"on": False, "n": 0, "at": 0, "mode": "any"}


def _trace(statement: str) -> None:
    if _counting["mode"] == "any" or _counting["on"]:
        _counting["n"] += 1
        if _counting["n"] == _counting["at"]:
            os.kill(os.getpid(), signal.SIGKILL)


class _window:
    def __init__(self, mode: str) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        _counting["on"] = _counting["mode"] == self.mode

    def __exit__(self, *exc) -> None:
        _counting["on"] = False


def plan(seed: int, table_id: str, shoes: int) -> list[tuple[float, object, int | None]]:
    """The table's writes with their time and the seq of the event each makes (``None``: none),
    from a reference table."""
    rng = random.Random(seed)
    ref = Table(table_id)
    clock = Clock(rng)
    out = []
    for w in table_writes(rng, ref, shoes=shoes):
        at = clock.tick()
        o = outcome(ref, w, at)
        if isinstance(o, Event):
            ref.apply(o)
            out.append((at, w, o.seq))
        else:
            out.append((at, w, None))
    return out


def _connect_traced(*args, **kwargs):
    db = _connect(*args, **kwargs)
    db.set_trace_callback(_trace)
    return db


_connect = sqlite3.connect


def main(argv: list[str]) -> None:
    command, directory = argv[0], argv[1]
    if command == "migrate":
        _counting["mode"], _counting["at"] = argv[2], int(argv[3])
        sqlite3.connect = _connect_traced
        from web.stores import sqlite_history
        sqlite_history.CATCH_UP_BATCH = 60
        from web.stores import SqliteStore
        with _window("any"):
            SqliteStore.in_dir(directory).close()
        print("done", flush=True)
        return
    seed, tables, shoes = int(argv[2]), int(argv[3]), int(argv[4])
    _counting["mode"], _counting["at"] = argv[5], int(argv[6])
    from web.stores import SqliteStore
    store = SqliteStore.in_dir(directory)
    store._db.set_trace_callback(_trace)
    restored = {p.table: Table.restore(p, past=store.past_shoes(p.table)) for p in store.load_live()}
    with _window("compact"):  # what a killed run left, as the service's compactor does at start
        store.compact()
    plans = {f"t{i}": plan(seed + i, f"t{i}", shoes) for i in range(tables)}
    cursors = {t: 0 for t in plans}
    rng = random.Random(f"{seed}:{os.getpid()}")
    while cursors:
        table_id = rng.choice(sorted(cursors))  # tables interleave, as feeds do
        table = restored.setdefault(table_id, Table(table_id, past=store.past_shoes(table_id)))
        at, w, seq = plans[table_id][cursors[table_id]]
        cursors[table_id] += 1
        if cursors[table_id] == len(plans[table_id]):
            del cursors[table_id]
        if seq is None or seq <= table.seq:
            continue
        ev = table.decide(w, lambda: at)
        assert isinstance(ev, Event) and ev.seq == seq, (table_id, w, ev, seq)
        c = table.commit(ev)
        with _window("close" if c.archive is not None else ""):
            store.commit(c)
        print("ack", table_id, ev.seq, flush=True)
        table.apply(ev)
        if c.opens and c.archive is not None:
            with _window("compact"):
                store.compact(table=table_id)
    print("done", flush=True)
    store.close()


if __name__ == "__main__":
    main(sys.argv[1:])
