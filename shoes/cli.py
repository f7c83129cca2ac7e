"""``roads shoe ...``: one command per installed shoe type (:mod:`shoes.plugins`), plus
``record`` (raw bytes of a serial shoe with their timing, for support) and ``status`` (what a
spool holds: messages by status, rounds held back). README "Command line", docs/shoes.md.

Exit codes: 0 done (a replay delivered everything; a device adapter stopped by Ctrl+C or
SIGTERM); 1 failure (the service refused a message, a spool that cannot be used, a port that
cannot be recorded); 2 bad arguments; 3 a bad recording (the message names the line).
"""

from __future__ import annotations

import logging
import signal
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import click

from shoes import plugins

EXIT_BAD_FILE = 3
"""Exit code for a recording that cannot be read."""

_EXIT_CODES = """\b
Exit codes: 0 everything delivered (--replay) or stopped (Ctrl+C, SIGTERM);
1 the service refused a message (it stays in the spool, see 'roads shoe status'),
or the spool cannot be used; 2 bad arguments; 3 a bad recording."""


class ShoeGroup(click.Group):
    """``roads shoe``: the built-in commands and every installed shoe type."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(plugins.installed()))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is not None:
            return command
        try:
            shoe_type = plugins.load(name)
            command = shoe_type.command()
        except KeyError:
            return None
        except Exception as e:  # noqa: BLE001 (a broken plug-in must not hide the others)
            return _broken(name, e)
        command.short_help = shoe_type.summary
        return command


def _broken(name: str, error: Exception) -> click.Command:
    """A command standing for a shoe type that cannot be loaded: it says why and exits 1."""

    def fail() -> None:
        raise click.ClickException(f"shoe type {name!r} cannot be loaded: {error}")

    return click.Command(name, callback=fail, short_help=f"(cannot be loaded: {error})"[:80],
                         help=f"Shoe type {name!r} cannot be loaded: {error}")


@click.group(cls=ShoeGroup)
def shoe() -> None:
    """Card-reading shoe adapters: read a shoe at the table and post what it reports to the
    service's feed, through a durable local spool (docs/shoes.md).

    Each installed shoe type is a command; a casino adds its own with an entry point in the
    roads.shoes group.
    """


def _logging(verbose: int) -> None:
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)


def common_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--table``, ``--url``, ``--token``, ``--spool``, ``--shoe``/``--round``, ``--timeout``, ``-v``."""
    options = [
        click.option("--table", required=True, help="Table id the shoe deals for (as the service knows it)."),
        click.option("--url", required=True, help="Service root, e.g. http://10.0.0.5:8000"),
        click.option("--token", required=True, envvar="ROADS_FEED_TOKEN", show_envvar=True,
                     help="Feed token (sent as Authorization: Bearer)."),
        click.option("--spool", "spool_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                     help="Spool folder (SQLite and the raw journal) [default: ./shoe-spool/<table>]."),
        click.option("--shoe", "start_shoe", type=click.IntRange(min=1), default=None,
                     help="With a new spool: the table's current shoe number [default: ask the service]."),
        click.option("--round", "start_round", type=click.IntRange(min=0), default=0, show_default=True,
                     help="With --shoe: the last round dealt in that shoe."),
        click.option("--timeout", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
                     help="Seconds to wait for each answer of the service."),
        click.option("-v", "--verbose", count=True, help="Log more (-v: each message, -vv: debug)."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


class BadRecording(click.ClickException):
    """A recording that cannot be read: exit code :data:`EXIT_BAD_FILE`."""

    exit_code = EXIT_BAD_FILE


def _check_table(table: str) -> None:
    from roads.ids import TABLE_ID_RULE, is_table_id

    if not is_table_id(table):
        raise click.BadParameter(f"table id {table!r} is not {TABLE_ID_RULE}", param_hint="'--table'")


def make_adapter(table: str, url: str, token: str, spool_dir: Path | None, start_shoe: int | None, start_round: int,
                 timeout: float, decoder_type: Any, expects_result: bool) -> Any:
    """The :class:`shoes.pipeline.Adapter` of the common options (bad ones exit 1 or 2)."""
    from shoes.pipeline import Adapter
    from shoes.spool import SpoolError

    _check_table(table)
    if not url.startswith(("http://", "https://")):
        raise click.BadParameter(f"{url!r} is not an http:// or https:// URL", param_hint="'--url'")
    start = None if start_shoe is None else (start_shoe, start_round)
    try:
        return Adapter(spool_dir or Path("shoe-spool") / table, table, url, token, decoder_type,
                       expects_result=expects_result, start=start, timeout=timeout)
    except (SpoolError, OSError) as e:
        raise click.ClickException(str(e)) from None


def _stop_on_signals(stop: Any) -> Callable[[], None]:
    """SIGTERM and SIGINT set ``stop``; returns the function that puts the old handlers back."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    old = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}

    def restore() -> None:
        for sig, handler in old.items():
            signal.signal(sig, handler)

    return restore


def stream_command(name: str, decoder_type: Any, *, expects_result: bool, baud: int, help: str) -> click.Command:
    """The command of a shoe that talks over a serial line: ``--device`` or ``--replay FILE``."""

    @click.command(name, help=help + "\n\nWith --replay FILE, a recording ('roads shoe record', or raw bytes) "
                                     "goes through the same reader as the device; the command exits once every "
                                     "message is delivered and prints one summary line.", epilog=_EXIT_CODES)
    @common_options
    @click.option("--device", default=None, help="Serial port, e.g. /dev/ttyUSB0 or /dev/shoe-T1 (udev name).")
    @click.option("--baud", type=click.IntRange(min=50), default=baud, show_default=True, help="Line speed.")
    @click.option("--replay", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
                  help="Read a recorded byte stream instead of the device.")
    @click.option("--realtime", is_flag=True, help="With --replay: keep the recording's timing.")
    def command(table: str, url: str, token: str, spool_dir: Path | None, start_shoe: int | None, start_round: int,
                timeout: float, verbose: int, device: str | None, baud: int, replay: Path | None,
                realtime: bool) -> None:
        from shoes.recording import RecordingError, read_chunks

        _logging(verbose)
        if (device is None) == (replay is None):
            raise click.UsageError("give either --device or --replay")
        chunks = None
        if replay is not None:
            try:
                chunks = read_chunks(replay)
            except RecordingError as e:
                raise BadRecording(str(e)) from None
        adapter = make_adapter(table, url, token, spool_dir, start_shoe, start_round, timeout, decoder_type,
                               expects_result)
        restore = _stop_on_signals(adapter.stop)
        try:
            if chunks is not None:
                done = adapter.run_replay(chunks, str(replay.resolve()), realtime=realtime)
                click.echo(adapter.summary())
                if not done:
                    raise click.ClickException("stopped before everything was delivered (the spool keeps the rest)")
                counts = adapter.spool.counts()
                if counts["refused"] or counts["refused_rounds"]:
                    raise click.ClickException("the service refused messages (roads shoe status --spool ... lists them)")
            else:
                adapter.run_device(device, baud)  # type: ignore[arg-type]
                click.echo(adapter.summary(), err=True)
        finally:
            adapter.close()
            restore()

    return command


@shoe.command(epilog="Exit codes: 0 stopped (Ctrl+C, SIGTERM or --duration); 1 the file cannot be written; "
                     "2 bad arguments.")
@click.option("--device", required=True, help="Serial port, e.g. /dev/ttyUSB0.")
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="Recording to write.")
@click.option("--baud", type=click.IntRange(min=50), default=4800, show_default=True, help="Line speed.")
@click.option("--duration", type=click.FloatRange(min=0), default=None, help="Stop after this many seconds.")
def record(device: str, out: Path, baud: int, duration: float | None) -> None:
    """Record the raw bytes a shoe sends, with their timing, for support (replay them with
    'roads shoe <type> --replay FILE'). The port is opened again when it goes away."""
    import threading

    from shoes import recording
    from shoes.serial_port import read_forever

    _logging(0)
    stop = threading.Event()
    restore = _stop_on_signals(stop)
    if duration is not None:
        threading.Timer(duration, stop.set).start()
    started = time.monotonic()
    total = 0
    try:
        f = out.open("w", encoding="ascii")
    except OSError as e:
        raise click.ClickException(f"cannot write {out}: {e.strerror or e}") from None
    with f:
        def write(data: bytes) -> None:
            nonlocal total
            f.write(recording.line(time.monotonic() - started, data))
            f.flush()
            total += len(data)

        def opened(what: str) -> None:
            if what == "open" and f.tell() == 0:
                f.write(recording.header(device, baud, datetime.now(timezone.utc).isoformat(timespec="seconds")))
                f.flush()

        try:
            read_forever(device, baud, write, stop, on_state=opened)
        finally:
            restore()
    click.echo(f"recorded {total} byte(s) from {device} to {out}", err=True)


@shoe.command(epilog="Exit codes: 0 shown; 1 the spool cannot be read; 2 bad arguments.")
@click.option("--spool", "spool_dir", required=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Spool folder.")
@click.option("--all", "show_all", is_flag=True, help="List every message, not only those not sent.")
def status(spool_dir: Path, show_all: bool) -> None:
    """What a spool holds: messages by status, and each message not sent (pending, refused,
    skipped, degraded, kept local) with the service's answer."""
    import json
    import sqlite3

    from shoes.spool import Spool, SpoolError

    if not (spool_dir / "spool.sqlite3").is_file():
        raise click.ClickException(f"{spool_dir} holds no spool (no spool.sqlite3)")
    try:
        table = json.loads(sqlite3.connect(spool_dir / "spool.sqlite3").execute(
            "SELECT value FROM meta WHERE key = 'table'").fetchone()[0])
        spool = Spool(spool_dir, table)
    except (SpoolError, sqlite3.Error, TypeError, OSError) as e:
        raise click.ClickException(f"cannot read the spool in {spool_dir}: {e}") from None
    counts = spool.counts()
    state = spool.load_state() or {}
    follower = state.get("follower") or {}
    click.echo(f"table {table}: shoe {follower.get('shoe')}, round {follower.get('round')}; "
               + ", ".join(f"{k} {v}" for k, v in counts.items()))
    for reason in (follower.get("stats") or {}).get("held_back", []):
        click.echo(f"  {reason[0]}: {reason[1]}")
    for row_id, message, row_status, note, answer in spool.rows():
        if show_all or row_status != "sent":
            click.echo(f"  #{row_id} {row_status}: {json.dumps(message, ensure_ascii=False)}"
                       + (f" -- {note}" if note else ""))
    spool.close()
