"""The round follower: shoe events in, feed messages out, worked by hand from the tableau
(docs/domain.md section 1): cards posted in deal order, the last one only once the shoe's own
result agrees, face-down draws announced, misdeals voided, disagreements held, new shoes with
their burn, extra cards burned or used."""

from __future__ import annotations

from shoes.deal import (
    Drawn, ExtraDrawn, ExtraRevoked, FaultCleared, FramesLost, NewShoe, PowerOn, RoundFollower, ShoeCard, ShoeFault,
    ShoeResult, Shown, StandBy,
)

P, B = "player", "banker"


def run(follower: RoundFollower, *events) -> list[dict]:
    out = []
    for e in events:
        out += follower.handle(e)
    return [{k: v for k, v in m.items() if k != "table"} for m in out]


def cards(shoe, rnd, *faces, start=1, burn=None):
    out = [{"type": "cards", "shoe": shoe, "round": rnd, "position": k, "cards": [c]} for k, c in enumerate(faces, start)]
    if burn:
        out[0]["burn"] = burn
    return out


DEALING = {"type": "state", "state": "dealing"}
RESULT = {"type": "state", "state": "result"}


def test_a_natural_drawn_face_down_then_shown_posts_each_card_and_the_last_one_after_the_shoe_result():
    f = RoundFollower("T1", shoe=3, round=7)
    msgs = run(f, Drawn(P, 1, None), Drawn(B, 1, None), Drawn(P, 2, None), Drawn(B, 2, None))
    assert msgs == [DEALING] + [{"type": "drawn", "shoe": 3, "round": 8, "position": k, "sides": [s]}
                                for k, s in ((1, P), (2, B), (3, P), (4, B))]
    # Q + A = 1 against 4 + 4 = natural 8: complete after four cards; the fourth waits for G
    assert run(f, Shown(P, 1, "QC"), Shown(B, 1, "4S"), Shown(P, 2, "AC"), Shown(B, 2, "4H")) == \
        cards(3, 8, "QC", "4S", "AC")
    assert run(f, ShoeResult("B", False, False, True)) == cards(3, 8, "4H", start=4) + [RESULT]
    assert run(f, StandBy()) == []
    assert (f.round, f.open, f.stats.rounds_complete) == (8, False, 1)


def test_third_cards_go_where_the_tableau_deals_them():
    # player 2S 3H = 5 draws 9C (5 + 9 = 4); banker KD 5C = 5 stands on a player third card 9
    f = RoundFollower("T1", shoe=1, round=0)
    msgs = run(f, Drawn(P, 1, "2S"), Drawn(B, 1, "KD"), Drawn(P, 2, "3H"), Drawn(B, 2, "5C"), Drawn(P, 3, "9C"))
    assert msgs == [DEALING] + cards(1, 1, "2S", "KD", "3H", "5C")
    assert run(f, ShoeResult("B", False, False, False)) == cards(1, 1, "9C", start=5) + [RESULT]


def test_the_banker_third_card_after_a_player_who_stood_is_card_five():
    # player 7S KD = 7 stands; banker 2C 3D = 5 draws (player stood, banker 0-5 draws): card 5 is the banker's
    f = RoundFollower("T1", shoe=1, round=4)
    run(f, Drawn(P, 1, "7S"), Drawn(B, 1, "2C"), Drawn(P, 2, "KD"), Drawn(B, 2, "3D"))
    assert run(f, Drawn(B, 3, "4H"), ShoeResult("B", False, False, False)) == cards(1, 5, "4H", start=5) + [RESULT]


def test_a_card_the_tableau_does_not_deal_voids_the_round_with_the_reason():
    # player 7S KD = 7 stands, banker 9C TD = natural 9: a banker third card is not dealt
    f = RoundFollower("T1", shoe=2, round=10)
    run(f, Drawn(P, 1, "7S"), Drawn(B, 1, "9C"), Drawn(P, 2, "KD"))
    msgs = run(f, Drawn(B, 2, "TD"), Drawn(B, 3, "5S"))
    assert msgs == [{"type": "void", "shoe": 2, "round": 11,
                     "reason": "misdeal: card 5 (5S, the banker's) is not dealt: the round is complete after 4 cards "
                               "(player 7S KD = 7, banker 9C TD = 9)"}]
    assert f.stats.rounds_voided == 1 and not f.open
    # the next round is round 12
    assert run(f, Drawn(P, 1, "AS"))[:2] == [DEALING] + cards(2, 12, "AS")


def test_a_card_out_of_deal_order_voids_the_round():
    f = RoundFollower("T1", shoe=2, round=0)
    run(f, Drawn(P, 1, "7S"))
    assert run(f, Drawn(P, 2, "KD")) == [{"type": "void", "shoe": 2, "round": 1, "reason":
                                          "misdeal: the player's card 2 came out as card 2 (dealt so far: P1)"}]


