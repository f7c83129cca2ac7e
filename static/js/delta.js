/*
 * Deltas of a pushed document (web/push/delta.py has the same operations, docs/frontend.md the protocol).
 *
 * A delta frame {"type":"delta","base":56,"version":57,"ops":[...]} turns the document of
 * version `base` into the one of version `version`. Operations, each [op, path, arg], where
 * path is a list of object keys and array indices from the root ([] = the root itself):
 *   ["s", path, value]  set (replace) the value at path
 *   ["m", path, {k: v}] merge: every key k of the object at path gets the value v
 *   ["a", path, items]  append items to the array at path
 *   ["t", path, n]      truncate the array at path to its first n elements
 *   ["d", path]         delete the object key at path
 *   ["w", path, n, {f: d}]  window: drop the first n elements of the array at path, then add
 *                       the integer d to field f of every element left (a road that scrolled)
 *   ["p", path, i, n, items]  splice: the n elements of the array at path from index i are
 *                       replaced by items (a panel whose middle items changed number)
 *   ["@", path, ops]    scope: ops apply at path, their paths relative to it
 *
 * RoadsDelta.apply(doc, ops) returns the new document and never changes `doc`: only the
 * objects and arrays on the operations' paths are copied (shallow, once each), the rest is
 * shared, so a painter may compare the new document with the previous one.
 * Throws an Error when an operation does not fit the document (then resync from the full one).
 */
