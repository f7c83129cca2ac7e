"""Past shoes as documents and summaries (roads.archive), and a table restored from its live part
(Table.restore) against a full replay of its events, over simulated tables
(support.histories: card-by-card rounds with states, whole and result-level rounds, explicit
and implicit shoes, misdeals voided in progress, voids and corrections of live and past shoes,
repeats)."""

from __future__ import annotations

import collections
import json
import random

import pytest

from roads.archive import (
    Commit, LivePart, MemoryShoes, archive, shoe_document, shoe_from_document, shoe_stats,
)
from roads.events import Event
from roads.record import ShoeRecord
from roads.snapshot import build_snapshot
from roads.table import CorrectRound, RecordRound, StartShoe, Table, VoidRound
from roads.table_state import SetState, TableStatus
from roads.variants import get_variant
from support.all_shoes import all_shoes
from support.histories import outcome, run

SEEDS = range(40)


def state(s: ShoeRecord) -> tuple:
    """Everything a shoe record holds (the roads aside: compared through snapshots)."""
    return (s.number, s.variant, s.decks, s.started_at, s.explicit, s.burn, s.cut_card_position,
            [(r.number, r.data, r.original, r.result, r.at, r.void, r.corrections, r.dealer) for r in s.rounds],
            +s.copies, s.ops, s.in_progress, s.version, s.updated_at)


def snapshot_of(s: ShoeRecord, roads=None) -> dict:
    return build_snapshot(table="T1", shoe=s.number, version=s.version, roads=roads or s.replay_roads(),
                          variant=s.variant)


def through_json(doc: dict) -> dict:
    return json.loads(json.dumps(doc, ensure_ascii=False, separators=(",", ":")))


# ----------------------------------------------------------------------------- documents
@pytest.mark.parametrize("seed", SEEDS)
def test_a_document_rebuilds_the_shoe_exactly(seed):
    table, _ = run(seed, shoes=5)
    shoes = [all_shoes(table)[n] for n in all_shoes(table)]
    assert len(shoes) >= 3
    for s in shoes:
        doc = shoe_document(s)
        assert through_json(doc) == doc
        again = shoe_from_document(through_json(doc))
        assert state(again) == state(s)
        assert again.roads is None
        assert snapshot_of(again) == snapshot_of(s)
        assert again.summary(False) == s.summary(False) and again.summary(True) == s.summary(True)
        assert [r.export(s.number) for r in again.rounds] == [r.export(s.number) for r in s.rounds]
        assert shoe_document(again) == doc


def test_documents_cover_every_kind_of_round_and_edit():
    """The simulated tables hold what the documents must carry (else the test above proves little)."""
    seen = collections.Counter()
    for seed in SEEDS:
        table, _ = run(seed, shoes=5)
        for n in all_shoes(table):
            doc = shoe_document(all_shoes(table)[n])
            seen["explicit" if doc["explicit"] else "implicit"] += 1
            seen["edits"] += bool(doc.get("edits"))
            for r in doc["rounds"]:
                seen["result-level" if "result" in r["round"] else "cards"] += 1
                for key in ("void", "corrections", "incomplete", "dealer"):
                    seen[key] += key in r
                seen["burn"] += "burn" in r["round"]
                seen["cut_card"] += "cut_card" in r["round"]
            seen["variant " + doc["variant"]] += 1
    assert min(seen.values()) >= 3, seen
    assert {"explicit", "implicit", "edits", "result-level", "cards", "void", "corrections", "incomplete", "dealer",
            "burn", "cut_card", "variant seed001", "variant seed000_live"} <= set(seen)


def test_a_round_in_progress_is_kept_by_the_document():
    table = Table("T1")
    at = iter(range(1000, 2000))
    for w in (RecordRound(1, 1, {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}),):
        table.apply(table.decide(w, lambda: float(next(at))))
    from roads.dealing import DealCards
    table.apply(table.decide(DealCards(1, 2, 1, ("9C", "KH"), ("2D",)), lambda: 1500.25))
    s = table.current
    again = shoe_from_document(through_json(shoe_document(s)))
    assert again.in_progress == s.in_progress and state(again) == state(s)
    assert shoe_document(s)["in_progress"] == {"number": 2, "started_at": 1500.25, "cards": ["9C", "KH"],
                                               "burn": ["2D"], "cut_card": False}


