"""The snapshot: the one JSON-ready dict of a shoe that every output is built from.

HTML, PNG, WebSocket and the JSON API all
render :func:`build_snapshot`'s dict. Its shape is documented by the JSON Schema
``roads/schema/snapshot.schema.json`` (:func:`schema` loads it).
"""

from __future__ import annotations

import json
import threading
from functools import lru_cache
from importlib import resources
from typing import Any

from roads.shoe_roads import ShoeRoads
from roads.side_bets import side_bet_states


class SnapshotError(ValueError):
    """A bad argument to :func:`build_snapshot`; ``field`` names it, the message quotes it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def build_snapshot(*, table: str, shoe: int, version: int, roads: ShoeRoads, variant: Any) -> dict:
    """The snapshot of one shoe of one table, JSON-ready (``json.dumps`` it as is).

    Arguments: ``table`` (table id, non-empty str), ``shoe`` (shoe number, int >= 1),
    ``version`` (snapshot version, int >= 0, chosen by the caller), ``roads`` (the shoe's
    :class:`ShoeRoads`), ``variant`` (the table's ``roads.variants.Variant``: ``id``,
    ``name`` and ``side_bets`` are read).

    Keys: ``table``, ``shoe``, ``round`` (the round number within the shoe of the
    newest round recorded, void or not, in the feed's numbering; 0 before the first round;
    the counted rounds are ``stats["rounds"]``), ``version``,
    ``variant`` ``{"id", "name"}``, ``bead_plate``, ``big_road``, ``big_eye_boy``,
    ``small_road``, ``cockroach_pig``, ``ask``, ``stats``, ``side_bets``, ``good_roads``,
    ``last`` (newest counted round or ``None``), ``last_round_number`` (highest round number
    recorded, void or not; 0 when none) and ``voided`` (voided round numbers).

    The top-level dict is new on every call (callers may add keys to it, e.g. ``"name"``,
    ``"live"``); everything under it is shared with the roads' caches and with other
    snapshots: never mutate it. Later changes to ``roads`` do not alter a snapshot already
    built, so it can be encoded or rendered without a lock; the call itself reads ``roads``
    and must hold the lock its writer holds (like :meth:`ShoeRoads.record`). Cost: a dict
    copy when nothing changed since the last call, else the changed pieces are rebuilt
    (``bench/bench_roads.py``).

    Raises :class:`SnapshotError` for a bad ``table``, ``shoe`` or ``version`` and
    ``TypeError`` when ``roads`` is not a :class:`ShoeRoads`.
    """
    if (type(table) is not str or not table or type(shoe) is not int or shoe < 1
            or type(version) is not int or version < 0 or not isinstance(roads, ShoeRoads)):
        _check_arguments(table, shoe, version, roads)
    snap = roads.snapshot_template().copy()
    entry = _variants.get(id(variant))
    if entry is None or entry[0] is not variant:
        entry = _variant_entry(variant)
    snap["table"] = table
    snap["shoe"] = shoe
    snap["version"] = version
    snap["variant"] = entry[1]
    n = snap["stats"]["rounds"]  # side-bet windows count counted (non-void) rounds
    states = entry[2].get(n)
    if states is None:
        states = side_bet_states(variant, n)
        if len(entry[2]) < 512:
            entry[2][n] = states
    snap["side_bets"] = states
    return snap


# id(variant) -> (variant, {"id", "name"}, {rounds: side-bet states}); holding the variant
# keeps its id() from being reused. Shared, read-only values.
_variants: dict[int, tuple[Any, dict, dict[int, list[dict]]]] = {}
_variants_lock = threading.Lock()


def _variant_entry(variant: Any) -> tuple[Any, dict, dict[int, list[dict]]]:
    """Cache entry of a variant: its ``{"id", "name"}`` dict and its side-bet states by round
    count (filled from :func:`roads.side_bets.side_bet_states`, which caches them too)."""

    per_round: dict[int, list[dict]] = {}
    entry = (variant, {"id": variant.id, "name": variant.name}, per_round)
    with _variants_lock:
        if len(_variants) > 64:
            _variants.clear()
        _variants[id(variant)] = entry
    return entry


def _check_arguments(table: Any, shoe: Any, version: Any, roads: Any) -> None:
    """The slow path of :func:`build_snapshot`'s checks: raise the precise error, or accept
    subclasses (a ``str`` or ``int`` subclass other than ``bool``)."""
    if not isinstance(table, str) or not table:
        raise SnapshotError("table", f"table must be a non-empty string, got {table!r}")
    if isinstance(shoe, bool) or not isinstance(shoe, int) or shoe < 1:
        raise SnapshotError("shoe", f"shoe must be an integer >= 1, got {shoe!r}")
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise SnapshotError("version", f"version must be an integer >= 0, got {version!r}")
    if not isinstance(roads, ShoeRoads):
        raise TypeError(f"roads must be a ShoeRoads, got {type(roads).__name__}")


@lru_cache(maxsize=1)
def _schema_text() -> str:
    return resources.files("roads").joinpath("schema/snapshot.schema.json").read_text(encoding="utf-8")


def schema() -> dict:
    """The snapshot's JSON Schema (draft 2020-12) as a new dict."""
    return json.loads(_schema_text())
