/*
 * The waiting page (static/waiting.html): a screen whose page the service worker has never kept,
 * or (nginx's error_page) any page while the service behind nginx is down. It says "Waiting for
 * the service" in the screen's language (?lang=, else the browser's languages, as the service
 * picks them: zh-TW, zh-HK, zh-MO and Cantonese read Traditional Chinese), shows the address it
 * waits for, and asks that address every RETRY_MS: the first answer that is not a 5xx (the service
 * is back, even to say 404) reloads the page, which then is the board itself.
 * window.__roadsWaiting = {tries, lang} for tests.
 */
(function (global) {
  "use strict";

  var RETRY_MS = 5000;
  var words = JSON.parse(document.getElementById("words").textContent);
  var params = new URLSearchParams(global.location.search);

  function pick(tag) {
    if (!tag) return null;
    var parts = String(tag).toLowerCase().split(/[-_]/);
    if (parts[0] === "yue") return "zh-Hant";
    if (parts[0] === "zh") {
      if (parts.indexOf("hans") > 0) return "zh";
      return parts.slice(1).some(function (p) { return p === "hant" || p === "tw" || p === "hk" || p === "mo"; })
        ? "zh-Hant" : "zh";
    }
    return words[parts[0]] ? parts[0] : null;
  }

  var lang = pick(params.get("lang"));
  (global.navigator.languages || [global.navigator.language]).forEach(function (t) { lang = lang || pick(t); });
  lang = lang || "en";
  var w = words[lang];
  var root = document.documentElement;
  root.lang = lang;
  if (params.get("theme") === "light") { root.classList.remove("theme-dark"); root.classList.add("theme-light"); }
  document.title = w["waiting.title"];
  document.getElementById("waiting-h").textContent = w["waiting.title"];
  document.getElementById("waiting-text").textContent = w["waiting.text"];
  document.getElementById("waiting-url").textContent = global.location.pathname + global.location.search;
  var tryText = document.getElementById("waiting-try");
  var state = global.__roadsWaiting = { tries: 0, lang: lang };

  function clock() {
    var d = new Date(), two = function (n) { return (n < 10 ? "0" : "") + n; };
    return two(d.getHours()) + ":" + two(d.getMinutes()) + ":" + two(d.getSeconds());
  }

  function attempt() {
    state.tries++;
    tryText.textContent = w["waiting.last_try"].replace("{time}", clock());
    global.fetch(global.location.href, { cache: "no-store", credentials: "same-origin" }).then(function (r) {
      if (r.status < 500) global.location.reload();
      else setTimeout(attempt, RETRY_MS);
    }).catch(function () { setTimeout(attempt, RETRY_MS); });
  }
  setTimeout(attempt, RETRY_MS);
  tryText.textContent = w["waiting.last_try"].replace("{time}", clock());
})(window);
