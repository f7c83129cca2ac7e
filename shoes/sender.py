"""Sends the spool's messages to the service's feed, in order, each until the service has taken
it (docs/shoes.md "Nothing lost, nothing doubled").

Every message goes to the feed endpoint of its type (docs/api.md; the extensions of
docs/shoes.md "Feed extensions"). A connection error, a timeout, a 429 or a 5xx leaves the
message pending and sends it again after a pause (0.2 s doubling to :data:`MAX_PAUSE_S`):
safe, since every write of the feed is idempotent (the same write again is a 200
``unchanged``). A 4xx is final for that message:

* the service does not know a feed extension (400 ``unknown_field`` naming its field, or 404 /
  405 for the ``hold`` endpoint): the message is sent without it, or a held round is voided
  with the hold's reason (``degraded``);
* 401 and 403 (a wrong token, a table the service does not allow) are waited out like a 503:
  the operator fixes the setting, the spool keeps everything meanwhile;
* otherwise the message is ``refused`` (answer kept, logged as an error); when it belongs to a
  round, the round's other pending messages are ``skipped`` and the round is voided with the
  refusal as reason, so the table is not left with a round in progress.

Standard library only (:mod:`http.client`).
"""

from __future__ import annotations

import http.client
import json
import logging
import threading
import time
import urllib.parse
from typing import Any, Mapping

from shoes.spool import Row, Spool

log = logging.getLogger("roads.shoe")

MAX_PAUSE_S = 5.0
"""Longest pause between two tries of a message, in seconds."""

RETRY_STATUSES = frozenset({401, 403, 408, 425, 429, 500, 502, 503, 504})
"""Statuses after which a message is sent again: the service is busy or away, or it does not
take this adapter's writes yet (a wrong token, a table not allowed: fixed by the operator, the
spool keeps everything meanwhile)."""

EXTENSION_FIELDS = {"drawn": "sides", "state": "shoe_error"}
"""Message type -> the body field a service without the extension refuses (400 unknown_field)."""


