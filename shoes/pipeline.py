"""One adapter at work: bytes from the shoe into the journal, through the protocol's decoder and
the round follower into the spool, and from the spool to the feed (docs/shoes.md).

:class:`Pipeline` is the deterministic part (journal -> decoder -> :class:`shoes.deal.RoundFollower`
-> spool); :class:`Adapter` runs it with a :class:`shoes.sender.Sender` thread, reading a serial
device (:meth:`Adapter.run_device`) or a recording (:meth:`Adapter.run_replay`), and writes the
summary line. Standard library and :mod:`shoes` only (pyserial is imported by the device path).
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any, Iterable, Protocol

from shoes import deal
from shoes.sender import FeedHTTP, Sender
from shoes.spool import Spool

log = logging.getLogger("roads.shoe")

KEEP_SENT_S = 14 * 86400
"""Messages the service took are kept this long (seconds) in the spool, then deleted at the next
start (14 days: for support; the rest stays until sent or looked at)."""

JOURNAL_ROTATE_BYTES = 1 << 20
"""A device adapter starts an empty journal at start when the old one, read to its end, holds
more than this many bytes (1 MiB: about 50 shoes)."""

CHECKPOINT_BYTES = 4096
"""The state is committed at least every this many journal bytes, so a restart reads at most
that much again (it is committed with every batch of messages anyway)."""


class Decoder(Protocol):
    """A shoe protocol's reader: bytes in, :mod:`shoes.deal` events out, its state plain data."""

    def feed(self, data: bytes) -> list[deal.Event]:
        """Events completed by ``data`` (any split of the stream)."""

    def flush(self) -> list[deal.Event]:
        """The stream ended: events of what is left (usually none)."""

    def state(self) -> dict[str, Any]:
        """JSON-ready state (:meth:`from_state` makes the decoder again)."""

    def counters(self) -> dict[str, int]:
        """Counters for the summary line, in the order printed."""


class Pipeline:
    """Journal -> ``decoder_type`` -> round follower -> spool, for table ``table``.

    A new spool waits for :meth:`start` (the shoe and round to number from) before reading its
    journal; bytes fed before that are journaled and read then. Thread-safe.
    """

    def __init__(self, spool: Spool, decoder_type: Any, table: str, expects_result: bool) -> None:
        self.spool, self.decoder_type, self.table, self.expects_result = spool, decoder_type, table, expects_result
        self.lock = threading.RLock()
        state = spool.load_state()
        self.decoder: Decoder | None = None
        self.follower: deal.RoundFollower | None = None
        self.offset = self.committed = 0
        if state is not None:
            self.decoder = decoder_type.from_state(state["decoder"]) if state.get("decoder") is not None else None
            self.follower = deal.RoundFollower.from_state(state["follower"])
            self.offset = self.committed = state["offset"]

    @property
    def ready(self) -> bool:
        """The follower knows its numbers (the spool has a state)."""
        return self.follower is not None

    def start(self, shoe: int | None, round_no: int) -> None:
        """Number from shoe ``shoe`` (``None``: the table has none yet), after round ``round_no``,
        and read what the journal holds."""
        with self.lock:
            if self.ready:
                return
            self.follower = deal.RoundFollower(self.table, shoe=shoe, round=round_no, expects_result=self.expects_result)
            self.decoder = self.decoder_type() if self.decoder_type is not None else None
            self._process(force=True)

    def feed(self, data: bytes) -> None:
        """Journal ``data`` (read from the shoe), then read it."""
        with self.lock:
            self.spool.journal_append(data)
            if self.ready:
                self._process()

    def catch_up(self) -> None:
        """Read the journal past the committed state (after a restart)."""
        with self.lock:
            if self.ready:
                self._process(force=True)

    def end_of_stream(self) -> None:
        """The recording ended: what is left of an unfinished frame is noise."""
        with self.lock:
            assert self.decoder is not None and self.follower is not None
            self._process()
            messages = [m for e in self.decoder.flush() for m in self.follower.handle(e)]
            self._commit(messages)

    def handle(self, events: Iterable[deal.Event], delivery_key: str | None = None) -> list[dict[str, Any]]:
        """Events that came whole (no journal: an HTTP delivery), spooled before this returns;
        ``delivery_key`` remembers the delivery (:meth:`shoes.spool.Spool.delivery`)."""
        with self.lock:
            assert self.follower is not None
            messages = [m for e in events for m in self.follower.handle(e)]
            self._commit(messages, delivery=(delivery_key, messages) if delivery_key else None)
            return messages

    def _process(self, force: bool = False) -> None:
        assert self.follower is not None
        if self.decoder is None:  # a shoe that delivers whole events: nothing journaled
            if force:
                self._commit([])
            return
        data = self.spool.journal_read(self.offset)
        messages: list[dict[str, Any]] = []
        for event in self.decoder.feed(data) if data else ():
            messages += self.follower.handle(event)
        self.offset += len(data)
        if messages or force or self.offset - self.committed >= CHECKPOINT_BYTES:
            self._commit(messages)

    def _commit(self, messages: list[dict[str, Any]], delivery: tuple[str, Any] | None = None) -> None:
        assert self.follower is not None
        state = {"offset": self.offset, "decoder": None if self.decoder is None else self.decoder.state(),
                 "follower": self.follower.state()}
        self.spool.commit(state, messages, delivery=delivery)
        self.committed = self.offset

    def rotate_journal(self, threshold: int) -> bool:
        """Read the journal to its end and, when it holds more than ``threshold`` bytes, start an
        empty one (:meth:`shoes.spool.Spool.rotate_journal`); ``True`` when rotated."""
        with self.lock:
            if not self.ready or self.decoder is None or self.spool.journal_size() <= threshold:
                return False
            self._process(force=True)
            assert self.follower is not None
            self.spool.rotate_journal({"offset": self.offset, "decoder": self.decoder.state(),
                                       "follower": self.follower.state()})
            self.offset = self.committed = 0
            return True

    def counters(self) -> dict[str, int]:
        """The decoder's counters (empty before the start)."""
        return {} if self.decoder is None else self.decoder.counters()


