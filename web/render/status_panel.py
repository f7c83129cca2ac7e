"""The table's status on a board and a lobby tile: the round being dealt and the table's state.

From the snapshot's ``in_progress`` and ``state`` keys (``roads/schema/snapshot.schema.json``;
present only while a round is dealt card by card, and once the feed has set a table state or
the table has configured limits), as primitives of the board model (:mod:`web.render.prims`):

- the cards dealt so far face up on each side (:func:`card_face`: rank and a suit drawn as
  polygons, red suits in the banker colour), running totals, and what happens next in words
  from the tableau (docs/domain.md section 1: the player draws on 0-5 and stands on 6-7, the
  banker's third card by the banker's table there);
- at a table whose variant offers insurance (docs/domain.md section 3a, :mod:`roads.insurance`),
  the insurance on offer at that moment with its payout ("Player insurance 2.5:1");
- the table's state in words, a betting countdown (a text primitive with ``"cd"``: the Unix
  second betting closes, and ``"fmt"``: the words with ``{s}`` for the seconds left, as at the
  model's ``"now"``; the page ticks it against the server's clock; an image, which cannot tick,
  says the venue time betting closes instead, ``BoardOptions.still``), the dealer and the table limits.

Card-reading shoes (docs/shoes.md) add, in the snapshot: cards drawn face down
(``in_progress.cards`` / ``drawn``: a card back in the card's place, :func:`card_back`, and
"Banker's 3rd card drawn" for what happens next), the shoe's error (``state.shoe_error``) and a
round held for the supervisor (``alarm``): each a red band across the bottom of every board,
tile, embed and PNG (:func:`alert_lines`, :func:`alert_bands`), from the one model both painters
draw.

A table with none of these keys draws exactly as before (every function here returns nothing).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Sequence

from web.render import panels
from web.render.countdown import fit_state, widest_state
from web.render.pieces import parse_utc, venue_time
from web.render.prims import fit, label, panel, rect, text

SUIT_RED = frozenset("HD")
RANK_SCALE = 0.4
"""A card face's rank is this fraction of the face's height."""
MIN_RANK_PX = 12
"""Smallest card rank drawn when a band makes its cards smaller (web.render.pieces.MIN_TEXT_PX)."""
RANK_TEXT = {"T": "10"}


def _epoch(iso: Any) -> float | None:
    t = parse_utc(iso)
    return t.timestamp() if t is not None else None


def seconds_left(state: Mapping[str, Any] | None, now: float) -> int | None:
    """Whole seconds until betting closes (rounded up, never below 0) while the table is
    ``betting`` with a close time; ``None`` otherwise. ``now``: Unix seconds (server clock)."""
    if not state or state.get("state") != "betting":
        return None
    closes = _epoch(state.get("closes_at"))
    if closes is None:
        return None
    return max(0, math.ceil(closes - now - 1e-9))


def amount(v: Any) -> str:
    """A stake as people read it on a limits sign: ``10000`` -> ``"10,000"``, ``2.5`` -> ``"2.5"``."""
    f = float(v)
    return f"{int(f):,}" if f == int(f) else f"{f:,.2f}".rstrip("0").rstrip(".")


def state_words(state: Mapping[str, Any] | None, lang: str, now: float, *,
                still_tz: str | None = None, short: int = 0) -> tuple[str, str, dict[str, Any]]:
    """``(words, colour, extra keys of the text primitive)`` of the table's state: "Bets close
    in 12 s" (with the countdown keys), "Betting", "Shuffling", "Closed"...; ``("", ...)`` when
    the state is not known.

    ``still_tz`` (an IANA zone; for images, which cannot tick): a countdown is said as the venue
    time betting closes, "Bets close at 14:03:22", true for as long as the image is shown; once
    ``now`` has reached that time, "Bets closed" (:func:`clock_key` is what such an image
    depends on). ``short`` 1 / 2: the countdown and the close time said shorter for a narrow
    tile, "12 s left" / "12 s", "Closes 14:03:22" / "14:03:22"."""
    if not state or not state.get("state"):
        return "", "muted", {}
    st = state["state"]
    left = seconds_left(state, now)
    if left is not None and still_tz is not None:
        if left <= 0:
            return label("live.bets_closed_short" if short else "live.bets_closed", lang), "muted", {}
        when = venue_time(str(state.get("closes_at")), still_tz) or ""
        words = when if short >= 2 else label("live.closes_at_short" if short else "live.bets_close_at", lang, time=when)
        return words, "open", {}
    if left is not None:  # closing time passed: "Bets closed" (muted), not a green "0 s"
        fmt = label(("live.bets_close_in", "live.seconds_left", "live.seconds")[min(short, 2)], lang, s="{s}")
        if left > 0:
            return fmt.replace("{s}", str(left)), "open", {"cd": _epoch(state.get("closes_at")), "fmt": fmt}
        closed = label("live.bets_closed_short" if short else "live.bets_closed", lang)
        return closed, "muted", {"cd": _epoch(state.get("closes_at")), "fmt": fmt}
    colour = {"betting": "open", "dealing": "natural", "result": "text", "shuffling": "warn",
              "closed": "banker", "maintenance": "banker"}.get(st, "muted")
    return label("state." + st, lang), colour, {}


def clock_key(state: Mapping[str, Any] | None, now: float) -> tuple[float, bool] | None:
    """What a still image of a table in ``state`` depends on besides its version (:func:`state_words`
    with ``still_tz``): ``(closing Unix second, closed yet)`` while betting with a close time,
    else ``None``."""
    if seconds_left(state, now) is None:
        return None
    closes = _epoch(state.get("closes_at"))  # type: ignore[union-attr]
    return (closes, now >= closes)  # type: ignore[return-value]


def dealer_limit_parts(state: Mapping[str, Any] | None, lang: str) -> list[str]:
    """``["Dealer Anna", "Limits 100-10,000"]``: the parts known, in that order."""
    if not state:
        return []
    parts = []
    if state.get("dealer"):
        parts.append(label("live.dealer", lang, name=state["dealer"]))
    lim = state.get("limits")
    if isinstance(lim, Mapping) and "min" in lim and "max" in lim:
        parts.append(label("live.limits", lang, min=amount(lim["min"]), max=amount(lim["max"])))
    return parts


def dealer_limits(state: Mapping[str, Any] | None, lang: str) -> str:
    """"Dealer Anna  ·  Limits 100-10,000" (the parts known), ``""`` for none."""
    return "  ·  ".join(dealer_limit_parts(state, lang))


def fitting_dealer_limits(state: Mapping[str, Any] | None, lang: str, room: float, size: int,
                          min_px: int) -> str:
    """The longest of "Dealer Anna  ·  Limits 100-10,000", "Limits 100-10,000", "Dealer Anna"
    that fits ``room`` px at ``min_px`` (regular weight), ``""`` when none does: a narrow header
    (a portrait board) keeps the limits rather than overlap its other words."""
    parts = dealer_limit_parts(state, lang)
    for words in ("  ·  ".join(parts), *reversed(parts)):
        if words and panels.prims.width(words, min(size, min_px), lang, "r") <= room:
            return words
    return ""


def next_words(ip: Mapping[str, Any], lang: str) -> str:
    """What happens next in the round in progress, from the tableau: the first four cards are
    dealt P, B, P, B ("Dealing"); then "Player draws", or "Player stands · Banker draws"; after
    the player's third card "Banker draws"."""
    n = len(ip.get("player", ())) + len(ip.get("banker", ()))
    nxt = ip.get("next")
    if n < 4:
        return label("live.dealing", lang)
    if n == 4 and nxt == "player":
        return label("live.player_draws", lang)
    if n == 4 and nxt == "banker":
        return label("live.player_stands", lang) + " · " + label("live.banker_draws", lang)
    if nxt == "banker":
        return label("live.banker_draws", lang)
    return label("live.banker_stands", lang)


