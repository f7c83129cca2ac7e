"""The built-in threaded HTTP server used by ``roads serve`` and ``roads demo``.

Werkzeug's threaded server (a thread per connection, which the WebSocket routes need) with its
request handler hardened by :class:`RequestHandler` at the edges Werkzeug's development server
leaves open (issue 21 item 7):

- a deadline: a client has ``ROADS_CLIENT_TIMEOUT_S`` seconds for the request line and headers,
  then as long again for the whole body; past either the connection is closed and nothing runs
  (a slow or stalled client no longer holds a thread for ever);
- the body is read whole before the app runs: ``Transfer-Encoding: chunked`` bodies too, counted
  against ``ROADS_MAX_BODY_BYTES`` (413 and the connection closed past it, where Werkzeug handed
  the app the first 16 KiB); a client that goes away mid-body gets nothing executed;
- ``Transfer-Encoding`` together with ``Content-Length``, a transfer coding other than
  ``chunked`` and differing ``Content-Length`` headers are refused (400: request smuggling);
- the parser's own refusals (431, 414, a bad request line, the above) carry the one JSON error
  shape and the security headers of :mod:`web.http.security`, and a status line even for a
  request line without a version;
- a connection handed to a WebSocket (:mod:`web.http.handshake`) gets no HTTP response written
  after the session, and is never read as a next request;
- no ``Server`` header, and request log lines without query strings (a feed that puts its token
  in the URL is refused, and its token must not land in the log either).

Why not another server: ``roads serve`` must stay one command on the plain install with
WebSockets; waitress has no upgrade, gunicorn (an extra) does not run on every platform and is the
production path already (deploy/gunicorn.conf.py), and the ASGI servers need another WebSocket
stack. These edges are a few methods of the handler.
"""

from __future__ import annotations

import io
import json
import logging
import socket
import time
from typing import Any

from werkzeug.serving import WSGIRequestHandler

from web import extensions

log = logging.getLogger(__name__)

RESPONSE_TIMEOUT_S = 60.0
"""Longest wait for a client to take the response (socket timeout while writing it), seconds."""

DEFAULT_CLIENT_TIMEOUT_S = 10.0
"""``ROADS_CLIENT_TIMEOUT_S`` when the app has no settings (a bare WSGI app in tests)."""

CHUNK_LINE_LIMIT = 1024
"""Longest chunk-size line (size, extensions) of a chunked body, bytes."""


class ClientTooSlow(TimeoutError):
    """The client did not send its request line and headers, or its body, within the deadline."""


class _DeadlineReader:
    """The request's input stream (a ``BufferedReader`` over the socket) under a deadline: each
    read waits at most until :attr:`deadline` (``time.monotonic()`` seconds; ``None``: the
    socket's own timeout), doing one ``recv`` at a time, so a client trickling a byte at a time
    cannot stretch it. Raises :class:`ClientTooSlow` past the deadline."""

    def __init__(self, raw: Any, sock: socket.socket) -> None:
        self._raw = raw
        self._sock = sock
        self.deadline: float | None = None

    def _arm(self) -> None:
        if self.deadline is None:
            return
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise ClientTooSlow("the client did not send its request in time")
        self._sock.settimeout(left)

    def readline(self, limit: int = -1) -> bytes:
        out = bytearray()
        while limit < 0 or len(out) < limit:
            self._arm()
            try:
                peek = self._raw.peek(1)
            except TimeoutError:
                raise ClientTooSlow("the client did not send its request in time") from None
            if not peek:
                break
            take = peek if limit < 0 else peek[: limit - len(out)]
            end = take.find(b"\n")
            if end >= 0:
                take = take[: end + 1]
            out += self._raw.read(len(take))
            if end >= 0:
                break
        return bytes(out)

    def read(self, size: int = -1) -> bytes:
        out = bytearray()
        while size < 0 or len(out) < size:
            self._arm()
            try:
                piece = self._raw.read1(65536 if size < 0 else min(65536, size - len(out)))
            except TimeoutError:
                raise ClientTooSlow("the client did not send its body in time") from None
            if not piece:
                break
            out += piece
        return bytes(out)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


