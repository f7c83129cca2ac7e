"""The Angel Eye reader: frames out of any split of the byte stream, exactly; repeats, noise,
bad BCCs and sequence gaps counted; the protocol's own examples decoded by hand."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shoes import deal
from shoes.angel_eye import (
    Frame, FrameError, FrameReader, decode_card, decode_position, decode_result, encode_frame, shoe_events,
)
from support.shoe_streams import StreamWriter, dealt_rounds

CARD_SHOWN = bytes.fromhex("05 36 49 81 b2 03 34 46")
"""Issue 24's example: "card shown: Player's 1st, suit 3, rank 2"."""
BANKER_PAIR = bytes.fromhex("05 32 47 c2 03 42 34")
"""Issue 24's example: "Banker wins, Banker pair"."""


def test_the_bcc_of_the_protocol_examples_worked_by_hand():
    # XOR of seq..ETX, digit by digit: 0x36 ^ 0x49 = 0x7f; ^ 0x81 = 0xfe; ^ 0xb2 = 0x4c; ^ 0x03 = 0x4f -> "4F"
    assert 0x36 ^ 0x49 ^ 0x81 ^ 0xB2 ^ 0x03 == 0x4F and CARD_SHOWN[-2:] == b"4F"
    # 0x32 ^ 0x47 = 0x75; ^ 0xc2 = 0xb7; ^ 0x03 = 0xb4 -> "B4"
    assert 0x32 ^ 0x47 ^ 0xC2 ^ 0x03 == 0xB4 and BANKER_PAIR[-2:] == b"B4"
    assert encode_frame(6, "I", bytes([0x81, 0xB2])) == CARD_SHOWN
    assert encode_frame(2, "G", bytes([0xC2])) == BANKER_PAIR


def test_the_protocol_examples_decode_to_what_the_issue_says():
    reader = FrameReader()
    frames = reader.feed(CARD_SHOWN + BANKER_PAIR)
    assert frames == [Frame(6, "I", bytes([0x81, 0xB2])), Frame(2, "G", bytes([0xC2]), gap=5)]
    # Player's 1st card, suit 3 (spades), rank 2
    assert shoe_events(frames[0]) == [deal.Shown("player", 1, "2S")]
    # code 4 = Banker, pairs bit 1 = Banker pair; the 5 frames between seq 6 and seq 2 are missing
    assert shoe_events(frames[1]) == [deal.FramesLost(5), deal.ShoeResult("B", False, False, True)]


@pytest.mark.parametrize("byte, card", [(0x91, "AD"), (0x9D, "KD"), (0xA1, "AC"), (0xAC, "QC"), (0xB2, "2S"),
                                        (0xBA, "TS"), (0xC4, "4H"), (0xCB, "JH"), (0x80, None)])
def test_card_bytes(byte, card):
    assert decode_card(byte) == card


@pytest.mark.parametrize("byte", [0x00, 0x01, 0x81, 0x8E, 0x90, 0xD1, 0xF5, 0xB0])
def test_a_card_byte_outside_the_52_cards_is_a_frame_error(byte):
    with pytest.raises(FrameError, match=f"{byte:02x}"):
        decode_card(byte)


@pytest.mark.parametrize("byte, position", [(0x81, ("player", 1, False)), (0x93, ("banker", 3, False)),
                                            (0xC0, ("player", 0, True)), (0xD2, ("banker", 2, True)),
                                            (0xC7, ("player", 7, True))])
def test_position_bytes(byte, position):
    assert decode_position(byte) == position


@pytest.mark.parametrize("byte, result", [(0x90, ("P", False, False, False)), (0xA3, ("T", False, True, True)),
                                          (0xC1, ("B", False, True, False)), (0xD0, ("B", True, False, False))])
def test_result_bytes(byte, result):
    assert decode_result(byte) == deal.ShoeResult(*result)


def test_a_result_code_the_protocol_does_not_have_is_a_frame_error():
    with pytest.raises(FrameError, match="code 3"):
        decode_result(0xB0)


