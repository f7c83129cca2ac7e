"""The gaming-day statistics, exports and trends in the OpenAPI document: their paths
(:func:`paths`) and answer schemas (:func:`schemas`), merged into :func:`web.http.openapi.document`.
The shapes are :meth:`roads.gaming_day.DayTally.json` and :mod:`web.day_stats`'s answers."""

from __future__ import annotations

from typing import Any

from roads.gaming_day import EVENTS, RESULTS
from roads.integrity import KINDS
from roads.ids import TABLE_ID_PATTERN
from web.day_stats import MAX_FLOOR_DAYS, MAX_TABLE_DAYS
from web.i18n import LANGUAGES

REF = "#/components/schemas/"
_NUM_OR_NULL = {"type": ["number", "null"]}
_TIME_OR_NULL = {"type": ["string", "null"], "description": "ISO 8601 UTC"}
_ERROR = {"application/json": {"schema": {"$ref": REF + "Error"}}}

_TABLE_ID = {"name": "table_id", "in": "path", "required": True,
             "schema": {"type": "string", "pattern": TABLE_ID_PATTERN}, "description": "table id (slug)"}
DAY_SCHEMA = {"anyOf": [
    {"enum": ["today", "yesterday"]},
    {"type": "string", "format": "date", "pattern": r"^(197[1-9]|19[89]\d|[2-8]\d{3}|9[0-8]\d{2}|99[0-8]\d)-\d{2}-\d{2}$"},
]}
"""A gaming day: ``today``, ``yesterday`` or a date of the years 1971-9998."""

_DAY = {"name": "day", "in": "path", "required": True, "schema": DAY_SCHEMA,
        "description": "a gaming day: YYYY-MM-DD (1971-9998), today or yesterday (ROADS_VENUE_TZ, ROADS_GAMING_DAY_START)"}


def _range(most: int) -> list[dict[str, Any]]:
    return [{"name": "from", "in": "query", "required": True, "schema": DAY_SCHEMA, "description": "first gaming day"},
            {"name": "to", "in": "query", "required": True, "schema": DAY_SCHEMA,
             "description": f"last gaming day (not before from; at most {most} days in all)"}]


def _obj(props: dict[str, Any], required: list[str] | None = None, description: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props, "required": required or list(props)}
    if description:
        out["description"] = description
    return out


