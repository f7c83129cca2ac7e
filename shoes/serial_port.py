"""The serial port of a shoe, through pyserial: opened at the shoe's line settings, read as bytes
arrive, and opened again when the cable is pulled or the port vanishes (docs/shoes.md "Wiring").
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

import serial

log = logging.getLogger("roads.shoe")

REOPEN_S = 1.0
"""Seconds between two tries to open a port that is missing or refused."""


def open_port(device: str, baud: int, timeout: float = 0.2) -> serial.Serial:
    """``device`` opened at ``baud``, 8 data bits, no parity, 1 stop bit, no flow control;
    reads wait at most ``timeout`` seconds. Raises ``serial.SerialException`` (missing port,
    no permission: the message says which)."""
    return serial.Serial(device, baud, bytesize=serial.EIGHTBITS, parity=serial.PARITY_NONE,
                         stopbits=serial.STOPBITS_ONE, timeout=timeout, xonxoff=False, rtscts=False)


def read_forever(device: str, baud: int, on_bytes: Callable[[bytes], None], stop: threading.Event,
                 on_state: Callable[[str], None] | None = None) -> None:
    """Call ``on_bytes`` with each read's bytes until ``stop`` is set; a port that cannot be
    opened or fails while read (cable pulled, USB adapter gone) is opened again every
    :data:`REOPEN_S` seconds. ``on_state`` is told ``"open"`` and ``"lost"``."""
    warned = False
    while not stop.is_set():
        try:
            port = open_port(device, baud)
        except (serial.SerialException, OSError, ValueError) as e:
            if not warned:
                log.warning("cannot open %s (%s); trying again every %.0f s", device, e, REOPEN_S)
                warned = True
            stop.wait(REOPEN_S)
            continue
        warned = False
        log.info("reading %s at %d baud", device, baud)
        if on_state:
            on_state("open")
        try:
            while not stop.is_set():
                data = port.read(port.in_waiting or 1)
                if data:
                    on_bytes(data)
        except (serial.SerialException, OSError) as e:
            log.warning("lost %s (%s); opening it again", device, e)
            if on_state:
                on_state("lost")
            time.sleep(0.1)
        finally:
            try:
                port.close()
            except (serial.SerialException, OSError):
                pass
