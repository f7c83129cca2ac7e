"""The table's state as the feed sets it (roads.table_state through roads.table.Table): state,
betting close time, dealer, limits. Expected values worked by hand from the writes' clocks."""

from __future__ import annotations


import pytest

from roads import errors
from roads.events import Unchanged
from roads.table import Table
from roads.table_state import KEEP, SetState, TableStatus, check_limits, next_status
from roads.variants import get_variant
from support.table_writes import Clock, write


def test_state_betting_countdown_dealer_and_repeats():
    t = Table("T1")
    ev = write(t, SetState(state="betting", seconds_left=15, dealer="Anna"), Clock(100.0))
    assert (ev.kind, ev.shoe, ev.round, ev.data) == ("state", 0, None, {"state": "betting", "since": 100.0,
                                                                       "closes_at": 115.0, "dealer": "Anna",
                                                                       "limits": None})
    assert t.decide(SetState(state="betting", seconds_left=14.2), Clock(100.5)) == Unchanged(0)  # 114.7: same
    ev = write(t, SetState(seconds_left=20), Clock(101.0))
    assert (ev.data["closes_at"], ev.data["since"]) == (121.0, 100.0)  # still betting since 100
    ev = write(t, SetState(state="dealing"), Clock(125.0))
    assert (ev.data["state"], ev.data["since"], ev.data["closes_at"], ev.data["dealer"]) == ("dealing", 125.0, None, "Anna")
    with pytest.raises(errors.BadTableState) as e:
        t.decide(SetState(closes_at=200.0), Clock())
    assert e.value.field == "closes_at"
    assert t.decide(SetState(dealer="Anna"), Clock()) == Unchanged(0)
    ev = write(t, SetState(dealer=None), Clock())
    assert ev.data["dealer"] is None


def test_state_write_checks_itself():
    for kwargs, field in (({"state": "napping"}, "state"), ({"closes_at": 1.0, "seconds_left": 2}, "seconds_left"),
                          ({"seconds_left": -1}, "seconds_left"), ({}, None)):
        with pytest.raises(errors.BadTableState) as e:
            SetState(**kwargs)
        assert e.value.field == field
    assert SetState(state=None).state is None and SetState(dealer="x").state is KEEP


def test_limits_are_checked_against_the_variant_and_override_the_configured_ones():
    variant = get_variant("seed000_live")
    assert check_limits({"max": 500, "min": 5, "bets": {"tie": {"max": 50, "min": 1}, "banker": {"min": 5, "max": 400}}},
                        variant) == {"min": 5, "max": 500, "bets": {"banker": {"min": 5, "max": 400},
                                                                     "tie": {"min": 1, "max": 50}}}
    for limits, cls, field in (({"min": 5}, errors.BadTableState, "limits.max"),
                               ({"min": -1, "max": 5}, errors.BadTableState, "limits.min"),
                               ({"min": True, "max": 5}, errors.BadTableState, "limits.min"),
                               ({"min": 1, "max": 5, "currency": "THB"}, errors.BadTableState, "limits.currency"),
                               ({"min": 1, "max": 5, "bets": {"super_six": {"min": 1, "max": 2}}}, errors.UnknownBet,
                                "limits.bets.super_six")):
        with pytest.raises(cls) as e:
            check_limits(limits, variant)
        assert e.value.field == field
    t = Table("T1", limits={"min": 100, "max": 10_000})
    assert t.status.to_json(t.limits)["limits"] == {"min": 100, "max": 10_000}
    write(t, SetState(limits={"min": 50, "max": 5_000}))
    assert t.status.to_json(t.limits)["limits"] == {"min": 50, "max": 5_000}
    write(t, SetState(limits=None))
    assert t.status.to_json(t.limits)["limits"] == {"min": 100, "max": 10_000}


def test_next_status_asks_for_the_variant_only_when_limits_are_set():
    asked = []

    def variant_of():
        asked.append(1)
        return get_variant("seed001")

    cur = TableStatus("betting", 100.0, 115.0, "Anna", None)
    assert next_status(cur, SetState(dealer="Bo"), 130.0, variant_of) == TableStatus("betting", 100.0, 115.0, "Bo", None)
    assert asked == []
    after = next_status(cur, SetState(limits={"min": 10, "max": 20}), 130.0, variant_of)
    assert (after.limits, asked) == ({"min": 10, "max": 20}, [1])
    # a table configured with a variant no preset has still takes a state without limits
    t = Table("T1", "no_such_variant")
    assert write(t, SetState(state="closed"), Clock(50.0)).data["state"] == "closed"


def test_a_state_events_payload_reads_back_as_the_same_state_with_limits_in_their_key_order():
    status = TableStatus("result", 7.5, None, "Anna", {"min": 1, "max": 9, "bets": {"tie": {"min": 1, "max": 2},
                                                                                 "banker": {"min": 3, "max": 4}}})
    stored = {"dealer": "Anna", "limits": {"bets": {"tie": {"max": 2, "min": 1}, "banker": {"max": 4, "min": 3}},
                                           "max": 9, "min": 1}, "since": 7.5, "state": "result", "closes_at": None}
    back = TableStatus.from_data(stored)
    assert back == status
    assert list(back.limits) == ["min", "max", "bets"] and list(back.limits["bets"]) == ["banker", "tie"]
