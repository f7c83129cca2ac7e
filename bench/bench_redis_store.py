"""Benchmark of the Redis store (docs/deploy.md). Prints figures; asserts nothing.

    .venv/bin/python bench/bench_redis_store.py [--url redis://127.0.0.1:6379/0] [--events 2000]

Measures, on a Redis on loopback under a fresh key prefix (deleted afterwards):

1. ``RedisStore.append`` (the atomic Lua conditional write): median / p99 ms;
2. ``RedisStore.load`` of those events (what a starting process does): ms;
3. a card-level feed POST through the whole service (in-process test client) over Redis:
   median ms, and, for comparison, the same over the default SQLite store (fsync per write);
4. propagation: from a POST to one service until a second service over the same Redis
   serves the new version (its follower thread applied it): median / p99 ms.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import redis  # noqa: E402

from support.feed import Feed, dealt_rounds, make_app  # noqa: E402
from web.stores.redis import RedisStore  # noqa: E402
from web.service import get_service  # noqa: E402
from web.stores import Event  # noqa: E402


def ms(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", default="redis://127.0.0.1:6379/0")
    ap.add_argument("--events", type=int, default=2000)
    args = ap.parse_args()
    prefix = f"bench-{uuid.uuid4().hex[:8]}:"
    client = redis.Redis.from_url(args.url)
    try:
        client.ping()
    except redis.RedisError as e:
        sys.exit(f"no Redis at {args.url}: {e}")
    try:
        store = RedisStore(args.url, prefix=prefix, timeout_s=2.0, max_tables=500)
        data = {"round": {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}}
        times = []
        for seq in range(1, args.events + 1):
            ev = Event("bench", seq, "round", 1 + (seq - 1) // 80, (seq - 1) % 80 + 1, data, time.time())
            t = time.perf_counter()
            store.append(ev)
            times.append(time.perf_counter() - t)
        print(f"append: median {ms(times, 0.5):.3f} ms, p99 {ms(times, 0.99):.3f} ms ({args.events} events)")
        fresh = RedisStore(args.url, prefix=prefix, timeout_s=2.0, max_tables=500)
        t = time.perf_counter()
        loaded = len(list(fresh.load()))
        print(f"load: {loaded} events in {(time.perf_counter() - t) * 1000:.1f} ms")
        fresh.close()
        store.close()

        rounds = dealt_rounds(80, seed=3)
        with tempfile.TemporaryDirectory() as tmp:
            for label, extra in (("Redis", {"ROADS_REDIS_URL": args.url, "ROADS_REDIS_PREFIX": prefix + "svc:"}),
                                 ("SQLite", {})):
                app = make_app(Path(tmp) / label, **extra)
                feed = Feed(app.test_client())
                times = []
                for n, (p, b) in enumerate(rounds, 1):
                    t = time.perf_counter()
                    assert feed.round(1, n, p, b).status_code == 201
                    times.append(time.perf_counter() - t)
                get_service(app).close()
                print(f"feed POST over {label}: median {ms(times, 0.5):.2f} ms, p99 {ms(times, 0.99):.2f} ms")

            cfg = {"ROADS_REDIS_URL": args.url, "ROADS_REDIS_PREFIX": prefix + "prop:"}
            a, b = make_app(Path(tmp) / "a", **cfg), make_app(Path(tmp) / "b", **cfg)
            feed, service_b = Feed(a.test_client()), get_service(b)
            times = []
            for n, (p, bk) in enumerate(rounds, 1):
                t = time.perf_counter()
                assert feed.round(1, n, p, bk).status_code == 201
                deadline = t + 5
                while time.perf_counter() < deadline:
                    msg = service_b.hub.latest("table:T1")
                    if msg is not None and msg.version >= n:
                        break
                    time.sleep(0.0002)
                times.append(time.perf_counter() - t)
            get_service(a).close()
            service_b.close()
            print(f"POST on A -> served by B: median {ms(times, 0.5):.2f} ms, p99 {ms(times, 0.99):.2f} ms")
    finally:
        keys = list(client.scan_iter(match=prefix + "*", count=1000))
        if keys:
            client.delete(*keys)
        client.close()


if __name__ == "__main__":
    main()
