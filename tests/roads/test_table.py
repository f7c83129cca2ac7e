"""The table record's rules (roads.table): every decision, with no Flask and no store.

Expected values are worked by hand from the rules in docs/api.md ("Feed (writes)") and
docs/domain.md sections 1-2: card values (A=1, 2-9 face, T/J/Q/K=0), the tableau, the burn
(the turned card's value, 10 for T/J/Q/K), 8 copies of a card in an 8-deck shoe.
"""

from __future__ import annotations
from support.all_shoes import all_shoes

import itertools
import re
from pathlib import Path

import pytest

from roads import errors
from roads.events import Event
from roads.record import ordered_round
from roads.table import CorrectRound, RecordRound, StartShoe, Table, Unchanged, VoidRound

# player 4S KD 9H = 4+0+9 = 13 -> 3 (drew on 4); banker 7C JD = 7, stands after a third card 9.
R1 = {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}
# player 9S KH = 9 natural; banker 5D 2S = 7: both stand, player wins 9 to 7.
R2 = {"player": ["9S", "KH"], "banker": ["5D", "2S"]}
# player 2C 4D = 6 stands; banker 3H 3S = 6 stands: tie 6-6.
R3 = {"player": ["2C", "4D"], "banker": ["3H", "3S"]}
# result-level: banker 7 beats player 3, no pairs, no natural.
RES = {"result": {"winner": "B", "player_total": 3, "banker_total": 7,
                  "player_pair": False, "banker_pair": False, "natural": False}}


class Clock:
    """1000.0, 1001.0, 1002.0, ... one second per reading."""

    def __init__(self) -> None:
        self.ticks = itertools.count()

    def __call__(self) -> float:
        return 1000.0 + next(self.ticks)


def write(table: Table, w, clock=None):
    """Decide ``w`` and apply the event; return what decide answered."""
    outcome = table.decide(w, clock or Clock())
    if isinstance(outcome, Event):
        table.apply(outcome)
    return outcome


def fed(*rounds, shoe=1, table=None):
    """A table with ``rounds`` recorded as rounds 1, 2, ... of ``shoe``."""
    t = table or Table("T1")
    for n, data in enumerate(rounds, 1):
        assert isinstance(write(t, RecordRound(shoe, n, data)), Event)
    return t


def natural_with(card: str, n: int = 0) -> dict:
    """player ``card`` and an 8 (ace + 8 = 9, a natural), banker a king and a queen (0): both
    stand. ``n`` picks the suit of the 8, K and Q (cycling S, H, D, C), so only ``card`` repeats."""
    suit = "SHDC"[n % 4]
    return {"player": [card, "8" + suit], "banker": ["K" + suit, "Q" + suit]}


def aces(count: int, card: str = "AS") -> list[dict]:
    """``count`` natural rounds that each take one ``card`` out of the shoe."""
    return [natural_with(card, n) for n in range(count)]


# ----------------------------------------------------------------------------- rounds
def test_first_round_opens_shoe_with_the_default_variant():
    t = Table("T1")
    ev = t.decide(RecordRound(1, 1, R1), Clock())
    assert ev == Event("T1", 1, "round", 1, 1, {"round": R1, "opens_shoe": {"variant": "seed000_live", "decks": 8}},
                       1000.0)
    assert t.seq == 0 and t.current is None  # deciding changes nothing
    t.apply(ev)
    assert t.seq == 1 and t.current.number == 1 and not t.current.explicit
    r = t.current.round(1)
    assert (r.result.winner.value, r.result.player_total, r.result.banker_total) == ("B", 3, 7)


def test_configured_variant_opens_the_shoe():
    t = Table("T1", variant_id="seed001")
    ev = t.decide(RecordRound(1, 1, R1), Clock())
    assert ev.data["opens_shoe"] == {"variant": "seed001", "decks": 8}


def test_same_round_again_is_unchanged_in_any_key_order():
    t = fed(R1, R2)
    assert t.decide(RecordRound(1, 2, R2), Clock()) == Unchanged(1, 2)
    assert t.decide(RecordRound(1, 1, {"banker": ["7C", "JD"], "player": ["4S", "KD", "9H"]}), Clock()) == Unchanged(1, 1)
    assert t.seq == 2