def test_a_shoe_result_that_disagrees_with_the_cards_holds_the_round_and_posts_no_last_card():
    f = RoundFollower("T1", shoe=1, round=2)
    run(f, Drawn(P, 1, "QC"), Drawn(B, 1, "4S"), Drawn(P, 2, "AC"))
    msgs = run(f, Drawn(B, 2, "4H"), ShoeResult("P", False, False, False))
    assert msgs == [{"type": "hold", "shoe": 1, "round": 3, "reason": "result_mismatch",
                     "message": "the shoe says P; the cards (player QC AC = 1, banker 4S 4H = 8) give B, banker pair "
                                "(shoe / cards: winner P / B; banker pair False / True)",
                     "shoe_result": {"winner": "P", "banker_six": False, "player_pair": False, "banker_pair": False},
                     "player": ["QC", "AC"], "banker": ["4S", "4H"], "posted": 3}]
    assert f.stats.rounds_held == 1 and f.stats.rounds_complete == 0
    assert run(f, Drawn(P, 1, "2D"))[1]["round"] == 4


def test_banker_wins_with_six_must_be_a_banker_six():
    # player TS 5S = 5 draws KH -> 5; banker 3S 3C = 6 (a pair) stands on a third card 0 (6 draws only on
    # 6-7): the Banker wins with 6
    f = RoundFollower("T1", shoe=1, round=0)
    run(f, Drawn(P, 1, "TS"), Drawn(B, 1, "3S"), Drawn(P, 2, "5S"), Drawn(B, 2, "3C"), Drawn(P, 3, "KH"))
    assert run(f, ShoeResult("B", True, False, True))[-1] == RESULT
    g = RoundFollower("T1", shoe=1, round=0)
    # banker 4S 3C = 7 beats player 5 (TS 5S KH): the shoe's "Banker wins with 6" is wrong
    run(g, Drawn(P, 1, "TS"), Drawn(B, 1, "4S"), Drawn(P, 2, "5S"), Drawn(B, 2, "3C"), Drawn(P, 3, "KH"))
    assert run(g, ShoeResult("B", True, False, False))[0]["type"] == "hold"


def test_a_round_complete_without_a_shoe_result_is_released_by_stand_by_or_the_next_round():
    f = RoundFollower("T1", shoe=1, round=0)
    run(f, Drawn(P, 1, "QC"), Drawn(B, 1, "4S"), Drawn(P, 2, "AC"), Drawn(B, 2, "4H"))
    assert run(f, StandBy()) == cards(1, 1, "4H", start=4) + [RESULT]
    run(f, Drawn(P, 1, "QC"), Drawn(B, 1, "4S"), Drawn(P, 2, "AC"), Drawn(B, 2, "4H"))
    assert run(f, Drawn(P, 1, "9D"))[:3] == cards(1, 2, "4H", start=4) + [RESULT, DEALING]
    assert f.stats.rounds_unchecked == 2


def test_frames_lost_during_a_round_without_a_shoe_result_hold_it():
    f = RoundFollower("T1", shoe=1, round=0)
    run(f, Drawn(P, 1, "QC"), FramesLost(2), Drawn(B, 1, "4S"), Drawn(P, 2, "AC"), Drawn(B, 2, "4H"))
    msgs = run(f, StandBy())
    assert [m["type"] for m in msgs] == ["hold"] and msgs[0]["reason"] == "frames_lost"
    # with the shoe's result to check against, the same round is released
    g = RoundFollower("T1", shoe=1, round=0)
    run(g, Drawn(P, 1, "QC"), FramesLost(2), Drawn(B, 1, "4S"), Drawn(P, 2, "AC"), Drawn(B, 2, "4H"))
    assert run(g, ShoeResult("B", False, False, True))[-1] == RESULT


def test_a_result_before_the_round_is_complete_holds_it():
    f = RoundFollower("T1", shoe=1, round=0)
    run(f, Drawn(P, 1, "2S"), Drawn(B, 1, "KD"), Drawn(P, 2, "3H"), Drawn(B, 2, "5C"))  # player 5 must draw
    msgs = run(f, ShoeResult("B", False, False, False))
    assert msgs[0]["type"] == "hold" and msgs[0]["reason"] == "result_before_complete" and msgs[0]["posted"] == 4


def test_a_new_shoe_posts_its_turned_card_and_burn_then_numbers_rounds_from_1():
    f = RoundFollower("T1", shoe=4, round=61)
    # turned 3H burns 3 cards
    msgs = run(f, ShoeCard(0, "3H"), ShoeCard(1, "9C"), ShoeCard(2, "KD"))
    assert msgs == []
    assert run(f, ShoeCard(3, "2S")) == [{"type": "shoe", "shoe": 5, "burn": ["3H", "9C", "KD", "2S"]}]
    assert run(f, Drawn(P, 1, "AS"))[:2] == [DEALING] + cards(5, 1, "AS")


