"""docs/api.md's settings table is the :class:`web.settings.Settings` model: the same settings,
units and defaults (the model is the one definition; this keeps the documentation honest)."""

import re
from pathlib import Path

from web.settings import Settings

ROOT = Path(__file__).resolve().parent.parent


def documented_rows():
    """``{setting: (unit, default, meaning)}`` from the table under docs/api.md's "Settings"."""
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    rows = {}
    for m in re.finditer(r"^\| `(ROADS_[A-Z0-9_]+)` \| (.*?) \| (.*?) \| (.*?) \|$", text, re.M):
        assert m.group(1) not in rows, f"{m.group(1)} is in the table twice"
        rows[m.group(1)] = (m.group(2), m.group(3), m.group(4))
    return rows


def shown_default(value):
    """A default as docs/api.md writes it: ``unset``, `` `./data` ``, `` `2` ``, `` `a,b` ``."""
    if value is None:
        return "unset"
    if isinstance(value, Path) and not value.is_absolute():
        return f"`./{value}`"
    if isinstance(value, float):
        return f"`{value:g}`"
    if isinstance(value, tuple):
        return f"`{','.join(value)}`"
    return f"`{value}`"


def test_the_settings_table_lists_every_field_of_the_model_and_nothing_else():
    fields = {Settings.env_name(name) for name in Settings.model_fields}
    assert {"ROADS_FEED_TOKEN", "ROADS_DATA_DIR", "ROADS_REDIS_URL", "ROADS_FONT_DIR"} <= fields
    assert sorted(fields ^ set(documented_rows())) == []


def test_each_row_gives_the_models_unit_and_default_and_a_meaning():
    rows = documented_rows()
    for name, field in Settings.model_fields.items():
        unit, default, meaning = rows[Settings.env_name(name)]
        assert unit == field.json_schema_extra["unit"], name
        assert default == shown_default(field.default), name
        assert meaning.strip(), name


def test_the_model_reads_the_documented_environment_variables(monkeypatch):
    monkeypatch.setenv("ROADS_PNG_MAX_AGE_S", "7")
    monkeypatch.setenv("ROADS_DATA_DIR", "/srv/roads")
    settings = Settings.load()
    assert settings.png_max_age_s == 7 and settings.data_dir == Path("/srv/roads")
