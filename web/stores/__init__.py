"""Durable event stores: the interface (``base``), SQLite (``sqlite``, default, with its schema
``sqlite_schema``, its history operations ``sqlite_history`` and its blob encoding ``codec``), Redis
(``redis``) and Redis with a PostgreSQL history (``redis_history``, ``redis_scripts``, ``redis_mover``,
``postgres``).

:func:`open_store` picks one from the settings; the backends import only ``base`` and their own
parts (no import circle).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Mapping

from web.stores.base import (
    Commit, Event, HistoryStore, LivePart, SeqTaken, ShoeSummary, Store, StoreError, StoreUnavailable, TableLimitReached,
)
from web.stores.sqlite import SqliteStore

if TYPE_CHECKING:
    from web.settings import Settings

log = logging.getLogger(__name__)

__all__ = ["Commit", "Event", "HistoryStore", "LivePart", "SeqTaken", "ShoeSummary", "SqliteStore", "Store", "StoreError",
           "StoreUnavailable", "TableLimitReached", "open_store"]


def open_store(settings: "Settings | Mapping[str, Any]") -> Store:
    """The store the settings select:

    * ``ROADS_REDIS_URL`` and ``ROADS_HISTORY_URL``: Redis as the live stream and PostgreSQL as the
      history (``web.stores.redis_history.RedisHistoryStore`` over ``web.stores.postgres.PostgresHistory``:
      connects to PostgreSQL and creates or migrates its schema now);
    * ``ROADS_REDIS_URL`` alone: the release's Redis store (``web.stores.redis.RedisStore``: every
      event stays in Redis), with a warning logged (:data:`NO_HISTORY_WARNING`);
    * else :class:`SqliteStore` in ``ROADS_DATA_DIR``.

    Details are kept ``ROADS_DETAIL_RETENTION_DAYS``. ``settings``: a :class:`web.settings.Settings`,
    or a mapping of ``ROADS_*`` overrides (validated with :meth:`web.settings.Settings.load`, over the
    environment). Raises :class:`web.settings.ConfigError` for a bad setting, :class:`StoreError`
    when the ``redis`` or ``postgres`` extra is missing, and :class:`StoreUnavailable` when
    PostgreSQL cannot be reached.
    """
    from web.settings import ConfigError, Settings  # the facade reads the settings; the stores get plain values

    if not isinstance(settings, Settings):
        settings = Settings.load(settings)
    url = settings.redis_url
    if not url:
        return SqliteStore.in_dir(settings.data_dir, detail_retention_days=settings.detail_retention_days)
    try:
        from web.stores.redis import RedisStore  # imported only when asked for: SQLite needs no redis
    except ImportError as e:
        raise StoreError(f"ROADS_REDIS_URL is set ({url!r}) but the Redis store is not available ({e}); "
                         "install the redis extra: pip install 'baccarat-roads[redis]'") from None
    if not settings.history_url:
        log.warning(NO_HISTORY_WARNING)
        try:
            return RedisStore(url, prefix=settings.redis_prefix, timeout_s=settings.redis_timeout_s,
                              max_tables=settings.max_tables, configured=settings.tables or ())
        except ValueError as e:
            raise ConfigError(str(e)) from None
    try:
        from web.stores.postgres import PostgresHistory
        from web.stores.redis_history import RedisHistoryStore
    except ImportError as e:
        raise StoreError(f"ROADS_HISTORY_URL is set but the PostgreSQL history is not available ({e}); "
                         "install the postgres extra: pip install 'baccarat-roads[postgres]'") from None
    history = PostgresHistory(settings.history_url, detail_retention_days=settings.detail_retention_days,
                              timeout_s=max(5.0, settings.redis_timeout_s))
    try:
        return RedisHistoryStore(url, history, prefix=settings.redis_prefix, timeout_s=settings.redis_timeout_s,
                                 max_tables=settings.max_tables, tables=tuple(settings.tables or ()))
    except ValueError as e:
        history.close()
        raise ConfigError(str(e)) from None
    except BaseException:
        history.close()
        raise


NO_HISTORY_WARNING = (
    "ROADS_REDIS_URL is set without ROADS_HISTORY_URL: every event of every shoe stays in Redis and every "
    "process replays all of them at start, so Redis memory and start time grow with each table-day "
    "(docs/history.md). Set ROADS_HISTORY_URL=postgresql://... to keep only the live shoes in Redis "
    "(the data moves by itself at the next start)."
)
"""What :func:`open_store` logs for Redis without a history database."""
