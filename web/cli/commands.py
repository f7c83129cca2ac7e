"""The ``roads demo``, ``simulate``, ``replay`` and ``render`` commands (README "Command line").

Registered onto the ``roads`` group of :mod:`web.cli` by :func:`register`. Heavy imports
(Flask app, requests, Pillow) happen inside the commands so ``--help`` stays quick.

Exit codes, the same for every command: 0 success; 1 the work failed (the service
rejected a message or cannot be reached, the port is taken, rendering failed);
2 bad command-line arguments (click's usage errors); 3 a bad input file (not UTF-8,
malformed or truncated JSON Lines, a round that breaks the tableau, a shoe not in the
file) -- the message names the file and the line number.
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import click

EXIT_FAILURE = 1
"""Exit code when the work failed (service error, port taken, render failure)."""

EXIT_BAD_FILE = 3
"""Exit code for a bad input file (malformed or truncated line, unknown shoe)."""

_SIMULATE_EXIT_CODES = """\b
Exit codes: 0 feed file written; 1 the file could not be written;
2 bad arguments (the option is named, e.g. a cut card the shoe cannot hold)."""

_REPLAY_EXIT_CODES = """\b
Exit codes: 0 every message accepted (or already stored); 1 the service
refused a message or is unreachable (the line is named); 2 bad arguments;
3 bad input file (the message names the line)."""

_RENDER_EXIT_CODES = """\b
Exit codes: 0 PNG written; 1 the PNG could not be written; 2 bad arguments;
3 bad input file, or no such shoe or table in it (the message names the line)."""

_DEMO_EXIT_CODES = """\b
Exit codes: 0 stopped (Ctrl+C, SIGTERM or --duration); 1 cannot serve
(port taken); 2 bad arguments."""


class BadFile(click.ClickException):
    """A bad input file; exits with :data:`EXIT_BAD_FILE`. The message names file and line."""

    exit_code = EXIT_BAD_FILE


class Failure(click.ClickException):
    """The work failed (exit :data:`EXIT_FAILURE`)."""

    exit_code = EXIT_FAILURE


class _Progress:
    """A ``click.progressbar`` on stderr; where stderr is not a terminal (a log, a pipe) click
    draws nothing but the label, so one ``"<label> <done>/<total>"`` line ends it instead.
    With ``enabled`` false it only counts. Use it as a context manager."""

    def __init__(self, iterable: Any, length: int | None, label: str, enabled: bool) -> None:
        self.iterable, self.label, self.enabled = iterable, label, enabled
        self.total = length if length is not None else len(iterable)
        self.done = 0
        self.file = sys.stderr
        self.bar = click.progressbar(length=self.total, label=label, file=self.file,
                                     show_pos=True) if enabled else None

    def __enter__(self) -> "_Progress":
        if self.bar is not None:
            self.bar.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.bar is None:
            return
        self.bar.__exit__(*exc)
        if exc[0] is None and not _is_terminal(self.file):
            click.echo(f"{self.label} {self.done}/{self.total}", err=True)

    def __iter__(self) -> Any:
        for item in self.iterable:
            yield item
            self.update(1)

    def update(self, steps: int) -> None:
        """Advance by ``steps``."""
        self.done += steps
        if self.bar is not None:
            self.bar.update(steps)


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _progress(iterable: Any = None, *, length: int | None = None, label: str, enabled: bool) -> _Progress:
    """A progress bar over ``iterable`` (or of ``length`` steps), see :class:`_Progress`."""
    return _Progress(iterable, length, label, enabled)


def _read_messages(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """Every ``(line_number, message)`` of a feed file; :class:`BadFile` at the first bad line."""
    from roads.simulator import FeedLineError
    from web.cli.feed_file import read_feed

    try:
        with path.open("r", encoding="utf-8", newline="") as f:
            return list(read_feed(f))
    except FeedLineError as exc:
        raise BadFile(f"{path}: {exc}") from None
    except UnicodeDecodeError as exc:
        raise BadFile(f"{path}: not UTF-8 text (byte {exc.start}): is this a feed file?") from None
    except OSError as exc:
        raise BadFile(f"{path}: {exc.strerror or exc}") from None


# --------------------------------------------------------------------------- simulate
@click.command(epilog=_SIMULATE_EXIT_CODES)
@click.option("--shoes", type=click.IntRange(min=1), default=1, show_default=True,
              help="Number of shoes to deal.")
@click.option("--seed", default="0", show_default=True,
              help="Random seed (any text); the same seed always writes the same file.")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Feed file to write (JSON Lines); written whole or not at all.")
@click.option("--table", default="table-1", show_default=True, help="Table id written on every message.")
@click.option("--decks", type=click.IntRange(1, 8), default=None,
              help="Decks per shoe [default: the variant's, else 8].")
@click.option("--first-shoe", type=click.IntRange(min=1), default=1, show_default=True,
              help="Number of the first shoe.")
@click.option("--cut-card", type=int, default=None,
              help="Cut-card position in cards from the back of the shoe "
                   "[default: a random position from 14 to 52 in each shoe].")
@click.option("--burn-between-rounds", is_flag=True,
              help="Burn one card between every two rounds (as the seed002 presets' tables do).")
@click.option("--variant", default=None,
              help="Variant preset id written on each shoe start; its deck count and "
                   "between-rounds burn are used unless --decks / --burn-between-rounds say otherwise.")
@click.option("--cards", is_flag=True,
              help="Write what a live table sends: table states (shuffling, betting, dealing, result) "
                   "and each round card by card, instead of whole rounds.")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show a progress bar.")
def simulate(shoes: int, seed: str, out: Path, table: str, decks: int | None, first_shoe: int,
             cut_card: int | None, burn_between_rounds: bool, variant: str | None, cards: bool,
             progress: bool) -> None:
    """Deal SHOES shoes with the rules engine and write them as a feed file.

    One feed message per line: a shoe start ({"type": "shoe", "table", "shoe", "burn",
    "cut_card_position", "variant" if given}) then its rounds ({"type": "round", "table",
    "shoe", "round", "player", "banker"}, plus "burn" when a card was burned before the
    round and "cut_card": true on the last one). Without "type" and "table" each line is
    exactly the body the HTTP feed accepts, so `roads replay` is a plain loop. The file is
    written to a temporary name and renamed, so it is never half-written.

    With --cards the same shoes are written as a live table sends them: {"type": "state",
    "state": "shuffling"} before each shoe start; per round the states "betting" (with
    "seconds_left": 15) and "dealing", one {"type": "cards", "shoe", "round", "position",
    "cards": [card]} per card in deal order (the round's burn on card 1, "cut_card" on its last
    card), then the state "result". Replayed, it records the same rounds.
    """
    from roads import simulator

    _check_table_id(table, "'--table'")
    if variant is not None:
        from roads.variants import UnknownVariantError, get_variant

        try:
            preset = get_variant(variant)
        except UnknownVariantError as exc:
            raise click.BadParameter(str(exc), param_hint="'--variant'") from None
        decks = decks or preset.decks
        burn_between_rounds = burn_between_rounds or preset.burn_between_rounds
    decks = decks or simulator.DEFAULT_DECKS
    if cut_card is not None:
        from roads.shoe import ShoeError, check_cut_card_position

        try:
            check_cut_card_position(cut_card, decks)
        except ShoeError as exc:
            raise click.BadParameter(str(exc), param_hint="'--cut-card'") from None
    directory = out.parent if str(out.parent) else Path(".")
    if not directory.is_dir():
        raise click.BadParameter(f"directory {str(directory)!r} does not exist", param_hint="'--out'")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{out.name}.", suffix=".tmp")
    rounds = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f, \
                _progress(length=shoes, label="shoes", enabled=progress) as bar:
            started = 0
            for message in simulator.simulate(table, seed=seed, shoes=shoes, first_shoe=first_shoe,
                                              decks=decks, cut_card_position=cut_card,
                                              burn_between_rounds=burn_between_rounds, variant=variant):
                if message["type"] == simulator.SHOE:
                    if started:
                        bar.update(1)
                    started += 1
                else:
                    rounds += 1
                for line in simulator.live_messages(message) if cards else (message,):
                    f.write(simulator.to_line(line))
            bar.update(1)
            f.flush()
            os.fsync(f.fileno())
        _publish(tmp, out)
    except ValueError as exc:  # bad deck count / cut-card position from the engine
        _unlink(tmp)
        raise click.BadParameter(str(exc)) from None
    except BaseException:
        _unlink(tmp)
        raise
    click.echo(f"wrote {shoes} shoe(s), {rounds} rounds to {out}", err=True)


def _check_table_id(table: str | None, hint: str) -> None:
    """Refuse (exit 2) a table id the service would refuse (:data:`roads.ids.TABLE_ID_RE`)."""
    from roads.ids import TABLE_ID_RULE, is_table_id

    if table is not None and not is_table_id(table):
        raise click.BadParameter(f"table id {table!r} is not {TABLE_ID_RULE}",
                                 param_hint=hint)


def _publish(tmp: str, out: Path) -> None:
    """Give the finished temporary file the usual permissions and rename it over ``out``."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    os.replace(tmp, out)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


