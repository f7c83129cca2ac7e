"""Full frames over HTTP: the current snapshot frame of a live topic, for a page that missed a version.

A page on the production tier (:mod:`web.push.nchan`) subscribes to nchan and gets deltas; when a
delta's base is not the version it holds (a gap: a reconnect, a skipped version), it fetches
the topic's whole document once from here, through nginx (``deploy/nginx-nchan.conf`` maps
``/push/full/...`` to ``/frames/...`` with a one-second cache and a cache lock, so a thousand
screens that miss the same version make one request here), then goes on with the deltas.

Routes (the same path tails and options as the WebSocket routes of :mod:`web.http.ws` and
:mod:`web.http.model_sockets`):

- ``GET /frames/tables/<table_id>``: topic ``table:<id>`` (the snapshot)
- ``GET /frames/lobby``: topic ``lobby``
- ``GET /frames/good-roads``: topic ``good-roads``
- ``GET /frames/models/tables/<table_id>``, ``/frames/models/embed/<table_id>``,
  ``/frames/models/lobby``, ``/frames/models/screens/<name>``: a page's board model topic,
  from the page's options (any process can answer: the options name the document, not a
  registry entry of the process that served the page)

The answer is ``{"type": "snapshot", "topic", "version", "data"}`` (the first frame of a
WebSocket on that topic), ``Cache-Control: public, max-age=1``. Which version: the one the
topic's nchan channel holds, when this process publishes it (:meth:`web.push.nchan.NchanPublishers.held`):
the next delta on the channel is built on exactly that version, while the newest version may
be one the publisher skipped (the lobby changes 200 times a second at 200 tables and is
posted at most 5 times a second), and a page holding a skipped version would find every delta
a gap. Otherwise the topic's newest version here; with several processes on Redis a lobby
topic's newest version in a process that does not publish it may differ from the channel's
at the same number (the processes apply other tables' writes in their own order), so that
answer says ``"posted": false`` and the page shows it but takes no delta onto it (it asks
again with the next one). The option ``since`` (an integer >= 0, optional) is the newest
version the page has seen: it keeps nginx's cached answers of different gaps apart. A model
frame whose options no page of this process has asked for is built for the answer and not
kept (a request cannot fill the registry of followed topics). Errors: 404 ``unknown_table`` /
``unknown_screen``, 400 naming a bad option, in the one error shape (:mod:`web.http.errors`).
"""

from __future__ import annotations

from typing import Callable

import orjson
from flask import Blueprint, Response

from web.extensions import get_push
from web.http import model_specs
from web.http.errors import BadRequest
from web.http.model_specs import checked
from web.http.query import BAD_PARAMETER, int_arg
from web.push import topics
from web.push.documents import ModelSpec
from web.push.frames import snapshot_text
from web.push.hub import Message
from web.service import get_service

bp = Blueprint("full_frames", __name__, url_prefix="/frames")

CACHE_CONTROL = "public, max-age=1"
"""How long a full frame may be reused (by nginx's micro-cache), in seconds: a page that finds
the frame older than the deltas it holds asks again (``static/js/delta.js``)."""


def _answer(topic: str, message: Message, *, lobby: bool) -> Response:
    """The frame of what ``topic``'s channel holds (module docstring), else of ``message``
    (the newest here); ``lobby``: the topic changes with every table's write."""
    push = get_push()
    frames, publisher = push.frames, push.nchan
    held = publisher.held(topic) if publisher is not None else None
    if held is not None:
        body = frames.text_for(topic, held, None)
    elif publisher is not None and lobby:
        body = snapshot_text(topic, message, posted=False)
    else:
        body = frames.text_for(topic, message, None)
    return Response(body, mimetype="application/json", headers={"Cache-Control": CACHE_CONTROL})


def _since() -> None:
    """Check the ``since`` option (400 ``bad_parameter`` naming ``since`` unless an integer >= 0)."""
    since = int_arg("since", None)
    if since is not None and since < 0:
        raise BadRequest(f"since must be a version (an integer >= 0), got {since}", field="since", code=BAD_PARAMETER)


@bp.get("/tables/<table_id>")
def table_frame(table_id: str) -> Response:
    """The snapshot frame of table ``table_id`` (404 ``unknown_table``)."""
    _since()
    service = get_service()
    service.read.table(table_id)
    topic = topics.table(table_id)
    return _answer(topic, service.hub.latest_or(topic, lambda: service.read.snapshot_json(table_id)), lobby=False)


@bp.get("/lobby")
def lobby_frame() -> Response:
    """The lobby list's snapshot frame."""
    _since()
    service = get_service()
    return _answer(topics.LOBBY, service.hub.latest_or(topics.LOBBY, service.read.lobby_json), lobby=True)


@bp.get("/good-roads")
def good_roads_frame() -> Response:
    """The floor good roads' snapshot frame."""
    _since()
    service = get_service()
    topic = topics.GOOD_ROADS
    return _answer(topic, service.hub.latest_or(topic, service.read.good_roads_json), lobby=True)


def _model(make_spec: Callable[[], ModelSpec]) -> Response:
    _since()
    spec = make_spec()
    if spec.table is not None:
        get_service().read.table(spec.table)
    push = get_push()
    if push.page_models.known(spec.topic):
        message = checked(push.page_models.ensure, spec)
    else:  # no page here asked for it: built for this answer only (never registered, never followed)
        doc = checked(push.documents.build, spec)
        message = Message(int(doc.get("version") or 0), orjson.dumps(doc), document=doc)
    return _answer(spec.topic, message, lobby=spec.source == topics.LOBBY)


@bp.get("/models/tables/<table_id>")
def table_model_frame(table_id: str) -> Response:
    """A table page's board model frame (options as ``/tables/<id>``, one ``orient`` as the page follows)."""
    return _model(lambda: model_specs.table_spec(table_id))


@bp.get("/models/embed/<table_id>")
def embed_model_frame(table_id: str) -> Response:
    """An embed's model frame (options as ``/embed/<id>``)."""
    return _model(lambda: model_specs.embed_spec(table_id))


@bp.get("/models/lobby")
def lobby_model_frame() -> Response:
    """A lobby screen's model frame (options as ``/lobby``)."""
    return _model(lambda: model_specs.lobby_spec()[0])


@bp.get("/models/screens/<name>")
def screen_model_frame(name: str) -> Response:
    """A named screen's model frame (options as ``/screens/<name>``; 404 ``unknown_screen``)."""
    return _model(lambda: model_specs.lobby_spec(name)[0])
