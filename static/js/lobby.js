/*
 * Lobby screen: paint the current page of the lobby document (static/js/paint.js), turn pages
 * every rotate_s seconds, and paint every new document the model socket pushes.
 *
 * Boot data: {doc: {pages: {landscape: [page model, ...], portrait: [...]}, release, version,
 *   rotate_s}, ws, full, modelUrl, page_n, rotate_s, release, tz, keepaliveS}. The document holds
 * every page, so turning a page fetches nothing; the socket (web/push/page_models.py) sends the
 * document's changes (deltas, applied by static/js/push_socket.js), so onFrame below gets whole
 * documents. The page matching the viewport's shape is painted (viewBox scaling: 4K shows the
 * 1920x1080 model at twice the size). Like the board page, the screen dims and says
 * "Offline since hh:mm:ss" after hearing nothing for twice the keepalive interval, asks modelUrl
 * every few seconds while offline (the answer resyncs and reconnects; PushSocket.watch in
 * static/js/push_socket.js, shared with the board), and reloads itself when
 * the server runs a new release.
 * window.__roads exposes {page, pages, renders, fetches, messages, status, offline} for tests.
 */
(function () {
  "use strict";

  var boot = JSON.parse(document.getElementById("boot").textContent);
  var svg = document.getElementById("board");
  var root = document.documentElement;
  var state = { status: "connecting", page: boot.page_n || 1, pages: 1, renders: 0, fetches: 0, messages: 0,
                offline: false, lastHeard: Date.now(), doc: boot.doc, keys: null, rotations: 0 };
  window.__roads = state;
  Paint.observeClock(boot.now); // the server's clock when it answered this page (its models may be older)

  function orientation() { return window.innerHeight > window.innerWidth * 1.05 ? "portrait" : "landscape"; }

  function pageList() { var p = state.doc.pages; return p[orientation()] || p.landscape || p.portrait; }

  function current() {
    var list = pageList();
    state.pages = list.length;
    if (state.page > list.length) state.page = list.length;
    return list[state.page - 1];
  }

  function draw(fresh) {
    var model = current();
    Paint.paint(svg, model, { fresh: fresh ? Paint.freshCells(state.keys, model) : null });
    state.keys = Paint.cellKeys(model);
    state.renders++;
    root.setAttribute("data-page", state.page);
  }

  function show(doc) {
    if (!doc || !doc.pages) return;
    if (doc.release && boot.release && doc.release !== boot.release && RoadsOffline.newRelease(doc.release)) return;
    state.doc = doc;
    RoadsOffline.keep({ doc: doc }, boot.release); // for a reload without the service (static/js/sw.js)
    draw(true);
  }

  draw(false);
  RoadsOffline.keep({ doc: state.doc }, boot.release);
  var resizeTimer = null;
  window.addEventListener("resize", function () { clearTimeout(resizeTimer); resizeTimer = setTimeout(function () { draw(false); }, 120); });

  var rotate = boot.rotate_s || state.doc.rotate_s;
  if (rotate && RoadsOffline.motionNone) rotate = Math.max(rotate, 5); // lite: no effect under 5 s
  if (rotate) {
    setInterval(function () {
      if (state.offline || state.pages < 2) return;
      state.page = state.page % state.pages + 1;
      state.rotations++;
      state.keys = null; // a new page: nothing blinks
      draw(false);
    }, rotate * 1000);
  }

  window.__roadsLive = PushSocket.watch({
    ws: boot.ws, full: boot.full, modelUrl: boot.modelUrl, keepaliveS: boot.keepaliveS, tz: boot.tz, svg: svg,
    offlineSince: boot.offline && boot.offline.since, // booted by the service worker, service away
    state: state, show: show, held: boot.doc.held, offlineText: function () { return (current().offline || {}).text; }
  });
})();