def drawn_words(ip: Mapping[str, Any], lang: str) -> str:
    """The newest card drawn face down in words, "Banker's 3rd card drawn" (``live.card_drawn``),
    or ``""`` when no card is face down."""
    drawn = ip.get("drawn")
    if not isinstance(drawn, list) or not drawn or not isinstance(drawn[-1], Mapping):
        return ""
    last = drawn[-1]
    side = "B" if last.get("side") == "banker" else "P"
    nth = min(3, max(1, int(last.get("nth") or 1)))
    return label("live.card_drawn", lang, side=label("winner." + side, lang), nth=label(f"live.nth_{nth}", lang))


def shoe_error_words(error: Any, lang: str) -> str:
    """A shoe error ``{"code", "name"}`` in words, "Shoe: card cannot be read"
    (``shoe_error.<name>``; a name without a label: "Shoe: error 9"); ``""`` for none."""
    if not isinstance(error, Mapping):
        return ""
    name = str(error.get("name") or "")
    words = label("shoe_error." + name, lang, default="") if name and name != "other" else ""
    return words or label("shoe_error.other", lang, code=error.get("code", "?"))


def alert_lines(snapshot: Mapping[str, Any], lang: str) -> list[str]:
    """The red lines a board shows while they last: the shoe's error (``state.shoe_error``),
    then a round held for the supervisor (``alarm``: "Round 12 held for the supervisor")."""
    out = []
    state = snapshot.get("state")
    if isinstance(state, Mapping) and state.get("shoe_error"):
        out.append(shoe_error_words(state["shoe_error"], lang))
    alarm = snapshot.get("alarm")
    if isinstance(alarm, Mapping) and alarm.get("round"):
        out.append(label("live.round_held", lang, round=alarm["round"]))
    return [w for w in out if w]


