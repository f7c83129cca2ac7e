"""The standalone demo: the service plus simulated tables dealing live.

The tables feed the service through :class:`web.cli.feed_client.FeedClient` (its names are
importable from here too), the HTTP feed path a live table uses, never a side door.

:class:`Demo` runs the service on loopback with werkzeug's threaded server (simple-websocket
WebSockets need a thread per connection) on an embedded store in a temporary or given data
directory, and one :class:`SimulatedTable` thread per table: each deals real shoes with the
rules engine at a jittered pace and starts the next shoe at the end of one. Dealing card by card
(:attr:`Pace.card_by_card`, the demo's pace), a table does what a live table's dealer terminal
and card-reading shoe do (:func:`roads.simulator.live_messages`): betting opens with a countdown
(``POST .../state``), then ``dealing``, each card as it leaves the shoe (``POST .../cards``) with
a pause between cards, then ``result``; at the end of a shoe it is ``shuffling`` for a while
before the new shoe's burn cards come.
"""

from __future__ import annotations

import logging
import random
import secrets
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from roads import simulator
from roads.variants import PRESETS
from web import create_app, extensions
from web.cli.feed_client import RETRY_STATUSES, FeedClient, FeedClientError, FeedRejected, FeedUnavailable
from web.cli.serving import make_threaded_server
from web.service import get_service

WAIT_SLICE_S = 0.5
"""Longest single sleep of :meth:`Demo.wait` (how late a stop signal may be noticed)."""

log = logging.getLogger(__name__)

__all__ = ["DEALERS", "RETRY_STATUSES", "Demo", "DemoTable", "FeedClient", "FeedClientError", "FeedRejected", "FeedUnavailable",
           "Pace", "SimulatedTable", "current_shoe", "demo_tables", "tables_setting"]


def current_shoe(client: FeedClient, table: str) -> int:
    """The highest shoe number the service holds for ``table`` (``GET .../shoes?limit=1``); 0 when none
    (an unknown table included). Raises :class:`FeedRejected` or :class:`FeedUnavailable` like
    :meth:`FeedClient.get`."""
    listing = client.get(f"/api/tables/{table}/shoes?limit=1")  # newest first: the first line is the highest
    shoes = listing.get("shoes") if isinstance(listing, dict) else None
    numbers = [s.get("shoe") for s in shoes or () if isinstance(s, dict)]
    return max((n for n in numbers if isinstance(n, int) and not isinstance(n, bool)), default=0)


# --------------------------------------------------------------------------- demo tables
DEMO_TABLES: tuple[tuple[str, str], ...] = (
    ("seed000_live", "Live Baccarat"),
    ("seed002", "超级6 百家乐"),                      # "Super 6 Baccarat"
    ("seed001", "บาคาร่าประกัน"),                     # "insurance baccarat": document 001 is the Thai
                                                   # table with insurance bets
    ("seed004_mini", "Mini Baccarat"),
    ("seed000_live_no_commission", "No Commission"),
    ("seed002_commission", "ဘက်ကာရက် ကော်မရှင်"),     # "Baccarat, commission" (document 002 is Burmese)
    ("seed001_no_commission", "Insurance No Commission"),
    ("seed000_live", "ບາຄາຣາສົດ"),                    # "live baccarat"
)
"""``(variant preset, display name)`` of the demo tables, in order; each name says the game the
table deals (Super 6, insurance, mini, no commission, commission), and Chinese, Thai, Burmese and
Lao names are among them. The first four are four different rule sets (commission; Super 6
with a burn between rounds; Pok, Big/Small and Super 6+ side bets with insurance; tie 9:1
mini). Presets missing from :data:`roads.variants.PRESETS` are skipped; presets not listed
here follow under their own names."""


@dataclass(frozen=True, slots=True)
class DemoTable:
    """One simulated table: ``id`` (slug), display ``name``, ``variant`` preset id, ``decks``."""

    id: str
    name: str
    variant: str
    decks: int = simulator.DEFAULT_DECKS
    burn_between_rounds: bool = False


