"""The nchan publisher (web/push/nchan.py) against a stand-in for nchan's publisher location: an HTTP
server on loopback that records every POST (channel, body, time). What is checked: a channel
is posted at most every MIN_POST_INTERVAL_S, the newest version of a burst goes out as one
delta from the version the channel holds, a topic that changes slower than that is never
held back, and the shards of one process split the topics without sharing a channel.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from support.nchan import publisher_stand_in
from web.push.delta import apply as delta_apply
from web.push.frames import FrameCache
from web.push.hub import Hub
from web.push.nchan import MIN_POST_INTERVAL_S, NchanPublisher, NchanPublishers


@pytest.fixture
def nchan_stand_in():
    """``(url, posts)``: posts is a list of ``(channel, frame dict, monotonic time)``."""
    with publisher_stand_in() as stand_in:
        yield stand_in


def doc(version: int) -> dict:
    return {"version": version, "shoe": 1, "tiles": [{"id": f"T{i}", "round": version if i == version % 5 else 0}
                                                        for i in range(5)]}


def test_a_burst_on_one_channel_goes_out_as_one_delta_of_the_newest(nchan_stand_in):
    url, posts = nchan_stand_in
    hub = Hub()
    publisher = NchanPublisher(hub, FrameCache(), url)
    try:
        hub.publish("lobby", 1, json.dumps(doc(1)).encode(), document=doc(1))
        assert publisher.idle(5)
        first = [p for p in posts if p[0] == "lobby"]
        assert [(f["type"], f["version"]) for _, f, _ in first] == [("snapshot", 1)]
        start = time.monotonic()
        for v in range(2, 42):  # 40 versions in about 0.08 s, as 200 tables' writes change the lobby
            hub.publish("lobby", v, json.dumps(doc(v)).encode(), document=doc(v))
            time.sleep(0.002)
        assert publisher.idle(5)
        burst = [(f, t) for ch, f, t in posts if ch == "lobby"][1:]
        assert 1 <= len(burst) <= 2 + (time.monotonic() - start) / MIN_POST_INTERVAL_S
        assert burst[-1][0]["version"] == 41
        times = [first[0][2]] + [t for _, t in burst]
        assert all(b - a >= MIN_POST_INTERVAL_S - 0.02 for a, b in zip(times, times[1:])), times
        held = doc(1)  # what a page holds: each delta applies to the version before it
        for frame, _ in burst:
            assert frame["type"] == "delta"
            held = delta_apply(held, frame["ops"])
        assert held == doc(41)
    finally:
        publisher.close()


def test_a_channel_changed_slower_than_the_interval_is_posted_at_once(nchan_stand_in):
    url, posts = nchan_stand_in
    hub = Hub()
    publisher = NchanPublisher(hub, FrameCache(), url)
    try:
        for v in range(1, 5):
            offered = time.monotonic()
            hub.publish("table:T1", v, json.dumps(doc(v)).encode(), document=doc(v))
            assert publisher.idle(5)
            frames = [(f["version"], t) for ch, f, t in posts if ch == "table:T1"]
            assert frames[-1][0] == v and frames[-1][1] - offered < 0.1, frames
            time.sleep(MIN_POST_INTERVAL_S + 0.05)
    finally:
        publisher.close()


def test_the_shards_of_one_process_split_the_topics(nchan_stand_in):
    url, posts = nchan_stand_in
    hub = Hub()
    publishers = NchanPublishers(hub, FrameCache(), url, connections=3)
    try:
        topics = [f"table:T{i}" for i in range(30)]
        for topic in topics:
            hub.publish(topic, 1, json.dumps(doc(1)).encode(), document=doc(1))
        assert publishers.idle(5)
        owners = {topic: [i for i, p in enumerate(publishers.shards) if p.posts_topic(topic)] for topic in topics}
        assert all(len(o) == 1 for o in owners.values())
        assert len({o[0] for o in owners.values()}) == 3  # every shard has some of them
        # one post per topic, to its own channel: whole documents are fetched from the service
        # (web/http/full_frames.py), never posted to a second channel
        assert sorted(ch for ch, _, _ in posts) == sorted(topics)
        assert publishers.posts == len(posts)
    finally:
        publishers.close()


def test_a_post_nchan_never_answers_is_given_up_and_retried():
    """nchan 1.3.6 never answers a POST it took while reconnecting to a restarted Redis (the
    lab's redis-restart): the publisher must give that POST up (TIMEOUT_S) and post again on a
    new connection, so the channel gets the newest version."""
    listener = socket.create_server(("127.0.0.1", 0))
    posts: list[tuple[str, dict]] = []
    held: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            if not held:  # the first connection: read its POST, answer nothing, keep it open
                held.append(conn)
                continue
            threading.Thread(target=answer, args=(conn,), daemon=True).start()

    def answer(conn: socket.socket) -> None:
        with conn, conn.makefile("rb") as f:
            while True:
                line = f.readline()
                if not line:
                    return
                channel = line.split()[1].decode().rsplit("/", 1)[1]
                length = 0
                while (header := f.readline()) not in (b"\r\n", b""):
                    if header.lower().startswith(b"content-length:"):
                        length = int(header.split(b":")[1])
                posts.append((channel, json.loads(f.read(length))))
                conn.sendall(b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")

    threading.Thread(target=serve, daemon=True).start()
    hub = Hub()
    publisher = NchanPublisher(hub, FrameCache(), f"http://127.0.0.1:{listener.getsockname()[1]}/pub/")
    try:
        hub.publish("table:T1", 1, json.dumps(doc(1)).encode(), document=doc(1))
        hub.publish("table:T1", 2, json.dumps(doc(2)).encode(), document=doc(2))
        assert publisher.idle(20)
        assert publisher.failures == 1 and len(held) == 1  # the unanswered POST, given up once
        assert posts and posts[-1][0] == "table:T1"
        assert (posts[-1][1]["type"], posts[-1][1]["version"]) == ("snapshot", 2)  # the newest, whole
    finally:
        publisher.close()
        listener.close()
        for conn in held:
            conn.close()