def alert_bands(snapshot: Mapping[str, Any], width: int, height: int, lang: str, *, size: int,
                min_px: int, bottom: float | None = None, x: float = 0) -> list[dict[str, Any]]:
    """A red band (``"banner"`` panel: both painters draw it over everything) per
    :func:`alert_lines` line, ``width`` px wide from ``x``, stacked up from ``bottom`` (px;
    default ``height``, the canvas' bottom edge), the words centred at ``size`` px (smaller,
    down to ``min_px``, to fit the width)."""
    out = []
    h = round(size * 1.6)
    bottom = height if bottom is None else round(bottom)
    for words in reversed(alert_lines(snapshot, lang)):
        t, s = fit(words, width * 0.94, size, lang, min_size=min_px)
        top = bottom - h
        out.insert(0, panel("banner", {"x": round(x), "y": top, "w": round(width), "h": h}, "offline",
                            [text(t, x + width / 2, top + h / 2, s, "offline_text", lang=lang, anchor="m")]))
        bottom = top
    return out


def insurance_words(snapshot: Mapping[str, Any], lang: str) -> list[str]:
    """The insurance offered now in the round in progress (``roads.insurance``, docs/domain.md 3a):
    ``["Player insurance 2.5:1"]``; empty when the variant has no insurance or none is offered."""
    ip = snapshot.get("in_progress")
    variant = snapshot.get("variant")
    vid = variant.get("id") if isinstance(variant, Mapping) else variant
    if not isinstance(ip, Mapping) or not vid:
        return []
    from roads.cards import Card
    from roads.variants import get_variant

    try:
        table = get_variant(str(vid)).insurance
        if table is None:
            return []
        offers = table.offers([Card.parse(c) for c in ip.get("player", ())],
                              [Card.parse(c) for c in ip.get("banker", ())])
    except ValueError:
        return []
    out = []
    for o in offers:
        side = "P" if o.to_json()["side"] in ("player", "P") else "B"
        out.append(label("live.insurance_" + side, lang, payout=amount(o.payout)))
    return out


