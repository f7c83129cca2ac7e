/*
 * A page's push socket: its board-model topic over WebSocket (web/http/model_sockets.py, or nchan).
 *
 * Server messages are JSON text frames:
 *   {"type": "snapshot", "topic": "table:T1", "version": 57, "data": {...full snapshot...}}
 *   {"type": "keepalive", "topic": "...", "version": 57}       (every keepalive_s when idle)
 *   {"type": "error", "error": {"status": 404, "code": "not_found", "message": "...", "field": null}}
 * The first message after every (re)connect is the full snapshot, so a reconnect is a resync.
 *
 * PushSocket reconnects with exponential backoff (minDelayMs doubling up to maxDelayMs, with
 * jitter so a wall of screens does not reconnect in step) and closes a connection that has
 * been silent for idleMs (a dead proxy or a sleeping laptop), which then reconnects. A socket
 * still connecting after connectTimeoutMs, or still closing closeWaitMs after it began to
 * close, is dropped (its handlers detached) and replaced as if it had closed: a handshake or
 * a closing handshake that never ends (a dead edge host behind a balancer, a half-closed
 * connection) must not leave the page waiting for a close event that never comes.
 *
 * Delta frames ({"type":"delta","base":..,"version":..,"ops":[..]}) are applied by
 * RoadsDelta.Tracker (static/js/delta.js, loaded before this file) to the last document, so
 * onMessage always gets whole documents as snapshot frames; a gap resyncs (opts.fullUrl, or a
 * reconnect). path may be a full ws:// or wss:// URL (the server picks the push endpoint).
 *
 * Public: window.PushSocket(path, {onMessage(msg), onStatus("connecting"|"live"|"offline"),
 *   minDelayMs = 500, maxDelayMs = 30000, idleMs = 75000, connectTimeoutMs = 10000,
 *   closeWaitMs = 3000, initial: {version, data}, fullUrl})
 *   .start() / .stop() / .reconnectNow(); .tracker (deltas, resyncs, version)
 *
 * PushSocket.watch(opts): what every live page does with its model socket (board.js, lobby.js),
 * in one place. opts: {ws, full, modelUrl, keepaliveS, tz, svg, state, show(doc),
 * offlineText() -> "Offline since {time}"}. Every frame counts in state.messages and sets
 * state.lastHeard; a whole document goes to show(doc). After hearing nothing for twice the
 * keepalive interval, or with its socket closed and not back for DOWN_MS (a stopped server:
 * the reconnects are refused), the page is offline: state.offline, class "offline" on <html>, the svg's
 * .offline-text says since when (venue time zone tz), and modelUrl is asked every 3 s
 * (state.fetches); the first answer or frame clears it, shows the document and reconnects.
 * state.status and <html data-live> follow the socket. A document marked "held" (the server cannot
 * rebuild this page's model: it is the last good one, web/push/page_models.py) sets state.held,
 * class "held" on <html> and the held band's text, "Not updating since {time}" (venue time of its
 * "since"); the next document without it clears them (opts.held: the boot document's).
 * Returns the started PushSocket, or null
 * without ws or WebSocket; its .retarget(ws, full, modelUrl) stops it and returns a started
 * PushSocket of another topic watched the same way (a table page whose viewport turned; modelUrl,
 * if given, is the one asked while offline from then on).
 * opts.offlineSince (ms): the page was booted by the service worker without the service
 * (static/js/sw.js): it starts offline (state.sticky), saying that time, asks modelUrl every 3 s
 * and opens its socket only once the service itself has answered (nginx + nchan would replay a
 * channel's last frame with the service stopped, which is not hearing the service).
 */
