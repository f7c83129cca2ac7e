"""Several ``roads serve`` processes over one Redis (docs/deploy.md), end to end.

Each test runs real service processes on their own loopback ports over a real Redis: the
shared one under a fresh key prefix (deleted afterwards), or, where Redis itself is stopped,
a private ``redis-server`` with ``appendonly yes`` / ``appendfsync always`` on a free port.
Every subprocess is killed in a ``finally``; every wait is bounded; nothing asserts timing.
"""

from __future__ import annotations

import http.client
import threading
import time

import pytest
import websocket

from support.feed import dealt_rounds
from support.redis import SHARED_REDIS_URL, PrivateRedis, Server, shared_prefix
from support.serving import recv_snapshot

pytestmark = [pytest.mark.redis, pytest.mark.slow]

WAIT_S = 20
"""Longest wait for a process or a message (bounded; never a timing assert)."""


@pytest.fixture
def prefix():
    """A fresh key prefix on the shared Redis (skips without Redis); its keys are deleted after."""
    yield from shared_prefix()


@pytest.fixture
def servers(tmp_path):
    """``start(url, prefix)`` -> a running :class:`Server`; every one is SIGKILLed afterwards."""
    started: list[Server] = []

    def start(url: str, prefix: str) -> Server:
        server = Server(tmp_path / f"data{len(started)}", url, prefix)
        started.append(server)
        return server

    yield start
    for server in started:
        server.kill()


def feed_stream(tables=("K1", "K2"), rounds_per_shoe=20, shoes=(1, 2)):
    """Feed messages ``(table, body)`` for ``tables``, interleaved round by round."""
    per_table = {t: [{"shoe": s, "round": n, "player": p, "banker": b}
                     for s in shoes for n, (p, b) in enumerate(dealt_rounds(rounds_per_shoe, seed=s * 11 + i), 1)]
                 for i, t in enumerate(tables)}
    return [(t, per_table[t][k]) for k in range(len(shoes) * rounds_per_shoe) for t in tables]


def by_table(messages):
    out: dict[str, list[dict]] = {}
    for table, body in messages:
        out.setdefault(table, []).append(body)
    return out


def test_a_round_posted_to_one_process_reaches_a_websocket_client_of_the_other(prefix, servers):
    a, b = servers(SHARED_REDIS_URL, prefix), servers(SHARED_REDIS_URL, prefix)
    rounds = dealt_rounds(8, seed=3)
    body = lambda n: {"shoe": 1, "round": n, "player": rounds[n - 1][0], "banker": rounds[n - 1][1]}  # noqa: E731
    assert a.post_round("T1", body(1))[0] == 201
    b.wait_version("T1", 1)
    ws = websocket.create_connection(f"ws://{b.base}/ws/tables/T1", timeout=WAIT_S)
    try:
        first = recv_snapshot(ws)
        assert first["type"] == "snapshot" and first["version"] == 1
        assert a.post_round("T1", body(2))[0] == 201
        pushed = recv_snapshot(ws)
        assert pushed["version"] == 2
        assert pushed["data"] == a.get("/api/tables/T1")[1]  # what B pushes is what A serves
        assert pushed["data"]["round"] == 2
    finally:
        ws.close()
    for n in range(3, 9):  # a few more, alternating the process that takes the feed
        assert (a if n % 2 else b).post_round("T1", body(n))[0] == 201
    a.wait_version("T1", 8)
    b.wait_version("T1", 8)
    assert a.everything() == b.everything()


