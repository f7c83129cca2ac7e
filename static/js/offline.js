/*
 * The page side of screens that never go dark (static/js/sw.js, docs/signage.md): registers the
 * service worker, gives it the screen's newest document, reloads once for a new release in a
 * quiet moment, and turns on the lite option (motion=none).
 *
 * Loaded first, in the <head> of every page (web/templates/base.html):
 *   <script src=".../js/offline.js" data-sw="/sw.js" data-scope="/"></script>
 * A service worker needs a secure context (https, or http://localhost / 127.0.0.1): on plain
 * http elsewhere nothing is registered and pages behave as before (docs/signage.md says how).
 *
 * Public: window.RoadsOffline = {
 *   keep(patch, release): the page's newest document as the keys of its boot JSON it replaces
 *     (board: {models}, lobby: {doc}); posted to the worker at most every KEEP_MS, again every
 *     HEARD_MS while the page hears the service, and at once when the page goes offline, with
 *     window.__roads.lastHeard (what "Offline since" says after a reload);
 *   newRelease(release) -> true while a reload is scheduled: the service runs another release, so
 *     the page reloads once, in a quiet moment (QUIET_MS without a new document, at most WAIT_MS),
 *     and never twice for one release within GUARD_MS (sessionStorage), so two processes of
 *     different releases behind one address cannot make it reload in a loop;
 *   motionNone: the page was opened with ?motion=none (class "motion-none" on <html>: no animation)
 * }
 */
(function (global) {
  "use strict";

  var KEEP_MS = 3000, HEARD_MS = 30000, QUIET_MS = 4000, WAIT_MS = 120000, GUARD_MS = 10 * 60 * 1000;
  var script = document.currentScript, root = document.documentElement;
  var motionNone = /(?:^|[?&])motion=none(?:&|$)/.test(global.location.search);
  if (motionNone) root.classList.add("motion-none");

  var sw = global.navigator && global.navigator.serviceWorker;
  var swUrl = script && script.getAttribute("data-sw");
  if (!(sw && swUrl && global.isSecureContext)) sw = null;

  function hello() {
    if (sw && sw.controller) sw.controller.postMessage({ type: "hello", url: global.location.href });
  }
  if (sw) {
    sw.register(swUrl, { scope: script.getAttribute("data-scope") || "/" }).catch(function () { /* no worker */ });
    sw.addEventListener("controllerchange", function () { hello(); post(); });
    global.addEventListener("load", hello);
  }

  var pending = null, postedAt = 0, postedHeard = 0, timer = null, wasOffline = false;

  function post() {
    clearTimeout(timer);
    timer = null;
    if (!pending || !sw || !sw.controller) return;
    var st = global.__roads || {};
    postedAt = Date.now();
    postedHeard = st.lastHeard || postedAt;
    sw.controller.postMessage({ type: "keep", url: global.location.href, patch: pending.patch,
                                release: pending.release, heard: postedHeard });
  }
  // (a live page keeps its boot document at once: pending is set from its first paint on)

  function keep(patch, release) {
    pending = { patch: patch, release: release };
    if (!timer) timer = setTimeout(post, Math.max(0, postedAt + KEEP_MS - Date.now()));
  }

  // Going offline: keep the time last heard at once; while live, refresh it now and then.
  setInterval(function () {
    var st = global.__roads;
    if (!st || !pending) return;
    var off = !!st.offline;
    if (off && !wasOffline) post();
    else if (!off && st.lastHeard > postedHeard && Date.now() - postedAt > HEARD_MS) post();
    wasOffline = off;
  }, 1000);

  var reloadTimer = null, lastDocAt = 0, asked = 0;

  function newRelease(release) {
    var key = "roads-reloaded:" + release, at = 0;
    lastDocAt = Date.now();
    try { at = +global.sessionStorage.getItem(key) || 0; } catch (e) { return false; } // no guard, no reload
    if (Date.now() - at < GUARD_MS) return false; // reloaded for it already: show it with this code
    if (reloadTimer) return true;
    asked = Date.now();
    if (sw) sw.getRegistration().then(function (r) { if (r) r.update(); }).catch(function () { /* later */ });
    (function wait() {
      reloadTimer = setTimeout(function () {
        var now = Date.now();
        if (now - lastDocAt < QUIET_MS && now - asked < WAIT_MS) { wait(); return; }
        try { global.sessionStorage.setItem(key, String(now)); } catch (e) { reloadTimer = null; return; }
        global.location.reload();
      }, 500);
    })();
    return true;
  }

  global.RoadsOffline = { keep: keep, newRelease: newRelease, motionNone: motionNone };
})(window);
