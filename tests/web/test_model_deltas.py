"""Deltas of the board models pages receive (web/push/page_models.py documents through web/push/delta.py):
a screen that starts from the first whole document and applies every delta after it holds, at
every version, exactly the document built afresh for that version, in Python (web/push/delta.py)
and in the page's own code (static/js/delta.js, run by Node when it is installed).

The independent reference is the whole document (:meth:`web.push.documents.Documents.build`, what the
model JSON route answers): deltas are only applied, never compared with expected operations.
Random shoes go through the feed API with voids, corrections and new shoes; a table page, an
embed and a lobby screen each follow them. Also any two lists of keyed cells (hypothesis), the
case the window operation exists for.
"""

from __future__ import annotations

import copy
import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support.feed import Feed, dealt_rounds
from web.push.delta import apply, diff
from web.push.frames import FrameCache
from web.http import model_specs
from web.push.hub import Hub

DELTA_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "delta.js"
REQUIRE_NODE = os.environ.get("ROADS_TEST_REQUIRE_NODE") == "1"


def js_apply(cases: list[tuple[object, list]]) -> list[object]:
    """``RoadsDelta.apply(doc, ops)`` of static/js/delta.js for each case, run by Node."""
    node = shutil.which("node")
    if node is None:
        if REQUIRE_NODE:
            pytest.fail("node is required (ROADS_TEST_REQUIRE_NODE=1)")
        pytest.skip("node is not installed")
    script = ("const fs=require('fs');globalThis.window=globalThis;eval(fs.readFileSync(process.argv[1],'utf8'));"
              "const cases=JSON.parse(fs.readFileSync(0,'utf8'));"
              "process.stdout.write(JSON.stringify(cases.map(c=>{const before=JSON.stringify(c[0]);"
              "const out=RoadsDelta.apply(c[0],c[1]);"
              "if(JSON.stringify(c[0])!==before) throw new Error('apply changed its input');return out;})));")
    done = subprocess.run([node, "-e", script, str(DELTA_JS)], input=orjson.dumps(cases), capture_output=True,
                          timeout=60, check=True)
    return json.loads(done.stdout)


class Screen:
    """One page's document, taking frames as static/js/delta.js does."""

    def __init__(self) -> None:
        self.doc, self.version, self.deltas, self.fulls = None, None, 0, 0

    def take(self, frame: bytes) -> list | None:
        msg = orjson.loads(frame)
        if msg["type"] == "snapshot":
            self.doc, self.version = msg["data"], msg["version"]
            self.fulls += 1
            return None
        assert msg["base"] == self.version
        self.doc = apply(self.doc, msg["ops"])
        self.version = msg["version"]
        self.deltas += 1
        return orjson.loads(frame)["ops"]  # a fresh copy: apply put the values above into the document


def results(rng: random.Random):
    """Endless result-level rounds (winner, totals, pairs, natural) dealt by the tableau from
    shuffled eight-deck shoes (docs/domain.md), as the feed's ``result`` body."""
    from roads.cards import full_deck
    from roads.outcome import RoundResult
    from roads.tableau import deal_round

    cards: list = []
    while True:
        if len(cards) < 12:
            cards = full_deck() * 8
            rng.shuffle(cards)
        r = RoundResult.from_cards(*deal_round(cards.pop))
        yield {"winner": r.winner, "player_total": r.player_total, "banker_total": r.banker_total,
               "player_pair": r.player_pair, "banker_pair": r.banker_pair, "natural": r.natural}


def random_events(feed: Feed, rng: random.Random, shoes: int):
    """Post random shoes of table T1 (rounds, voids and corrections of earlier rounds, the next
    shoe); yield after every accepted write."""
    dealer = results(rng)
    for shoe in range(1, shoes + 1):
        if shoe > 1:
            assert feed.shoe(shoe).status_code == 201
            yield
        counted: list[int] = []
        number = 0
        for _ in range(rng.choice((12, 40, 85))):
            r = rng.random()
            if counted and r < 0.06:
                n = rng.choice(counted)
                counted.remove(n)
                resp = feed.void(shoe, n, "misdeal")
            elif counted and r < 0.14:
                resp = feed.correct(shoe, rng.choice(counted), {"result": next(dealer), "reason": "misread"})
            else:
                number += 1
                resp = feed.round(shoe, number, result=next(dealer))
                counted.append(number)
            assert resp.status_code == 201, resp.get_data(as_text=True)
            yield