# --------------------------------------------------------------------------- replay
@click.command(epilog=_REPLAY_EXIT_CODES)
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--url", required=True, help="Service root, e.g. http://127.0.0.1:8000")
@click.option("--token", required=True, envvar="ROADS_FEED_TOKEN", show_envvar=True,
              help="Feed token (sent as Authorization: Bearer).")
@click.option("--pace", type=click.FloatRange(min=0), default=0.0, show_default=True,
              help="Seconds to wait between two messages.")
@click.option("--table", default=None, help="Send every message to this table id instead of the file's.")
@click.option("--retries", type=click.IntRange(min=0), default=5, show_default=True,
              help="Retries per message on connection errors and 429/5xx (with backoff).")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
              help="Seconds to wait for each answer.")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show a progress bar.")
def replay(file: Path, url: str, token: str, pace: float, table: str | None, retries: int,
           timeout: float, progress: bool) -> None:
    """Feed a recorded feed FILE (JSON Lines) into a running service, in order.

    The whole file is checked first, so a malformed or truncated line stops the replay
    before anything is sent. Messages go through the HTTP feed with the token; a message
    that fails to arrive is sent again (the feed is idempotent: a round already stored is
    a no-op success), so replaying a file twice changes nothing.
    """
    from web.cli.feed_client import FeedClient, FeedClientError

    _check_table_id(table, "'--table'")
    messages = _read_messages(file)
    if not messages:
        raise BadFile(f"{file}: no feed messages in the file")
    if not url.startswith(("http://", "https://")):
        raise click.BadParameter(f"{url!r} is not an http:// or https:// URL", param_hint="'--url'")
    client = FeedClient(url, token, retries=retries, timeout=timeout)
    sent = 0
    try:
        with _progress(messages, label="messages", enabled=progress) as bar:
            for number, message in bar:
                if table:
                    message = {**message, "table": table}
                try:
                    client.send(message)
                except FeedClientError as exc:
                    raise Failure(f"{file} line {number}: {exc}") from None
                sent += 1
                if pace and sent < len(messages):
                    time.sleep(pace)
    finally:
        client.close()
    click.echo(f"sent {sent} message(s) from {file} to {url}", err=True)


