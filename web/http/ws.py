"""WebSocket routes of live snapshots: one table's snapshot, or the lobby list.

Endpoints:

- ``/ws/tables/<table_id>``: the table's current snapshot (hub topic ``table:<table_id>``)
- ``/ws/lobby``: the lobby list (hub topic ``lobby``, the JSON API's ``/api/tables`` list)
- ``/ws/good-roads``: the floor's good roads (hub topic ``good-roads``, ``/api/good-roads``)

Protocol (server -> client, JSON text frames, :mod:`web.push.frames`)::

    {"type": "snapshot", "topic": "table:T1", "version": 57, "data": {...the full snapshot...}}
    {"type": "delta", "topic": "table:T1", "base": 57, "version": 58, "ops": [...]}
    {"type": "keepalive", "topic": "table:T1", "version": 58}
    {"type": "error", "error": {"status": 404, "code": "unknown_table", "message": "...", "field": "table_id"}}

The first frame after connecting is always the full current snapshot; after that, a client
that holds the previous version gets the delta, any other (it skipped versions, or the shoe
changed) the full snapshot again; a client that sees a gap resyncs by reconnecting
(docs/frontend.md "Live updates"). An unknown table gets the error frame, then close code
4404. The connection itself (latest-only delivery, keepalives, client frames) is
:mod:`web.push.subscriber`'s; WebSocket pings are answered by simple-websocket.

Settings: ``ROADS_WS_KEEPALIVE_S`` (keepalive frame on an idle connection), ``ROADS_WS_PING_S``
(protocol ping interval, becomes ``SOCK_SERVER_OPTIONS["ping_interval"]`` unless that is set)
and ``ROADS_WS_MAX_MESSAGE_BYTES`` (largest client frame): the ``ws_*`` fields of
:class:`web.settings.Settings`, with their defaults and ranges.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from flask import Blueprint, Flask

from roads import errors as domain
from web.extensions import get_push
from web.http import handshake
from web.http.errors import ApiError, from_domain_error
from web.push import topics
from web.service import get_service
from web.settings import get_settings

bp = Blueprint("ws", __name__)

CLOSE_UNKNOWN_TABLE = 4404
"""Close code sent after the error frame for an unknown table (4000-4999: application codes)."""

def error_frame(err: ApiError) -> str:
    """``{"type":"error","error":{...}}`` in the one error shape of :mod:`web.http.errors`."""
    return json.dumps({"type": "error", **err.to_json()}, ensure_ascii=False, separators=(",", ":"))


def stream(ws: Any, topic: str, initial: Callable[[], tuple[int, bytes]]) -> None:
    """Serve ``topic`` on ``ws`` (:meth:`web.push.wing.PushWing.stream`) until the client goes
    away; ``initial()`` gives ``(version, payload)`` when the hub has nothing on ``topic`` yet."""
    push = get_push()
    push.stream(ws, topic, push.hub.latest_or(topic, initial), get_settings().ws_keepalive_s)


@handshake.route(bp, "/ws/tables/<table_id>")
def table_socket(ws: Any, table_id: str) -> None:
    """Live snapshots of one table; error frame + close 4404 for an unknown table."""
    service = get_service()
    try:
        service.read.table(table_id)
    except domain.TableError as e:
        err = from_domain_error(e)
        ws.send(error_frame(err))
        ws.close(reason=CLOSE_UNKNOWN_TABLE if err.status == 404 else 1008, message=err.code)
        return
    stream(ws, topics.table(table_id), lambda: service.read.snapshot_json(table_id))


@handshake.route(bp, "/ws/lobby")
def lobby_socket(ws: Any) -> None:
    """Live lobby list (every table's lobby entry)."""
    service = get_service()
    stream(ws, topics.LOBBY, service.read.lobby_json)


@handshake.route(bp, "/ws/good-roads")
def good_roads_socket(ws: Any) -> None:
    """Live floor good roads (every table with a good road now, counts per pattern)."""
    service = get_service()
    stream(ws, topics.GOOD_ROADS, service.read.good_roads_json)


def init_app(app: Flask) -> None:
    """Register the WebSocket routes; pass ``ROADS_WS_PING_S`` and ``ROADS_WS_MAX_MESSAGE_BYTES``
    to the handshake (``SOCK_SERVER_OPTIONS``, :mod:`web.http.handshake`; keys already set there win)."""
    settings = get_settings(app)
    options = dict(app.config.get("SOCK_SERVER_OPTIONS") or {})
    options.setdefault("ping_interval", settings.ws_ping_s if settings.ws_ping_s > 0 else None)
    options.setdefault("max_message_size", settings.ws_max_message_bytes)
    app.config["SOCK_SERVER_OPTIONS"] = options
    app.register_blueprint(bp)
