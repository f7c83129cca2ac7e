"""The built-in threaded HTTP server used by ``roads serve`` and ``roads demo``.

Werkzeug's threaded server with two changes made by :class:`RequestHandler`: no ``Server``
header (Werkzeug announces ``Werkzeug/x.y Python/x.y``), and a request log line that never
holds a query string (a feed that puts its token in the URL is refused, and its token must
not land in the log either): ``"GET /tables/T1?… HTTP/1.1" 200 -``.
"""

from __future__ import annotations

import json
import socket
from typing import Any

from werkzeug.serving import WSGIRequestHandler


class RequestHandler(WSGIRequestHandler):
    """Werkzeug's request handler without the ``Server`` banner and without query strings in
    its log lines."""

    def send_response(self, code: int, message: str | None = None) -> None:
        """The status line and ``Date``, as the standard library writes them, minus ``Server``."""
        self.log_request(code)
        self.send_response_only(code, message)
        self.send_header("Date", self.date_time_string())

    _PARSE_CODES = {400: "bad_request", 408: "request_timeout", 414: "uri_too_long", 431: "headers_too_large"}

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The standard library's refusals of a request it cannot parse (431 for a header line
        over 64 KiB or more than 100 headers, 414 for a request line over 64 KiB, 400) in the
        one JSON error shape of :mod:`web.http.errors`, instead of its HTML page; the
        connection is closed after it."""
        text = message or self.responses.get(code, ("error",))[0]
        err = {"status": code, "code": self._PARSE_CODES.get(code, "http_error"), "message": text, "field": None}
        body = json.dumps({"error": err}, separators=(",", ":")).encode("utf-8", "replace")
        self.close_connection = True
        try:
            self.send_response(code, text)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD" and code >= 200 and code not in (204, 304):
                self.wfile.write(body)
        except OSError:  # the client went away
            pass

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
    :class:`RequestHandler`. The socket is bound here first because Werkzeug exits the
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