def test_a_document_of_another_format_is_refused():
    table, _ = run(1, shoes=1)
    doc = shoe_document(table.current)
    with pytest.raises(ValueError, match="format 2"):
        shoe_from_document({**doc, "format": 2})


# ----------------------------------------------------------------------------- summaries
def recount(s: ShoeRecord, events: list[Event]) -> dict:
    """The statistics recomputed from the shoe's exported rounds, the dealers from the events."""
    dealer, dealers_by_round = None, {}
    for ev in events:
        if ev.kind == "state":
            dealer = ev.data["dealer"]
        elif ev.shoe == s.number and (ev.kind == "round" or (ev.kind == "void" and ev.round not in dealers_by_round
                                                              and ev.round == len(dealers_by_round) + 1)):
            dealers_by_round[ev.round] = dealer
    out = collections.Counter()
    per_dealer = collections.defaultdict(collections.Counter)
    runs = {"B": 0, "P": 0}
    side, length = None, 0
    for r in s.rounds:
        e = r.export(s.number)
        if e["void"] is not None:
            continue
        res = e["result"]
        for c in (out, per_dealer[dealers_by_round[r.number]]):
            c["rounds"] += 1
            c[{"B": "banker", "P": "player", "T": "tie"}[res["winner"]]] += 1
            c["banker_pair"] += res["banker_pair"]
            c["player_pair"] += res["player_pair"]
            c["natural"] += res["natural"]
        if res["winner"] != "T":
            length = length + 1 if res["winner"] == side else 1
            side = res["winner"]
            runs[side] = max(runs[side], length)
    out["longest_banker_streak"], out["longest_player_streak"] = runs["B"], runs["P"]
    return {"total": dict(out), "dealers": {k: dict(v) for k, v in per_dealer.items()}}


@pytest.mark.parametrize("seed", SEEDS)
def test_the_summary_is_the_shoe_line_and_statistics_recomputed_from_the_rounds(seed):
    events = []
    table, _ = run(seed, shoes=5, on_event=lambda t, ev: events.append(ev))
    for n in all_shoes(table):
        s = all_shoes(table)[n]
        a = archive(s)
        assert a.line == s.summary(False) and json.dumps(a.line) == json.dumps(s.summary(False))
        assert (a.number, a.version, a.started_at, a.rounds) == (n, s.version, s.started_at, len(s.rounds))
        assert a.ended_at == (s.rounds[-1].at if s.rounds else s.started_at)
        assert a.document == shoe_document(s)
        stats = a.stats
        expected = recount(s, events)
        assert {k: stats[k] for k in expected["total"]} == expected["total"]
        assert {d["dealer"]: {k: d[k] for k in ("rounds", "banker", "player", "tie", "banker_pair", "player_pair",
                                                 "natural")} for d in stats["dealers"]} == \
            {k: {key: v.get(key, 0) for key in ("rounds", "banker", "player", "tie", "banker_pair", "player_pair",
                                                 "natural")} for k, v in expected["dealers"].items()}
        roads = s.replay_roads().stats_json()  # the roads' own statistics agree
        assert [stats[k] for k in ("rounds", "banker", "player", "tie", "banker_pair", "player_pair", "natural")] == \
            [roads[k] for k in ("rounds", "banker", "player", "tie", "banker_pair", "player_pair", "natural")]
        assert (stats["longest_banker_streak"], stats["longest_player_streak"]) == \
            (roads["longest_banker_streak"], roads["longest_player_streak"])
        assert stats["recorded"] == len(s.rounds) and stats["voided"] == a.line["voided"]
        counted = [r for r in s.rounds if r.void is None]
        assert (stats["first_round_at"], stats["last_round_at"]) == \
            ((counted[0].at, counted[-1].at) if counted else (None, None))


