"""Integrity flags of the service: the feed writes refused as exact impossibilities
(:mod:`roads.integrity`), kept in memory (the newest :data:`KEPT`), logged at WARNING as they
happen and, with a ``path``, appended to a JSON-lines file (``<ROADS_DATA_DIR>/integrity.jsonl``,
docs/api.md "Integrity flags") before the refusal is answered, so they survive a restart. The
file is rewritten to the newest :data:`KEPT` when it holds twice that many. Flask-free; the HTTP
side records them (``web.http.integrity_api``)."""

from __future__ import annotations

import json
import logging
import os
import threading
from collections import deque
from pathlib import Path
from typing import Any, Callable, Mapping

log = logging.getLogger(__name__)

KEPT = 1000
"""Flags kept (the oldest go first); every flag is in the log."""

FILENAME = "integrity.jsonl"
"""The flags' file in the data directory: one flag a line (:func:`roads.integrity.flag` shape, ``at`` Unix seconds)."""

_KEYS = ("table", "shoe", "round", "code", "what", "field", "message", "at")


def _valid(f: Any) -> bool:
    return (isinstance(f, dict) and all(k in f for k in _KEYS) and isinstance(f["table"], str)
            and isinstance(f["at"], (int, float)) and not isinstance(f["at"], bool))


class IntegrityFlags:
    """The newest :data:`KEPT` flags, thread-safe; ``path``: the JSON-lines file they are kept in
    (read at start: a line that is not a flag is skipped and logged), ``None``: memory only.
    ``listeners`` are called (no arguments, outside the lock) after each flag is added."""

    def __init__(self, kept: int = KEPT, path: str | Path | None = None) -> None:
        self.kept = kept
        self.path = Path(path) if path is not None else None
        self._flags: deque[dict[str, Any]] = deque(maxlen=kept)
        self._lock = threading.Lock()
        self._lines = 0
        self.listeners: list[Callable[[], None]] = []
        self.raised: dict[str, int] = {}
        """Flags ever kept (loaded or raised) per table: only grows while the process lives."""
        if self.path is not None:
            self._load()

    def _load(self) -> None:
        assert self.path is not None
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return
        except (OSError, UnicodeDecodeError) as exc:
            log.error("integrity flags: cannot read %s: %s", self.path, exc)
            return
        for n, line in enumerate(lines, 1):
            try:
                f = json.loads(line)
            except ValueError:
                f = None
            if not _valid(f):
                log.warning("integrity flags: %s line %d is not a flag; skipped", self.path, n)
                continue
            self._flags.append({k: f[k] for k in _KEYS})
        for f in self._flags:
            self.raised[f["table"]] = self.raised.get(f["table"], 0) + 1
        self._lines = len(lines)

    def _write(self, f: Mapping[str, Any]) -> None:
        """Append ``f`` (caller holds the lock); compacts the file to the kept flags when it is
        twice :attr:`kept` lines long. A failing disk is logged, never raised (the refusal stands)."""
        assert self.path is not None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self._lines + 1 >= 2 * self.kept:
                tmp = self.path.with_suffix(".tmp")
                tmp.write_text("".join(json.dumps(x, sort_keys=True) + "\n" for x in self._flags), encoding="utf-8")
                os.replace(tmp, self.path)
                self._lines = len(self._flags)
                return
            with open(self.path, "a", encoding="utf-8") as out:
                out.write(json.dumps(dict(f), sort_keys=True) + "\n")
                out.flush()
                os.fsync(out.fileno())
            self._lines += 1
        except OSError as exc:
            log.error("integrity flags: cannot write %s: %s", self.path, exc)

    def add(self, flag: Mapping[str, Any]) -> None:
        """Keep (and write, with a path), log and announce one flag (:func:`roads.integrity.flag` shape)."""
        f = {k: flag[k] for k in _KEYS}
        with self._lock:
            self._flags.append(f)
            self.raised[f["table"]] = self.raised.get(f["table"], 0) + 1
            if self.path is not None:
                self._write(f)
        log.warning("integrity flag: table %r shoe %s round %s: %s (%s)", flag["table"], flag["shoe"], flag["round"],
                    flag["what"], flag["message"])
        for listener in list(self.listeners):
            try:
                listener()
            except Exception:  # a screen marker failing must not turn the 422 into a 500
                log.exception("integrity flags: a listener failed")

    def list(self, *, table: str | None = None, start: float | None = None, end: float | None = None) -> list[dict[str, Any]]:
        """Flags newest first, of ``table`` (``None``: every table), at times in ``[start, end)``."""
        with self._lock:
            flags = list(self._flags)
        return [f for f in reversed(flags) if (table is None or f["table"] == table)
                and (start is None or f["at"] >= start) and (end is None or f["at"] < end)]

    def counts(self, start: float, end: float) -> dict[str, int]:
        """``{table: number of flags at times in [start, end)}`` (tables without any left out)."""
        out: dict[str, int] = {}
        for f in self.list(start=start, end=end):
            out[f["table"]] = out.get(f["table"], 0) + 1
        return out