def test_a_burn_drawn_face_down_is_posted_once_shown_or_left_out_when_play_begins():
    f = RoundFollower("T1", shoe=1, round=5)
    run(f, ShoeCard(0, "AH"), ShoeCard(1, None))
    assert run(f, ShoeCard(1, "7D", shown=True)) == [{"type": "shoe", "shoe": 2, "burn": ["AH", "7D"]}]
    g = RoundFollower("T1", shoe=1, round=5)
    run(g, ShoeCard(0, "AH"), ShoeCard(1, None))
    assert run(g, Drawn(P, 1, "AS"))[:2] == [{"type": "shoe", "shoe": 2}, DEALING]


def test_a_new_shoe_in_the_middle_of_a_round_voids_the_round():
    f = RoundFollower("T1", shoe=1, round=0)
    run(f, Drawn(P, 1, "AS"), Drawn(B, 1, "2S"))
    assert run(f, ShoeCard(0, "2H"))[0] == {
        "type": "void", "shoe": 1, "round": 1,
        "reason": "misdeal: a new shoe began after 2 card(s) (P1 B1); the round was not complete"}


def test_shoe_errors_are_posted_and_cleared():
    f = RoundFollower("T1", shoe=1, round=0)
    assert run(f, ShoeFault(1, "card_unreadable"), FaultCleared(), FaultCleared()) == [
        {"type": "state", "shoe_error": {"code": 1, "name": "card_unreadable"}},
        {"type": "state", "shoe_error": None}]


def test_extra_cards_revoked_are_burned_before_the_next_round():
    f = RoundFollower("T1", shoe=1, round=0)
    run(f, Drawn(P, 1, "QC"), Drawn(B, 1, "4S"), Drawn(P, 2, "AC"), Drawn(B, 2, "4H"),
        ShoeFault(2, "overdraw"), ExtraDrawn("7C"), ExtraRevoked(), FaultCleared(), ShoeResult("B", False, False, True))
    assert run(f, Drawn(P, 1, "9D"))[:2] == [DEALING] + cards(1, 2, "9D", burn=["7C"])


def test_an_extra_card_used_becomes_the_next_round_first_card():
    f = RoundFollower("T1", shoe=1, round=0)
    run(f, Drawn(P, 1, "QC"), Drawn(B, 1, "4S"), Drawn(P, 2, "AC"), Drawn(B, 2, "4H"), ExtraDrawn("7C"),
        ShoeResult("B", False, False, True))
    assert run(f, Drawn(P, 1, "7C", extra_used=True))[:2] == [DEALING] + cards(1, 2, "7C")
    assert f.extras == []


def test_one_card_shoes_get_their_positions_from_the_tableau_and_need_no_result():
    f = RoundFollower("T1", shoe=None, round=0, expects_result=False)
    msgs = run(f, NewShoe(), Drawn(None, None, "2D"), Drawn(None, None, "5S"), Drawn(None, None, "6S"))
    assert msgs == [{"type": "shoe", "shoe": 1, "burn": ["2D", "5S", "6S"]}]
    # player 2S 3H = 5 draws 9C -> 4; banker KD 5C = 5 stands on 9: complete at card 5, posted at once
    msgs = run(f, *[Drawn(None, None, c) for c in ("2S", "KD", "3H", "5C", "9C")])
    assert msgs == [DEALING] + cards(1, 1, "2S", "KD", "3H", "5C", "9C") + [RESULT]
    assert run(f, Drawn(None, None, "AS"))[:2] == [DEALING] + cards(1, 2, "AS")


def test_the_follower_state_round_trips_mid_round():
    f = RoundFollower("T1", shoe=1, round=0)
    run(f, Drawn(P, 1, None), Drawn(B, 1, "4S"), ExtraDrawn(None), FramesLost(1))
    g = RoundFollower.from_state(f.state())
    assert g == f
    assert run(g, Shown(P, 1, "QC")) == cards(1, 1, "QC", "4S")


def test_power_on_in_the_middle_of_a_round_voids_it():
    f = RoundFollower("T1", shoe=1, round=0)
    run(f, Drawn(P, 1, "QC"), Drawn(B, 1, "4S"))
    assert run(f, PowerOn())[0]["type"] == "void"


def test_the_first_card_reported_again_is_the_same_card_not_a_new_round():
    f = RoundFollower("T1", shoe=1, round=0)
    run(f, Drawn(P, 1, None))
    assert run(f, Drawn(P, 1, "QC")) == cards(1, 1, "QC")
    assert (f.round, len(f.slots)) == (1, 1)
