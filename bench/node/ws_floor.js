// The floor of bench/bench_push.py: Node `ws` broadcasting the same frames to the same screens.
//
// Usage: node ws_floor.js <port> [host]   (binds 127.0.0.1 unless given a host: the several-host
// lab runs one on each edge host's own address, deploy/labkit/figures.py). Screens connect to
// ws://127.0.0.1:<port>/<channel>; a POST of a frame to http://127.0.0.1:<port>/pub/<channel>
// sends those bytes as one text frame to every screen of the channel (the same prebuilt frame
// for all: ws.send of a Buffer built once) and keeps it as the channel's latest, sent to each
// new screen, like nchan with nchan_message_buffer_length 1. GET /bytes/<channel> answers the
// latest body as image/png (the anchor of the PNG re-serve figure). Prints "listening <port>".
"use strict";
const http = require("http");
const WebSocket = require("ws");

const port = Number(process.argv[2] || 0);
const channels = new Map(); // name -> {clients: Set, latest: Buffer|null}

function channel(name) {
  let c = channels.get(name);
  if (!c) { c = { clients: new Set(), latest: null }; channels.set(name, c); }
  return c;
}

const server = http.createServer((req, res) => {
  if (req.method === "GET" && req.url.startsWith("/bytes/")) { // the latest body as a PNG (re-serve anchor)
    const c = channels.get(decodeURIComponent(req.url.slice(7)));
    if (!c || !c.latest) { res.statusCode = 404; res.end(); return; }
    res.writeHead(200, { "Content-Type": "image/png", "Content-Length": c.latest.length, "Cache-Control": "public, max-age=2" });
    res.end(c.latest);
    return;
  }
  if (req.method !== "POST" || !req.url.startsWith("/pub/")) { res.statusCode = 404; res.end(); return; }
  const chunks = [];
  req.on("data", (d) => chunks.push(d));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    const c = channel(decodeURIComponent(req.url.slice(5)));
    c.latest = body;
    for (const ws of c.clients) if (ws.readyState === 1) ws.send(body, { binary: false });
    res.statusCode = 201;
    res.end();
  });
});
const wss = new WebSocket.Server({ server, perMessageDeflate: false, clientTracking: false });
wss.on("connection", (ws, req) => {
  const c = channel(decodeURIComponent(req.url.slice(1)));
  c.clients.add(ws);
  if (c.latest) ws.send(c.latest, { binary: false });
  ws.on("close", () => c.clients.delete(ws));
  ws.on("error", () => {});
});
server.keepAliveTimeout = 600000; // the bench's one publisher connection stays open
server.headersTimeout = 601000;
server.listen(port, process.argv[3] || "127.0.0.1", 16384, () => process.stdout.write(`listening ${server.address().port}\n`));
