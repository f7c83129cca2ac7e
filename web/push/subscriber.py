"""One screen's WebSocket connection: the newest frame only, never a queue (docs/frontend.md
"Live updates": latest-only per client, slow clients skip).

:mod:`web.push.fanout` offers each new version of a topic to every connection's
:class:`Subscriber`. The offer writes one prebuilt frame (:class:`web.push.frames.FrameCache`:
built once per version per process, identical for every client) straight to the socket when
the socket takes it at once; otherwise the connection's own thread finishes it, blocking only
itself, and a newer version replaces the one still waiting: nothing is queued per client.
Sending one frame to a thousand screens is a thousand non-blocking ``send`` calls from one
thread instead of a thousand thread wake-ups with per-client framing. A connection's thread
(:func:`serve`) sleeps until it has something to do (an idle screen costs no wake-ups), sends a
keepalive frame when the connection has been idle for ``keepalive_s``, and a closed connection
frees it at once; a dead peer is dropped by the protocol ping that simple-websocket sends.
simple-websocket writes to the same socket from its own threads (pings, pong and close
replies, ``ws.send``), so each connection's socket is wrapped (:class:`SerialSocket`) and
every write goes whole frame by whole frame: none starts while another frame is partly
written; the fan-out thread never waits for that, it leaves the message to the handler.
Client -> server frames are read and dropped: more than :data:`MAX_CLIENT_FRAMES` within
:data:`POLL_S` seconds closes the connection with 1008.

Threads: one per open WebSocket (under gevent a greenlet): under gunicorn the documented
``gevent`` worker (deploy/gunicorn.conf.py) with ``--worker-connections`` above the number of
screens, or ``gthread`` with ``--threads`` above it (see ``docs/frontend.md``); the Werkzeug
dev server (threaded) works too.
"""

from __future__ import annotations

import contextlib
import errno
import inspect
import socket
import threading
import time
from typing import Any, Callable

from simple_websocket import ConnectionClosed

from web.push.frames import FrameCache, keepalive_text
from web.push.hub import Message

MAX_CLIENT_FRAMES = 64
"""Client frames tolerated between two wake-ups before the connection is closed (1008)."""

POLL_S = 1.0
"""Longest a connection's thread waits before checking that its client is still there, in
seconds (a connection object without the wake-up hook): a closed connection frees its
server thread within this time (fan-out threads: :data:`web.push.fanout.POLL_S`)."""

CLOSE_WAIT_S = 5.0
"""Longest a close waits for a write in progress on the same socket, in seconds."""


class SerialSocket:
    """A connection's socket as simple-websocket sees it: every write waits its turn.

    :class:`Subscriber` installs one as ``ws.sock`` in place of the raw socket, because two
    parties write to the same socket: our prebuilt snapshot frames (the fan-out thread's
    non-blocking ``send`` may write only part of one, the handler thread writes the rest),
    and simple-websocket (``self.sock.send(...)``: protocol pings and ping-timeout closes
    from its reader thread, pong and close replies from that thread too, ``ws.send`` and
    ``ws.close`` from the handler thread). A ping written while a frame is half sent lands
    inside it and the client drops the connection. Here ``send`` and ``sendall`` take the
    subscriber's write turn (:meth:`Subscriber.write_raw`): they wait while another write
    is in progress, first finish a frame that ``offer`` began, then write all of ``data``
    (a whole frame) before anyone else may write. ``close`` waits for the write in progress
    (:meth:`Subscriber.close_socket`): simple-websocket's reader thread closes the socket when
    the peer goes, and a close racing a keepalive write used to end in ``EBADF``. Everything
    else (``recv``, ``fileno``, ``setsockopt``, ``shutdown``...) goes straight to the socket.
    """

    def __init__(self, sub: "Subscriber", sock: socket.socket) -> None:
        self._sub = sub
        self._sock = sock

    def send(self, data: bytes, flags: int = 0) -> int:
        """Write all of ``data`` in turn (blocking); returns ``len(data)``."""
        self._sub.write_raw(data, flags)
        return len(data)

    def sendall(self, data: bytes, flags: int = 0) -> None:
        """Write all of ``data`` in turn (blocking)."""
        self._sub.write_raw(data, flags)

    def close(self) -> None:
        """Close the socket once no write is in progress (:meth:`Subscriber.close_socket`)."""
        self._sub.close_socket()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class _WakeOnInput:
    """simple-websocket's ``ws.event`` (its reader thread sets it for every client frame and
    when the connection closes) that also wakes the connection's :class:`Subscriber`."""

    __slots__ = ("_event", "_sub")

    def __init__(self, event: Any, sub: "Subscriber") -> None:
        self._event, self._sub = event, sub

    def set(self) -> None:
        self._event.set()
        self._sub.wake()

    def clear(self) -> None:
        self._event.clear()

    def wait(self, timeout: float | None = None) -> bool:
        return self._event.wait(timeout)

    def is_set(self) -> bool:
        return self._event.is_set()