def test_every_model_delta_applied_gives_the_document_built_afresh(app, client):
    """Three random shoes of T1 beside four other tables: the table page (both orientations),
    an embed and the lobby screen; after every write each screen's document equals the
    document built for it, and the page's own delta code (Node) turns every previous document
    into the same one."""
    feed = Feed(client)
    for k, table in enumerate(("T2", "T3", "T4", "T5")):
        for n, (player, banker) in enumerate(dealt_rounds(3 + 5 * k, seed=k), 1):
            assert feed.round(1, n, player, banker, table=table).status_code == 201
    with app.test_request_context("/tables/T1?lang=zh"):
        specs = [model_specs.table_spec("T1"), model_specs.lobby_spec()[0]]
    with app.test_request_context("/tables/T1?orient=portrait"):
        specs.append(model_specs.table_spec("T1"))  # what a portrait screen follows
    with app.test_request_context("/embed/T1?w=640&h=360"):
        specs.append(model_specs.embed_spec("T1"))
    hub, frames = Hub(), FrameCache()
    screens = [Screen() for _ in specs]
    js_cases, js_expected = [], []
    rng = random.Random(1415)
    events, kinds, pick = 0, set(), random.Random(5)  # pick: which deltas Node applies too
    for version, _ in enumerate(random_events(feed, rng, shoes=3), 1):
        events += 1
        with app.app_context():
            docs = [app.extensions["roads.push"].documents.build(spec) for spec in specs]
        for spec, screen, doc in zip(specs, screens, docs):
            message = hub.publish(spec.topic, version, orjson.dumps(doc), document=doc)
            before = copy.deepcopy(screen.doc)
            ops = screen.take(frames.text_for(spec.topic, message, screen.version))
            assert screen.version == version
            assert screen.doc == orjson.loads(orjson.dumps(doc))
            if ops is not None:
                kinds.update(op[0] for op in _every(ops))
            if ops is not None and (len(js_cases) < 150 or pick.random() < 0.05 or (
                    "p" in {op[0] for op in _every(ops)} and pick.random() < 0.5)):
                js_cases.append((before, ops))
                js_expected.append(copy.deepcopy(screen.doc))
    assert events > 100
    assert {"p", "w", "@", "a", "m"} <= kinds, kinds  # splices too (a good-road badge before the legend)
    assert all(s.deltas > 5 * s.fulls for s in screens)  # deltas are the rule, whole documents the new shoes
    assert js_apply(js_cases) == js_expected


def test_table_page_model_delta_at_round_80_is_small(app, client):
    """Issue 14 figure: the model delta a table page and a lobby page get for round 80 of a shoe
    (a table page follows the topic of its orientation, here landscape; a road window scrolls now
    and then, a good-road badge comes or goes: a splice)."""
    feed = Feed(client)
    for k, table in enumerate(("L1", "L2", "L3")):
        assert feed.round(1, 1, *dealt_rounds(1, seed=40 + k)[0], table=table).status_code == 201
    with app.test_request_context("/tables/T1?orient=landscape"):
        specs = [model_specs.table_spec("T1"), model_specs.lobby_spec()[0]]
    hub, frames = Hub(), FrameCache()
    sizes: list[list[int]] = [[], []]
    for n, (player, banker) in enumerate(dealt_rounds(80, seed=8), 1):
        assert feed.round(1, n, player, banker).status_code == 201
        with app.app_context():
            for i, spec in enumerate(specs):
                doc = app.extensions["roads.push"].documents.build(spec)
                message = hub.publish(spec.topic, n, orjson.dumps(doc), document=doc)
                sizes[i].append(len(frames.text_for(spec.topic, message, n - 1)))
    table, lobby = sizes
    whole = len(frames.text_for(specs[0].topic, hub.latest(specs[0].topic), None))
    assert whole > 15_000
    print("table page deltas, rounds 71-80:", table[70:])
    # one orientation; the scrolled road windows cost a window op each (15 KB whole before), a
    # badge that comes or goes a splice of the footer (the legend after it stays) or of the last
    # result (its other texts merged: round 80 was 1,613 B when the splice resent them whole)
    assert sorted(table[70:])[5] <= 1_400, table[70:]
    assert table[-1] <= 1_450, table[70:]
    assert max(table[70:]) <= 1_536, table[70:]
    assert max(lobby[70:]) <= 1_536, lobby[70:]


cells = st.lists(st.fixed_dictionaries({"x": st.integers(-50, 2000), "y": st.integers(0, 9),
                                        "c": st.sampled_from(["banker", "player", "tie"])},
                                       optional={"n": st.just(1), "nat": st.just(1)}),
                 max_size=30)


