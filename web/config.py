"""Settings: defaults, then ``ROADS_*`` environment variables, then test overrides.

(Owned by the feed/storage issue; every setting documented here with its unit.)
"""

from __future__ import annotations

import os
from typing import Any, Mapping

from flask import Flask

DEFAULTS: dict[str, Any] = {
    "ROADS_FEED_TOKEN": "change-me",
    "ROADS_DATA_DIR": "./data",
}


def load(app: Flask, test_config: Mapping[str, Any] | None) -> None:
    """Fill ``app.config`` from defaults, the environment and ``test_config``."""
    app.config.from_mapping(DEFAULTS)
    for key in DEFAULTS:
        if key in os.environ:
            app.config[key] = os.environ[key]
    if test_config:
        app.config.update(test_config)