# A capture of a real shoe (a public reader's test data, as read by the serial port: repeats,
# then reads that join two frames): power on, four cards drawn face down, shown, the result.
CAPTURE = [bytes(c) for c in (
    [5, 48, 83, 3, 54, 48], [5, 48, 83, 3, 54, 48], [5, 48, 83, 3, 54, 48],
    [5, 49, 68, 129, 128, 3, 55, 55], [5, 49, 68, 129, 128, 3, 55, 55], [5, 49, 68, 129, 128, 3, 55, 55],
    [5, 50, 68, 145, 128, 3, 54, 52], [5, 50, 68, 145, 128, 3, 54, 52], [5, 50, 68, 145, 128, 3, 54, 52],
    [5, 51, 68, 130, 128, 3, 55, 54], [5, 51, 68, 130, 128, 3, 55, 54], [5, 51, 68, 130, 128, 3, 55, 54],
    [5, 52, 68, 146, 128, 3, 54, 49], [5, 52, 68, 146, 128, 3, 54, 49], [5, 52, 68, 146, 128, 3, 54, 49],
    [5, 53, 73, 129, 172, 3, 53, 50], [5, 53, 73, 129, 172, 3, 53, 50],
    [5, 53, 73, 129, 172, 3, 53, 50, 5, 54, 73, 145, 180, 3, 53, 57], [5, 54, 73, 145, 180, 3, 53, 57],
    [5, 54, 73, 145, 180, 3, 53, 57, 5, 55, 73, 130, 161, 3, 53, 69], [5, 55, 73, 130, 161, 3, 53, 69],
    [5, 55, 73, 130, 161, 3, 53, 69, 5, 56, 73, 146, 196, 3, 50, 52], [5, 56, 73, 146, 196, 3, 50, 52],
    [5, 56, 73, 146, 196, 3, 50, 52, 5, 57, 71, 194, 3, 66, 70], [5, 57, 71, 194, 3, 66, 70],
    [5, 57, 71, 194, 3, 66, 70])]


def test_a_real_capture_reads_as_one_natural_round():
    reader = FrameReader()
    events = [e for chunk in CAPTURE for f in reader.feed(chunk) for e in shoe_events(f)]
    assert events == [
        deal.PowerOn(),
        deal.Drawn("player", 1, None), deal.Drawn("banker", 1, None),
        deal.Drawn("player", 2, None), deal.Drawn("banker", 2, None),
        # 0xAC: suit 2 clubs, rank 12 queen; 0xB4: spades 4; 0xA1: clubs ace; 0xC4: hearts 4
        deal.Shown("player", 1, "QC"), deal.Shown("banker", 1, "4S"),
        deal.Shown("player", 2, "AC"), deal.Shown("banker", 2, "4H"),
        # Q + A = 1 against a natural 8 (4 + 4): the Banker wins, with a pair of fours
        deal.ShoeResult("B", False, False, True),
    ]
    assert (reader.stats.frames, reader.stats.repeats, reader.stats.noise_bytes, reader.stats.bcc_errors) == (10, 20, 0, 0)  # 30 copies of 10 frames


# ----------------------------------------------------------------------------- properties
def _stream(seed: int, rounds: int = 3) -> StreamWriter:
    w = StreamWriter(rng=random.Random(seed))
    w.start()
    w.new_shoe("3H", ["9C", "KD", "2S"])
    for player, banker in dealt_rounds(rounds, seed):
        w.round(player, banker, face_down=seed % 2 == 0)
    return w


def _frames_of(stream: bytes) -> list[tuple[int, str, bytes]]:
    """The frames of a clean stream (no noise, good BCCs), repeats left out, by slicing at
    each 0x05: every frame of the protocol has its data bytes above 0x80."""
    out = []
    for part in stream.split(b"\x05")[1:]:
        key = (part[0] - 0x30, chr(part[1]), part[2:-3])
        if not out or out[-1] != key:
            out.append(key)
    return out