# ----------------------------------------------------------------------------- card faces
def _circle_pts(cx: float, cy: float, r: float, n: int = 14) -> list[float]:
    pts: list[float] = []
    for i in range(n):
        a = 2 * math.pi * i / n
        pts += [round(cx + r * math.cos(a), 1), round(cy + r * math.sin(a), 1)]
    return pts


def polygon(pts: Sequence[float], colour: str) -> dict[str, Any]:
    """A filled polygon primitive ``{"p": "g", "pts": [x0, y0, x1, y1, ...], "c"}`` (canvas px)."""
    return {"p": "g", "pts": [round(v, 1) for v in pts], "c": colour}


def suit_shapes(suit: str, cx: float, cy: float, s: float, colour: str) -> list[dict[str, Any]]:
    """A suit (``S``, ``H``, ``D``, ``C``) as polygons ``s`` px tall centred on ``(cx, cy)``:
    the bundled fonts have no suit glyphs, and both painters fill polygons alike."""
    h = s / 2
    if suit == "D":
        return [polygon([cx, cy - h, cx + h * 0.75, cy, cx, cy + h, cx - h * 0.75, cy], colour)]
    if suit == "H":
        r = h * 0.5
        return [polygon(_circle_pts(cx - r * 0.95, cy - h * 0.35, r), colour),
                polygon(_circle_pts(cx + r * 0.95, cy - h * 0.35, r), colour),
                polygon([cx - h * 0.98, cy - h * 0.2, cx + h * 0.98, cy - h * 0.2, cx, cy + h], colour)]
    if suit == "S":
        r = h * 0.5
        return [polygon(_circle_pts(cx - r * 0.95, cy + h * 0.15, r), colour),
                polygon(_circle_pts(cx + r * 0.95, cy + h * 0.15, r), colour),
                polygon([cx - h * 0.98, cy, cx + h * 0.98, cy, cx, cy - h], colour),
                polygon([cx, cy + h * 0.1, cx + h * 0.35, cy + h, cx - h * 0.35, cy + h], colour)]
    r = h * 0.42  # clubs
    return [polygon(_circle_pts(cx, cy - h * 0.5, r), colour),
            polygon(_circle_pts(cx - r * 1.05, cy + h * 0.12, r), colour),
            polygon(_circle_pts(cx + r * 1.05, cy + h * 0.12, r), colour),
            polygon([cx, cy - h * 0.1, cx + h * 0.35, cy + h, cx - h * 0.35, cy + h], colour)]


def card_face(card: str, x: float, y: float, h: float, lang: str) -> list[dict[str, Any]]:
    """One card face up, ``h`` px tall (``0.72 h`` wide) with its top left at ``(x, y)``: the
    rank above its suit, red suits in the banker colour, on the palette's text colour."""
    w = h * 0.72
    rank, suit = card[:-1], card[-1]
    ink = "banker" if suit in SUIT_RED else "panel"
    out = [rect(x, y, w, h, "text", radius=h * 0.08)]
    rs = max(8, round(h * RANK_SCALE))
    out.append(text(RANK_TEXT.get(rank, rank), x + w / 2, y + h * 0.3, rs, ink, lang="en", anchor="m"))
    out += suit_shapes(suit, x + w / 2, y + h * 0.7, h * 0.36, ink)
    return out


def card_back(x: float, y: float, h: float) -> list[dict[str, Any]]:
    """One card face down (drawn, its face not shown yet), ``h`` px tall like :func:`card_face`:
    a light edge, a player-blue back and a diamond in the middle."""
    w = h * 0.72
    e = h * 0.07
    cx, cy = x + w / 2, y + h / 2
    return [rect(x, y, w, h, "text", radius=h * 0.08),
            rect(x + e, y + e, w - 2 * e, h - 2 * e, "player", radius=h * 0.05),
            polygon([cx, cy - h * 0.22, cx + w * 0.26, cy, cx, cy + h * 0.22, cx - w * 0.26, cy], "text")]