@st.composite
def scrolled(draw):
    """A road's cells (keyed "k") and the same road later: its window scrolled by some cells and
    pixels, some cells changed, new ones appended or the tail cut."""
    old = [dict(cell, k=i) for i, cell in enumerate(draw(cells))]
    drop = draw(st.integers(0, len(old)))
    dx, dy = draw(st.integers(-80, 80)), draw(st.sampled_from([0, 0, 3]))
    new = [dict(cell, x=cell["x"] + dx, y=cell["y"] + dy) for cell in old[drop:]]
    for i in draw(st.lists(st.integers(0, max(0, len(new) - 1)), max_size=3)):
        if new:
            new[i] = dict(new[i], c="tie", n=1)
    if new and draw(st.booleans()):
        del new[draw(st.integers(0, len(new) - 1)):]
    start = len(old)
    new += [dict(cell, k=start + i) for i, cell in enumerate(draw(cells)[:3])]
    return {"roads": [{"id": "bead_plate", "cells": old}]}, {"roads": [{"id": "bead_plate", "cells": new}]}


@settings(max_examples=400, deadline=None)
@given(scrolled())
def test_scrolled_cells_diff_applies_in_python_and_gives_the_new_list(pair):
    old, new = pair
    kept = copy.deepcopy(old)
    ops = orjson.loads(orjson.dumps(diff(old, new)))
    assert old == kept
    assert apply(copy.deepcopy(old), ops) == new


