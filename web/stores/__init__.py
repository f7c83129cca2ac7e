"""Durable event stores: the interface (``base``), SQLite (``sqlite``, default) and Redis (``redis``).

:func:`open_store` picks one from the settings; the backends import only ``base`` (no import circle).
"""

from __future__ import annotations

from typing import Any, Mapping

from web.stores.base import Event, SeqTaken, Store, StoreError, StoreUnavailable
from web.stores.sqlite import SqliteStore

__all__ = ["Event", "SeqTaken", "SqliteStore", "Store", "StoreError", "StoreUnavailable", "open_store"]


def open_store(config: Mapping[str, Any]) -> Store:
    """The store the settings select: the Redis store when ``ROADS_REDIS_URL`` is set (docs/deploy.md;
    module ``web.stores.redis``, class ``RedisStore(url, config)``), else :class:`SqliteStore` in
    ``ROADS_DATA_DIR``. Raises :class:`StoreError` when Redis is asked for but not installed."""
    url = config.get("ROADS_REDIS_URL")
    if url:
        try:
            from web.stores.redis import RedisStore  # imported only when asked for: SQLite needs no redis
        except ImportError as e:
            raise StoreError(f"ROADS_REDIS_URL is set ({url!r}) but the Redis store is not available: {e}") from None
        return RedisStore(url, config)
    return SqliteStore.in_dir(config["ROADS_DATA_DIR"])
