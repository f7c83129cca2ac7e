/*
 * Lobby screen: paint the lobby model (static/js/paint.js) of the current page, turn pages every
 * rotate_s seconds, and fetch the model again when /ws/lobby says a table changed.
 *
 * Boot data: {models: {landscape, portrait}, modelUrl, ws, page_n, pages, rotate_s, release, tz,
 *   keepaliveS}. The model matching the viewport's shape is painted (viewBox scaling: 4K shows
 * the 1920x1080 model at twice the size). Like the board page, the screen dims and says
 * "Offline since hh:mm:ss" after hearing nothing for twice the keepalive interval, resyncs when
 * the server is back, and reloads itself when the server runs a new release.
 * window.__roads exposes {page, pages, renders, fetches, messages, offline} for tests.
 */
(function () {
  "use strict";

  var boot = JSON.parse(document.getElementById("boot").textContent);
  var svg = document.getElementById("board");
  var root = document.documentElement;
  var state = { page: boot.page_n || 1, pages: boot.pages || 1, renders: 0, fetches: 0, messages: 0, offline: false,
                lastHeard: Date.now(), models: boot.models, keys: null, rotations: 0 };
  window.__roads = state;

  function orientation() { return window.innerHeight > window.innerWidth * 1.05 ? "portrait" : "landscape"; }

  function current() { return state.models[orientation()] || state.models.landscape || state.models.portrait; }

  function draw(fresh) {
    var model = current();
    Paint.paint(svg, model, { fresh: fresh ? Paint.freshCells(state.keys, model) : null });
    state.keys = Paint.cellKeys(model);
    state.page = model.page;
    state.pages = model.pages;
    state.renders++;
    root.setAttribute("data-page", model.page);
  }

  function url(page) {
    return boot.modelUrl + (boot.modelUrl.indexOf("?") >= 0 ? "&" : "?") + "page=" + page;
  }

  var busy = false;
  function load(page, fresh) {
    if (busy) return;
    busy = true;
    state.fetches++;
    fetch(url(page), { cache: "no-store" }).then(function (r) { return r.ok ? r.json() : null; }).then(function (data) {
      busy = false;
      if (!data) return;
      if (data.release && boot.release && data.release !== boot.release) { location.reload(); return; }
      state.models = data.models;
      draw(fresh);
    }).catch(function () { busy = false; });
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
    if (on && t) t.textContent = ((current().offline || {}).text || "{time}").replace("{time}", timeText(state.lastHeard));
  }

  draw(false);
  var resizeTimer = null;
  window.addEventListener("resize", function () { clearTimeout(resizeTimer); resizeTimer = setTimeout(function () { draw(false); }, 120); });
  if (document.fonts && document.fonts.addEventListener) {
    document.fonts.addEventListener("loadingdone", function () { draw(false); });
  }

  if (boot.rotate_s && state.pages > 1) {
    setInterval(function () {
      if (state.offline) return;
      var next = state.page % state.pages + 1;
      state.rotations++;
      state.keys = null; // a new page: nothing blinks
      load(next, false);
    }, boot.rotate_s * 1000);
  }

  if (boot.ws && window.WebSocket) {
    var keepMs = (boot.keepaliveS || 20) * 1000;
    var timer = null;
    var live = new LiveSocket(boot.ws, {
      fullUrl: boot.full,
      idleMs: keepMs * 3,
      onStatus: function (status) { root.setAttribute("data-live", status); },
      onMessage: function (msg) {
        state.messages++;
        state.lastHeard = Date.now();
        var was = state.offline;
        if (was) setOffline(false);
        if (msg.type === "keepalive" && !was) return;
        clearTimeout(timer);
        timer = setTimeout(function () { load(state.page, !was); }, was ? 0 : 150);
      }
    });
    live.start();
    setInterval(function () { if (Date.now() - state.lastHeard > 2 * keepMs) setOffline(true); }, Math.min(1000, keepMs / 4));
  }
})();
