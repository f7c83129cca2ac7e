/*
 * Table scoreboard, past shoe and embed pages: render the snapshot embedded in the page,
 * then (live pages) apply every snapshot the WebSocket pushes.
 *
 * Boot data: <script type="application/json" id="boot"> with
 *   {page, table, live, ws, snapshot, layouts: {landscape, portrait?} | {fixed}, labels, compact}
 * The landscape or portrait layout (web/render/layout.py, 1920x1080 / 1080x1920) is chosen by the
 * viewport's shape; the SVG viewBox then scales it to the viewport, so it stays crisp.
 *
 * Update rules (docs/frontend.md): a newer version re-renders and highlights the cells that are new;
 * a new shoe clears the board at once (no highlight); a version gap or a version that goes
 * back is a resync: the full snapshot is drawn as is (every message is a full snapshot).
 * window.__roads exposes {version, shoe, renders, resyncs, messages, status} for tests.
 */
(function () {
  "use strict";

  var boot = JSON.parse(document.getElementById("boot").textContent);
  var svg = document.getElementById("board");
  var state = {
    snap: boot.snapshot,
    status: boot.live ? "connecting" : (boot.page === "past" ? "past" : null),
    renders: 0,
    resyncs: 0,
    messages: 0,
    shoeChanges: 0
  };
  window.__roads = state;

  function pickLayout() {
    var l = boot.layouts;
    if (l.fixed) return l.fixed;
    if (l.portrait && window.innerHeight > window.innerWidth * 1.05) return l.portrait;
    return l.landscape;
  }

  function render(highlight, clear) {
    var layout = pickLayout();
    Roads.renderBoard(svg, state.snap, layout, boot.labels, {
      status: boot.compact ? null : state.status,
      highlight: highlight,
      clear: clear,
      compact: !!boot.compact
    });
    state.renders++;
    state.version = state.snap.version;
    state.shoe = state.snap.shoe;
    state.orientation = layout.orientation;
  }

  function apply(snap) {
    var prev = state.snap;
    var newShoe = !prev || snap.shoe !== prev.shoe || snap.table !== prev.table;
    if (!newShoe && snap.version === prev.version) return; // already drawn (e.g. the snapshot sent on reconnect)
    if (!newShoe && snap.version !== prev.version + 1) state.resyncs++;
    if (newShoe) state.shoeChanges++;
    state.snap = snap;
    // New shoe: wipe at once, nothing to highlight. Otherwise highlight what is new.
    render(!newShoe && snap.version > prev.version, newShoe);
  }

  render(false, true);
  // Text is fitted to its panel by measuring it: measure again when web fonts finish loading.
  var fontTimer = null;
  if (document.fonts && document.fonts.addEventListener) {
    document.fonts.addEventListener("loadingdone", function () {
      clearTimeout(fontTimer);
      fontTimer = setTimeout(function () { render(false, false); }, 60);
    });
  }

  var resizeTimer = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () { render(false, true); }, 120);
  });

  if (boot.live && boot.ws && window.WebSocket) {
    var live = new LiveSocket(boot.ws, {
      onStatus: function (status) {
        state.status = status;
        document.documentElement.setAttribute("data-live", status);
        if (!boot.compact) Roads.updateStatus(svg, status, boot.labels);
      },
      onMessage: function (msg) {
        state.messages++;
        if (msg.type === "snapshot" && msg.data) apply(msg.data);
      }
    });
    live.start();
    window.__roadsLive = live;
  }
})();
