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

  var tileLayout = boot.tile;
  var tileLayouts = boot.tiles && boot.tiles.length ? boot.tiles : [boot.tile];

  function draw(entry, t, highlight) {
    var snap = asSnapshot(t);
    var prev = entry.table;
    var newShoe = !prev || prev.shoe !== t.shoe;
    Roads.renderBoard(entry.svg, snap, tileLayout, boot.labels, {
      compact: true, counters: true, highlight: highlight && !newShoe, clear: newShoe
    });
    entry.svg.setAttribute("aria-label", (t.name || t.id));
    entry.a.classList.toggle("has-good-road", (t.good_roads || []).length > 0);
    entry.a.setAttribute("data-version", t.version);
    entry.table = t;
    state.renders++;
  }

  function redrawAll() {
    for (var id in tiles) {
      if (Object.prototype.hasOwnProperty.call(tiles, id) && tiles[id].table) {
        var t = tiles[id].table;
        tiles[id].table = null; // full redraw, no highlight
        draw(tiles[id], t, false);
      }
    }
  }

  /**
   * Choose the wall's arrangement: for every number of columns, the tile shape (boot.tiles:
   * 16:9, 2:1, 2.4:1) that best fills the space each table gets; of those arrangements the one
   * with the largest big-road cells on screen, preferring the fuller wall when cells are within
   * 10%. The CSS then sizes the tiles from the wall's size (--cols, --rows, --aspect), so the wall
   * fits the viewport even between a resize and the next arrange(). When tiles would be
   * narrower than MIN_TILE_PX, they keep that width and the wall scrolls.
   */
  function arrange() {
    var n = Object.keys(tiles).length;
    empty.hidden = n > 0;
    if (!n) return;
    var cs = getComputedStyle(grid);
    var gap = parseFloat(cs.columnGap) || 8;
    var W = grid.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    var H = grid.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom);
    var first = tiles[Object.keys(tiles)[0]].a;
    var tcs = getComputedStyle(first);
    var edge = parseFloat(tcs.borderLeftWidth) + parseFloat(tcs.borderRightWidth); // tile border, px
    var options = [];
    for (var cols = 1; cols <= n; cols++) {
      var rows = Math.ceil(n / cols);
      var bw = (W - (cols - 1) * gap) / cols - edge, bh = (H - (rows - 1) * gap) / rows - edge;
      if (bw <= 0 || bh <= 0) continue;
      var pick = null;
      for (var i = 0; i < tileLayouts.length; i++) {
        var lay = tileLayouts[i];
        var scale = Math.min(bw / lay.width, bh / lay.height);
        var cover = scale * scale * lay.width * lay.height;
        if (!pick || cover > pick.cover) {
          pick = { cols: cols, rows: rows, layout: lay, cover: cover, cell: scale * lay.cell, w: scale * lay.width };
        }
      }
      options.push(pick);
    }
    var bestCell = 0;
    options.forEach(function (o) { if (o.cell > bestCell) bestCell = o.cell; });
    var best = null;
    options.forEach(function (o) { if (o.cell >= bestCell * 0.9 && (!best || o.cover > best.cover)) best = o; });
    var scroll = !best || best.w < MIN_TILE_PX;
    if (scroll) {
      // Too many tables for one screen at a readable size: fixed readable 16:9 tiles, scroll.
      var c = Math.max(1, Math.floor((W + gap) / (MIN_TILE_PX + edge + gap)));
      best = { cols: c, rows: Math.ceil(n / c), layout: boot.tile };
      grid.style.setProperty("--tile-w", Math.floor(Math.min(MIN_TILE_PX, (W - (c - 1) * gap) / c - edge) + edge) + "px");
    }
    grid.classList.toggle("scroll", scroll);
    grid.style.setProperty("--cols", best.cols);
    grid.style.setProperty("--rows", best.rows);
    grid.style.setProperty("--aspect", String(best.layout.width / best.layout.height));
    grid.style.setProperty("--edge", edge + "px");
    grid.setAttribute("data-cols", best.cols);
    grid.setAttribute("data-tile", best.layout.width + "x" + best.layout.height);
    if (best.layout !== tileLayout) {
      tileLayout = best.layout;
      redrawAll();
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
  // Text is fitted by measuring it: measure again when web fonts finish loading.
  var ft = null;
  if (document.fonts && document.fonts.addEventListener) {
    document.fonts.addEventListener("loadingdone", function () { clearTimeout(ft); ft = setTimeout(redrawAll, 60); });
  }

  if (boot.ws && window.WebSocket) {
    var status = document.getElementById("live-status");
    var live = new LiveSocket(boot.ws, {
      initial: { version: boot.version, data: boot.tables },
      fullUrl: boot.full,
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