class Subscriber:
    """Delivery state of one open connection: the newest message only, never a queue.

    Two threads touch it: the topic's fan-out thread calls :meth:`offer` for every new
    version, and the connection's own handler thread runs :meth:`run`. ``offer`` writes the
    prebuilt frame straight to the socket when the socket takes all of it at once
    (``MSG_DONTWAIT``); otherwise (a slow client, a write in progress, or a connection
    object without a raw socket) it leaves the message, or the unsent rest of the frame,
    for the handler thread, which writes it blocking. A newer offer replaces a message
    still waiting, so a slow client skips versions and only ever blocks its own handler
    thread.

    Writes to the socket go one whole frame at a time: a blocking writer (the handler
    thread, or simple-websocket through the :class:`SerialSocket` installed as ``ws.sock``)
    holds the write turn (``writing``) for a whole frame and first finishes the ``rest``
    of a frame that ``offer`` began; ``offer`` writes only when no one holds the turn and no
    rest is outstanding, and never waits for the turn.
    """

    def __init__(self, ws: Any, topic: str, frames: FrameCache, version: int) -> None:
        self.ws = ws
        self.topic = topic
        self.frames = frames
        sock = getattr(ws, "sock", None)
        self.raw = isinstance(sock, socket.socket)  # simple-websocket's Server
        self.sock = sock if self.raw else None  # the real socket: only write_raw and offer write to it
        self._send_now = _nonblocking_send(sock) if self.raw else None
        self.sent_at = time.monotonic()  # of the last frame written, by offer() or run(): keepalives count from it
        self.cond = threading.Condition()
        self.version = version  # newest version written (or being written) to the client
        self.pending: Message | None = None  # newer message for the handler thread to write
        self.rest = b""  # unsent tail of a frame that offer() began: the socket's next bytes
        self.writing = False  # a blocking writer holds the write turn
        self.busy = False  # the handler thread is writing
        self.dead = False
        self.closed = False  # the socket is closed (or closing): no write may start
        self.woken = False
        event = getattr(ws, "event", None)
        self.wakes = all(hasattr(event, name) for name in ("set", "clear", "wait"))
        if self.wakes:
            ws.event = _WakeOnInput(event, self)
        if self.raw:
            ws.sock = SerialSocket(self, sock)

    def offer(self, message: Message) -> None:
        """Deliver ``message`` without ever blocking on the socket (fan-out thread)."""
        with self.cond:
            if self.dead or message.version == self.version:
                return
            if not self.raw or self.busy or self.writing or self.rest or self.pending is not None:
                self.pending = message
                self.cond.notify_all()
                return
            wire = self.frames.wire_for(self.topic, message, self.version)
            try:
                sent = self._send_now(wire)
            except BlockingIOError:
                sent = 0
            except OSError:
                self.dead = True
                self.cond.notify_all()
                return
            self.version = message.version
            self.sent_at = time.monotonic()
            if sent < len(wire):
                self.rest = wire[sent:]
                self.cond.notify_all()

    def write_raw(self, data: bytes, flags: int = 0) -> None:
        """Write ``data`` (whole frames) to the real socket in turn, blocking this thread.

        Waits until no other write is in progress, takes the turn, finishes the frame
        ``offer`` began (if any), writes ``data``, then gives the turn back. Never called by
        the fan-out thread. Raises ``OSError`` as the socket does, and ``BrokenPipeError``
        once the socket is closed (:meth:`close_socket`).
        """
        with self.cond:
            self.cond.wait_for(lambda: not self.writing)
            if self.closed:
                raise BrokenPipeError(errno.EPIPE, "the WebSocket connection is closed")
            self.writing = True
            rest, self.rest = self.rest, b""
        try:
            if rest:
                self.sock.sendall(rest)
            if data:
                self.sock.sendall(data, flags)
        finally:
            with self.cond:
                self.writing = False
                self.cond.notify_all()

    def close_socket(self) -> None:
        """Close the real socket without racing a write (any thread; idempotent).

        No write starts after this is called; a write in progress is let finish, or, when it
        is blocked on a peer that stopped reading, ended by ``shutdown`` (which leaves the file
        descriptor open, so no other connection can be handed it meanwhile). Then the socket
        is closed. Waits at most :data:`CLOSE_WAIT_S` for the writer.
        """
        with self.cond:
            self.dead = self.closed = True
            self.cond.notify_all()
            writing = self.writing
        if writing:
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)
        with self.cond:
            self.cond.wait_for(lambda: not self.writing, timeout=CLOSE_WAIT_S)
        self.sock.close()


    def write_blocking(self, message: Message, have: int | None = None) -> None:
        """Write ``message`` now (as a delta when the client holds ``have``, its base; else
        the snapshot frame), blocking this thread until the socket took it all."""
        if self.raw:
            self._sendall(self.frames.wire_for(self.topic, message, have))
        else:
            self.ws.send(self.frames.text_for(self.topic, message, have).decode("utf-8"))

    def _sendall(self, data: bytes) -> None:
        if not self.ws.connected:
            raise ConnectionClosed(self.ws.close_reason, self.ws.close_message)
        try:
            self.write_raw(data)
        except OSError:
            self.ws.connected = False
            raise ConnectionClosed(1006, "send failed") from None

    def stop(self) -> None:
        """The handler is done: later offers are dropped (idempotent)."""
        with self.cond:
            self.dead = True
            self.cond.notify_all()

    def wake(self) -> None:
        """The client sent a frame or the connection closed (simple-websocket's reader thread)."""
        with self.cond:
            self.woken = True
            self.cond.notify_all()

    def run(self, keepalive_s: float) -> None:
        """Handler thread: write what :meth:`offer` could not, keepalives, until the client goes.

        Sleeps until there is something to write, a client frame to read and drop, the
        connection closed (simple-websocket's reader thread wakes it: :class:`_WakeOnInput`)
        or a keepalive is due, so an idle screen costs no wake-ups. A keepalive is due
        ``keepalive_s`` after the last frame this thread or :meth:`offer` wrote: a screen
        that gets a frame every round gets none. Without that hook (a connection object of
        another kind) it wakes every :data:`POLL_S` seconds instead.
        """
        window_start = time.monotonic()
        window_frames = 0
        while self.ws.connected:
            with self.cond:
                if self.wakes:
                    timeout = max(0.01, self.sent_at + keepalive_s - time.monotonic())
                else:
                    timeout = min(POLL_S, keepalive_s)
                self.cond.wait_for(lambda: (self.dead or self.rest or self.pending is not None or self.woken
                                            or not self.ws.connected), timeout=timeout)
                if self.dead:
                    return
                woken, self.woken = self.woken, False
                rest, pending = bool(self.rest), self.pending
                self.pending = None
                have = self.version
                if pending is not None:
                    self.version = pending.version
                ping = (not rest and pending is None
                        and time.monotonic() - self.sent_at >= keepalive_s)
                # Until this pass is written, offer() must not write a newer frame ahead of it.
                self.busy = rest or pending is not None or ping
            try:
                if not self.ws.connected:
                    return
                if woken or not self.wakes:
                    now = time.monotonic()
                    if now - window_start >= POLL_S:  # at most MAX_CLIENT_FRAMES per POLL_S
                        window_start, window_frames = now, 0
                    window_frames += _drain(self.ws, MAX_CLIENT_FRAMES - window_frames)
                if pending is not None:
                    self.write_blocking(pending, have)  # finishes a begun frame first
                elif rest:
                    self._sendall(b"")  # finish the frame offer() began (unless a writer already did)
                if ping:
                    self.ws.send(keepalive_text(self.topic, self.version).decode())
                if rest or pending is not None or ping:
                    self.sent_at = time.monotonic()
            finally:
                with self.cond:
                    self.busy = False