def hand_cards(ip: Mapping[str, Any], key: str) -> list[str | None]:
    """The cards of side ``key`` (``"player"`` / ``"banker"``) in the round in progress: faces,
    and ``None`` for each card drawn face down (``in_progress.cards``)."""
    cards = ip.get("cards")
    if isinstance(cards, list):
        return [c.get("card") for c in cards if isinstance(c, Mapping) and c.get("side") == key]
    return list(ip.get(key, ()))


def card_items(card: str | None, x: float, y: float, h: float, lang: str) -> list[dict[str, Any]]:
    """:func:`card_face`, or :func:`card_back` for ``None``."""
    return card_back(x, y, h) if card is None else card_face(str(card), x, y, h, lang)


def card_width(h: float) -> float:
    """Advance of one card face ``h`` px tall (face and gap)."""
    return h * 0.72 + h * 0.12


# ----------------------------------------------------------------------------- board and tile
def board_live_panel(snapshot: Mapping[str, Any], r: Mapping[str, int], lang: str, *, size: int,
                     min_px: int) -> dict[str, Any] | None:
    """The ``"live"`` panel of a full board in region ``r`` while a round is in progress (else
    ``None``): "Round 21", a row per side (name, cards, total), what happens next, insurance."""
    ip = snapshot.get("in_progress")
    if not isinstance(ip, Mapping):
        return None
    pad = max(6, round(size * 0.5))
    x, w = r["x"] + pad, r["w"] - 2 * pad
    extra = insurance_words(snapshot, lang)
    lines = 2 + len(extra)
    # rows: title, two card rows, the words lines
    card_h = min(size * 3.0, (r["h"] - 2 * pad - (lines + 1) * size * 1.5) / 2.3, w / (3 * 0.84 + 0.2) / 1.0 * 0.9)
    card_h = max(size * 1.2, card_h)
    items: list[dict[str, Any]] = []
    y = r["y"] + pad + size * 0.7
    t, s = fit(label("ui.round_n", lang, n=ip.get("round")), w, size, lang, weight="r", min_size=min_px)
    items.append(text(t, x, y, s, "muted", lang=lang, weight="r"))
    y += size * 0.9
    for side, key in (("P", "player"), ("B", "banker")):
        colour = "player" if side == "P" else "banker"
        name = label("winner." + side, lang)
        nt, ns = fit(name, w * 0.6, size, lang, min_size=min_px)
        items.append(text(nt, x, y + size * 0.6, ns, colour, lang=lang))
        total = str(ip.get(key + "_total", ""))
        items.append(text(total, x + w, y + card_h * 0.5 + size * 0.5, round(card_h * 0.75), colour, lang=lang,
                          anchor="r"))
        cy = y + size * 1.3
        for i, c in enumerate(hand_cards(ip, key)):
            items += card_items(c, x + i * card_width(card_h * 0.8), cy, card_h * 0.8, lang)
        y = cy + card_h * 0.8 + size * 0.6
    for words, colour in [(drawn_words(ip, lang) or next_words(ip, lang), "natural")] + [(e, "warn") for e in extra]:
        t, s = fit(words, w, size, lang, min_size=min_px)
        items.append(text(t, x, y + size * 0.5, s, colour, lang=lang))
        y += size * 1.4
    return panel("live", dict(r), "panel", items)


