"""The release digest: one value that changes whenever what pages and images are drawn with changes.

:data:`RELEASE` digests the drawing code (every module of ``web/render``), the pages' scripts
and styles (``static/js``, ``static/css``) and their templates (``web/templates``). A page whose
documents name another release than its boot JSON reloads (docs/frontend.md); every PNG's ETag
holds it, so screens holding an image drawn by older code get the new drawing, not a 304.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from web.paths import STATIC_DIR

WEB_DIR = Path(__file__).resolve().parent


def release_digest() -> str:
    """12 hex digits of the drawing code, scripts, styles and templates (module docstring)."""
    h = hashlib.blake2b(digest_size=6)
    for folder, pattern in ((WEB_DIR / "render", "*.py"), (Path(STATIC_DIR) / "js", "*.js"),
                            (Path(STATIC_DIR) / "css", "*.css"), (WEB_DIR / "templates", "*.html")):
        for path in sorted(Path(folder).glob(pattern)):
            h.update(path.read_bytes())
    return h.hexdigest()


RELEASE = release_digest()
"""The release digest of this process (:func:`release_digest`)."""
