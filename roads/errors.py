"""Named errors of a table's record: why a write was refused, with the field and a stable code.

Every error is a ``ValueError`` (:class:`TableError`) carrying ``field`` (the path of the
offending write field: ``"round"``, ``"banker[1]"``, ``"result.winner"``), ``code`` (a stable
machine-readable id, the ``code`` of the feed's error answers in ``docs/api.md`` section
"Errors") and ``extra`` (JSON-ready details, e.g. ``{"stored": ...}``: the round or shoe stored
under the number the write used). The message says what was wrong in words and quotes the bad
input. Nothing changes in a record when one is raised.

Four families, by what is wrong (the web layer maps each class to one HTTP status):

- :class:`RecordConflict`: the write contradicts the stored record (:class:`RoundConflict`,
  :class:`RoundGap`, :class:`ShoeEnded`, :class:`ShoeBackwards`, :class:`ShoeConflict`,
  :class:`AlreadyVoided`, :class:`RoundVoided`, :class:`RoundInProgress`,
  :class:`CardConflict`, :class:`CardGap`). A record that is behind (another process
  wrote first) may raise one of these or a :class:`NotInRecord` and accept the write once
  caught up.
- :class:`RuleViolation`: the write is against the rules of the game (:class:`TableauViolation`,
  :class:`ResultContradiction`, :class:`TooManyCopies`, :class:`BurnCount`,
  :class:`CutCardPosition`, :class:`UnknownVariant`, :class:`DealOrder`, :class:`BadTableState`, :class:`UnknownBet`).
- :class:`NotInRecord`: the write names a table, shoe or round the record does not have
  (:class:`UnknownTable`, :class:`UnknownShoe`, :class:`UnknownRound`).
- :class:`BadCardText`: a card that is not a card (normally refused before any rule is
  applied, when the write is parsed).

Standard library only.
"""

from __future__ import annotations

from typing import Any, Mapping


