"""The record's side of card-reading shoes (docs/shoes.md section "Feed extensions"): cards drawn
face down, the shoe's error, rounds held for the supervisor; shoe documents carry them exactly and
a replay of the events rebuilds them.

Deal order and drawing rules: docs/domain.md section 1 (P, B, P, B, then the player's third
card, then the banker's)."""

from __future__ import annotations

import itertools
import random

import pytest

from roads.archive import shoe_document, shoe_from_document
from roads.errors import CardConflict, DealOrder, RoundHeld, TooManyCopies
from roads.events import Event
from roads.outcome import RoundResult
from roads.record import check_backs
from roads.dealing import DealCards
from roads.shoe_roads import ShoeRoads
from roads.table import CorrectRound, HoldRound, RecordRound, StartShoe, Table, VoidRound
from roads.table_state import SetState
from roads.cards import parse_cards
from support.all_shoes import all_shoes
from web.stores.codec import pack_detail, unpack_detail

HOLD = dict(reason="result_mismatch", message="the shoe says B",
            shoe_result={"winner": "B", "banker_six": False, "player_pair": False, "banker_pair": False},
            player=("2C", "3D", "4S"), banker=("5S", "2C"))
NATURAL_9 = {"player": ["9C", "KD"], "banker": ["7S", "QH"]}


class Recorder:
    """A table and its events (every accepted write applied)."""

    def __init__(self) -> None:
        self.table = Table("T1")
        self.events: list[Event] = []
        self._clock = itertools.count(1000)

    def write(self, w):
        ev = self.table.decide(w, lambda: float(next(self._clock)))
        if isinstance(ev, Event):
            self.table.apply(ev)
            self.events.append(ev)
        return ev


@pytest.mark.parametrize("faces, backs, bad", [
    ([], ["player", "banker", "player", "banker"], None),
    ([], ["banker"], 0),                                   # card 1 is the player's
    (["2C", "5S", "3D", "2C"], ["player"], None),          # player 5 draws
    (["2C", "5S", "3D", "2C"], ["banker"], 0),             # ... so card 5 is not the banker's
    (["9C", "7S", "KD", "QH"], ["player"], 0),             # player natural 9: complete after 4 cards
    ([], ["player", "banker", "player", "banker", "player", "banker"], None),
    ([], ["player", "banker", "player", "banker", "banker", "banker"], 5),   # two banker third cards
    (["2C", "5S"], ["player", "banker", "banker", "banker"], 3),  # card 6 only after the player's third
])
def test_which_face_down_cards_the_deal_order_allows(faces, backs, bad):
    assert check_backs(faces, backs) == bad


def test_a_back_does_not_count_as_a_copy_its_face_does():
    rec = Recorder()
    rec.write(StartShoe(1, variant="seed000_live"))
    for r in range(1, 3):  # 8 copies of QC out: four a round (Q + Q = 0 on both sides: both draw an ace)
        rec.write(RecordRound(1, r, {"player": ["QC", "QC", "AS"], "banker": ["QC", "QC", "AS"]}))
    assert rec.table.current.copies[parse_cards(["QC"])[0]] == 8
    assert rec.write(DealCards(1, 3, 1, (), sides=("player",))).kind == "card"
    with pytest.raises(TooManyCopies) as e:
        rec.write(DealCards(1, 3, 1, ("QC",)))
    assert e.value.field == "cards[0]"


def test_a_face_takes_the_place_of_its_back_and_a_whole_round_must_agree_with_the_backs():
    rec = Recorder()
    rec.write(DealCards(1, 1, 1, (), sides=("player", "banker")))
    with pytest.raises(CardConflict) as e:
        rec.write(DealCards(1, 1, 2, (), sides=("player",)))
    assert e.value.extra["stored"] == {"position": 2, "side": "banker"} and e.value.field == "sides[0]"
    assert rec.write(DealCards(1, 1, 1, (), sides=("player", "banker"))).__class__.__name__ == "Unchanged"
    # faces 2C, 5S, 3D, 2C: the whole round completes it (its first two cards are on the backs' sides)
    ev = rec.write(RecordRound(1, 1, {"player": ["2C", "3D", "4S"], "banker": ["5S", "2C"]}))
    assert ev.kind == "round" and rec.table.current.in_progress is None