def schemas() -> dict[str, Any]:
    """``DayShare``, ``DayTest``, ``DayTally``, ``DealerDay``, ``TableDayStats``, ``FloorDayStats``,
    ``TableDaysStats``, ``FloorDaysStats``."""
    share = _obj({"count": {"type": "integer"}, "of": {"type": "integer", "description": "rounds it could happen on"},
                  "share": _NUM_OR_NULL, "expected": {**_NUM_OR_NULL, "description": "exact probability (fresh shoe)"},
                  "se": {**_NUM_OR_NULL, "description": "standard error of the share"},
                  "z": {**_NUM_OR_NULL, "description": "deviation in standard errors"},
                  "p_value": {**_NUM_OR_NULL, "description": "two-sided, normal"}})
    test = _obj({"statistic": {"type": "number"}, "df": {"const": 2}, "p_value": {"type": "number"},
                 "false_alarm_rate": {"type": "number"}, "min_rounds": {"type": "integer"},
                 "flagged": {"type": "boolean"}},
                description="Pearson's chi-square of the Banker/Player/Tie counts (roads.gaming_day.results_test)")
    side = {"allOf": [{"$ref": REF + "DayShare"},
                      _obj({"hits": {"type": "integer"}, "unknown": {"type": "integer"},
                            "open_rounds": {"type": "integer"}, "open_hits": {"type": "integer"}})]}
    tally_props = {
        "rounds": {"type": "integer"}, "shoes": {"type": "integer"}, "voided": {"type": "integer"},
        "first_round_at": _TIME_OR_NULL, "last_round_at": _TIME_OR_NULL,
        "rounds_per_hour": _NUM_OR_NULL,
        "results": _obj({k: {"$ref": REF + "DayShare"} for k in RESULTS}),
        "events": _obj({k: {"$ref": REF + "DayShare"} for k in EVENTS[3:]}),
        "side_bets": {"type": "object", "additionalProperties": side},
        "test": {"$ref": REF + "DayTest"},
    }
    streaks = {"longest_banker_streak": {"type": "integer"}, "longest_player_streak": {"type": "integer"}}
    tally = _obj({**tally_props, **streaks})
    dealer = _obj({"dealer": {"type": ["string", "null"]}, **tally_props})
    head = {"day": {"type": "string", "format": "date"}, "from": {"type": "string"}, "to": {"type": "string"}}
    dealers = {"type": "array", "items": {"$ref": REF + "DealerDay"}}
    table_day = {"allOf": [{"$ref": REF + "DayTally"},
                           _obj({"table": {"type": "string"}, **head, "dealers": dealers})]}
    table_line = _obj({"table": {"type": "string"}, "name": {"type": "string"}, "rounds": {"type": "integer"},
                       "shoes": {"type": "integer"}, "rounds_per_hour": _NUM_OR_NULL, **streaks,
                       "results": tally_props["results"], "test": {"$ref": REF + "DayTest"}})
    floor_day = _obj({**head, "floor": {"$ref": REF + "DayTally"}, "tables": {"type": "array", "items": table_line},
                      "flagged": {"type": "array", "items": {"type": "string"}}, "dealers": dealers})
    one_day = {"allOf": [{"$ref": REF + "DayTally"}, _obj(head)]}
    table_days = _obj({"table": {"type": "string"}, "from_day": {"type": "string"}, "to_day": {"type": "string"},
                       "days": {"type": "array", "items": one_day}, "total": {"$ref": REF + "DayTally"},
                       "dealers": dealers})
    floor_one = {"allOf": [{"$ref": REF + "DayTally"},
                           _obj({**head, "flagged": {"type": "array", "items": {"type": "string"}}})]}
    floor_days = _obj({"from_day": {"type": "string"}, "to_day": {"type": "string"},
                       "days": {"type": "array", "items": floor_one}, "total": {"$ref": REF + "DayTally"},
                       "dealers": dealers})
    integrity = _obj({"table": {"type": "string"}, "shoe": {"type": ["integer", "null"]},
                      "round": {"type": ["integer", "null"]}, "code": {"enum": sorted(KINDS)},
                      "what": {"type": "string"}, "field": {"type": ["string", "null"]}, "message": {"type": "string"},
                      "at": {"type": "string"}},
                     description="a feed write refused as an exact impossibility (roads.integrity)")
    flags = {"type": "array", "items": {"$ref": REF + "IntegrityFlag"}}
    table_day["allOf"][1]["properties"]["integrity"] = flags
    floor_day["properties"]["integrity"] = flags
    return {"IntegrityFlag": integrity, "IntegrityFlags": _obj({"flags": flags}), "DayShare": share, "DayTest": test, "DayTally": tally, "DealerDay": dealer, "TableDayStats": table_day,
            "FloorDayStats": floor_day, "TableDaysStats": table_days, "FloorDaysStats": floor_days}


