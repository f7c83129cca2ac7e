// Load generator for bench/bench_push.py: many WebSocket screens in one Node process (npm `ws`).
//
// Usage: node clients.js <config.json>   config = {urls: [url, ...], perUrl: n, concurrency: c,
//   connectTimeoutMs, out: path, shard: k, shards: m} (this process opens every m-th screen). Opens perUrl connections to each URL (at most `concurrency`
// handshakes in flight), then records every frame: for each frame, the URL index, the version
// (read from the frame's first bytes: {"type":..,"topic":..,["base":..,]"version":N...}), the
// receive time (ms since the epoch, performance.timeOrigin + performance.now()) and its size.
// Commands on stdin, one per line: "stats" prints {connected, failed, closed, frames, bytes};
// "dump" writes the records to `out` (binary, little-endian: int32 url, int32 client, int32
// version, int32 size, float64 time) and prints "dumped <n>"; "quit" exits. Prints "ready <connected> <failed>
// <seconds>" once every connection is open (or failed). Loopback only: the URLs are the bench's.
"use strict";
const fs = require("fs");
const readline = require("readline");
const { performance } = require("perf_hooks");
const WebSocket = require("ws");

const cfg = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const origin = performance.timeOrigin;
let cap = 1 << 20;
let urlIdx = new Int32Array(cap), clientIdx = new Int32Array(cap), versions = new Int32Array(cap), times = new Float64Array(cap), sizes = new Int32Array(cap);
let n = 0, connected = 0, failed = 0, closed = 0, bytes = 0;
const sockets = [];

function grow() {
  cap *= 2;
  const u = new Int32Array(cap); u.set(urlIdx); urlIdx = u;
  const c = new Int32Array(cap); c.set(clientIdx); clientIdx = c;
  const v = new Int32Array(cap); v.set(versions); versions = v;
  const t = new Float64Array(cap); t.set(times); times = t;
  const s = new Int32Array(cap); s.set(sizes); sizes = s;
}

function versionOf(text) {
  const i = text.indexOf('"version":');
  if (i < 0 || i > 200) return -1;
  let j = i + 10, v = 0;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c < 48 || c > 57) break;
    v = v * 10 + (c - 48);
    j++;
  }
  return v;
}

// Screen j of the whole load is [url index, j]; this process opens those with j % shards == shard.
const jobs = [];
let j = 0;
cfg.urls.forEach((url, u) => {
  for (let k = 0; k < cfg.perUrl; k++, j++) if (j % (cfg.shards || 1) === (cfg.shard || 0)) jobs.push([u, j]);
});
const started = Date.now();
let next = 0, inFlight = 0, done = 0;

function openOne() {
  if (next >= jobs.length) return;
  const [u, id] = jobs[next++];
  inFlight++;
  const ws = new WebSocket(cfg.urls[u], { perMessageDeflate: false, skipUTF8Validation: true, handshakeTimeout: cfg.connectTimeoutMs || 60000 });
  let opened = false;
  ws.on("open", () => { opened = true; connected++; inFlight--; done++; sockets.push(ws); openOne(); check(); });
  ws.on("message", (data) => {
    const now = origin + performance.now();
    const text = data.toString("latin1", 0, Math.min(data.length, 200));
    if (n >= cap) grow();
    urlIdx[n] = u; clientIdx[n] = id; versions[n] = versionOf(text); times[n] = now; sizes[n] = data.length; n++;
    bytes += data.length;
  });
  ws.on("error", () => {});
  ws.on("close", () => {
    if (!opened) { failed++; inFlight--; done++; openOne(); check(); } else closed++;
  });
}

function check() {
  if (done === jobs.length) {
    process.stdout.write(`ready ${connected} ${failed} ${((Date.now() - started) / 1000).toFixed(2)}\n`);
    done = -1;
  }
}

for (let k = 0; k < (cfg.concurrency || 200); k++) openOne();
if (jobs.length === 0) check();

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const cmd = line.trim();
  if (cmd === "stats") {
    process.stdout.write(JSON.stringify({ connected, failed, closed, frames: n, bytes }) + "\n");
  } else if (cmd === "dump") {
    const buf = Buffer.alloc(n * 24);
    for (let i = 0; i < n; i++) {
      buf.writeInt32LE(urlIdx[i], i * 24);
      buf.writeInt32LE(clientIdx[i], i * 24 + 4);
      buf.writeInt32LE(versions[i], i * 24 + 8);
      buf.writeInt32LE(sizes[i], i * 24 + 12);
      buf.writeDoubleLE(times[i], i * 24 + 16);
    }
    fs.writeFileSync(cfg.out, buf);
    n = 0;
    process.stdout.write(`dumped ${buf.length / 24}\n`);
  } else if (cmd === "quit") {
    for (const ws of sockets) { try { ws.terminate(); } catch (e) { /* gone */ } }
    process.exit(0);
  }
});
