"""The pipeline, in process: any split of a stream gives the rounds that were dealt; and an
adapter "killed" at any byte (the bytes journaled, the state not committed), started again from
its spool, makes exactly the messages of an uninterrupted run, none lost, none twice."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shoes.angel_eye import AngelEyeDecoder
from shoes.deal import RoundFollower
from shoes.pipeline import Pipeline
from shoes.spool import Spool
from support.shoe_streams import StreamWriter, dealt_rounds


def _stream(seed: int, n: int) -> tuple[bytes, list[tuple[list[str], list[str]]]]:
    rng = random.Random(seed)
    w = StreamWriter(rng=rng)
    w.start()
    w.new_shoe("KC", ["2H"] * 10)
    played = dealt_rounds(n, seed)
    for player, banker in played:
        w.round(player, banker, face_down=rng.random() < 0.5, stand_by=rng.random() < 0.7)
    return bytes(w.data), played


def _rounds(messages: list[dict]) -> list[tuple[list[str], list[str]]]:
    """Whole rounds from the card messages, worked with the deal order P1 B1 P2 B2 P3/B3 and
    the positions the messages carry (the side of a fifth card read from its round's cards)."""
    by_round: dict[int, list[str]] = {}
    for m in messages:
        if m["type"] == "cards":
            cards = by_round.setdefault(m["round"], [])
            assert m["position"] == len(cards) + 1, m
            cards.extend(m["cards"])
    return [tuple(c) for _, c in sorted(by_round.items())]  # type: ignore[misc]


def _deal_order(player: list[str], banker: list[str]) -> tuple[str, ...]:
    return tuple([player[0], banker[0], player[1], banker[1]] + player[2:] + banker[2:])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), cuts=st.lists(st.integers(0, 10**6), max_size=40))
def test_any_split_of_a_stream_posts_the_dealt_rounds_in_deal_order(seed, cuts):
    data, played = _stream(seed, 6)
    decoder, follower = AngelEyeDecoder(), RoundFollower("T1", shoe=None, round=0)
    points = sorted({c % (len(data) + 1) for c in cuts})
    messages = []
    for a, b in zip([0] + points, points + [len(data)]):
        for e in decoder.feed(data[a:b]):
            messages += follower.handle(e)
    assert [m for m in messages if m["type"] == "shoe"] == [{"type": "shoe", "table": "T1", "shoe": 1,
                                                             "burn": ["KC"] + ["2H"] * 10}]
    # the last round waits for its release when the stream ends without a stand-by after the result
    complete = follower.stats.rounds_complete
    assert _rounds(messages)[:complete] == [_deal_order(p, b) for p, b in played][:complete]
    assert complete >= len(played) - 1 and follower.stats.rounds_voided == follower.stats.rounds_held == 0


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), kills=st.lists(st.integers(0, 10**6), min_size=1, max_size=6))
def test_a_kill_at_any_byte_loses_no_message_and_repeats_none(seed, kills):
    data, _ = _stream(seed, 4)
    with tempfile.TemporaryDirectory() as tmp:
        whole = Spool(Path(tmp) / "whole", "T1")
        p = Pipeline(whole, AngelEyeDecoder, "T1", expects_result=True)
        p.start(None, 0)
        for i in range(0, len(data), 7):
            p.feed(data[i:i + 7])
        expected = [m for _, m, _, _, _ in whole.rows()]
        whole.close()

        spool = Spool(Path(tmp) / "killed", "T1")
        p = Pipeline(spool, AngelEyeDecoder, "T1", expects_result=True)
        p.start(None, 0)
        points = sorted({k % len(data) for k in kills})
        pos = 0
        for point in points + [len(data)]:
            while pos < point:
                step = min(7, point - pos)
                p.feed(data[pos:pos + step])
                pos += step
            if point < len(data):
                # killed after the read was journaled, before it was parsed and committed
                spool.journal_append(data[pos:pos + 1])
                pos += 1
                spool.close()
                spool = Spool(Path(tmp) / "killed", "T1")
                p = Pipeline(spool, AngelEyeDecoder, "T1", expects_result=True)
                p.catch_up()
        got = [m for _, m, _, _, _ in spool.rows()]
        spool.close()
    assert got == expected


def test_a_journal_read_to_its_end_is_rotated_and_the_stream_goes_on(tmp_path):
    data, _ = _stream(9, 6)
    cut = len(data) // 2
    whole = Spool(tmp_path / "whole", "T1")
    p = Pipeline(whole, AngelEyeDecoder, "T1", expects_result=True)
    p.start(None, 0)
    p.feed(data)
    expected = [m for _, m, _, _, _ in whole.rows()]
    whole.close()

    spool = Spool(tmp_path / "rotated", "T1")
    p = Pipeline(spool, AngelEyeDecoder, "T1", expects_result=True)
    p.start(None, 0)
    p.feed(data[:cut])
    assert p.rotate_journal(threshold=100) is True
    assert spool.journal_size() == 0 and sorted(f.name for f in (tmp_path / "rotated").glob("journal*")) == \
        ["journal.1.bin"]
    spool.close()
    spool = Spool(tmp_path / "rotated", "T1")   # started again: numbers and reader state kept
    p = Pipeline(spool, AngelEyeDecoder, "T1", expects_result=True)
    p.catch_up()
    p.feed(data[cut:])
    assert [m for _, m, _, _, _ in spool.rows()] == expected
    spool.close()
