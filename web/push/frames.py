"""Push frames of a topic's messages, built once per version per process.

Two kinds of frame carry a message of :mod:`web.push.hub` (JSON text; ``docs/frontend.md``,
"Live updates")::

    {"type":"snapshot","topic":"table:T1","version":57,"data":{...the whole document...}}
    {"type":"delta","topic":"table:T1","base":56,"version":57,"ops":[...web.push.delta ops...]}
    {"type":"keepalive","topic":"table:T1","version":57}      (an idle connection or channel)

A client that holds version ``base`` applies the delta's operations (:func:`web.push.delta.apply`,
``static/js/delta.js``); any other client gets the snapshot frame. There is no delta for a
topic's first message, across an epoch change (a new shoe: :func:`epoch`), or when the
delta would not be smaller than the snapshot.

The snapshot frame inserts the message's payload bytes as they are (the JSON API's bytes,
never decoded and encoded again); delta frames are encoded with orjson (about ten times
faster than the standard library's ``json`` on these documents; ``bench/bench_push.py``).
"""

from __future__ import annotations

import json
import threading
from typing import Any

import orjson

from web.push.delta import diff
from web.push.hub import Message


SMALL_DELTA_BYTES = 4096
"""A delta frame up to this size is sent without comparing it with the snapshot's size."""


def text_frame(payload: bytes) -> bytes:
    """An unmasked, uncompressed, final RFC 6455 text frame (server to client) carrying ``payload``.

    Server frames are never masked, so one frame serves every client of a topic. Per-message
    compression is optional per message (RFC 7692 section 6: RSV1 marks a compressed one),
    so this frame is also valid on connections that negotiated ``permessage-deflate``.
    """
    n = len(payload)
    if n < 126:
        header = bytes((0x81, n))
    elif n < 65536:
        header = bytes((0x81, 126)) + n.to_bytes(2, "big")
    else:
        header = bytes((0x81, 127)) + n.to_bytes(8, "big")
    return header + payload


def snapshot_text(topic: str, message: Message, *, posted: bool = True) -> bytes:
    """``{"type":"snapshot","topic":...,"version":...,"data":<payload>}`` as UTF-8 bytes;
    ``posted`` False adds ``"posted":false`` (a version the topic's nchan channel may not hold:
    :mod:`web.http.full_frames`)."""
    return b'{"type":"snapshot",%s"topic":%s,"version":%d,"data":%s}' % (
        b"" if posted else b'"posted":false,', json.dumps(topic).encode(), message.version, message.payload)


def keepalive_text(topic: str, version: int) -> bytes:
    """``{"type":"keepalive","topic":...,"version":...}`` as UTF-8 bytes: what an idle socket
    (:mod:`web.push.subscriber`) or nchan channel (:mod:`web.push.nchan`) gets, naming the
    version the topic is at (a page holding an older one has missed a frame)."""
    return b'{"type":"keepalive","topic":%s,"version":%d}' % (json.dumps(topic).encode(), version)


def epoch(message: Message) -> Any:
    """The message's epoch: the publisher's, else the document's ``"shoe"`` when the document
    is an object that has one (snapshots and board models: a new shoe is a new epoch), else
    ``None``."""
    if message.epoch is not None:
        return message.epoch
    doc = message.document
    return doc.get("shoe") if type(doc) is dict else None


def delta_ops(message: Message, base: Message | None = None) -> list[list[Any]] | None:
    """The :mod:`web.push.delta` operations from ``base`` (default: the message's base) to it, or
    ``None`` when the message has no delta (see the module docstring; the size rule is applied
    by the cache). The hub drops a message's base two publishes later (:meth:`web.push.hub.Hub.publish`),
    so a caller that also writes the base version reads ``message.base`` once and passes it."""
    if base is None:
        base = message.base
    if base is None or epoch(message) != epoch(base):
        return None
    if message.ops is not None:
        return message.ops
    return diff(base.document, message.document)


