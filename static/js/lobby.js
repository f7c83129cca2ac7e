/*
 * Lobby wall: one tile per table (big road, last result, side-bet counters, good roads),
 * arranged to fill the viewport whatever the number of tables, updated over /ws/lobby.
 *
 * Boot data (<script id="boot">): {tables: [list_tables() entries], tile: board_layout(kind="tile"),
 *   labels, ws, tableUrl: "/tables/{id}", query: "?lang=..&theme=.."}.
 * A tile whose table has a good road is highlighted (class "has-good-road").
 * window.__roads exposes {version, renders, messages, status} for tests.
 */
(function () {
  "use strict";

  var boot = JSON.parse(document.getElementById("boot").textContent);
  var grid = document.getElementById("tiles");
  var empty = document.getElementById("no-tables");
  var tiles = {}; // id -> {a, svg, table}
  var state = { version: boot.version, renders: 0, messages: 0, status: "connecting" };
  window.__roads = state;
  var MIN_TILE_PX = 300;

  function asSnapshot(t) {
    // list_tables() entries use "id"; the renderer reads "table" and "name".
    var s = {};
    for (var k in t) if (Object.prototype.hasOwnProperty.call(t, k)) s[k] = t[k];
    if (s.table === undefined) s.table = s.id;
    return s;
  }

  function tileFor(t) {
    var entry = tiles[t.id];
    if (entry) return entry;
    var a = document.createElement("a");
    a.className = "tile";
    a.href = boot.tableUrl.replace("{id}", encodeURIComponent(t.id)) + (boot.query || "");
    a.setAttribute("data-table", t.id);
    var svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("class", "board tile-board");
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    svg.setAttribute("role", "img");
    a.appendChild(svg);
    grid.appendChild(a);
    entry = tiles[t.id] = { a: a, svg: svg, table: null };
    return entry;
  }

  function draw(entry, t, highlight) {
    var snap = asSnapshot(t);
    var prev = entry.table;
    var newShoe = !prev || prev.shoe !== t.shoe;
    Roads.renderBoard(entry.svg, snap, boot.tile, boot.labels, {
      compact: true, counters: true, highlight: highlight && !newShoe, clear: newShoe
    });
    entry.svg.setAttribute("aria-label", (t.name || t.id));
    entry.a.classList.toggle("has-good-road", (t.good_roads || []).length > 0);
    entry.a.setAttribute("data-version", t.version);
    entry.table = t;
    state.renders++;
  }

  function arrange() {
    var n = Object.keys(tiles).length;
    empty.hidden = n > 0;
    if (!n) return;
    var cs = getComputedStyle(grid);
    var gap = parseFloat(cs.columnGap) || 8;
    var W = grid.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    var top = grid.getBoundingClientRect().top + parseFloat(cs.paddingTop);
    var H = Math.max(200, window.innerHeight - top - parseFloat(cs.paddingBottom));
    var first = tiles[Object.keys(tiles)[0]].a;
    var tcs = getComputedStyle(first);
    var edge = parseFloat(tcs.borderLeftWidth) + parseFloat(tcs.borderRightWidth); // tile border, px
    var aspect = boot.tile.width / boot.tile.height;
    var best = { w: 0, cols: 1 };
    for (var cols = 1; cols <= n; cols++) {
      var rows = Math.ceil(n / cols);
      var w = Math.min((W - (cols - 1) * gap) / cols - edge, ((H - (rows - 1) * gap) / rows - edge) * aspect);
      if (w > best.w) best = { w: w, cols: cols };
    }
    if (best.w < MIN_TILE_PX) {
      // Too many tables for one screen at a readable size: fixed readable tiles, scroll.
      var c = Math.max(1, Math.floor((W + gap) / (MIN_TILE_PX + edge + gap)));
      best = { cols: c, w: Math.min(MIN_TILE_PX, (W - (c - 1) * gap) / c - edge) };
    }
    var tw = Math.floor(best.w), th = Math.floor(best.w / aspect);
    grid.style.gridTemplateColumns = "repeat(" + best.cols + ", " + (tw + edge) + "px)";
    grid.setAttribute("data-cols", best.cols);
    for (var id in tiles) {
      if (!Object.prototype.hasOwnProperty.call(tiles, id)) continue;
      tiles[id].svg.setAttribute("width", tw);
      tiles[id].svg.setAttribute("height", th);
    }
  }

  function applyList(list, highlight) {
    var seen = {};
    var changedCount = false;
    list.forEach(function (t) {
      seen[t.id] = true;
      var existed = !!tiles[t.id];
      var entry = tileFor(t);
      if (!existed) changedCount = true;
      if (!entry.table || entry.table.version !== t.version || entry.table.shoe !== t.shoe) draw(entry, t, highlight && existed);
    });
    for (var id in tiles) {
      if (Object.prototype.hasOwnProperty.call(tiles, id) && !seen[id]) {
        grid.removeChild(tiles[id].a);
        delete tiles[id];
        changedCount = true;
      }
    }
    if (changedCount) arrange();
  }

  applyList(boot.tables || [], false);
  arrange();

  var t = null;
  window.addEventListener("resize", function () { clearTimeout(t); t = setTimeout(arrange, 120); });

  if (boot.ws && window.WebSocket) {
    var status = document.getElementById("live-status");
    var live = new LiveSocket(boot.ws, {
      onStatus: function (s) {
        state.status = s;
        document.documentElement.setAttribute("data-live", s);
        if (status) {
          status.className = "status-pill status-" + s;
          status.textContent = boot.labels["ui." + s] || s;
        }
      },
      onMessage: function (msg) {
        state.messages++;
        if (msg.type === "snapshot" && Array.isArray(msg.data)) {
          state.version = msg.version;
          applyList(msg.data, true);
        }
      }
    });
    live.start();
    window.__roadsLive = live;
  }
})();
