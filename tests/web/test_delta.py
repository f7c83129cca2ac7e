"""Deltas of pushed documents (web/push/delta.py, web/push/frames.py): a screen that starts from the
first full frame and applies every delta frame after it holds, at every version, exactly the
document the full frame of that version carries.

The independent reference is the full document itself (the JSON API's bytes): the delta is
never compared with expected operations computed by the code under test, only applied.
"""

from __future__ import annotations

import copy
import json
import random

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roads.cards import full_deck
from roads.outcome import RoundResult
from roads.tableau import deal_round
from roads.shoe_roads import ShoeRoads
from roads.snapshot import build_snapshot
from roads.variants import DEFAULT_VARIANT_ID, get_variant
from web.push.delta import apply, diff
from web.push.frames import FrameCache
from web.push.hub import Hub
from support.feed import Feed

VARIANT = get_variant(DEFAULT_VARIANT_ID)


class Dealer:
    """Legal rounds dealt by the tableau (docs/domain.md) from a shuffled eight-deck shoe,
    reshuffled when fewer than 12 cards are left."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.cards: list = []

    def result(self) -> RoundResult:
        if len(self.cards) < 12:
            self.cards = full_deck() * 8
            self.rng.shuffle(self.cards)
        player, banker = deal_round(self.cards.pop)
        return RoundResult.from_cards(player, banker)


def random_table_history(rng: random.Random, shoes: int):
    """Yield the snapshot after every event of ``shoes`` random shoes of one table: rounds,
    voids and corrections of random earlier rounds, then the next shoe."""
    version = 0
    dealer = Dealer(rng)
    for shoe in range(1, shoes + 1):
        roads = ShoeRoads()
        counted: list[int] = []
        number = 0
        length = rng.choice((1, 2, 4, 8, 16, 30, 85)) + rng.randrange(4)
        for _ in range(length):
            r = rng.random()
            if counted and r < 0.06:
                n = rng.choice(counted)
                roads.void(n)
                counted.remove(n)
            elif counted and r < 0.14:
                roads.correct(rng.choice(counted), dealer.result())
            else:
                number += 1 + (rng.random() < 0.03)  # now and then the feed skips a number
                roads.record(number, dealer.result())
                counted.append(number)
            version += 1
            snap = build_snapshot(table="T1", shoe=shoe, version=version, roads=roads, variant=VARIANT)
            snap["name"] = "Table 1"
            snap["live"] = True
            yield snap


class Screen:
    """A client of one topic: takes every frame as the page does (static/js/delta.js)."""

    def __init__(self) -> None:
        self.doc = None
        self.version = None
        self.deltas = 0
        self.fulls = 0

    def take(self, frame: bytes) -> None:
        msg = orjson.loads(frame)
        if msg["type"] == "snapshot":
            self.doc, self.version = msg["data"], msg["version"]
            self.fulls += 1
        else:
            assert msg["type"] == "delta" and msg["base"] == self.version
            self.doc = apply(self.doc, msg["ops"])
            self.version = msg["version"]
            self.deltas += 1


def test_applying_every_delta_of_random_shoes_gives_the_full_snapshot_at_every_version():
    """2,000 random shoes (with voids, corrections, skipped numbers and new shoes) over 40
    tables; a screen per table gets the first frame full and then what the cache sends a
    client at the previous version; after every version its document equals the snapshot
    (the API's bytes, decoded). Also a late screen at a random older version gets the full frame."""
    rng = random.Random(14)
    hub, frames = Hub(), FrameCache()
    versions = 0
    for table in range(40):
        topic = f"table:T{table}"
        screen = Screen()
        for snap in random_table_history(rng, shoes=50):
            payload = orjson.dumps(snap)
            message = hub.publish(topic, snap["version"], payload, document=snap)
            screen.take(frames.text_for(topic, message, screen.version))
            assert screen.version == snap["version"]
            assert screen.doc == orjson.loads(payload)
            versions += 1
            if rng.random() < 0.01:  # a screen that missed versions gets the whole snapshot
                late = frames.text_for(topic, message, snap["version"] - 2)
                assert json.loads(late)["type"] == "snapshot"
        assert screen.deltas > 10 * screen.fulls  # deltas are the rule, snapshots the new shoes
    assert versions > 30_000


def test_a_new_shoe_is_a_full_frame_and_the_first_round_after_it_a_delta():
    rng = random.Random(3)
    hub, frames = Hub(), FrameCache()
    kinds = []
    previous_shoe = None
    for snap in random_table_history(rng, shoes=4):
        payload = orjson.dumps(snap)
        message = hub.publish("table:T1", snap["version"], payload, document=snap)
        kind = json.loads(frames.text_for("table:T1", message, snap["version"] - 1))["type"]
        kinds.append((snap["shoe"] != previous_shoe and previous_shoe is not None, kind))
        previous_shoe = snap["shoe"]
    assert all(kind == "snapshot" for new, kind in kinds if new)
    assert all(kind == "delta" for new, kind in kinds[1:] if not new)


def test_delta_of_round_80_is_small():
    """Issue figure: bytes per update per screen at round 80 at most 1.5 KB (was 34 KB)."""
    rng = random.Random(80)
    roads = ShoeRoads()
    dealer = Dealer(rng)
    hub, frames = Hub(), FrameCache()
    sizes = []
    for number in range(1, 81):
        roads.record(number, dealer.result())
        snap = build_snapshot(table="T1", shoe=1, version=number, roads=roads, variant=VARIANT)
        message = hub.publish("table:T1", number, orjson.dumps(snap), document=snap)
        sizes.append(len(frames.text_for("table:T1", message, number - 1)))
    assert sizes[-1] <= 1536, sizes[-5:]
    assert len(orjson.dumps(snap)) > 15_000


def test_documents_given_as_bytes_only_are_decoded_for_the_delta():
    hub, frames = Hub(), FrameCache()
    hub.publish("lobby", 1, b'[{"id":"T1","round":1},{"id":"T2","round":4}]')
    m2 = hub.publish("lobby", 2, b'[{"id":"T1","round":2},{"id":"T2","round":4}]')
    delta = json.loads(frames.text_for("lobby", m2, 1))
    assert delta == {"type": "delta", "topic": "lobby", "base": 1, "version": 2, "ops": [["m", [0], {"round": 2}]]}


def test_a_delta_names_the_base_it_was_diffed_from_even_if_the_hub_drops_that_base_meanwhile(monkeypatch):
    # Two newer publishes drop a message's base (the hub keeps three messages alive). A frame
    # builder that diffed from the base and then read the message's base version again sent
    # {"base": null} (seen once as "delta from None" in tests/web/test_ws.py under load).
    import web.push.frames as frames_module

    hub, frames = Hub(), FrameCache()
    hub.publish("lobby", 1, b'{"round":1}')
    m2 = hub.publish("lobby", 2, b'{"round":2}')
    real_diff = frames_module.diff

    def diff_then_two_publishes(old, new):
        ops = real_diff(old, new)
        hub.publish("lobby", 3, b'{"round":3}')
        hub.publish("lobby", 4, b'{"round":4}')  # m2.base is now None
        return ops

    monkeypatch.setattr(frames_module, "diff", diff_then_two_publishes)
    delta = json.loads(frames.text_for("lobby", m2, 1))
    assert m2.base is None
    assert delta == {"type": "delta", "topic": "lobby", "base": 1, "version": 2, "ops": [["m", [], {"round": 2}]]}


def test_hub_keeps_at_most_three_messages_of_a_topic_alive():
    hub = Hub()
    for v in range(1, 6):
        m = hub.publish("t", v, b"{}")
    assert m.base.version == 4 and m.base.base.version == 3 and m.base.base.base is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.sampled_from("abcde"), children, max_size=5),
    max_leaves=25,
)


