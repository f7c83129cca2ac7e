"""WebSocket push of the board models pages paint (:mod:`web.push.page_models`), with the same frames,
deltas, keepalives and fan-out as the snapshot sockets (:func:`web.http.ws.stream`).

Endpoints (the query options are those of the page and of its model JSON route):

- ``/ws/models/tables/<table_id>``: a table board's document (``?orient=landscape`` or
  ``portrait``: that orientation's model only, what table pages subscribe to; without: both);
- ``/ws/models/embed/<table_id>``: an embed's document;
- ``/ws/models/lobby`` and ``/ws/models/screens/<name>``: a lobby screen's document (every page).

The first frame is the whole document (``{"type": "snapshot", "topic": "model:<digest>",
"version", "data": document}``, documents as :mod:`web.push.documents`), then deltas. A bad
option gets an error frame and close 1008; an unknown table or screen an error frame and close
4404, as ``/ws/tables/<id>``.
"""

from __future__ import annotations

from typing import Any, Callable

from flask import Blueprint

from roads import errors as domain
from web.extensions import get_push
from web.http import handshake, model_specs
from web.http.errors import ApiError, from_domain_error
from web.http.model_specs import checked
from web.http.ws import CLOSE_UNKNOWN_TABLE, error_frame, stream
from web.push.documents import ModelSpec
from web.service import get_service

bp = Blueprint("model_ws", __name__)


def _serve(ws: Any, make_spec: Callable[[], ModelSpec]) -> None:
    try:
        spec = make_spec()
        if spec.table is not None:
            get_service().read.table(spec.table)
        message = checked(get_push().page_models.ensure, spec)
    except (ApiError, domain.TableError) as e:
        err = e if isinstance(e, ApiError) else from_domain_error(e)
        ws.send(error_frame(err))
        ws.close(reason=CLOSE_UNKNOWN_TABLE if err.status == 404 else 1008, message=err.code)
        return
    stream(ws, spec.topic, lambda: (message.version, message.payload))


@handshake.route(bp, "/ws/models/tables/<table_id>")
def table_models_socket(ws: Any, table_id: str) -> None:
    """A table board's live document (options as ``/tables/<id>``)."""
    _serve(ws, lambda: model_specs.table_spec(table_id))


@handshake.route(bp, "/ws/models/embed/<table_id>")
def embed_models_socket(ws: Any, table_id: str) -> None:
    """An embed's live document (options as ``/embed/<id>``)."""
    _serve(ws, lambda: model_specs.embed_spec(table_id))


@handshake.route(bp, "/ws/models/lobby")
def lobby_models_socket(ws: Any) -> None:
    """A lobby screen's live document (options as ``/lobby``)."""
    _serve(ws, lambda: model_specs.lobby_spec()[0])


@handshake.route(bp, "/ws/models/screens/<name>")
def screen_models_socket(ws: Any, name: str) -> None:
    """A named screen's live document (options as ``/screens/<name>``)."""
    _serve(ws, lambda: model_specs.lobby_spec(name)[0])
