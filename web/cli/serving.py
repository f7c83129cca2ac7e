"""The built-in threaded HTTP server used by ``roads serve`` and ``roads demo``."""

from __future__ import annotations

import socket
from typing import Any


def make_threaded_server(app: Any, host: str, port: int) -> Any:
    """A Werkzeug threaded server for ``app`` on ``host:port`` (0 = any free port).

    Threaded, so flask-sock WebSockets work (one thread per connection). The socket is
    bound here first because Werkzeug exits the process on a taken port; this raises
    ``OSError`` instead (``errno`` EADDRINUSE, EACCES, ...). The bound port is the returned
    server's ``port``.
    """
    from werkzeug.serving import make_server

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(128)
        return make_server(host, port, app, threaded=True, fd=listener.fileno())
    finally:
        listener.close()  # the server holds its own duplicate of the socket