def header_state_items(r: Mapping[str, int], snapshot: Mapping[str, Any], lang: str, *, title_px: int,
                       sub_px: int, min_px: int, now: float, left_used: float,
                       sub_used: float = 0.0, still_tz: str | None = None) -> list[dict[str, Any]]:
    """Items added at the right end of a board's two-line header: the state (countdown) on the
    name's line, dealer and limits on the second line where they fit beside its words
    (:func:`fitting_dealer_limits`). ``left_used`` / ``sub_used``: px the name / the second
    line already take from the left edge."""
    state = snapshot.get("state")
    if not isinstance(state, Mapping):
        return []
    pad = max(4, round(sub_px * 0.45))
    right = r["x"] + r["w"] - pad
    room = max(0.0, r["w"] - left_used - 3 * pad)
    words, colour, extra = state_words(state, lang, now, still_tz=still_tz)
    h = r["h"]
    gap = max(0.0, (h - title_px - sub_px) / 3)
    out = []
    if words:
        t, s, extra = fit_state(words, extra, room, title_px, lang, min_px=min_px)
        it = text(t, right, r["y"] + gap + title_px / 2, s, colour, lang=lang, anchor="r")
        it.update(extra)
        out.append(it)
    dl_room = min(r["w"] * 0.45, r["w"] - sub_used - 3 * pad)
    dl = fitting_dealer_limits(state, lang, dl_room, sub_px, min_px)
    if dl:
        t, s = fit(dl, dl_room, sub_px, lang, weight="r", min_size=min_px)
        out.append(text(t, right, r["y"] + 2 * gap + title_px + sub_px / 2, s, "muted", lang=lang, weight="r",
                        anchor="r"))
    return out


def tile_live_items(r: Mapping[str, int], snapshot: Mapping[str, Any], lang: str, *, size: int,
                    min_px: int) -> list[dict[str, Any]] | None:
    """A tile's band ``r`` while a round is in progress (``None`` otherwise): "P" cards total,
    "B" cards total, then what happens next (or the insurance on offer) in what room is left;
    the cards are drawn up to 30 % smaller (their ranks never under :data:`MIN_RANK_PX`) when
    that keeps the words whole (the payout of an insurance offer is the point of it)."""
    ip = snapshot.get("in_progress")
    if not isinstance(ip, Mapping):
        return None
    extra = insurance_words(snapshot, lang)
    words = extra[0] if extra else (drawn_words(ip, lang) or next_words(ip, lang))
    full = r["h"] * 0.92
    items, room = _tile_cards(r, ip, lang, size, full)
    short = panels.prims.width(words, min_px, lang) + 2 - room  # 2 px: rounding in the fit
    cards = len(hand_cards(ip, "player")) + len(hand_cards(ip, "banker"))
    if short > 0 and cards:
        floor = min(full, max(full * 0.7, MIN_RANK_PX / RANK_SCALE))
        ch = max(floor, full - short / (cards * card_width(1.0)))
        items, room = _tile_cards(r, ip, lang, size, ch)
    # too long for the room at min_px: what happens next alone ("Banker draws"), else nothing
    words = next((w for w in (words, words.rsplit(" · ", 1)[-1]) if panels.prims.width(w, min_px, lang) <= room), "")
    if words and room > size * 2:
        t, s = fit(words, room, size, lang, min_size=min_px)
        items.append(text(t, r["x"] + r["w"] - room, r["y"] + r["h"] / 2, s, "warn" if extra else "natural",
                          lang=lang))
    return items


def _tile_cards(r: Mapping[str, int], ip: Mapping[str, Any], lang: str, size: int,
                ch: float) -> tuple[list[dict[str, Any]], float]:
    """The two hands of a tile's band with cards ``ch`` px tall: ``(items, px left on the right)``."""
    y = r["y"] + (r["h"] - ch) / 2
    x = r["x"]
    items: list[dict[str, Any]] = []
    for side, key in (("P", "player"), ("B", "banker")):
        colour = "player" if side == "P" else "banker"
        items.append(text(label("winner_short." + side, lang), x, r["y"] + r["h"] / 2, size, colour, lang=lang))
        x += panels.prims.width(label("winner_short." + side, lang), size, lang) + size * 0.3
        for c in hand_cards(ip, key):
            items += card_items(c, x, y, ch, lang)
            x += card_width(ch)
        tot = str(ip.get(key + "_total", ""))
        items.append(text(tot, x, r["y"] + r["h"] / 2, size, colour, lang=lang))
        x += panels.prims.width(tot, size, lang) + size * 0.8
    return items, r["x"] + r["w"] - x