def test_the_same_round_posted_to_both_processes_at_once_is_stored_once(prefix, servers):
    a, b = servers(SHARED_REDIS_URL, prefix), servers(SHARED_REDIS_URL, prefix)
    rounds = dealt_rounds(20, seed=8)
    statuses: dict[int, list[int]] = {}
    barrier = threading.Barrier(2, timeout=WAIT_S)
    errors: list[BaseException] = []

    def poster(server, index):
        try:
            for n in range(1, 15):  # rounds 1-14: both processes get the same round at once
                barrier.wait()
                p, bk = rounds[n - 1]
                status, _ = server.post_round("T1", {"shoe": 1, "round": n, "player": p, "banker": bk})
                statuses.setdefault(n, []).append(status)
            for n in range(15, 18):  # rounds 15-17: a different round under the same number on each
                barrier.wait()
                p, bk = rounds[n - 1 if index == 0 else n + 2]
                status, _ = server.post_round("T1", {"shoe": 1, "round": n, "player": p, "banker": bk})
                statuses.setdefault(n, []).append(status)
        except BaseException as e:  # reported by the main thread
            errors.append(e)
            barrier.abort()

    threads = [threading.Thread(target=poster, args=(s, i)) for i, s in enumerate((a, b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=WAIT_S * 3)
    assert not errors and not any(t.is_alive() for t in threads)
    assert all(sorted(statuses[n]) == [200, 201] for n in range(1, 15)), statuses
    assert all(sorted(statuses[n]) == [201, 409] for n in range(15, 18)), statuses
    for server in (a, b):
        server.wait_version("T1", 17)
    stored = a.stored_rounds()
    assert [body["round"] for _, body in stored] == list(range(1, 18))  # each number once
    assert [(body["player"], body["banker"]) for _, body in stored[:14]] == [tuple(r) for r in rounds[:14]]
    assert a.everything() == b.everything()


def test_a_process_killed_mid_stream_and_restarted_catches_up_with_no_round_lost_or_doubled(prefix, servers):
    messages = feed_stream()
    a, b = servers(SHARED_REDIS_URL, prefix), servers(SHARED_REDIS_URL, prefix)
    target = {"server": a}
    acked: list[int] = []
    statuses: list[int] = []

    def post(i):
        """Post message ``i`` until acknowledged, failing over to the other process when one dies."""
        table, body = messages[i]
        for _ in range(20):
            server = target["server"]
            try:
                status, _ = server.post_round(table, body)
            except (OSError, http.client.HTTPException, ValueError):
                target["server"] = b if server is a else a
                continue
            assert status in (200, 201), (i, status)
            statuses.append(status)
            acked.append(i)
            return
        raise AssertionError(f"message {i} never acknowledged")

    # 1. the following process (B) is killed while A takes the feed, and comes back
    for i in range(0, 20):
        post(i)
    b.kill()
    for i in range(20, 35):
        post(i)
    b = servers(SHARED_REDIS_URL, prefix)
    for table, bodies in by_table(messages[:35]).items():
        b.wait_version(table, len(bodies))

    # 2. the writing process (A) is killed in the middle of a request; the feed fails over to B
    killer_done = threading.Event()

    def killer():
        deadline = time.monotonic() + WAIT_S
        while len(acked) < 50 and time.monotonic() < deadline:
            time.sleep(0.001)
        a.kill()
        killer_done.set()

    threading.Thread(target=killer, daemon=True).start()
    for i in range(35, len(messages)):
        if i == 65:  # however slow the machine, A dies before the stream ends
            assert killer_done.wait(WAIT_S)
        post(i)
    assert killer_done.wait(WAIT_S)
    assert target["server"] is b  # the feed did fail over
    a = servers(SHARED_REDIS_URL, prefix)

    assert acked == list(range(len(messages)))
    expected = by_table(messages)
    for table, bodies in expected.items():
        a.wait_version(table, len(bodies))
        b.wait_version(table, len(bodies))
    stored = by_table(a.stored_rounds())
    assert stored == expected  # every round, once, in order, and nothing else
    assert statuses.count(200) <= 1  # at most the round in flight when A died was already stored
    assert a.everything() == b.everything()


def test_redis_stopped_and_restarted_during_a_stream_loses_no_acknowledged_round(tmp_path, servers):
    private = PrivateRedis(tmp_path / "redis")
    try:
        a = servers(private.url, "roads:")
        b = servers(private.url, "roads:")
        messages = feed_stream(rounds_per_shoe=15)
        acked: list[int] = []
        refused: list[dict] = []
        outage_reads: list[int] = []

        redis_killed = threading.Event()

        def post_all():
            for i, (table, body) in enumerate(messages):
                if i == 40:  # however slow the machine, Redis goes down before the stream ends
                    redis_killed.wait(WAIT_S)
                deadline = time.monotonic() + WAIT_S
                while True:
                    status, reply = a.post_round(table, body)
                    if status in (200, 201):
                        acked.append(i)
                        break
                    assert status == 503, (i, status, reply)
                    refused.append(reply)
                    assert time.monotonic() < deadline, f"message {i} refused for {WAIT_S} s"
                    time.sleep(0.02)

        poster = threading.Thread(target=post_all, daemon=True)
        poster.start()
        deadline = time.monotonic() + WAIT_S
        while len(acked) < 20 and time.monotonic() < deadline:
            time.sleep(0.001)
        private.kill()
        redis_killed.set()
        acked_before = len(acked)
        deadline = time.monotonic() + WAIT_S
        while not refused and time.monotonic() < deadline:
            time.sleep(0.005)
        for server in (a, b):  # reads keep serving the last known state
            status, tables = server.get("/api/tables")
            outage_reads.append(status)
            assert {t["id"] for t in tables["tables"]} == {"K1", "K2"}
        private.start()
        poster.join(timeout=WAIT_S * 2)
        assert not poster.is_alive()

        assert outage_reads == [200, 200] and acked_before >= 20
        assert refused, "no write was refused while Redis was down"
        err = refused[0]["error"]
        assert err["status"] == 503 and err["code"] == "store_unavailable" and "nothing was recorded" in err["message"]
        assert acked == list(range(len(messages)))
        expected = by_table(messages)
        late = servers(private.url, "roads:")  # a process started after: everything is in Redis
        for server in (a, b, late):
            for table, bodies in expected.items():
                server.wait_version(table, len(bodies))
        assert by_table(late.stored_rounds()) == expected
        assert a.everything() == b.everything() == late.everything()
    finally:
        private.kill()