class FeedHTTP:
    """One kept-alive HTTP connection to the service at ``url`` with the feed token.

    :meth:`request` returns ``(status, decoded JSON or None)`` and raises ``OSError`` (or
    ``http.client.HTTPException``) when no answer came. Raises ``ValueError`` for a ``url``
    that is not ``http://`` or ``https://``.
    """

    def __init__(self, url: str, token: str, timeout: float = 10.0) -> None:
        parts = urllib.parse.urlsplit(url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{url!r} is not an http:// or https:// URL")
        self._cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        self._host, self._port, self._base = parts.hostname, parts.port, parts.path
        self._headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        self.timeout = timeout
        self._conn: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> tuple[int, Any]:
        """One request; the connection is dropped after any failure."""
        headers = dict(self._headers)
        data = None
        if body is not None:
            data = json.dumps(body, separators=(",", ":")).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if self._conn is None:
            self._conn = self._cls(self._host, self._port, timeout=self.timeout)
        try:
            self._conn.request(method, self._base + path, body=data, headers=headers)
            resp = self._conn.getresponse()
            text = resp.read()
        except BaseException:
            self.close()
            raise
        if resp.will_close:
            self.close()
        try:
            return resp.status, json.loads(text) if text else None
        except ValueError:
            return resp.status, None

    def close(self) -> None:
        """Close the connection (the next request opens another)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def feed_request(m: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """``(path, body)`` of one spooled message (docs/api.md, docs/shoes.md "Feed extensions")."""
    table = urllib.parse.quote(m["table"], safe="")
    kind = m["type"]
    if kind == "shoe":
        return f"/api/tables/{table}/shoes", {k: m[k] for k in ("shoe", "burn") if k in m}
    if kind == "state":
        return f"/api/tables/{table}/state", {k: v for k, v in m.items() if k not in ("type", "table")}
    rnd = f"/api/tables/{table}/shoes/{m['shoe']}/rounds/{m['round']}"
    if kind == "cards":
        return rnd + "/cards", {k: m[k] for k in ("position", "cards", "burn") if k in m}
    if kind == "drawn":
        return rnd + "/cards", {k: m[k] for k in ("position", "sides", "burn") if k in m}
    if kind == "void":
        return rnd + "/void", {"reason": m["reason"]}
    if kind == "hold":
        return rnd + "/hold", {k: m[k] for k in ("reason", "message", "shoe_result", "player", "banker")}
    raise ValueError(f"unknown message type {kind!r}")


class Sender:
    """Sends the pending messages of ``spool`` through ``http`` until :meth:`stop`.

    Run it in a thread (:meth:`run`); :meth:`drain` sends until nothing is pending (a replay's
    end). ``lacks``: the extensions this service was found without (skipped from then on).
    """

    def __init__(self, spool: Spool, http: FeedHTTP) -> None:
        self.spool, self.http = spool, http
        self.stopping = threading.Event()
        self.lacks: set[str] = set()
        self.failures = 0
        self.last_problem = ""

    def stop(self) -> None:
        """Ask :meth:`run` to return after the message in flight."""
        self.stopping.set()
        with self.spool.changed:
            self.spool.changed.notify_all()

    def run(self) -> None:
        """Send pending messages, waiting for new ones, until stopped."""
        while not self.stopping.is_set():
            if not self.send_next():
                self.spool.wait_for_change(0.5)

    def drain(self, until: threading.Event | None = None) -> None:
        """Send until nothing is pending (or ``until`` is set, or stopped)."""
        while not self.stopping.is_set() and not (until and until.is_set()):
            if not self.send_next():
                return

    def send_next(self) -> bool:
        """Send the first pending message until the service answers it; ``False`` when none."""
        row = self.spool.next_pending()
        if row is None:
            return False
        pause = 0.2
        while not self.stopping.is_set():
            outcome = self._try(row)
            if outcome != "retry":
                self.failures = 0
                return True
            self.failures += 1
            if self.failures in (1, 10) or self.failures % 100 == 0:
                log.warning("the service does not take messages yet (try %d: %s); the spool keeps them",
                            self.failures, self.last_problem)
            self.stopping.wait(pause)
            pause = min(pause * 2, MAX_PAUSE_S)
            row = self.spool.next_pending() or row
        return True

    def _try(self, row: Row) -> str:
        m = row.message
        kind = m["type"]
        if kind in self.lacks:
            return self._degrade(row, f"the service has no {kind!r} feed extension")
        path, body = feed_request(m)
        try:
            status, answer = self.http.request("POST", path, body)
        except (OSError, http.client.HTTPException) as e:
            self.last_problem = f"POST {path}: {e}"
            return "retry"
        if status in RETRY_STATUSES:
            self.last_problem = f"POST {path}: HTTP {status} {json.dumps(answer)[:200]}"
            return "retry"
        if status < 300:
            recorded = kind == "cards" and isinstance(answer, dict) and answer.get("result") is not None
            self.spool.mark(row.id, "sent", answer, recorded=recorded)
            return "sent"
        error = (answer or {}).get("error") if isinstance(answer, dict) else None
        error = error if isinstance(error, dict) else {}
        code, field = error.get("code"), error.get("field")
        if kind in EXTENSION_FIELDS and code == "unknown_field" and field == EXTENSION_FIELDS[kind]:
            if kind == "drawn":
                self.lacks.add(kind)
            return self._degrade(row, f"the service refused the {field!r} field")
        if kind == "hold" and status in (404, 405):
            self.lacks.add("hold")
            return self._degrade(row, "the service has no hold endpoint")
        return self._refused(row, status, error)

    def _degrade(self, row: Row, why: str) -> str:
        m = row.message
        if m["type"] == "hold":
            void = {"type": "void", "table": m["table"], "shoe": m["shoe"], "round": m["round"],
                    "reason": f"held for the supervisor: {m['message']}"[:500]}
            self.spool.replace(row.id, void, f"degraded: {why}; voided instead")
            log.warning("table %s round %s-%s: %s: the held round is voided instead", m["table"], m["shoe"],
                        m["round"], why)
            return "degraded"
        if m["type"] == "state":
            rest = {k: v for k, v in m.items() if k != "shoe_error"}
            if set(rest) - {"type", "table"}:
                self.spool.replace(row.id, rest, f"degraded: {why}; sent without it")
                return "degraded"
        self.spool.mark(row.id, "degraded", note=f"degraded: {why}")
        log.info("table %s: %s message not sent: %s", m["table"], m["type"], why)
        return "degraded"

    def _refused(self, row: Row, status: int, error: Mapping[str, Any]) -> str:
        m = row.message
        text = f"HTTP {status} {error.get('code')}: {error.get('message')}"
        log.error("table %s: the service refused %s: %s", m["table"], json.dumps(m), text)
        self.spool.mark(row.id, "refused", error or {"status": status}, note=text[:500])
        if m["type"] in ("cards", "hold"):  # a refused face-down draw is only a picture: the round goes on
            skipped = self.spool.skip_round(row.id, m["shoe"], m["round"], f"skipped: an earlier message was refused ({text})")
            if m["type"] == "cards" and m["position"] > 1:
                # void what the service may hold of the round, in the refused message's place
                void = {"type": "void", "table": m["table"], "shoe": m["shoe"], "round": m["round"],
                        "reason": f"the feed refused card {m['position']}: {error.get('message') or text}"[:500]}
                self.spool.mark(row.id, "pending", error, note=text[:500])
                self.spool.replace(row.id, void, f"refused ({text}); voided instead")
        return "refused"


def wait_until(predicate: Any, timeout: float, step: float = 0.05) -> bool:
    """Poll ``predicate()`` until true or ``timeout`` seconds pass; its last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return bool(value)
        time.sleep(step)
