"""Rounds as export rows, CSV and JSON Lines, one row per recorded round in deal order (voided
rounds included and marked), streamed line by line (docs/api.md "Exports"; rules: docs/domain.md
sections 1-3).

Columns (:data:`COLUMNS`; CSV writes lists space-separated, booleans ``true``/``false``, unknown
as an empty cell; JSON Lines writes lists, booleans and ``null``):

``table``, ``shoe``, ``round``; ``at`` (ISO 8601 UTC, when it was recorded); ``day`` (the venue's
gaming day of ``at``); ``dealer``; ``player``, ``banker`` (cards in deal order when dealt with
cards, else empty), ``burn`` (cards burned before the round); ``winner`` (``banker`` / ``player``
/ ``tie``; empty for a round voided while dealt); ``player_total``, ``banker_total``;
``natural``, ``player_natural``, ``banker_natural``; ``player_pair``, ``banker_pair`` (unknown for
a result-level round that did not say); ``voided``, ``void_reason``, ``voided_at``; ``held`` (the
round waits for the supervisor: its cards so far, no winner), ``held_reason`` (why it was held,
kept once the supervisor recorded it); ``corrections`` (how many times the round was corrected: the row is the round as it stands),
``corrected_at`` (the last correction's time).

Standard library only.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any, Callable, Iterable, Iterator

from roads.outcome import Winner
from roads.record import RoundRecord, iso_time

COLUMNS = ("table", "shoe", "round", "at", "day", "dealer", "player", "banker", "burn", "winner", "player_total",
           "banker_total", "natural", "player_natural", "banker_natural", "player_pair", "banker_pair", "voided",
           "void_reason", "voided_at", "held", "held_reason", "corrections", "corrected_at")
"""Every column, in order (the module docstring says what each holds)."""

_WINNERS = {Winner.BANKER: "banker", Winner.PLAYER: "player", Winner.TIE: "tie"}


def round_row(table: str, shoe: int, r: RoundRecord, day: Callable[[float], str] | None = None) -> dict[str, Any]:
    """The export row of round ``r`` of ``shoe`` (JSON-ready; keys :data:`COLUMNS`); ``day``
    maps a Unix time to its gaming day (``None``: the column is ``None``)."""
    res = r.result
    data = r.data
    cards = "result" not in data
    return {
        "table": table, "shoe": shoe, "round": r.number, "at": iso_time(r.at), "day": day(r.at) if day else None,
        "dealer": r.dealer,
        "player": list(data.get("player") or ()) if cards else None,
        "banker": list(data.get("banker") or ()) if cards else None,
        "burn": list(data.get("burn") or ()),
        "winner": None if res is None else _WINNERS[res.winner],
        "player_total": None if res is None else res.player_total,
        "banker_total": None if res is None else res.banker_total,
        "natural": None if res is None else res.natural,
        "player_natural": None if res is None else res.side_natural(Winner.PLAYER),
        "banker_natural": None if res is None else res.side_natural(Winner.BANKER),
        "player_pair": None if res is None else res.player_pair,
        "banker_pair": None if res is None else res.banker_pair,
        "voided": r.void is not None,
        "void_reason": None if r.void is None else r.void["reason"],
        "voided_at": None if r.void is None else iso_time(r.void["at"]),
        "held": r.on_hold,
        "held_reason": None if r.held is None else r.held["reason"],
        "corrections": len(r.corrections),
        "corrected_at": iso_time(r.corrections[-1]["at"]) if r.corrections else None,
    }


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, list):
        return " ".join(value)
    return str(value)


def csv_lines(rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    """The header line, then one CSV line per row (RFC 4180 quoting, ``\\r\\n`` line ends)."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(COLUMNS)
    yield buf.getvalue()
    for row in rows:
        buf.seek(0)
        buf.truncate()
        w.writerow([_cell(row[c]) for c in COLUMNS])
        yield buf.getvalue()


def jsonl_lines(rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    """One JSON object per line (keys in :data:`COLUMNS` order, UTF-8 text, ``\\n`` ends)."""
    for row in rows:
        yield json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n"


FORMATS: dict[str, tuple[Callable[[Iterable[dict[str, Any]]], Iterator[str]], str]] = {
    "csv": (csv_lines, "text/csv; charset=utf-8"),
    "jsonl": (jsonl_lines, "application/x-ndjson; charset=utf-8"),
}
"""Export format -> (line writer, media type)."""