def tile_state_text(snapshot: Mapping[str, Any], lang: str, now: float, *, still_tz: str | None = None,
                    room: float | None = None, size: int = 0, min_px: int = 0) -> tuple[str, str, dict[str, Any]]:
    """The state words of a tile's second line (:func:`state_words`), or ``("", ...)``: the
    longest form (full, then ``short`` 1 and 2) that fits ``room`` px at ``min_px`` (bold), else
    the shortest; the longest when ``room`` is not given."""
    state = snapshot.get("state")
    state = state if isinstance(state, Mapping) else None
    forms = [state_words(state, lang, now, still_tz=still_tz, short=k) for k in (0, 1, 2)]
    if room is None:
        return forms[0]
    return next((f for f in forms if panels.prims.width(widest_state(f[0], f[2]), min_px, lang) <= room), forms[-1])


def embed_band_height(snapshot: Mapping[str, Any], height: int, min_px: int) -> int:
    """Px of the live band an embed ``height`` px tall keeps under its header for a live table
    (the snapshot has ``state`` or ``in_progress``; 0 otherwise, so a result-only feed draws as
    before). Kept while the table is live, so the roads do not move between rounds; tall enough
    that the card ranks stay above ``min_px`` (41 px at 600x300)."""
    if not isinstance(snapshot.get("state"), Mapping) and not isinstance(snapshot.get("in_progress"), Mapping):
        return 0
    return max(round(min_px * 3.4), round(height * 0.11))


def embed_band(r: Mapping[str, int], snapshot: Mapping[str, Any], lang: str, *, min_px: int,
               now: float, still_tz: str | None = None) -> dict[str, Any]:
    """An embed's ``"live"`` band in ``r``: the round in progress in the compact form of a lobby
    tile (:func:`tile_live_items`), else the state (countdown; ``still_tz`` as in
    :func:`state_words`) left and dealer and limits right."""
    size = max(min_px, round(r["h"] * 0.42))
    pad = max(4, round(size * 0.45))
    inner = {"x": r["x"] + pad, "y": r["y"], "w": r["w"] - 2 * pad, "h": r["h"]}
    items = tile_live_items(inner, snapshot, lang, size=size, min_px=min_px)
    if items is None:
        state = snapshot.get("state") if isinstance(snapshot.get("state"), Mapping) else None
        words, colour, extra = state_words(state, lang, now, still_tz=still_tz)
        items = []
        used = 0.0
        if words:
            t, s, extra = fit_state(words, extra, inner["w"] * 0.5, size, lang, min_px=min_px)
            it = text(t, inner["x"], r["y"] + r["h"] / 2, s, colour, lang=lang)
            it.update(extra)
            items.append(it)
            used = panels.prims.width(widest_state(t, extra), s, lang) + pad * 2
        room = inner["w"] - used
        dl = fitting_dealer_limits(state, lang, room, size, min_px)
        if dl:
            t, s = fit(dl, room, size, lang, weight="r", min_size=min_px)
            items.append(text(t, inner["x"] + inner["w"], r["y"] + r["h"] / 2, s, "muted", lang=lang, weight="r",
                              anchor="r"))
    return panel("live", dict(r), "panel", items)


def board_hook(ps: list[dict[str, Any]], regions: Mapping[str, Mapping[str, int]], snapshot: Mapping[str, Any],
               lang: str, *, title_px: int, size: int, min_px: int, now: float, still_tz: str | None = None) -> None:
    """Change a full board's panels ``ps`` in place for a live table: the state, dealer and
    limits at the right of the header (on a header without room for them, a portrait board's,
    at the bottom of the live or statistics panel); while a round is in progress the ``"live"``
    panel takes the statistics' place (and the side bets' below it, in the same column)."""
    head = next((p for p in ps if p["id"] == "header"), None)
    state = snapshot.get("state")
    dropped = ""
    if head is not None and isinstance(state, Mapping):
        words = [i for i in head["items"] if i.get("p") == "t"]
        used = [panels.prims.width(i["t"], i["s"], lang, "r" if k else "b") + (i["x"] - head["x"])
                for k, i in enumerate(words[:2])] + [0.0, 0.0]
        added = header_state_items(head, snapshot, lang, title_px=title_px, sub_px=size, min_px=min_px, now=now,
                                   left_used=used[0], sub_used=used[1], still_tz=still_tz)
        head["items"] = head["items"] + added
        shown = {i["t"] for i in added}
        if not shown & {dealer_limits(state, lang), *dealer_limit_parts(state, lang)}:
            dropped = dealer_limits(state, lang)   # no room in the header (a portrait board)
    _live_panel(ps, regions, snapshot, lang, size=size, min_px=min_px)
    if dropped:
        target = next((p for p in ps if p["id"] in ("live", "stats")), None)
        if target is not None and not bottom_line(target, dropped, lang, size=size, min_px=min_px) \
                and target["id"] == "live":
            beside_round(target, state, lang, size=size, min_px=min_px)


