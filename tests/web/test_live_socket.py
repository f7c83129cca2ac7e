"""The page's socket (``PushSocket`` in static/js/push_socket.js) under Node with a stand-in WebSocket
whose events the test fires by hand (the first socket; later ones open at once): a socket still connecting after ``connectTimeoutMs`` or
still closing ``closeWaitMs`` after it began to close is dropped (handlers detached) and a new
one opened, as if it had closed; a close event that comes after the drop changes nothing (one
new socket, not two). The several-host lab found both: behind a balancer, a handshake to an
edge host that died never ended, and sockets an edge closed stayed "closing" with no close event.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

PUSH_SOCKET_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "push_socket.js"

SCRIPT = r"""
globalThis.window = globalThis;
globalThis.addEventListener = () => {};
globalThis.removeEventListener = () => {};
globalThis.document = { addEventListener: () => {}, removeEventListener: () => {} };
globalThis.location = { protocol: "http:", host: "test" };
const made = [];
class FakeSocket {
  constructor(url) {
    this.url = url; this.readyState = 0; this.closes = 0; made.push(this);
    if (made.length > 1) setTimeout(() => { this.readyState = 1; if (this.onopen) this.onopen(); }, 0);  // retries connect
  }
  close() { this.closes++; if (this.readyState < 2) this.readyState = 2; }  // the close event never comes
}
globalThis.WebSocket = FakeSocket;
require(process.argv[1]);
const wait = (ms) => new Promise((r) => setTimeout(r, ms));
const statuses = [];
(async () => {
  const step = process.argv[2];
  const live = new PushSocket("ws://test/push/x", { minDelayMs: 20, maxDelayMs: 40, idleMs: 600,
    connectTimeoutMs: 150, closeWaitMs: 150, onStatus: (s) => statuses.push(s) }).start();
  const first = made[0];
  if (step === "connecting") {
    await wait(120);
    const before = made.length;            // 1: still within connectTimeoutMs
    await wait(200);                       // dropped at 150 ms, a retry 10-20 ms later
    console.log(JSON.stringify({ before, after: made.length, firstHandlers: first.onclose === null,
                                 firstClosed: first.closes > 0, statuses }));
  } else if (step === "server-closing") {
    first.readyState = 1; first.onopen();
    first.onmessage({ data: JSON.stringify({ type: "keepalive", topic: "x", version: 1 }) });
    first.readyState = 2;                  // the server's close frame: closing, no close event yet
    await wait(100);
    const before = made.length;
    await wait(500);                       // noticed by the watchdog tick, dropped closeWaitMs later
    const after = made.length;
    first.onclose && first.onclose({ code: 1006 });  // a late close event (handlers detached: none)
    await wait(100);
    console.log(JSON.stringify({ before, after, late: made.length, statuses }));
  } else if (step === "reconnect-now") {
    first.readyState = 1; first.onopen();
    live.reconnectNow();                   // close() leaves it closing: dropped after closeWaitMs
    await wait(100);
    const before = made.length;
    await wait(200);
    console.log(JSON.stringify({ before, after: made.length, closes: first.closes, statuses }));
  } else if (step === "normal-close") {
    first.readyState = 1; first.onopen();
    first.readyState = 3; first.onclose({ code: 1006 });   // an ordinary close: one retry
    await wait(400);
    console.log(JSON.stringify({ sockets: made.length, statuses }));
  }
  live.stop();
  process.exit(0);
})();
"""


def run(step: str) -> dict:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("ROADS_TEST_REQUIRE_NODE") == "1":
            pytest.fail("node is required (ROADS_TEST_REQUIRE_NODE=1)")
        pytest.skip("node is not installed")
    done = subprocess.run([node, "-e", SCRIPT, str(PUSH_SOCKET_JS), step], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_handshake_that_never_ends_is_dropped_and_retried():
    out = run("connecting")
    assert out["before"] == 1
    assert out["after"] == 2
    assert out["firstHandlers"] is True and out["firstClosed"] is True
    assert out["statuses"] == ["connecting", "offline", "connecting"]


def test_a_socket_left_closing_by_the_server_is_replaced():
    out = run("server-closing")
    assert out["before"] == 1
    assert out["after"] == 2
    assert out["late"] == 2  # the late close event of the dropped socket opens nothing more
    assert out["statuses"] == ["connecting", "live", "offline", "connecting"]


def test_reconnect_now_does_not_wait_for_a_close_event_that_never_comes():
    out = run("reconnect-now")
    assert out["before"] == 1
    assert out["after"] == 2
    assert out["closes"] >= 1
    assert out["statuses"] == ["connecting", "offline", "connecting"]


def test_an_ordinary_close_still_reconnects_once():
    out = run("normal-close")
    assert out["sockets"] == 2
    assert out["statuses"] == ["connecting", "offline", "connecting"]
