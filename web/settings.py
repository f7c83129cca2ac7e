"""Settings: one validated model, :class:`Settings`, read from ``ROADS_*`` environment variables.

Precedence: each field's default, then the environment variable ``ROADS_<FIELD>`` (empty
counts as unset), then ``create_app(test_config)`` (keys are the variable names, values
typed or as text); ``roads serve --host/--port/--data`` pass the three they name that way.
Every field carries its unit (``json_schema_extra["unit"]``, and in the name: ``_S``
seconds, ``_BYTES`` bytes), its range (``ge``/``gt``/``le``) and its help text; docs/api.md's
settings table is checked against the fields (``tests/test_settings_documented.py``).

The app holds the validated object as ``app.extensions["roads.settings"]`` (read it with
:func:`get_settings`); ``app.config`` gets a copy of every value under its variable name,
for Flask and for tools, and ``MAX_CONTENT_LENGTH`` from ``ROADS_MAX_BODY_BYTES``.

Adding a setting: one field here (type, default, ``unit``, range, help text), one row in
docs/api.md's table; the module that needs it reads ``get_settings(app).<field>``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Annotated, Any, Mapping
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from flask import Flask, current_app
from pydantic import Field, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from roads.gaming_day import parse_cutover
from roads.good_roads import DEFAULT_GOOD_ROADS, HIGHLIGHTED_BY_DEFAULT, CustomRoad
from roads.ids import TABLE_ID_RE, TABLE_ID_RULE, is_table_id
from web import extensions
from web.setting_entries import PatternConfig, ScreenConfig, TableConfig

__all__ = ["ConfigError", "EXTENSION", "GOOD_ROAD_IDS", "PREFIX", "SCREEN_KEYS", "ScreenConfig", "Settings",
           "TABLE_ID_RE", "TableConfig", "get_settings", "good_road_ids", "init_app", "screen_configs",
           "setting_path", "table_configs"]

PREFIX = "ROADS_"
"""Prefix of every setting's environment variable."""

EXTENSION = extensions.SETTINGS
"""The ``app.extensions`` key of the app's :class:`Settings` (every key: :mod:`web.extensions`)."""

GOOD_ROAD_IDS: tuple[str, ...] = tuple(g.id for g in DEFAULT_GOOD_ROADS)
"""Good-road pattern ids a board may highlight (:data:`roads.good_roads.DEFAULT_GOOD_ROADS`)."""

TableConfigs = dict[str, TableConfig]
"""``ROADS_TABLES`` parsed: ``{table_id: TableConfig}``, in configuration order."""
PatternConfigs = dict[str, PatternConfig]
"""``ROADS_GOOD_ROAD_PATTERNS`` parsed: ``{pattern id: PatternConfig}``, in configuration order."""
ScreenConfigs = dict[str, ScreenConfig]
"""``ROADS_SCREENS`` parsed: ``{screen name: ScreenConfig}``."""

SCREEN_KEYS: tuple[str, ...] = tuple(ScreenConfig.model_fields)
"""Keys a named screen may set (``ROADS_SCREENS``)."""

_JSON_TYPES = {"string_type": "a JSON string", "int_type": "a JSON integer", "list_type": "a JSON array",
               "dict_type": "a JSON object", "model_type": "a JSON object", "model_attributes_type": "a JSON object"}


class ConfigError(ValueError):
    """A setting that cannot be used; the message names the setting and quotes the bad value."""


class _NotANumber(ValueError):
    """A boolean given for a number (``True`` is not a port)."""


def _field(default: Any, unit: str, help: str, *, kind: str | None = None, allowed: str | None = None,
           **constraints: Any) -> Any:
    """A settings field: ``default``, ``unit`` (docs/api.md's unit column), ``help`` (what it
    does), range ``constraints`` (``ge``, ``gt``, ``le``); ``kind``/``allowed`` replace the
    wording of the error for text that is not a number / a number out of range."""
    extra: dict[str, Any] = {"unit": unit}
    if kind:
        extra["kind"] = kind
    if allowed:
        extra["allowed"] = allowed
    return Field(default, description=help, json_schema_extra=extra, **constraints)


