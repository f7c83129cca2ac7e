"""Settings: defaults, then ``ROADS_*`` environment variables, then test overrides.

Every setting, its unit and its default (``create_app(test_config)`` may override any of them,
and ``roads serve --host/--port/--data`` override the three they name):

``ROADS_FEED_TOKEN`` (text, default unset)
    The bearer token every feed write must carry (``Authorization: Bearer <token>``),
    compared in constant time. Unset or empty: every write is refused with 401
    (``roads serve`` then generates a random token for the run and prints it).
``ROADS_DATA_DIR`` (directory path, default ``./data``)
    Where the embedded store keeps its SQLite file (``roads.sqlite3``, WAL mode). Created
    when missing.
``ROADS_HOST`` (IP address or host name, default ``127.0.0.1``)
    Bind address of ``roads serve``.
``ROADS_PORT`` (TCP port 0-65535, default ``8000``)
    Port of ``roads serve``; 0 picks a free port (printed on start).
``ROADS_MAX_BODY_BYTES`` (bytes, default ``16384``)
    Largest accepted request body; a longer one gets 413. Becomes Flask's
    ``MAX_CONTENT_LENGTH``. A card-level round is about 100 bytes.
``ROADS_TABLES`` (JSON text or path of a JSON file, default none)
    Tables known before their first round, with display names and variants. Either a JSON
    object ``{"T1": {"name": "Table 1", "variant": "<preset id>"}, ...}`` or a list
    ``[{"id": "T1", "name": "...", "variant": "..."}]``; a value that does not start with
    ``{`` or ``[`` is read as the path of a file holding that JSON. ``name`` defaults to the
    id, ``variant`` to :data:`roads.variants.DEFAULT_VARIANT_ID`. Tables not listed are created
    by their first round with those defaults.
``ROADS_REDIS_URL`` (``redis://[user:password@]host:port/db`` URL, default unset)
    Set: every process keeps its tables in that Redis (:mod:`web.stores.redis`), so
    several processes and hosts serve the same tables; unset = the embedded SQLite store.
    Deployment: ``docs/deploy.md``.
``ROADS_REDIS_PREFIX`` (text without spaces, default ``roads:``)
    Prefix of every Redis key, so several deployments (or test runs) can share one Redis.
``ROADS_REDIS_TIMEOUT_S`` (seconds, default ``2.0``)
    Redis connect and command timeout; a write gives up with 503 after about twice this.

The PNG cache settings are documented in :mod:`web.http.png`, the WebSocket ones in :mod:`web.http.ws`
and the extra font folder in :mod:`web.render.fonts`; docs/api.md lists every setting in one table.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Mapping, MutableMapping

from flask import Flask

DEFAULTS: dict[str, Any] = {
    "ROADS_FEED_TOKEN": None,
    "ROADS_DATA_DIR": "./data",
    "ROADS_HOST": "127.0.0.1",
    "ROADS_PORT": 8000,
    "ROADS_MAX_BODY_BYTES": 16 * 1024,
    "ROADS_TABLES": None,
    "ROADS_REDIS_URL": None,
    "ROADS_REDIS_PREFIX": "roads:",
    "ROADS_REDIS_TIMEOUT_S": 2.0,
}
"""Every setting with its default; documented with units in this module's docstring."""

_INT_SETTINGS = {"ROADS_PORT": (0, 65535), "ROADS_MAX_BODY_BYTES": (64, 64 * 1024 * 1024)}

TABLE_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
"""A table id: a short slug of 1-32 letters, digits, ``_`` or ``-``, starting with a letter or digit."""


class ConfigError(ValueError):
    """A setting that cannot be used; the message names the setting and quotes the bad value."""


def load(app: Flask, test_config: Mapping[str, Any] | None) -> None:
    """Fill ``app.config`` from :data:`DEFAULTS`, the environment and ``test_config``.

    Integer settings given as text (from the environment) are converted; ``MAX_CONTENT_LENGTH``
    is set from ``ROADS_MAX_BODY_BYTES``. Raises :class:`ConfigError` for a value out of range
    or not a number.
    """
    app.config.from_mapping(DEFAULTS)
    for key in DEFAULTS:
        if key in os.environ:
            app.config[key] = os.environ[key]
    if test_config:
        app.config.update(test_config)
    for key, (lo, hi) in _INT_SETTINGS.items():
        number_setting(app.config, key, DEFAULTS[key], low=lo, high=hi)
    app.config["MAX_CONTENT_LENGTH"] = app.config["ROADS_MAX_BODY_BYTES"]


