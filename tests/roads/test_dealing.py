"""Rounds dealt card by card (roads.dealing through roads.table.Table, roads.tableau.next_card), with
no Flask and no store. Expected values are worked by hand from the deal order (P, B, P, B, then
third cards; seed 004) and the drawing rules (docs/domain.md section 1)."""

from __future__ import annotations


import pytest

from roads import errors
from roads.cards import parse_cards
from roads.events import Event, Unchanged
from roads.dealing import DealCards, add_cards
from roads.record import deal_order, split_deal
from roads.table import RecordRound, StartShoe, Table, VoidRound
from roads.table_state import SetState
from roads.tableau import TableauError, next_card
from support.table_writes import Clock, write


# 4S 7C KD JD 9H: player 4S KD = 4 draws 9H -> 3; banker 7C JD = 7 stands after a third card 9
DEAL = ["4S", "7C", "KD", "JD", "9H"]
WHOLE = {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}


# ----------------------------------------------------------------------------- whose card
@pytest.mark.parametrize("player,banker,expected", [
    ("", "", "player"), ("4S", "", "banker"), ("4S", "7C", "player"), ("4S KD", "7C", "banker"),
    ("4S KD", "7C JD", "player"),            # player 4 draws
    ("4S KD 9H", "7C JD", None),             # banker 7 stands
    ("9S KH", "5D 2S", None),                # natural 9: both stand
    ("2C 4D", "3H 2S", "banker"),            # player 6 stands, banker 5 draws
    ("2C 4D", "3H 3S", None),                # player 6 stands, banker 6 stands
    ("AC 2D 8H", "2H AS", None),             # banker 3 stands on a player third card 8
    ("AC 2D 7H", "2H AS", "banker"),         # banker 3 draws on 7
    ("AC 2D 7H", "2H AS 5C", None),
    ("5C KD 6H", "6S KH", "banker"),         # banker 6 draws on a third card 6
    ("5C KD 5H", "6S KH", None),             # ... and stands on 5
])
def test_next_card_follows_the_deal_order_and_the_tableau(player, banker, expected):
    assert next_card(parse_cards(player), parse_cards(banker)) == expected


@pytest.mark.parametrize("player,banker", [("", "4S"), ("4S KD", ""), ("9S KH 2C", "5D 2S"), ("2C 4D", "3H 3S 2C")])
def test_next_card_refuses_hands_that_are_not_a_deal(player, banker):
    with pytest.raises(TableauError) as e:
        next_card(parse_cards(player), parse_cards(banker))
    assert e.value.rule == "deal_order"


def test_deal_order_and_split_are_inverse():
    assert deal_order(WHOLE) == DEAL
    assert split_deal(DEAL) == (["4S", "KD", "9H"], ["7C", "JD"], None)
    # player stands: the fifth card is the banker's
    assert deal_order({"player": ["2C", "4D"], "banker": ["3H", "2S", "9C"]}) == ["2C", "3H", "4D", "2S", "9C"]
    assert split_deal(["2C", "3H", "4D", "2S", "9C"]) == (["2C", "4D"], ["3H", "2S", "9C"], None)
    assert deal_order({"result": {}}) is None


# ----------------------------------------------------------------------------- card writes
def test_cards_in_one_or_many_posts_record_the_same_round_event_as_the_whole_round():
    whole = Table("T1").decide(RecordRound(1, 1, WHOLE), Clock())
    t = Table("T1")
    first = write(t, DealCards(1, 1, 1, ("4S", "7C")))
    assert (first.kind, first.data) == ("card", {"position": 1, "cards": ["4S", "7C"],
                                                 "opens_shoe": {"variant": "seed000_live", "decks": 8}})
    write(t, DealCards(1, 1, 3, ("KD", "JD")))
    last = t.decide(DealCards(1, 1, 5, ("9H",)), Clock())
    assert (last.kind, last.round, last.data) == ("round", 1, {"round": WHOLE})
    assert whole.data == {"round": WHOLE, "opens_shoe": {"variant": "seed000_live", "decks": 8}}
    one_go = Table("T1").decide(DealCards(1, 1, 1, tuple(DEAL)), Clock())
    assert (one_go.kind, one_go.data) == ("round", whole.data)


def test_a_round_in_progress_counts_nowhere_but_its_cards_are_out_of_the_shoe():
    t = Table("T1")
    write(t, DealCards(1, 1, 1, ("4S", "7C", "KD")))
    s = t.current
    assert s.rounds == [] and s.roads.rounds == 0 and t.seq == 1
    assert sorted(map(str, s.copies.elements())) == ["4S", "7C", "KD"]
    assert s.in_progress.to_json() == {"round": 1, "player": ["4S", "KD"], "banker": ["7C"], "burn": [],
                                       "cut_card": False, "player_total": 4, "banker_total": 7, "next": "banker"}
    write(t, DealCards(1, 1, 4, ("JD", "9H")))
    assert s.in_progress is None and s.roads.rounds == 1
    assert sorted(map(str, s.copies.elements())) == sorted(DEAL)  # each card counted once


