"""``roads shoe record`` on a pseudo-terminal: the bytes a shoe sends, with their timing, in a
file that ``--replay`` reads back as the same bytes."""

from __future__ import annotations

import subprocess
import sys
import time

from shoes.recording import MAGIC, read_chunks
from support.serving import ROOT
from support.shoe_pty import ShoeLine
from test_angel_eye_reader import BANKER_PAIR, CARD_SHOWN


def test_record_keeps_every_byte_with_its_time(tmp_path):
    line = ShoeLine()
    out = tmp_path / "shoe.aer"
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "shoe", "record", "--device", line.device,
                             "--out", str(out), "--duration", "3"], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 20
        while not out.exists() or out.stat().st_size == 0:  # the header is written once the port is open
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.02)
        time.sleep(0.3)
        line.play(CARD_SHOWN * 3 + b"\x00" + BANKER_PAIR)
        assert line.done.wait(10)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        line.close()
    assert out.read_text().startswith(MAGIC + f" device={line.device} baud=4800 ")
    chunks = read_chunks(out)
    assert b"".join(c for _, c in chunks) == CARD_SHOWN * 3 + b"\x00" + BANKER_PAIR
    times = [t for t, _ in chunks]
    assert times == sorted(times) and 0 < times[0] < times[-1] < 3
    assert "recorded 32 byte(s)"  # 3 x 8 + 1 + 7 in proc.stderr.read()
