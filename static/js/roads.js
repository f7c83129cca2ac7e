/*
 * Road-map renderer: draws a table snapshot (roads/schema/snapshot.schema.json) as SVG.
 *
 * Geometry comes from web/render/layout.py (passed into the page as JSON): a road cell (x, y)
 * is drawn at region.x + x * region.cell, region.y + y * region.cell, exactly where the
 * PNG renderer draws it. Nothing here decides a road: every cell, colour and count is
 * read from the snapshot. Labels come from the i18n catalogue passed in (web/i18n/*.json).
 *
 * Symbols (docs/domain.md section 4): big road hollow rings (Banker red, Player blue),
 * green tie slash with the count when > 1, banker-pair red dot top-left, player-pair
 * blue dot bottom-right, natural gold dot top-right; bead plate filled circles with the
 * winner's letter; big eye boy small hollow circles; small road solid dots; cockroach
 * pig slashes. Every drawn cell carries data-road, data-x, data-y (window-relative
 * grid cell), data-col (absolute column) and data-round / data-color, for tests and tools.
 *
 * Public: window.Roads = {renderBoard, renderTile, firstColumn, format, cellKeys}.
 */
(function (global) {
  "use strict";

  var SVGNS = "http://www.w3.org/2000/svg";
  var DERIVED = ["big_eye_boy", "small_road", "cockroach_pig"];
  var STAT_ROWS = ["rounds", "banker", "player", "tie", "banker_pair", "player_pair", "natural"];
  var SIDE_OF_PATTERN = {
    long_banker: "B", banker_jump: "B", two_banker_one_player: "B",
    long_player: "P", player_jump: "P", one_banker_two_player: "P"
  };

  /* ---------- small helpers ---------- */

  function el(name, attrs, parent) {
    var node = document.createElementNS(SVGNS, name);
    if (attrs) {
      for (var k in attrs) {
        if (Object.prototype.hasOwnProperty.call(attrs, k) && attrs[k] !== null && attrs[k] !== undefined) {
          node.setAttribute(k, String(attrs[k]));
        }
      }
    }
    if (parent) parent.appendChild(node);
    return node;
  }

  function r2(v) { return Math.round(v * 100) / 100; }

  /** Fill {name} placeholders of a catalogue label. */
  function format(label, values) {
    var out = String(label);
    if (values) {
      for (var k in values) {
        if (Object.prototype.hasOwnProperty.call(values, k)) out = out.split("{" + k + "}").join(String(values[k]));
      }
    }
    return out;
  }

  function label(labels, key, fallback) {
    if (labels && Object.prototype.hasOwnProperty.call(labels, key)) return labels[key];
    return fallback !== undefined ? fallback : key;
  }

  /**
   * First grid column to show of a road in a window `cols` wide (roads/window.py):
   * whole columns only; the window ends at the road's right edge unless that would hide the
   * start of the newest logical column, then it starts there; if the newest column alone is
   * wider than the window (a long dragon tail), the window ends at its newest cell.
   * `cells` are the snapshot's cells in placement order ({x, column}); bead plate beads
   * (no `column`) fill whole columns in order, so for them this is the bead-plate rule.
   */
  function firstColumn(cells, cols) {
    cells = cells || [];
    if (!cells.length) return 0;
    var right = 0;
    for (var i = 0; i < cells.length; i++) if (cells[i].x + 1 > right) right = cells[i].x + 1;
    var offset = right > cols ? right - cols : 0;
    var newest = cells[cells.length - 1];
    if (newest.column === undefined) return offset;
    var start = newest.x;
    for (var j = cells.length - 1; j >= 0 && cells[j].column === newest.column; j--) start = Math.min(start, cells[j].x);
    if (newest.x - start + 1 > cols) return newest.x - cols + 1;
    return Math.min(offset, start);
  }

  function visible(x, first, cols) { return x >= first && x < first + cols; }

  /*
   * Text widths come from a canvas's measureText in the board's font, not from the SVG's
   * getComputedTextLength: that one lays out the whole board again after every change, which
   * made a render cost 130-200 ms. The SVG falls back to it when no canvas is available.
   */
  var measureCtx = null;
  var measureFamily = null;
  var BOLD_CLASS = /(^|\s)(title|heading|value|gold|badge-text|bead-letter|tie-count|winner|total)(\s|$)/;

  /** Use the font family of `node` (the board's SVG) for the measurements of the next render. */
  function measureWith(node) {
    try { measureFamily = global.getComputedStyle(node).fontFamily || null; } catch (e) { measureFamily = null; }
    if (!measureCtx) {
      try { measureCtx = document.createElement("canvas").getContext("2d"); } catch (e2) { measureCtx = null; }
    }
  }

  /** Width in px of `str` at `size` px, bold or not; null when it cannot be measured here. */
  function textWidth(str, size, bold) {
    if (!measureCtx || !measureFamily) return null;
    measureCtx.font = (bold ? "700 " : "400 ") + r2(size) + "px " + measureFamily;
    return measureCtx.measureText(String(str)).width;
  }

  function isBold(node) {
    var cls = node.getAttribute("class") || "";
    if (/(^|\s)side(\s|$)/.test(cls)) return false;
    if (BOLD_CLASS.test(cls)) return true;
    if (/(^|\s)state(\s|$)/.test(cls)) {
      var p = node.parentNode;
      return !!(p && p.getAttribute && /(^|\s)open(\s|$)/.test(p.getAttribute("class") || ""));
    }
    return false;
  }

  /** Drawn width of an SVG text element (its tspans measured one by one), 0 if unknown. */
  function safeLen(t) {
    var size = parseFloat(t.getAttribute("font-size")) || 16;
    var w = 0, kids = t.childNodes, bold = isBold(t);
    for (var i = 0; i < kids.length; i++) {
      var k = kids[i];
      var part = textWidth(k.textContent, size, k.nodeType === 1 ? (isBold(k) || (bold && !/(^|\s)side(\s|$)/.test(k.getAttribute("class") || ""))) : bold);
      if (part === null) { w = null; break; }
      w += part;
    }
    if (w === null) {
      try { w = t.getComputedTextLength(); } catch (e) { w = 0; }
    }
    var tl = parseFloat(t.getAttribute("textLength"));
    return tl > 0 ? Math.min(w, tl) : w;
  }

  /** Shrink an SVG text element until it is at most maxWidth wide (never below minScale of its size). */
  function fitText(textEl, maxWidth, minScale) {
    if (!(maxWidth > 0)) return;
    var len = safeLen(textEl);
    if (!(len > maxWidth)) return;
    var size = parseFloat(textEl.getAttribute("font-size")) || 16;
    var scale = Math.max(minScale || 0.6, maxWidth / len);
    textEl.setAttribute("font-size", r2(size * scale));
    len = safeLen(textEl);
    if (len > maxWidth) {
      textEl.setAttribute("textLength", r2(maxWidth));
      textEl.setAttribute("lengthAdjust", "spacingAndGlyphs");
    }
  }

  function text(parent, x, y, str, size, cls, anchor, maxWidth) {
    var t = el("text", {
      x: r2(x), y: r2(y), "font-size": r2(size), "class": cls || "txt",
      "text-anchor": anchor || "start", "dominant-baseline": "central"
    }, parent);
    t.textContent = str;
    if (maxWidth) fitText(t, maxWidth);
    return t;
  }

  function title(node, str) {
    var t = el("title", null, node);
    t.textContent = str;
  }

  /* ---------- grids ---------- */

  function drawGrid(parent, region, road) {
    var g = el("g", { "class": "grid", "data-region": road }, parent);
    el("rect", { x: region.x, y: region.y, width: region.w, height: region.h, "class": "grid-bg" }, g);
    var d = [];
    for (var c = 0; c <= region.cols; c++) {
      var x = region.x + c * region.cell;
      d.push("M" + x + " " + region.y + "V" + (region.y + region.rows * region.cell));
    }
    for (var r = 0; r <= region.rows; r++) {
      var y = region.y + r * region.cell;
      d.push("M" + region.x + " " + y + "H" + (region.x + region.cols * region.cell));
    }
    el("path", { d: d.join(""), "class": "grid-line" }, g);
    return g;
  }

  function cellGroup(parent, region, road, x, y, first, extra) {
    var attrs = {
      "class": "cell", "data-road": road, "data-x": x - first, "data-y": y, "data-col": x, "data-size": region.cell,
      transform: "translate(" + (region.x + (x - first) * region.cell) + "," + (region.y + y * region.cell) + ")"
    };
    for (var k in extra) if (Object.prototype.hasOwnProperty.call(extra, k)) attrs[k] = extra[k];
    return el("g", attrs, parent);
  }

  function winnerClass(w) { return w === "B" ? "B" : w === "P" ? "P" : "T"; }
  function colorClass(color) { return color === "red" ? "B" : "P"; }

  function marks(g, c, item) {
    var dot = Math.max(2, c * 0.11);
    if (item.banker_pair) el("circle", { cx: r2(c * 0.2), cy: r2(c * 0.2), r: r2(dot), "class": "pair-dot B" }, g);
    if (item.player_pair) el("circle", { cx: r2(c * 0.8), cy: r2(c * 0.8), r: r2(dot), "class": "pair-dot P" }, g);
    if (item.natural) el("circle", { cx: r2(c * 0.8), cy: r2(c * 0.2), r: r2(dot * 0.9), "class": "natural-dot" }, g);
  }

  function describe(labels, item) {
    var parts = [format(label(labels, "ui.round_n", "Round {n}"), { n: item.round })];
    parts.push(label(labels, "winner." + item.winner, item.winner));
    if (item.player_total !== undefined && item.banker_total !== undefined) {
      parts.push(label(labels, "winner.P", "Player") + " " + item.player_total + ", " +
        label(labels, "winner.B", "Banker") + " " + item.banker_total);
    }
    if (item.ties) parts.push(label(labels, "winner.T", "Tie") + " \u00d7" + item.ties);
    if (item.banker_pair) parts.push(label(labels, "ui.banker_pair", "Banker pair"));
    if (item.player_pair) parts.push(label(labels, "ui.player_pair", "Player pair"));
    if (item.natural) parts.push(label(labels, "ui.natural", "Natural"));
    return parts.join(" \u00b7 ");
  }

  /* ---------- roads ---------- */

  function drawBeadPlate(parent, region, snap, labels) {
    drawGrid(parent, region, "bead_plate");
    var beads = snap.bead_plate || [];
    var first = firstColumn(beads, region.cols);
    var c = region.cell;
    for (var i = 0; i < beads.length; i++) {
      var b = beads[i];
      if (!visible(b.x, first, region.cols)) continue;
      var w = winnerClass(b.winner);
      var g = cellGroup(parent, region, "bead_plate", b.x, b.y, first, {
        "data-round": b.round, "data-winner": b.winner,
        "data-key": "bead_plate:" + b.x + ":" + b.y + ":" + b.winner + (b.banker_pair ? "b" : "") + (b.player_pair ? "p" : "") + (b.natural ? "n" : "")
      });
      el("circle", { cx: c / 2, cy: c / 2, r: r2(c * 0.42), "class": "bead " + w }, g);
      text(g, c / 2, c / 2 + c * 0.02, label(labels, "winner_short." + b.winner, b.winner), c * 0.5, "bead-letter", "middle");
      marks(g, c, b);
      title(g, describe(labels, b));
    }
  }

  function drawBigRoad(parent, region, snap, labels) {
    drawGrid(parent, region, "big_road");
    var road = snap.big_road || { leading_ties: 0, columns: [], cells: [] };
    var cells = road.cells || [];
    var columns = road.columns || [];
    var lead = road.leading_ties || 0;
    var first = firstColumn(cells, region.cols);
    var c = region.cell;
    if (!cells.length && lead > 0) {
      // A shoe of only ties so far: the leading ties wait on the first cell.
      var g0 = cellGroup(parent, region, "big_road", 0, 0, 0, {
        "data-round": "", "data-winner": "T", "data-ties": lead, "data-key": "big_road:0:0:T" + lead
      });
      tieSlash(g0, c, lead);
      title(g0, label(labels, "ui.ties_before_first", "Ties before the first result") + ": " + lead);
      return;
    }
    for (var i = 0; i < cells.length; i++) {
      var cell = cells[i];
      if (!visible(cell.x, first, region.cols)) continue;
      var item = (columns[cell.column] || [])[cell.row];
      if (!item) continue;
      var ties = (item.ties || 0) + (cell.column === 0 && cell.row === 0 ? lead : 0);
      var w = winnerClass(item.winner);
      var g = cellGroup(parent, region, "big_road", cell.x, cell.y, first, {
        "data-round": item.round, "data-winner": item.winner, "data-ties": ties,
        "data-column": cell.column, "data-row": cell.row,
        "data-key": "big_road:" + cell.x + ":" + cell.y + ":" + item.winner + ties +
          (item.banker_pair ? "b" : "") + (item.player_pair ? "p" : "") + (item.natural ? "n" : "")
      });
      el("circle", { cx: c / 2, cy: c / 2, r: r2(c * 0.34), "class": "ring " + w, "stroke-width": r2(Math.max(1.5, c * 0.1)) }, g);
      if (ties > 0) tieSlash(g, c, ties);
      marks(g, c, item);
      var desc = describe(labels, { round: item.round, winner: item.winner, ties: ties,
        banker_pair: item.banker_pair, player_pair: item.player_pair, natural: item.natural });
      title(g, desc);
    }
  }

  function tieSlash(g, c, ties) {
    el("line", {
      x1: r2(c * 0.2), y1: r2(c * 0.8), x2: r2(c * 0.8), y2: r2(c * 0.2),
      "class": "tie-slash", "stroke-width": r2(Math.max(1.5, c * 0.09))
    }, g);
    if (ties > 1) {
      text(g, c / 2, c / 2 + c * 0.02, String(ties), c * 0.46, "tie-count", "middle");
    }
  }

  function derivedSymbol(g, road, c, color) {
    var cls = colorClass(color);
    if (road === "big_eye_boy") {
      el("circle", { cx: c / 2, cy: c / 2, r: r2(c * 0.33), "class": "eye " + cls, "stroke-width": r2(Math.max(1.2, c * 0.13)) }, g);
    } else if (road === "small_road") {
      el("circle", { cx: c / 2, cy: c / 2, r: r2(c * 0.36), "class": "dot " + cls }, g);
    } else {
      el("line", { x1: r2(c * 0.2), y1: r2(c * 0.8), x2: r2(c * 0.8), y2: r2(c * 0.2),
        "class": "slash " + cls, "stroke-width": r2(Math.max(1.5, c * 0.16)) }, g);
    }
  }

  function drawDerived(parent, region, snap, labels, road) {
    drawGrid(parent, region, road);
    var data = snap[road] || { cells: [] };
    var cells = data.cells || [];
    var first = firstColumn(cells, region.cols);
    var name = label(labels, "road." + road, road);
    for (var i = 0; i < cells.length; i++) {
      var cell = cells[i];
      if (!visible(cell.x, first, region.cols)) continue;
      var g = cellGroup(parent, region, road, cell.x, cell.y, first, {
        "data-color": cell.color, "data-key": road + ":" + cell.x + ":" + cell.y + ":" + cell.color
      });
      derivedSymbol(g, road, region.cell, cell.color);
      title(g, name + ": " + cell.color);
    }
  }

  /**
   * Ask road: a row for a next Banker and one for a next Player, each with the symbol every
   * derived road would add. Where the sidebar has room right of the grid (landscape boards),
   * each row is labelled ("If Banker" / "If Player"); otherwise the road's name goes under it
   * when there is room (portrait boards).
   */
  function drawAsk(parent, region, snap, labels, opts, sizes, layout) {
    var g = el("g", { "class": "ask", "data-region": "ask" }, parent);
    var c = region.cell;
    var regions = (layout && layout.regions) || {};
    var side = regions.stats && regions.stats.x === region.x ? regions.stats : null;
    var labelW = side ? side.x + side.w - (region.x + region.w) - c * 0.5 : 0;
    var withLabels = sizes && labelW > c * 1.2;
    if (withLabels) {
      el("rect", { x: region.x, y: region.y, width: side.w, height: region.h, rx: Math.min(12, region.h * 0.1), "class": "panel-bg" }, g);
    }
    el("rect", { x: region.x, y: region.y, width: region.w, height: region.h, "class": "grid-bg" }, g);
    var ask = snap.ask || {};
    var sides = [["banker", "B"], ["player", "P"]];
    for (var r = 0; r < sides.length; r++) {
      var side = sides[r][0], w = sides[r][1];
      var y = region.y + r * c;
      var row = el("g", { "class": "ask-row", "data-ask": side }, g);
      title(row, label(labels, side === "banker" ? "ui.ask_banker" : "ui.ask_player") + " (" + label(labels, "road.ask", "Ask road") + ")");
      var head = el("g", { transform: "translate(" + region.x + "," + y + ")" }, row);
      el("circle", { cx: c / 2, cy: c / 2, r: r2(c * 0.4), "class": "bead " + w }, head);
      text(head, c / 2, c / 2 + c * 0.02, label(labels, "winner_short." + w, w), c * 0.48, "bead-letter", "middle");
      var entries = ask[side] || {};
      for (var k = 0; k < DERIVED.length; k++) {
        var road = DERIVED[k];
        var cg = el("g", {
          transform: "translate(" + (region.x + (k + 1) * c) + "," + y + ")",
          "class": "ask-cell", "data-road": road, "data-ask": side, "data-color": entries[road] || ""
        }, row);
        if (entries[road]) {
          var inner = el("g", { transform: "translate(" + r2(c * 0.15) + "," + r2(c * 0.15) + ")" }, cg);
          derivedSymbol(inner, road, c * 0.7, entries[road]);
        } else {
          el("line", { x1: r2(c * 0.35), y1: c / 2, x2: r2(c * 0.65), y2: c / 2, "class": "ask-none" }, cg);
        }
      }
    }
    var d = [];
    for (var i = 1; i < 4; i++) d.push("M" + (region.x + i * c) + " " + region.y + "V" + (region.y + 2 * c));
    d.push("M" + region.x + " " + (region.y + c) + "H" + (region.x + 4 * c));
    el("path", { d: d.join(""), "class": "grid-line" }, g);
    if (!sizes) return;
    var size = Math.min(sizes.label, c * 0.42) * lineFactor(labels);
    if (withLabels) {
      sides.forEach(function (sd, r) {
        text(g, region.x + region.w + c * 0.3, region.y + (r + 0.5) * c,
          label(labels, sd[0] === "banker" ? "ui.ask_banker" : "ui.ask_player"), size, "txt ask-label win-" + sd[1], "start", labelW)
          .setAttribute("data-field", "ask-" + sd[0]);
      });
      return;
    }
    var below = regions.side_bets ? regions.side_bets.y + regions.side_bets.h : 0;
    if (below - (region.y + region.h) >= sizes.label * 1.6) {
      text(g, region.x + region.w / 2, region.y + region.h + sizes.label * 0.9, label(labels, "road.ask", "Ask road"),
        Math.min(sizes.label, c * 0.42), "txt heading ask-label", "middle", region.w).setAttribute("data-field", "ask-name");
    }
  }

  /* ---------- text panels ---------- */

  function panel(parent, region, name) {
    var g = el("g", { "class": "panel", "data-region": name }, parent);
    el("rect", { x: region.x, y: region.y, width: region.w, height: region.h, rx: Math.min(12, region.h * 0.1), "class": "panel-bg" }, g);
    return g;
  }

  function drawHeader(parent, region, snap, labels, opts, sizes) {
    var g = panel(parent, region, "header");
    var pad = Math.max(6, region.h * 0.14);
    var name = snap.name || snap.table || "";
    var twoLines = region.h >= sizes.title * 1.9;
    var statusW = opts.status ? Math.min(region.w * 0.3, sizes.label * 7) : 0;
    var details = [];
    if (snap.shoe !== undefined && snap.shoe !== null) details.push(format(label(labels, "ui.shoe_n"), { n: snap.shoe }));
    if (snap.round !== undefined && snap.round !== null) details.push(format(label(labels, "ui.round_n"), { n: snap.round }));
    if (snap.variant && snap.variant.name && !opts.compact) details.push(snap.variant.name);
    if (twoLines) {
      text(g, region.x + pad, region.y + region.h * 0.34, name, sizes.title, "txt title", "start", region.w - 2 * pad - statusW)
        .setAttribute("data-field", "name");
      text(g, region.x + pad, region.y + region.h * 0.76, details.join("  \u00b7  "), sizes.label, "txt muted", "start", region.w - 2 * pad - statusW)
        .setAttribute("data-field", "details");
    } else {
      var size = Math.min(sizes.title, region.h * 0.55);
      var t = text(g, region.x + pad, region.y + region.h / 2, name, size, "txt title", "start", (region.w - 2 * pad - statusW) * 0.55);
      t.setAttribute("data-field", "name");
      var used = Math.min(safeLen(t), (region.w - 2 * pad - statusW) * 0.55);
      text(g, region.x + pad + used + size * 0.6, region.y + region.h / 2, details.join(" \u00b7 "), size * 0.72, "txt muted", "start",
        region.w - 2 * pad - statusW - used - size * 0.6).setAttribute("data-field", "details");
    }
    if (opts.status) {
      var sg = el("g", {
        "data-field": "status",
        "data-right": r2(region.x + region.w - pad),
        "data-cy": r2(region.y + (twoLines ? region.h * 0.34 : region.h / 2)),
        "data-size": r2(sizes.small), "data-maxw": r2(statusW)
      }, g);
      drawStatus(sg, opts.status, labels);
    }
  }

  function drawStatus(sg, status, labels) {
    while (sg.firstChild) sg.removeChild(sg.firstChild);
    sg.setAttribute("class", "status status-" + status);
    sg.setAttribute("data-status", status);
    var right = parseFloat(sg.getAttribute("data-right"));
    var cy = parseFloat(sg.getAttribute("data-cy"));
    var size = parseFloat(sg.getAttribute("data-size"));
    var maxw = parseFloat(sg.getAttribute("data-maxw"));
    var rr = Math.max(3, size * 0.36);
    var st = text(sg, right, cy, label(labels, "ui." + (status === "past" ? "past_shoe" : status)), size, "txt status-text", "end", maxw - rr * 3);
    el("circle", { cx: r2(right - safeLen(st) - rr * 2), cy: r2(cy), r: r2(rr), "class": "status-dot" }, sg);
  }

  /** Change the live indicator of a rendered board without redrawing the roads. */
  function updateStatus(svg, status, labels) {
    var sg = svg.querySelector('[data-field="status"]');
    if (sg) drawStatus(sg, status, labels);
  }


  /**
   * "Player 8 · Banker 6" as one text line: each side's catalogue word and total in its colour,
   * the total bold. `short` uses the one-letter words (B / P, 庄 / 闲) for cramped places.
   */
  function totalsText(parent, x, y, last, labels, size, anchor, maxWidth, short) {
    var t = text(parent, x, y, "", size, "txt totals", anchor);
    var key = short ? "winner_short." : "winner.";
    var sides = [["P", last.player_total], ["B", last.banker_total]];
    sides.forEach(function (side, i) {
      if (i) el("tspan", { "class": "muted-fill sep" }, t).textContent = " \u00b7 ";
      el("tspan", { "class": "win-" + side[0] + " side" }, t).textContent = label(labels, key + side[0], side[0]) + " ";
      el("tspan", { "class": "win-" + side[0] + " total", "data-side": side[0] }, t).textContent = String(side[1]);
    });
    t.setAttribute("data-field", "totals");
    if (maxWidth) fitText(t, maxWidth, 0.55);
    return t;
  }

  /**
   * Last result. Full boards: the winner's word large (with its bead when the panel is wide),
   * then both totals labelled ("Player 8 · Banker 6"), then the pair / natural marks in gold
   * (beside the winner's word instead when a third line would leave the totals too small).
   * Compact (lobby tiles, embed header): the winner's bead and "P 8 · B 6" (short words).
   */
  function drawLastResult(parent, region, snap, labels, opts, sizes) {
    var g = panel(parent, region, "last_result");
    var last = snap.last;
    var pad = Math.max(4, Math.min(region.h, region.w) * 0.12);
    if (!last) {
      var wait = label(labels, "ui.no_rounds_yet");
      var wt0 = text(g, region.x + region.w / 2, region.y + region.h / 2, wait,
        opts.compact ? sizes.small : sizes.label, "txt muted", "middle");
      fitText(wt0, region.w - 2 * pad, 0.75);
      if (wt0.hasAttribute("textLength")) {
        // Too long to read here (lobby tiles): a dash, the words in the tooltip.
        wt0.removeAttribute("textLength");
        wt0.removeAttribute("lengthAdjust");
        wt0.setAttribute("font-size", r2(Math.min(sizes.value, region.h * 0.5)));
        wt0.textContent = "\u2013";
        title(g, wait);
      }
      return;
    }
    g.setAttribute("data-round", last.round);
    g.setAttribute("data-winner", last.winner);
    var w = winnerClass(last.winner);
    var hasTotals = last.player_total !== undefined && last.player_total !== null &&
      last.banker_total !== undefined && last.banker_total !== null;
    var flags = [];
    if (last.banker_pair) flags.push(label(labels, "ui.banker_pair"));
    if (last.player_pair) flags.push(label(labels, "ui.player_pair"));
    if (last.natural) flags.push(label(labels, "ui.natural"));
    var compact = opts.compact || region.h < sizes.title * 1.9;
    var d, cx, cy = region.y + region.h / 2;
    if (compact) {
      d = Math.min(region.h - 2 * pad, region.w * 0.3);
      cx = region.x + pad + d / 2;
      el("circle", { cx: r2(cx), cy: r2(cy), r: r2(d / 2), "class": "bead " + w }, g);
      text(g, cx, cy + d * 0.02, label(labels, "winner_short." + last.winner, last.winner), d * 0.55, "bead-letter", "middle");
      var tx = region.x + pad * 1.6 + d;
      var avail = region.x + region.w - pad - tx;
      var size = Math.min(sizes.value * 1.15, region.h * 0.55);
      if (hasTotals) totalsText(g, tx, cy, last, labels, size, "start", avail, true);
      else text(g, tx, cy, label(labels, "winner." + last.winner), size, "txt value win-" + w, "start", avail);
      title(g, describe(labels, last));
      return;
    }
    // Lines: winner (large), totals, marks; their heights shared out of the panel height.
    // Line pitch per px of text: Burmese stacks marks above and below the line and needs more.
    var pitch = lineFactor(labels) < 1 ? 1.8 : 1.18;
    var left = region.x + pad, right = region.x + region.w - pad;
    // The winner's bead beside the text when the panel is wide enough to spare it.
    if (region.w >= region.h * 3.4) {
      d = Math.min(region.h - 2 * pad, region.w * 0.22);
      cx = left + d / 2;
      el("circle", { cx: r2(cx), cy: r2(cy), r: r2(d / 2), "class": "bead " + w }, g);
      text(g, cx, cy + d * 0.02, label(labels, "winner_short." + last.winner, last.winner), d * 0.55, "bead-letter", "middle");
      left += d + pad;
    }
    var width = right - left;
    var winWord = label(labels, "winner." + last.winner, last.winner);
    var marks = flags.join("  \u00b7  ");
    function sizesFor(lines) {
      var weights = [1.55, hasTotals ? 1 : 0, lines === 3 ? 0.8 : 0];
      var sum = weights[0] + weights[1] + weights[2];
      var unit = (region.h - 2 * pad * 0.6) / (sum * pitch);
      return {
        weights: weights, unit: unit, sum: sum,
        win: Math.min(sizes.title * 1.15, unit * weights[0]),
        tot: Math.min(sizes.value * 1.1, unit * weights[1]),
        flag: Math.min(sizes.label, unit * (lines === 3 ? weights[2] : 0.8))
      };
    }
    // Marks on a third line; when that would make the totals too small to read (a short panel,
    // tall script), on the winner's line, right-aligned, if they fit beside the word there.
    var L = sizesFor(flags.length ? 3 : 2), beside = false;
    if (flags.length && hasTotals && L.tot < sizes.label * 0.7) {
      var L2 = sizesFor(2);
      var need = (textWidth(winWord, L2.win, true) || 0) + (textWidth(marks, L2.flag, true) || 0) + L2.win * 0.5;
      if (need <= width) { L = L2; beside = true; }
    }
    var y = region.y + (region.h - L.unit * L.sum * pitch) / 2;
    var line1 = y + L.unit * L.weights[0] * pitch / 2;
    var mk = null;
    if (flags.length && beside) {
      mk = text(g, right, line1, marks, L.flag, "txt gold marks", "end", width * 0.5);
      mk.setAttribute("data-field", "marks");
    }
    var wt = text(g, left, line1, winWord, L.win, "txt value winner win-" + w, "start",
      mk ? width - safeLen(mk) - L.win * 0.5 : width);
    wt.setAttribute("data-field", "winner");
    y += L.unit * L.weights[0] * pitch;
    if (hasTotals) {
      totalsText(g, left, y + L.unit * L.weights[1] * pitch / 2, last, labels, L.tot, "start", width, false);
      y += L.unit * L.weights[1] * pitch;
    }
    if (flags.length && !beside) {
      text(g, left, y + L.unit * L.weights[2] * pitch / 2, marks, L.flag, "txt gold marks", "start", width)
        .setAttribute("data-field", "marks");
    }
    title(g, describe(labels, last));
  }

  /**
   * Burmese letters stack marks above and below the line: its text needs about a quarter
   * more line height than Latin, Thai or Lao at the same size, so rows of it get smaller text.
   */
  function lineFactor(labels) {
    return /[\u1000-\u109F]/.test(label(labels, "winner.B", "")) ? 0.8 : 1;
  }

  function pct(n, total) { return total > 0 ? Math.round((100 * n) / total) + "%" : "\u2013"; }

  function drawStats(parent, region, snap, labels, opts, sizes) {
    var g = panel(parent, region, "stats");
    var st = snap.stats || {};
    var pad = Math.max(6, sizes.label * 0.5);
    var x0 = region.x + pad, x1 = region.x + region.w - pad;
    text(g, x0, region.y + pad + sizes.label * 0.6, label(labels, "ui.statistics"), sizes.label, "txt heading", "start", region.w - 2 * pad);
    var y = region.y + pad + sizes.label * 1.5;
    // Share bar: Banker | Player | Tie.
    var total = (st.banker || 0) + (st.player || 0) + (st.tie || 0);
    var barH = Math.max(6, sizes.small * 0.7);
    var bw = x1 - x0;
    if (total > 0) {
      var acc = x0;
      [["banker", "B"], ["player", "P"], ["tie", "T"]].forEach(function (p) {
        var wdt = bw * (st[p[0]] || 0) / total;
        if (wdt > 0) el("rect", { x: r2(acc), y: r2(y), width: r2(wdt), height: r2(barH), "class": "bar " + p[1] }, g);
        acc += wdt;
      });
    } else {
      el("rect", { x: r2(x0), y: r2(y), width: r2(bw), height: r2(barH), "class": "bar empty" }, g);
    }
    y += barH + pad * 0.6;
    var rows = [];
    STAT_ROWS.forEach(function (key) {
      if (st[key] === undefined || st[key] === null || typeof st[key] === "object") return;
      var value = String(st[key]);
      if ((key === "banker" || key === "player" || key === "tie") && total > 0) value += "  (" + pct(st[key], total) + ")";
      rows.push([key, label(labels, "stats." + key, key), value]);
    });
    var streak = streakText(st, labels);
    if (streak) rows.push(["streak", label(labels, "stats.streak"), streak]);
    var lb = longest(st, "banker"), lp = longest(st, "player");
    if (lb !== null) rows.push(["longest_banker", label(labels, "stats.longest_banker"), String(lb)]);
    if (lp !== null) rows.push(["longest_player", label(labels, "stats.longest_player"), String(lp)]);
    var rowH = Math.min(sizes.label * 1.35, (region.y + region.h - pad - y) / Math.max(1, rows.length));
    var size = Math.min(sizes.label, rowH * 0.78 * lineFactor(labels));
    rows.forEach(function (row, i) {
      var cy = y + rowH * (i + 0.5);
      var rg = el("g", { "data-stat": row[0] }, g);
      var cls = row[0] === "banker" ? " win-B" : row[0] === "player" ? " win-P" : row[0] === "tie" ? " win-T" : "";
      var v = text(rg, x1, cy, row[2], size, "txt value" + cls, "end", bw * 0.45);
      text(rg, x0, cy, row[1], size, "txt", "start", bw - safeLen(v) - size * 0.6);
    });
  }

  function streakText(st, labels) {
    var s = st.streak !== undefined ? st.streak : st.current_streak;
    if (s === undefined || s === null) return "";
    if (typeof s === "object") {
      if (!s.winner || !s.length) return "";
      return label(labels, "winner." + s.winner, s.winner) + " \u00d7" + s.length;
    }
    return String(s);
  }

  function longest(st, side) {
    var keys = ["longest_" + side, "longest_" + side + "_streak"];
    for (var i = 0; i < keys.length; i++) if (typeof st[keys[i]] === "number") return st[keys[i]];
    if (st.longest && typeof st.longest[side] === "number") return st.longest[side];
    if (st.longest_streak && typeof st.longest_streak[side] === "number") return st.longest_streak[side];
    return null;
  }

  function sideBetState(bet, labels, compact) {
    if (!bet.open) return label(labels, "ui.closed");
    var unlimited = bet.rounds_left === null || bet.rounds_left === undefined || bet.limit === null || bet.limit === undefined;
    if (compact) return unlimited ? "\u221e" : String(bet.rounds_left);
    if (unlimited) return label(labels, "ui.open") + " \u00b7 " + label(labels, "ui.whole_shoe");
    return label(labels, "ui.open") + " \u00b7 " + format(label(labels, "ui.rounds_left"), { n: bet.rounds_left });
  }

  /** Width per px of font size of `str` (an estimate from its length when it cannot be measured). */
  function unitWidth(str, bold) {
    var w = textWidth(str, 100, bold);
    return w === null ? String(str).length * 0.6 : w / 100;
  }

  /**
   * Side-bet availability counters: one row per bet (label, state, a bar of the rounds left
   * of its limit), every row in one text size. One column shows the full state ("Open · 9 left");
   * two or three columns show the rounds left under a "rounds left" heading (the infinity sign
   * for a bet open the whole shoe; "Closed", or 0 when the word would make the text small).
   * The arrangement with the largest text wins; closed rows are muted.
   */
  function drawSideBets(parent, region, snap, labels, opts, sizes) {
    var g = panel(parent, region, "side_bets");
    var bets = snap.side_bets || [];
    var pad = Math.max(6, sizes.label * 0.5);
    var x0 = region.x + pad, x1 = region.x + region.w - pad, bw = x1 - x0;
    var top = region.y + pad + sizes.label * 1.4;
    var avail = region.y + region.h - pad * 0.6 - top;
    var lf = lineFactor(labels);
    var names = bets.map(function (bet) { return label(labels, "bet." + bet.bet, bet.label || bet.bet); });
    function stateOf(bet, mode) {
      if (mode === "full") return sideBetState(bet, labels, false);
      if (!bet.open && mode === "num") return "0";
      return sideBetState(bet, labels, true);
    }
    // Measure every name and state once per mode (widths per px of font size).
    var nameW = names.map(function (n) { return unitWidth(n, false); });
    var stateW = {};
    ["full", "word", "num"].forEach(function (mode) {
      stateW[mode] = bets.map(function (bet) { return unitWidth(stateOf(bet, mode), true); });
    });
    var best = null;
    for (var nc = 1; nc <= 3 && bets.length; nc++) {
      var per = Math.ceil(bets.length / nc);
      var gapX = nc > 1 ? sizes.label * 0.9 : 0;
      var cw = (bw - gapX * (nc - 1)) / nc;
      var rh = Math.min(sizes.label * 1.7, avail / per);
      var cap = Math.min(sizes.label, rh * 0.6) * lf;
      var modes = nc === 1 ? ["full"] : ["word", "num"];
      for (var mi = 0; mi < modes.length; mi++) {
        // One size for every row: what the longest rows allow, but not below 3/4 of the cap
        // (one or two very long names are squeezed on their own instead of shrinking all).
        var fits = bets.map(function (bet, i) { return cw / (nameW[i] + stateW[modes[mi]][i] + 0.6); }).sort(function (a, b) { return a - b; });
        var sz = Math.min(cap, Math.max(fits[0], Math.min(fits[Math.min(2, fits.length - 1)], cap * 0.75)));
        // Prefer one column, and words over numbers, unless the other gives clearly larger text.
        var score = sz * (nc === 1 ? 1.1 : 1) * (modes[mi] === "num" ? 0.8 : 1);
        if (!best || score > best.score) best = { score: score, cols: nc, mode: modes[mi], size: sz, colW: cw, rowH: rh, gap: gapX };
      }
    }
    var cols = best ? best.cols : 1;
    var heading = label(labels, "ui.side_bets") + (cols > 1 ? " \u00b7 " + label(labels, "ui.rounds_left_heading") : "");
    text(g, x0, region.y + pad + sizes.label * 0.6, heading, sizes.label, "txt heading", "start", bw);
    if (!bets.length) {
      text(g, x0, top + sizes.label * 0.6, "\u2013", sizes.label, "txt muted");
      return;
    }
    var perCol = Math.ceil(bets.length / cols);
    var colW = best.colW, rowH = best.rowH, gap = best.gap;
    var size = Math.max(best.size, Math.min(sizes.small, sizes.label * 0.6));
    g.setAttribute("data-columns", cols);
    g.setAttribute("data-mode", best.mode);
    bets.forEach(function (bet, i) {
      var col = Math.floor(i / perCol), row = i % perCol;
      var cx0 = x0 + col * (colW + gap), cx1 = cx0 + colW;
      var rtop = top + rowH * row;
      var rg = el("g", {
        "class": "side-bet " + (bet.open ? "open" : "closed"), "data-bet": bet.bet,
        "data-open": bet.open ? "true" : "false",
        "data-rounds-left": bet.rounds_left === null || bet.rounds_left === undefined ? "" : bet.rounds_left
      }, g);
      var cy = rtop + rowH * 0.42;
      var st = text(rg, cx1, cy, stateOf(bet, best.mode), size, "txt state", "end", colW * 0.5);
      text(rg, cx0, cy, names[i], size, "txt", "start", colW - safeLen(st) - size * 0.5);
      title(rg, names[i] + ": " + sideBetState(bet, labels, false));
      var barY = rtop + rowH * 0.8, barH = Math.max(2, rowH * 0.09);
      el("rect", { x: r2(cx0), y: r2(barY), width: r2(colW), height: r2(barH), rx: r2(barH / 2), "class": "bar empty" }, rg);
      if (bet.open) {
        var frac = bet.limit ? Math.max(0, Math.min(1, (bet.rounds_left || 0) / bet.limit)) : 1;
        el("rect", { x: r2(cx0), y: r2(barY), width: r2(colW * frac), height: r2(barH), rx: r2(barH / 2), "class": "bar open" }, rg);
      }
    });
  }

  /** "Side bets 9/11 open · next closes in 6" (the fewest rounds left among open limited bets). */
  function sideBetSummary(bets, labels, short) {
    var open = 0, next = null;
    bets.forEach(function (b) {
      if (!b.open) return;
      open++;
      if (b.rounds_left !== null && b.rounds_left !== undefined && (next === null || b.rounds_left < next)) next = b.rounds_left;
    });
    var out = format(label(labels, "ui.side_bets_open"), { open: open, total: bets.length });
    if (next !== null && !short) out += " \u00b7 " + format(label(labels, "ui.next_close"), { n: next });
    return out;
  }

  function badgeClass(pattern) {
    var side = SIDE_OF_PATTERN[pattern];
    return side ? "badge " + side : "badge N";
  }

  function goodRoadText(gr, labels) {
    var name = label(labels, "good_road." + gr.pattern, gr.label || gr.pattern);
    return gr.length ? name + " \u00b7 " + gr.length : name;
  }

  /**
   * Badges left to right; items that do not fit are dropped, except the first, whose text is
   * shrunk to fit (so a highlighted lobby tile always says which good road it has).
   * Returns the x after the last badge.
   */
  function badges(g, items, x, cy, maxX, size, attr) {
    var padX = size * 0.6, h = size * 1.6;
    for (var i = 0; i < items.length; i++) {
      var it = items[i];
      var bg = el("g", { "class": it.cls }, g);
      if (attr) bg.setAttribute(attr, it.id);
      var rect = el("rect", { x: r2(x), y: r2(cy - h / 2), height: r2(h), rx: r2(h / 2), width: 10, "class": "badge-bg" }, bg);
      var t = text(bg, x + padX, cy, it.text, size, "txt badge-text");
      title(bg, it.text);
      var w = safeLen(t) + 2 * padX;
      if (x + w > maxX) {
        if (i > 0 || maxX - x < size * 3) { g.removeChild(bg); break; }
        fitText(t, maxX - x - 2 * padX, 0.7);
        w = Math.min(safeLen(t) + 2 * padX, maxX - x);
      }
      rect.setAttribute("width", r2(w));
      x += w + size * 0.5;
    }
    return x;
  }

  function drawGoodRoads(parent, region, snap, labels, opts, sizes) {
    var g = panel(parent, region, "good_roads");
    var list = snap.good_roads || [];
    var pad = Math.max(4, region.h * 0.15);
    // Lobby tiles and embeds: the strip is all there is besides the roads; use its height.
    var size = opts.compact ? Math.min(sizes.label * 1.25, region.h * 0.5) : Math.min(sizes.label, region.h * 0.42);
    var cy = region.y + region.h / 2;
    var x = region.x + pad;
    var maxX = region.x + region.w - pad;
    var items = list.map(function (gr) { return { id: gr.pattern, cls: badgeClass(gr.pattern), text: goodRoadText(gr, labels) }; });
    if (opts.compact) {
      // Good roads first (they are why a tile is highlighted), the side-bet summary in what is left.
      var end = items.length ? badges(g, items, x, cy, maxX, size * 0.9, "data-pattern") : x;
      var bets = snap.side_bets || [];
      var room = maxX - end - (items.length ? size * 0.6 : 0);
      if (opts.counters && bets.length && room > size * 4) {
        // The whole summary, else without "next closes in n", else nothing (never squeezed).
        var ct = null, forms = [sideBetSummary(bets, labels), sideBetSummary(bets, labels, true)];
        for (var f = 0; f < forms.length && !ct; f++) {
          ct = text(g, maxX, cy, forms[f], size * 0.85, "txt muted counters", "end");
          fitText(ct, room, 0.75);
          if (ct.hasAttribute("textLength")) { g.removeChild(ct); ct = null; }
        }
        if (ct) {
          ct.setAttribute("data-field", "counters");
          title(ct, bets.map(function (b) {
            return label(labels, "bet." + b.bet, b.bet) + ": " + sideBetState(b, labels, false);
          }).join("\n"));
        }
      }
      return;
    }
    var h = text(g, x, cy, label(labels, "ui.good_roads") + ":", size, "txt heading");
    x += safeLen(h) + size * 0.6;
    if (!list.length) {
      text(g, x, cy, label(labels, "ui.no_good_roads"), size, "txt muted", "start", maxX - x);
      return;
    }
    var after = badges(g, items, x, cy, maxX - region.w * 0.3, size * 0.9, "data-pattern");
    text(g, maxX, cy, label(labels, "ui.history_note"), size * 0.62, "txt muted note", "end", Math.max(0, maxX - after - size));
  }

  /* ---------- boards ---------- */

  var DRAWERS = {
    header: drawHeader,
    last_result: drawLastResult,
    bead_plate: function (p, r, s, l) { drawBeadPlate(p, r, s, l); },
    big_road: function (p, r, s, l) { drawBigRoad(p, r, s, l); },
    big_eye_boy: function (p, r, s, l) { drawDerived(p, r, s, l, "big_eye_boy"); },
    small_road: function (p, r, s, l) { drawDerived(p, r, s, l, "small_road"); },
    cockroach_pig: function (p, r, s, l) { drawDerived(p, r, s, l, "cockroach_pig"); },
    ask: drawAsk,
    stats: drawStats,
    side_bets: drawSideBets,
    good_roads: drawGoodRoads
  };
  var ORDER = ["header", "last_result", "big_road", "bead_plate", "big_eye_boy", "small_road", "cockroach_pig",
    "ask", "stats", "side_bets", "good_roads"];

  /** Keys of every drawn cell (road, position, content): the diff of two renders = the new cells. */
  function cellKeys(svg) {
    var out = {};
    var nodes = svg.querySelectorAll("[data-key]");
    for (var i = 0; i < nodes.length; i++) out[nodes[i].getAttribute("data-key")] = true;
    return out;
  }

  /**
   * Draw `snap` into `svg` with `layout` (board_layout(...) output).
   * opts: {status: "live"|"connecting"|"offline"|"past"|null, highlight: bool, compact: bool,
   *        counters: bool, clear: bool}. With highlight, cells that were not in the previous
   * render get the class "fresh" (a brief CSS pulse). Returns the number of fresh cells.
   */
  function renderBoard(svg, snap, layout, labels, opts) {
    opts = opts || {};
    var before = opts.highlight && !opts.clear ? cellKeys(svg) : null;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute("viewBox", "0 0 " + layout.width + " " + layout.height);
    svg.setAttribute("data-version", snap.version);
    svg.setAttribute("data-shoe", snap.shoe);
    svg.setAttribute("data-table", snap.table);
    svg.setAttribute("data-orientation", layout.orientation || "");
    el("rect", { x: 0, y: 0, width: layout.width, height: layout.height, "class": "board-bg" }, svg);
    measureWith(svg);
    var sizes = layout.text || { title: 24, label: 16, value: 18, small: 13, cell: 14 };
    var root = el("g", { "class": "board-root" }, svg);
    for (var i = 0; i < ORDER.length; i++) {
      var name = ORDER[i];
      var region = layout.regions[name];
      if (!region || region.w <= 0 || region.h <= 0) continue;
      DRAWERS[name](root, region, snap, labels, opts, sizes, layout);
    }
    var fresh = 0;
    if (before) {
      var nodes = svg.querySelectorAll("[data-key]");
      for (var j = 0; j < nodes.length; j++) {
        var node = nodes[j];
        if (!before[node.getAttribute("data-key")]) {
          node.setAttribute("class", node.getAttribute("class") + " fresh");
          var size = parseFloat(node.getAttribute("data-size")) || 0;
          if (size > 0) {
            var glow = el("rect", { x: 1, y: 1, width: size - 2, height: size - 2, rx: r2(size * 0.18), "class": "fresh-bg" });
            node.insertBefore(glow, node.firstChild);
          }
          fresh++;
        }
      }
    }
    return fresh;
  }

  global.Roads = {
    renderBoard: renderBoard,
    updateStatus: updateStatus,
    firstColumn: firstColumn,
    format: format,
    cellKeys: cellKeys,
    fitText: fitText
  };
})(window);
