"""The WebSocket handshake: accept an upgrade on a Flask route, or refuse it in the one error shape.

:func:`route` registers a view ``f(ws, **path_args)`` like flask-sock's ``Sock.route`` (it
is the same few lines around simple-websocket's :class:`simple_websocket.Server`, which
takes the socket from Werkzeug's or gunicorn's WSGI environment), with two differences:

- the ``101 Switching Protocols`` answer carries the security headers of
  :mod:`web.http.security` (simple-websocket writes that answer itself, past Flask's
  ``after_request``);
- a request that asks for an upgrade but is not a valid WebSocket handshake (no
  ``Sec-WebSocket-Key``, or one that is not 16 bytes in base64, another ``Sec-WebSocket-Version``
  than 13, ...) is a 400 ``bad_handshake`` in the one error shape (:mod:`web.http.errors`), where
  wsproto's ``RemoteProtocolError`` used to escape as a 500 (and wsproto took any key);
- on Werkzeug's server (``roads serve``) the session's end writes no HTTP response onto the
  upgraded socket (:class:`SocketHandedOver`) and waits for the socket's reader thread first. A request without ``Upgrade: websocket``
  does not match a WebSocket route at all (Werkzeug answers 400 ``bad_request``).

Server options come from ``app.config["SOCK_SERVER_OPTIONS"]`` (``ping_interval``,
``max_message_size``; set by :func:`web.http.ws.init_app`).
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import errno
import logging
import socket
from functools import wraps
from typing import Any, Callable

import simple_websocket
from flask import Blueprint, Response, current_app, request
from simple_websocket import ConnectionClosed
from wsproto.events import AcceptConnection
from wsproto.utilities import ProtocolError

from web.http import security
from web.http.errors import BadRequest

log = logging.getLogger(__name__)


class Server(simple_websocket.Server):
    """simple-websocket's server end, adding ``extra_headers`` (``(name, value)`` text pairs)
    to the 101 answer. Raises :class:`BadRequest` (``bad_handshake``) for a request that is
    not a valid handshake, before anything is written to the socket."""

    def __init__(self, environ: dict[str, Any], *, extra_headers: list[tuple[str, str]] = (), **options: Any) -> None:
        self._extra_headers = [(k.encode("ascii"), v.encode("ascii")) for k, v in extra_headers]
        self._refusal: str | None = None
        key = environ.get("HTTP_SEC_WEBSOCKET_KEY")
        if key is not None and not is_websocket_key(key):
            raise BadRequest("not a valid WebSocket handshake: Sec-WebSocket-Key must be 16 bytes in base64 "
                             "(RFC 6455 section 4.1)", field="Sec-WebSocket-Key", code="bad_handshake")
        try:
            super().__init__(environ, **options)
        except simple_websocket.ConnectionError:
            raise BadRequest(f"not a valid WebSocket handshake: {self._refusal or 'refused'}",
                             code="bad_handshake") from None

    def handshake(self) -> None:
        """simple-websocket's handshake, with the extra headers on the accept and a protocol
        error noted (the base class then raises ``ConnectionError``) instead of raised."""
        send = self.ws.send

        def send_with_headers(event: Any) -> bytes:
            if isinstance(event, AcceptConnection):
                event = dataclasses.replace(event, extra_headers=[*event.extra_headers, *self._extra_headers])
            return send(event)

        self.ws.send = send_with_headers  # type: ignore[method-assign]
        try:
            super().handshake()
        except ProtocolError as e:
            self._refusal = str(e)
            self.connected = False
        finally:
            del self.ws.send


def is_websocket_key(key: str) -> bool:
    """Whether ``key`` is a ``Sec-WebSocket-Key``: 16 bytes in base64 (RFC 6455 section 4.1)."""
    try:
        return len(base64.b64decode(key.strip(), validate=True)) == 16
    except (ValueError, binascii.Error):
        return False


class SocketHandedOver(ConnectionError):
    """Raised to Werkzeug's server in place of a response once a WebSocket session is over: the
    socket belonged to the WebSocket, so the server writes nothing on it (it treats the request as
    a dropped connection; ``web.cli.serving`` then never reads the socket again)."""


class _Handled(Response):
    """What the view returns once the socket is done: nothing more for the server to write
    (gunicorn: stop the response; Werkzeug: :class:`SocketHandedOver`)."""

    def __init__(self, ws: Server) -> None:
        super().__init__()
        self._mode = ws.mode

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._mode == "gunicorn":
            raise StopIteration()
        if self._mode == "werkzeug":
            raise SocketHandedOver("the WebSocket session is over")
        return []


CLOSE_WAIT_S = 2.0
"""Werkzeug server: how long the view waits for the client's answer to its close frame before it
shuts the socket down itself (the socket's reader thread then ends and closes it)."""


def _release(ws: Server) -> None:
    """Werkzeug server: let simple-websocket's reader thread end (it closes the socket) before the
    request's thread returns to the server, so nothing else touches the socket meanwhile."""
    thread = getattr(ws, "thread", None)
    if thread is None:
        return
    thread.join(CLOSE_WAIT_S)
    if thread.is_alive():
        try:
            ws.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        thread.join(CLOSE_WAIT_S)


DISCONNECT_ERRNOS = frozenset({errno.EPIPE, errno.ECONNRESET, errno.ECONNABORTED, errno.ENOTCONN,
                               errno.ESHUTDOWN, errno.ETIMEDOUT, errno.EBADF})
"""``OSError`` numbers that mean the client's connection is gone (EBADF: the socket was closed
while a write was on its way)."""


def is_disconnect(err: OSError) -> bool:
    """Whether ``err`` from a socket write just means the client went away."""
    return isinstance(err, (ConnectionError, TimeoutError)) or err.errno in DISCONNECT_ERRNOS


def describe(err: OSError) -> str:
    """``"ConnectionResetError, errno 104"``: the kind of a disconnect, for one log line."""
    return f"{type(err).__name__}, errno {err.errno}" if err.errno is not None else type(err).__name__


def route(bp: Blueprint, rule: str) -> Callable[[Callable[..., None]], Callable[..., Response]]:
    """Register ``f(ws, **path_args)`` on ``bp`` as the WebSocket endpoint ``rule``.

    ``f`` runs after the handshake, on the request's thread, for the connection's whole
    life; ``ConnectionClosed`` out of it is a normal end, and so is an ``OSError`` that
    means the client went away (:func:`is_disconnect`: reset, broken pipe...), which is logged
    as one INFO line (logger ``web.http.handshake``), never a traceback. The socket is closed after ``f``
    returns (a close already sent or received is no error).
    """

    def decorator(f: Callable[..., None]) -> Callable[..., Response]:
        @wraps(f)
        def view(*args: Any, **kwargs: Any) -> Response:
            headers = security.headers_for(request.path, security.embed_origins(current_app))
            ws = Server(request.environ, extra_headers=headers, **current_app.config.get("SOCK_SERVER_OPTIONS", {}))
            request.environ["roads.websocket"] = True
            if ws.mode == "werkzeug":
                ws.sock.settimeout(None)  # the server's request deadlines end here; pings watch the session
            try:
                f(ws, *args, **kwargs)
            except ConnectionClosed:
                pass
            except OSError as e:  # the peer went away mid-write: ordinary, one line, no traceback
                if not is_disconnect(e):
                    raise
                log.info("WebSocket %s: client gone (%s)", request.path, describe(e))
            try:
                ws.close()
            except Exception:  # noqa: BLE001 (already closed, or the peer is gone: nothing to do)
                pass
            if ws.mode == "werkzeug":
                _release(ws)
            return _Handled(ws)

        bp.route(rule, websocket=True)(view)
        return view

    return decorator
