"""The SQLite store's schema (version 3) and the schema steps from older files (docs/history.md).

Tables:

``events``
    The live log: one row per accepted event (as in version 2). Holds each table's live shoe's
    events and whatever the compactor has not moved yet; ``data`` is compact JSON, ``at`` Unix
    seconds. A round's number is taken once (``one_round_per_number``). No other index: the live
    log is small (the live shoes), every query is a range of its key (table, seq); a migration
    adds ``events_by_shoe`` while it compacts a whole history (:data:`SHOE_INDEX`).
``tables``
    One row per table: ``seq`` (every event up to it is reflected in the rows below: the
    table's version once caught up), ``live_shoe`` and ``live_from`` (the live shoe and the seq of
    the event that opened it), ``state`` (the latest state, JSON) and ``state_at_open`` (the state
    just before ``live_from``). Written in the transaction of every event.
``shoes``
    One row per past shoe: version, start, end, rounds, ``line`` (JSON of its shoe-list line,
    the bytes served) and ``stats`` (JSON, ``roads.archive.shoe_stats``); written with the event
    that closes or changes the shoe. Indexed for pages (table, shoe) and days (start).
``shoe_docs``
    The shoe's document (``roads.archive.shoe_document``), zlib-compressed JSON: every round,
    exact, kept forever.
``shoe_details``
    The shoe's events (cards, states, voids ...) moved out of ``events`` by the compactor:
    zlib-compressed JSON lines; ``detail`` is NULL once dropped by retention (``dropped_at``).
``meta``
    ``key``/``value`` pairs: ``migration`` (``catch_up`` or ``compact`` while a version 2 file
    is being migrated, then removed).

``PRAGMA user_version`` is :data:`SCHEMA_VERSION`.
"""

from __future__ import annotations

import sqlite3

SCHEMA_VERSION = 3
"""``PRAGMA user_version`` of a current file."""

_EVENTS = """
CREATE TABLE IF NOT EXISTS {name} (
    table_id TEXT    NOT NULL,
    seq      INTEGER NOT NULL CHECK (seq >= 1),
    kind     TEXT    NOT NULL,
    shoe     INTEGER NOT NULL,
    round    INTEGER,
    data     TEXT    NOT NULL,
    at       REAL    NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
"""

_EVENT_INDEXES = """
CREATE UNIQUE INDEX IF NOT EXISTS one_round_per_number
    ON events (table_id, shoe, round) WHERE kind = 'round';
"""

_V3 = """
CREATE TABLE IF NOT EXISTS tables (
    table_id      TEXT    PRIMARY KEY,
    seq           INTEGER NOT NULL DEFAULT 0,
    live_shoe     INTEGER,
    live_from     INTEGER NOT NULL DEFAULT 0,
    state         TEXT,
    state_at_open TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS shoes (
    table_id   TEXT    NOT NULL,
    shoe       INTEGER NOT NULL,
    version    INTEGER NOT NULL,
    started_at REAL    NOT NULL,
    ended_at   REAL    NOT NULL,
    rounds     INTEGER NOT NULL,
    line       TEXT    NOT NULL,
    stats      TEXT    NOT NULL,
    PRIMARY KEY (table_id, shoe)
);
CREATE INDEX IF NOT EXISTS shoes_by_start ON shoes (started_at);
CREATE INDEX IF NOT EXISTS shoes_by_table_start ON shoes (table_id, started_at);
CREATE TABLE IF NOT EXISTS shoe_docs (
    table_id TEXT    NOT NULL,
    shoe     INTEGER NOT NULL,
    version  INTEGER NOT NULL,
    doc      BLOB    NOT NULL,
    PRIMARY KEY (table_id, shoe)
);
CREATE TABLE IF NOT EXISTS shoe_details (
    table_id   TEXT    NOT NULL,
    shoe       INTEGER NOT NULL,
    events     INTEGER NOT NULL,
    first_seq  INTEGER NOT NULL,
    last_seq   INTEGER NOT NULL,
    last_at    REAL    NOT NULL,
    detail     BLOB,
    dropped_at REAL,
    PRIMARY KEY (table_id, shoe)
);
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
"""

SHOE_INDEX = "CREATE INDEX IF NOT EXISTS events_by_shoe ON events (table_id, shoe, seq)"
"""The index a migration adds while it compacts a whole history shoe by shoe (then drops)."""

SCHEMA = _EVENTS.format(name="events") + _EVENT_INDEXES + _V3
"""The whole version 3 schema (every statement idempotent)."""

V2_SCHEMA = _EVENTS.format(name="events") + _EVENT_INDEXES
"""The version 2 schema (the live log alone): what the release before history wrote; for tools
that make such files (``bench/history_gen.py``) and tests of the migration."""

_MIGRATE_1_TO_2 = (
    "BEGIN IMMEDIATE;"
    + _EVENTS.format(name="events_v2")
    + "INSERT INTO events_v2 SELECT table_id, seq, kind, shoe, round, data, at FROM events;"
    "DROP TABLE events;"
    "ALTER TABLE events_v2 RENAME TO events;"
    + _EVENT_INDEXES
    + "PRAGMA user_version=2;"
    "COMMIT;"
)

_MIGRATE_2_TO_3 = (
    "BEGIN IMMEDIATE;"
    + SCHEMA
    + "INSERT OR IGNORE INTO tables (table_id) SELECT DISTINCT table_id FROM events;"
    "INSERT OR REPLACE INTO meta (key, value) VALUES ('migration', 'catch_up');"
    f"PRAGMA user_version={SCHEMA_VERSION};"
    "COMMIT;"
)


def open_schema(db: sqlite3.Connection, path: object) -> bool:
    """Bring the file's schema to :data:`SCHEMA_VERSION` (a new file, version 1 or 2). Returns
    True when the rows still need the data migration (``meta.migration`` set: a version 2 file
    migrated now or before a kill). Raises ``ValueError`` for a file of another version."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version not in (0, 1, 2, SCHEMA_VERSION):
        raise ValueError(f"{path}: schema version {version}, this service reads {SCHEMA_VERSION}")
    if version == 1:
        db.executescript(_MIGRATE_1_TO_2)
        version = 2
    if version == 0:
        db.executescript("BEGIN IMMEDIATE;" + SCHEMA + f"PRAGMA user_version={SCHEMA_VERSION};COMMIT;")
    elif version == 2:
        db.executescript(_MIGRATE_2_TO_3)
    return db.execute("SELECT 1 FROM meta WHERE key = 'migration'").fetchone() is not None
