"""The push wing of one app as one object: the hub, the frames, the fan-out to this process's
sockets, the page-model topics and (on the production tier) the nchan publishers.

:class:`PushWing` is built by the app factory (``app.extensions["roads.push"]``,
:mod:`web.extensions`) from plain values; the service tells its page models when a table or the
lobby changes, the WebSocket routes hand it their sockets (:meth:`PushWing.stream`).
"""

from __future__ import annotations

from typing import Any

from web.push import subscriber
from web.push.fanout import Fanout
from web.push.frames import FrameCache
from web.push.hub import Hub, Message
from web.push.nchan import NchanPublishers
from web.push.page_models import PageModels


class PushWing:
    """The push path of one app on ``hub``: :attr:`frames` (built once per version),
    :attr:`fanout` (this process's sockets), :attr:`page_models` (built by ``documents``,
    :class:`web.push.documents.Documents`; ``follow_all``: every followed topic is rebuilt on a
    change, as the nchan tier needs) and :attr:`nchan` (``None`` until :meth:`publish_to_nchan`)."""

    def __init__(self, hub: Hub, documents: Any, *, follow_all: bool = False) -> None:
        self.hub = hub
        self.documents = documents
        self.frames = FrameCache()
        self.fanout = Fanout(hub)
        self.page_models = PageModels(hub, documents, self.fanout, follow_all=follow_all)
        self.nchan: NchanPublishers | None = None

    def publish_to_nchan(self, url: str, *, gate: Any = None) -> NchanPublishers:
        """Start publishing every topic to nchan at ``url`` (``ROADS_NCHAN_PUBLISH_URL``), each
        post claimed through ``gate`` (:class:`web.push.leases.ChannelLeases`, several processes)
        when given. Raises ``ValueError`` for a URL that is not ``http://`` with a host."""
        self.nchan = NchanPublishers(self.hub, self.frames, url, gate=gate)
        return self.nchan

    def stream(self, ws: Any, topic: str, first: Message, keepalive_s: float) -> None:
        """Serve ``topic`` on the WebSocket ``ws`` from ``first`` (:func:`web.push.subscriber.serve`)
        until the client goes away."""
        subscriber.serve(ws, topic, first, self.frames, self.fanout, keepalive_s)

    def health(self) -> dict[str, Any]:
        """``{"status": "ok" | "degraded", "page_models": PageModels.health(), "nchan": {"posts",
        "failures", "skipped"} | None}``: ``degraded`` while a page model cannot be built (its
        screens show their last good model, marked not updating)."""
        models = self.page_models.health()
        nchan = None if self.nchan is None else {"posts": self.nchan.posts, "failures": self.nchan.failures,
                                                   "skipped": self.nchan.skipped}
        return {"status": "degraded" if models["failing"] else "ok", "page_models": models, "nchan": nchan}

    def close(self) -> None:
        """Stop the nchan publishers' threads (the other threads end by themselves)."""
        if self.nchan is not None:
            self.nchan.close()