def test_card_k_again_is_unchanged_another_card_at_k_names_the_stored_card():
    t = Table("T1")
    write(t, DealCards(1, 1, 1, ("4S", "7C", "KD")))
    assert t.decide(DealCards(1, 1, 2, ("7C",)), Clock()) == Unchanged(1, 1)
    assert t.decide(DealCards(1, 1, 1, ("4S", "7C", "KD")), Clock()) == Unchanged(1, 1)
    with pytest.raises(errors.CardConflict) as e:
        t.decide(DealCards(1, 1, 2, ("7C", "KH")), Clock())
    assert (e.value.code, e.value.field, e.value.extra) == ("card_conflict", "cards[1]",
                                                            {"stored": {"position": 3, "card": "KD"}})
    assert e.value.message == "card 3 of shoe 1 round 1 is stored as KD; got KH"
    # old and new cards together: only the new ones make the event
    ev = t.decide(DealCards(1, 1, 3, ("KD", "JD")), Clock())
    assert ev.data == {"position": 4, "cards": ["JD"]}


def test_cards_of_a_recorded_round_are_checked_against_it():
    t = Table("T1")
    write(t, RecordRound(1, 1, WHOLE))
    assert t.decide(DealCards(1, 1, 1, tuple(DEAL)), Clock()) == Unchanged(1, 1)
    assert t.decide(DealCards(1, 1, 4, ("JD",)), Clock()) == Unchanged(1, 1)
    with pytest.raises(errors.DealOrder) as e:
        t.decide(DealCards(1, 1, 5, ("9H", "2C")), Clock())
    assert (e.value.field, e.value.message) == ("cards[1]", "shoe 1 round 1 is complete with 5 cards; card 6 (2C) is not dealt")
    with pytest.raises(errors.CardConflict, match="card 5 of shoe 1 round 1 is stored as 9H; got 8H"):
        t.decide(DealCards(1, 1, 5, ("8H",)), Clock())
    with pytest.raises(errors.CardConflict) as e:
        t.decide(DealCards(1, 1, 5, ("9H",), cut_card=True), Clock())
    assert e.value.field == "cut_card"


def test_a_fifth_card_when_both_hands_stand_is_not_dealt():
    t = Table("T1")
    write(t, DealCards(1, 1, 1, ("2C", "3H", "4D")))  # player 2C 4D = 6 stands
    with pytest.raises(errors.DealOrder) as e:
        t.decide(DealCards(1, 1, 4, ("3S", "9C")), Clock())  # banker 3H 3S = 6 stands: the round ends at 4
    assert e.value.field == "cards[1]"
    assert e.value.message == ("the round is complete after 4 cards (player 2C 4D = 6, banker 3H 3S = 6); "
                               "card 5 (9C) is not dealt")
    assert t.current.in_progress.cards == ["2C", "3H", "4D"]


def test_positions_never_skip_and_rounds_wait_for_the_round_in_progress():
    t = Table("T1")
    with pytest.raises(errors.CardGap, match="has no cards yet|has 0 card"):
        t.decide(DealCards(1, 1, 2, ("7C",)), Clock())
    write(t, DealCards(1, 1, 1, ("4S",)))
    with pytest.raises(errors.CardGap) as e:
        t.decide(DealCards(1, 1, 3, ("KD",)), Clock())
    assert e.value.message == "shoe 1 round 1 has 1 card(s); the next is card 2, got card 3"
    for w in (DealCards(1, 2, 1, ("2C",)), RecordRound(1, 2, WHOLE), StartShoe(2), DealCards(2, 1, 1, ("2C",)),
              RecordRound(2, 1, WHOLE)):
        with pytest.raises(errors.RoundInProgress) as e:
            t.decide(w, Clock())
        assert e.value.extra["in_progress"]["round"] == 1