def test_a_round_complete_by_its_faces_with_a_card_still_face_down_is_refused():
    rec = Recorder()
    rec.write(DealCards(1, 1, 1, (), sides=("player", "banker", "player", "banker", "player")))
    rec.write(DealCards(1, 1, 1, ("9C", "7S", "KD")))
    before = shoe_document(rec.table.current)
    with pytest.raises(DealOrder) as e:
        rec.write(DealCards(1, 1, 4, ("QH",)))     # player natural 9: card 5 is not dealt
    assert e.value.field == "cards[0]"
    assert shoe_document(rec.table.current) == before


def round_trip(table: Table) -> None:
    """The shoe document of every shoe rebuilds it exactly, with the same roads."""
    for number, s in all_shoes(table).items():
        doc = shoe_document(s)
        again = shoe_from_document(doc)
        assert shoe_document(again) == doc
        assert again.summary(s is table.current) == s.summary(s is table.current)
        live = s.roads if s.roads is not None else s.replay_roads()
        assert again.replay_roads().pieces() == live.pieces()
        assert again.copies == s.copies


def test_documents_and_replay_carry_backs_holds_and_their_resolutions_exactly():
    rec = Recorder()
    rec.write(RecordRound(1, 1, NATURAL_9))
    rec.write(DealCards(1, 2, 1, ("2C", "5S", "3D")))
    rec.write(DealCards(1, 2, 4, (), sides=("banker",)))
    round_trip(rec.table)                                    # a round in progress with a back
    assert shoe_document(rec.table.current)["in_progress"]["backs"] == ["banker"]
    rec.write(HoldRound(1, 2, **HOLD))
    assert rec.table.current.round(2).on_hold
    round_trip(rec.table)                                    # held
    rec.write(RecordRound(1, 3, NATURAL_9))
    rec.write(DealCards(1, 4, 1, ("2C", "5S")))
    rec.write(HoldRound(1, 4, **HOLD))
    rec.write(RecordRound(1, 5, {"player": ["QC", "AC"], "banker": ["4S", "4H"]}))
    rec.write(CorrectRound(1, 2, {"player": ["2C", "3D", "4S"], "banker": ["5S", "2C"]}, "supervisor"))
    rec.write(CorrectRound(1, 2, {"player": ["2C", "3D"], "banker": ["5S", "3C"]}, "again"))  # banker natural 8
    rec.write(VoidRound(1, 4, "supervisor: misdeal"))
    rec.write(SetState(state="dealing", shoe_error={"code": 2, "name": "overdraw"}))
    round_trip(rec.table)
    s = rec.table.current
    assert [(n, r.winner.value) for n, r in s.roads.counted_rounds()] == [(1, "P"), (2, "B"), (3, "P"), (5, "B")]
    assert s.summary(True)["counted"] == 4 and s.summary(True)["voided"] == 1 and "held" not in s.summary(True)
    assert [r.number for r in s.rounds if r.held is not None] == [2, 4]
    rec.write(RecordRound(2, 1, NATURAL_9))                  # shoe 1 becomes past: its document
    round_trip(rec.table)
    # a replay of the events rebuilds every shoe and the state; so does the stores' detail encoding
    for events in (rec.events, [e for blob in [pack_detail(rec.events)] for e in unpack_detail("T1", 0, blob)]):
        if events is not rec.events:
            events = [Event("T1", e.seq, e.kind, o.shoe, e.round, e.data, e.at) for e, o in zip(events, rec.events)]
        again = Table.replay("T1", events)
        assert [shoe_document(s) for s in all_shoes(again).values()] == \
            [shoe_document(s) for s in all_shoes(rec.table).values()]
        assert again.status == rec.table.status and again.seq == rec.table.seq
    hold = next(e for e in rec.events if e.kind == "hold")
    assert Event.from_json(hold.to_json()) == hold


def test_a_held_round_refuses_cards_and_another_hold():
    rec = Recorder()
    rec.write(DealCards(1, 1, 1, ("2C", "5S", "3D")))
    rec.write(HoldRound(1, 1, **HOLD))
    assert rec.write(HoldRound(1, 1, **HOLD)).__class__.__name__ == "Unchanged"
    with pytest.raises(RoundHeld):
        rec.write(HoldRound(1, 1, **dict(HOLD, reason="frames_lost")))
    with pytest.raises(RoundHeld):
        rec.write(DealCards(1, 1, 4, ("2C",)))
    assert rec.write(DealCards(1, 2, 1, ("9C",))).kind == "card"    # the next round goes on


