"""The display-text rule (:mod:`roads.text`) as a pydantic field type, for the feed's bodies and
the settings: ``dealer: DisplayText(100) | None``.

A value that breaks the rule fails validation with :class:`roads.text.DisplayTextError` (a
``ValueError``): the feed answers 400 ``bad_text`` naming the field (:mod:`web.http.schemas`), a
setting stops the start naming it (:mod:`web.settings`). The JSON Schema of the field carries the
rule as its ``pattern`` (:data:`roads.text.DISPLAY_TEXT_PATTERN`), so the OpenAPI document says it.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, Field, WithJsonSchema

from roads.text import DISPLAY_TEXT_PATTERN, DISPLAY_TEXT_RULE, check_display_text

__all__ = ["DisplayText"]


def DisplayText(max_length: int, description: str | None = None) -> Any:  # noqa: N802 (a type)
    """``str`` of 1 to ``max_length`` characters that keeps the display-text rule."""
    schema: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": max_length,
                              "pattern": DISPLAY_TEXT_PATTERN}
    schema["description"] = (description + "; " if description else "") + DISPLAY_TEXT_RULE
    return Annotated[str, Field(min_length=1, max_length=max_length), AfterValidator(check_display_text),
                     WithJsonSchema(schema)]
