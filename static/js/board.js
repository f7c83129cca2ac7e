/*
 * Table board, past shoe and embed pages: paint the board model embedded in the page
 * (static/js/paint.js), then, on live pages, fetch and paint the model again whenever the
 * WebSocket says the table changed.
 *
 * Boot data: <script type="application/json" id="boot"> with
 *   {page, table, live, ws, models: {landscape, portrait} | {fixed}, modelUrl, keepaliveS,
 *    release, tz, askUrl}
 * The landscape (1920x1080) or portrait (1080x1920) model is chosen by the viewport's shape; the
 * SVG viewBox scales it (4K shows the 1920x1080 model at twice the size).
 *
 * Trust: the newest result is marked by the model until the next one; cells new since the last
 * paint blink briefly (CSS, none with prefers-reduced-motion). When nothing is heard from the
 * server for twice the keepalive interval the page dims the roads and says "Offline since
 * hh:mm:ss" (venue time zone); the next message resyncs (a full model) and clears it. A new
 * release (boot.release differs from the server's) reloads the page.
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

  function orientation() {
    if (state.models.fixed) return "fixed";
    return window.innerHeight > window.innerWidth * 1.05 ? "portrait" : "landscape";
  }

  function draw(fresh) {
    var o = orientation();
    var model = state.models[o] || state.models.landscape || state.models.fixed;
    var freshCells = fresh ? Paint.freshCells(state.keys, model) : null;
    Paint.paint(svg, model, { fresh: freshCells });
    state.keys = Paint.cellKeys(model);
    state.renders++;
    state.version = model.version;
    state.shoe = model.shoe;
    state.orientation = o;
    svg.setAttribute("aria-label", [model.table, model.shoe, model.round].join(" · "));
  }

  function timeText(ms) {
    try {
      return new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false, timeZone: boot.tz }).format(new Date(ms));
    } catch (e) { return new Date(ms).toTimeString().slice(0, 8); }
  }

  function setOffline(on) {
    if (on === state.offline) return;
    state.offline = on;
    root.classList.toggle("offline", on);
    var t = svg.querySelector(".offline-text");
    if (on && t) {
      var model = state.models[orientation()] || state.models.fixed;
      t.textContent = ((model.offline && model.offline.text) || "{time}").replace("{time}", timeText(state.lastHeard));
    }
  }

  var pending = null;
  function refresh() {
    if (pending) { pending.again = true; return; }
    pending = { again: false };
    state.fetches++;
    fetch(boot.modelUrl, { cache: "no-store" }).then(function (r) { return r.ok ? r.json() : null; }).then(function (data) {
      var again = pending.again;
      pending = null;
      if (data) {
        if (data.release && boot.release && data.release !== boot.release) { location.reload(); return; }
        var newShoe = data.models.landscape ? data.models.landscape.shoe !== (state.models.landscape || {}).shoe : false;
        state.models = data.models;
        draw(!newShoe);
      }
      if (again) refresh();
    }).catch(function () { pending = null; });
  }

  draw(false);
  var fontTimer = null;
  if (document.fonts && document.fonts.addEventListener) {
    document.fonts.addEventListener("loadingdone", function () { clearTimeout(fontTimer); fontTimer = setTimeout(function () { draw(false); }, 60); });
  }
  var resizeTimer = null;
  window.addEventListener("resize", function () { clearTimeout(resizeTimer); resizeTimer = setTimeout(function () { draw(false); }, 120); });

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
        state.askTimer = setTimeout(function () { root.classList.remove("asking"); state.asking = null; draw(false); }, 4000);
      });
  });

  if (boot.live && boot.ws && window.WebSocket) {
    var keepMs = (boot.keepaliveS || 20) * 1000;
    var live = new LiveSocket(boot.ws, {
      fullUrl: boot.full,
      idleMs: keepMs * 3,
      onStatus: function (status) { state.status = status; root.setAttribute("data-live", status); },
      onMessage: function (msg) {
        state.messages++;
        state.lastHeard = Date.now();
        if (state.offline) { setOffline(false); refresh(); return; } // resync after an outage
        if (msg.type === "snapshot" && msg.data && msg.data.version !== state.version) refresh();
        else if (msg.type === "snapshot" && msg.data && msg.data.shoe !== state.shoe) refresh();
      }
    });
    live.start();
    window.__roadsLive = live;
    setInterval(function () { if (Date.now() - state.lastHeard > 2 * keepMs) setOffline(true); }, Math.min(1000, keepMs / 4));
  }
})();