(function (global) {
  "use strict";

  function copyOf(value) {
    return Array.isArray(value) ? value.slice() : Object.assign({}, value);
  }

  function isContainer(value) {
    return value !== null && typeof value === "object";
  }

  /** ops with scopes expanded: every operation with its whole path from the root. */
  function flat(ops, prefix, out) {
    if (!Array.isArray(ops)) throw new Error("delta operations must be an array");
    for (var i = 0; i < ops.length; i++) {
      var op = ops[i];
      if (!Array.isArray(op) || !Array.isArray(op[1])) throw new Error("malformed delta operation");
      if (op[0] === "@") flat(op[2], prefix.concat(op[1]), out);
      else out.push(prefix.length ? [op[0], prefix.concat(op[1])].concat(op.slice(2)) : op);
    }
    return out;
  }

  function apply(doc, ops) {
    ops = flat(ops, [], []);
    var copied = typeof WeakSet !== "undefined" ? new WeakSet() : null;
    var root = doc;
    var rootCopied = false;

    function own(parent, key) {
      // parent[key] made a private copy (once per delta), returned.
      var child = parent[key];
      if (!isContainer(child)) throw new Error("delta path through a non-container at " + key);
      if (copied && copied.has(child)) return child;
      child = copyOf(child);
      parent[key] = child;
      if (copied) copied.add(child);
      return child;
    }

    for (var i = 0; i < ops.length; i++) {
      var op = ops[i], kind = op[0], path = op[1];
      if (kind === "s" && path.length === 0) {
        root = op[2];
        rootCopied = true; // a fresh value from the frame: nobody else holds it
        if (copied && isContainer(root)) copied.add(root);
        continue;
      }
      if (!isContainer(root)) throw new Error("delta on a non-container document");
      if (!rootCopied) {
        root = copyOf(root);
        rootCopied = true;
        if (copied) copied.add(root);
      }
      var last = kind === "s" || kind === "d" ? path.length - 1 : path.length;
      var parent = root;
      for (var j = 0; j < last; j++) {
        if (!(path[j] in parent)) throw new Error("delta path " + JSON.stringify(path) + " not in the document");
        parent = own(parent, path[j]);
      }
      var key = path[path.length - 1];
      if (kind === "m") {
        var patch = op[2];
        if (Array.isArray(parent) || !isContainer(patch) || Array.isArray(patch)) throw new Error("delta merge into a non-object");
        for (var k in patch) if (Object.prototype.hasOwnProperty.call(patch, k)) parent[k] = patch[k];
      } else if (kind === "s") {
        if (Array.isArray(parent) && !(key >= 0 && key < parent.length)) throw new Error("delta index out of range");
        parent[key] = op[2];
      } else if (kind === "a") {
        if (!Array.isArray(parent)) throw new Error("delta append to a non-array");
        Array.prototype.push.apply(parent, op[2]);
      } else if (kind === "t") {
        if (!Array.isArray(parent) || !(op[2] >= 0 && op[2] <= parent.length)) throw new Error("bad delta truncate");
        parent.length = op[2];
      } else if (kind === "d") {
        if (!(key in parent)) throw new Error("delta delete of a missing key");
        delete parent[key];
      } else if (kind === "p") {
        var at = op[2], count = op[3], items = op[4];
        if (!Array.isArray(parent) || !Array.isArray(items) || !Number.isInteger(at) || !Number.isInteger(count) ||
            at < 0 || at > parent.length || count < 0 || count > parent.length - at) throw new Error("bad delta splice");
        Array.prototype.splice.apply(parent, [at, count].concat(items));
      } else if (kind === "w") {
        var n = op[2], offsets = op[3];
        if (!Array.isArray(parent) || !(n >= 0 && n <= parent.length) || !isContainer(offsets)) throw new Error("bad delta window");
        parent.splice(0, n);
        var fields = Object.keys(offsets);
        if (fields.length) {
          for (var c = 0; c < parent.length; c++) {
            var cell = Object.assign({}, parent[c]);
            for (var f = 0; f < fields.length; f++) {
              if (!Number.isInteger(cell[fields[f]])) throw new Error("delta window over a cell without " + fields[f]);
              cell[fields[f]] += offsets[fields[f]];
            }
            parent[c] = cell;
          }
        }
      } else {
        throw new Error("unknown delta operation " + kind);
      }
    }
    return root;
  }

  /*
   * Tracker: one live connection's current document. receive(msg) takes every parsed frame and
   * returns what the page should see: a snapshot frame as is, a delta applied to the document
   * as {"type":"snapshot", topic, version, data, delta: true}, keepalives and errors as they
   * are, or null (nothing to show: a stale frame, or a gap being resynced).
   * A delta whose base is not the version held, or a keepalive announcing a newer version,
   * is a gap: with opts.fullUrl (a URL answering the current snapshot frame: the nchan tier's
   * /push/full/..., asked with since=<the newest version seen>) the tracker fetches it,
   * holds the deltas arriving meanwhile and hands the result to opts.emit(msg); without it, opts.reconnect() reconnects (the
   * first frame after connecting is the full document).
   * opts.initial = {version, data} seeds the document (the page's embedded snapshot).
   * Counters for tests and tools: deltas (applied), resyncs (gaps), version.
   */
  var RETRY_MS = 300;

  function Tracker(opts) {
    this.opts = opts || {};
    var initial = this.opts.initial;
    this.doc = initial ? initial.data : undefined;
    this.version = initial && typeof initial.version === "number" ? initial.version : null;
    this.deltas = 0;
    this.resyncs = 0;
    this.fetching = false;
    this.held = [];
  }

  Tracker.prototype.receive = function (msg) {
    if (!msg || typeof msg !== "object") return null;
    if (msg.topic && (msg.type === "snapshot" || !this.topic)) this.topic = msg.topic;
    if (msg.type === "snapshot") {
      if (this.fetching) { this.hold(msg); return null; }
      this.doc = msg.data;
      this.version = msg.version;
      // posted: false (a full frame of a version the channel may not hold: another process's
      // lobby): shown, but no delta is applied onto it; the next one is a gap and fetches again
      this.exact = msg.posted !== false;
      return msg;
    }
    if (msg.type === "keepalive") {
      if (!this.fetching && this.version !== null && msg.version > this.version) {
        this.wanted = Math.max(this.wanted || 0, msg.version);
        this.gap(null);
      }
      return msg;
    }
    if (msg.type !== "delta") return msg;
    if (this.fetching) { this.hold(msg); return null; }
    if (this.doc !== undefined && this.version !== null && msg.base === this.version && this.exact !== false) {
      var data;
      try { data = apply(this.doc, msg.ops); } catch (e) { this.gap(null); return null; }
      this.doc = data;
      this.version = msg.version;
      this.deltas++;
      return { type: "snapshot", topic: msg.topic, version: msg.version, data: data, delta: true };
    }
    if (this.version !== null && msg.version <= this.version) return null; // already held
    this.gap(msg);
    return null;
  };

  /** Keep `msg` until the full frame being fetched is in; the newest version seen is the next fetch's since. */
  Tracker.prototype.hold = function (msg) {
    this.held.push(msg);
    if (typeof msg.version === "number") this.wanted = Math.max(this.wanted || 0, msg.version);
  };

  /** A gap: resync from the full frame, then take `msg` (the frame that showed the gap) again. */
  Tracker.prototype.gap = function (msg) {
    var self = this, opts = this.opts;
    this.resyncs++;
    if (!opts.fullUrl || typeof fetch !== "function") {
      this.version = null; // whatever arrives next before the full frame is a gap too
      if (opts.reconnect) opts.reconnect();
      return;
    }
    if (msg) this.hold(msg);
    if (this.fetching) return;
    this.fetching = true;
    // The full frame may be older than the deltas that made this a gap (another process that is
    // behind answered, or a cached answer): fetch again, but not more often than every RETRY_MS.
    var wait = Math.max(0, (this.fetchedAt || 0) + RETRY_MS - Date.now());
    setTimeout(function () { self.fetchFull(); }, wait);
  };

  Tracker.prototype.fetchFull = function () {
    var self = this, opts = this.opts;
    this.fetchedAt = Date.now();
    // since: the newest version seen, which the frame should reach (it keys nginx's cache, so
    // screens that missed the same version share one answer; web/http/full_frames.py).
    var url = opts.fullUrl + (opts.fullUrl.indexOf("?") < 0 ? "?" : "&") + "since=" + (this.wanted || 0);
    fetch(url, { cache: "no-store", headers: { "Accept": "application/json" } })
      .then(function (resp) {
        if (!resp.ok) throw new Error("full document: HTTP " + resp.status);
        return resp.json();
      })
      .then(function (frame) {
        // Another topic's document (a cache keyed without an option the page depends on) is
        // never applied: reconnect instead (the catch below).
        if (frame && frame.topic && self.topic && frame.topic !== self.topic) {
          throw new Error("full document of " + frame.topic + ", not " + self.topic);
        }
        var held = self.held;
        self.fetching = false;
        self.held = [];
        var out = [];
        if (frame && frame.type === "snapshot" && (self.version === null || frame.version >= self.version)) {
          out.push(self.receive(frame));
        }
        for (var i = 0; i < held.length; i++) {
          var h = held[i];
          // a snapshot held during the fetch that is older than what the fetch gave is stale
          if (h.type === "snapshot" && self.version !== null && h.version < self.version) continue;
          out.push(self.receive(h));
        }
        for (var k = 0; k < out.length; k++) if (out[k] && opts.emit) opts.emit(out[k]);
      })
      .catch(function () {
        self.fetching = false;
        self.held = [];
        self.version = null;
        if (opts.reconnect) opts.reconnect();
      });
  };

  global.RoadsDelta = { apply: apply, Tracker: Tracker };
})(typeof window !== "undefined" ? window : globalThis);