def demo_tables(count: int) -> list[DemoTable]:
    """``count`` demo tables ``t1``, ``t2``, ...: each a variant preset and a name that says it.

    Tables take :data:`DEMO_TABLES` in turn (then any preset not listed, under its own name),
    cycling when there are more tables; the table's number ends its name ("Mini Baccarat 4"),
    so every name is unique. Raises ``ValueError`` when ``count`` is below 1.
    """
    if count < 1:
        raise ValueError(f"number of demo tables must be >= 1, got {count!r}")
    listed = {variant for variant, _ in DEMO_TABLES}
    plan = [(v, name) for v, name in DEMO_TABLES if v in PRESETS]
    plan += [(v, PRESETS[v].name) for v in PRESETS if v not in listed]
    tables = []
    for i in range(count):
        variant_id, stem = plan[i % len(plan)]
        variant = PRESETS[variant_id]
        tables.append(DemoTable(id=f"t{i + 1}", name=f"{stem} {i + 1}", variant=variant.id, decks=variant.decks,
                                burn_between_rounds=variant.burn_between_rounds))
    return tables


def tables_setting(tables: Sequence[DemoTable]) -> dict[str, dict[str, str]]:
    """The service's ``ROADS_TABLES`` setting for ``tables``: ``{id: {"name", "variant"}}``."""
    return {t.id: {"name": t.name, "variant": t.variant} for t in tables}


DEALERS: tuple[str, ...] = ("Anna", "Somchai", "Mei Ling", "Khin", "Noy", "Li Wei", "Ploy", "Thiha")
"""Dealer names the demo tables give the state feed, a new dealer each shoe."""


@dataclass
class Pace:
    """How fast a simulated table deals, in seconds.

    ``round_seconds`` is the mean time between two rounds, jittered uniformly by
    ``jitter`` (a fraction either way: the default 2/7 turns 35 s into 25-45 s, the pace of a
    real table); ``shoe_seconds`` is the pause for the shuffle between shoes (two minutes by
    default); ``prefill`` is the most rounds of the first shoe dealt at once at start (a random
    number from a quarter of it to it), so the lobby shows some history from the start.

    ``card_by_card``: post each later round as a live table does (table states and one card at
    a time, :meth:`round_plan` splitting the round's time); ``False`` posts whole rounds only, as
    a feed that sends results. ``betting_seconds`` is the longest betting countdown and
    ``card_seconds`` the longest pause between two cards (both shortened to fit a short round).
    ``open_every``: every that many rounds (rounds 1, 1 + n, 1 + 2n... of a shoe; 0 = never)
    the betting countdown lasts ``betting_seconds`` whatever the round's time, so a fast demo
    still shows a countdown ticking.
    """

    round_seconds: float = 35.0
    jitter: float = 2 / 7
    shoe_seconds: float = 120.0
    prefill: int = 40
    card_by_card: bool = False
    betting_seconds: float = 15.0
    card_seconds: float = 2.0
    open_every: int = 0

    @classmethod
    def real(cls) -> "Pace":
        """A real table's pace, card by card: a round every 25-45 s (15 s of betting, about 2 s
        between cards), two minutes of shuffling between shoes."""
        return cls(card_by_card=True)

    @classmethod
    def fast(cls) -> "Pace":
        """A full shoe (about 75 rounds) in about four seconds plus a 3 s betting countdown on
        rounds 1, 26, 51 and 76 (plus the time the posts take), card by card, and 3 s of
        shuffling between shoes: long enough to be seen."""
        return cls(round_seconds=0.05, jitter=0.5, shoe_seconds=3.0, prefill=20, card_by_card=True,
                   betting_seconds=3.0, open_every=25)

    def round_delay(self, rng: random.Random) -> float:
        """Seconds to wait before the next round."""
        spread = self.round_seconds * self.jitter
        return max(0.0, rng.uniform(self.round_seconds - spread, self.round_seconds + spread))

    def round_plan(self, rng: random.Random, cards: int, round_n: int = 0) -> tuple[float, float, float]:
        """``(betting, gap, result)`` seconds of one round of ``cards`` cards dealt card by card:
        a :meth:`round_delay` split into the betting countdown (at most ``betting_seconds`` and
        60 % of the round; all ``betting_seconds`` on round ``round_n`` of the shoe when
        ``open_every`` says so), a pause before each card (at most ``card_seconds``) and the rest
        with the result shown."""
        total = self.round_delay(rng)
        betting = min(self.betting_seconds, 0.6 * total)
        if self.open_every and round_n > 0 and (round_n - 1) % self.open_every == 0:
            betting = self.betting_seconds
            total = max(total, betting)
        gap = min(self.card_seconds, (total - betting) / (cards + 2))
        return betting, gap, max(0.0, total - betting - cards * gap)


