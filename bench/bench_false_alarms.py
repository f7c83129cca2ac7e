"""How often a fair table-day is flagged improbable (roads.gaming_day): simulated fair days against
the documented false-alarm rate, with the binomial interval of that rate.

    .venv/bin/python bench/bench_false_alarms.py [--days 20000] [--shoes 8] [--seed bench]

Each day deals ``--shoes`` fresh shoes with the rules engine (roads.gaming_day.simulated_day_counts:
burn, cut card, tableau, 8 decks) and is tested as the API tests a table-day (Pearson's chi-square
of the Banker/Player/Tie counts against the exact probabilities). Prints the share flagged at the
documented rate and at other levels (a fair day's p-value is uniform), each with the 99.9 %
binomial interval around the level, and the time taken per simulated round.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]

from roads.gaming_day import FALSE_ALARM_RATE, event_p, results_test, simulated_day_counts  # noqa: E402


def interval(n: int, p: float, tail: float = 5e-4) -> tuple[int, int]:
    """Central binomial interval leaving ``tail`` out on each side."""
    pmf = [math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * math.log(p)
                    + (n - k) * math.log1p(-p)) for k in range(n + 1)]
    lo, acc = 0, 0.0
    while acc + pmf[lo] < tail:
        acc += pmf[lo]
        lo += 1
    hi, acc = n, 0.0
    while acc + pmf[hi] < tail:
        acc += pmf[hi]
        hi -= 1
    return lo, hi


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--days", type=int, default=20000)
    ap.add_argument("--shoes", type=int, default=8)
    ap.add_argument("--seed", default="bench")
    a = ap.parse_args()
    p = event_p(8)
    began = time.perf_counter()
    ps, rounds, flagged = [], 0, 0
    for d in range(a.days):
        c = simulated_day_counts(a.seed, d, a.shoes)
        t = results_test(c, {k: c["rounds"] * p[k] for k in ("banker", "player", "tie")})
        ps.append(t["p_value"])
        rounds += c["rounds"]
        flagged += t["flagged"]
    took = time.perf_counter() - began
    print(f"{a.days} fair days of {a.shoes} shoes ({rounds / a.days:.0f} rounds a day on average), "
          f"{took:.0f} s ({took / rounds * 1e6:.1f} us a round)")
    lo, hi = interval(a.days, FALSE_ALARM_RATE)
    print(f"flagged at the documented rate {FALSE_ALARM_RATE}: {flagged} ({flagged / a.days:.5f}); "
          f"expected {a.days * FALSE_ALARM_RATE:.1f}, 99.9 % binomial interval [{lo}, {hi}]")
    for level in (0.005, 0.01, 0.05, 0.1, 0.5):
        below = sum(x < level for x in ps)
        lo, hi = interval(a.days, level)
        print(f"p < {level}: {below} ({below / a.days:.4f}), interval [{lo}, {hi}]")


if __name__ == "__main__":
    main()