def test_side_bet_hits_of_a_hand_worked_shoe():
    """seed001 over four rounds: 1. player 3 3 = 6, banker 4 2 = 6: a tie with a player pair (not
    perfect: two suits); 2. player 2 3 = 5, banker 5 3 = natural 8: banker wins (banker Pok 8);
    3. player 9 T = natural 9 against a banker pair, voided (not counted); 4. player 2 3 K = 5,
    banker A 4 = 5 (stands on a player's third card 0): a tie, small (five cards: big)."""
    table = Table("T1", "seed001")
    at = iter(range(1000, 2000))
    for w in (RecordRound(1, 1, {"player": ["3S", "3D"], "banker": ["4C", "2H"]}),
              RecordRound(1, 2, {"player": ["2S", "3D"], "banker": ["5C", "3H"]}),
              RecordRound(1, 3, {"player": ["9S", "TD"], "banker": ["2C", "2H"]}),
              VoidRound(1, 3, "misread"),
              RecordRound(1, 4, {"player": ["2S", "3D", "KH"], "banker": ["AC", "4H"]})):
        table.apply(table.decide(w, lambda: float(next(at))))
    stats = shoe_stats(table.current)
    assert (stats["recorded"], stats["rounds"], stats["banker"], stats["player"], stats["tie"], stats["voided"]) == \
        (4, 3, 1, 0, 2, 1)
    assert (stats["player_pair"], stats["banker_pair"], stats["perfect_pair"], stats["natural"],
            stats["banker_natural"], stats["player_natural"]) == (1, 0, 0, 1, 1, 0)
    bets = stats["side_bets"]
    assert set(bets) == {b.bet for b in get_variant("seed001").side_bets}
    assert {k: bets[k]["hits"] for k in bets} == {
        "player_pair": 1, "banker_pair": 0, "big": 1, "small": 2, "player_pok_8": 0, "player_pok_9": 0,
        "banker_pok_8": 1, "banker_pok_9": 0, "super_six": 0}
    assert all(b["open_rounds"] == 3 and b["open_hits"] == b["hits"] and b["unknown"] == 0 for b in bets.values())
    assert (stats["longest_banker_streak"], stats["longest_player_streak"]) == (1, 0)
    assert (stats["first_round_at"], stats["last_round_at"]) == (1000.0, 1004.0)
    assert stats["dealers"] == [{"dealer": None, **{k: v for k, v in stats.items()
                                                     if k not in ("recorded", "voided", "dealers", "longest_banker_streak",
                                                                  "longest_player_streak")}}]


# ----------------------------------------------------------------------------- restore
class FakeStore:
    """What a store keeps of one table under the documented contract (roads.archive.Commit)."""

    def __init__(self, table: str = "T1") -> None:
        self.table = table
        self.events: list[Event] = []
        self.docs: dict[int, str] = {}
        self.lines: dict[int, str] = {}
        self.head = 0
        self.live_shoe = None
        self.live_from = 0
        self.status = None
        self.status_at_open = None

    def commit(self, c: Commit) -> None:
        ev = c.event
        assert ev.seq == self.head + 1
        self.events.append(ev)
        if c.archive is not None:
            a = c.archive
            assert a.version <= ev.seq and (a.number not in self.docs or
                                             json.loads(self.docs[a.number])["version"] <= a.version)
            self.docs[a.number] = json.dumps(a.document, separators=(",", ":"))
            self.lines[a.number] = json.dumps(a.line, separators=(",", ":"), ensure_ascii=False)
        if c.opens:
            self.live_shoe, self.live_from = ev.shoe, ev.seq
            self.status_at_open = json.loads(json.dumps(c.status_at_open))
        if c.status is not None:
            self.status = json.loads(json.dumps(c.status))
        self.head = ev.seq

    def live_part(self) -> LivePart:
        events = [e for e in self.events if e.seq >= self.live_from and e.shoe == self.live_shoe]
        return LivePart(self.table, self.head, self.status, self.live_shoe, self.status_at_open, events)

    def past(self) -> "DocShoes":
        return DocShoes(self)


class DocShoes:
    """Past shoes read from the fake store's documents, a new record each time (as from disk)."""

    def __init__(self, store: FakeStore) -> None:
        self.store = store
        self.reads = 0
        self.given = {}

    def get(self, number):
        doc = self.store.docs.get(number)
        self.reads += 1
        return None if doc is None else shoe_from_document(json.loads(doc))

    def put(self, shoe):
        self.given[shoe.number] = shoe  # not read back: the store has it

    def numbers(self):
        return sorted(self.store.docs)


