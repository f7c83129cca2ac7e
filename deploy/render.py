"""Fill a deploy/ template: every ``@NAME@`` becomes the value given for NAME.

Usage::

    python3 deploy/render.py deploy/nginx-nchan.conf RUN_DIR=/var/lib/roads-nginx \\
        LISTEN=80 PUBLISH_LISTEN=127.0.0.1:8081 UPSTREAM=127.0.0.1:8000 \\
        STATIC_DIR="$(python3 -c 'import web.paths as p; print(p.STATIC_DIR)')" > /etc/nginx/roads.conf

Two line rules besides plain tokens:

- a value with commas is a list: a line holding ``@NAME@`` is written once per item
  (``UPSTREAM=10.0.0.11:8000,10.0.0.12:8000`` gives two ``server`` lines); one list per line;
- a line starting with ``@?NAME@`` (after its indentation) is kept, without the marker, only
  when NAME has a non-empty value (``NCHAN_REDIS`` turns on nchan's Redis lines).

Defaults: NCHAN_MODULE=/usr/lib/nginx/modules/ngx_nchan_module.so (Debian's
libnginx-mod-nchan; ``dpkg -L libnginx-mod-nchan`` shows it), WORKERS=auto, CONNECTIONS=65536,
NOFILE=131072, NCHAN_REDIS empty (one host: channels in nginx's memory).
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
    "NCHAN_REDIS": "",
}
TOKEN = re.compile(r"@([A-Z_]+)@")
OPTIONAL = re.compile(r"^(\s*)@\?([A-Z_]+)@")


def render(template: str, values: dict[str, str]) -> str:
    """``template`` with every ``@NAME@`` replaced by ``values`` (over :data:`DEFAULTS`), list
    values repeating their lines and ``@?NAME@`` lines kept only when NAME is set (module
    docstring). Raises ``KeyError`` naming the tokens without a value, ``ValueError`` for a line
    with two list values."""
    merged = {**DEFAULTS, **values}
    lines = []
    for line in template.splitlines(keepends=True):
        optional = OPTIONAL.match(line)
        if optional:
            if not merged.get(optional.group(2)):
                continue
            line = optional.group(1) + line[optional.end():]
        lines.append(line)
    kept = "".join(lines)
    missing = sorted({m for m in TOKEN.findall(kept) if m not in merged})
    if missing:
        raise KeyError(", ".join(missing))
    out = []
    for line in lines:
        lists = sorted({m for m in TOKEN.findall(line) if "," in merged[m]})
        if len(lists) > 1:
            raise ValueError(f"two list values on one line: {', '.join(lists)}")
        items = [item.strip() for item in merged[lists[0]].split(",")] if lists else [None]
        for item in items:
            values_here = merged if item is None else {**merged, lists[0]: item}
            out.append(TOKEN.sub(lambda m: values_here[m.group(1)], line))
    return "".join(out)


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
    except ValueError as exc:
        print(f"render.py: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
