"""The feed client: sends feed messages (:mod:`roads.simulator`) to a running service over HTTP.

Standard library only (``http.client`` on one kept-alive connection, ``urllib.parse``), so the
demo and ``roads replay`` need no HTTP package. Every write carries the feed token; a message
that fails to arrive is sent again with exponential backoff, which is safe because the feed
is idempotent (the same round sent twice is a no-op success, docs/api.md). ``roads replay``
and the demo's tables both use it, so every round enters through the feed path a live table
uses, never a side door.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.parse
from typing import Any, Mapping

from roads import simulator

RETRY_STATUSES: tuple[int, ...] = (429, 500, 502, 503, 504)
"""HTTP statuses after which a feed message is sent again (server busy or restarting)."""

MAX_BACKOFF_S = 10.0
"""Longest wait between two tries, in seconds (a ``Retry-After`` header included)."""


class FeedClientError(Exception):
    """A feed message that could not be delivered; the message says why."""


class FeedRejected(FeedClientError):
    """The service answered a feed message with an error status (4xx, or 5xx after retries).

    ``status`` is the HTTP status, ``error`` the service's ``{"code", "message", "field"}``
    error object when the body has one (else ``None``), ``path`` the feed path.
    """

    def __init__(self, path: str, status: int, error: Mapping[str, Any] | None, text: str) -> None:
        self.path, self.status, self.error = path, status, dict(error) if error else None
        detail = (error or {}).get("message") or text.strip()[:200] or "(empty body)"
        field_name = (error or {}).get("field")
        where = f" (field {field_name!r})" if field_name else ""
        super().__init__(f"POST {path} -> HTTP {status}: {detail}{where}")


class FeedUnavailable(FeedClientError):
    """The service could not be reached (connection refused, timeout) after every retry."""


class FeedClient:
    """Sends feed messages to a service at ``url`` (e.g. ``"http://127.0.0.1:8000"``).

    Every write carries ``Authorization: Bearer <token>``. Connection errors, timeouts and
    the statuses in :data:`RETRY_STATUSES` are retried up to ``retries`` times, waiting
    ``backoff`` seconds, then twice as long each time (at most :data:`MAX_BACKOFF_S`; a
    ``Retry-After`` in seconds is honoured up to that); ``timeout`` is per request, in seconds.
    Thread-safe (one request at a time on one kept-alive connection). Raises ``ValueError``
    for a ``url`` that is not ``http://`` or ``https://``.
    """

    def __init__(self, url: str, token: str, *, retries: int = 5, backoff: float = 0.2,
                 timeout: float = 10.0) -> None:
        self.url = url.rstrip("/")
        parts = urllib.parse.urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{url!r} is not an http:// or https:// URL")
        self._connection_class = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        self._host, self._port, self._base = parts.hostname, parts.port, parts.path
        self.retries, self.backoff, self.timeout = retries, backoff, timeout
        self._headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        self._conn: http.client.HTTPConnection | None = None
        self._lock = threading.Lock()

    def post(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """POST ``body`` as JSON to ``path``; return the decoded 2xx answer (``{}`` if none).

        Raises :class:`FeedRejected` on an error status and :class:`FeedUnavailable` when
        the service cannot be reached.
        """
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        status, text = self._request("POST", path, data)
        return self._answer(path, status, text)

    def send(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """Send one feed message (:func:`roads.simulator.feed_request` gives path and body)."""
        request = simulator.feed_request(message)
        return self.post(request.path, request.body)

    def get(self, path: str) -> dict[str, Any] | list[Any] | None:
        """GET a JSON document; ``None`` on 404. Raises like :meth:`post` otherwise."""
        status, text = self._request("GET", path, None)
        if status == 404:
            return None
        return self._answer(path, status, text)

    def _request(self, method: str, path: str, data: bytes | None) -> tuple[int, str]:
        """``(status, body text)`` of the last try; :class:`FeedUnavailable` when no try got an answer."""
        headers = dict(self._headers)
        if data is not None:
            headers["Content-Type"] = "application/json"
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                with self._lock:
                    status, text, retry_after = self._once(method, path, data, headers)
            except (OSError, http.client.HTTPException) as exc:
                if last:
                    raise FeedUnavailable(f"{method} {self.url}{path}: {exc}") from None
                self._wait(attempt, None)
                continue
            if status not in RETRY_STATUSES or last:
                return status, text
            self._wait(attempt, retry_after)
        raise AssertionError("unreachable")  # the last attempt returns or raises

    def _once(self, method: str, path: str, data: bytes | None,
              headers: dict[str, str]) -> tuple[int, str, str | None]:
        if self._conn is None:
            self._conn = self._connection_class(self._host, self._port, timeout=self.timeout)
        try:
            self._conn.request(method, self._base + path, body=data, headers=headers)
            resp = self._conn.getresponse()
            text = resp.read().decode("utf-8", "replace")
        except BaseException:
            self._drop()
            raise
        if resp.will_close:
            self._drop()
        return resp.status, text, resp.getheader("Retry-After")

    def _wait(self, attempt: int, retry_after: str | None) -> None:
        delay = self.backoff * (2 ** attempt)
        if retry_after is not None:
            try:
                delay = max(delay, float(retry_after))
            except ValueError:
                pass  # an HTTP date: keep the backoff
        time.sleep(min(delay, MAX_BACKOFF_S))

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    @staticmethod
    def _answer(path: str, status: int, text: str) -> Any:
        if status >= 400:
            error = None
            try:
                error = json.loads(text).get("error")
            except (ValueError, AttributeError):
                pass
            raise FeedRejected(path, status, error if isinstance(error, dict) else None, text)
        if not text:
            return {}
        try:
            return json.loads(text)
        except ValueError:
            return {}

    def close(self) -> None:
        """Close the HTTP connection."""
        with self._lock:
            self._drop()