def test_other_round_under_a_taken_number_is_a_conflict_with_the_stored_round():
    t = fed(R1)
    with pytest.raises(errors.RoundConflict) as e:
        t.decide(RecordRound(1, 1, R2), Clock())
    err = e.value
    assert (err.code, err.field, err.table, err.shoe, err.round) == ("round_conflict", "round", "T1", 1, 1)
    assert err.extra["stored"]["feed"] == {"shoe": 1, "round": 1, **R1}
    assert "player 4S KD 9H, banker 7C JD" in err.message and "player 9S KH, banker 5D 2S" in err.message
    assert isinstance(err, ValueError) and isinstance(err, errors.RecordConflict)


def test_round_numbers_are_consecutive():
    t = fed(R1)
    with pytest.raises(errors.RoundGap) as e:
        t.decide(RecordRound(1, 3, R2), Clock())
    assert (e.value.code, e.value.field) == ("round_gap", "round")
    assert "expects round 2 next, got 3" in e.value.message


def test_a_new_shoe_starts_at_round_1():
    with pytest.raises(errors.RoundGap, match="as the table's first shoe"):
        Table("T1").decide(RecordRound(1, 2, R1), Clock())
    t = fed(R1)
    with pytest.raises(errors.RoundGap, match="round 2 would start shoe 2 after shoe 1; a shoe starts at round 1"):
        t.decide(RecordRound(2, 2, R2), Clock())


def test_a_higher_shoe_number_starts_that_shoe_and_numbers_may_skip():
    t = fed(R1)
    write(t, RecordRound(20240615, 1, R2))
    assert t.current.number == 20240615 and sorted(all_shoes(t)) == [1, 20240615]
    assert all_shoes(t)[1].roads is None and t.current.roads is not None  # only the live shoe keeps roads


def test_shoes_never_go_back_but_a_past_shoes_stored_round_is_still_unchanged():
    t = fed(R1, R2)
    write(t, RecordRound(2, 1, R3))
    assert t.decide(RecordRound(1, 2, R2), Clock()) == Unchanged(1, 2)
    with pytest.raises(errors.RoundConflict):
        t.decide(RecordRound(1, 2, R3), Clock())
    with pytest.raises(errors.ShoeBackwards) as e:
        t.decide(RecordRound(1, 3, R3), Clock())
    assert (e.value.code, e.value.field) == ("shoe_backwards", "shoe")
    assert e.value.message == "shoe 1 is before table 'T1''s current shoe 2; shoe numbers never go back"
    with pytest.raises(errors.ShoeBackwards):
        t.decide(RecordRound(0, 1, R3), Clock())  # a shoe that never existed below the current one


def test_the_cut_card_round_is_the_shoes_last():
    t = fed(R1, dict(R2, cut_card=True))
    with pytest.raises(errors.ShoeEnded) as e:
        t.decide(RecordRound(1, 3, R3), Clock())
    assert (e.value.code, e.value.field) == ("shoe_ended", "round")
    assert "shoe 1 ended with round 2 (the cut card came out); round 3 belongs to a new shoe" == e.value.message
    assert isinstance(write(t, RecordRound(2, 1, R3)), Event)  # the next shoe is fine


def test_a_voided_cut_card_round_no_longer_ends_the_shoe():
    t = fed(R1, dict(R2, cut_card=True))
    write(t, VoidRound(1, 2, "misdeal"))
    assert t.current.cut_card_round() is None
    assert isinstance(t.decide(RecordRound(1, 3, R3), Clock()), Event)


# ----------------------------------------------------------------------------- copies
def test_the_ninth_copy_of_a_card_in_an_eight_deck_shoe_is_refused():
    t = fed(*aces(8))
    with pytest.raises(errors.TooManyCopies) as e:
        t.decide(RecordRound(1, 9, natural_with("AS")), Clock())
    assert (e.value.code, e.value.field) == ("too_many_copies", "player[0]")
    assert e.value.message == "AS would be copy 9 of AS in shoe 1, but a 8-deck shoe holds 8"
    assert isinstance(t.decide(RecordRound(1, 9, natural_with("AH")), Clock()), Event)