class Settings(BaseSettings):
    """Every setting of the service, validated (see the module docstring for precedence).

    Build it with :meth:`load` (raises :class:`ConfigError` naming the setting and quoting the
    value); plain ``Settings()`` raises pydantic's ``ValidationError`` instead.
    """

    model_config = SettingsConfigDict(env_prefix=PREFIX, env_ignore_empty=True, extra="ignore",
                                      validate_assignment=True)

    feed_token: str | None = _field(
        None, "text",
        "Bearer token every feed write must carry (`Authorization: Bearer <token>`), compared in "
        "constant time. Unset or empty: every write is refused with 401 (`roads serve` and "
        "`roads demo` then make a random token for the run and print it).")
    data_dir: Path = _field(
        Path("data"), "directory",
        "Where the embedded store keeps its SQLite file (`roads.sqlite3`, WAL mode) and the service its "
        "integrity flags (`integrity.jsonl`, docs/api.md \"Integrity flags\"); created when missing.")
    host: str = _field("127.0.0.1", "address", "Bind address (IP address or host name) of `roads serve`.")
    port: int = _field(8000, "TCP port", "Port of `roads serve`; 0 picks a free port (printed on start).",
                       ge=0, le=65535)
    max_body_bytes: int = _field(
        16 * 1024, "bytes",
        "Largest accepted request body; a longer one gets 413 (Flask's `MAX_CONTENT_LENGTH`). "
        "A card-level round is about 100 bytes.", ge=64, le=64 * 1024 * 1024)
    client_timeout_s: float = _field(
        10.0, "seconds",
        "`roads serve`: a client has this long to send a request's line and headers, and as long again for "
        "its whole body; past either the connection is closed and nothing runs (behind nginx, nginx's "
        "own timeouts come first).", gt=0, le=3600, kind="a number of seconds", allowed="seconds in (0, 3600]")
    tables: Annotated[TableConfigs, NoDecode] = Field(
        None, validate_default=True, json_schema_extra={"unit": "JSON or file path"},
        description="Tables known before their first round, with display names and variants: a JSON "
        'object `{"T1": {"name": "Table 1", "variant": "<preset id>"}}`, a list '
        '`[{"id": "T1", "name": "...", "variant": "..."}]`, or the path of a file holding either '
        "(text not starting with `{` or `[`). `name` defaults to the id, `variant` to "
        "`roads.variants.DEFAULT_VARIANT_ID`; tables not listed are created by their first round. "
        '`limits` (optional): `{"min": 100, "max": 10000, "bets": {"<bet id>": {"min", "max"}}}` per bet '
        "in the table's currency, until the feed sets others. `name` is display text (no control, format or "
        "line/paragraph separator characters, not blank). Each entry is a `TableConfig`.")
    redis_url: str | None = _field(
        None, "`redis://` URL",
        "`redis://[user:password@]host:port/db` (or `rediss://`, `unix://`): every process keeps "
        "its tables in that Redis (`web.stores.redis`, needs the `redis` extra), so several "
        "processes and hosts serve the same tables; unset = the embedded SQLite store (docs/deploy.md).")
    redis_prefix: str = _field(
        "roads:", "text",
        "Prefix of every Redis key, so several deployments (or test runs) can share one Redis; no spaces.")
    redis_timeout_s: float = _field(
        2.0, "seconds", "Redis connect and command timeout; a write gives up with 503 after about twice this.",
        gt=0, le=300, kind="a number of seconds", allowed="seconds in (0, 300]")
    history_url: str | None = _field(
        None, "`postgresql://` URL",
        "`postgresql://[user[:password]@]host[:port]/dbname` (a libpq URL or `key=value` conninfo): with "
        "`ROADS_REDIS_URL`, every closed shoe moves from Redis to this PostgreSQL database (schema `roads`, "
        "created and migrated at start; needs the `postgres` extra), so Redis keeps only the live shoes and "
        "start time and memory do not grow with history (docs/history.md). Unset with `ROADS_REDIS_URL`: "
        "every event stays in Redis as in the release before, and each start logs a warning (Redis memory "
        "grows with every table-day). Not used without `ROADS_REDIS_URL`.")
    png_cache_entries: int = _field(256, "images", "Most PNGs kept in the render cache (LRU).", ge=1)
    png_cache_bytes: int = _field(
        64 * 1024 * 1024, "bytes", "Most bytes of PNGs kept in the render cache (a 1080p board is about 100 KiB).",
        ge=1)
    png_max_age_s: int = _field(
        2, "seconds", "`Cache-Control: max-age` of current-shoe and lobby PNGs (a new round may come any time).",
        ge=0)
    png_past_max_age_s: int = _field(
        60, "seconds", "`Cache-Control: max-age` of past-shoe PNGs (they change only by a correction).", ge=0)
    ws_keepalive_s: float = _field(
        20.0, "seconds",
        "An idle WebSocket gets a keepalive frame this often (browsers drop a connection silent for 75 s).",
        ge=0.05, le=3600)
    ws_ping_s: float = _field(
        25.0, "seconds",
        "WebSocket protocol ping interval; a client that has not answered the previous ping is closed. "
        "0 disables. Becomes `SOCK_SERVER_OPTIONS['ping_interval']` (`web.http.handshake`) unless that is set.",
        ge=0, le=3600)
    ws_max_message_bytes: int = _field(4096, "bytes", "Largest frame accepted from a WebSocket client.",
                                       ge=16, le=1024 * 1024)
    nchan_publish_url: str | None = _field(
        None, "`http://` URL",
        "The nchan publisher location on loopback (e.g. `http://127.0.0.1:8081/pub/`; the channel id is "
        "appended): the publisher threads of this process (4, each a share of the channels) post every "
        "frame of every table and of the lobby there (`web.push.nchan`, docs/deploy.md). Unset: nothing is published.")
    push_url: str | None = _field(
        None, "path or `ws(s)://` URL",
        "Where pages subscribe to live frames, ending in `/` (e.g. `/push/` for nginx + nchan on the same "
        "host, or `wss://push.example.com/push/`): pages connect to `<prefix>tables/<id>` or "
        "`<prefix>lobby` and resync from `<prefix>full/...`. Unset: the service's own `/ws/...` routes.")
    embed_origins: str = _field(
        "*", "origins, space- or comma-separated",
        "Sites that may put `/embed/<table>` in an `<iframe>` (`Content-Security-Policy: frame-ancestors`): "
        "`*` (any), `'self'`, or origins such as `https://lobby.example.com` or `https://*.example.com`; no "
        "other page may be framed (`web.http.security`).")
    detail_retention_days: float | None = _field(
        None, "days",
        "How long the card and state detail of a closed shoe is kept (its events, compressed: about 120 "
        "bytes a round dealt card by card); older details are dropped by the store's retention pass. Every "
        "round (results, cards, voids, corrections) stays in the shoe's document whatever this says "
        "(docs/history.md). Unset: details are kept.", gt=0, le=36_500)
    past_shoe_cache: int = _field(
        64, "shoes",
        "Past shoes whose snapshot each process keeps in memory (least recently used first out); any other "
        "past shoe is read from the store (its document) when asked for. A shoe's entry is dropped when a "
        "void or correction changes it. About 50-150 KB each.", ge=1, le=100_000)
    max_tables: int = _field(
        500, "tables",
        "Most tables the service keeps (with the Redis store, all processes together); a feed write that "
        "would create one more is refused with 403 `too_many_tables` and stores nothing (every lobby page "
        "and lobby frame carries every table).",
        ge=1, le=100_000)
    only_configured_tables: bool = _field(
        False, "true/false",
        "`true`: only the tables listed in `ROADS_TABLES` may be written; a write to another id is "
        "refused with 403 `table_not_allowed` and stores nothing.")
    font_dir: Path | None = _field(
        None, "directory",
        "Extra font folder searched before the bundled `static/fonts` for PNG text (given to "
        "`web.render.fonts` when the app starts, for every app of the process; `roads render` too).")

    venue_tz: str = _field(
        "UTC", "IANA time zone",
        "Time zone of the venue (`Asia/Bangkok`): every board, screen and PNG shows the time of the "
        "last result, and the offline band its time, in it.")
    gaming_day_start: str = _field(
        "06:00", "HH:MM",
        "Local time (in `ROADS_VENUE_TZ`) at which the venue's gaming day starts: a round counts in the "
        "day of its own time (`/api/stats/days/...`, exports and trends; docs/api.md).")
    stale_s: float = _field(
        300.0, "seconds",
        "A PNG of a table whose feed has been silent longer than this says so on the image (roads "
        "dimmed, \"No new result since hh:mm:ss\").", ge=1, le=7 * 24 * 3600,
        kind="a number of seconds", allowed="seconds in [1, 604800]")
    good_road_patterns: Annotated[PatternConfigs, NoDecode] = Field(
        None, validate_default=True, json_schema_extra={"unit": "JSON or file path"},
        description="The operator's good-road patterns beside the built-in ones (docs/patterns.md): a JSON "
        'object (or the path of a file holding one) `{"banker_6": {"pattern": "streak B >= 6", "names": '
        '{"en": "Banker six", "zh": "庄六连"}, "priority": 15, "highlight": true}}`; the id is a slug that is '
        "not a built-in id, `names.en` is required, `priority` (default 100) orders them among the built-ins "
        "(10..90, lower first). A pattern that does not parse stops the start naming it, the position and "
        "what was expected there. Each entry is a `PatternConfig`.")
    good_roads: Annotated[tuple[str, ...], NoDecode] = _field(
        HIGHLIGHTED_BY_DEFAULT, "comma-separated pattern ids",
        "Good-road patterns (`roads.good_roads`) boards and screens highlight unless the page or "
        "screen chooses (`?good=`); `none` for none.")
    screens: Annotated[ScreenConfigs, NoDecode] = Field(
        None, validate_default=True, json_schema_extra={"unit": "JSON or file path"},
        description="Named lobby screens for `/screens/<name>`: a JSON object (or the path of a file "
        'holding one) `{"lobby-east": {"tables": ["T1", "T2"], "per_page": 6, "rotate_s": 15, '
        '"lang": "th", "theme": "dark", "good": ["long_banker"], "bead": "letters", "title": "East", '
        '"state": ["betting", "dealing"], "sort": "open"}}`, every key optional; `title` is display text. '
        "Each entry is a `ScreenConfig`.")

    @field_validator("port", "max_body_bytes", "client_timeout_s", "redis_timeout_s", "png_cache_entries", "png_cache_bytes",
                     "png_max_age_s", "png_past_max_age_s", "ws_keepalive_s", "ws_ping_s",
                     "ws_max_message_bytes", "max_tables", "stale_s", mode="before")
    @classmethod
    def _no_booleans(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise _NotANumber("a boolean is not a number")
        return value

    @field_validator("embed_origins")
    @classmethod
    def _origins(cls, value: str) -> str:
        return " ".join(embed_origin_list(value))

    @field_validator("tables", mode="before")
    @classmethod
    def _parse_tables(cls, value: Any) -> dict[str, Any]:
        return _table_entries(value)

    @field_validator("nchan_publish_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not (value.startswith("http://") and len(value) > len("http://")):
            raise ValueError("must be an http:// URL (the nchan publisher location)")
        return value

    @field_validator("push_url")
    @classmethod
    def _push_prefix(cls, value: str | None) -> str | None:
        if value is not None and not (value.startswith(("/", "ws://", "wss://")) and value.endswith("/")):
            raise ValueError("must be a path or ws(s):// URL ending in '/'")
        return value

    @field_validator("screens", mode="before")
    @classmethod
    def _parse_screens(cls, value: Any) -> dict[str, Any]:
        return _screen_entries(value)

    @field_validator("good_road_patterns", mode="before")
    @classmethod
    def _parse_patterns(cls, value: Any) -> dict[str, Any]:
        return _pattern_entries(value)

    @field_validator("good_roads", mode="before")
    @classmethod
    def _parse_good_roads(cls, value: Any, info: ValidationInfo) -> tuple[str, ...]:
        return good_road_ids(value, tuple(info.data.get("good_road_patterns") or ()))

    @property
    def custom_roads(self) -> tuple[CustomRoad, ...]:
        """The operator's patterns (``ROADS_GOOD_ROAD_PATTERNS``) as domain objects, in configuration order."""
        return tuple(c.road(pid) for pid, c in self.good_road_patterns.items())

    @property
    def pattern_ids(self) -> tuple[str, ...]:
        """Every good-road pattern id: the built-in ones, then the operator's."""
        return GOOD_ROAD_IDS + tuple(self.good_road_patterns)

    @property
    def highlighted(self) -> tuple[str, ...]:
        """Patterns boards highlight unless the page chooses: ``ROADS_GOOD_ROADS`` and the
        operator's patterns marked ``highlight``."""
        extra = [pid for pid, c in self.good_road_patterns.items() if c.highlight and pid not in self.good_roads]
        return self.good_roads + tuple(extra)

    @field_validator("venue_tz")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError("is not an IANA time zone name (like Asia/Bangkok or UTC)") from None
        return value

    @field_validator("gaming_day_start")
    @classmethod
    def _time_of_day(cls, value: str) -> str:
        try:
            return parse_cutover(value).strftime("%H:%M")
        except ValueError:
            raise ValueError("is not a time of day HH:MM (00:00-23:59)") from None

    @field_validator("history_url")
    @classmethod
    def _postgres_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("postgresql://", "postgres://")) and "=" not in value:
            raise ValueError("must be a postgresql:// URL (or a key=value conninfo)")
        return value

    @field_validator("redis_prefix")
    @classmethod
    def _prefix_without_spaces(cls, value: str) -> str:
        if not value.strip() or any(c.isspace() for c in value):
            raise ValueError("must be non-empty text without spaces")
        return value

    @staticmethod
    def env_name(field: str) -> str:
        """The environment variable (and ``test_config`` key) of ``field``: ``"port"`` -> ``"ROADS_PORT"``."""
        return PREFIX + field.upper()

    @classmethod
    def load(cls, overrides: Mapping[str, Any] | None = None) -> "Settings":
        """Defaults, then the environment, then ``overrides`` (``{"ROADS_PORT": "9000", ...}``;
        keys that are not settings are ignored). Raises :class:`ConfigError` naming the first
        bad setting and quoting its value."""
        names = {cls.env_name(f): f for f in cls.model_fields}
        given = {names[k]: v for k, v in (overrides or {}).items() if k in names}
        try:
            return cls(**given)
        except ValidationError as e:
            raise _config_error(e) from None

    def as_config(self) -> dict[str, Any]:
        """Every setting under its variable name (``{"ROADS_PORT": 8000, ...}``)."""
        return {self.env_name(f): getattr(self, f) for f in type(self).model_fields}


def setting_path(setting: str, key: str, *rest: str | int) -> str:
    """Where in a JSON setting a value sits: ``setting_path("ROADS_TABLES", "T1", "name")`` ->
    ``'ROADS_TABLES["T1"].name'``; integers are list positions (``.tables[2]``)."""
    out = f"{setting}[{json.dumps(key, ensure_ascii=False)}]"
    for part in rest:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _entry_error(err: ValidationError) -> ConfigError:
    """The first error inside a ``ROADS_TABLES`` / ``ROADS_SCREENS`` entry (``loc`` =
    ``(field, key, ...)``) naming the entry's path; unknown keys of that entry are listed together."""
    errors = err.errors()
    e = errors[0]
    field, key, *rest = e["loc"]
    setting = Settings.env_name(str(field))
    entry = {"tables": TableConfig, "screens": ScreenConfig, "good_road_patterns": PatternConfig}[str(field)]
    unknown = [str(x["loc"][-1]) for x in errors if x["type"] == "extra_forbidden" and x["loc"][:2] == (field, key)]
    if unknown:
        return ConfigError(f"{setting_path(setting, str(key))}: unknown key(s) {unknown!r} "
                           f"(allowed: {', '.join(entry.model_fields)})")
    where = setting_path(setting, str(key), *rest)
    raw = e.get("input")
    cause = (e.get("ctx") or {}).get("error")
    if isinstance(cause, ValueError):  # the display-text rule, a table id
        return ConfigError(f"{where} {cause}, got {raw!r}")
    if e["type"] in _JSON_TYPES:
        return ConfigError(f"{where} must be {_JSON_TYPES[e['type']]}, got {raw!r}")
    if e["type"] == "string_too_short":
        return ConfigError(f"{where} must not be empty, got {raw!r}")
    if e["type"] == "string_too_long":
        return ConfigError(f"{where} must be at most {e['ctx']['max_length']} characters, got {len(raw)}")
    return ConfigError(f"{where}: {e['msg']}, got {raw!r}")


def _config_error(err: ValidationError) -> ConfigError:
    """The first error of ``err`` as a :class:`ConfigError` naming the setting and quoting the value."""
    e = err.errors()[0]
    field = str(e["loc"][0])
    if field in ("tables", "screens", "good_road_patterns") and len(e["loc"]) >= 2:
        return _entry_error(err)
    info = Settings.model_fields[field]
    key = Settings.env_name(field)
    raw = e.get("input")
    cause = (e.get("ctx") or {}).get("error")
    if isinstance(cause, ConfigError):
        return cause
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    integer = info.annotation is int
    kind = extra.get("kind") or ("an integer" if integer else "a number")
    if e["type"] in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        return ConfigError(f"{key} must be {extra.get('allowed') or _allowed(info, integer)}, got {raw!r}")
    if isinstance(cause, _NotANumber) or e["type"].startswith(("int_", "float_")):
        return ConfigError(f"{key} must be {kind}, got {raw!r}")
    if isinstance(cause, ValueError):
        return ConfigError(f"{key} {cause}, got {raw!r}")
    return ConfigError(f"{key}: {e['msg']}, got {raw!r}")


def _allowed(info: Any, integer: bool) -> str:
    """``"an integer 0-65535"``, ``"an integer >= 1"``, ``"between 0 and 3600"``, ``"a number >= 0.05"``."""
    low = high = None
    for m in info.metadata:
        low = getattr(m, "ge", getattr(m, "gt", low))
        high = getattr(m, "le", getattr(m, "lt", high))
    if high is None:
        return f"an integer >= {low}" if integer else f"a number >= {low:g}"
    return f"an integer {low}-{high}" if integer else f"between {low:g} and {high:g}"


def init_app(app: Flask, test_config: Mapping[str, Any] | None = None) -> Settings:
    """Validate the settings (:meth:`Settings.load` with ``test_config``), keep them as
    ``app.extensions["roads.settings"]``, and fill ``app.config``: ``test_config`` as given,
    then every setting's validated value under its name, then ``MAX_CONTENT_LENGTH``.
    Raises :class:`ConfigError`."""
    settings = Settings.load(test_config)
    app.config.update(test_config or {})
    app.config.update(settings.as_config())
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes
    app.extensions[EXTENSION] = settings
    return settings


def get_settings(app: Flask | None = None) -> Settings:
    """The :class:`Settings` of ``app`` (default: the current app), made by :func:`init_app`."""
    return (app or current_app).extensions[EXTENSION]


_ORIGIN_RE = re.compile(r"https?://(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*"
                        r"(:[0-9]{1,5})?")


def embed_origin_list(value: str) -> list[str]:
    """``ROADS_EMBED_ORIGINS`` as a list of CSP source expressions (``"*"``, ``"'self'"``,
    ``"https://host[:port]"`` with an optional leading ``*.`` in the host), split at spaces and
    commas. Raises :class:`ConfigError` naming the setting for an empty list or another entry."""
    items = [i for i in re.split(r"[\s,]+", value.strip()) if i]
    if not items:
        raise ConfigError(f"ROADS_EMBED_ORIGINS must list at least one origin or '*', got {value!r}")
    for item in items:
        if item not in ("*", "'self'") and not _ORIGIN_RE.fullmatch(item):
            raise ConfigError(f"ROADS_EMBED_ORIGINS: {item!r} is not '*', 'self' or an origin such as "
                              "https://lobby.example.com")
    return items


def _json_setting(name: str, value: Any) -> Any:
    """The JSON of setting ``name``: ``value`` itself when already parsed (tests pass objects),
    else JSON text, or the path of a file holding it when the text starts with neither ``{`` nor
    ``[``. Raises :class:`ConfigError` naming the setting for an unreadable file or bad JSON."""
    if not isinstance(value, (str, os.PathLike)):
        return value
    text = str(value).strip()
    if not text.startswith(("{", "[")):
        try:
            text = Path(text).read_text(encoding="utf-8")
        except OSError as e:
            raise ConfigError(f"{name}: cannot read file {str(value)!r}: {e.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"{name}: not valid JSON ({e.msg} at line {e.lineno} column {e.colno})") from None


def _table_entries(value: Any) -> dict[str, Any]:
    """``ROADS_TABLES`` as ``{table_id: entry}`` for :class:`TableConfig` to validate: JSON text, a
    file path, or the parsed object or list (``[{"id": ..., ...}]``). Raises :class:`ConfigError`
    for bad JSON, an id that is not a slug, an id given twice, a list item without ``id``."""
    if value is None or value == "":
        return {}
    data = _json_setting("ROADS_TABLES", value)
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
    out: dict[str, Any] = {}
    for table_id, entry in items:
        if not is_table_id(table_id):
            raise ConfigError(f"ROADS_TABLES: table id {table_id!r} is not {TABLE_ID_RULE}")
        if table_id in out:
            raise ConfigError(f"ROADS_TABLES: table id {table_id!r} appears twice")
        out[table_id] = {} if entry is None else entry
    return out


def _screen_entries(value: Any) -> dict[str, Any]:
    """``ROADS_SCREENS`` as ``{name: entry}`` for :class:`ScreenConfig` to validate. Raises
    :class:`ConfigError` for bad JSON, a value that is not an object, a name that is not a slug."""
    if value is None or value == "":
        return {}
    data = _json_setting("ROADS_SCREENS", value)
    if not isinstance(data, Mapping):
        raise ConfigError(f"ROADS_SCREENS: expected a JSON object of screens, got {data!r}")
    for name in data:
        if not isinstance(name, str) or not is_table_id(name):
            raise ConfigError(f"ROADS_SCREENS: screen name {name!r} is not {TABLE_ID_RULE}")
    return dict(data)


def table_configs(value: Any) -> dict[str, dict[str, Any]]:
    """``ROADS_TABLES`` (JSON text, a file path, or the parsed object/list) validated, as plain
    dicts: ``{table_id: {"name", "variant"[, "limits"]}}`` (:meth:`TableConfig.as_dict`).
    Raises :class:`ConfigError` naming the table and field (``ROADS_TABLES["T1"].name``)."""
    tables = Settings.load({"ROADS_TABLES": value if value is not None else ""}).tables
    return {k: v.as_dict() for k, v in tables.items()}


def screen_configs(value: Any) -> dict[str, dict[str, Any]]:
    """``ROADS_SCREENS`` validated, as plain dicts ``{name: {key: value}}`` (keys set only,
    :meth:`ScreenConfig.preset`). Raises :class:`ConfigError` naming the screen and key."""
    screens = Settings.load({"ROADS_SCREENS": value if value is not None else ""}).screens
    return {k: v.preset() for k, v in screens.items()}


def _pattern_entries(value: Any) -> dict[str, Any]:
    """``ROADS_GOOD_ROAD_PATTERNS`` as ``{id: entry}`` for :class:`PatternConfig` to validate. Raises
    :class:`ConfigError` for bad JSON, a value that is not an object, an id that is not a slug or
    is a built-in pattern's."""
    if value is None or value == "":
        return {}
    data = _json_setting("ROADS_GOOD_ROAD_PATTERNS", value)
    if not isinstance(data, Mapping):
        raise ConfigError(f"ROADS_GOOD_ROAD_PATTERNS: expected a JSON object of patterns, got {data!r}")
    for name in data:
        if not isinstance(name, str) or not is_table_id(name):
            raise ConfigError(f"ROADS_GOOD_ROAD_PATTERNS: pattern id {name!r} is not {TABLE_ID_RULE}")
        if name in GOOD_ROAD_IDS or name in ("any", "none"):
            raise ConfigError(f"ROADS_GOOD_ROAD_PATTERNS: pattern id {name!r} is a built-in pattern's or reserved")
    return dict(data)


def good_road_ids(value: Any, custom: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Parse ``ROADS_GOOD_ROADS``: ``"long_banker,ping_pong"`` (or a list) -> the ids in order,
    duplicates dropped; ``"none"`` or empty -> ``()``. Raises :class:`ConfigError` naming an id
    that is not one of :data:`GOOD_ROAD_IDS` nor of ``custom`` (the operator's pattern ids)."""
    if value is None:
        return ()
    names = [str(n).strip() for n in (value.split(",") if isinstance(value, str) else value)]
    names = [n for n in names if n]
    if names == ["none"]:
        return ()
    for n in names:
        if n not in GOOD_ROAD_IDS and n not in custom:
            known = ", ".join(GOOD_ROAD_IDS + custom)
            raise ConfigError(f"ROADS_GOOD_ROADS: unknown pattern {n!r} (known: {known}, or none)")
    return tuple(dict.fromkeys(names))
