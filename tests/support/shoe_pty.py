"""A card-reading shoe on a pseudo-terminal for the adapter's tests: the test writes the shoe's
bytes into the master end at the shoe's line speed; the adapter opens the slave end as its
serial device (pyserial sets it raw, as it does a real port).

:class:`ShoeLine` writes from a thread that can be paused at any byte; :class:`AdapterProcess`
runs ``roads shoe angel-eye --device <slave>`` in a subprocess.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import termios
import threading
import time
import tty
from pathlib import Path

from support.feed import FEED_TOKEN
from support.serving import ROOT


class ShoeLine:
    """A pty pair. :attr:`device` is the slave's path (the adapter's ``--device``); the test keeps
    its own slave descriptor open (raw) so the line stays up while no adapter runs.

    :meth:`play` writes ``data`` at ``baud`` (10 bits a byte: 8N1) from a thread, ``chunk`` bytes
    at a time; :meth:`pause` stops it after the current chunk, :meth:`resume` goes on.
    :attr:`sent` counts the bytes written so far; ``at_byte`` callbacks run when it passes them.
    """

    def __init__(self, baud: int = 4800, link: Path | None = None) -> None:
        self.link = link
        self._open()
        self.baud = baud
        self.sent = 0
        self.running = threading.Event()
        self.running.set()
        self.done = threading.Event()
        self.sent_at: list[tuple[int, float]] = []
        self._thread: threading.Thread | None = None

    def _open(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.tty = os.ttyname(self.slave)
        self.device = self.tty
        if self.link is not None:  # a stable name, as a udev rule gives (docs/shoes.md)
            tmp = self.link.with_name(self.link.name + ".new")
            os.symlink(self.tty, tmp)
            os.replace(tmp, self.link)
            self.device = str(self.link)

    def unplug(self) -> None:
        """Pull the cable: the port goes away (its name too), the writer waits."""
        self.pause()
        if self.link is not None:
            os.unlink(self.link)
        self.close()
        self.running.clear()

    def plug(self) -> None:
        """Plug a (new) port in under the same name; the writer stays paused until :meth:`resume`."""
        self._open()

    def play(self, data: bytes, chunk: int = 1) -> None:
        """Start writing ``data`` (in a thread)."""

        def run() -> None:
            per_byte = 10 / self.baud
            start = time.perf_counter()
            i = 0
            while i < len(data):
                self.running.wait()
                part = data[i:i + chunk]
                os.write(self.master, part)
                i += len(part)
                self.sent = i
                self.sent_at.append((i, time.perf_counter()))
                target = start + i * per_byte
                delay = target - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                else:
                    start = time.perf_counter() - i * per_byte  # after a pause: go on at line speed
            self.done.set()

        self._thread = threading.Thread(target=run, name="shoe-line", daemon=True)
        self._thread.start()

    def pause(self) -> None:
        """Stop writing after the chunk in flight."""
        self.running.clear()
        time.sleep(3 * 10 / self.baud)

    def resume(self) -> None:
        """Go on writing."""
        self.running.set()

    def unread(self) -> int:
        """Bytes written but not yet read by the adapter (in the slave's input queue)."""
        buf = bytearray(4)
        fcntl.ioctl(self.slave, termios.FIONREAD, buf)
        return int.from_bytes(buf, sys.byteorder)

    def close(self) -> None:
        """Close both ends."""
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


class AdapterProcess:
    """``roads shoe angel-eye`` on ``device`` for table ``table`` in a subprocess, logging to
    ``log_path``; :meth:`wait_open` waits until it has the port open."""

    def __init__(self, device: str, url: str, spool: Path, log_path: Path, table: str = "T1",
                 extra: tuple[str, ...] = ()) -> None:
        self.log_path, self.device = log_path, device
        self._log = log_path.open("a", encoding="utf-8")
        self._mark = log_path.stat().st_size
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "web.cli", "shoe", "angel-eye", "--table", table, "--url", url, "--token", FEED_TOKEN,
             "--device", device, "--spool", str(spool), "-v", *extra],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=self._log, env={**os.environ, "PYTHONUNBUFFERED": "1"})

    def wait_open(self, timeout: float = 30) -> None:
        """Wait for the next log line saying the port is open."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.log_path.open(encoding="utf-8") as f:
                f.seek(self._mark)
                text = f.read()
                at = text.find(f"reading {self.device} ")
                if at >= 0:
                    self._mark += len(text[:at + 8].encode())
                    return
            if self.proc.poll() is not None:
                raise AssertionError(f"the adapter exited with {self.proc.returncode}: {self.log_path.read_text()[-2000:]}")
            time.sleep(0.02)
        raise AssertionError(f"the adapter did not open its port: {self.log_path.read_text()[-2000:]}")

    def kill(self) -> None:
        """SIGKILL it."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self._log.close()

    def stop(self) -> int:
        """SIGTERM it; its exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=20)
        self._log.close()
        return code