def assert_same_tables(restored: Table, full: Table, store: FakeStore) -> None:
    assert (restored.seq, restored.status) == (full.seq, full.status)
    assert list(all_shoes(restored)) == list(all_shoes(full))
    cur, ref = restored.current, full.current
    assert (cur is None) == (ref is None)
    if cur is not None:
        assert state(cur) == state(ref)
        assert snapshot_of(cur, cur.roads) == snapshot_of(ref, ref.roads)
        assert cur.summary(True) == ref.summary(True)
    for n in all_shoes(full):
        if ref is not None and n == ref.number:
            continue
        past, expected = all_shoes(restored)[n], all_shoes(full)[n]
        assert state(past) == state(expected)
        assert snapshot_of(past) == snapshot_of(expected)
        assert json.loads(store.lines[n]) == expected.summary(False)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_restored_table_is_a_full_replay_and_decides_the_same(seed):
    store = FakeStore()
    _, writes = run(seed, shoes=6, on_event=lambda t, ev: store.commit(t.commit(ev)))
    rng = random.Random(seed)
    for cut in sorted(rng.sample(range(len(writes)), 4)) + [len(writes)]:
        # the store as it stood after `cut` writes: rebuild it from the events
        partial = FakeStore()
        ref = Table("T1")
        for at, w in writes[:cut]:
            out = outcome(ref, w, at)
            if isinstance(out, Event):
                partial.commit(ref.commit(out))
                ref.apply(out)
        full = Table.replay("T1", partial.events)  # the independent source: every event replayed
        restored = Table.restore(partial.live_part(), past=partial.past())
        assert_same_tables(restored, full, partial)
        for at, w in writes[cut:]:  # later writes: the same decisions, the same commits
            a, b = outcome(restored, w, at), outcome(full, w, at)
            assert a == b, (w, a, b)
            if isinstance(a, Event):
                ca, cb = restored.commit(a), full.commit(b)
                assert ca == cb
                partial.commit(ca)
                restored.apply(a)
                full.apply(b)
        assert_same_tables(restored, full, partial)


def test_restore_reads_no_past_shoe_and_keeps_only_the_live_one():
    store = FakeStore()
    run(7, shoes=8, on_event=lambda t, ev: store.commit(t.commit(ev)))
    past = store.past()
    restored = Table.restore(store.live_part(), past=past)
    assert past.reads == 0 and len(store.docs) >= 6
    assert restored.current.number == store.live_shoe and restored.current.roads is not None
    assert len(store.live_part().events) < len(store.events) / 3


def test_restore_starts_from_the_state_before_the_live_shoe_for_its_dealers():
    store = FakeStore()
    t = Table("T1")
    clock = iter(float(x) for x in range(1000, 2000))
    for w in (SetState(state="dealing", dealer="Anna"), RecordRound(1, 1, {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}),
              SetState(dealer="Bo"), StartShoe(2), RecordRound(2, 1, {"player": ["9C", "KH"], "banker": ["5D", "2S"]}),
              SetState(dealer="Chai")):
        ev = t.decide(w, lambda: next(clock))
        store.commit(t.commit(ev))
        t.apply(ev)
    part = store.live_part()
    assert [e.kind for e in part.events] == ["shoe", "round", "state"]
    assert part.status_at_open["dealer"] == "Bo" and part.status["dealer"] == "Chai"
    restored = Table.restore(part, past=store.past())
    assert restored.current.rounds[0].dealer == "Bo" and restored.status.dealer == "Chai"
    assert all_shoes(restored)[1].rounds[0].dealer == "Anna"


def test_restore_refuses_events_that_do_not_fit():
    store = FakeStore()
    run(3, shoes=2, on_event=lambda t, ev: store.commit(t.commit(ev)))
    part = store.live_part()
    with pytest.raises(ValueError, match="head"):
        Table.restore(LivePart("T1", part.events[-1].seq - 1, part.status, part.live_shoe, part.status_at_open,
                               part.events), past=store.past())
    with pytest.raises(ValueError):
        Table.restore(LivePart("T1", part.head, None, part.live_shoe, None, part.events[1:]), past=store.past())


