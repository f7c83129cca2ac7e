"""Every ``ROADS_*`` setting the service reads is documented in docs/api.md's settings table."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_setting_read_by_the_service_is_in_the_settings_table():
    read = set()
    for path in (ROOT / "web").rglob("*.py"):
        read |= set(re.findall(r"ROADS_[A-Z0-9_]+[A-Z0-9]", path.read_text(encoding="utf-8")))
    documented = set(re.findall(r"^\| `(ROADS_[A-Z0-9_]+)` \|", (ROOT / "docs" / "api.md").read_text(encoding="utf-8"), re.M))
    assert {"ROADS_FEED_TOKEN", "ROADS_DATA_DIR", "ROADS_REDIS_URL"} <= read
    assert sorted(read - documented) == []
    assert sorted(documented - read) == []
