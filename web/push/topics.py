"""Topic names of the hub, and the URL paths of their channels: built here and nowhere else.

A topic names the document its messages are versions of:

- ``table:<table_id>``: a table's snapshot (``/api/tables/<id>``), :func:`table`;
- ``lobby``: the lobby list (``/api/tables``), :data:`LOBBY`;
- ``good-roads``: the floor's good roads (``/api/good-roads``), :data:`GOOD_ROADS`;
- ``model:<16 hex digits>``: a page's board-model document (a digest of the page's options,
  :class:`web.push.documents.ModelSpec`), :func:`model`.

The same name is the topic's nchan channel. Its path (:func:`path`: ``tables/<id>``, ``lobby``,
``good-roads``, ``models/<digest>``) follows ``/ws/`` on this service's own WebSocket routes, and
``ROADS_PUSH_URL`` (and ``<ROADS_PUSH_URL>full/``) on the production tier (:func:`push_urls`).
"""

from __future__ import annotations

LOBBY = "lobby"
"""The lobby list's topic."""

GOOD_ROADS = "good-roads"
"""The floor's good-roads topic (:mod:`web.push.floor_good_roads`)."""

TABLE = "table:"
"""Prefix of a table's snapshot topic."""

MODEL = "model:"
"""Prefix of a page's board-model topic."""

_PATHS = {TABLE: "tables/", MODEL: "models/"}


def table(table_id: str) -> str:
    """The snapshot topic of table ``table_id``: ``"table:<table_id>"``."""
    return TABLE + table_id


def model(digest: str) -> str:
    """The board-model topic of the page options whose digest is ``digest``: ``"model:<digest>"``."""
    return MODEL + digest


def is_table(topic: str) -> bool:
    """Whether ``topic`` is a table's snapshot topic."""
    return topic.startswith(TABLE)


def is_model(topic: str) -> bool:
    """Whether ``topic`` is a page's board-model topic."""
    return topic.startswith(MODEL)


def path(topic: str) -> str:
    """The path of ``topic``'s channel after ``/ws/`` or ``ROADS_PUSH_URL``: ``table:T1`` ->
    ``tables/T1``, ``model:ab12`` -> ``models/ab12``, ``lobby`` -> ``lobby``."""
    for prefix, folder in _PATHS.items():
        if topic.startswith(prefix):
            return folder + topic[len(prefix):]
    return topic


def push_urls(prefix: str | None, topic: str, embedded_path: str,
              full_path: str | None = None) -> tuple[str, str | None]:
    """``(subscribe URL, full-frame URL or None)`` for a page of ``topic``, given the
    ``ROADS_PUSH_URL`` setting ``prefix``.

    ``embedded_path`` is the service's own WebSocket path of the topic with its query (e.g.
    ``/ws/models/tables/T1?orient=landscape``), used when ``prefix`` is unset (then there is
    no full-frame URL: a reconnect resyncs). The full-frame URL is ``<prefix>full/`` + the
    path after ``/ws/`` of ``full_path`` (default ``embedded_path``): nginx maps it to
    :mod:`web.http.full_frames`; a ``ws``/``wss`` prefix is used as ``http``/``https`` there.
    ``full_path`` must name every option the document depends on (the pages add the language
    they resolved from ``Accept-Language``): it is the key of nginx's cache, and any process
    builds the document from it.
    """
    if prefix is None:
        return embedded_path, None
    full = prefix
    if full.startswith("ws://"):
        full = "http://" + full[5:]
    elif full.startswith("wss://"):
        full = "https://" + full[6:]
    _, marker, rest = (full_path or embedded_path).partition("/ws/")
    return prefix + path(topic), full + "full/" + (rest if marker else path(topic))