def beside_round(p: dict[str, Any], state: Mapping[str, Any], lang: str, *, size: int, min_px: int) -> bool:
    """Put the dealer (and the limits where they fit too) at the right end of the "Round 21"
    line of the live panel ``p`` (:func:`board_live_panel`): a portrait board's live panel has
    no free line for them, and the dealer stays in sight all round. Whether something was added."""
    first = next((i for i in p["items"] if i.get("p") == "t"), None)
    if first is None:
        return False
    pad = max(6, round(size * 0.5))
    right = p["x"] + p["w"] - pad
    room = right - (first["x"] + panels.prims.width(first["t"], first["s"], lang, first["w"])) - size
    parts = dealer_limit_parts(state, lang)
    px = min(size, max(min_px, first["s"]))
    for words in ("  ·  ".join(parts), *parts):
        if words and panels.prims.width(words, px, lang, "r") <= room:
            item = text(words, right, first["y"], px, "muted", lang=lang, weight="r", anchor="r")
            item["y"] = first["y"]  # on the title's baseline
            p["items"] = p["items"] + [item]
            return True
    return False


def bottom_line(p: dict[str, Any], words: str, lang: str, *, size: int, min_px: int) -> bool:
    """Add ``words`` (muted, regular) as a last line at the bottom of panel ``p`` when there is a
    free line there below its items; whether it was added."""
    if not words:
        return False
    lowest = p["y"]
    for i in p["items"]:
        if i.get("p") == "t":
            lowest = max(lowest, i["y"] + i["s"] * 0.3)
        elif i.get("p") == "r":
            lowest = max(lowest, i["y"] + i["h"])
        elif i.get("p") == "g":
            lowest = max(lowest, max(i["pts"][1::2]))
    pad = max(6, round(size * 0.5))
    y = p["y"] + p["h"] - pad - size * 0.7
    if y - size * 0.7 < lowest + size * 0.3:
        return False
    t, s = fit(words, p["w"] - 2 * pad, size, lang, weight="r", min_size=min_px)
    p["items"] = p["items"] + [text(t, p["x"] + pad, y, s, "muted", lang=lang, weight="r")]
    return True


def _live_panel(ps: list[dict[str, Any]], regions: Mapping[str, Mapping[str, int]], snapshot: Mapping[str, Any],
                lang: str, *, size: int, min_px: int) -> None:
    """While a round is in progress the ``"live"`` panel takes the statistics' place in ``ps``."""
    if not isinstance(snapshot.get("in_progress"), Mapping) or "stats" not in regions:
        return
    r = dict(regions["stats"])
    sb = regions.get("side_bets")
    drop = {"stats"}
    if sb and sb["x"] == r["x"] and sb["w"] == r["w"] and sb["y"] >= r["y"]:
        r["h"] = sb["y"] + sb["h"] - r["y"]
        drop.add("side_bets")
    live = board_live_panel(snapshot, r, lang, size=size, min_px=min_px)
    if live is None:
        return
    at = next(i for i, p in enumerate(ps) if p["id"] == "stats")
    ps[:] = [p for p in ps[:at] if p["id"] not in drop] + [live] + [p for p in ps[at:] if p["id"] not in drop]
