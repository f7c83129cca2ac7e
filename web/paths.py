"""Where the service finds its static files (CSS, JS, fonts).

In a source checkout or an editable install they are the project's top-level ``static/``;
an installed wheel carries the same files as ``web/static/`` (``pyproject.toml`` maps one to
the other), so both layouts work.
"""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent


def _static_dir() -> Path:
    for candidate in (_HERE / "static", _HERE.parent / "static"):
        if (candidate / "css").is_dir():
            return candidate
    return _HERE.parent / "static"


STATIC_DIR: Path = _static_dir()
"""The folder served at ``/static``: ``web/static`` when installed, else the checkout's ``static/``."""
