/*
 * The scoreboard's service worker: a screen never shows a browser error page (docs/signage.md).
 *
 * Served at /sw.js by web/http/offline.py, which puts `self.ROADS` before this file:
 *   {release, scope (the service's root path, "/"), shell: [URLs kept at install], waiting: URL}
 * so a new release is a new worker (the browser compares the bytes of /sw.js on navigations).
 *
 * What it keeps (Cache Storage, this origin only):
 *   roads-static-<release>  the shell: scripts, styles, /theme.css, the waiting page (at install),
 *                           and every /static/ file a page used (fonts), network first;
 *   roads-pages             the HTML of every page screen opened (board, lobby, named screen, embed,
 *                           past shoe, shoes list), under its normalised URL (PAGE_KEYS: a player's
 *                           ?t=123 cache-buster does not make a new entry), at most MAX_PAGES;
 *   roads-last              each screen's last board model and when it last heard the service,
 *                           posted by the page (static/js/offline.js: {type: "keep"}).
 * Never: API calls, writes (only GET is looked at), requests with an Authorization header, the
 * model JSON routes, /frames/, /push/, /ws/, PNGs (not pages: the browser handles them as ever).
 *
 * A page navigation goes to the network first (NAV_TIMEOUT_MS); a network failure or a 502/503/504
 * (the service down behind nginx) answers from roads-pages: the page's own HTML with its boot JSON
 * given the kept model and `offline: {since}` (the time it last heard the service), so the page
 * boots dimmed with "Offline since hh:mm:ss" and retries until the service answers
 * (static/js/push_socket.js). A URL never opened gets the waiting page ("Waiting for the service",
 * static/waiting.html), which retries and reloads itself when the service is back.
 */