# --------------------------------------------------------------------------- render
def shoe_roads_from_file(path: Path, shoe: int, table: str | None) -> tuple[str, Any, int, str | None]:
    """Build the roads of one shoe of a feed file: ``(table_id, ShoeRoads, rounds, variant)``.

    ``rounds`` counts the shoe's rounds; ``variant`` is the preset id on the shoe's start
    message (``None`` when it has none). Card-level rounds are checked against the tableau
    (:meth:`roads.outcome.RoundResult.from_cards`), result-level ones by
    :meth:`~roads.outcome.RoundResult.from_result`; a card-level file's (``simulate --cards``)
    cards messages are folded into whole rounds first (:func:`roads.simulator.whole_rounds`); a
    held round (a ``hold`` line) keeps its number and is in no road.
    Raises :class:`BadFile` naming the line for a bad or out-of-order round, when the file has several tables and ``table``
    is not given, or when the table or the shoe is not in the file.
    """
    from roads.cards import parse_cards
    from roads.outcome import RoundResult
    from roads.shoe_roads import ShoeRoads
    from roads.simulator import HOLD, SHOE, FeedLineError, whole_rounds

    try:
        messages = list(whole_rounds(_read_messages(path)))
    except FeedLineError as exc:
        raise BadFile(f"{path}: {exc}") from None
    # a held round keeps its number but is in no road (docs/shoes.md "Service side")
    held = {(m["table"], m["shoe"], m["round"]) for _, m in _read_messages(path) if m.get("type") == HOLD}
    tables = list(dict.fromkeys(m["table"] for _, m in messages))
    if not tables:
        raise BadFile(f"{path}: no feed messages in the file")
    if table is None:
        if len(tables) > 1:
            raise BadFile(f"{path}: the file holds several tables ({', '.join(tables)}): choose one with --table")
        table = tables[0]
    elif table not in tables:
        raise BadFile(f"{path}: no table {table!r} in the file (tables: {', '.join(tables)})")
    roads = ShoeRoads()
    found = False
    variant = None
    expected = 1
    for number, m in messages:
        if m["table"] != table or m["shoe"] != shoe:
            continue
        found = True
        if m["type"] == SHOE:
            variant = m.get("variant", variant)
            continue
        while m["round"] > expected and (table, shoe, expected) in held:
            expected += 1
        if m["round"] != expected:
            raise BadFile(f"{path}: line {number}: round {m['round']} of shoe {shoe} where round "
                          f"{expected} was expected (rounds of a shoe are numbered 1, 2, 3, ...)")
        try:
            if "result" in m:
                result = RoundResult.from_result(**m["result"])
            else:
                result = RoundResult.from_cards(parse_cards(m["player"]), parse_cards(m["banker"]))
        except (ValueError, TypeError) as exc:
            raise BadFile(f"{path}: line {number}: {exc}") from None
        roads.record(m["round"], result)
        expected += 1
    if not found:
        shoes = sorted({m["shoe"] for _, m in messages if m["table"] == table})
        listing = ", ".join(map(str, shoes)) if len(shoes) <= 10 else f"{shoes[0]}-{shoes[-1]}"
        raise BadFile(f"{path}: no shoe {shoe} of table {table!r} in the file (shoes: {listing})")
    return table, roads, expected - 1, variant


