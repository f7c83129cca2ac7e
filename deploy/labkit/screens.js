// Screens of the lab (deploy/lab.py): many live pages in one Node process, each running the
// pages' own code, static/js/push_socket.js (PushSocket: reconnect with backoff and jitter, idle
// timeout, the offline probe of PushSocket.watch) and static/js/delta.js (the Tracker: deltas
// applied, a gap resynced from the full frame), with Node's WebSocket client (undici).
//
// Usage: node --experimental-websocket screens.js <config.json>
//   config = {static: "<repo>/static/js", rate: screens opened per second,
//             screens: [{kind: "model" | "lobby" | "table", ws, full, modelUrl, keepaliveS, ref}]}
//   kind "model": a table page (board.js: PushSocket.watch, then modelUrl asked once: the topic
//   is followed); "lobby": a lobby page (lobby.js: PushSocket.watch); "table": an API client
//   on the table's snapshot channel (a PushSocket with the full-frame URL). URLs are absolute.
// Commands on stdin, one per line, each answered by one JSON line on stdout:
//   stats                 {screens, opened, live, offline, opens, closes, frames, bytes, resyncs, docs, deflate}
//   dump <path>           every document shown since the last dump (binary records, little-endian:
//                         int32 screen, int32 version, float64 time in ms since the epoch) -> {records}
//   check <refs.json>     refs = {ref: [url, ...]}: each screen's document against every url's
//                         answer (deep equality but for "now", below) -> {screens, equal, results:
//                         [[screen, version, refVersion, equal]...] for the unequal ones, refsAgree, disagree}
//   quit                  closes everything and exits
// Prints {"ready": n} once every screen has opened its socket (or tried to).
"use strict";
const fs = require("fs");
const path = require("path");
const readline = require("readline");
const util = require("util");
const { performance } = require("perf_hooks");

const cfg = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));

// ---------------------------------------------------------------- the browser the pages expect
const noop = () => {};
globalThis.window = globalThis;
globalThis.addEventListener = noop;
globalThis.removeEventListener = noop;
globalThis.location = { protocol: "http:", host: "lab", reload: noop };
const root = { classList: { toggle: noop, add: noop, remove: noop }, setAttribute: noop };
globalThis.document = { documentElement: root, addEventListener: noop, removeEventListener: noop };
globalThis.Paint = { setHeldText: noop }; // the held band's words (static/js/paint.js): no board to write on here

const counters = { opens: 0, closes: 0, frames: 0, bytes: 0, deflate: 0 };
const NativeWebSocket = globalThis.WebSocket;
class CountingWebSocket extends NativeWebSocket {
  constructor(url, protocols) {
    super(url, protocols);
    this.addEventListener("open", () => { counters.opens++; if (this.extensions) counters.deflate++; });
    this.addEventListener("close", () => { counters.closes++; });
    this.addEventListener("message", (ev) => {
      counters.frames++;
      counters.bytes += typeof ev.data === "string" ? Buffer.byteLength(ev.data) : ev.data.byteLength || 0;
    });
  }
}
globalThis.WebSocket = CountingWebSocket;

require(path.join(cfg.static, "delta.js"));
require(path.join(cfg.static, "push_socket.js"));
const PushSocket = globalThis.PushSocket;

// ---------------------------------------------------------------- records
let cap = 1 << 16, n = 0;
let recScreen = new Int32Array(cap), recVersion = new Int32Array(cap), recTime = new Float64Array(cap);
const origin = performance.timeOrigin;

function record(i, version) {
  if (n >= cap) {
    cap *= 2;
    const s = new Int32Array(cap); s.set(recScreen); recScreen = s;
    const v = new Int32Array(cap); v.set(recVersion); recVersion = v;
    const t = new Float64Array(cap); t.set(recTime); recTime = t;
  }
  recScreen[n] = i; recVersion[n] = version; recTime[n] = origin + performance.now(); n++;
}

// ---------------------------------------------------------------- screens
const screens = [];

