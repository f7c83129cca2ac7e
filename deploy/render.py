"""Fill a deploy/ template: every ``@NAME@`` becomes the value given for NAME.

Usage::

    python3 deploy/render.py deploy/nginx-nchan.conf RUN_DIR=/var/lib/roads-nginx \\
        LISTEN=80 PUBLISH_LISTEN=127.0.0.1:8081 UPSTREAM=127.0.0.1:8000 \\
        STATIC_DIR="$(python3 -c 'import web.paths as p; print(p.STATIC_DIR)')" > /etc/nginx/roads.conf

Defaults: NCHAN_MODULE=/usr/lib/nginx/modules/ngx_nchan_module.so (Debian's
libnginx-mod-nchan; ``dpkg -L libnginx-mod-nchan`` shows it), WORKERS=auto, CONNECTIONS=65536,
NOFILE=131072.
Exits 2 naming any ``@NAME@`` left without a value. Standard library only.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

DEFAULTS = {
    "NCHAN_MODULE": "/usr/lib/nginx/modules/ngx_nchan_module.so",
    "WORKERS": "auto",
    "CONNECTIONS": "65536",
    "NOFILE": "131072",
}
TOKEN = re.compile(r"@([A-Z_]+)@")


def render(template: str, values: dict[str, str]) -> str:
    """``template`` with every ``@NAME@`` replaced by ``values`` (over :data:`DEFAULTS`).
    Raises ``KeyError`` naming the first token without a value."""
    merged = {**DEFAULTS, **values}
    missing = sorted({m for m in TOKEN.findall(template) if m not in merged})
    if missing:
        raise KeyError(", ".join(missing))
    return TOKEN.sub(lambda m: merged[m.group(1)], template)


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    values = {}
    for arg in argv[1:]:
        name, sep, value = arg.partition("=")
        if not sep or not TOKEN.fullmatch(f"@{name}@"):
            print(f"render.py: expected NAME=value, got {arg!r}", file=sys.stderr)
            return 2
        values[name] = value
    try:
        sys.stdout.write(render(Path(argv[0]).read_text(encoding="utf-8"), values))
    except KeyError as exc:
        print(f"render.py: no value for {exc.args[0]}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
