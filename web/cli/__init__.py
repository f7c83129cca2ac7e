"""The ``roads`` command line (click, as Flask ships it).

``roads serve`` runs the service (this module); ``demo``, ``simulate``, ``replay`` and
``render`` (README "Command line") live in :mod:`web.cli.commands`, the ``shoe`` adapters in
:mod:`shoes.cli`. Every setting is described in
:mod:`web.settings`.
"""

from __future__ import annotations

import os
import secrets
import sys

import click

from web.cli.commands import register as _register_demo_commands
from web.cli.export import export as _export
from web.cli.stats import stats_warm as _stats_warm


class SettingsError(click.ClickException):
    """A bad setting (environment variable or option value): exit code 2, like bad arguments."""

    exit_code = 2


@click.group()
@click.version_option(package_name="baccarat-roads", prog_name="roads")
def main() -> None:
    """Baccarat road-map and scoreboard service."""


@main.command(epilog="Exit codes: 0 stopped by Ctrl+C or SIGTERM; 1 failure (port taken, store "
                     "unreachable); 2 bad arguments or settings.")
@click.option("--host", default=None, metavar="ADDRESS",
              help="Bind address [default: ROADS_HOST or 127.0.0.1].")
@click.option("--port", type=click.IntRange(0, 65535), default=None,
              help="TCP port; 0 picks a free one [default: ROADS_PORT or 8000].")
@click.option("--data", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Data directory of the SQLite store [default: ROADS_DATA_DIR or ./data].")
def serve(host: str | None, port: int | None, data: str | None) -> None:
    """Run the service (feed, JSON API, pages, PNG, WebSocket) until interrupted.

    Serves with Werkzeug's threaded server, which also carries the WebSocket endpoints;
    for many screens run gunicorn with its gevent worker (deploy/gunicorn.conf.py, README
    "Deployment"). Prints one line
    "roads: serving on http://HOST:PORT" once it accepts connections. Without
    ROADS_FEED_TOKEN a random feed token is made for this run and printed.
    """
    from web import create_app
    from web.gc_tuning import tune_for_serving
    from web.service import get_service
    from web.settings import ConfigError, get_settings
    from web.cli.serving import make_threaded_server
    from web.stores import StoreError

    overrides: dict[str, object] = {}
    if host is not None:
        overrides["ROADS_HOST"] = host
    if port is not None:
        overrides["ROADS_PORT"] = port
    if data is not None:
        overrides["ROADS_DATA_DIR"] = data
    made_token = not os.environ.get("ROADS_FEED_TOKEN")
    if made_token:
        overrides["ROADS_FEED_TOKEN"] = secrets.token_urlsafe(18)
    try:
        app = create_app(overrides)
    except ConfigError as e:
        raise SettingsError(str(e)) from None
    except StoreError as e:
        detail = getattr(e, "detail", None)
        raise click.ClickException(f"{e} ({detail})" if detail else str(e)) from None
    tune_for_serving()  # as the gunicorn deployment does once the app is loaded (web/gc_tuning.py)
    if made_token:
        click.echo(f"roads: no ROADS_FEED_TOKEN set; feed token for this run: {overrides['ROADS_FEED_TOKEN']}", err=True)
    settings = get_settings(app)
    bind_host, bind_port = settings.host, settings.port
    try:
        server = make_threaded_server(app, bind_host, bind_port)
    except OSError as e:
        get_service(app).close()
        raise click.ClickException(f"cannot listen on {bind_host}:{bind_port}: {e.strerror or e} (try another --port)") from None
    click.echo(f"roads: serving on http://{bind_host}:{server.port} (data {settings.data_dir})")
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        get_service(app).close()


_register_demo_commands(main)  # demo, simulate, replay, render
main.add_command(_export)  # rounds as CSV / JSON Lines (web.cli.export)
main.add_command(_stats_warm)  # gaming-day figures into the disk cache (web.cli.stats)


def _add_shoe_commands(group: click.Group) -> None:
    """``roads shoe ...``: the shoe adapters (shoes/cli.py, docs/shoes.md)."""
    from shoes.cli import shoe

    group.add_command(shoe)


_add_shoe_commands(main)

if __name__ == "__main__":
    main()