function openScreen(i, sc) {
  const screen = { i, sc, doc: null, version: -1, live: null, state: null };
  screens.push(screen);
  function shown(doc, version) {
    screen.doc = doc;
    screen.version = version;
    record(i, version);
  }
  if (sc.kind === "table") {
    screen.live = new PushSocket(sc.ws, {
      fullUrl: sc.full, idleMs: sc.keepaliveS * 3000,
      onMessage: (msg) => { if (msg.type === "snapshot" && msg.data) shown(msg.data, msg.version); },
    }).start();
    return;
  }
  const state = { status: "connecting", messages: 0, fetches: 0, offline: false, lastHeard: Date.now() };
  screen.state = state;
  const show = (doc) => {
    if (!doc || typeof doc.version !== "number") return;
    shown(doc, doc.version);
  };
  screen.live = PushSocket.watch({
    ws: sc.ws, full: sc.full, modelUrl: sc.modelUrl, keepaliveS: sc.keepaliveS, tz: "UTC",
    svg: { querySelector: () => null }, state, show, offlineText: () => "Offline since {time}",
  });
  if (sc.kind === "model") { // board.js follow(): the page asks its orientation's model once
    fetch(sc.modelUrl, { cache: "no-store" }).then((r) => (r.ok ? r.json() : null)).then((doc) => {
      if (doc && (screen.version < 0 || doc.version >= screen.version)) show(doc);
    }).catch(noop);
  }
}

let opened = 0;
const perTick = Math.max(1, Math.round((cfg.rate || 200) / 20));
const opener = setInterval(() => {
  for (let k = 0; k < perTick && opened < cfg.screens.length; k++, opened++) openScreen(opened, cfg.screens[opened]);
  if (opened >= cfg.screens.length) {
    clearInterval(opener);
    out({ ready: opened });
  }
}, 50);

// ---------------------------------------------------------------- commands
function out(obj) { process.stdout.write(JSON.stringify(obj) + "\n"); }

function stats() {
  let live = 0, offline = 0, resyncs = 0, docs = 0;
  const states = { connecting: 0, open: 0, closing: 0, closed: 0, none: 0 };
  for (const s of screens) {
    const sock = s.live;
    const rs = sock && sock.ws ? sock.ws.readyState : -1;
    states[["connecting", "open", "closing", "closed"][rs] || "none"]++;
    if (sock && sock.ws && sock.ws.readyState === 1) live++;
    if (s.state && s.state.offline) offline++;
    if (sock && sock.tracker) resyncs += sock.tracker.resyncs;
    if (s.doc) docs++;
  }
  return { screens: cfg.screens.length, opened: screens.length, live, offline, resyncs, docs, ...counters, ...states };
}

// A model's "now" is the clock of the process that built it (pages tick "n s ago" against it):
// every process builds its own, so documents are compared without it.
function withoutNow(value) {
  if (Array.isArray(value)) return value.map(withoutNow);
  if (value === null || typeof value !== "object") return value;
  const out = {};
  for (const k of Object.keys(value)) if (k !== "now") out[k] = withoutNow(value[k]);
  return out;
}

async function check(refsPath) {
  const refs = JSON.parse(fs.readFileSync(refsPath, "utf8"));
  const answers = {};
  let refsAgree = true;
  const disagree = [];
  for (const [ref, urls] of Object.entries(refs)) {
    const docs = [];
    for (const url of urls) {
      const r = await fetch(url, { cache: "no-store" });
      docs.push(r.ok ? withoutNow(await r.json()) : { error: r.status });
    }
    for (const d of docs.slice(1)) if (!util.isDeepStrictEqual(d, docs[0])) { refsAgree = false; disagree.push(ref); }
    answers[ref] = docs[0];
  }
  const results = [];
  let equal = 0;
  for (const s of screens) {
    const want = answers[s.sc.ref];
    const same = want !== undefined && util.isDeepStrictEqual(withoutNow(s.doc), want);
    if (same) equal++;
    else results.push([s.i, s.version, want && typeof want.version === "number" ? want.version : -1, false]);
  }
  return { screens: screens.length, equal, refsAgree, disagree, results };
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const [cmd, arg] = line.trim().split(/\s+/, 2);
  if (cmd === "stats") out(stats());
  else if (cmd === "dump") {
    const buf = Buffer.alloc(n * 16);
    for (let k = 0; k < n; k++) {
      buf.writeInt32LE(recScreen[k], k * 16);
      buf.writeInt32LE(recVersion[k], k * 16 + 4);
      buf.writeDoubleLE(recTime[k], k * 16 + 8);
    }
    fs.writeFileSync(arg, buf);
    out({ records: n });
    n = 0;
  } else if (cmd === "check") {
    check(arg).then(out, (e) => out({ error: String(e) }));
  } else if (cmd === "quit") {
    for (const s of screens) { try { s.live.stop(); } catch (e) { /* gone */ } }
    out({ quit: true });
    setTimeout(() => process.exit(0), 50);
  } else out({ error: "unknown command " + cmd });
});
