/*
 * The SVG painter of the board model (web/render/model.py): it paints only what the model says,
 * as web/render/paint_png.py does with Pillow. Colours are palette names: each shape gets the
 * class f-<name> (fill) or s-<name> (stroke) that /theme.css defines from web/render/theme.py.
 *
 * Public: window.Paint.paint(svg, model, {fresh: {road: {key: true}}}) draws the whole model
 * into the <svg> (viewBox = the model's canvas, so it scales to any screen);
 * Paint.cellKeys(model) -> {road id: {cell key: true}} (to find cells that are new);
 * Paint.observeClock(unix seconds): a server time just received (the countdowns' clock).
 * Elements carry data attributes for tests: data-panel, data-road, data-k, data-m, data-c.
 */
(function (global) {
  "use strict";

  var NS = "http://www.w3.org/2000/svg";

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k) && attrs[k] !== undefined) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  function cls(name) { return String(name).replace(/_/g, "-"); }

  function r1(v) { return Math.round(v * 100) / 100; }

  var ANCHOR = { l: "start", m: "middle", r: "end" };

  function text(parent, it) {
    var t = el("text", {
      x: it.x, y: it.y, "font-size": it.s, "text-anchor": ANCHOR[it.a] || "start",
      "class": "f-" + cls(it.c) + (it.w === "r" ? " w-r" : " w-b"), "data-c": it.c
    }, parent);
    t.textContent = it.t;
    if (it.cd) {
      t.setAttribute("data-cd", it.cd); t.setAttribute("data-fmt", it.fmt || "{s}");
      if (it.done) { t.setAttribute("data-done", it.done); t.setAttribute("data-ds", it.ds || it.s); }
    }
    return t;
  }

  // Betting countdowns (web/render/status_panel.py): text with data-cd (Unix s betting closes)
  // ticks against the server's clock. Every server time seen (a model's "now", the page's
  // boot "now") is at most the server's clock when it arrives, and a model pushed or cached a
  // while ago is older still, so the offset kept is the largest seen (observeClock).
  var clockOffsetMs = null;
  function observeClock(unixSeconds) {
    if (typeof unixSeconds !== "number") return;
    var offset = unixSeconds * 1000 - Date.now();
    if (clockOffsetMs === null || offset > clockOffsetMs) clockOffsetMs = offset;
  }
  // The model fits a countdown's words for its widest count ("99"), cutting the template as it
  // cuts the words, so every count fits its box; at 0 it says data-done ("Bets closed", fitted
  // to the same box at data-ds px) in the neutral colour and stops ticking.
  function tick() {
    var list = document.querySelectorAll("[data-cd]");
    var now = Date.now() + (clockOffsetMs || 0);
    for (var i = 0; i < list.length; i++) {
      var e = list[i];
      var left = Math.max(0, Math.ceil(parseFloat(e.getAttribute("data-cd")) - now / 1000 - 1e-9));
      if (left <= 0 && e.hasAttribute("data-done")) {
        e.textContent = e.getAttribute("data-done");
        e.setAttribute("font-size", e.getAttribute("data-ds"));
        e.setAttribute("class", "f-muted w-b");
        e.setAttribute("data-c", "muted");
        e.removeAttribute("data-cd");
        continue;
      }
      var t = e.getAttribute("data-fmt").replace("{s}", String(left));
      if (e.textContent !== t) e.textContent = t;
    }
  }
  if (typeof setInterval === "function") setInterval(tick, 250);

  function panelRadius(p) { return Math.max(2, Math.round(Math.min(p.w, p.h) * 0.08)); }

  /** One road cell (or a legend / ask mark): shapes with the proportions of model.geom. */
  function cell(parent, c, model, halo, fresh) {
    var g = model.geom, s = c.s, cx = c.x + s / 2, cy = c.y + s / 2;
    var grp = el("g", { "data-k": c.k, "data-m": c.m, "data-c": c.c, "class": "cell" + (c.n ? " newest" : "") + (fresh ? " arrive" : "") }, parent);
    var col = cls(c.c || "muted");
    var m = c.m;
    if (m === "disc" || m === "dot" || m === "pip") {
      el("circle", { cx: r1(cx), cy: r1(cy), r: r1(s * g[m].r), "class": "f-" + col + " main" }, grp);
    } else if (m === "ring" || m === "eye") {
      el("circle", { cx: r1(cx), cy: r1(cy), r: r1(s * g[m].r), "stroke-width": r1(s * g[m].w), fill: "none", "class": "s-" + col + " main" }, grp);
    } else if (m === "slash" || m === "tie") {
      line(grp, c.x, c.y, s, g[m], "s-" + col + " main");
    }
    if (c.t) {
      var gl = (model.glyphs || {})[c.t] || [g.letter.one, 0.18];
      var t = el("text", { x: r1(cx), y: r1(cy + gl[1] * s), "font-size": r1(gl[0] * s), "text-anchor": "middle", "class": "f-on-symbol w-b" }, grp);
      t.textContent = c.t;
    }
    if (c.ties && m === "ring") line(grp, c.x, c.y, s, g.tie, "s-tie");
    var marks = [["bp", "banker"], ["pp", "player"], ["nat", "natural"]];
    for (var i = 0; i < marks.length; i++) {
      if (!c[marks[i][0]]) continue;
      var p = g[marks[i][0]];
      el("circle", { cx: r1(c.x + s * p.x), cy: r1(c.y + s * p.y), r: r1(s * (g.mark.r + g.mark.halo)), "class": "f-" + halo }, grp);
      el("circle", { cx: r1(c.x + s * p.x), cy: r1(c.y + s * p.y), r: r1(s * g.mark.r), "class": "f-" + marks[i][1] + " mark-" + marks[i][0] }, grp);
    }
    if (c.ties > 1 && (model.glyphs || {})[String(c.ties)]) { // no glyph: too small to read, left out
      var gc = model.glyphs[String(c.ties)];
      var tc = el("text", { x: r1(cx), y: r1(cy + gc[1] * s), "font-size": r1(gc[0] * s), "text-anchor": "middle", "class": "f-text w-b tie-count" }, grp);
      tc.textContent = String(c.ties);
    }
    if (c.n) {
      var n = g.newest, inset = s * n.inset, w = Math.max(1, s * n.w);
      el("rect", { x: r1(c.x + inset + w / 2), y: r1(c.y + inset + w / 2), width: r1(s - 2 * inset - w), height: r1(s - 2 * inset - w),
        rx: r1(s * n.radius), fill: "none", "stroke-width": r1(w), "class": "s-newest newest-mark" }, grp);
    }
    return grp;
  }

  function line(parent, x, y, s, geo, klass) {
    el("line", { x1: r1(x + s * geo.a), y1: r1(y + s * geo.b), x2: r1(x + s * geo.b), y2: r1(y + s * geo.a),
      "stroke-width": r1(s * geo.w), "stroke-linecap": "round", "class": klass }, parent);
  }

  function items(parent, list, model) {
    for (var i = 0; i < list.length; i++) {
      var it = list[i];
      if (it.p === "t") { if (it.t) text(parent, it); }
      else if (it.p === "r") el("rect", { x: it.x, y: it.y, width: it.w, height: it.h, rx: it.r || 0, "class": "f-" + cls(it.c) }, parent);
      else if (it.p === "l") el("line", { x1: it.x1, y1: it.y1, x2: it.x2, y2: it.y2, "stroke-width": it.w, "class": "s-" + cls(it.c) }, parent);
      else if (it.p === "m") cell(parent, it, model, "panel", false);
      else if (it.p === "g") el("polygon", { points: it.pts.join(" "), "class": "f-" + cls(it.c) }, parent);
    }
  }

  function grid(parent, r) {
    el("rect", { x: r.x, y: r.y, width: r.cols * r.cell, height: r.rows * r.cell, "class": "f-cell" }, parent);
    var d = "";
    for (var i = 0; i <= r.cols; i++) d += "M" + (r.x + i * r.cell + 0.5) + " " + r.y + "v" + (r.rows * r.cell);
    for (var j = 0; j <= r.rows; j++) d += "M" + r.x + " " + (r.y + j * r.cell + 0.5) + "h" + (r.cols * r.cell);
    el("path", { d: d, fill: "none", "stroke-width": 1, "class": "s-grid grid-line" }, parent);
    el("rect", { x: r.x + 0.5, y: r.y + 0.5, width: r.cols * r.cell, height: r.rows * r.cell, fill: "none", "stroke-width": 1, "class": "s-grid-major" }, parent);
  }

  /** Paint ``model`` into group ``root`` (origin at the canvas' top left). */
  function paintInto(root, model, fresh) {
    var later = [];
    var panels = model.panels || [];
    var bgs = el("g", { "class": "panel-bgs" }, root);
    for (var i = 0; i < panels.length; i++) {
      var p = panels[i];
      if (p.id === "banner") { later.push(p); continue; }
      if (p.bg) el("rect", { x: p.x, y: p.y, width: p.w, height: p.h, rx: panelRadius(p), "class": "f-" + cls(p.bg) }, bgs);
    }
    var roads = el("g", { "class": "roads" + (model.dim ? " dim" : "") }, root);
    (model.roads || []).forEach(function (r) {
      var g = el("g", { "data-road": r.id, "class": "road" }, roads);
      grid(g, r);
      var f = (fresh && fresh[r.id]) || null;
      for (var k = 0; k < r.cells.length; k++) cell(g, r.cells[k], model, "cell", !!(f && f[r.cells[k].k]));
    });
    for (var j = 0; j < panels.length; j++) {
      if (panels[j].id === "banner") continue;
      var pg = el("g", { "data-panel": panels[j].id, "class": "panel" }, root);
      items(pg, panels[j].items, model);
      (panels[j].targets || []).forEach(function (t) {
        el("rect", { x: t.x, y: t.y, width: t.w, height: t.h, fill: "transparent", "class": "target", "data-ask": t.ask }, pg);
      });
    }
    (model.tiles || []).forEach(function (t) {
      var tg = el("g", { transform: "translate(" + t.x + "," + t.y + ")", "data-tile": t.id, "class": "tile" + (t.model.hl ? " hl" : "") }, root);
      var edge = Math.max(2, Math.round(Math.min(t.w, t.h) * 0.008));
      el("rect", { x: edge / 2, y: edge / 2, width: t.w - edge, height: t.h - edge, rx: Math.max(4, Math.round(Math.min(t.w, t.h) * 0.03)),
        "stroke-width": edge, "class": "f-panel " + (t.model.hl ? "s-natural" : "s-panel-edge") + " tile-bg" }, tg);
      paintInto(tg, t.model, fresh && fresh["tile:" + t.id]);
    });
    later.forEach(function (p) {
      var bg = el("g", { "data-panel": p.id, "class": "panel banner" }, root);
      el("rect", { x: p.x, y: p.y, width: p.w, height: p.h, "class": "f-" + cls(p.bg) }, bg);
      items(bg, p.items, model);
    });
  }

  function paint(svg, model, opts) {
    opts = opts || {};
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute("viewBox", "0 0 " + model.w + " " + model.h);
    svg.setAttribute("data-kind", model.kind);
    svg.setAttribute("data-version", model.version === undefined ? "" : model.version);
    observeClock(model.now);
    el("rect", { x: 0, y: 0, width: model.w, height: model.h, "class": "f-background" }, svg);
    var root = el("g", { "class": "model" }, svg);
    paintInto(root, model, opts.fresh || null);
    // the offline band: hidden until the page hears nothing from the server (board.js / lobby.js)
    var off = model.offline || { text: "", size: 24 };
    var h = Math.round(off.size * 2.2);
    var band = el("g", { "class": "offline-band", "data-panel": "offline" }, svg);
    el("rect", { x: 0, y: Math.round((model.h - h) / 2), width: model.w, height: h, "class": "f-offline" }, band);
    var t = el("text", { x: model.w / 2, y: Math.round(model.h / 2 + off.size * 0.36), "font-size": off.size, "text-anchor": "middle", "class": "f-offline-text w-b offline-text" }, band);
    t.textContent = offlineTime ? off.text.replace("{time}", offlineTime) : off.text;
    // the held band: shown while the server cannot rebuild this page's model (push_socket.js)
    var held = el("g", { "class": "held-band" }, svg);
    el("rect", { x: 0, y: Math.round((model.h - h) / 2), width: model.w, height: h, "class": "f-offline" }, held);
    var ht = el("text", { x: model.w / 2, y: Math.round(model.h / 2 + off.size * 0.36), "font-size": off.size, "text-anchor": "middle", "class": "f-offline-text w-b held-text" }, held);
    ht.textContent = heldText;
  }

  /** What the held band says (the document's "held" text with its time, or "" when not held);
   * kept across repaints, set by push_socket.js. */
  var heldText = "";
  function setHeldText(text) {
    heldText = text || "";
    var shown = document.querySelectorAll(".held-text");
    for (var i = 0; i < shown.length; i++) shown[i].textContent = heldText;
  }

  /** The time the offline band says ("hh:mm:ss", or "" while live); kept across repaints (a resize
   * while offline repaints the band from the model's template), set by push_socket.js. */
  var offlineTime = "";
  function setOfflineTime(text) { offlineTime = text || ""; }

  function cellKeys(model) {
    var out = {};
    (model.roads || []).forEach(function (r) {
      var m = out[r.id] = {};
      r.cells.forEach(function (c) { m[c.k] = true; });
    });
    (model.tiles || []).forEach(function (t) {
      var sub = cellKeys(t.model);
      out["tile:" + t.id] = sub;
    });
    return out;
  }

  /** Cells of ``model`` whose keys ``before`` (cellKeys of the previous model) lacks. */
  function freshCells(before, model) {
    if (!before) return null;
    var now = cellKeys(model), out = {};
    for (var road in now) {
      if (!Object.prototype.hasOwnProperty.call(now, road)) continue;
      if (road.indexOf("tile:") === 0) { if (before[road]) out[road] = diff(before[road], now[road]); continue; }
      out[road] = {};
      for (var k in now[road]) if (!(before[road] && before[road][k])) out[road][k] = true;
    }
    return out;
  }

  function diff(before, now) {
    var out = {};
    for (var road in now) {
      out[road] = {};
      for (var k in now[road]) if (!(before[road] && before[road][k])) out[road][k] = true;
    }
    return out;
  }

  global.Paint = { paint: paint, cellKeys: cellKeys, freshCells: freshCells, observeClock: observeClock, setHeldText: setHeldText, setOfflineTime: setOfflineTime };
})(window);