class SimulatedTable(threading.Thread):
    """A thread that deals shoe after shoe for ``table`` and posts every message via ``client``.

    Starts at the shoe after the service's current one (so a reused data directory goes
    on), deals with ``seed`` (``None`` = random), waits per :class:`Pace`, stops when
    ``stop_event`` is set. ``rounds_sent`` counts acknowledged rounds. A rejected message is
    logged and the table moves to a fresh shoe; an unreachable service ends the thread.
    """

    def __init__(self, table: DemoTable, client: FeedClient, pace: Pace, stop_event: threading.Event,
                 *, seed: int | None = None) -> None:
        super().__init__(name=f"table-{table.id}", daemon=True)
        self.table, self.client, self.pace, self.seed = table, client, pace, seed
        self.stop_event = stop_event
        self.rounds_sent = 0
        self.errors: list[str] = []

    def run(self) -> None:
        """Deal and post until stopped (the thread's body)."""
        rng = random.Random(self.seed)
        seed = self.seed if self.seed is not None else secrets.randbits(64)
        prefill = rng.randint(self.pace.prefill // 4, self.pace.prefill) if self.pace.prefill else 0
        failures = 0
        while not self.stop_event.is_set():
            try:
                self._void_in_progress()
                first = current_shoe(self.client, self.table.id) + 1
                for message in simulator.simulate(
                        self.table.id, seed=seed, shoes=None, first_shoe=first,
                        decks=self.table.decks, burn_between_rounds=self.table.burn_between_rounds):
                    if message["type"] == simulator.SHOE:
                        if self._shoe(message, first, rng):
                            return
                    elif prefill > 0:
                        prefill -= 1
                        self.client.send(message)
                    elif self._round(message, rng):
                        return
                    failures = 0
                    if message["type"] == simulator.ROUND:
                        self.rounds_sent += 1
            except FeedRejected as exc:
                failures += 1
                self.errors.append(str(exc))
                log.warning("table %s: %s; starting a new shoe", self.table.id, exc)
                if failures >= 5 or self.stop_event.wait(1.0):
                    return
            except FeedUnavailable as exc:
                if not self.stop_event.is_set():
                    self.errors.append(str(exc))
                    log.error("table %s: %s; table stopped", self.table.id, exc)
                return

    def _shoe(self, message: dict[str, Any], first: int, rng: random.Random) -> bool:
        """Shuffle (state ``shuffling`` card by card, a new dealer) and start the shoe; ``True``
        when stopped meanwhile."""
        if not self.pace.card_by_card:
            if message["shoe"] != first and self.stop_event.wait(self.pace.shoe_seconds):
                return True
            self.client.send(message)
            return False
        shuffling, start = simulator.live_messages(message, dealer=rng.choice(DEALERS))
        self.client.send(shuffling)
        if message["shoe"] != first and self.stop_event.wait(self.pace.shoe_seconds):
            return True
        self.client.send(start)
        return False

    def _round(self, message: dict[str, Any], rng: random.Random) -> bool:
        """Post one round after its pause (whole, or card by card with its table states as
        :meth:`Pace.round_plan` times them); ``True`` when stopped meanwhile."""
        if not self.pace.card_by_card:
            if self.stop_event.wait(self.pace.round_delay(rng)):
                return True
            self.client.send(message)
            return False
        steps = simulator.live_messages(message)
        cards = sum(1 for m in steps if m["type"] == simulator.CARDS)
        betting, gap, result = self.pace.round_plan(rng, cards, int(message.get("round") or 0))
        for step in steps:
            wait = 0.0
            if step["type"] == simulator.CARDS:
                wait = gap
            elif step.get("state") == "betting":
                step["seconds_left"] = round(betting, 3)
            elif step.get("state") == "dealing":
                wait = betting
            if wait and self.stop_event.wait(wait):
                return True
            self.client.send(step)
        return self.stop_event.wait(result)

    def _void_in_progress(self) -> None:
        """Void the round left in progress (a table stopped or refused mid-round) as a misdeal,
        so the next round or shoe can start."""
        snap = self.client.get(f"/api/tables/{self.table.id}")
        ip = snap.get("in_progress") if isinstance(snap, dict) else None
        if isinstance(ip, dict):
            self.client.post(f"/api/tables/{self.table.id}/shoes/{snap['shoe']}/rounds/{ip['round']}/void",
                             {"reason": "demo: round left in progress"})


# --------------------------------------------------------------------------- the demo
WILDCARD_HOSTS: dict[str, str] = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}
"""Bind addresses meaning every interface, with the loopback address that reaches them."""


