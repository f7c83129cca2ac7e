"""One-card shoes that post each card over HTTP: a small receiver on the table PC (docs/shoes.md
"One-card HTTP shoes").

``POST /card`` with ``{"card": "H10"}`` (suit letter then rank, or rank then suit): the next
card out of the shoe; the adapter gives it its deal position by the tableau. Optional
``"id"`` (a string or number unique to that card, e.g. the shoe's own counter) or an
``Idempotency-Key`` header: a delivery with a key already taken is answered as the first time
and changes nothing, so a shoe may retry a delivery whose answer it lost. ``POST /new-shoe``
(``{}``): the next card is the turned card of a new shoe, then its burn. ``GET /status``: the
spool's counts.

Each card is in the spool (SQLite, fsynced) before the 200 goes back: a card answered is never
lost, a card not answered was not taken (send it again). Standard library only
(:mod:`http.server`).
"""

from __future__ import annotations

import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from roads.cards import CardError
from shoes import deal
from shoes.line_scanner import parse_card_code

log = logging.getLogger("roads.shoe")

MAX_BODY_BYTES = 1024
"""Largest request body taken, in bytes."""


class CardReceiver:
    """The receiver of ``adapter`` (a :class:`shoes.pipeline.Adapter` without a decoder) on
    ``host:port`` (0 = any free port: see :attr:`port`)."""

    def __init__(self, adapter: Any, host: str, port: int) -> None:
        self.adapter = adapter
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            server_version = "roads-shoe"
            sys_version = ""

            def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
                status, answer = receiver.post(self.path, self._body(), self.headers.get("Idempotency-Key"))
                self._reply(status, answer)

            def do_GET(self) -> None:  # noqa: N802
                if self.path.split("?")[0] == "/status":
                    self._reply(200, {"table": receiver.adapter.table, **receiver.adapter.spool.counts()})
                else:
                    self._reply(404, {"error": {"code": "not_found", "message": f"no {self.path}"}})

            def _body(self) -> Any:
                length = int(self.headers.get("Content-Length") or 0)
                if length > MAX_BODY_BYTES:
                    return ValueError(f"body over {MAX_BODY_BYTES} bytes")
                raw = self.rfile.read(length) if length else b"{}"
                try:
                    return json.loads(raw)
                except ValueError:
                    return ValueError("body is not JSON")

            def _reply(self, status: int, answer: Any) -> None:
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, fmt: str, *args: Any) -> None:
                log.debug("card receiver: " + fmt, *args)

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.port = self.server.server_address[1]

    def post(self, path: str, body: Any, header_key: str | None) -> tuple[int, dict[str, Any]]:
        """``(status, answer)`` of one delivery (the card spooled before it returns)."""
        route = path.split("?")[0]
        if isinstance(body, ValueError) or not isinstance(body, dict):
            return 400, {"error": {"code": "bad_body", "message": str(body) if isinstance(body, ValueError)
                                   else "body must be a JSON object"}}
        if route == "/new-shoe":
            events: list[deal.Event] = [deal.NewShoe()]
        elif route == "/card":
            try:
                events = [deal.Drawn(None, None, parse_card_code(str(body.get("card", ""))))]
            except CardError as e:
                return 400, {"error": {"code": "bad_card", "message": str(e)}}
        else:
            return 404, {"error": {"code": "not_found", "message": f"no {route} (POST /card, POST /new-shoe)"}}
        key = header_key if header_key is not None else body.get("id")
        key = None if key is None else f"{route}:{key}"
        pipeline = self.adapter.pipeline
        with pipeline.lock:
            if not pipeline.ready:
                return 503, {"error": {"code": "starting", "message": "the adapter is asking the service for the "
                                                                     "table's shoe and round; send again"}}
            if key is not None and self.adapter.spool.delivery(key) is not None:
                return 200, {"status": "unchanged", "key": key}
            messages = pipeline.handle(events, delivery_key=key)
        return 200, {"status": "spooled", "messages": len(messages)}

    def serve(self, stop: threading.Event) -> None:
        """Serve until ``stop`` is set."""
        t = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
        t.start()
        stop.wait()
        self.server.shutdown()
        self.server.server_close()
        t.join(timeout=10)


def _command() -> Any:
    import click

    from shoes.cli import _EXIT_CODES, _logging, _stop_on_signals, common_options, make_adapter

    @click.command("one-card-http", epilog=_EXIT_CODES)
    @common_options
    @click.option("--listen", default="127.0.0.1:8765", show_default=True, metavar="HOST:PORT",
                  help="Where the shoe posts its cards (POST /card, POST /new-shoe).")
    def command(table: str, url: str, token: str, spool_dir: Any, start_shoe: int | None, start_round: int,
                timeout: float, verbose: int, listen: str) -> None:
        """A one-card shoe that posts each card over HTTP ({"card": "H10"}): positions come from
        the tableau; an "id" or Idempotency-Key makes a retried delivery one card (docs/shoes.md)."""
        _logging(verbose)
        host, _, port = listen.rpartition(":")
        if not host or not port.isdigit():
            raise click.BadParameter(f"{listen!r} is not HOST:PORT", param_hint="'--listen'")
        adapter = make_adapter(table, url, token, spool_dir, start_shoe, start_round, timeout, None, False)
        restore = _stop_on_signals(adapter.stop)
        try:
            receiver = CardReceiver(adapter, host, int(port))
        except OSError as e:
            adapter.close()
            restore()
            raise click.ClickException(f"cannot listen on {listen}: {e.strerror or e}") from None
        click.echo(f"roads shoe: receiving cards on http://{host}:{receiver.port}/card for table {table}", err=True)
        try:
            adapter.begin()
            receiver.serve(adapter.stop)
            click.echo(adapter.summary(), err=True)
        finally:
            adapter.close()
            restore()

    return command


def _shoe_type() -> Any:
    from shoes.plugins import ShoeType

    return ShoeType("one-card-http", "one-card shoe posting each card over HTTP", _command)


SHOE_TYPE = _shoe_type()
"""This protocol in the ``roads.shoes`` entry-point group."""
