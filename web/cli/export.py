"""``roads export``: the rounds of a shoe, a table-day or a floor-day from the store, as CSV or
JSON Lines, written as they are read (the HTTP exports' rows and columns: :mod:`roads.export`,
:mod:`web.round_export`; docs/api.md "Exports").

The store is the one the settings select (``ROADS_DATA_DIR``, or Redis + PostgreSQL); the gaming
day is ``ROADS_VENUE_TZ`` and ``ROADS_GAMING_DAY_START``. Each table's live shoe comes from its
live part (``load_live``), past shoes from their documents.
"""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

import click

_EXIT_CODES = ("Exit codes: 0 written; 1 the store cannot be read or keeps no history, or the file cannot be "
               "written; 2 bad arguments or settings (a bad day); 4 unknown table or shoe.")


class NotFound(click.ClickException):
    """An unknown table or shoe: exit code 4."""

    exit_code = 4


@click.command(epilog=_EXIT_CODES)
@click.option("--table", default=None, help="Table id (leave out with --day for every table).")
@click.option("--shoe", type=click.IntRange(min=1), default=None, help="One shoe of --table.")
@click.option("--day", default=None, help="A gaming day: YYYY-MM-DD, today or yesterday.")
@click.option("--format", "fmt", type=click.Choice(["csv", "jsonl"]), default="csv", show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="File to write [default: standard output].")
@click.option("--data", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Data directory of the SQLite store [default: ROADS_DATA_DIR or ./data].")
def export(table: str | None, shoe: int | None, day: str | None, fmt: str, out: Path | None, data: str | None) -> None:
    """Write the rounds of one shoe (--table T --shoe N), one table-day (--table T --day D) or
    the floor's day (--day D), one row per round in deal order."""
    from roads.export import FORMATS
    from roads.gaming_day import GamingDay
    from roads.table import Table
    from web.round_export import RoundExport
    from web.settings import ConfigError, Settings
    from web.stores import StoreError, open_store
    from web.stores.base import HistoryStore

    if (shoe is None) == (day is None):
        raise click.UsageError("give either --shoe (with --table) or --day")
    if shoe is not None and table is None:
        raise click.UsageError("--shoe needs --table")
    try:
        settings = Settings.load({"ROADS_DATA_DIR": data} if data is not None else {})
    except ConfigError as e:
        raise click.UsageError(str(e)) from None
    gaming_day = GamingDay.of(settings.venue_tz, settings.gaming_day_start)
    the_day = None
    if day is not None:
        try:
            the_day = gaming_day.parse_day(day, datetime.now().timestamp())
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--day") from None
    try:
        store = open_store(settings)
    except (ConfigError, StoreError) as e:
        raise click.ClickException(str(e)) from None
    try:
        if not isinstance(store, HistoryStore):
            raise click.ClickException("this store keeps no history (set ROADS_HISTORY_URL with ROADS_REDIS_URL)")
        live = {part.table: Table.restore(part, past=store.past_shoes(part.table)).current
                for part in store.load_live()}
        if table is not None and table not in live:
            raise NotFound(f"no table {table!r}")

        def shoe_of(t: str, n: int):
            cur = live.get(t)
            return cur if cur is not None and cur.number == n else store.past_shoe(t, n)

        ex = RoundExport(store, gaming_day, shoe_of,
                         lambda t: None if live.get(t) is None or not live[t].rounds else live[t].number,
                         lambda: sorted(live))
        if shoe is not None:
            record = shoe_of(table, shoe)  # type: ignore[arg-type]
            if record is None:
                raise NotFound(f"table {table!r} has no shoe {shoe}")
            rows = ex.shoe_rows(table, record)  # type: ignore[arg-type]
        else:
            rows = ex.day_rows(table, the_day)  # type: ignore[arg-type]
        lines = FORMATS[fmt][0](rows)
        try:
            if out is None:
                for line in lines:
                    sys.stdout.write(line)
            else:
                with open(out, "w", encoding="utf-8", newline="") as f:
                    for line in lines:
                        f.write(line)
        except OSError as e:
            raise click.ClickException(f"cannot write {out}: {e}") from None
    finally:
        store.close()
