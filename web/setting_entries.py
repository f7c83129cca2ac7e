"""The entries of the JSON settings ``ROADS_TABLES`` (:class:`TableConfig`), ``ROADS_SCREENS``
(:class:`ScreenConfig`) and ``ROADS_GOOD_ROAD_PATTERNS`` (:class:`PatternConfig`): nested pydantic models of :class:`web.settings.Settings`, strict (JSON
types as they are) and closed (an unknown key is refused). Names and titles keep the
display-text rule (:mod:`roads.text`); :mod:`web.settings` turns a refusal into a
:class:`web.settings.ConfigError` naming the entry (``ROADS_TABLES["T1"].name``).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from roads.good_roads import CustomRoad
from roads.ids import TABLE_ID_RULE, is_table_id
from roads.road_patterns import PatternError, parse
from web.display_text import DisplayText
from web.i18n import DEFAULT_LANGUAGE, LANGUAGES

__all__ = ["NAME_MAX_LENGTH", "PatternConfig", "ScreenConfig", "TableConfig", "TableId"]

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


def _pattern_text(value: str) -> str:
    try:
        parse(value)
    except PatternError as e:
        raise ValueError(str(e)) from None
    return value


def _pattern_names(value: dict[str, str]) -> dict[str, str]:
    unknown = [k for k in value if k not in LANGUAGES]
    if unknown:
        raise ValueError(f"names unknown language(s) {unknown!r} (languages: {', '.join(LANGUAGES)})")
    if DEFAULT_LANGUAGE not in value:
        raise ValueError(f"must name the pattern in {DEFAULT_LANGUAGE!r} (the fallback of every other language)")
    return value


PatternName = DisplayText(40, "the pattern's name")


class PatternConfig(_Entry):
    """One operator's pattern of ``ROADS_GOOD_ROAD_PATTERNS`` (docs/patterns.md): its text in the
    pattern language (:mod:`roads.road_patterns`), its name per language (``en`` required; the
    others fall back to it), its priority (lower first; the built-ins have 10..90) and whether
    boards highlight it unless the page chooses (default yes)."""

    pattern: Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_pattern_text)]
    """The pattern text, e.g. ``streak B >= 6`` or ``columns 1,2,1,2``."""
    names: Annotated[dict[str, PatternName], AfterValidator(_pattern_names)]
    """``{language: name}`` (:data:`web.i18n.LANGUAGES`), ``en`` required."""
    priority: Annotated[int, Field(ge=1, le=1000)] = 100
    """Shown before patterns with a higher number (the built-ins: 10, 20, ... 90)."""
    highlight: bool = True
    """Highlighted on boards and tiles unless the page or screen chooses (``?good=``)."""

    def road(self, pattern_id: str) -> CustomRoad:
        """The domain pattern (:class:`roads.good_roads.CustomRoad`) of this entry under ``pattern_id``."""
        return CustomRoad.of(pattern_id, self.names[DEFAULT_LANGUAGE], self.pattern, self.priority)


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
    good_road: list[str] | None = None
    """Only tables with a good road (``["any"]``) or with one of these patterns (``?good_road=``)."""

    def preset(self) -> dict[str, Any]:
        """The keys this screen sets (``None`` left out), as :mod:`web.http.screen_options` reads them."""
        return self.model_dump(exclude_none=True)
