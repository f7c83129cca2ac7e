"""Durable event stores: the interface (``base``), SQLite (``sqlite``, default, with its schema
``sqlite_schema``, its history operations ``sqlite_history`` and its blob encoding ``codec``) and
Redis (``redis``).

:func:`open_store` picks one from the settings; the backends import only ``base`` and their own
parts (no import circle).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from web.stores.base import (
    Commit, Event, HistoryStore, LivePart, SeqTaken, ShoeSummary, Store, StoreError, StoreUnavailable, TableLimitReached,
)
from web.stores.sqlite import SqliteStore

if TYPE_CHECKING:
    from web.settings import Settings

__all__ = ["Commit", "Event", "HistoryStore", "LivePart", "SeqTaken", "ShoeSummary", "SqliteStore", "Store", "StoreError",
           "StoreUnavailable", "TableLimitReached", "open_store"]


def open_store(settings: "Settings | Mapping[str, Any]") -> Store:
    """The store the settings select: the Redis store when ``ROADS_REDIS_URL`` is set (module
    ``web.stores.redis``, class ``RedisStore``, given the Redis settings' values), else :class:`SqliteStore` in
    ``ROADS_DATA_DIR`` (details kept ``ROADS_DETAIL_RETENTION_DAYS``).

    ``settings``: a :class:`web.settings.Settings`, or a mapping of ``ROADS_*`` overrides
    (validated with :meth:`web.settings.Settings.load`, over the environment). Raises
    :class:`web.settings.ConfigError` for a bad setting and :class:`StoreError` when Redis is
    asked for but the ``redis`` extra is not installed.
    """
    from web.settings import ConfigError, Settings  # the facade reads the settings; the stores get plain values

    if not isinstance(settings, Settings):
        settings = Settings.load(settings)
    url = settings.redis_url
    if url:
        try:
            from web.stores.redis import RedisStore  # imported only when asked for: SQLite needs no redis
        except ImportError as e:
            raise StoreError(f"ROADS_REDIS_URL is set ({url!r}) but the Redis store is not available ({e}); "
                             "install the redis extra: pip install 'baccarat-roads[redis]'") from None
        try:
            return RedisStore(url, prefix=settings.redis_prefix, timeout_s=settings.redis_timeout_s,
                              max_tables=settings.max_tables, configured=settings.tables or ())
        except ValueError as e:
            raise ConfigError(str(e)) from None
    return SqliteStore.in_dir(settings.data_dir, detail_retention_days=settings.detail_retention_days)
