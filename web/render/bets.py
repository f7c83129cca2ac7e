"""Side bets on a board: their wording (grouped by state, soonest to close first) and their panel.

"Pairs · until round 60 | 38 left", "Bonus | Open all shoe", "Pairs | Closed (round 60)" on full
boards (:func:`side_bets`); one line per tile in the same words, naming the next bet to close,
"Naturals and 3 more close at round 50 · 12 left" (:func:`next_bet_line`).
Words from the catalogue (``side.*``, ``bet.*``), sized with the bundled fonts.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, Sequence

import orjson

from web.render import fonts, prims
from web.render.prims import fit, label, line_height, panel, text

BET_GROUPS: tuple[tuple[str, frozenset[str]], ...] = (
    ("pairs", frozenset({"player_pair", "banker_pair"})),
    ("naturals", frozenset({"player_natural", "banker_natural"})),
    ("bonus", frozenset({"player_bonus", "banker_bonus"})),
    ("lucky_six", frozenset({"lucky_six", "lucky_six_2", "lucky_six_3"})),
)
"""Bets named together when they share a state: both pairs are "Pairs", and so on."""

SOON_LEFT = 5
"""A side bet with at most this many rounds left is shown in the warning colour."""


def _bet_names(bets: Sequence[Mapping[str, Any]], lang: str) -> list[str]:
    ids = [str(b.get("bet")) for b in bets]
    names: list[str] = []
    rest = list(ids)
    for group, members in BET_GROUPS:
        if members <= set(rest):
            names.append(label(f"side.group.{group}", lang))
            rest = [i for i in rest if i not in members]
    labels = {str(b.get("bet")): str(b.get("label") or b.get("bet")) for b in bets}
    names += [label(f"bet.{i}", lang, default=labels[i]) for i in rest]
    return names


def _line_text(state: str, limit: Any, left: Any, names: str, lang: str) -> str:
    if state == "closes":
        return label("side.close_at", lang, bets=names, limit=limit, n=left)
    if state == "open":
        return label("side.open_all", lang, bets=names)
    return label("side.closed", lang, bets=names, limit=limit if limit is not None else "-")


def side_bet_lines(side_bets: Sequence[Mapping[str, Any]], lang: str) -> list[dict[str, Any]]:
    """The side bets said as people read them, one line per state, soonest to close first:
    ``{"text", "state": "closes" | "open" | "closed", "left": rounds left | None, "limit": closing
    round | None, "names": the bets' names, "parts": the names one by one}``.

    "Pairs close at round 60 · 12 left" (open, closing at a counted round), "Pairs · Open all
    shoe" (no limit), "Pairs · Closed (round 60)"; wording from the catalogue (``side.*``).
    """
    groups: dict[tuple, list[Mapping[str, Any]]] = {}
    for b in side_bets:
        if not isinstance(b, Mapping):
            continue
        if not b.get("open"):
            key = ("closed", b.get("limit"), None)
        elif b.get("limit") is None:
            key = ("open", None, None)
        else:
            key = ("closes", b.get("limit"), b.get("rounds_left"))
        groups.setdefault(key, []).append(b)
    order = {"closes": 0, "open": 1, "closed": 2}
    out = []
    for (state, limit, left), bets in sorted(groups.items(), key=lambda kv: (order[kv[0][0]], kv[0][2] or 0,
                                                                             kv[0][1] or 0)):
        parts = _bet_names(bets, lang)
        names = ", ".join(parts)
        out.append({"text": _line_text(state, limit, left, names, lang), "state": state, "left": left,
                    "limit": limit, "names": names, "parts": parts})
    return out


def _line_colour(ln: Mapping[str, Any]) -> str:
    if ln["state"] == "closed":
        return "muted"
    if ln["state"] == "closes" and ln["left"] is not None and ln["left"] <= SOON_LEFT:
        return "warn"
    return "text"


def side_bet_rows(side_bets: Sequence[Mapping[str, Any]], lang: str) -> list[tuple[str, str, str, str]]:
    """The side bets of a board as ``(names, until, state, colour)`` rows, soonest to close first:
    ``("Pairs", "· until round 60", "38 left", "text")``, ``("Bonus", "", "Open all shoe", "text")``,
    ``("Pairs", "", "Closed (round 60)", "muted")`` (groups as :func:`side_bet_lines`; catalogue
    ``side.until``, ``side.left``, ``side.open``, ``side.closed_at``)."""
    rows = []
    for ln in side_bet_lines(side_bets, lang):
        names = ln["names"]
        if ln["state"] == "closes":
            rows.append((names, "· " + label("side.until", lang, limit=ln["limit"]), label("side.left", lang, n=ln["left"]),
                         _line_colour(ln)))
        elif ln["state"] == "open":
            rows.append((names, "", label("side.open", lang), "text"))
        else:
            limit = ln["limit"] if ln["limit"] is not None else "-"
            rows.append((names, "", label("side.closed_at", lang, limit=limit), "muted"))
    return rows


def _wrap_row(names: str, until: str, first: float, rest: float, s: int, lang: str) -> list[str]:
    """``names`` ("Big, Small") then ``until`` ("· until round 30") in lines of at most ``first``
    px (the first line, beside the state) and ``rest`` px (the others). Lines break before a bet
    name (at ", "), so a two-word name is not split ("Lucky Six, Either pair," / "Perfect pair"),
    and ``until`` stays with the last name ("Big," / "Small · until round 30"): no line starts
    with "·". Only a name (with ``until``) too wide for a line of its own is broken at spaces,
    from a line of its own, "·" and the word after it kept with the word before."""
    parts = names.split(", ")
    chunks = [p + "," for p in parts[:-1]] + [parts[-1] + (" " + until if until else "")]
    lines: list[str] = []

    def room(new_line: bool) -> float:
        return first if len(lines) + new_line == 1 else rest

    def fits(t: str, new_line: bool) -> bool:
        return prims.width(t, s, lang, "r") <= room(new_line)

    for chunk in chunks:
        if lines and fits(lines[-1] + " " + chunk, False):
            lines[-1] += " " + chunk
        elif fits(chunk, True):
            lines.append(chunk)
        else:
            words: list[str] = []
            glue = False
            for word in chunk.split(" "):
                if words and (glue or word == "·"):
                    words[-1] += " " + word
                else:
                    words.append(word)
                glue = word == "·"
            lines.append(words[0])
            for word in words[1:]:
                if fits(lines[-1] + " " + word, False):
                    lines[-1] += " " + word
                else:
                    lines.append(word)
    return lines


def side_bets(r: dict[str, int], snap: Mapping[str, Any], lang: str, *, size: int, min_px: int,
              title: bool = True, pid: str = "side_bets", bg: str | None = "panel") -> dict[str, Any]:
    """The side bets under a "Side bets" title, one row per state (:func:`side_bet_rows`): the
    bets' names on the left (regular, wrapped at spaces only when they do not fit beside the
    state), the state on the right in bold ("38 left", in the warning colour when few rounds are
    left). All at one size: the largest (down to ``min_px``) at which every row fits. Laid out once
    per set of rows, region and options (cached until :func:`web.render.fonts.reset_caches`: many
    tables and versions show the same side bets); the items returned are fresh copies."""
    key = orjson.dumps(snap.get("side_bets") or [], option=orjson.OPT_SORT_KEYS)
    items = _side_bets_items(key, lang, (r["x"], r["y"], r["w"], r["h"]), size, min_px, title)
    return panel(pid, r, bg, [dict(item) for item in items])


@functools.lru_cache(maxsize=4096)
def _side_bets_items(key: bytes, lang: str, region: tuple[int, int, int, int], size: int, min_px: int,
                     title: bool) -> tuple[dict[str, Any], ...]:
    r = dict(zip(("x", "y", "w", "h"), region))
    rows = side_bet_rows(orjson.loads(key), lang)
    if not rows:
        rows = [(label("side.none", lang), "", "", "muted")]
    pad = max(4, round(size * 0.5))
    x, w = r["x"] + pad, r["w"] - 2 * pad
    avail = r["h"] - pad

    def lay(s: int) -> list[tuple[list[str], str, str]]:
        out = []
        for names, until, right, colour in rows:
            room = max(w - prims.width(right, s, lang) - s * 0.6, w * 0.3)
            out.append((_wrap_row(names, until, room, w, s, lang), right, colour))
        return out

    def height(laid: list[tuple[list[str], str, str]], s: int) -> float:
        return (sum(len(ls) for ls, _, _ in laid) + (1 if title else 0)) * line_height(s, lang, wrapped=True)

    s = size
    laid = lay(s)
    # shrink (to min_px) until every row fits the height, and a little further (to 85 % of the
    # size asked for) when that puts every row on one line: a one-line row is read at a glance
    while s > min_px and height(laid, s) > avail:
        s -= 1
        laid = lay(s)
    if any(len(ls) > 1 for ls, _, _ in laid):
        for t in range(s - 1, max(min_px, round(size * 0.85)) - 1, -1):
            trial = lay(t)
            if all(len(ls) == 1 for ls, _, _ in trial):
                s, laid = t, trial
                break
    pitch = line_height(s, lang, wrapped=True)
    y = r["y"] + pad / 2 + pitch / 2
    bottom = r["y"] + r["h"] - pad / 2
    items = []
    if title:
        tt, ts = fit(label("ui.side_bets", lang), w, s, lang, weight="r", min_size=min_px)
        items.append(text(tt, x, y, ts, "muted", lang=lang, weight="r"))
        y += pitch
    for lines, right, colour in laid:
        if y + pitch / 2 > bottom + 0.5:
            break
        rt, rs = fit(right, w * 0.6, s, lang, min_size=min_px)
        items.append(text(rt, x + w, y, rs, colour, lang=lang, anchor="r"))
        room = w - prims.width(rt, rs, lang) - s * 0.6
        for i, part in enumerate(lines):
            if y + pitch / 2 > bottom + 0.5:
                break
            lt, ls = fit(part, room if i == 0 else w, s, lang, weight="r", min_size=min_px)
            items.append(text(lt, x, y, ls, "muted" if colour == "muted" else "text", lang=lang, weight="r"))
            y += pitch
    return tuple(items)


def next_bet_line(snap: Mapping[str, Any], lang: str, *, width: float | None = None,
                  size: int | None = None) -> tuple[str, str]:
    """The one side-bet line of a lobby tile, worded as the board's (:func:`side_bet_lines`):
    the next bet to close, "Pairs close at round 60 · 12 left" (else the first line, "Bonus · Open
    all shoe"); ``(text, colour)``. When several bets close together the first is named and the
    others counted, "Naturals and 3 more close at round 50 · 12 left" (two: "Big, Small close
    at ..."); where that does not fit ``width`` px at ``size`` px (bold; both given, else the
    longest), "Naturals +3 close at round 50 · 12 left", "Naturals close at round 50 · 12 left",
    "Naturals +3 · 12 left", then "Naturals · 12 left" (open all shoe: "Pairs +2 · All shoe", "Pairs ·
    All shoe")."""
    lines = side_bet_lines(snap.get("side_bets") or [], lang)
    if not lines:
        return label("side.none", lang), "muted"
    ln = lines[0]
    parts, more = ln["parts"], len(ln["parts"]) - 1
    names = [parts[0]] if not more else [label("side.and_more", lang, bets=parts[0], n=more), f"{parts[0]} +{more}"]
    if more == 1:
        names.insert(0, ", ".join(parts))
    if more and ln["state"] == "closes":  # the next bet alone: "Naturals close at round 50 · 12 left"
        names.append(parts[0])
    texts = [_line_text(ln["state"], ln["limit"], ln["left"], n, lang) for n in names]
    if ln["state"] == "closes":  # shortest: the rounds left only, "Naturals +3 · 12 left", "Naturals · 12 left"
        left = label("side.left", lang, n=ln["left"])
        texts += [f"{names[-2]} · {left}", f"{parts[0]} · {left}"] if more else [f"{parts[0]} · {left}"]
    if ln["state"] == "open":  # shortest: "Pairs +2 · All shoe", "Pairs · All shoe"
        whole = label("side.open_short", lang)
        texts += [f"{names[-1]} · {whole}", f"{parts[0]} · {whole}"] if more else [f"{parts[0]} · {whole}"]
    if width is not None and size is not None:
        texts = [t for t in texts if prims.width(t, size, lang) <= width] or texts[-1:]
    return texts[0], _line_colour(ln)


fonts.DEPENDENT_CACHES.append(_side_bets_items)