def delta_text(topic: str, message: Message, ops: list[list[Any]], base: int | None = None) -> bytes:
    """``{"type":"delta","topic":...,"base":...,"version":...,"ops":[...]}`` as UTF-8 bytes;
    ``base`` defaults to the message's base version."""
    return orjson.dumps({"type": "delta", "topic": topic, "base": message.base_version if base is None else base,
                         "version": message.version, "ops": ops})


class _Entry:
    __slots__ = ("message", "lock", "full", "full_str", "full_wire", "delta", "delta_wire", "delta_done")

    def __init__(self, message: Message) -> None:
        self.message = message
        self.lock = threading.Lock()
        self.full: bytes | None = None
        self.full_str: str | None = None
        self.full_wire: bytes | None = None
        self.delta: bytes | None = None
        self.delta_wire: bytes | None = None
        self.delta_done = False


class FrameCache:
    """The frames of each topic's latest message, each built at most once. Thread-safe.

    Holds one entry per topic (the tables plus the lobby), so it is bounded by the number of
    tables; a newer message of a topic replaces its entry.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[str, _Entry] = {}

    def _entry(self, topic: str, message: Message) -> _Entry:
        entry = self._entries.get(topic)
        if entry is not None and entry.message is message:
            return entry
        with self._lock:
            entry = self._entries.get(topic)
            if entry is None or entry.message is not message:
                fresh = _Entry(message)
                # A late reader of an older message must not evict the newer one.
                if entry is None or entry.message.version <= message.version:
                    self._entries[topic] = fresh
                entry = fresh
        return entry

    def _full(self, topic: str, entry: _Entry) -> _Entry:
        if entry.full is None:
            with entry.lock:
                if entry.full is None:
                    text = snapshot_text(topic, entry.message)
                    entry.full_wire = text_frame(text)
                    entry.full_str = text.decode("utf-8")
                    entry.full = text
        return entry

    def _delta(self, topic: str, entry: _Entry) -> _Entry:
        if not entry.delta_done:
            with entry.lock:
                if not entry.delta_done:
                    base = entry.message.base  # read once: the hub may drop it meanwhile
                    ops = delta_ops(entry.message, base) if base is not None else None
                    if ops is not None:
                        text = delta_text(topic, entry.message, ops, base.version)  # type: ignore[union-attr]
                        # Never send a delta bigger than the snapshot frame (60 bytes: its envelope);
                        # a small one is never bigger, and the payload may not even be built yet.
                        if len(text) <= SMALL_DELTA_BYTES or len(text) < len(entry.message.payload) + 60:
                            entry.delta, entry.delta_wire = text, text_frame(text)
                    entry.delta_done = True
        return entry

    def frame(self, topic: str, message: Message) -> str:
        """The snapshot frame of ``message`` as text (``message.payload`` must be UTF-8 JSON)."""
        return self._full(topic, self._entry(topic, message)).full_str  # type: ignore[return-value]

    def wire(self, topic: str, message: Message) -> bytes:
        """:meth:`frame` as the bytes of one WebSocket text frame (see :func:`text_frame`)."""
        return self._full(topic, self._entry(topic, message)).full_wire  # type: ignore[return-value]

    def delta(self, topic: str, message: Message) -> bytes | None:
        """The delta frame of ``message`` (UTF-8 JSON bytes), or ``None`` if it has none."""
        return self._delta(topic, self._entry(topic, message)).delta

    def text_for(self, topic: str, message: Message, have: int | None) -> bytes:
        """What a client holding version ``have`` (``None``: nothing) gets for ``message``:
        the delta frame when ``have`` is its base and a delta exists, else the snapshot frame."""
        entry = self._entry(topic, message)
        if have is not None and have == message.base_version and self._delta(topic, entry).delta is not None:
            return entry.delta  # type: ignore[return-value]
        return self._full(topic, entry).full  # type: ignore[return-value]

    def wire_for(self, topic: str, message: Message, have: int | None) -> bytes:
        """:meth:`text_for` as the bytes of one WebSocket text frame."""
        entry = self._entry(topic, message)
        if have is not None and have == message.base_version and self._delta(topic, entry).delta is not None:
            return entry.delta_wire  # type: ignore[return-value]
        return self._full(topic, entry).full_wire  # type: ignore[return-value]