def test_scrolled_cells_diff_applies_in_the_page_too():
    """The same kind of pairs through static/js/delta.js (Node), including window and scope ops."""
    rng = random.Random(7)
    cases, expected, kinds = [], [], set()
    for _ in range(300):
        old = [{"k": i, "x": 20 + 66 * (i // 6), "y": 558 + 66 * (i % 6), "c": rng.choice("bpt")}
               for i in range(rng.randrange(0, 90))]
        drop = 6 * rng.randrange(0, 3)
        new = [dict(c, x=c["x"] - 66 * (drop // 6)) for c in old[drop:]]
        for _ in range(rng.randrange(3)):
            if new:
                i = rng.randrange(len(new))
                new[i] = dict(new[i], n=1)
        new += [{"k": len(old) + i, "x": 9, "y": 9, "c": "b"} for i in range(rng.randrange(3))]
        a, b = {"models": {"landscape": {"roads": [{"cells": old}]}}}, {"models": {"landscape": {"roads": [{"cells": new}]}}}
        ops = orjson.loads(orjson.dumps(diff(a, b)))
        kinds.update(op[0] for op in _every(ops))
        assert apply(copy.deepcopy(a), ops) == b
        cases.append((a, ops))
        expected.append(b)
    assert {"w", "@", "a"} <= kinds
    assert js_apply(cases) == expected


@st.composite
def spliced(draw):
    """A panel's items and the same panel later: a few items in the middle gone, changed or new
    (a good-road badge came or went), the items before and after them the same."""
    item = st.fixed_dictionaries({"p": st.sampled_from(["t", "r", "m"]), "x": st.integers(0, 1900),
                                  "t": st.sampled_from(["Banker", "Player 6", "Long Banker 4", "None"])})
    head, middle, tail = draw(st.lists(item, max_size=4)), draw(st.lists(item, max_size=4)), draw(st.lists(item, max_size=12))
    return {"panels": [{"items": head + middle + tail}]}, {"panels": [{"items": head + draw(st.lists(item, max_size=4)) + tail}]}


@settings(max_examples=400, deadline=None)
@given(spliced())
def test_spliced_items_diff_applies_in_python_and_gives_the_new_list(pair):
    old, new = pair
    kept = copy.deepcopy(old)
    ops = orjson.loads(orjson.dumps(diff(old, new)))
    assert old == kept
    assert apply(copy.deepcopy(old), ops) == new


def test_spliced_items_diff_applies_in_the_page_too():
    """A badge before the legend (hand-made: the legend's 12 items stay, the title before them
    too): one splice op, shorter than the whole list, and static/js/delta.js applies it alike."""
    legend = [{"p": "t", "t": f"legend {i}", "x": 700 + 40 * i} for i in range(12)]
    title = {"p": "t", "t": "Good roads", "x": 33}
    none = {"p": "t", "t": "None", "x": 188}
    badge = [{"p": "r", "x": 188, "w": 228}, {"p": "t", "t": "Long Banker 4", "x": 209}]
    a, b = {"panels": [{"items": [title, none, *legend]}]}, {"panels": [{"items": [title, *badge, *legend]}]}
    ops = diff(a, b)
    assert ops == [["p", ["panels", 0, "items"], 1, 1, badge]]
    back = diff(b, a)
    assert back == [["p", ["panels", 0, "items"], 1, 2, [none]]]
    rng = random.Random(9)
    cases, expected = [(a, ops), (b, back)], [b, a]
    for _ in range(200):
        head = [{"t": str(rng.randrange(50))} for _ in range(rng.randrange(4))]
        tail = [{"t": str(rng.randrange(50))} for _ in range(rng.randrange(1, 12))]
        old = head + [{"t": "o" + str(rng.randrange(50))} for _ in range(rng.randrange(4))] + tail
        new = head + [{"t": "n" + str(rng.randrange(50))} for _ in range(rng.randrange(4))] + tail
        x, y = {"items": old}, {"items": new}
        ops = orjson.loads(orjson.dumps(diff(x, y)))
        assert apply(copy.deepcopy(x), ops) == y
        cases.append((x, ops))
        expected.append(y)
    assert js_apply(cases) == expected



def test_a_badge_inserted_before_items_that_changed_text_is_spliced_alone():
    """The last-result panel of round 80 (hand-made): a Natural badge comes at index 1 while the
    winner and the hands change text and the time after them stays. The splice inserts the badge
    only; the winner (index 0) and the hands (new indices 2 and 4) are merged in place, not sent
    again whole. Removing the badge is the same splice backwards."""
    def text(t, x, c):
        return {"p": "t", "t": t, "x": x, "y": 115.8, "s": 26, "c": c}

    time = text("14:44:51", 1888, "muted")
    natural = text("Natural", 1888, "badge_text")
    a = {"panels": [{"items": [text("Player", 1500, "player"), text("Player 9", 1500, "player"),
                               text(" · ", 1603.6, "muted"), text("Banker 0", 1624.5, "banker"), time]}]}
    b = {"panels": [{"items": [text("Banker", 1500, "banker"), natural, text("Player 6", 1500, "player"),
                               text(" · ", 1603.6, "muted"), text("Banker 9", 1624.5, "banker"), time]}]}
    ops = diff(a, b)
    assert ops == [["@", ["panels", 0, "items"], [
        ["p", [], 1, 0, [natural]],
        ["m", [0], {"t": "Banker", "c": "banker"}],
        ["m", [2], {"t": "Player 6"}],
        ["m", [4], {"t": "Banker 9"}],
    ]]]
    back = diff(b, a)
    assert back == [["@", ["panels", 0, "items"], [
        ["p", [], 1, 1, []],
        ["m", [0], {"t": "Player", "c": "player"}],
        ["m", [1], {"t": "Player 9"}],
        ["m", [3], {"t": "Banker 0"}],
    ]]]
    assert apply(copy.deepcopy(a), orjson.loads(orjson.dumps(ops))) == b
    assert apply(copy.deepcopy(b), orjson.loads(orjson.dumps(back))) == a
    # the time changed too (a round a second later): no common tail, the same alignment
    later = copy.deepcopy(b)
    later["panels"][0]["items"][5]["t"] = "14:44:52"
    assert diff(a, later)[0][2][-1] == ["m", [5], {"t": "14:44:52"}]
    assert js_apply([(a, ops), (b, back), (a, diff(a, later))]) == [b, a, later]


def _every(ops):
    """Every operation, scopes and what they hold."""
    for op in ops:
        yield op
        if op[0] == "@":
            yield from _every(op[2])


@pytest.mark.parametrize("ops", [
    [["w", ["l"], 3, {}]],  # past the end
    [["w", ["l"], 0, {"x": 1}]],  # elements without an integer x
    [["w", ["m"], 0, {}]],  # not a list
    [["@", ["l"], [["s", [7], 1]]]],  # scoped index out of range
    [["@", ["nope"], [["m", [], {"a": 1}]]]],
    [["@", [], "not ops"]],
    [["p", ["l"], 1, 2, []]],  # splice past the end
    [["p", ["l"], 3, 0, [1]]],  # start past the end
    [["p", ["m"], 0, 0, [1]]],  # not a list
    [["p", ["l"], 0, 1, "x"]],  # items not a list
])
def test_window_and_scope_operations_that_do_not_fit_are_refused(ops):
    with pytest.raises(ValueError):
        apply({"l": [1, 2], "m": {"a": 1}}, ops)



def test_many_sockets_asking_at_once_build_the_model_once_at_its_source_version(app, client):
    """Screens connecting together all ask for the topic; the document is built once and keeps
    its table's version (a second build at the same version used to publish version + 1, ahead
    of the table, so a screen took that frame for the next round's)."""
    import threading

    from web.extensions import get_push

    feed = Feed(client)
    assert feed.round(1, 1, *dealt_rounds(1, seed=5)[0]).status_code == 201
    with app.test_request_context("/tables/T1"):
        spec = model_specs.table_spec("T1")
    live = get_push(app).page_models
    versions, start = [], threading.Barrier(12)

    def ask():
        start.wait()
        with app.app_context():
            versions.append(live.ensure(spec).version)

    threads = [threading.Thread(target=ask) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert versions == [1] * 12 and live.builds == 1
