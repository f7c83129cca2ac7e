"""Feed files (web/cli/feed_file.py): each line checked with the HTTP feed's own request models,
so a file and the feed share one set of limits; every refusal names the line and the key.

Expected limits are the feed's (docs/api.md section "Feed (writes)": rounds 1-999, a hand of 2 or
3 cards, burn lists of at most 11 (shoe) or 16 (round) cards, deal positions 1-6), worked by hand.
"""

from __future__ import annotations

import json

import pytest

from roads import simulator
from roads.simulator import FeedLineError
from web.cli.feed_file import parse_feed_line, read_feed


@pytest.fixture(scope="module")
def three_shoes():
    return list(simulator.simulate("T1", seed=11, shoes=3))


def test_simulated_lines_parse_back_to_the_same_messages(three_shoes):
    text = "".join(simulator.to_line(m) for m in three_shoes)
    assert text.count("\n") == len(three_shoes)
    assert [m for _, m in read_feed(text.splitlines(keepends=True))] == three_shoes


def test_blank_lines_are_skipped_and_line_numbers_count_them():
    lines = ['{"type":"shoe","table":"T1","shoe":1}\n', "\n",
             '{"type":"round","table":"T1","shoe":1,"round":1,"player":["AS","2S"],"banker":["3S","4S"]}\n']
    assert [n for n, _ in read_feed(lines)] == [1, 3]


GOOD_ROUND = {"type": "round", "table": "T1", "shoe": 1, "round": 1, "player": ["AS", "2S"], "banker": ["3S", "4S"]}


def with_(**changes):
    d = dict(GOOD_ROUND)
    for k, v in changes.items():
        if v is ...:
            d.pop(k)
        else:
            d[k] = v
    return json.dumps(d)


@pytest.mark.parametrize("line, field, words", [
    ('{"type":"round","table":"T1","shoe":1,"round":1,"player":["AS","2', None, "not valid JSON"),
    ("[1, 2]", None, "must be a JSON object"),
    ("not json at all", None, "not valid JSON"),
    (with_(type="void"), "type", "'type' must be one of 'shoe', 'round', 'state', 'cards', 'hold', got 'void'"),
    (with_(type=...), "type", "got None"),
    (with_(table=""), "table", "'table' must be a non-empty table id, got ''"),
    (with_(table=7), "table", "got 7"),
    (with_(shoe=0), "shoe", "'shoe' must be an integer >= 1, got 0"),
    (with_(shoe="1"), "shoe", "got '1'"),
    (with_(shoe=True), "shoe", "got True"),
    (with_(round=...), "round", "'round' must be an integer >= 1, got None"),
    (with_(player=["AS"]), "player", "'player' must be a list of 2 or 3 cards, got ['AS']"),
    (with_(banker=["AS", "2S", "3S", "4S"]), "banker", "2 or 3 cards"),
    (with_(player=["AS", "1X"]), "player", "'1X'"),
    (with_(player="AS 2S"), "player", "got 'AS 2S'"),
    (with_(winner="B"), "winner", "unknown key 'winner' in a 'round' message"),
    (with_(cut_card="yes"), "cut_card", "'cut_card' must be true or false, got 'yes'"),
    ('{"type":"shoe","table":"T1","shoe":1,"round":4}', "round", "unknown key 'round' in a 'shoe' message"),
    ('{"type":"shoe","table":"T1","shoe":1,"burn":["AS","1S"]}', "burn", "'1S'"),
    ('{"type":"shoe","table":"T1","shoe":1,"burn":' + json.dumps(["AS"] * 12) + "}", "burn",
     "'burn' must be a list of 0-11 cards"),
    ('{"type":"shoe","table":"T1","shoe":1,"cut_card_position":"deep"}', "cut_card_position",
     "'cut_card_position' must be an integer, got 'deep'"),
    ('{"type":"shoe","table":"T1","shoe":1,"variant":""}', "variant", "'variant' must be a preset id, got ''"),
    (with_(result={"winner": "B"}), "player", "either cards or a result, not both: 'player'"),
    (with_(result="B", player=..., banker=...), "result", "'result' must be an object, got 'B'"),
    (with_(burn="8C"), "burn", "'burn' must be a list of"),
])
def test_a_bad_line_names_its_line_number_and_field(line, field, words):
    with pytest.raises(FeedLineError) as info:
        parse_feed_line(line, 17)
    assert str(info.value).startswith("line 17: ")
    assert words in str(info.value)
    assert info.value.line_number == 17
    assert info.value.field == field


