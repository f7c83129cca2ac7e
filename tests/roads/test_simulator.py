"""The simulated table feed: real shoes (burn, cut card, tableau) as feed messages.

Expected facts come from the rules, not from the simulator's output: the burn procedure
and the cut-card rule (docs/domain.md section 2, seeds 000-002), the tableau (section 1,
checked by ``roads.tableau.check_round``), the feed body shape (docs/api.md).
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys

import pytest

from roads import simulator
from roads.cards import full_deck, parse_cards
from roads.simulator import FeedLineError, FeedRequest, feed_body, feed_request
from roads.tableau import check_round

BURN_COUNT = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
              "T": 10, "J": 10, "Q": 10, "K": 10}
"""Seed 000/001 burn rule: the turned card's value says how many cards follow it into the
discard; 10, J, Q, K burn 10 (so the ace burns 1, unlike its baccarat value rule for 10s)."""


def shoes_of(messages):
    """Split messages into shoes: list of (shoe message, [round messages])."""
    shoes = []
    for m in messages:
        if m["type"] == simulator.SHOE:
            shoes.append((m, []))
        else:
            shoes[-1][1].append(m)
    return shoes


@pytest.fixture(scope="module")
def three_shoes():
    return list(simulator.simulate("T1", seed=11, shoes=3))


def test_each_shoe_starts_with_a_shoe_message_then_rounds_numbered_from_one(three_shoes):
    shoes = shoes_of(three_shoes)
    assert [s["shoe"] for s, _ in shoes] == [1, 2, 3]
    for start, rounds in shoes:
        assert [r["round"] for r in rounds] == list(range(1, len(rounds) + 1))
        assert all(r["shoe"] == start["shoe"] and r["table"] == "T1" for r in rounds)
        # An 8-deck shoe cut 14-52 cards from the back holds far more than 50 rounds
        # (416 cards, at most 6 per round, at most 11 burned).
        assert len(rounds) >= (416 - 11 - 52) // 6


def test_every_round_follows_the_tableau(three_shoes):
    for m in three_shoes:
        if m["type"] == simulator.ROUND:
            check_round(parse_cards(m["player"]), parse_cards(m["banker"]))


def test_burn_is_the_turned_card_then_as_many_cards_as_its_value_tens_burn_ten(three_shoes):
    for start, _ in shoes_of(three_shoes):
        burn = parse_cards(start["burn"])
        assert len(burn) == 1 + BURN_COUNT[burn[0].rank]


def test_no_card_is_dealt_more_often_than_the_shoe_holds_it(three_shoes):
    for start, rounds in shoes_of(three_shoes):
        seen = collections.Counter(start["burn"])
        for r in rounds:
            seen.update(r["player"] + r["banker"])
        assert set(seen) <= {str(c) for c in full_deck()}
        assert max(seen.values()) <= 8


def test_only_the_last_round_of_a_shoe_is_marked_with_the_cut_card(three_shoes):
    for _, rounds in shoes_of(three_shoes):
        assert [r.get("cut_card", False) for r in rounds] == [False] * (len(rounds) - 1) + [True]


@pytest.mark.parametrize("position", [14, 30, 52, 100])
def test_the_last_round_is_the_one_during_or_right_after_which_the_cut_card_comes_out(position):
    """Seed 000-002: the cut card lies ``position`` cards from the back, so ``416 - position``
    cards are in front of it. It comes out during the last round (cards before the round <
    cards in front of it < cards after it) or as the first card after the last round (cards
    after it == cards in front of it)."""
    for shoe in (1, 2, 3, 4):
        start, rounds = shoes_of(simulator.simulate_shoe("T1", shoe, seed="cut", cut_card_position=position))[0]
        assert start["cut_card_position"] == position
        in_front = 8 * 52 - position
        used = len(start["burn"])
        for r in rounds[:-1]:
            used += len(r["player"]) + len(r["banker"])
        before_last = used
        after_last = used + len(rounds[-1]["player"]) + len(rounds[-1]["banker"])
        assert before_last < in_front <= after_last


def test_a_random_cut_card_is_placed_between_a_quarter_deck_and_one_deck_from_the_back(three_shoes):
    for start, _ in shoes_of(three_shoes):
        assert 14 <= start["cut_card_position"] <= 52


def test_six_deck_shoes_hold_each_card_at_most_six_times():
    start, rounds = shoes_of(simulator.simulate_shoe("mini", 1, seed=2, decks=6))[0]
    seen = collections.Counter(start["burn"])
    for r in rounds:
        seen.update(r["player"] + r["banker"])
    assert max(seen.values()) <= 6


@pytest.mark.parametrize("position", [14, 29, 52])
def test_burning_between_rounds_puts_the_burn_card_on_the_next_round_and_keeps_the_cut_card_rule(position):
    """Seed 002 burns one card between every two rounds; a burn card is one more card in
    front of the round it precedes, so the cut-card rule above still holds with it counted."""
    for shoe in (1, 2, 3):
        start, rounds = shoes_of(simulator.simulate_shoe("T2", shoe, seed=5, burn_between_rounds=True,
                                                         cut_card_position=position))[0]
        assert "burn" not in rounds[0]
        assert all(len(parse_cards(r["burn"])) == 1 for r in rounds[1:])
        for r in rounds:
            check_round(parse_cards(r["player"]), parse_cards(r["banker"]))
        seen = collections.Counter(start["burn"])
        used = len(start["burn"])
        for r in rounds:
            before = used
            used += len(r.get("burn", [])) + len(r["player"]) + len(r["banker"])
            seen.update(r.get("burn", []) + r["player"] + r["banker"])
        assert max(seen.values()) <= 8
        assert before < 416 - position <= used
        assert rounds[-1]["cut_card"] is True


def test_a_variant_is_written_on_the_shoe_message_only_when_given():
    plain = next(simulator.simulate("T1", seed=1))
    assert "variant" not in plain
    assert next(simulator.simulate("T1", seed=1, variant="seed000"))["variant"] == "seed000"


def test_the_same_seed_deals_the_same_shoes_and_another_seed_does_not():
    a = list(simulator.simulate("T1", seed=7, shoes=2))
    assert a == list(simulator.simulate("T1", seed=7, shoes=2))
    assert a != list(simulator.simulate("T1", seed=8, shoes=2))
    # Another table with the same seed deals its own shoes.
    assert [m["player"] for m in a if m["type"] == "round"][:5] != \
        [m["player"] for m in simulator.simulate("T2", seed=7, shoes=1) if m["type"] == "round"][:5]


def test_a_shoe_does_not_depend_on_the_shoes_dealt_before_it():
    two = shoes_of(simulator.simulate("T1", seed=3, shoes=2))
    alone = shoes_of(simulator.simulate("T1", seed=3, shoes=1, first_shoe=2))
    assert two[1] == alone[0]


def test_the_file_is_the_same_in_another_process_with_another_hash_seed(tmp_path):
    code = ("import json, sys; from roads import simulator\n"
            "sys.stdout.write(''.join(simulator.to_line(m) for m in simulator.simulate('T1', seed='x', shoes=1)))\n")
    outs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        outs.append(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                   check=True, env=env).stdout)
    assert outs[0] == outs[1]
    assert outs[0] == "".join(simulator.to_line(m) for m in simulator.simulate("T1", seed="x", shoes=1))


def test_endless_simulation_keeps_starting_the_next_shoe():
    gen = simulator.simulate("T1", seed=1, shoes=None)
    starts = []
    for m in gen:
        if m["type"] == simulator.SHOE:
            starts.append(m["shoe"])
            if len(starts) == 4:
                break
    assert starts == [1, 2, 3, 4]


@pytest.mark.parametrize("kwargs, message", [
    ({"shoes": -1}, "shoe count must be an integer >= 0, got -1"),
    ({"shoes": 1, "first_shoe": 0}, "shoe number must be an integer >= 1, got 0"),
])
def test_bad_counts_are_refused(kwargs, message):
    with pytest.raises(ValueError) as info:
        list(simulator.simulate("T1", **kwargs))
    assert str(info.value) == message


def test_zero_shoes_is_an_empty_feed():
    assert list(simulator.simulate("T1", shoes=0)) == []


# ----------------------------------------------------------------------- the feed shape
def test_a_round_body_is_exactly_the_card_level_feed_form():
    m = {"type": "round", "table": "T1", "shoe": 3, "round": 42,
         "player": ["4S", "KD", "9H"], "banker": ["7C", "JD"], "cut_card": True}
    assert feed_request(m) == FeedRequest(
        "/api/tables/T1/rounds",
        {"shoe": 3, "round": 42, "player": ["4S", "KD", "9H"], "banker": ["7C", "JD"], "cut_card": True})


def test_a_shoe_message_goes_to_the_shoes_endpoint_with_burn_and_cut_card():
    m = {"type": "shoe", "table": "T9", "shoe": 2, "burn": ["3H", "KD", "2C", "9S"], "cut_card_position": 30}
    assert feed_request(m) == FeedRequest("/api/tables/T9/shoes",
                                          {"shoe": 2, "burn": ["3H", "KD", "2C", "9S"], "cut_card_position": 30})
    assert feed_body(m) == {"shoe": 2, "burn": ["3H", "KD", "2C", "9S"], "cut_card_position": 30}


def test_a_table_id_is_percent_encoded_in_the_path():
    m = {"type": "shoe", "table": "a/b c", "shoe": 1}
    assert feed_request(m).path == "/api/tables/a%2Fb%20c/shoes"


def test_feed_request_refuses_an_unknown_type():
    with pytest.raises(ValueError, match="unknown message type 'void'"):
        feed_request({"type": "void", "table": "T1"})


def test_lines_keep_non_ascii_table_ids_readable():
    line = simulator.to_line({"type": "round", "table": "百家乐", "shoe": 1, "round": 1,
                              "player": ["AS", "2S"], "banker": ["3S", "4S"]})
    assert "百家乐" in line and line.endswith("}\n")


def test_whole_rounds_folds_cards_into_rounds_skipping_repeats_and_leaving_out_an_unfinished_round():
    from roads.simulator import whole_rounds

    def cards(rnd, position, *cs, **extra):
        return {"type": "cards", "table": "T", "shoe": 1, "round": rnd, "position": position, "cards": list(cs),
                **extra}

    feed = [
        {"type": "state", "table": "T", "state": "shuffling"},
        {"type": "shoe", "table": "T", "shoe": 1, "burn": ["2S", "AH", "KD"]},
        {"type": "state", "table": "T", "state": "dealing"},
        cards(1, 1, "4S", "7C", burn=["8C"]),
        cards(1, 2, "7C", "KD"),          # card 2 again, then card 3
        cards(1, 4, "JD"),
        cards(1, 5, "9H", cut_card=True),  # player 4 draws (9): 3; banker 7 stands on a 9: complete
        cards(2, 1, "AS", "2C"),          # a misdeal: never completed
    ]
    out = list(whole_rounds(enumerate(feed, 1)))
    assert out == [(2, feed[1]), (7, {"type": "round", "table": "T", "shoe": 1, "round": 1, "player": ["4S", "KD", "9H"],
                                      "banker": ["7C", "JD"], "burn": ["8C"], "cut_card": True})]


def test_whole_rounds_names_the_line_of_a_card_that_differs_or_is_not_dealt():
    from roads.simulator import whole_rounds

    base = {"type": "cards", "table": "T", "shoe": 1, "round": 1}
    with pytest.raises(FeedLineError, match="line 2: card 2 is 7C already, got 8C"):
        list(whole_rounds(enumerate([dict(base, position=1, cards=["4S", "7C"]),
                                     dict(base, position=2, cards=["8C"])], 1)))
    with pytest.raises(FeedLineError, match="line 2: .*card 5 \\(9H\\) is not dealt"):   # naturals: 9 v 8
        list(whole_rounds(enumerate([dict(base, position=1, cards=["9S", "8C", "KD", "JD"]),
                                     dict(base, position=5, cards=["9H"])], 1)))