def test_copies_within_one_round_and_the_field_of_the_overflowing_card():
    t = fed(*aces(6))
    with pytest.raises(errors.TooManyCopies) as e:
        t.decide(RecordRound(1, 7, dict(natural_with("AS"), burn=["AS", "AS"])), Clock())
    # burn[0] is copy 7, burn[1] copy 8, player[0] copy 9
    assert e.value.field == "player[0]"


def test_voided_rounds_keep_their_cards_out_of_the_shoe():
    t = fed(*aces(8))
    write(t, VoidRound(1, 3, "misdeal"))
    with pytest.raises(errors.TooManyCopies):
        t.decide(RecordRound(1, 9, natural_with("AS")), Clock())


def test_a_correction_gives_the_rounds_previous_cards_back_first():
    t = fed(*aces(8))
    # round 8 had one AS; its correction with one AS is copy 8 again, not 9
    assert isinstance(write(t, CorrectRound(1, 8, natural_with("AS") | {"banker": ["KH", "QH"]})), Event)
    assert t.current.copies[next(c for c in t.current.copies if str(c) == "AS")] == 8
    with pytest.raises(errors.TooManyCopies):
        t.decide(CorrectRound(1, 8, dict(natural_with("AS"), burn=["AS"])), Clock())


def test_burn_cards_of_a_new_shoe_count_as_copies():
    t = Table("T1")
    # turned card AS burns 1 more: 2 cards, both AS
    write(t, StartShoe(1, ("AS", "AS")))
    fed(*aces(6), table=t)
    with pytest.raises(errors.TooManyCopies):
        t.decide(RecordRound(1, 7, natural_with("AS")), Clock())


# ----------------------------------------------------------------------------- shoes
def test_burn_holds_the_turned_card_and_as_many_more_as_it_says():
    t = Table("T1")
    ev = t.decide(StartShoe(4, ("5H", "KD", "2C", "9S", "4D", "QH"), 30), Clock())  # 5 burns 5 more
    assert ev == Event("T1", 1, "shoe", 4, None, {"burn": ["5H", "KD", "2C", "9S", "4D", "QH"],
                                                  "cut_card_position": 30, "variant": "seed000_live",
                                                  "decks": 8}, 1000.0)
    with pytest.raises(errors.BurnCount) as e:
        t.decide(StartShoe(4, ("5H", "KD")), Clock())
    assert (e.value.code, e.value.field) == ("burn_count", "burn")
    assert e.value.message == "turned card 5H burns 5 more card(s), so burn holds 6 cards; got 2"
    with pytest.raises(errors.BurnCount, match="turned card KD burns 10 more card"):
        t.decide(StartShoe(4, ("KD",) * 10), Clock())  # a king burns 10: 11 cards
    assert isinstance(t.decide(StartShoe(4, ("KD",) * 8 + ("QD",) * 3), Clock()), Event)
    assert isinstance(t.decide(StartShoe(4, ()), Clock()), Event)  # burn not known


@pytest.mark.parametrize("position", [0, 3, 5, 400, 500, 832])
def test_a_cut_card_outside_an_8_deck_shoe_is_refused(position):
    # seed000_live: 8 decks = 416 cards; 6 must lie behind the cut card, 11 (burn) + 6 (a round)
    # in front of it: 6 to 399 cards from the back (seed 001, roads.shoe.cut_card_range).
    t = Table("T1")
    with pytest.raises(errors.CutCardPosition) as e:
        t.decide(StartShoe(1, (), position), Clock())
    assert (e.value.code, e.value.field) == ("cut_card_position", "cut_card_position")
    assert e.value.message == ("cut_card_position must be an integer 6-399 (cards from the back of a shoe "
                               f"of 8 decks), got {position}")
    for fine in (6, 52, 399):
        assert t.decide(StartShoe(1, (), fine), Clock()).data["cut_card_position"] == fine


def test_burn_count_comes_from_the_card():
    from roads.cards import Card

    for turned, more in (("AS", 1), ("9H", 9), ("TD", 10), ("JC", 10), ("QS", 10), ("KH", 10)):
        assert Card.parse(turned).burn_count == more
        burn = (turned,) + ("2C", "2D", "2H", "2S", "3C", "3D", "3H", "3S", "4C", "4D")[:more]
        assert isinstance(Table("T1").decide(StartShoe(1, burn), Clock()), Event)


