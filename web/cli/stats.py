"""``roads stats-warm``: compute the gaming-day figures of a range of days into the disk cache
(``day_stats.sqlite3``, :mod:`web.day_cache`), so that the first read of any of those days, by any
process, reads one row per table instead of the shoes' statistics and documents (docs/api.md
"Gaming days"). Run it once after an upgrade over the history kept; days read later are kept as
they are read.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from pathlib import Path

import click

_EXIT_CODES = "Exit codes: 0 done; 1 the store cannot be read or keeps no history; 2 bad arguments or settings."


@click.command("stats-warm", epilog=_EXIT_CODES)
@click.option("--from", "first", required=True, help="First gaming day: YYYY-MM-DD, today or yesterday.")
@click.option("--to", "last", default="today", show_default=True, help="Last gaming day.")
@click.option("--data", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Data directory (the SQLite store and the cache) [default: ROADS_DATA_DIR or ./data].")
def stats_warm(first: str, last: str, data: str | None) -> None:
    """Compute the floor's and every table's figures of each day from --from to --to into the
    disk cache; prints one line per day (rounds, tables, seconds)."""
    from roads.gaming_day import GamingDay
    from web.day_cache import DayCache
    from web.day_stats import DayStats
    from web.settings import ConfigError, Settings
    from web.stores import StoreError, open_store
    from web.stores.base import HistoryStore

    try:
        settings = Settings.load({"ROADS_DATA_DIR": data} if data is not None else {})
    except ConfigError as e:
        raise click.UsageError(str(e)) from None
    gaming_day = GamingDay.of(settings.venue_tz, settings.gaming_day_start)
    now = datetime.now().timestamp()
    try:
        a, b = gaming_day.parse_day(first, now), gaming_day.parse_day(last, now)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--from/--to") from None
    if b < a:
        raise click.BadParameter(f"--to {b} is before --from {a}", param_hint="--to")
    try:
        store = open_store(settings)
    except (ConfigError, StoreError) as e:
        raise click.ClickException(str(e)) from None
    disk = DayCache(Path(settings.data_dir) / DayCache.FILENAME)
    try:
        if not isinstance(store, HistoryStore):
            raise click.ClickException("this store keeps no history (set ROADS_HISTORY_URL with ROADS_REDIS_URL)")
        tables = sorted(part.table for part in store.load_live())
        stats = DayStats(store, gaming_day, lambda *_: None, lambda: tables, disk=disk, cache_entries=len(tables) + 8)
        day = a
        while day <= b:
            began = time.monotonic()
            floor = stats.floor_day(day)
            click.echo(f"{day}: {floor['floor']['rounds']} rounds, {len(floor['tables'])} tables, "
                       f"{time.monotonic() - began:.2f} s")
            day += timedelta(days=1)
    finally:
        disk.close()
        store.close()