def number_setting(config: MutableMapping[str, Any], key: str, default: float, *, low: float,
                   high: float | None = None, integer: bool = True) -> float:
    """Read the numeric setting ``key`` into ``config[key]`` and return it.

    The raw value is ``config[key]`` if set (``create_app(test_config)``), else the environment
    variable ``key``, else ``default``; text is converted (``int`` when ``integer``, else
    ``float``). Raises :class:`ConfigError` naming ``key`` and quoting the raw value when it is
    not a number (booleans are refused) or lies outside ``low``..``high`` (``high`` ``None``:
    no upper bound).
    """
    raw = config.get(key, os.environ.get(key, default))
    kind = "an integer" if integer else "a number"
    try:
        value = int(raw) if integer else float(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"{key} must be {kind}, got {raw!r}") from None
    if isinstance(raw, bool) or value < low or (high is not None and value > high):
        if high is None:
            allowed = f"{kind} >= {low}" if integer else f"{kind} >= {low:g}"
        elif integer:
            allowed = f"an integer {low}-{high}"
        else:
            allowed = f"between {low:g} and {high:g}"
        raise ConfigError(f"{key} must be {allowed}, got {raw!r}")
    config[key] = value
    return value


def table_configs(value: Any) -> dict[str, dict[str, str | None]]:
    """Parse ``ROADS_TABLES`` into ``{table_id: {"name": str | None, "variant": str | None}}``.

    ``value`` is ``None`` (no tables), JSON text, a path of a JSON file, or the already
    parsed object/list (tests pass that). Raises :class:`ConfigError` naming the table and
    field for a bad id, an unknown key or a value that is not a string; variants are
    checked later against the presets by the service.
    """
    if value is None or value == "":
        return {}
    data = value
    if isinstance(value, (str, os.PathLike)):
        text = str(value).strip()
        if not text.startswith(("{", "[")):
            try:
                text = Path(text).read_text(encoding="utf-8")
            except OSError as e:
                raise ConfigError(f"ROADS_TABLES: cannot read file {str(value)!r}: {e.strerror}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ConfigError(f"ROADS_TABLES: not valid JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    if isinstance(data, list):
        items: list[tuple[Any, Any]] = []
        for i, entry in enumerate(data):
            if not isinstance(entry, dict) or "id" not in entry:
                raise ConfigError(f"ROADS_TABLES[{i}]: expected an object with an 'id', got {entry!r}")
            entry = dict(entry)
            items.append((entry.pop("id"), entry))
    elif isinstance(data, dict):
        items = list(data.items())
    else:
        raise ConfigError(f"ROADS_TABLES: expected a JSON object or list, got {data!r}")
    out: dict[str, dict[str, str | None]] = {}
    for table_id, entry in items:
        if not isinstance(table_id, str) or not TABLE_ID_RE.match(table_id):
            raise ConfigError(f"ROADS_TABLES: table id {table_id!r} is not a slug of 1-32 letters, digits, '_' or '-'")
        if entry is None:
            entry = {}
        if not isinstance(entry, dict):
            raise ConfigError(f"ROADS_TABLES[{table_id!r}]: expected an object, got {entry!r}")
        unknown = set(entry) - {"name", "variant"}
        if unknown:
            raise ConfigError(f"ROADS_TABLES[{table_id!r}]: unknown key(s) {sorted(unknown)!r} (allowed: name, variant)")
        for key in ("name", "variant"):
            v = entry.get(key)
            if v is not None and (not isinstance(v, str) or not v.strip()):
                raise ConfigError(f"ROADS_TABLES[{table_id!r}].{key} must be a non-empty string, got {v!r}")
        if table_id in out:
            raise ConfigError(f"ROADS_TABLES: table id {table_id!r} appears twice")
        out[table_id] = {"name": entry.get("name"), "variant": entry.get("variant")}
    return out