def test_shoe_start_again_is_unchanged_other_content_a_conflict():
    t = Table("T1")
    write(t, StartShoe(1, ("AS", "2C"), 20))
    assert t.decide(StartShoe(1, ("AS", "2C"), 20), Clock()) == Unchanged(1)
    assert t.decide(StartShoe(1, ("AS", "2C"), 20, "seed000_live"), Clock()) == Unchanged(1)
    for other in (StartShoe(1, ("AS", "3C"), 20), StartShoe(1, ("AS", "2C"), 21),
                  StartShoe(1, ("AS", "2C"), 20, "seed001")):
        with pytest.raises(errors.ShoeConflict) as e:
            t.decide(other, Clock())
        assert e.value.field == "shoe" and "explicitly with other burn cards" in e.value.message
        assert e.value.extra["stored"]["burn"] == ["AS", "2C"] and e.value.extra["stored"]["live"] is True


def test_a_shoe_opened_by_its_first_round_cannot_be_started_again():
    t = fed(R1)
    with pytest.raises(errors.ShoeConflict, match="already started by its first round"):
        t.decide(StartShoe(1), Clock())


def test_a_shoe_start_below_the_current_shoe_goes_backwards():
    t = fed(R1, shoe=3)
    with pytest.raises(errors.ShoeBackwards):
        t.decide(StartShoe(2), Clock())


def test_unknown_variant_names_the_field():
    with pytest.raises(errors.UnknownVariant) as e:
        Table("T1").decide(StartShoe(1, variant="no-such"), Clock())
    assert (e.value.code, e.value.field) == ("unknown_variant", "variant")
    assert "'no-such'" in e.value.message


def test_an_explicit_shoe_takes_its_variant_and_rounds_use_it():
    t = Table("T1")
    write(t, StartShoe(1, variant="seed002"))
    write(t, RecordRound(1, 1, R1))
    assert t.current.variant.id == "seed002" and t.current.explicit


# ----------------------------------------------------------------------------- void and correct
def test_void_rules():
    t = fed(R1, R2)
    with pytest.raises(errors.UnknownShoe) as e:
        t.decide(VoidRound(2, 1, "misdeal"), Clock())
    assert (e.value.code, e.value.field, e.value.message) == ("unknown_shoe", "shoe", "table 'T1' has no shoe 2")
    with pytest.raises(errors.UnknownRound) as e:
        t.decide(VoidRound(1, 3, "misdeal"), Clock())
    assert (e.value.code, e.value.field) == ("unknown_round", "round")
    ev = write(t, VoidRound(1, 1, "misdeal"))
    assert (ev.kind, ev.shoe, ev.round, ev.data) == ("void", 1, 1, {"reason": "misdeal"})
    assert t.decide(VoidRound(1, 1, "misdeal"), Clock()) == Unchanged(1, 1)
    with pytest.raises(errors.AlreadyVoided) as e:
        t.decide(VoidRound(1, 1, "card exposed"), Clock())
    assert (e.value.code, e.value.field) == ("already_voided", "reason")
    assert e.value.extra["stored"]["void"]["reason"] == "misdeal"
    # the round keeps its number: the next round is 3; its roads count one round only
    assert t.current.roads.rounds == 1 and t.current.roads.voided == (1,)


def test_a_voided_round_is_not_corrected():
    t = fed(R1)
    write(t, VoidRound(1, 1, "misdeal"))
    with pytest.raises(errors.RoundVoided) as e:
        t.decide(CorrectRound(1, 1, R2), Clock())
    assert (e.value.code, e.value.field) == ("round_voided", "round")
    assert e.value.message == "shoe 1 round 1 is voided ('misdeal'); a voided round is not corrected"