/* global self, caches, fetch, Response, URL, Promise */
(function () {
  "use strict";

  var R = self.ROADS || { release: "dev", scope: "/", shell: [], waiting: "/static/waiting.html" };
  var STATIC = "roads-static-" + R.release, PAGES = "roads-pages", LAST = "roads-last";
  var NAV_TIMEOUT_MS = 8000, MAX_PAGES = 64;
  /** Query options of the pages (docs/frontend.md); others (a cache-buster) are not part of the key. */
  var PAGE_KEYS = ["bead", "cols", "columns", "good", "h", "lang", "motion", "page", "per_page", "roads", "rotate_s",
                   "sort", "state", "tables", "theme", "w"];
  var DOWN = { 502: true, 503: true, 504: true };

  function rel(url) { // path relative to the service's root, "" for the root itself
    return url.pathname.indexOf(R.scope) === 0 ? url.pathname.slice(R.scope.length) : null;
  }

  /** Is this path one of the screens' pages (not a model, image, API or push route)? */
  function isPage(path) {
    if (path === null) return false;
    return path === "" || path === "lobby" || /^screens\/[^/]+$/.test(path) && !/\.png$/.test(path) ||
      /^embed\/[^/]+$/.test(path) || /^tables\/[^/]+(\/shoes(\/\d+)?)?$/.test(path);
  }

  function isShell(path) { return path !== null && (path.indexOf("static/") === 0 || path === "theme.css"); }

  /** The cache key of a page URL: its path and its known options, sorted. */
  function pageKey(href) {
    var url = new URL(href), keep = [];
    PAGE_KEYS.forEach(function (k) { url.searchParams.getAll(k).forEach(function (v) { keep.push([k, v]); }); });
    return url.origin + url.pathname + (keep.length ? "?" + keep.map(function (kv) {
      return encodeURIComponent(kv[0]) + "=" + encodeURIComponent(kv[1]);
    }).join("&") : "");
  }

  function timed(promise, ms) {
    return new Promise(function (resolve, reject) {
      var t = setTimeout(function () { reject(new Error("timeout")); }, ms);
      promise.then(function (v) { clearTimeout(t); resolve(v); }, function (e) { clearTimeout(t); reject(e); });
    });
  }

  function isHtml(resp) { return (resp.headers.get("Content-Type") || "").indexOf("text/html") === 0; }

  function keepPage(key, resp) {
    return caches.open(PAGES).then(function (cache) {
      return cache.put(key, resp).then(function () { return cache.keys(); }).then(function (keys) {
        var extra = keys.length - MAX_PAGES; // oldest first
        return Promise.all(keys.slice(0, Math.max(0, extra)).map(function (k) { return cache.delete(k); }));
      });
    });
  }

  self.addEventListener("install", function (ev) {
    ev.waitUntil(caches.open(STATIC).then(function (cache) { return cache.addAll(R.shell); })
      .then(function () { return self.skipWaiting(); }));
  });

  self.addEventListener("activate", function (ev) {
    ev.waitUntil(caches.keys().then(function (names) {
      return Promise.all(names.filter(function (n) { return n.indexOf("roads-static-") === 0 && n !== STATIC; })
        .map(function (n) { return caches.delete(n); }));
    }).then(function () { return self.clients.claim(); }));
  });

  self.addEventListener("fetch", function (ev) {
    var req = ev.request;
    if (req.method !== "GET" || req.headers.has("Authorization")) return;
    var url = new URL(req.url);
    if (url.origin !== self.location.origin) return;
    var path = rel(url);
    if (req.mode === "navigate") {
      if (isPage(path)) ev.respondWith(navigate(ev));
      return;
    }
    if (isShell(path)) ev.respondWith(networkFirst(req));
  });

  function networkFirst(req) {
    return fetch(req).then(function (resp) {
      if (resp.ok) {
        var copy = resp.clone();
        caches.open(STATIC).then(function (cache) { return cache.put(req, copy); });
        return resp;
      }
      if (DOWN[resp.status]) throw new Error("down");
      return resp;
    }).catch(function () {
      return caches.match(req, { ignoreSearch: false }).then(function (hit) {
        return hit || Response.error();
      });
    });
  }

  function navigate(ev) {
    var req = ev.request, key = pageKey(req.url);
    return timed(fetch(req), NAV_TIMEOUT_MS).then(function (resp) {
      if (DOWN[resp.status]) throw new Error("down");
      if (resp.status === 200 && isHtml(resp)) ev.waitUntil(keepPage(key, resp.clone()));
      return resp;
    }).catch(function () { return offlinePage(req.url, key); });
  }

  /** The page's kept HTML, its boot JSON given the kept model and `offline`; else the waiting page. */
  function offlinePage(href, key) {
    var url = new URL(href);
    if (rel(url) === "") { // "/" redirects to the lobby (query kept): the lobby's kept page
      url.pathname = R.scope + "lobby";
      key = pageKey(url.href);
    }
    return Promise.all([
      caches.open(PAGES).then(function (c) { return c.match(key); }),
      caches.open(LAST).then(function (c) { return c.match(key); })
    ]).then(function (found) {
      if (!found[0]) return waitingPage();
      return Promise.all([found[0].text(), found[1] ? found[1].json() : null]).then(function (parts) {
        var headers = new Headers(found[0].headers);
        headers.delete("Content-Length");
        headers.set("X-Roads-Offline", "1");
        return new Response(withOfflineBoot(parts[0], parts[1]), { status: 200, headers: headers });
      });
    });
  }

  var BOOT = /(<script type="application\/json" id="boot">)([\s\S]*?)(<\/script>)/;

  /** ``html`` with its boot JSON given the kept document (same release only) and
   * ``offline: {since}``: the kept time the page last heard the service, else when the page was made. */
  function withOfflineBoot(html, kept) {
    var m = BOOT.exec(html);
    if (!m) return html;
    var boot;
    try { boot = JSON.parse(m[2]); } catch (e) { return html; }
    if (kept && kept.patch && kept.release === boot.release) {
      for (var k in kept.patch) if (Object.prototype.hasOwnProperty.call(kept.patch, k)) boot[k] = kept.patch[k];
    }
    if (boot.live !== false) {
      var since = kept && kept.heard ? kept.heard : Math.round((boot.now || 0) * 1000);
      boot.offline = { since: since };
    }
    var text = JSON.stringify(boot).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
    return html.slice(0, m.index) + m[1] + text + m[3] + html.slice(m.index + m[0].length);
  }

  function waitingPage() {
    return caches.match(R.waiting).then(function (hit) {
      if (!hit) return Response.error();
      return hit.text().then(function (html) {
        if (R.static && R.static !== "/static/") html = html.split('"/static/').join('"' + R.static); // a prefix
        return new Response(html, { status: 503, headers: { "Content-Type": "text/html; charset=utf-8",
          "Cache-Control": "no-store", "Retry-After": "5", "X-Roads-Offline": "1" } });
      });
    });
  }

  function version(model) { return model && typeof model.version === "number" ? model.version : -1; }

  /** Two screens of one address (a landscape and a portrait one, each following its orientation's
   * topic) keep into one entry: each orientation's model, and the lobby document, is the newer. */
  function newest(old, kept) {
    if (!old || old.release !== kept.release || !old.patch || !kept.patch) return kept;
    var patch = {}, k;
    for (k in kept.patch) if (Object.prototype.hasOwnProperty.call(kept.patch, k)) patch[k] = kept.patch[k];
    if (old.patch.models && patch.models) {
      var models = {};
      for (k in old.patch.models) if (Object.prototype.hasOwnProperty.call(old.patch.models, k)) models[k] = old.patch.models[k];
      for (k in patch.models) {
        if (Object.prototype.hasOwnProperty.call(patch.models, k) && version(patch.models[k]) >= version(models[k])) {
          models[k] = patch.models[k];
        }
      }
      patch.models = models;
    }
    if (old.patch.doc && patch.doc && version(old.patch.doc) > version(patch.doc)) patch.doc = old.patch.doc;
    return { patch: patch, heard: Math.max(old.heard || 0, kept.heard || 0), release: kept.release };
  }

  /** Pages post {type: "keep", url, patch, heard, release} (their newest document, throttled) and
   * {type: "hello", url} (once loaded: a page opened before this worker controlled it is kept now). */
  self.addEventListener("message", function (ev) {
    var msg = ev.data || {};
    if (!msg.url || new URL(msg.url).origin !== self.location.origin || !isPage(rel(new URL(msg.url)))) return;
    var key = pageKey(msg.url);
    if (msg.type === "keep") {
      ev.waitUntil(caches.open(LAST).then(function (c) {
        return c.match(key).then(function (hit) { return hit ? hit.json() : null; }).catch(function () { return null; })
          .then(function (old) {
            var kept = newest(old, { patch: msg.patch || null, heard: msg.heard || 0, release: msg.release || null });
            return c.put(key, new Response(JSON.stringify(kept), { headers: { "Content-Type": "application/json" } }));
          });
      }));
    } else if (msg.type === "hello") {
      ev.waitUntil(caches.open(PAGES).then(function (c) { return c.match(key); }).then(function (hit) {
        if (hit) return null;
        return fetch(msg.url, { credentials: "same-origin" }).then(function (resp) {
          if (resp.status === 200 && isHtml(resp)) return keepPage(key, resp);
          return null;
        }).catch(function () { return null; });
      }));
    }
  });
})();
