"""The push wing: how a table's new version reaches the screens that show it.

The hub of latest messages per topic, the frames and deltas built once per version, the
fan-out to the WebSocket screens of this process, the page-model documents rebuilt for the
screens that watch them, and the publisher to nginx + nchan with its per-channel leases
(docs/frontend.md "Live updates", docs/deploy.md). Nothing here imports ``web.http``.
"""