def test_reading_stops_at_a_truncated_last_line_after_yielding_the_good_ones():
    good = simulator.to_line(GOOD_ROUND)
    lines = [good, good, good[:25]]
    got = []
    with pytest.raises(FeedLineError) as info:
        for number, m in read_feed(lines):
            got.append(number)
    assert got == [1, 2]
    assert info.value.line_number == 3


def test_feed_line_error_is_a_value_error():
    assert issubclass(FeedLineError, ValueError)


@pytest.mark.parametrize("line, words", [
    ("[" * 1000 + "]" * 1000, "nested deeper than 32 levels"),
    ('{"type":"shoe","table":"T1","shoe":' + "1" * 4301 + "}", "integer literal of 4301 characters"),
    ('{"type":"shoe","table":"T1","shoe":1e999}', "too large to represent"),
    ('{"type":"shoe","type":"shoe","table":"T1","shoe":1}', "key 'type' appears twice"),
    ('{"type":"shoe","table":"\\ud800","shoe":1}', "unpaired surrogate"),
    ('{"type":"shoe","table":"T1","shoe":1,"variant":"' + "v" * 70_000 + '"}', "line of 70050 characters"),
])
def test_hostile_lines_are_feed_line_errors_naming_the_line(line, words):
    with pytest.raises(FeedLineError) as info:
        parse_feed_line(line, 9)
    assert str(info.value).startswith("line 9: ")
    assert words in str(info.value)


@pytest.mark.parametrize("line, field, words", [
    (with_(round=1000), "round", "'round' must be an integer <= 999, got 1000"),
    (with_(shoe=10**9 + 1), "shoe", "'shoe' must be an integer <= 1000000000, got 1000000001"),
    (with_(result={"winner": "X", "player_total": 1, "banker_total": 2, "player_pair": False, "banker_pair": False,
                   "natural": False}, player=..., banker=...), "result", "'result.winner': Input should be 'B', 'P' or 'T', got 'X'"),
    ('{"type":"state","table":"T1"}', None, "nothing to set: give state, closes_at, seconds_left, dealer, limits or shoe_error"),
    ('{"type":"state","table":"T1","state":"betting","seconds_left":86401}', "seconds_left",
     "'seconds_left' must be a number 0-86400, got 86401"),
    ('{"type":"state","table":"T1","state":"betting","closes_at":"soon"}', "closes_at",
     "'closes_at': not an ISO 8601 time: 'soon'"),
    ('{"type":"cards","table":"T1","shoe":1,"round":1000,"position":1,"cards":["AS"]}', "round",
     "'round' must be an integer <= 999, got 1000"),
    ('{"type":"cards","table":"T1","shoe":1,"round":2,"position":3,"cards":["AS"],"burn":["8C"]}', "burn",
     "burn cards come out before the round's first card: send them with card 1, not card 3"),
    ('{"type":"cards","table":"T1","shoe":1,"round":2,"position":1,"cards":[]}', "cards",
     "'cards' must be a list of 1-6 cards, got []"),
])
def test_a_line_gets_the_limits_of_the_feed_path_of_its_type(line, field, words):
    with pytest.raises(FeedLineError) as info:
        parse_feed_line(line, 4)
    assert (str(info.value), info.value.field) == (f"line 4: {words}", field)


def test_a_cut_card_position_is_the_records_to_judge_as_on_the_feed():
    # the feed takes any integer here and refuses one the shoe cannot hold with a 422 (the
    # rule needs the decks: roads.shoe.cut_card_range); a file line is the feed's body
    line = '{"type":"shoe","table":"T1","shoe":1,"cut_card_position":-1}'
    assert parse_feed_line(line, 1) == json.loads(line)


def test_a_line_is_returned_as_written_not_canonicalised():
    line = '{"type":"round","table":"T1","shoe":1,"round":1,"player":["as","10S"],"banker":["3s","4S"]}'
    assert parse_feed_line(line, 1)["player"] == ["as", "10S"]
