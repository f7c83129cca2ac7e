"""A child process for the kill -9 tests of Redis with the PostgreSQL history
(tests/web/test_redis_history_kill.py).

``python -m support.redis_history_child write REDIS_URL PREFIX PG_URL SEED TABLES SHOES KILL_IN KILL_AT``:
opens :class:`web.stores.redis_history.RedisHistoryStore`, restores every table from its live part
(the layout checked first, as a starting process), runs the mover once (what a killed run left),
and carries on with the deterministic writes of :func:`support.history_child.plan` (seed
``SEED + i`` for table ``t<i>``) as the service will: decide, ``store.commit(table.commit(event))``,
apply, and after a commit that closes or changes a shoe the mover for that table. Prints
``ack <table> <seq>`` once a commit returned, ``done`` at the end.

``python -m support.redis_history_child migrate REDIS_URL PREFIX PG_URL KILL_IN KILL_AT``: opens the
store and loads the live parts (Redis data of the release migrates), prints ``done``.

``KILL_AT`` > 0: the process SIGKILLs itself at the ``KILL_AT``-th statement among those counted
(a Redis command or pipeline, a PostgreSQL statement or commit): before it is sent when ``KILL_AT``
is even, after its reply when odd. ``KILL_IN``: ``close`` (the commits that close or change a
shoe), ``move`` (the mover), ``any`` (every statement).
"""

from __future__ import annotations

import os
import random
import signal
import sys

_counting = {"on": False, "n": 0, "at": 0, "mode": "any"}


def _counted(call):
    def wrapper(*args, **kwargs):
        counting = _counting["mode"] == "any" or _counting["on"]
        if counting:
            _counting["n"] += 1
            if _counting["n"] == _counting["at"] and _counting["at"] % 2 == 0:
                os.kill(os.getpid(), signal.SIGKILL)
        out = call(*args, **kwargs)
        if counting and _counting["n"] == _counting["at"]:
            os.kill(os.getpid(), signal.SIGKILL)
        return out
    return wrapper


def _instrument() -> None:
    import psycopg
    import redis.client

    redis.client.Redis.execute_command = _counted(redis.client.Redis.execute_command)
    redis.client.Pipeline.execute = _counted(redis.client.Pipeline.execute)
    psycopg.Connection.execute = _counted(psycopg.Connection.execute)
    psycopg.Connection.commit = _counted(psycopg.Connection.commit)


class _window:
    def __init__(self, mode: str) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        _counting["on"] = _counting["mode"] == self.mode

    def __exit__(self, *exc) -> None:
        _counting["on"] = False


def open_store(redis_url: str, prefix: str, pg_url: str):
    from web.stores.postgres import PostgresHistory
    from web.stores.redis_history import RedisHistoryStore

    return RedisHistoryStore(redis_url, PostgresHistory(pg_url, pool_size=2), prefix=prefix)


def main(argv: list[str]) -> None:
    command, redis_url, prefix, pg_url = argv[:4]
    if command == "migrate":
        _counting["mode"], _counting["at"] = argv[4], int(argv[5])
        _instrument()
        from web.stores import redis_mover
        redis_mover.CATCH_UP_BATCH = 40
        redis_mover.LOCK_TTL_MS = 1500  # a killed migrator's lock frees itself soon
        with _window("any"):
            store = open_store(redis_url, prefix, pg_url)
            list(store.load_live())
        print("done", _counting["n"], flush=True)
        return
    seed, tables, shoes = int(argv[4]), int(argv[5]), int(argv[6])
    _counting["mode"], _counting["at"] = argv[7], int(argv[8])
    _instrument()
    from roads.events import Event
    from roads.table import Table
    from support.history_child import plan

    store = open_store(redis_url, prefix, pg_url)
    restored = {p.table: Table.restore(p, past=store.past_shoes(p.table)) for p in store.load_live()}
    with _window("move"):
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
        if c.archive is not None:
            with _window("move"):
                store.compact(table=table_id)
    print("done", _counting["n"], flush=True)
    store.close()


if __name__ == "__main__":
    main(sys.argv[1:])