class Demo:
    """The service on ``host:port`` (default ``127.0.0.1:8000``) plus simulated tables posting
    through its feed.

    ``host`` is the bind address (``0.0.0.0`` or ``::`` for every interface, so screens on other
    machines can open the lobby; writes still need the feed token). ``port`` 0 picks a free
    port (:attr:`port` tells which). ``data_dir`` ``None`` uses a
    temporary directory removed by :meth:`stop`. ``token`` ``None`` makes a random feed
    token. Use as a context manager or call :meth:`start` / :meth:`stop`. Raises
    ``OSError`` from :meth:`start` when the port cannot be bound (nothing is left running
    or created then).
    """

    def __init__(self, *, port: int = 8000, tables: int = 4, data_dir: str | Path | None = None,
                 pace: Pace | None = None, seed: int | None = None, token: str | None = None,
                 host: str = "127.0.0.1") -> None:
        self.host, self.requested_port = host, port
        self.tables = demo_tables(tables)
        self.pace = pace or Pace.real()
        self.seed = seed
        self.token = token or secrets.token_urlsafe(16)
        self._tmp: str | None = None
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self.stop_event = threading.Event()
        self.runners: list[SimulatedTable] = []
        self._server: Any = None
        self._app: Any = None
        self._server_thread: threading.Thread | None = None
        self.port = port

    @property
    def url(self) -> str:
        """Base URL of the running service, e.g. ``"http://127.0.0.1:8000"``: the bind address,
        or loopback when it binds every interface (``0.0.0.0``, ``::``); the simulated tables
        post to it and the printed links use it."""
        host = WILDCARD_HOSTS.get(self.host, self.host)
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"

    @property
    def every_interface(self) -> bool:
        """Whether the bind address is every interface (other machines may open the pages)."""
        return self.host in WILDCARD_HOSTS

    def urls(self) -> dict[str, str]:
        """What to open: ``lobby``, ``table`` (the first table), ``png`` (its board), ``api``."""
        first = self.tables[0].id
        return {
            "lobby": f"{self.url}/lobby",
            "table": f"{self.url}/tables/{first}",
            "png": f"{self.url}/tables/{first}/board.png",
            "api": f"{self.url}/api/tables",
        }

    def make_app(self) -> Any:
        """The Flask app on the demo's data directory, token and table names/variants."""
        return create_app({
            "ROADS_FEED_TOKEN": self.token,
            "ROADS_DATA_DIR": str(self.data_dir),
            "ROADS_TABLES": tables_setting(self.tables),
        })

    def start(self) -> "Demo":
        """Start the server thread, then one :class:`SimulatedTable` per table."""
        if self.data_dir is None:
            self._tmp = tempfile.mkdtemp(prefix="roads-demo-")
            self.data_dir = Path(self._tmp)
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            self._app = self.make_app()
            self._server = make_threaded_server(self._app, self.host, self.requested_port)
        except BaseException:
            if self._app is not None:
                get_service(self._app).close()
                self._app = None
            self._cleanup_tmp()
            raise
        self.port = self._server.port
        self._server_thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                                               name="roads-demo-server", daemon=True)
        self._server_thread.start()
        for i, table in enumerate(self.tables):
            seed = None if self.seed is None else self.seed * 1000 + i
            runner = SimulatedTable(table, FeedClient(self.url, self.token), self.pace,
                                    self.stop_event, seed=seed)
            self.runners.append(runner)
            runner.start()
        return self

    def rounds_sent(self) -> int:
        """Rounds acknowledged by the service so far, over all tables."""
        return sum(r.rounds_sent for r in self.runners)

    def wait(self, seconds: float | None = None) -> None:
        """Block until :meth:`stop` is called or ``seconds`` pass (``None`` = no limit).

        Waits in slices of :data:`WAIT_SLICE_S`: a signal the kernel hands to another thread
        (SIGTERM with the tables' threads running) only sets a flag, and a main thread asleep in
        one untimed lock wait would never run the handler (seen: a demo deaf to SIGTERM)."""
        end = None if seconds is None else time.monotonic() + seconds
        while not self.stop_event.is_set():
            left = WAIT_SLICE_S if end is None else min(WAIT_SLICE_S, end - time.monotonic())
            if left <= 0 or self.stop_event.wait(left):
                return

    def stop(self) -> None:
        """Stop the tables, the server and the store; remove the temporary data directory."""
        self.stop_event.set()
        for runner in self.runners:
            runner.join(timeout=5)
            runner.client.close()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._app is not None:
            service = self._app.extensions.get(extensions.SERVICE)
            if service is not None:
                service.close()
            self._app = None
        self._cleanup_tmp()

    def _cleanup_tmp(self) -> None:
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def __enter__(self) -> "Demo":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