def _get(op: str, summary: str, params: list[dict[str, Any]], ref: str, errors: dict[int, str],
         description: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {
        "operationId": op, "tags": ["read"], "summary": summary, "parameters": params,
        "responses": {"200": {"description": "the figures", "content": {"application/json": {"schema": {"$ref": REF + ref}}}},
                      **{str(s): {"description": words, "content": _ERROR} for s, words in errors.items()}},
    }
    if description:
        out["description"] = description
    return out


_BAD = {400: "bad_parameter: a day that is not YYYY-MM-DD, today or yesterday, or a bad range (field names it)",
        503: "history_unavailable: the store keeps no history"}
_WORDS = ("Read from the per-shoe summaries kept as shoes close (a shoe across the cut-over split by its rounds' "
          "times) and the live shoe; each share beside its exact expected value, its deviation in standard "
          "errors and p-value; a table-day is flagged improbable at a false-alarm rate of 0.001 (docs/api.md).")


_SHOE_NO = {"name": "shoe", "in": "path", "required": True, "schema": {"type": "integer", "minimum": 1},
            "description": "shoe number"}
_EXPORT_WORDS = ("Streamed, one row per recorded round in deal order (voided rounds included and marked). Columns "
                 "(roads.export.COLUMNS, docs/api.md Exports): table, shoe, round, at, day, dealer, player, banker, "
                 "burn, winner, player_total, banker_total, natural, player_natural, banker_natural, player_pair, "
                 "banker_pair, voided, void_reason, voided_at, corrections, corrected_at.")


def _export(op: str, summary: str, params: list[dict[str, Any]], fmt: str, errors: dict[int, str]) -> dict[str, Any]:
    media = "text/csv" if fmt == "csv" else "application/x-ndjson"
    return {"get": {
        "operationId": op + fmt.capitalize(), "tags": ["read"], "summary": summary + f" ({fmt.upper()})",
        "description": _EXPORT_WORDS, "parameters": params,
        "responses": {"200": {"description": "the rounds (Content-Disposition: attachment)",
                              "content": {media: {"schema": {"type": "string"}}}},
                      **{str(s): {"description": words, "content": _ERROR} for s, words in errors.items()}}}}


def export_paths() -> dict[str, Any]:
    """The export routes as OpenAPI path items."""
    out: dict[str, Any] = {}
    for fmt in ("csv", "jsonl"):
        out[f"/api/tables/{{table_id}}/shoes/{{shoe}}/rounds.{fmt}"] = _export(
            "exportShoe", "A shoe's rounds", [_TABLE_ID, _SHOE_NO], fmt, {404: "unknown table or shoe"})
        out[f"/api/tables/{{table_id}}/days/{{day}}/rounds.{fmt}"] = _export(
            "exportTableDay", "A table's rounds of a gaming day", [_TABLE_ID, _DAY], fmt,
            {**_BAD, 404: "unknown table"})
        out[f"/api/days/{{day}}/rounds.{fmt}"] = _export(
            "exportFloorDay", "Every table's rounds of a gaming day", [_DAY], fmt, _BAD)
    return out


def trends_paths() -> dict[str, Any]:
    """The trends pages and pictures as OpenAPI path items."""
    day = {"name": "day", "in": "query", "required": False, "schema": DAY_SCHEMA,
           "description": "the gaming day (default today)"}
    theme = {"name": "theme", "in": "query", "required": False, "schema": {"enum": ["dark", "light"]},
             "description": "colour theme"}
    langs = ", ".join(LANGUAGES)
    page_lang = {"name": "lang", "in": "query", "required": False, "schema": {"type": "string"},
                 "description": f"label language, one of {langs} (or a tag like zh-CN); anything else falls back "
                                "to Accept-Language, then English"}
    png_lang = {**page_lang, "description": f"label language, one of {langs} (or a tag like zh-CN); another value "
                                            "is a 400"}
    errors = {str(s): {"description": words, "content": _ERROR}
              for s, words in {400: "bad_parameter: a bad day, theme or (PNG) language", 404: "unknown table",
                               503: "history_unavailable"}.items()}
    words = ("Today's (or the day's) Banker/Player/Tie shares against their expected band (the exact "
             "share ± 1.96 standard errors), streak lengths, rounds per hour and flags; the page and the "
             "PNG paint one model (web/render/trends.py), 1920x1080, readable at 5 m.")
    out: dict[str, Any] = {}
    for path, op, params, what in (("/tables/{table_id}/trends", "tableTrends", [_TABLE_ID], "A table's trends"),
                                   ("/trends", "floorTrends", [], "The floor's trends")):
        for suffix, media, schema in (("", "text/html", {"type": "string"}),
                                      (".png", "image/png", {"type": "string", "format": "binary"})):
            errs = {k: v for k, v in errors.items() if k != "404" or params}
            out[path + suffix] = {"get": {
                "operationId": op + ("Png" if suffix else "Page"), "tags": ["png" if suffix else "pages"],
                "summary": what + (" (PNG)" if suffix else " (page)"), "description": words,
                "parameters": [*params, day, theme, png_lang if suffix else page_lang],
                "responses": {"200": {"description": "the picture" if suffix else "the page",
                                      "content": {media: {"schema": schema}}}, **errs}}}
    return out


def paths() -> dict[str, Any]:
    """The statistics, export and trends routes as OpenAPI path items."""
    return {**export_paths(), **trends_paths(),
        "/api/integrity": {"get": _get(
            "integrityFlags", "Feed writes refused as exact impossibilities, newest first",
            [{"name": "table", "in": "query", "required": False, "schema": {"type": "string"},
              "description": "one table's flags"}], "IntegrityFlags", {},
            "A card seen more often in a shoe than it holds, a round the tableau does not allow, a card out "
            "of deal order: never noise, flagged at once (the newest 1,000 kept, in memory and in "
            "integrity.jsonl in ROADS_DATA_DIR, so they survive a restart; logged).")},
        "/api/stats/days/{day}": {"get": _get("floorDay", "The floor's figures of one gaming day", [_DAY],
                                              "FloorDayStats", _BAD, _WORDS)},
        "/api/stats/days": {"get": _get("floorDays", "The floor's figures over a range of gaming days",
                                        _range(MAX_FLOOR_DAYS), "FloorDaysStats", _BAD, _WORDS)},
        "/api/tables/{table_id}/stats/days/{day}": {"get": _get(
            "tableDay", "One table's figures of one gaming day, per dealer too", [_TABLE_ID, _DAY], "TableDayStats",
            {**_BAD, 404: "unknown table"}, _WORDS)},
        "/api/tables/{table_id}/stats/days": {"get": _get(
            "tableDays", "One table's figures over a range of gaming days", [_TABLE_ID, *_range(MAX_TABLE_DAYS)],
            "TableDaysStats", {**_BAD, 404: "unknown table"}, _WORDS)},
    }