@click.command(epilog=_RENDER_EXIT_CODES)
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--shoe", type=click.IntRange(min=1), required=True, help="Shoe number to draw.")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="PNG file to write.")
@click.option("--table", default=None, help="Table id (needed when the file holds several tables).")
@click.option("--variant", default=None,
              help="Variant preset for the side-bet counters [default: the shoe's, else seed000_live].")
@click.option("--name", default=None, help="Display name drawn in the header [default: the table id].")
@click.option("--width", type=click.IntRange(64, 3840), default=1920, show_default=True, help="Width in pixels.")
@click.option("--height", type=click.IntRange(64, 3840), default=1080, show_default=True, help="Height in pixels.")
@click.option("--lang", default="en", show_default=True, help="Label language: en, zh, zh-Hant, th, my, lo, vi or ko.")
@click.option("--theme", default="dark", show_default=True, help="Colour theme: dark or light.")
def render(file: Path, shoe: int, out: Path, table: str | None, variant: str | None, name: str | None,
           width: int, height: int, lang: str, theme: str) -> None:
    """Draw one shoe of a feed FILE as a scoreboard PNG, offline (no server).

    The roads are built by the same domain code as the service (ShoeRoads and the
    snapshot) and drawn by the service's PNG renderer (web/render/board.py). The PNG is written
    to a temporary name and renamed, so it is never half-written.
    """
    from roads.snapshot import build_snapshot
    from roads.variants import DEFAULT_VARIANT_ID, UnknownVariantError, get_variant

    directory = out.parent if str(out.parent) else Path(".")
    if not directory.is_dir():
        raise click.BadParameter(f"directory {str(directory)!r} does not exist", param_hint="'--out'")
    if variant is not None:
        try:
            get_variant(variant)
        except UnknownVariantError as exc:
            raise click.BadParameter(str(exc), param_hint="'--variant'") from None
    table_id, roads, rounds, shoe_variant = shoe_roads_from_file(file, shoe, table)
    try:
        chosen = get_variant(variant or shoe_variant or DEFAULT_VARIANT_ID)
    except UnknownVariantError as exc:
        raise BadFile(f"{file}: shoe {shoe}: {exc}") from None
    snapshot = build_snapshot(table=table_id, shoe=shoe, version=rounds, roads=roads, variant=chosen)
    snapshot["name"] = name or table_id
    snapshot["live"] = False
    png = _render_png(snapshot, width=width, height=height, lang=lang, theme=theme)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{out.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(png)
        _publish(tmp, out)
    except BaseException:
        _unlink(tmp)
        raise
    click.echo(f"drew shoe {shoe} of table {table_id} ({rounds} rounds) to {out}", err=True)


def _render_png(snapshot: dict[str, Any], *, width: int, height: int, lang: str, theme: str) -> bytes:
    """PNG bytes of a full board for ``snapshot`` (web.render.board) with the fonts of
    ``ROADS_FONT_DIR`` too; bad options exit 2 naming them, as does a bad setting."""
    from web.render import board as renderer
    from web.render import fonts
    from web.settings import ConfigError, Settings

    try:
        fonts.set_font_dir(Settings.load().font_dir)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None

    try:
        image = renderer.render_board(snapshot, width=width, height=height, lang=lang, theme=theme)
    except ValueError as exc:  # RenderError / LayoutError name the option in .field
        field_name = getattr(exc, "field", None)
        raise click.BadParameter(str(exc), param_hint=f"'--{field_name}'" if field_name else None) from None
    return renderer.encode_png(image, theme=theme)


# --------------------------------------------------------------------------- demo
@click.command(epilog=_DEMO_EXIT_CODES)
@click.option("--host", default="127.0.0.1", show_default=True, metavar="ADDRESS",
              help="Bind address; 0.0.0.0 (or ::) serves every network interface, so screens on "
                   "other machines can open the lobby (writes still need the feed token).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="TCP port (0 = any free port).")
@click.option("--tables", type=click.IntRange(1, 64), default=4, show_default=True,
              help="Number of simulated tables.")
@click.option("--data", "data", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Data directory to keep [default: a temporary directory removed at exit].")
@click.option("--fast", is_flag=True, help="Deal fast for a quick look: a full shoe in a few seconds.")
@click.option("--pace", type=click.FloatRange(min=0), default=None,
              help="Mean seconds between two rounds of a table, jittered by 2/7 either way "
                   "[default: 35, i.e. 25-45 s as at a real table, and 2 minutes to shuffle "
                   "between shoes; with --fast 0.05].")
@click.option("--seed", type=int, default=None, help="Random seed for reproducible tables [default: random].")
@click.option("--token", envvar="ROADS_FEED_TOKEN", show_envvar=True, default=None,
              help="Feed token the tables post with [default: a random token, printed].")
@click.option("--duration", type=click.FloatRange(min=0), default=None,
              help="Stop after this many seconds [default: run until Ctrl+C].")
@click.option("--verbose", is_flag=True, help="Log every HTTP request.")
def demo(host: str, port: int, tables: int, data: Path | None, fast: bool, pace: float | None,
         seed: int | None, token: str | None, duration: float | None, verbose: bool) -> None:
    """Run the service with simulated tables dealing live; open the lobby URL it prints.

    Each table has its own variant preset and a name that says it, and deals real shoes with
    the rules engine (burn, cut card, next shoe at shoe end) at a real table's pace (a round
    every 25-45 s; --fast for a quick look), posting through the HTTP feed with the token,
    exactly as a live table does: betting opens with a countdown (15 s), then each card as it
    leaves the shoe, the result, and shuffling between shoes.
    """
    import logging

    from web.cli.demo import Demo, Pace

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("werkzeug").setLevel(logging.INFO if verbose else logging.WARNING)
    speed = Pace.fast() if fast else Pace.real()
    if pace is not None:
        speed.round_seconds = pace
        speed.shoe_seconds = min(speed.shoe_seconds, max(pace * 3, 0.5))
    runner = Demo(host=host, port=port, tables=tables, data_dir=data, pace=speed, seed=seed, token=token)
    try:
        runner.start()
    except OSError as exc:
        hint = " (try another --port, or --port 0 for any free port)" if port else ""
        raise Failure(f"cannot serve on {host}:{port}: {exc.strerror or exc}{hint}") from None
    previous = signal.signal(signal.SIGTERM, lambda *_: runner.stop_event.set())
    try:
        urls = runner.urls()
        kept = "" if data else ", temporary"
        click.echo(f"Baccarat roads demo: {len(runner.tables)} simulated tables on {runner.url} "
                   f"(data: {runner.data_dir}{kept})")
        if runner.every_interface:
            click.echo(f"  listening on every interface ({host} port {runner.port}): other machines "
                       f"open http://<this machine's address>:{runner.port}/lobby")
        click.echo(f"  lobby  {urls['lobby']}")
        click.echo(f"  table  {urls['table']}   ({runner.tables[0].name})")
        click.echo(f"  PNG    {urls['png']}")
        click.echo(f"  API    {urls['api']}")
        click.echo(f"  tables {', '.join(f'{t.id} {t.name} [{t.variant}]' for t in runner.tables)}")
        click.echo(f"  feed token {runner.token}")
        click.echo("Press Ctrl+C to stop." if duration is None else f"Stopping after {duration:g} s.")
        sys.stdout.flush()
        try:
            runner.wait(duration)
        except KeyboardInterrupt:
            pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        runner.stop()
    click.echo(f"stopped: {runner.rounds_sent()} rounds dealt")


def register(group: click.Group) -> None:
    """Add ``demo``, ``simulate``, ``replay`` and ``render`` to the ``roads`` command group."""
    for command in (demo, simulate, replay, render):
        group.add_command(command)

