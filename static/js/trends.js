/*
 * The trends page (web/http/trends_pages.py): paints the trends model embedded in the page
 * (web/render/trends.py) with the board painter (paint.js), as the PNG paints it with Pillow,
 * and reloads the page every minute (the figures of the day move with each round).
 */
(function () {
  "use strict";
  var svg = document.getElementById("trends");
  var model = JSON.parse(document.getElementById("trends-model").textContent);
  window.Paint.paint(svg, model);
  var reload = Number(svg.getAttribute("data-reload-s") || 0);
  if (reload > 0) setTimeout(function () { window.location.reload(); }, reload * 1000);
})();
