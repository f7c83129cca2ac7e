/*
 * Table board, past shoe and embed pages: paint the board model embedded in the page
 * (static/js/paint.js), then, on live pages, paint every new model the model socket pushes.
 *
 * Boot data: <script type="application/json" id="boot"> with
 *   {page, table, live, ws, full, models: {landscape, portrait} | {fixed}, modelUrl, keepaliveS,
 *    release, tz, askUrl, held (only while the server cannot rebuild the model)}
 * The landscape (1920x1080) or portrait (1080x1920) model is chosen by the viewport's shape; the
 * SVG viewBox scales it (4K shows the 1920x1080 model at twice the size).
 *
 * Live: `ws` is the page's model topic (web/push/page_models.py; /ws/models/... or nchan), on a table
 * page one per orientation ({landscape, portrait}: the page follows the one it shows and
 * switches when the viewport changes shape; `full` likewise). Its frames carry the page's
 * document {models, release, version, shoe}: the first whole, then deltas that
 * static/js/push_socket.js (RoadsDelta.Tracker) applies, so show() below always gets a whole document.
 * No HTTP fetch per update; modelUrl is fetched only to come back after an outage.
 *
 * Trust: the newest result is marked by the model until the next one; cells new since the last
 * paint blink briefly (CSS, none with prefers-reduced-motion). When nothing is heard from the
 * server for twice the keepalive interval the page dims the roads and says "Offline since
 * hh:mm:ss" (venue time zone); while offline it asks modelUrl every few seconds, and the first
 * answer (or frame) clears the band, repaints and reconnects (PushSocket.watch, static/js/push_socket.js,
 * shared with the lobby). A new release (the document's
 * release differs from boot.release) reloads the page.
 * window.__roads exposes {version, shoe, renders, messages, status, offline, fetches} for tests.
 */
(function () {
  "use strict";

  var boot = JSON.parse(document.getElementById("boot").textContent);
  var svg = document.getElementById("board");
  var root = document.documentElement;
  var state = { renders: 0, messages: 0, fetches: 0, status: boot.live ? "connecting" : "past", offline: false,
                lastHeard: Date.now(), models: boot.models, keys: null };
  window.__roads = state;
  Paint.observeClock(boot.now); // the server's clock when it answered this page (its models may be older)

  function orientation() {
    if (state.models.fixed) return "fixed";
    return window.innerHeight > window.innerWidth * 1.05 ? "portrait" : "landscape";
  }

  function current() { return state.models[orientation()] || state.models.landscape || state.models.fixed; }

  function draw(fresh) {
    var o = orientation();
    var model = current();
    var freshCells = fresh ? Paint.freshCells(state.keys, model) : null;
    Paint.paint(svg, model, { fresh: freshCells });
    state.keys = Paint.cellKeys(model);
    state.renders++;
    state.version = model.version;
    state.shoe = model.shoe;
    state.orientation = o;
    svg.setAttribute("aria-label", [model.table, model.shoe, model.round].join(" · "));
  }

  /** A whole document arrived (socket frame or outage fetch): paint it. */
  function show(doc) {
    if (!doc || !doc.models) return;
    if (doc.release && boot.release && doc.release !== boot.release && RoadsOffline.newRelease(doc.release)) return;
    var sameShoe = doc.shoe === state.shoe;
    var models = {}, k;
    for (k in state.models) models[k] = state.models[k];
    for (k in doc.models) models[k] = doc.models[k]; // an orientation's topic carries its model only
    state.models = models;
    RoadsOffline.keep({ models: models }, boot.release); // for a reload without the service (static/js/sw.js)
    if (state.asking) return; // the ask preview is on screen; it repaints the live board when it ends
    draw(sameShoe); // a new shoe clears the board at once: nothing blinks
  }

  draw(false);
  if (boot.live) RoadsOffline.keep({ models: state.models }, boot.release);
  var resizeTimer = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () { draw(false); subscribe(); }, 120);
  });

  // Ask road: "If Banker" / "If Player" shows the hypothetical entry blinking in place in every road.
  svg.addEventListener("click", function (ev) {
    var t = ev.target && ev.target.getAttribute && ev.target.getAttribute("data-ask");
    if (!t || !boot.askUrl) return;
    fetch(boot.askUrl + (boot.askUrl.indexOf("?") >= 0 ? "&" : "?") + "ask=" + t, { cache: "no-store" })
      .then(function (r) { return r.ok ? r.json() : null; }).then(function (data) {
        if (!data) return;
        var model = data.models[orientation()] || data.models.landscape || data.models.fixed;
        var fresh = Paint.freshCells(state.keys, model);
        Paint.paint(svg, model, { fresh: fresh });
        root.classList.add("asking");
        state.asking = t;
        clearTimeout(state.askTimer);
        state.askTimer = setTimeout(function () { root.classList.remove("asking"); state.asking = null; draw(false); },
                                    RoadsOffline.motionNone ? 8000 : 4000); // lite: no effect under 5 s
      });
  });

  /**
   * Subscribe to the model topic of the orientation shown (boot.ws is {orientation: URL} on a
   * table page, one URL on an embed), again when the viewport changes shape (PushSocket
   * .retarget: the new socket's first frame is that orientation's whole document). On the nchan
   * tier (boot.full set) the page first asks modelUrl?orient= so the service follows that topic.
   */
  var subscribed = null;
  function subscribe() {
    if (!boot.live || !boot.ws) return;
    var one = typeof boot.ws === "string", o = orientation();
    var key = one ? "one" : (boot.ws[o] ? o : "landscape");
    if (key === subscribed) return;
    var ws = one ? boot.ws : boot.ws[key], full = one || !boot.full ? boot.full : boot.full[key];
    var modelUrl = one ? boot.modelUrl : orientUrl(key); // (asked while offline: it follows the topic again)
    if (subscribed === null) {
      window.__roadsLive = PushSocket.watch({
        ws: ws, full: full, modelUrl: modelUrl, keepaliveS: boot.keepaliveS, tz: boot.tz, svg: svg,
        offlineSince: boot.offline && boot.offline.since, // booted by the service worker, service away
        state: state, show: show, held: boot.held, offlineText: function () { var m = current(); return m.offline && m.offline.text; }
      });
    } else if (window.__roadsLive) {
      window.__roadsLive = window.__roadsLive.retarget(ws, full, modelUrl);
    }
    subscribed = key;
    if (!one && boot.full) follow(key);
  }

  function orientUrl(o) { return boot.modelUrl + (boot.modelUrl.indexOf("?") >= 0 ? "&" : "?") + "orient=" + o; }

  function follow(o) {
    state.follows = (state.follows || 0) + 1;
    fetch(orientUrl(o), { cache: "no-store" })
      .then(function (r) { return r.ok ? r.json() : null; }).then(function (doc) {
        var held = state.models[o];
        if (doc && doc.models && doc.models[o] && (!held || doc.models[o].version >= held.version)) show(doc);
      }).catch(function () { /* the socket's frames still come */ });
  }

  subscribe();
})();
