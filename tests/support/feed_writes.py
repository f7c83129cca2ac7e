"""Simulated tables' writes as feed requests (tests of the service over each store)."""

from __future__ import annotations

import random

from roads.dealing import DealCards
from roads.table import CorrectRound, RecordRound, StartShoe, Table, VoidRound
from roads.table_state import KEEP, SetState
from support.histories import table_writes


def request_of(table: str, w) -> tuple[str, str, dict]:
    """The feed request ``(method, path, body)`` of a write."""
    base = f"/api/tables/{table}"
    if isinstance(w, RecordRound):
        return "POST", base + "/rounds", {"shoe": w.shoe, "round": w.round, **w.data}
    if isinstance(w, StartShoe):
        body = {"shoe": w.shoe, "burn": list(w.burn)}
        if w.cut_card_position is not None:
            body["cut_card_position"] = w.cut_card_position
        if w.variant is not None:
            body["variant"] = w.variant
        return "POST", base + "/shoes", body
    if isinstance(w, VoidRound):
        return "POST", f"{base}/shoes/{w.shoe}/rounds/{w.round}/void", {"reason": w.reason}
    if isinstance(w, CorrectRound):
        return "PUT", f"{base}/shoes/{w.shoe}/rounds/{w.round}", {**w.data, **({"reason": w.reason} if w.reason else {})}
    if isinstance(w, DealCards):
        body = {"position": w.position, "cards": list(w.cards)}
        if w.burn:
            body["burn"] = list(w.burn)
        if w.cut_card:
            body["cut_card"] = True
        return "POST", f"{base}/shoes/{w.shoe}/rounds/{w.round}/cards", body
    assert isinstance(w, SetState)
    body = {k: getattr(w, k) for k in ("state", "closes_at", "seconds_left", "dealer", "limits")
            if getattr(w, k) is not KEEP and getattr(w, k) is not None}
    return "POST", base + "/state", body


def writes(tables: dict[str, int], shoes: int) -> list[tuple[str, object]]:
    """``(table, write)`` of simulated tables (voids and corrections of past shoes, misdeals,
    card-by-card rounds with states), interleaved."""
    per = {}
    for table, seed in tables.items():
        rng = random.Random(seed)
        ref = Table(table)
        out = []
        for w in table_writes(rng, ref, shoes=shoes):
            try:
                ev = ref.decide(w, lambda: 1.0)
            except Exception:  # noqa: BLE001 - refused writes are sent too (the service refuses them alike)
                out.append(w)
                continue
            if not hasattr(ev, "seq"):
                out.append(w)
                continue
            ref.apply(ev)
            out.append(w)
        per[table] = out
    mixed = []
    while any(per.values()):
        for table in sorted(per):
            if per[table]:
                mixed.append((table, per[table].pop(0)))
    return mixed