class _BodyRefused(Exception):
    """The body cannot be taken: ``status`` (400 or 413) and ``message`` for the answer."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class RequestHandler(WSGIRequestHandler):
    """Werkzeug's request handler with deadlines, whole bodies, smuggling refusals, JSON and
    security headers on the parser's own refusals, WebSocket hand-over, no ``Server`` banner and
    no query strings in its log lines (module docstring)."""

    rfile: Any

    # ------------------------------------------------------------------ settings of the app
    def _app_setting(self, name: str, default: Any) -> Any:
        app = getattr(self.server, "app", None)
        settings = getattr(app, "extensions", {}).get(extensions.SETTINGS)
        return getattr(settings, name, default)

    def _client_timeout(self) -> float:
        return float(self._app_setting("client_timeout_s", DEFAULT_CLIENT_TIMEOUT_S))

    def _max_body(self) -> int | None:
        return self._app_setting("max_body_bytes", None)

    # ------------------------------------------------------------------ request line and headers
    def setup(self) -> None:
        super().setup()
        self.rfile = _DeadlineReader(self.rfile, self.connection)

    def handle_one_request(self) -> None:
        """One request: its line and headers within the client timeout (then the connection is
        closed without an answer, as nginx does), the rest by :meth:`run_wsgi`."""
        self.rfile.deadline = time.monotonic() + self._client_timeout()
        super().handle_one_request()

    def parse_request(self) -> bool:
        """The standard parsing, then refuse (400) what lets a request be read two ways:
        ``Transfer-Encoding`` with ``Content-Length``, a coding other than ``chunked``, two
        different ``Content-Length`` values."""
        if not super().parse_request():
            return False
        codings = self.headers.get_all("Transfer-Encoding") or []
        lengths = {v.strip() for v in self.headers.get_all("Content-Length") or []}
        if codings and lengths:
            self.send_error(400, "Transfer-Encoding together with Content-Length")
            return False
        if codings and [c.strip().lower() for c in ",".join(codings).split(",")] != ["chunked"]:
            self.send_error(400, "the only transfer coding accepted is chunked")
            return False
        if len(lengths) > 1 or any(not v.isdigit() for v in lengths):
            self.send_error(400, "a bad or repeated Content-Length")
            return False
        return True

    # ------------------------------------------------------------------ body, then the app
    def run_wsgi(self) -> None:
        """Read the whole body within the client timeout, then run the app on it (module doc)."""
        try:
            self._body = self._read_body()
        except _BodyRefused as e:
            self.send_error(e.status, str(e))
            return
        except (ClientTooSlow, ConnectionError, OSError) as e:
            self.close_connection = True
            self.log("info", "request %s dropped before it ran: %s", self._path_only(), e)
            return
        self.rfile.deadline = None
        self.connection.settimeout(RESPONSE_TIMEOUT_S)
        super().run_wsgi()
        if self.environ.get("roads.websocket"):
            self.close_connection = True  # the socket was the WebSocket's: nothing more to read on it

    def _read_body(self) -> bytes | None:
        """The request body (``None`` without one). Raises :class:`_BodyRefused` (413 past the
        limit, 400 for a broken chunk), :class:`ClientTooSlow` or ``ConnectionError``."""
        chunked = bool(self.headers.get("Transfer-Encoding"))
        length = self.headers.get("Content-Length")
        if not chunked and not length:
            return None
        limit = self._max_body()
        declared = int(length) if length else None
        if declared is not None and limit is not None and declared > limit:
            raise _BodyRefused(413, f"request body larger than the limit of {limit} bytes (ROADS_MAX_BODY_BYTES)")
        if self.headers.get("Expect", "").strip().lower() == "100-continue":
            self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            del self.headers["Expect"]
        self.rfile.deadline = time.monotonic() + self._client_timeout()
        if declared is not None:
            body = self.rfile.read(declared)
            if len(body) < declared:
                raise ConnectionError(f"the client went away after {len(body)} of {declared} body bytes")
            return body
        return self._read_chunked(limit)

    def _read_chunked(self, limit: int | None) -> bytes:
        body = bytearray()
        while True:
            line = self.rfile.readline(CHUNK_LINE_LIMIT)
            if not line:
                raise ConnectionError("the client went away in a chunked body")
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise _BodyRefused(400, "a chunked body with a bad chunk size line") from None
            if size < 0:
                raise _BodyRefused(400, "a chunked body with a bad chunk size line")
            if size == 0:
                while self.rfile.readline(CHUNK_LINE_LIMIT) not in (b"\r\n", b"\n", b""):
                    pass  # trailer fields: ignored
                return bytes(body)
            if limit is not None and len(body) + size > limit:
                raise _BodyRefused(413, f"request body larger than the limit of {limit} bytes (ROADS_MAX_BODY_BYTES)")
            piece = self.rfile.read(size)
            if len(piece) < size:
                raise ConnectionError("the client went away in a chunked body")
            body += piece
            if self.rfile.readline(3) not in (b"\r\n", b"\n"):
                raise _BodyRefused(400, "a chunked body with a chunk not ended by CRLF")

    def make_environ(self) -> dict[str, Any]:
        """Werkzeug's environ with the body already read: ``wsgi.input`` holds exactly it."""
        environ = super().make_environ()
        body = getattr(self, "_body", None)
        if body is not None:
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
            environ.pop("wsgi.input_terminated", None)
            environ.pop("HTTP_TRANSFER_ENCODING", None)
        return environ

    def connection_dropped(self, error: BaseException, environ: dict[str, Any] | None = None) -> None:
        """The client went away, or a WebSocket took the socket: never read it again."""
        self.close_connection = True

    # ------------------------------------------------------------------ answers
    def send_response(self, code: int, message: str | None = None) -> None:
        """The status line and ``Date``, as the standard library writes them, minus ``Server``."""
        self.log_request(code)
        self.send_response_only(code, message)
        self.send_header("Date", self.date_time_string())

    _PARSE_CODES = {400: "bad_request", 408: "request_timeout", 413: "body_too_large", 414: "uri_too_long",
                    431: "headers_too_large"}

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """A refusal made before the app runs (431 for a header line over 64 KiB or more than
        100 headers, 414 for a request line over 64 KiB, 400, 413 for a body over the limit) in
        the one JSON error shape of :mod:`web.http.errors`, with the security headers; the
        connection is closed after it."""
        from web.http import security

        text = message or self.responses.get(code, ("error",))[0]
        err = {"status": code, "code": self._PARSE_CODES.get(code, "http_error"), "message": text, "field": None}
        body = json.dumps({"error": err}, separators=(",", ":")).encode("utf-8", "replace")
        self.close_connection = True
        if getattr(self, "request_version", "HTTP/0.9") not in ("HTTP/1.0", "HTTP/1.1"):
            self.request_version = "HTTP/1.0"  # a status line even for a request line without a version
        try:
            self.send_response(code)  # the standard reason phrase; the words are in the body
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            origins = tuple(str(self._app_setting("embed_origins", "'none'")).split())
            for name, value in security.headers_for(self._path_only(), origins):
                self.send_header(name, value)
            self.send_header("Connection", "close")
            self.end_headers()
            if getattr(self, "command", None) != "HEAD" and code >= 200 and code not in (204, 304):
                self.wfile.write(body)
        except OSError:  # the client went away
            pass

    def _path_only(self) -> str:
        return (getattr(self, "path", None) or "/").partition("?")[0]

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        """Log ``"METHOD /path?… PROTOCOL" code size``: the query string is never written."""
        path = getattr(self, "path", None)
        if path is None:  # the request line could not be parsed: log nothing of it
            self.log("info", '"%s" %s %s', "<bad request line>", code, size)
            return
        base, sep, _query = path.partition("?")
        saved = self.path
        self.path = base + ("?\u2026" if sep else "")
        try:
            super().log_request(code, size)
        finally:
            self.path = saved


def make_threaded_server(app: Any, host: str, port: int) -> Any:
    """A Werkzeug threaded server for ``app`` on ``host:port`` (0 = any free port).

    Threaded, so WebSockets work (one thread per connection); requests are handled by
    :class:`RequestHandler` (deadlines and body limit from the app's ``ROADS_CLIENT_TIMEOUT_S``
    and ``ROADS_MAX_BODY_BYTES``). The socket is bound here first because Werkzeug exits the
    process on a taken port; this raises ``OSError`` instead (``errno`` EADDRINUSE, EACCES,
    ...). The bound port is the returned server's ``port``.
    """
    from werkzeug.serving import make_server

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(128)
        return make_server(host, port, app, threaded=True, fd=listener.fileno(), request_handler=RequestHandler)
    finally:
        listener.close()  # the server holds its own duplicate of the socket
