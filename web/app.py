"""Application factory: defaults, then environment (``ROADS_*``), then test overrides."""

from __future__ import annotations

from typing import Any, Mapping

from flask import Flask

from web.paths import STATIC_DIR


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the service.

    ``test_config`` overrides every other setting (tests pass a temporary data directory
    and token here). Settings are documented in :mod:`web.settings`. Raises
    :class:`web.settings.ConfigError` for a bad setting and :class:`web.stores.StoreError` for a
    store that cannot be opened.
    """
    # Imported here, not at the top: ``web`` (and so ``roads --help``) stays free of pydantic,
    # Pillow, simple-websocket and the store until an app is built.
    from web import settings

    app = Flask(__name__, static_folder=str(STATIC_DIR), static_url_path="/static")
    chosen = settings.init_app(app, test_config)

    from web.render import fonts

    fonts.set_font_dir(chosen.font_dir)  # ROADS_FONT_DIR: the renderer is given it, never reads settings

    from web import extensions, i18n, service
    from web.http import converters
    from web.http import errors
    from web.http import security
    from web.push import leases
    from web.push.documents import Documents
    from web.push.hub import Hub
    from web.push.wing import PushWing
    from web.read_model import ReadModel

    converters.init_app(app)
    errors.init_app(app)
    security.init_app(app)
    # The read model, the push wing on the same hub (its page models read that read model), then
    # the service that loads the store into the one and tells the other of every change.
    read = ReadModel(Hub(), chosen.custom_roads)
    i18n.add_labels({f"good_road.{pid}": c.names for pid, c in chosen.good_road_patterns.items()})
    push = PushWing(read.hub, Documents(read, venue_tz=chosen.venue_tz), follow_all=bool(chosen.nchan_publish_url))
    app.extensions[extensions.PUSH] = push
    loaded = service.init_app(app, read, push.page_models)

    from web.http import api
    from web.http import day_stats_api
    from web.http import exports_api
    from web.http import trends_pages
    from web.http import integrity_api
    from web.http import feed
    from web.http import full_frames
    from web.http import model_sockets
    from web.http import offline
    from web.http import pages
    from web.http import png
    from web.http import shoes_pages
    from web.http import ws

    app.register_blueprint(feed.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(day_stats_api.bp)
    day_stats_api.init_app(app)  # the maintenance thread warms today's figures
    app.register_blueprint(exports_api.bp)
    app.register_blueprint(trends_pages.bp)
    app.register_blueprint(integrity_api.bp)
    integrity_api.init_app(app, read)
    app.register_blueprint(pages.bp)
    app.register_blueprint(png.bp)
    app.register_blueprint(shoes_pages.bp)
    ws.init_app(app)
    app.register_blueprint(model_sockets.bp)
    app.register_blueprint(full_frames.bp)
    app.register_blueprint(offline.bp)  # the service worker: screens that never go dark
    if chosen.nchan_publish_url:  # last: the publishers post what the loaded app holds at once
        try:
            push.publish_to_nchan(chosen.nchan_publish_url, gate=leases.for_store(loaded.store))
        except ValueError as exc:
            loaded.close()
            raise settings.ConfigError(str(exc)) from None
    return app