def test_correction_keeps_history_and_both_contents_are_unchanged_afterwards():
    t = fed(R1, R2)
    ev = write(t, CorrectRound(1, 1, R3, "misread"), Clock())
    assert (ev.kind, ev.data) == ("correct", {"round": R3, "reason": "misread"})
    r = t.current.round(1)
    assert r.data == R3 and r.original == R1 and r.result.winner.value == "T"
    assert r.corrections == [{"at": 1000.0, "reason": "misread", "previous": R1}]
    assert t.decide(CorrectRound(1, 1, R3), Clock()) == Unchanged(1, 1)  # same content again
    assert t.decide(RecordRound(1, 1, R1), Clock()) == Unchanged(1, 1)  # a retry of the original post
    assert t.decide(RecordRound(1, 1, R3), Clock()) == Unchanged(1, 1)
    with pytest.raises(errors.RoundConflict):
        t.decide(RecordRound(1, 1, R2), Clock())


def test_a_correction_cannot_put_the_cut_card_before_later_rounds():
    t = fed(R1, R2)
    with pytest.raises(errors.ShoeEnded) as e:
        t.decide(CorrectRound(1, 1, dict(R1, cut_card=True)), Clock())
    assert (e.value.field, e.value.message) == ("cut_card", "round 1 cannot carry the cut card: shoe 1 has rounds up to 2")
    write(t, CorrectRound(1, 2, dict(R2, cut_card=True)))  # the last round may
    assert t.current.cut_card_round() == 2


def test_correct_unknown_round():
    with pytest.raises(errors.UnknownShoe):
        Table("T1").decide(CorrectRound(1, 1, R1), Clock())


# ----------------------------------------------------------------------------- a round on its own
def test_rounds_breaking_the_tableau_are_refused_naming_the_side():
    with pytest.raises(errors.TableauViolation) as e:
        RecordRound(1, 1, {"player": ["4S", "KD"], "banker": ["7C", "JD"]})  # player 4 must draw
    assert (e.value.code, e.value.field) == ("tableau", "player")
    assert e.value.message.endswith("(rule player_draws_0_5)")
    with pytest.raises(errors.TableauViolation) as e:
        RecordRound(1, 1, {"player": ["2C", "4D"], "banker": ["3H", "2S"]})  # banker 5 after player stood: draws
    assert e.value.field == "banker"
    t = Table("T1")
    write(t, RecordRound(1, 1, R1))
    with pytest.raises(errors.TableauViolation) as e:  # a third card after a natural: the side that drew
        t.decide(CorrectRound(1, 1, {"player": ["9S", "KH"], "banker": ["2C", "3D", "4H"]}), Clock())
    assert (e.value.field, e.value.message.endswith("(rule natural)")) == ("banker", True)


def test_a_correction_names_an_existing_round_before_its_cards_are_judged():
    # player 4S KD = 4 must draw (docs/domain.md section 1): a tableau violation, but only once
    # the round exists; an unknown shoe or round answers first.
    bad = {"player": ["4S", "KD"], "banker": ["7C", "JD"]}
    t = Table("T1")
    write(t, RecordRound(1, 1, R1))
    with pytest.raises(errors.UnknownRound) as e:
        t.decide(CorrectRound(1, 7, bad), Clock())
    assert (e.value.code, e.value.field) == ("unknown_round", "round")
    with pytest.raises(errors.UnknownShoe):
        t.decide(CorrectRound(2, 1, bad), Clock())
    with pytest.raises(errors.TableauViolation):
        t.decide(CorrectRound(1, 1, bad), Clock())


def test_result_level_rounds_that_contradict_themselves_are_refused():
    with pytest.raises(errors.ResultContradiction) as e:
        RecordRound(1, 1, {"result": dict(RES["result"], winner="P")})
    assert (e.value.code, e.value.field) == ("result_contradiction", "result.winner")
    with pytest.raises(errors.ResultContradiction) as e:
        RecordRound(1, 1, {"result": dict(RES["result"], natural=True)})
    assert e.value.field == "result.natural"
    assert RecordRound(1, 1, RES).data == RES


def test_bad_card_text_is_refused():
    with pytest.raises(errors.BadCardText) as e:
        StartShoe(1, ("AS", "1X"))
    assert (e.value.code, e.value.field) == ("bad_card", "burn[1]")
    with pytest.raises(errors.BadCardText):
        RecordRound(1, 1, {"player": ["AS", "ZZ"], "banker": ["KS", "QS"]})