def _nonblocking_send(sock: Any) -> Callable[[bytes], int]:
    """``send(data) -> bytes sent`` on ``sock`` that never waits for the peer (raises
    ``BlockingIOError`` when nothing fits): ``MSG_DONTWAIT``, plus ``timeout=0.0`` on gevent's
    cooperative socket (gunicorn ``-k gevent``, docs/deploy.md), whose ``send`` would otherwise
    park the caller until a slow screen drained its buffer."""
    try:
        cooperative = "timeout" in inspect.signature(sock.send).parameters
    except (TypeError, ValueError):  # a builtin without a signature: the stdlib socket
        cooperative = False
    if cooperative:
        return lambda data: sock.send(data, socket.MSG_DONTWAIT, timeout=0.0)
    return lambda data: sock.send(data, socket.MSG_DONTWAIT)


def serve(ws: Any, topic: str, first: Message, frames: FrameCache, fanout: Any, keepalive_s: float) -> None:
    """Send ``first`` (the topic's current message), then every newer one ``fanout``
    (:class:`web.push.fanout.Fanout`) offers, until the client goes away.

    Returns when the connection closes; raises ``ConnectionClosed`` from a send on a closed
    connection (the WebSocket route treats that as a normal end).
    """
    sub = Subscriber(ws, topic, frames, first.version)
    sub.write_blocking(first)
    fanout.subscribe(sub)
    try:
        sub.run(keepalive_s)
    finally:
        sub.stop()
        fanout.unsubscribe(sub)


def _drain(ws: Any, budget: int = MAX_CLIENT_FRAMES) -> int:
    """Read and drop what the client sent; returns how many frames. More than ``budget``
    closes the client (1008): it floods."""
    for count in range(budget + 1):
        if ws.receive(timeout=0) is None:
            return count
    ws.close(reason=1008, message="too many client messages")
    raise ConnectionClosed(1008, "too many client messages")