def service_numbers(http: FeedHTTP, table: str) -> tuple[int | None, int]:
    """``(shoe, last round)`` of ``table`` as the service has it (``(None, 0)`` for a table it
    does not have). Raises ``OSError`` when the service cannot be reached or does not answer 200/404."""
    import urllib.parse

    status, snap = http.request("GET", f"/api/tables/{urllib.parse.quote(table, safe='')}")
    if status == 404:
        return None, 0
    if status != 200 or not isinstance(snap, dict):
        raise OSError(f"GET /api/tables/{table}: HTTP {status}")
    if snap.get("in_progress"):
        log.warning("table %s has round %s in progress at the service (from another feed?): the adapter numbers "
                    "after round %s", table, snap["in_progress"].get("round"), snap.get("round"))
    return int(snap["shoe"]), int(snap.get("round") or 0)


class Adapter:
    """An adapter for ``table``: spool in ``spool_dir``, feed at ``url`` with ``token``.

    ``decoder_type``: the protocol's decoder class (``None`` for shoes that deliver whole
    events, e.g. HTTP); ``expects_result``: the shoe sends its own result; ``start``: the
    ``(shoe, round)`` to number from when the spool is new (default: ask the service).
    """

    def __init__(self, spool_dir: Path, table: str, url: str, token: str, decoder_type: Any, *,
                 expects_result: bool, start: tuple[int | None, int] | None = None, timeout: float = 10.0) -> None:
        self.table = table
        self.spool = Spool(spool_dir, table)
        self.http = FeedHTTP(url, token, timeout=timeout)
        self.pipeline = Pipeline(self.spool, decoder_type, table, expects_result)
        self.sender = Sender(self.spool, FeedHTTP(url, token, timeout=timeout))
        self.start_numbers = start
        self.stop = threading.Event()
        self._threads: list[threading.Thread] = []

    # ------------------------------------------------------------------ lifecycle
    def begin(self) -> None:
        """Start the sender, and number the rounds (from the spool, ``start``, or the service,
        asked until it answers, in a thread: bytes read meanwhile wait in the journal)."""
        pruned = self.spool.prune(KEEP_SENT_S)
        if pruned:
            log.info("spool: %d message(s) sent more than %d days ago deleted", pruned, KEEP_SENT_S // 86400)
        self._thread(self.sender.run, "shoe-sender")
        if self.pipeline.ready:
            self.pipeline.catch_up()
        elif self.start_numbers is not None:
            self.pipeline.start(*self.start_numbers)
        else:
            self._thread(self._ask_numbers, "shoe-numbers")

    def _ask_numbers(self) -> None:
        pause = 0.2
        while not self.stop.is_set():
            try:
                shoe, rnd = service_numbers(self.http, self.table)
            except Exception as e:  # noqa: BLE001 (unreachable, refusing: ask again)
                log.warning("cannot ask the service for table %s's shoe and round yet (%s)", self.table, e)
                self.stop.wait(pause)
                pause = min(pause * 2, 5.0)
                continue
            log.info("table %s: numbering from shoe %s after round %d", self.table, shoe, rnd)
            self.pipeline.start(shoe, rnd)
            return

    def _thread(self, target: Any, name: str) -> None:
        t = threading.Thread(target=target, name=name, daemon=True)
        t.start()
        self._threads.append(t)

    def close(self) -> None:
        """Stop the threads and close the spool."""
        self.stop.set()
        self.sender.stop()
        for t in self._threads:
            t.join(timeout=15)
        self.http.close()
        self.sender.http.close()
        self.spool.close()

    # ------------------------------------------------------------------ sources
    def run_device(self, device: str, baud: int) -> None:
        """Read ``device`` until :attr:`stop` is set (reopening it when it goes away)."""
        from shoes.serial_port import read_forever

        self.begin()
        if self.pipeline.rotate_journal(JOURNAL_ROTATE_BYTES):
            log.info("spool: journal read to its end; a new one started")
        read_forever(device, baud, self.pipeline.feed, self.stop)

    def run_replay(self, chunks: list[tuple[float, bytes]], source: str, realtime: bool = False) -> bool:
        """Feed a recording's reads through the pipeline (the part a killed run had journaled is
        not fed again), wait until every message is delivered; ``True`` when it is."""
        self.begin()
        base = self.spool.get_meta("replay")
        if not base or base.get("source") != source:
            base = {"source": source, "base": self.spool.journal_size()}
            self.spool.set_meta("replay", base)
        skip = self.spool.journal_size() - base["base"]
        started = time.monotonic()
        for t, data in chunks:
            if self.stop.is_set():
                return False
            if skip >= len(data):
                skip -= len(data)
                continue
            data, skip = data[skip:], 0
            if realtime:
                delay = started + t - time.monotonic()
                if delay > 0:
                    self.stop.wait(delay)
            self.pipeline.feed(data)
        while not self.pipeline.ready and not self.stop.is_set():
            self.stop.wait(0.05)
        if self.stop.is_set():
            return False
        self.pipeline.end_of_stream()
        while not self.stop.is_set():
            if self.spool.next_pending() is None:
                return True
            self.stop.wait(0.05)
        return False

    # ------------------------------------------------------------------ summary
    def summary(self) -> str:
        """One line: the decoder's counters, rounds posted, rounds held back and why, messages
        refused and degraded."""
        counts = self.spool.counts()
        parts = [f"{name.replace('_', ' ')} {n}" for name, n in self.pipeline.counters().items()]
        follower = self.pipeline.follower
        held = list(follower.stats.held_back) if follower else []
        if follower is not None and follower.open:
            held.append([f"round {follower.shoe}-{follower.round}",
                         "waiting for its result at the end of the stream" if follower.waiting_result
                         else f"unfinished at the end of the stream ({len(follower.slots)} card(s))"])
        for card, note in self.spool.refused_rounds():
            held.append([f"round {card['shoe']}-{card['round']}", f"voided: {note}"])
        parts.append(f"rounds posted {counts['recorded']}")
        why = "; ".join(f"{r}: {w}" for r, w in held)
        parts.append(f"rounds held back {len(held)}" + (f" ({why})" if why else ""))
        parts.append(f"messages refused {counts['refused']}, skipped {counts['skipped']}, "
                     f"degraded {counts['degraded']}, pending {counts['pending']}")
        return ", ".join(parts)
