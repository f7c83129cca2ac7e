"""The page's gap handling (``RoadsDelta.Tracker`` in static/js/delta.js) under Node, with a stand-in
``fetch``: a gap fetches the full frame once with ``since=<newest version seen>``; a frame of
another topic is never applied (the page reconnects); a frame marked ``"posted": false`` is
shown but no delta is applied onto it; a snapshot held during the fetch that is older than the
fetched frame is dropped. Documents are tiny hand-written objects; every expected value is
worked by hand from the frames fed in.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

DELTA_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "delta.js"

SCRIPT = r"""
require(process.argv[1]);
const steps = JSON.parse(require("fs").readFileSync(0, "utf8"));
const wait = (ms) => new Promise((r) => setTimeout(r, ms));
(async () => {
  const answers = steps.answers.slice(), urls = [], shown = [], events = [];
  globalThis.fetch = (url) => {
    urls.push(url);
    const frame = answers.shift();
    return Promise.resolve({ ok: true, status: 200, json: () => Promise.resolve(frame) });
  };
  const tracker = new RoadsDelta.Tracker({
    initial: steps.initial, fullUrl: "/push/full/models/tables/T1?lang=en&orient=landscape",
    emit: (m) => shown.push([m.version, m.data]), reconnect: () => events.push("reconnect"),
  });
  for (const msg of steps.frames) {
    if (msg.wait) { await wait(msg.wait); continue; }
    const out = tracker.receive(msg);
    if (out && out.data) shown.push([out.version, out.data]);
  }
  await wait(700);
  console.log(JSON.stringify({ urls, shown, events, version: tracker.version, doc: tracker.doc,
                               resyncs: tracker.resyncs }));
})();
"""

TOPIC = "model:00112233aabbccdd"


def run(steps: dict) -> dict:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("ROADS_TEST_REQUIRE_NODE") == "1":
            pytest.fail("node is required (ROADS_TEST_REQUIRE_NODE=1)")
        pytest.skip("node is not installed")
    done = subprocess.run([node, "-e", SCRIPT, str(DELTA_JS)], input=json.dumps(steps), capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def snapshot(version: int, data: dict, **extra) -> dict:
    return {"type": "snapshot", "topic": TOPIC, "version": version, "data": data, **extra}


def delta(base: int, version: int, ops: list) -> dict:
    return {"type": "delta", "topic": TOPIC, "base": base, "version": version, "ops": ops}


def test_a_gap_fetches_the_full_frame_once_with_the_newest_version_seen_then_deltas_go_on():
    out = run({
        "initial": {"version": 5, "data": {"round": 5}},
        "frames": [delta(5, 6, [["m", [], {"round": 6}]]),  # applied: 6
                   delta(7, 8, [["m", [], {"round": 8}]]),  # base 7, held 6: a gap
                   {"wait": 100},
                   delta(8, 9, [["m", [], {"round": 9}]])],
        "answers": [snapshot(8, {"round": 8})],
    })
    assert out["urls"] == ["/push/full/models/tables/T1?lang=en&orient=landscape&since=8"]
    assert out["shown"] == [[6, {"round": 6}], [8, {"round": 8}], [9, {"round": 9}]]
    assert (out["version"], out["doc"], out["resyncs"], out["events"]) == (9, {"round": 9}, 1, [])


def test_a_full_frame_of_another_topic_is_never_applied():
    other = {**snapshot(8, {"round": 8, "lang": "th"}), "topic": "model:ffffffffffffffff"}
    out = run({
        "initial": {"version": 5, "data": {"round": 5}},
        "frames": [snapshot(6, {"round": 6}), delta(7, 8, [["m", [], {"round": 8}]])],
        "answers": [other],
    })
    assert out["shown"] == [[6, {"round": 6}]]  # the Thai document never reached the page
    assert out["events"] == ["reconnect"] and out["version"] is None


def test_a_frame_not_posted_is_shown_but_no_delta_is_applied_onto_it():
    out = run({
        "initial": {"version": 5, "data": {"tiles": 5}},
        "frames": [delta(6, 7, [["m", [], {"tiles": 7}]]),  # base 6, held 5: a gap
                   {"wait": 100},
                   delta(7, 9, [["m", [], {"tiles": 9}]])],  # onto 7 of the answer: not applied
        "answers": [snapshot(7, {"tiles": 70}, posted=False), snapshot(9, {"tiles": 9})],
    })
    assert out["urls"] == ["/push/full/models/tables/T1?lang=en&orient=landscape&since=7",
                           "/push/full/models/tables/T1?lang=en&orient=landscape&since=9"]
    # the unposted answer is shown, the delta onto it is not applied (it fetches again), the second answer is
    assert out["shown"] == [[7, {"tiles": 70}], [9, {"tiles": 9}]]
    assert (out["version"], out["doc"], out["resyncs"]) == (9, {"tiles": 9}, 2)


def test_a_snapshot_held_during_the_fetch_that_is_older_than_the_answer_is_dropped():
    out = run({
        "initial": {"version": 5, "data": {"shoe": 1}},
        "frames": [delta(6, 7, [["m", [], {"shoe": 1}]]),  # a gap: the fetch starts
                   snapshot(6, {"shoe": 2, "old": True})],  # arrives while it runs
        "answers": [snapshot(8, {"shoe": 2})],
    })
    assert out["shown"] == [[8, {"shoe": 2}]]
    assert (out["version"], out["doc"]) == (8, {"shoe": 2})