def test_insert_gives_the_roads_of_recording_in_order():
    rng = random.Random(5)
    results = [RoundResult.from_cards(parse_cards(p), parse_cards(b)) for p, b in (
        (["9C", "KD"], ["7S", "QH"]), (["QC", "AC"], ["4S", "4H"]), (["2C", "3D", "4S"], ["5S", "2C"]),
        (["7H", "KS"], ["7D", "QD"]))]
    for _ in range(30):
        rounds = [(n, rng.choice(results)) for n in range(1, 25)]
        k = rng.randrange(1, 24)
        in_order = ShoeRoads.from_rounds(rounds)
        late = ShoeRoads.from_rounds([r for r in rounds if r[0] != k])
        late.insert(k, rounds[k - 1][1])
        assert late.pieces() == in_order.pieces()


def test_the_burn_may_come_with_the_face_of_card_1_after_its_back():
    """A shoe reports card 1 face down before the adapter knows what to send with it: the burn
    (cards burned between rounds, docs/domain.md section 2) comes with card 1's face, once."""
    rec = Recorder()
    rec.write(RecordRound(1, 1, NATURAL_9))
    rec.write(DealCards(1, 2, 1, (), sides=("player", "banker")))
    ev = rec.write(DealCards(1, 2, 1, ("2C",), burn=("7C",)))
    assert ev.data == {"position": 1, "cards": ["2C"], "burn": ["7C"]}
    assert rec.table.current.in_progress.burn == ["7C"]
    assert rec.write(DealCards(1, 2, 1, ("2C",), burn=("7C",))).__class__.__name__ == "Unchanged"
    with pytest.raises(CardConflict) as e:
        rec.write(DealCards(1, 2, 1, ("2C",), burn=("8C",)))
    assert e.value.field == "burn"
    # a burn with the back itself, then the face without it
    rec2 = Recorder()
    ev = rec2.write(DealCards(1, 1, 1, (), burn=("7C",), sides=("player",)))
    assert {k: ev.data[k] for k in ("position", "sides", "burn")} == {"position": 1, "sides": ["player"], "burn": ["7C"]}
    assert rec2.write(DealCards(1, 1, 1, ("2C",), burn=("7C",))).data == {"position": 1, "cards": ["2C"]}
    round_trip(rec2.table)


@pytest.mark.parametrize("seed", range(6))
def test_simulated_shoe_tables_round_trip_through_documents_and_replay(seed):
    """Simulated tables fed by card-reading shoes (support.histories with shoe_extensions: backs,
    holds resolved in live and past shoes, shoe errors): every shoe's document rebuilds it, and a
    replay of the events rebuilds the table."""
    from support.histories import run

    events: list[Event] = []
    table, _ = run(seed, shoes=6, shoe_extensions=True, on_event=lambda t, ev: events.append(ev))
    kinds = {e.kind for e in events}
    assert {"hold", "card"} <= kinds
    assert any("sides" in e.data for e in events if e.kind == "card")
    round_trip(table)
    again = Table.replay("T1", events)
    assert [shoe_document(s) for s in all_shoes(again).values()] == [shoe_document(s) for s in all_shoes(table).values()]
    assert again.status == table.status


def test_backs_for_recorded_and_voided_rounds():
    rec = Recorder()
    rec.write(RecordRound(1, 1, NATURAL_9))
    assert rec.write(DealCards(1, 1, 1, (), sides=("player", "banker"))).__class__.__name__ == "Unchanged"
    with pytest.raises(CardConflict):
        rec.write(DealCards(1, 1, 2, (), sides=("player",)))
    with pytest.raises(DealOrder):
        rec.write(DealCards(1, 1, 5, (), sides=("player",)))     # natural 9: complete after 4 cards
    rec.write(DealCards(1, 2, 1, ("2C",)))
    rec.write(VoidRound(1, 2, "misdeal"))
    from roads.errors import RoundVoided
    with pytest.raises(RoundVoided):
        rec.write(DealCards(1, 2, 2, (), sides=("banker",)))
