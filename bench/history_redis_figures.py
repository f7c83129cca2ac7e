"""The several-process figures of bench/bench_history.py (``--redis``): Redis as the live stream with the
PostgreSQL history, beside the release's Redis store (every event in Redis), in the same run as
SQLite's. Prints figures; asserts nothing.

Servers of its own under ``--root``: a ``redis-server`` on a free loopback port without persistence
(its data saved to ``redis/dump.rdb`` once generated and loaded by later runs) and a PostgreSQL
cluster (``pg/``, ``fsync=off``: the mover's commits are off the request path). Data:
``history_gen.generate_redis`` writes ``tables`` x ``days`` table-days (10 tables) under prefix
``h<size>:`` (Redis + PostgreSQL, moved as they closed) and the same events under ``r<size>:`` (the
release's layout: whole streams).

R1. Load (fresh process, median of ``--repeat``): Redis + PostgreSQL = ``load_live`` +
    ``Table.restore`` of every table + its live snapshot; the release = ``RedisStore.load`` of every
    event and a replay of every table + its live snapshot. Seconds, RSS after load, peak RSS.
R2. A past shoe (t005's middle shoe) from PostgreSQL in a fresh process: cold (PostgreSQL restarted,
    its files evicted from the page cache) and warm (read again): record from its document, whole
    API body.
R3. Append per round dealt card by card (~8 events, one script each), alternating blocks: the
    release's ``RedisStore.append`` and ``RedisHistoryStore.commit`` (``Table.commit`` included),
    ms per round (median of blocks) and CPU.
R4. Redis memory per table (``MEMORY USAGE`` of each table's keys, and ``used_memory`` over the
    prefixes), Redis + PostgreSQL vs the release, and PostgreSQL bytes per closed round.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "tests")]

from history_gen import generate_redis, timeline  # noqa: E402
from roads.events import Event  # noqa: E402
from roads.snapshot import build_snapshot  # noqa: E402
from roads.table import Table  # noqa: E402

TABLES = 10


class Servers:
    """The bench's Redis and PostgreSQL under ``root`` (module doc)."""

    def __init__(self, root: Path) -> None:
        from support.postgres import Cluster, pg_bin_dir
        from support.serving import free_port

        self.root = root
        (root / "redis").mkdir(parents=True, exist_ok=True)
        self.redis_port = free_port()
        self.redis_url = f"redis://127.0.0.1:{self.redis_port}/0"
        self.redis = subprocess.Popen(
            [shutil.which("redis-server") or "redis-server", "--bind", "127.0.0.1", "--port", str(self.redis_port),
             "--dir", str(root / "redis"), "--save", "", "--appendonly", "no", "--daemonize", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import redis

        client = redis.Redis.from_url(self.redis_url)
        for _ in range(600):
            try:
                client.ping()
                break
            except redis.RedisError:
                time.sleep(0.1)  # loading the dump
        self.db = client
        self.pg = Cluster(pg_bin_dir(), base=root / "pg")
        self.pg_url = self.pg.url("postgres")

    def database(self, name: str) -> str:
        """The URL of database ``name`` (created when missing)."""
        import psycopg

        with psycopg.connect(self.pg_url, autocommit=True) as conn:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
                conn.execute(f'CREATE DATABASE "{name}"')
        return self.pg.url(name)

    def restart_pg_cold(self) -> None:
        """Restart PostgreSQL and evict its files from the page cache."""
        self.pg.stop()
        for path in self.pg.data.rglob("*"):
            if path.is_file():
                try:
                    fd = os.open(path, os.O_RDONLY)
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                    os.close(fd)
                except OSError:
                    pass
        self.pg.start()

    def close(self) -> None:
        self.db.save()
        self.db.close()
        self.redis.terminate()
        self.redis.wait(timeout=60)
        self.pg.stop()


def dataset(servers: Servers, size: int) -> tuple[str, str, str]:
    """``(prefix, release prefix, database URL)`` of ``size`` table-days (made once)."""
    prefix, release, url = f"h{size}:", f"r{size}:", servers.database(f"h{size}")
    if servers.db.get(f"bench:done:{size}") is None:
        began = time.monotonic()
        t = generate_redis(servers.redis_url, prefix, url, TABLES, size / TABLES, release_prefix=release, quiet=True)
        servers.db.set(f"bench:done:{size}", json.dumps({"events": t.events, "rounds": t.rounds, "shoes": t.shoes}))
        servers.db.save()
        print(f"generated {size} table-days on Redis + PostgreSQL and the release's Redis: {t.rounds} rounds, "
              f"{t.events} events in {time.monotonic() - began:.0f} s")
    return prefix, release, url


# ----------------------------------------------------------------------------- children
def _rss() -> tuple[float, float]:
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def _encode(obj) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


def child_load(kind: str, redis_url: str, prefix: str, pg_url: str) -> None:
    from web.stores.postgres import PostgresHistory
    from web.stores.redis import RedisStore
    from web.stores.redis_history import RedisHistoryStore

    began = time.perf_counter()  # as SQLite's figure: imports before the clock starts
    tables: dict[str, Table] = {}
    if kind == "history":
        store = RedisHistoryStore(redis_url, PostgresHistory(pg_url), prefix=prefix)
        for part in store.load_live():
            tables[part.table] = Table.restore(part, past=store.past_shoes(part.table))
    else:
        store = RedisStore(redis_url, prefix=prefix, timeout_s=2.0, max_tables=1000)
        for ev in store.load():
            t = tables.get(ev.table)
            if t is None:
                t = tables[ev.table] = Table(ev.table)
            t.apply(ev)
    for t in tables.values():
        s = t.current
        _encode(build_snapshot(table=t.id, shoe=s.number, version=t.seq, roads=s.roads, variant=s.variant))
    took = time.perf_counter() - began
    now, peak = _rss()
    print(json.dumps({"s": took, "rss": now, "hwm": peak, "tables": len(tables)}))


def child_past(redis_url: str, prefix: str, pg_url: str) -> None:
    from web.stores.postgres import PostgresHistory
    from web.stores.redis_history import RedisHistoryStore

    store = RedisHistoryStore(redis_url, PostgresHistory(pg_url, pool_size=1), prefix=prefix)
    numbers = store.shoe_numbers("t005")
    n = numbers[len(numbers) // 2]
    out = {}
    for label in ("cold", "warm"):
        began = time.perf_counter()
        s = store.past_shoe("t005", n)
        record = time.perf_counter() - began
        body = _encode(build_snapshot(table="t005", shoe=n, version=s.version, roads=s.replay_roads(), variant=s.variant))
        out[label] = {"record_ms": record * 1000, "api_ms": (time.perf_counter() - began) * 1000, "bytes": len(body)}
    print(json.dumps(out))


def run_child(*args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------- figures
def figures(root: Path, sizes: list[int], repeat: int, blocks: int, rounds_per_block: int) -> None:
    servers = Servers(root / "redis-pg")
    try:
        info = servers.db.info("server")
        print(f"\nSeveral processes: Redis {info['redis_version']} (no persistence) + PostgreSQL "
              f"(fsync off), on loopback / a unix socket")
        for size in sizes:
            dataset(servers, size)
        print("\nR1. load (median of %d fresh processes): seconds / RSS after load MB / peak RSS MB" % repeat)
        for size in sizes:
            prefix, release, url = dataset(servers, size)
            row = []
            for kind, p in (("release Redis", release), ("Redis + PostgreSQL", prefix)):
                runs = [run_child("load", "history" if p == prefix else "release", servers.redis_url, p, url)
                        for _ in range(repeat)]
                med = {k: statistics.median(r[k] for r in runs) for k in ("s", "rss", "hwm")}
                row.append(f"{kind} {med['s']:.2f} s / {med['rss']:.0f} MB / {med['hwm']:.0f} MB")
            print(f"  {size:>4} table-days ({TABLES} tables): " + "; ".join(row))
        past_figures(servers, sizes[-1])
        append_figures(servers, blocks, rounds_per_block)
        memory_figures(servers, sizes)
    finally:
        servers.close()


def past_figures(servers: Servers, size: int) -> None:
    prefix, _, url = dataset(servers, size)
    runs = []
    for _ in range(5):
        servers.restart_pg_cold()
        runs.append(run_child("past", servers.redis_url, prefix, url))
    print(f"\nR2. a past shoe of {size} table-days from PostgreSQL (median of 5 fresh processes, PostgreSQL "
          "restarted and its files evicted before each): record from its document / whole API body")
    for label in ("cold", "warm"):
        rec = statistics.median(r[label]["record_ms"] for r in runs)
        api = statistics.median(r[label]["api_ms"] for r in runs)
        print(f"  {label}: {rec:.2f} ms / {api:.2f} ms ({runs[0][label]['bytes']:,} bytes)")


def append_figures(servers: Servers, blocks: int, rounds_per_block: int) -> None:
    from web.stores.postgres import PostgresHistory
    from web.stores.redis import RedisStore
    from web.stores.redis_history import RedisHistoryStore

    start = time.time()
    tag = int(start)
    release = RedisStore(servers.redis_url, prefix=f"a{tag}r:", timeout_s=2.0, max_tables=100000)
    history = RedisHistoryStore(servers.redis_url, PostgresHistory(servers.database("append")), prefix=f"a{tag}h:",
                                max_tables=100_000)
    history.ensure_layout()
    cases = {"release Redis (append)": (lambda t, ev: release.append(ev), Table("bench")),
             "Redis + PostgreSQL (Table.commit + commit)": (lambda t, ev: history.commit(t.commit(ev)),
                                                            Table("bench", past=history.past_shoes("bench")))}
    feeds = {name: timeline(table.id, 99, start, start + 10**7) for name, (_, table) in cases.items()}
    results = {name: ([], []) for name in cases}
    for _ in range(blocks):
        for name, (write, table) in cases.items():
            wall0, cpu0 = time.perf_counter(), time.process_time()
            done = 0
            while done < rounds_per_block:
                at, w = next(feeds[name])
                ev = table.decide(w, lambda: at)
                if not isinstance(ev, Event):
                    continue
                write(table, ev)
                table.apply(ev)
                done += ev.kind == "round"
            results[name][0].append((time.perf_counter() - wall0) / done * 1000)
            results[name][1].append((time.process_time() - cpu0) / done * 1000)
    print(f"\nR3. append per round dealt card by card (~8 events, one script each), {blocks} alternating blocks of "
          f"{rounds_per_block} rounds: ms per round, median (min-max); CPU")
    for name, (wall, cpu) in results.items():
        print(f"  {name}: {statistics.median(wall):.2f} ({min(wall):.2f}-{max(wall):.2f}); CPU {statistics.median(cpu):.3f} ms")
    moved0 = time.perf_counter()
    moved = history.compact()
    print(f"  the mover afterwards: {moved} shoes in {(time.perf_counter() - moved0) * 1000:.0f} ms")
    for prefix in (f"a{tag}r:", f"a{tag}h:"):
        keys = list(servers.db.scan_iter(match=prefix + "*", count=1000))
        if keys:
            servers.db.delete(*keys)
    release.close()
    history.close()


def memory_figures(servers: Servers, sizes: list[int]) -> None:
    import psycopg

    print("\nR4. Redis memory per table (MEMORY USAGE of its keys, mean over the tables), and PostgreSQL")
    for size in sizes:
        prefix, release, url = dataset(servers, size)
        done = json.loads(servers.db.get(f"bench:done:{size}"))
        row = []
        for label, p in (("release", release), ("Redis + PostgreSQL", prefix)):
            keys = list(servers.db.scan_iter(match=p + "*", count=1000))
            total = sum(int(servers.db.memory_usage(k, samples=0) or 0) for k in keys)
            table_keys = [k for k in keys if b":t:" in k]
            per_table = sum(int(servers.db.memory_usage(k, samples=0) or 0) for k in table_keys) / TABLES
            row.append(f"{label} {per_table / 1024:,.0f} KiB a table ({len(table_keys) / TABLES:.0f} keys), "
                       f"{total / 2**20:,.1f} MiB in all")
        with psycopg.connect(url) as conn:
            pg_bytes = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
            rounds = conn.execute("SELECT COALESCE(SUM(rounds), 0) FROM roads.shoes").fetchone()[0]
        row.append(f"PostgreSQL {pg_bytes / 2**20:,.1f} MiB ({pg_bytes / max(rounds, 1):,.0f} B per closed round, "
                   f"{rounds} rounds, database with its catalog)")
        print(f"  {size:>4} table-days ({done['events']:,} events): " + "; ".join(row))


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "--child":
    {"load": child_load, "past": child_past}[sys.argv[2]](*sys.argv[3:])