@settings(max_examples=500, deadline=None)
@given(json_values, json_values)
def test_apply_of_diff_gives_the_new_document(old, new):
    """Any two JSON documents (hypothesis): apply(old, diff(old, new)) == new, through the
    wire encoding, and ``old`` itself is left as it was by diff."""
    kept = copy.deepcopy(old)
    ops = orjson.loads(orjson.dumps(diff(old, new)))
    assert old == kept
    assert apply(copy.deepcopy(old), ops) == new


@pytest.mark.parametrize("ops", [
    [["a", ["x"], [1]]],  # append to a missing key
    [["s", ["l", 5], 1]],  # index out of range
    [["t", ["l"], 9]],
    [["d", ["nope"]]],
    [["z", [], 1]],
])
def test_operations_that_do_not_fit_are_refused(ops):
    with pytest.raises(ValueError):
        apply({"l": [1, 2]}, ops)


def test_snapshot_bytes_are_those_of_the_standard_json_encoding():
    """The JSON API's bytes must not change with the faster encoder (web.snapshots.encode)."""
    from web.snapshots import encode

    rng = random.Random(5)
    for i, snap in enumerate(random_table_history(rng, shoes=30)):
        if i % 7 == 0:
            assert encode(snap) == json.dumps(snap, ensure_ascii=False, separators=(",", ":")).encode()
    for tricky in ({"p": 1e-05}, {"p": 1.5e-7}, {"big": 2**70}, {"s": "0.00001 e-5"}, {"x": [0.1, 100.0, 48.8]}):
        assert encode(tricky) == json.dumps(tricky, ensure_ascii=False, separators=(",", ":")).encode()


def test_a_write_publishes_a_lobby_delta_of_that_one_table(app, client, deal):
    """30 tables in the lobby; a round at table T17 gives a lobby delta whose every operation
    is inside T17's entry, and applied to the previous list it gives the new list (the API's)."""
    from web.service import get_service

    hub = get_service(app).hub
    feed = Feed(client)
    cards = deal(40, seed=9)
    for n in range(30):
        assert feed.round(1, 1, *cards[n], table=f"T{n:02d}").status_code == 201
    before = client.get("/api/tables").get_json()["tables"]
    base = hub.latest("lobby")
    assert feed.round(1, 2, *cards[35], table="T17").status_code == 201
    message = hub.latest("lobby")
    assert message.base is base
    index = [t["id"] for t in before].index("T17")
    frame = json.loads(FrameCache().text_for("lobby", message, base.version))
    assert frame["type"] == "delta" and frame["ops"]
    assert all(op[1][0] == index for op in frame["ops"])
    assert apply(copy.deepcopy(before), frame["ops"]) == client.get("/api/tables").get_json()["tables"]
    assert len(orjson.dumps(frame)) < 2000 < len(message.payload)
