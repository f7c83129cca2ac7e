"""A WebSocket client on a plain loopback socket, for the push tests that need a slow screen.

:class:`RawClient` reads only when the test asks (a small receive buffer, so a server frame
bigger than the buffers stays half written until then) and checks every byte it gets: each
server frame must be whole, final and unmasked, a text, ping or close frame (RFC 6455 section
5.2). Pings are answered with masked pongs as they are read, as a browser does. Every read is
bounded by a socket timeout.
"""

from __future__ import annotations

import json
import socket
import struct
import time

RECV_TIMEOUT_S = 10.0


class RawClient:
    """A client of ``ws://<server><path>`` (``server`` = ``"127.0.0.1:<port>"``) on a raw socket.

    :attr:`pings` counts the pings answered, :attr:`close_code` is the server's close code once
    a close frame was read (1005 when it carried none).
    """

    def __init__(self, server: str, path: str, *, rcvbuf: int = 4096, timeout: float = RECV_TIMEOUT_S) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.timeout = timeout
        self.sock.settimeout(timeout)
        host, port = server.rsplit(":", 1)
        self.sock.connect((host, int(port)))
        key = "dGhlIHNhbXBsZSBub25jZQ=="
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {server}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        self.buf = bytearray()
        while b"\r\n\r\n" not in self.buf:
            self._fill(1024)
        head, _, rest = bytes(self.buf).partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101"), head
        self.buf = bytearray(rest)
        self.pings = 0
        self.close_code: int | None = None

    def _fill(self, chunk: int = 1 << 16) -> None:
        data = self.sock.recv(chunk)
        assert data, "the server closed the connection"
        self.buf += data

    def _frame(self) -> tuple[int, bytes] | None:
        """The next whole frame in the buffer, checked, or ``None`` if it is still incomplete."""
        buf = self.buf
        if len(buf) < 2:
            return None
        b0, b1 = buf[0], buf[1]
        assert b0 & 0x80 and not b0 & 0x70, f"not a final frame without RSV bits: {bytes(buf[:16])!r}"
        assert not b1 & 0x80, f"masked server frame: {bytes(buf[:16])!r}"
        opcode, n, head = b0 & 0x0F, b1 & 0x7F, 2
        assert opcode in (0x1, 0x8, 0x9), f"unexpected opcode {opcode:#x}: {bytes(buf[:16])!r}"
        if n == 126:
            if len(buf) < 4:
                return None
            n, head = int.from_bytes(buf[2:4], "big"), 4
        elif n == 127:
            if len(buf) < 10:
                return None
            n, head = int.from_bytes(buf[2:10], "big"), 10
            assert n < 1 << 32, f"absurd frame length {n}"
        assert opcode == 0x1 or n <= 125, f"control frame of {n} bytes"
        if len(buf) < head + n:
            return None
        payload = bytes(buf[head: head + n])
        del buf[: head + n]
        return opcode, payload

    def _send_control(self, opcode: int, payload: bytes) -> None:
        mask = b"\x01\x02\x03\x04"
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(bytes((0x80 | opcode, 0x80 | len(payload))) + mask + masked)

    def _handle(self, frame: tuple[int, bytes]) -> None:
        opcode, payload = frame
        if opcode == 0x9:
            self.pings += 1
            self._send_control(0xA, payload)
        elif opcode == 0x8:
            self.close_code = int.from_bytes(payload[:2], "big") if payload else 1005

    def peek(self, n: int) -> bytes:
        """Read until ``n`` bytes of frames are buffered (the start of the first frame) and return
        them; nothing is consumed, so a frame the server could not write whole stays half written."""
        while len(self.buf) < n:
            self._fill(n - len(self.buf))
        return bytes(self.buf[:n])

    def frame(self) -> tuple[int, bytes]:
        """The next whole frame ``(opcode, payload)``, reading as needed; pings are answered."""
        while (frame := self._frame()) is None:
            self._fill()
        self._handle(frame)
        return frame

    def texts(self, count: int) -> list[bytes]:
        """The payloads of the next ``count`` text frames (pings in between are answered)."""
        out = []
        while len(out) < count:
            opcode, payload = self.frame()
            assert opcode != 0x8, f"closed ({self.close_code}) after {len(out)} of {count} text frames"
            if opcode == 0x1:
                out.append(payload)
        return out

    def messages(self, count: int) -> list[dict]:
        """:meth:`texts` decoded from JSON."""
        return [json.loads(t) for t in self.texts(count)]

    def silent_for(self, seconds: float) -> bool:
        """True when not one byte arrives for ``seconds`` (what arrives is kept for later reads)."""
        if self.buf:
            return False
        deadline = time.monotonic() + seconds
        try:
            self.sock.settimeout(seconds)
            data = self.sock.recv(1 << 16)
        except TimeoutError:
            return time.monotonic() >= deadline - 0.01
        finally:
            self.sock.settimeout(self.timeout)
        self.buf += data
        return False

    def abort(self) -> None:
        """Vanish without a close handshake: the socket is reset (SO_LINGER 0), as a screen
        whose network drops."""
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.sock.close()

    def close(self) -> None:
        self.sock.close()