def _split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0] + points, points + [len(data)])]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), cuts=st.lists(st.integers(0, 10**6), max_size=60))
def test_any_split_of_a_stream_gives_its_frames_once_each(seed, cuts):
    w = _stream(seed)
    reader = FrameReader()
    got = [f.key() for chunk in _split(bytes(w.data), cuts) for f in reader.feed(chunk)]
    assert got == _frames_of(bytes(w.data))
    assert (reader.stats.frames, reader.stats.repeats, reader.stats.noise_bytes, reader.stats.bcc_errors,
            reader.stats.frames_lost) == (w.frames, w.copies, 0, 0, 0)


NOISE = st.binary(min_size=1, max_size=12).map(lambda b: b.replace(b"\x05", b"\x00"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), noise=st.lists(st.tuples(st.integers(0, 10**6), NOISE), max_size=8),
       bad=st.lists(st.integers(0, 10**6), max_size=6), cuts=st.lists(st.integers(0, 10**6), max_size=30))
def test_noise_and_bad_bcc_are_counted_and_never_make_a_frame(seed, noise, bad, cuts):
    """Noise between frames (bytes other than 0x05) and copies with a wrong BCC digit: the frames
    read are those of the clean stream, less any frame whose every copy was spoiled (counted as
    lost by the sequence counter)."""
    clean = bytes(_stream(seed).data)
    copies = [b"\x05" + p for p in clean.split(b"\x05")[1:]]
    spoiled = {i % len(copies) for i in bad}
    for i in spoiled:
        digit = copies[i][-1:]
        copies[i] = copies[i][:-1] + (b"0" if digit != b"0" else b"1")
    between = {i % (len(copies) + 1): n for i, n in noise}
    stream = b"".join(between.get(i, b"") + c for i, c in enumerate(copies)) + between.get(len(copies), b"")
    reader = FrameReader()
    got = [f.key() for chunk in _split(stream, cuts) for f in reader.feed(chunk)]
    kept = b"".join(c for i, c in enumerate(copies) if i not in spoiled)
    expected = _frames_of(kept)
    assert got == expected
    assert reader.stats.bcc_errors == len(spoiled)
    assert reader.stats.noise_bytes == sum(len(n) for n in between.values())
    # a frame whose copies were all spoiled shows as a gap once a later frame arrives
    # (the kept frames are a subsequence of the clean ones: align them in order)
    everything = _frames_of(clean)
    kept_at, i = [], 0
    for key in expected:
        while everything[i] != key:
            i += 1
        kept_at.append(i)
        i += 1
    missing_between = kept_at[-1] - kept_at[0] + 1 - len(kept_at) if kept_at else 0
    assert reader.stats.frames_lost == missing_between


@settings(deadline=None)
@given(seed=st.integers(0, 10**6), cut=st.integers(0, 10**6))
def test_the_reader_state_survives_being_written_down_mid_stream(seed, cut):
    data = bytes(_stream(seed, rounds=2).data)
    cut %= len(data) + 1
    whole = FrameReader()
    expected = whole.feed(data)
    first = FrameReader()
    got = first.feed(data[:cut])
    again = FrameReader.from_state(first.state())
    got += again.feed(data[cut:])
    assert got == expected and again.stats == whole.stats


def test_a_frame_with_a_command_of_the_wrong_length_is_counted_and_dropped():
    reader = FrameReader()
    assert reader.feed(encode_frame(1, "D", bytes([0x81])) + encode_frame(2, "P")) == [Frame(2, "P", b"")]
    assert reader.stats.bad_frames == 1 and reader.stats.frames == 1


def test_an_unfinished_frame_at_the_end_of_the_stream_is_noise():
    reader = FrameReader()
    assert reader.feed(CARD_SHOWN[:5]) == []
    reader.flush()
    assert reader.stats.noise_bytes == 5
