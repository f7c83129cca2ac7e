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

    from web import service
    from web.http import converters
    from web.http import errors
    from web.http import security

    converters.init_app(app)
    errors.init_app(app)
    security.init_app(app)
    service.init_app(app)

    from web.http import api
    from web.http import feed
    from web.http import full_frames
    from web.http import model_sockets
    from web.http import pages
    from web.http import png
    from web.http import shoes_pages
    from web.http import ws

    app.register_blueprint(feed.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(pages.bp)
    app.register_blueprint(png.bp)
    app.register_blueprint(shoes_pages.bp)
    ws.init_app(app)
    app.register_blueprint(model_sockets.bp)
    app.register_blueprint(full_frames.bp)

    from web.push import nchan, page_models

    page_models.init_app(app, service.get_service(app).hub)

    nchan.init_app(app, service.get_service(app).hub, app.extensions["roads.ws_frames"])
    return app