def test_round_keys_take_one_order():
    data = {"cut_card": True, "burn": ["QS"], "result": {"natural": False, "winner": "B", "banker_pair": False,
                                                         "player_pair": False, "banker_total": 7, "player_total": 3}}
    assert list(ordered_round(data)) == ["result", "burn", "cut_card"]
    assert list(ordered_round(data)["result"]) == ["winner", "player_total", "banker_total", "player_pair",
                                                   "banker_pair", "natural"]


# ----------------------------------------------------------------------------- events and replay
def test_refused_writes_change_nothing():
    t = fed(*aces(8))
    before = (t.seq, dict(t.current.copies), len(t.current.rounds), t.current.roads.rounds)
    for w in (RecordRound(1, 9, natural_with("AS")), RecordRound(1, 1, R2), RecordRound(1, 11, R2),
              VoidRound(1, 12, "x"), CorrectRound(1, 1, dict(R1, cut_card=True))):
        with pytest.raises(errors.TableError):
            t.decide(w, Clock())
    assert (t.seq, dict(t.current.copies), len(t.current.rounds), t.current.roads.rounds) == before


def test_replay_rebuilds_the_same_record_version_for_version():
    clock = Clock()
    t = Table("T1")
    events = []
    for w in (StartShoe(1, ("AS", "2C"), 20), RecordRound(1, 1, R1), RecordRound(1, 2, R2),
              VoidRound(1, 1, "misdeal"), CorrectRound(1, 2, R3, "misread"), RecordRound(1, 3, dict(RES, cut_card=True)),
              RecordRound(2, 1, R2)):
        ev = t.decide(w, clock)
        t.apply(ev)
        events.append(ev)
    again = Table.replay("T1", events)
    assert again.seq == t.seq == 7
    for n in (1, 2):
        a, b = all_shoes(t)[n], all_shoes(again)[n]
        assert a.summary(n == 2) == b.summary(n == 2)
        assert [r.export(n) for r in a.rounds] == [r.export(n) for r in b.rounds]
        assert a.replay_roads().snapshot_template() == b.replay_roads().snapshot_template()
    assert all_shoes(t)[1].summary(False)["cut_card_round"] == 3 and all_shoes(t)[1].summary(False)["version"] == 6


def test_apply_refuses_an_event_out_of_sequence():
    t = fed(R1)
    with pytest.raises(ValueError, match="event seq 3 after 1"):
        t.apply(Event("T1", 3, "round", 1, 2, {"round": R2}, 0.0))
    with pytest.raises(ValueError, match="no round 5"):
        t.apply(Event("T1", 2, "void", 1, 5, {"reason": "x"}, 0.0))
    assert t.seq == 1


def test_decide_refuses_what_is_not_a_write():
    with pytest.raises(TypeError):
        Table("T1").decide({"shoe": 1}, Clock())


def test_event_kinds():
    with pytest.raises(ValueError):
        Event("T1", 1, "shuffle", 1, None, {})
    with pytest.raises(ValueError):
        Event("T1", 0, "round", 1, 1, {})
    ev = Event("T1", 1, "void", 1, 1, {"reason": "misdeal"}, 5.5)
    assert Event.from_json(ev.to_json()) == ev


def test_every_error_code_is_documented_in_the_api_error_table():
    text = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text(encoding="utf-8")
    table = text[text.index("## Errors"):text.index("## Read API")]
    documented = set(re.findall(r"`([a-z_]+)`", table))
    codes = {cls.code for cls in errors.error_classes()}
    assert codes == {"round_conflict", "round_gap", "shoe_ended", "shoe_backwards", "shoe_conflict",
                     "already_voided", "round_voided", "tableau", "result_contradiction", "too_many_copies",
                     "burn_count", "unknown_variant", "unknown_table", "unknown_shoe", "unknown_round", "bad_card",
                     "cut_card_position", "round_in_progress", "card_conflict", "card_gap", "deal_order",
                     "bad_table_state", "unknown_bet", "bad_table_id", "table_not_allowed", "too_many_tables",
                     "round_held"}
    assert codes <= documented