def test_a_whole_round_completes_the_round_in_progress_when_it_begins_with_its_cards():
    t = Table("T1")
    write(t, DealCards(1, 1, 1, ("4S", "7C", "KD"), burn=("8C",)))
    with pytest.raises(errors.CardConflict) as e:
        t.decide(RecordRound(1, 1, WHOLE), Clock())  # no burn
    assert e.value.field == "burn"
    with pytest.raises(errors.CardConflict) as e:
        t.decide(RecordRound(1, 1, {"player": ["4S", "KH", "9H"], "banker": ["7C", "JD"], "burn": ["8C"]}), Clock())
    assert (e.value.field, e.value.extra["stored"]) == ("player[1]", {"position": 3, "card": "KD"})
    ev = write(t, RecordRound(1, 1, dict(WHOLE, burn=["8C"])))
    assert ev.data == {"round": {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"], "burn": ["8C"]}}
    assert sorted(map(str, t.current.copies.elements())) == sorted(DEAL + ["8C"])


def test_copies_count_the_cards_in_progress():
    t = Table("T1")
    for n in range(1, 8):  # seven natural rounds each with one AS
        suit = "SHDC"[n % 4]
        write(t, RecordRound(1, n, {"player": ["AS", "8" + suit], "banker": ["K" + suit, "Q" + suit]}))
    write(t, DealCards(1, 8, 1, ("AS",)))  # the 8th AS, in progress
    write(t, VoidRound(1, 8, "misdeal"))  # voided: still out of the shoe
    with pytest.raises(errors.TooManyCopies) as e:
        t.decide(DealCards(1, 9, 1, ("AS",)), Clock())
    assert (e.value.field, e.value.message) == ("cards[0]", "AS would be copy 9 of AS in shoe 1, but a 8-deck shoe holds 8")


def test_voiding_a_round_in_progress_records_it_void_with_its_cards():
    t = Table("T1")
    write(t, DealCards(1, 1, 1, ("4S", "7C"), burn=("8C",), cut_card=False))
    ev = write(t, VoidRound(1, 1, "misdeal"), Clock(2000.0))
    assert (ev.kind, ev.round, ev.data) == ("void", 1, {"reason": "misdeal"})
    r = t.current.round(1)
    assert (r.data, r.result, r.void) == ({"player": ["4S"], "banker": ["7C"], "burn": ["8C"]}, None,
                                          {"reason": "misdeal", "at": 2000.0})
    assert r.export(1)["incomplete"] is True and t.current.in_progress is None
    assert t.current.roads.rounds == 0 and t.current.roads.voided == ()  # it never reached the roads
    assert t.decide(VoidRound(1, 1, "misdeal"), Clock()) == Unchanged(1, 1)
    with pytest.raises(errors.RoundVoided):
        t.decide(DealCards(1, 1, 3, ("KD",)), Clock())
    assert isinstance(write(t, DealCards(1, 2, 1, tuple(DEAL))), Event)  # the next round is number 2


def test_the_cut_card_flag_carries_into_the_recorded_round():
    t = Table("T1")
    write(t, DealCards(1, 1, 1, ("4S", "7C")))
    ev = write(t, DealCards(1, 1, 2, ("7C",), cut_card=True))
    assert ev.data == {"position": 3, "cards": [], "cut_card": True}
    ev = write(t, DealCards(1, 1, 3, ("KD", "JD", "9H")))
    assert ev.data == {"round": dict(WHOLE, cut_card=True)}
    with pytest.raises(errors.ShoeEnded):
        t.decide(DealCards(1, 2, 1, ("2C",)), Clock())


def test_card_write_checks_itself():
    with pytest.raises(errors.BadCardText) as e:
        DealCards(1, 1, 1, ("4S", "1Z"))
    assert e.value.field == "cards[1]"
    with pytest.raises(errors.DealOrder) as e:
        DealCards(1, 1, 5, ("9H", "2C", "3C"))
    assert e.value.field == "position"
    with pytest.raises(errors.DealOrder) as e:
        DealCards(1, 1, 2, ("7C",), burn=("8C",))
    assert e.value.field == "burn"


def test_replay_of_card_events_rebuilds_the_round_in_progress():
    t = Table("T1")
    clock = Clock()
    events = []
    for w in (StartShoe(1, ("AS", "2C")), DealCards(1, 1, 1, tuple(DEAL)), DealCards(1, 2, 1, ("2C", "3H"), burn=("QS",)),
              DealCards(1, 2, 3, ("4D",)), SetState(state="dealing", dealer="Anna")):
        ev = t.decide(w, clock)
        t.apply(ev)
        events.append(ev)
    again = Table.replay("T1", events)
    assert again.current.in_progress == t.current.in_progress
    assert again.current.copies == t.current.copies and again.status == t.status
    assert [e.kind for e in events] == ["shoe", "round", "card", "card", "state"]


def test_add_cards_returns_the_round_with_its_new_cards_and_leaves_the_given_one_as_it_was():
    first = Event("T1", 2, "card", 1, 1, {"position": 1, "cards": ["4S", "7C"], "burn": ["QS"]}, 5.0)
    ip, taken = add_cards(None, 0, first)
    assert (ip.number, ip.started_at, ip.cards, ip.burn, ip.cut_card) == (1, 5.0, ["4S", "7C"], ["QS"], False)
    assert [str(c) for c in taken] == ["QS", "4S", "7C"]
    more = Event("T1", 3, "card", 1, 1, {"position": 3, "cards": ["KD"], "cut_card": True}, 6.0)
    after, taken = add_cards(ip, 0, more)
    assert (after.cards, after.burn, after.cut_card, after.started_at) == (["4S", "7C", "KD"], ["QS"], True, 5.0)
    assert [str(c) for c in taken] == ["KD"]
    assert (ip.cards, ip.cut_card) == (["4S", "7C"], False)


@pytest.mark.parametrize("recorded,data", [(1, {"position": 1, "cards": ["4S"]}),   # round 1 after round 1
                                           (0, {"position": 2, "cards": ["4S"]})])  # a round starts at card 1
def test_add_cards_refuses_a_card_event_out_of_place(recorded, data):
    with pytest.raises(ValueError, match="table 'T1' shoe 1: card"):
        add_cards(None, recorded, Event("T1", 2, "card", 1, 1, data, 5.0))