def test_commit_names_what_an_event_closes_and_changes():
    t = Table("T1")
    clock = iter(float(x) for x in range(1000, 2000))

    def step(w):
        ev = t.decide(w, lambda: next(clock))
        c = t.commit(ev)
        t.apply(ev)
        return c

    first = step(RecordRound(1, 1, {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}))
    assert first.opens and first.archive is None and first.status_at_open == TableStatus().data()
    assert step(RecordRound(1, 2, {"player": ["9C", "KH"], "banker": ["5D", "2S"]})) == Commit(Event(
        "T1", 2, "round", 1, 2, {"round": {"player": ["9C", "KH"], "banker": ["5D", "2S"]}}, 1001.0))
    s = step(SetState(state="betting", dealer="Anna"))
    assert s.status == {"state": "betting", "since": 1002.0, "closes_at": None, "dealer": "Anna", "limits": None}
    closing = step(StartShoe(2))
    assert closing.opens and closing.archive.number == 1 and closing.archive.version == 2
    assert closing.status_at_open["dealer"] == "Anna"
    edit = step(VoidRound(1, 2, "misread"))
    assert not edit.opens and edit.archive.number == 1 and edit.archive.version == 5
    assert edit.archive.line["voided"] == 1 and all_shoes(t)[1].round(2).void is not None
    assert step(SetState(state="dealing")).archive is None
    with pytest.raises(ValueError, match="seq"):
        t.commit(edit.event)


class CachedDocShoes(DocShoes):
    """Like :class:`DocShoes`, but keeps what it read or was given (a bounded cache would)."""

    def __init__(self, store: FakeStore) -> None:
        super().__init__(store)
        self.cache = {}

    def get(self, number):
        if number not in self.cache:
            self.cache[number] = super().get(number)
        return self.cache[number]

    def put(self, shoe):
        self.cache[shoe.number] = self.given[shoe.number] = shoe


@pytest.mark.parametrize("provider", [DocShoes, CachedDocShoes])
def test_a_past_shoe_change_is_applied_once_whether_read_before_or_after_the_event(provider):
    """A store-backed table may read a past shoe as written with the event (apply must not redo
    it) or hold it from before (apply must do it)."""
    store = FakeStore()
    past_shoes = provider(store)
    t = Table("T1", past=past_shoes)
    clock = iter(float(x) for x in range(1000, 2000))
    correct = {"result": {"winner": "B", "player_total": 3, "banker_total": 7, "player_pair": False,
                          "banker_pair": False, "natural": False}}
    for w in (RecordRound(1, 1, {"player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]}),
              RecordRound(1, 2, {"player": ["9C", "KH"], "banker": ["5D", "2S"]}), StartShoe(2),
              CorrectRound(1, 1, correct), VoidRound(1, 2, "misread")):
        ev = t.decide(w, lambda: next(clock))
        store.commit(t.commit(ev))
        if isinstance(w, CorrectRound):
            all_shoes(t)[1]  # a reader had it before the event
        t.apply(ev)
    past = all_shoes(t)[1]
    r1, r2 = past.rounds
    assert past.version == 5 and [(op, n) for op, n, _ in past.ops] == \
        [("record", 1), ("record", 2), ("correct", 1), ("void", 2)]
    assert len(r1.corrections) == 1 and r1.data == correct and r2.void == {"reason": "misread", "at": 1004.0}
    replayed = all_shoes(Table.replay("T1", store.events))[1]
    assert state(past) == state(replayed) and state(past_shoes.given[1]) == state(replayed)


def test_memory_shoes_keep_what_they_are_given():
    m = MemoryShoes()
    t, _ = run(2, shoes=3)
    for n in all_shoes(t):
        m.put(all_shoes(t)[n])
    assert m.numbers() == sorted(all_shoes(t)) and m.get(list(all_shoes(t))[0]) is all_shoes(t)[list(all_shoes(t))[0]]
    assert m.get(10**6) is None
