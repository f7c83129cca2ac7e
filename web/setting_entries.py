"""The entries of the JSON settings ``ROADS_TABLES`` (:class:`TableConfig`) and ``ROADS_SCREENS``
(:class:`ScreenConfig`): nested pydantic models of :class:`web.settings.Settings`, strict (JSON
types as they are) and closed (an unknown key is refused). Names and titles keep the
display-text rule (:mod:`roads.text`); :mod:`web.settings` turns a refusal into a
:class:`web.settings.ConfigError` naming the entry (``ROADS_TABLES["T1"].name``).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from roads.ids import TABLE_ID_RULE, is_table_id
from web.display_text import DisplayText

__all__ = ["NAME_MAX_LENGTH", "ScreenConfig", "TableConfig", "TableId"]

NAME_MAX_LENGTH = 100
"""Most characters of a configured table name or screen title (display text, :mod:`roads.text`)."""


def _table_id(value: str) -> str:
    if not is_table_id(value):
        raise ValueError(f"is not a table id ({TABLE_ID_RULE})")
    return value


TableId = Annotated[str, AfterValidator(_table_id)]
"""A table id (:func:`roads.ids.is_table_id`)."""


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, use_attribute_docstrings=True)


class TableConfig(_Entry):
    """One table of ``ROADS_TABLES``: its display name (default: the id), its variant preset
    (default: :data:`roads.variants.DEFAULT_VARIANT_ID`; checked against the presets by the
    service) and its table limits (shape and amounts checked by the service,
    :func:`roads.table_state.check_limits`)."""

    name: DisplayText(NAME_MAX_LENGTH, "the table's display name") | None = None
    """The table's name on every board, tile and page (display text, :mod:`roads.text`)."""
    variant: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    """A preset id of :mod:`roads.variants`."""
    limits: dict[str, Any] | None = None
    """``{"min", "max"[, "bets": {bet id: {"min", "max"}}]}`` in the table's currency."""

    def as_dict(self) -> dict[str, Any]:
        """``{"name", "variant"[, "limits"]}`` (``limits`` only when given): what the service reads."""
        out: dict[str, Any] = {"name": self.name, "variant": self.variant}
        if self.limits is not None:
            out["limits"] = self.limits
        return out


class ScreenConfig(_Entry):
    """One named screen of ``ROADS_SCREENS`` (``/screens/<name>``); every key optional. The values
    (table ids, ranges, languages) are checked when the screen is shown, as the same options in a
    lobby URL are (:mod:`web.http.screen_options`); the title here, by the display-text rule."""

    tables: list[TableId] | None = None
    """Table ids, shown in this order (:mod:`roads.ids`)."""
    per_page: int | None = None
    rotate_s: int | None = None
    lang: str | None = None
    theme: str | None = None
    good: list[str] | None = None
    bead: str | None = None
    title: DisplayText(NAME_MAX_LENGTH, "the screen's title") | None = None
    """The title strip of the screen (display text, :mod:`roads.text`)."""
    state: list[str] | None = None
    sort: str | None = None

    def preset(self) -> dict[str, Any]:
        """The keys this screen sets (``None`` left out), as :mod:`web.http.screen_options` reads them."""
        return self.model_dump(exclude_none=True)