(function (global) {
  "use strict";

  function PushSocket(path, opts) {
    this.path = path;
    this.opts = opts || {};
    this.minDelay = this.opts.minDelayMs || 500;
    this.maxDelay = this.opts.maxDelayMs || 30000;
    this.idleMs = this.opts.idleMs || 75000;
    this.connectTimeoutMs = this.opts.connectTimeoutMs || 10000;
    this.closeWaitMs = this.opts.closeWaitMs || 3000;
    this.attempt = 0;
    this.ws = null;
    this.timer = null;
    this.watchdog = null;
    this.stopped = true;
    this.status = null;
    this.lastMessageAt = 0;
    var self = this;
    this.tracker = global.RoadsDelta ? new global.RoadsDelta.Tracker({
      initial: this.opts.initial, fullUrl: this.opts.fullUrl,
      emit: function (msg) { if (self.ws) self.deliver(msg); },
      reconnect: function () { self.reconnectNow(); }
    }) : null;
  }

  PushSocket.prototype.url = function () {
    if (/^wss?:\/\//.test(this.path)) return this.path;
    var proto = global.location.protocol === "https:" ? "wss:" : "ws:";
    return proto + "//" + global.location.host + this.path;
  };

  PushSocket.prototype.setStatus = function (status) {
    if (status === this.status) return;
    this.status = status;
    if (this.opts.onStatus) this.opts.onStatus(status);
  };

  PushSocket.prototype.start = function () {
    var self = this;
    this.stopped = false;
    this.connect();
    // Come back at once when the network or the tab comes back, instead of waiting out the backoff.
    this.onWake = function () {
      if (!self.stopped && self.status === "offline") self.reconnectNow();
    };
    global.addEventListener("online", this.onWake);
    document.addEventListener("visibilitychange", this.onWake);
    return this;
  };

  PushSocket.prototype.stop = function () {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.connectTimer);
    clearInterval(this.watchdog);
    if (this.onWake) {
      global.removeEventListener("online", this.onWake);
      document.removeEventListener("visibilitychange", this.onWake);
    }
    if (this.ws) { try { this.ws.close(1000); } catch (e) { /* already closed */ } }
    this.ws = null;
  };

  PushSocket.prototype.reconnectNow = function () {
    clearTimeout(this.timer);
    this.attempt = 0;
    if (this.ws) this.closeSoon(this.ws);
    else this.connect();
  };

  /** Close ws; if its close event has not come closeWaitMs later, drop it. */
  PushSocket.prototype.closeSoon = function (ws, code, reason) {
    var self = this;
    try { ws.close(code, reason); } catch (e) { /* already closing */ }
    setTimeout(function () { if (self.ws === ws) self.drop(ws); }, this.closeWaitMs);
  };

  /** Give up on ws without waiting for its close event (handlers detached): offline, retry. */
  PushSocket.prototype.drop = function (ws) {
    ws.onopen = ws.onmessage = ws.onerror = ws.onclose = null;
    try { ws.close(); } catch (e) { /* ignore */ }
    if (this.ws !== ws) return;
    this.ws = null;
    clearInterval(this.watchdog);
    clearTimeout(this.connectTimer);
    if (this.stopped) return;
    this.setStatus("offline");
    this.schedule();
  };

  PushSocket.prototype.connect = function () {
    var self = this;
    if (this.stopped) return;
    this.setStatus("connecting");
    var ws;
    try {
      ws = new WebSocket(this.url());
    } catch (e) {
      this.schedule();
      return;
    }
    this.ws = ws;
    clearTimeout(this.connectTimer);
    this.connectTimer = setTimeout(function () {
      if (self.ws === ws && ws.readyState === 0) self.drop(ws); // a handshake that never ends
    }, this.connectTimeoutMs);
    ws.onopen = function () {
      clearTimeout(self.connectTimer);
      self.lastMessageAt = Date.now();
      clearInterval(self.watchdog);
      var closingSince = null, idleClosed = false;
      self.watchdog = setInterval(function () {
        if (ws.readyState === 2) { // closing (the server's close, or ours): the close event is due
          if (closingSince === null) closingSince = Date.now();
          else if (Date.now() - closingSince >= self.closeWaitMs) self.drop(ws);
          return;
        }
        if (!idleClosed && Date.now() - self.lastMessageAt > self.idleMs) {
          idleClosed = true;
          self.closeSoon(ws, 4000, "idle");
        }
      }, Math.min(5000, self.idleMs / 3, self.closeWaitMs));
    };
    ws.onmessage = function (ev) {
      self.lastMessageAt = Date.now();
      var msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.type !== "error") {
        self.attempt = 0; // this connection works: the next outage starts again at minDelay
        self.setStatus("live");
      }
      if (self.tracker && !(msg = self.tracker.receive(msg))) return; // deltas -> whole documents
      self.deliver(msg);
    };
    ws.onclose = function (ev) {
      if (self.ws !== ws) return; // a socket already dropped or replaced
      clearInterval(self.watchdog);
      clearTimeout(self.connectTimer);
      self.ws = null;
      if (self.stopped) return;
      // 4404: the table does not exist; retrying will not help (until the page is reloaded).
      if (ev.code === 4404 || (self.fatal && self.fatal.status === 404)) {
        self.setStatus("offline");
        return;
      }
      self.setStatus("offline");
      self.schedule();
    };
    ws.onerror = function () { /* onclose follows and schedules the retry */ };
  };

  /** Hand a frame (whole document, keepalive or error) to the page. */
  PushSocket.prototype.deliver = function (msg) {
    if (msg.type === "error") this.fatal = msg.error;
    if (this.opts.onMessage) this.opts.onMessage(msg);
  };

  /** Next retry after min(maxDelay, minDelay * 2^attempt), scaled by a random 50-100%. */
  PushSocket.prototype.schedule = function () {
    var self = this;
    var delay = Math.min(this.maxDelay, this.minDelay * Math.pow(2, this.attempt));
    delay = delay * (0.5 + Math.random() * 0.5);
    this.attempt = Math.min(this.attempt + 1, 16);
    clearTimeout(this.timer);
    this.timer = setTimeout(function () { self.connect(); }, delay);
  };

  /** How long a closed socket may stay down before the page says it is offline, in ms: a
   * reconnect after a dropped connection takes 0.25-0.5 s (the first retry), a stopped server
   * refuses every one; a server that is up but silent is noticed by the keepalives instead. */
  var DOWN_MS = 5000;

  PushSocket.watch = function (opts) {
    var state = opts.state, root = document.documentElement, live = null;
    if (!opts.ws || !global.WebSocket) return null;

    function timeText(ms) {
      try {
        return new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false, timeZone: opts.tz }).format(new Date(ms));
      } catch (e) { return new Date(ms).toTimeString().slice(0, 8); }
    }

    function setHeld(held) {
      state.held = held || null;
      root.classList.toggle("held", !!held);
      global.Paint.setHeldText(held ? (held.text || "{time}").replace("{time}", timeText(held.since * 1000)) : "");
    }

    function setOffline(on) {
      if (on === state.offline) return;
      state.offline = on;
      root.classList.toggle("offline", on);
      if (on) band(); else global.Paint.setOfflineTime("");
    }

    function band() { // the band's words (a repaint while offline draws the model's template again)
      var when = timeText(state.lastHeard);
      global.Paint.setOfflineTime(when);
      var t = opts.svg.querySelector(".offline-text");
      if (t) t.textContent = (opts.offlineText() || "{time}").replace("{time}", when);
    }
    state.sticky = !!opts.offlineSince;
    if (state.sticky) state.lastHeard = opts.offlineSince;

    /** While offline: is the server back? Its answer resyncs the page and reconnects the socket. */
    var probing = false, probedAt = 0;
    function probe() {
      if (probing || Date.now() - probedAt < 3000) return;
      probing = true;
      probedAt = Date.now();
      state.fetches++;
      fetch(opts.modelUrl, { cache: "no-store" }).then(function (r) { return r.ok ? r.json() : null; }).then(function (doc) {
        probing = false;
        if (!doc || !state.offline) return;
        state.lastHeard = Date.now();
        state.sticky = false;
        setOffline(false);
        opts.show(doc);
        setHeld(doc.held);
        if (live && live.stopped) live.start(); // booted offline: the socket opens now
        else if (live) live.reconnectNow();
      }).catch(function () { probing = false; });
    }

    var keepMs = (opts.keepaliveS || 20) * 1000;
    var downSince = null; // when the socket closed and has not been live since
    function open(ws, full, modelUrl) { // the watched socket, or (retarget) another topic's in its place
      if (live) live.stop();
      if (modelUrl) opts.modelUrl = modelUrl;
      live = new PushSocket(ws, {
        fullUrl: full,
        idleMs: keepMs * 3,
        onStatus: function (status) {
          state.status = status;
          root.setAttribute("data-live", status);
          if (status === "live") downSince = null;
          else if (status === "offline" && downSince === null) downSince = Date.now();
        },
        onMessage: function (msg) { // the one place a frame arrives (whole documents: deltas are applied)
          state.messages++;
          if (!state.sticky) state.lastHeard = Date.now();
          if (state.offline && !state.sticky) setOffline(false);
          if (msg.type === "snapshot" && msg.data) { opts.show(msg.data); setHeld(msg.data.held); }
          if (state.offline) band();
        }
      });
      live.retarget = open;
      return state.sticky ? live : live.start();
    }
    setHeld(opts.held);
    open(opts.ws, opts.full);
    if (state.sticky) { setOffline(true); probe(); }
    setInterval(function () {
      var now = Date.now();
      if (state.sticky || now - state.lastHeard > 2 * keepMs || (downSince !== null && now - downSince > DOWN_MS)) {
        setOffline(true);
        probe();
      }
    }, Math.min(1000, keepMs / 4));
    return live;
  };

  global.PushSocket = PushSocket;
})(window);
