"""The JSON answers of the API as typed pydantic models: the one description of their shape.

:mod:`web.http.openapi` generates the response schemas of ``/api/openapi.json`` from these
models (every model forbids keys it does not name, and names which keys are always there),
and ``tests/web/test_openapi.py`` validates real answers against that document: a key renamed
or added in the code, or one dropped, fails there. The bodies themselves are built by
:mod:`web.snapshots`, :mod:`web.service` (write answers), :mod:`roads.record` and :class:`roads.outcome.RoundResult` (``to_json``);
snapshots keep their own schema, ``roads/schema/snapshot.schema.json``.

Times are ISO 8601 UTC text (``"2024-06-15T12:00:00.123Z"``); ``version`` numbers are the
table versions of docs/api.md ("Versions").
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

SNAPSHOT_REF = "#/components/schemas/Snapshot"
"""Where the document keeps the snapshot schema and its parts (``Snapshot_<name>``)."""


def _snapshot_part(name: str, *, nullable: bool = False) -> Any:
    ref = {"$ref": f"{SNAPSHOT_REF}_{name}"}
    return WithJsonSchema({"anyOf": [ref, {"type": "null"}]} if nullable else ref)


def _snapshot_key(name: str) -> Any:
    """A key of the snapshot (``in_progress``, ``state``) by reference, or ``null``."""
    return WithJsonSchema({"anyOf": [{"$ref": f"{SNAPSHOT_REF}/properties/{name}"}, {"type": "null"}]})


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


Time = Annotated[str, Field(json_schema_extra={"format": "date-time"})]
Cards = list[Annotated[str, Field(pattern=r"^([A2-9TJQK])[SHDC]$")]]


class ErrorDetail(_Out):
    """The ``error`` object (docs/api.md, "Errors")."""

    status: int = Field(ge=400, le=599)
    """The HTTP status again."""
    code: str = Field(pattern=r"^[a-z_]+$")
    """Stable id, e.g. ``round_conflict``, ``tableau``, ``unknown_field``."""
    message: str = Field(min_length=1)
    """What was wrong, quoting the input."""
    field: str | None
    """Path of the offending field (``player[2]``, ``result.winner``) or ``null``."""
    stored: dict[str, Any] | None = None
    """409 only: the stored round or shoe the request conflicts with."""
    in_progress: Annotated[dict[str, Any] | None, _snapshot_key("in_progress")] = None
    """409 ``round_in_progress`` only: the round being dealt card by card (the snapshot's key)."""


class ErrorOut(_Out):
    """Every error answer: ``{"error": {...}}``."""

    error: ErrorDetail


class VariantRef(_Out):
    """A variant preset by id and display name (:mod:`roads.variants`)."""

    id: str
    name: str


class ResultOut(_Out):
    """A stored round's outcome (:meth:`roads.outcome.RoundResult.to_json`); unknown facts
    of a result-level round are ``null``; ``player``/``banker`` only when the cards are known."""

    winner: Literal["B", "P", "T"]
    player_total: int = Field(ge=0, le=9)
    banker_total: int = Field(ge=0, le=9)
    player_pair: bool
    banker_pair: bool
    natural: bool
    player_card_count: Literal[2, 3] | None
    banker_card_count: Literal[2, 3] | None
    player_natural: bool | None
    banker_natural: bool | None
    player_perfect_pair: bool | None
    banker_perfect_pair: bool | None
    player: Cards | None = Field(default=None, min_length=2, max_length=3)
    banker: Cards | None = Field(default=None, min_length=2, max_length=3)


class VoidOut(_Out):
    """Why and when a round was voided."""

    reason: str
    at: Time


class ShoeResultOut(_Out):
    """A card-reading shoe's own result of a round (docs/shoes.md)."""

    winner: Literal["P", "B", "T"]
    banker_six: bool
    player_pair: bool
    banker_pair: bool


class HeldOut(_Out):
    """A round held for the supervisor (``POST .../rounds/<r>/hold``, docs/shoes.md): why, what
    the shoe said and the cards the adapter read; kept after it is resolved."""

    reason: Literal["result_mismatch", "result_before_complete", "frames_lost"]
    message: str
    shoe_result: ShoeResultOut | None
    player: Cards = Field(max_length=3)
    banker: Cards = Field(max_length=3)
    at: Time
    resolved: bool
    """A correction recorded the round, or a void voided it."""


class AckOut(_Out):
    """The answer to a feed write: 201 ``recorded`` or 200 ``unchanged`` (a repeat)."""

    status: Literal["recorded", "unchanged"]
    table: str
    version: int = Field(ge=0)
    """The table's version after the write."""
    shoe: int = Field(ge=1)
    round: int | None = Field(default=None, ge=1)
    """Round writes only."""
    result: ResultOut | None = None
    """Round writes only: the round as stored now."""
    void: VoidOut | None = None
    """Round writes only: the round's void, ``null`` when it counts."""
    held: HeldOut | None = None
    """Round writes only, for a round held for the supervisor."""
    in_progress: Annotated[dict[str, Any] | None, _snapshot_key("in_progress")] = None
    """Card-by-card writes of an unfinished round: the round in progress (the snapshot's key)."""


class StateAckOut(_Out):
    """The answer to a table-state write (``POST /api/tables/<table_id>/state``)."""

    status: Literal["recorded", "unchanged"]
    table: str
    version: int = Field(ge=0)
    state: Annotated[dict[str, Any], WithJsonSchema({"allOf": [{"$ref": f"{SNAPSHOT_REF}/properties/state"}]})]
    """The table's state now (the snapshot's ``state`` key)."""


class TableSummaryOut(_Out):
    """A table in the lobby list (the lobby WebSocket sends the same entries)."""

    id: str
    name: str
    variant: VariantRef
    shoe: int = Field(ge=1)
    """Current shoe number (1, with round 0, before the first shoe)."""
    round: int = Field(ge=0)
    """Highest round number recorded in the shoe, voids included."""
    last: Annotated[dict[str, Any] | None, _snapshot_part("last", nullable=True)]
    good_roads: Annotated[list[dict[str, Any]], WithJsonSchema({"type": "array", "items": {"$ref": f"{SNAPSHOT_REF}_good_road"}})]
    side_bets: Annotated[list[dict[str, Any]], WithJsonSchema({"type": "array", "items": {"$ref": f"{SNAPSHOT_REF}_side_bet"}})]
    version: int = Field(ge=0)
    big_road: Annotated[dict[str, Any] | None, _snapshot_part("big_road", nullable=True)]
    in_progress: Annotated[dict[str, Any] | None, _snapshot_key("in_progress")] = None
    """Only while a round is dealt card by card (as in the snapshot)."""
    state: Annotated[dict[str, Any] | None, _snapshot_key("state")] = None
    """Only once the feed set a table state or the table has configured limits (as in the snapshot)."""
    alarm: Annotated[dict[str, Any] | None, _snapshot_key("alarm")] = None
    """Only while a round of the live shoe is held for the supervisor (as in the snapshot)."""
    integrity: int | None = Field(default=None, ge=1)
    """Only for a table with integrity flags in the current gaming day: how many (``GET /api/integrity``)."""


class TableListOut(_Out):
    """``GET /api/tables``."""

    version: int = Field(ge=0)
    """Lobby version: the sum of the table versions."""
    tables: list[TableSummaryOut]


class ShoeSummaryOut(_Out):
    """A shoe in a table's shoe list (:meth:`roads.record.ShoeRecord.summary`)."""

    shoe: int = Field(ge=1)
    live: bool
    """The table's current shoe."""
    variant: VariantRef
    decks: int = Field(ge=1, le=16)
    rounds: int = Field(ge=0)
    """Rounds recorded, voided ones included."""
    counted: int = Field(ge=0)
    """Rounds that count in the roads."""
    voided: int = Field(ge=0)
    held: int | None = Field(default=None, ge=1)
    """Rounds held for the supervisor, not resolved yet (only when there are some)."""
    started_at: Time
    ended_at: Time | None
    """Time of the last round (of the start when none); ``null`` while live."""
    last_round_at: Time | None
    burn: Cards
    cut_card_position: int | None = Field(ge=0)
    """Cards from the back of the shoe; ``null`` when not known."""
    cut_card_round: int | None = Field(ge=1)
    """The round flagged ``cut_card`` (the shoe's last)."""
    version: int = Field(ge=0)
    """Table version of the shoe's last change."""


class ShoeListOut(_Out):
    """``GET /api/tables/<table_id>/shoes``: one page of shoes, newest first."""

    table: str
    name: str
    shoes: list[ShoeSummaryOut]
    next: str | None
    """URL of the next (older) page (``?before=<last shoe listed>&limit=<n>``); ``null`` on the last page."""


class CorrectionOut(_Out):
    """One correction of a round, oldest first."""

    at: Time
    reason: str | None
    previous: dict[str, Any]
    """The round as it was before (its feed fields)."""


class RoundRecordOut(_Out):
    """A recorded round for export (:meth:`roads.record.RoundRecord.export`)."""

    round: int = Field(ge=1)
    at: Time
    feed: dict[str, Any]
    """The feed body that records this round again (as it stands after corrections); for a round
    voided while in progress, the cards dealt so far."""
    result: ResultOut | None
    """``null`` for a round voided while in progress (``incomplete``)."""
    void: VoidOut | None
    corrections: list[CorrectionOut]
    incomplete: Literal[True] | None = None
    """Only for a round voided (or held) while in progress (no result)."""
    held: HeldOut | None = None
    """Only for a round held for the supervisor (resolved or not)."""


class RoundExportOut(_Out):
    """``GET /api/tables/<table_id>/shoes/<shoe>/rounds``."""

    table: str
    shoe: ShoeSummaryOut
    rounds: list[RoundRecordOut]


class FailingModelOut(_Out):
    """A page model whose last build failed (docs/api.md, "Health")."""

    topic: str = Field(pattern=r"^model:[0-9a-f]{16}$")
    """The page model's topic (its nchan channel)."""
    shows: str
    """What it shows: ``table <id>``, ``lobby`` or ``screen <name>``."""
    since: Time
    """When the first of the failed builds in a row was."""
    failed_builds: int = Field(ge=1)
    """Builds failed in a row."""


class PageModelsHealthOut(_Out):
    """The page models of this process."""

    topics: int = Field(ge=0)
    """Page-model topics kept (distinct page options)."""
    builds: int = Field(ge=0)
    """Documents built since the start."""
    failed_builds: int = Field(ge=0)
    """Builds that failed since the start."""
    failing: list[FailingModelOut]
    """The topics whose last build failed: their screens show their last good model, marked not updating."""


class NchanHealthOut(_Out):
    """The nchan publishers of this process (``ROADS_NCHAN_PUBLISH_URL``)."""

    posts: int = Field(ge=0)
    """POSTs nchan accepted."""
    failures: int = Field(ge=0)
    """Failed POSTs (each retried)."""
    skipped: int = Field(ge=0)
    """Versions never posted because a newer one came first."""


class HealthOut(_Out):
    """``GET /api/health``: the push path's health figures."""

    status: Literal["ok", "degraded"]
    """``degraded`` while a page model cannot be built."""
    page_models: PageModelsHealthOut
    nchan: NchanHealthOut | None
    """``null`` when this process publishes nothing to nchan."""


class FloorTableOut(_Out):
    """A table with a good road now (``GET /api/good-roads``)."""

    id: str
    name: str
    shoe: int = Field(ge=1)
    top: str
    """The pattern shown first: the highest priority of ``good_roads`` (docs/patterns.md "Priority")."""
    good_roads: Annotated[list[dict[str, Any]], WithJsonSchema({"type": "array", "minItems": 1,
                                                                "items": {"$ref": f"{SNAPSHOT_REF}_good_road"}})]
    """The table's good roads, highest priority first."""


class PatternOut(_Out):
    """A good-road pattern, built-in or the operator's (``ROADS_GOOD_ROAD_PATTERNS``)."""

    id: str
    label: str
    """English name (the catalogues' ``good_road.<id>`` in other languages)."""
    priority: int = Field(ge=1)
    """Lower is shown first."""


class GoodRoadsOut(_Out):
    """``GET /api/good-roads`` (the live topic ``good-roads`` sends the same document)."""

    version: int = Field(ge=0)
    """The lobby version when the floor's good roads last changed."""
    tables: list[FloorTableOut]
    """Every table with a good road now, in lobby order."""
    counts: dict[str, Annotated[int, Field(ge=0)]]
    """Tables showing each pattern (every pattern, priority order; a table may count under several)."""
    with_good_road: int = Field(ge=0)
    """How many tables have a good road now."""
    patterns: list[PatternOut]
    """Every pattern in priority order."""


MODELS: dict[str, type[BaseModel]] = {
    "GoodRoads": GoodRoadsOut,
    "Error": ErrorOut,
    "Ack": AckOut,
    "StateAck": StateAckOut,
    "TableList": TableListOut,
    "ShoeList": ShoeListOut,
    "RoundExport": RoundExportOut,
    "Health": HealthOut,
}
"""The answers by their name in the document (nested models get their own names there)."""