class TableError(ValueError):
    """A write refused by a table's record: ``message``, ``field``, ``code``, ``extra``.

    ``code`` is the class's stable id (each subclass sets its own); ``extra`` is a JSON-ready
    mapping of details (empty by default), kept as given.
    """

    code: str = "table_error"

    def __init__(self, message: str, *, field: str | None = None, extra: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.extra: dict[str, Any] = dict(extra or {})


# ----------------------------------------------------------------------------- families
class RecordConflict(TableError):
    """The write contradicts the stored record (a taken round number, a gap, a shoe going back)."""

    code = "conflict"


class RuleViolation(TableError):
    """The write is well formed but against the rules of the game (tableau, totals, copies, burn)."""

    code = "unprocessable"


class NotInRecord(TableError):
    """The write names a table, shoe or round that the record does not have."""

    code = "not_found"


# ----------------------------------------------------------------------------- conflicts
class RoundConflict(RecordConflict):
    """Another round is stored under the round number (``extra["stored"]``: that round's export).

    ``table``, ``shoe`` and ``round`` name the stored round, so a caller can say where to
    send a correction. Rule: the same round again is unchanged, a different one is refused
    (``docs/api.md`` section "Feed (writes)").
    """

    code = "round_conflict"

    def __init__(self, message: str, *, table: str, shoe: int, round: int,  # noqa: A002 (the field's word)
                 field: str | None = "round", extra: Mapping[str, Any] | None = None) -> None:
        super().__init__(message, field=field, extra=extra)
        self.table = table
        self.shoe = shoe
        self.round = round


class RoundGap(RecordConflict):
    """A round number that skips ahead, or a new shoe that does not start at round 1."""

    code = "round_gap"


class ShoeEnded(RecordConflict):
    """A round after the shoe's cut-card round, or a cut card flagged before later rounds
    (``docs/domain.md`` section 2: the cut card's round is the shoe's last)."""

    code = "shoe_ended"


class ShoeBackwards(RecordConflict):
    """A shoe number below the table's current shoe (for a round not stored there)."""

    code = "shoe_backwards"


class ShoeConflict(RecordConflict):
    """The shoe was already started with other burn cards, cut card or variant, or by its
    first round (``extra["stored"]``: the shoe's summary)."""

    code = "shoe_conflict"


class AlreadyVoided(RecordConflict):
    """The round is already voided with another reason (``extra["stored"]``: its export)."""

    code = "already_voided"


class RoundVoided(RecordConflict):
    """A correction of a voided round, or a card for it (``extra["stored"]``: its export)."""

    code = "round_voided"


class RoundHeld(RecordConflict):
    """A write about a round held for the supervisor (``docs/shoes.md`` section "Feed
    extensions"): more cards for it, or another hold (``extra["stored"]``: its export). A held
    round is resolved by a correction (PUT) or a void."""

    code = "round_held"


class RoundInProgress(RecordConflict):
    """A write that needs the round in progress finished (or voided) first: a new shoe, a
    later round, a correction of the round in progress (``extra["in_progress"]``)."""

    code = "round_in_progress"


class CardConflict(RecordConflict):
    """A card (or burn cards, or the cut-card flag) that differs from what is stored at its
    position of the round (``extra["stored"]``: ``{"position", "card"}`` or the stored field)."""

    code = "card_conflict"


class CardGap(RecordConflict):
    """A card position that skips ahead of the round's next card."""

    code = "card_gap"


# ----------------------------------------------------------------------------- rules
class TableauViolation(RuleViolation):
    """Cards that break the third-card rules (``roads.tableau``); ``field`` is the side."""

    code = "tableau"


class ResultContradiction(RuleViolation):
    """A result-level round that contradicts itself (``roads.outcome``); ``field`` is
    ``"result.<name>"``."""

    code = "result_contradiction"


class TooManyCopies(RuleViolation):
    """One more copy of a card than the shoe's decks hold (``docs/api.md`` section "Feed
    (writes)"); ``field`` names the card (``"banker[1]"``, ``"burn[0]"``)."""

    code = "too_many_copies"


class BurnCount(RuleViolation):
    """Burn cards that do not match the turned card (``roads.cards.Card.burn_count``,
    docs/domain.md section 2)."""

    code = "burn_count"


class CutCardPosition(RuleViolation):
    """A cut-card position outside the cards a shoe of the variant's decks can deal
    (:func:`roads.shoe.cut_card_range`, docs/domain.md section 2); ``field`` is
    ``"cut_card_position"``."""

    code = "cut_card_position"


class UnknownVariant(RuleViolation):
    """A variant id that is not a preset of ``roads.variants``."""

    code = "unknown_variant"


class DealOrder(RuleViolation):
    """A card the tableau does not deal now (``roads.tableau.next_card``): after the round is
    complete, past six cards, or burn cards after the round's first card."""

    code = "deal_order"


class BadTableState(RuleViolation):
    """A table state that contradicts itself (a betting close time outside betting, both a
    close time and seconds left, a minimum limit above the maximum)."""

    code = "bad_table_state"


class UnknownBet(RuleViolation):
    """A bet id (in table limits) that the table's variant does not offer."""

    code = "unknown_bet"


# ----------------------------------------------------------------------------- unknown
class UnknownTable(NotInRecord):
    """No table of that id."""

    code = "unknown_table"


class UnknownShoe(NotInRecord):
    """The table has no shoe of that number."""

    code = "unknown_shoe"


class UnknownRound(NotInRecord):
    """The shoe has no round of that number."""

    code = "unknown_round"


# ----------------------------------------------------------------------------- input
class BadCardText(TableError):
    """A card string that does not parse (``roads.cards.CardError``)."""

    code = "bad_card"


class BadTableId(TableError):
    """A table id that is not a slug (:data:`roads.ids.TABLE_ID_RULE`): no table can have it."""

    code = "bad_table_id"


# ----------------------------------------------------------------------------- the set of tables
class TableRefused(TableError):
    """The service keeps no new table of that id (a deployment's bound on its tables)."""

    code = "forbidden"


class TableNotAllowed(TableRefused):
    """Only the configured tables may be written (``ROADS_ONLY_CONFIGURED_TABLES``)."""

    code = "table_not_allowed"


class TooManyTables(TableRefused):
    """A new table would be one more than the service keeps (``ROADS_MAX_TABLES``)."""

    code = "too_many_tables"


def error_classes() -> list[type[TableError]]:
    """Every concrete error class of this module (the leaves under :class:`TableError`), in
    definition order: what a caller mapping errors to answers must cover."""
    out: list[type[TableError]] = []
    stack: list[type[TableError]] = [TableError]
    while stack:
        cls = stack.pop(0)
        subs = cls.__subclasses__()
        if not subs and cls is not TableError:
            out.append(cls)
        stack[:0] = subs
    return out
