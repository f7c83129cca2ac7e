"""A ticking betting countdown fitted to its box: every count the page writes fits it.

The page (``static/js/paint.js``) replaces the count of a countdown text primitive (``"cd"``,
``"fmt"``: :mod:`web.render.status_panel`) every second without measuring it, so the model fits
the words once for the widest count and says what the page writes at 0 ("Bets closed").
"""

from __future__ import annotations

from typing import Any, Mapping

from web.render.prims import fit, label

__all__ = ["fit_state", "widest_state"]


def fit_state(words: str, extra: Mapping[str, Any], room: float, size: int, lang: str, *,
              min_px: int) -> tuple[str, int, dict[str, Any]]:
    """``(text, font px, extra keys)`` of the state words :func:`state_words` gave, fitted to
    ``room`` px (bold). A ticking countdown (``extra`` has ``"fmt"``) is fitted for its widest
    value (two digits or more, all 9s: digits are tabular in the bundled fonts), so every value
    the page ticks through fits the same box at the same size; cut even at ``min_px``, the
    template is cut the same way (the page fills its ``{s}``), or, when the cut took the number,
    the words are "Betting" without a count. The keys added for the page: ``"done"`` / ``"ds"``,
    "Bets closed" fitted to the same box, which the page shows (muted) once the count is 0 (and
    the item shows from the start when ``words`` are already those, the time having passed)."""
    if "fmt" not in extra:
        t, s = fit(words, room, size, lang, min_size=min_px)
        return t, s, dict(extra)
    fmt = str(extra["fmt"])
    closed = label("live.bets_closed" if fmt == label("live.bets_close_in", lang, s="{s}") else "live.bets_closed_short",
                   lang)
    digits = [] if words == closed else [c for c in words if c.isdigit()]
    nines = "9" * max(2, len(digits))
    widest = fmt.replace("{s}", nines)
    t, s = fit(widest, room, size, lang, min_size=min_px)
    if t != widest:
        if nines not in t:
            t, s = fit(label("state.betting", lang), room, size, lang, min_size=min_px)
            return t, s, {}
        fmt = t.replace(nines, "{s}", 1)
    done, ds = fit(closed, room, s, lang, min_size=min(s, min_px))
    out = {**extra, "fmt": fmt, "done": done, "ds": ds}
    return (fmt.replace("{s}", "".join(digits)), s, out) if digits else (done, ds, out)


def widest_state(t: str, extra: Mapping[str, Any]) -> str:
    """The widest text a state item fitted by :func:`fit_state` shows: its countdown template
    with the count all 9s (as fitted), else ``t``."""
    if "fmt" not in extra:
        return t
    return str(extra["fmt"]).replace("{s}", "9" * max(2, sum(c.isdigit() for c in t)))
