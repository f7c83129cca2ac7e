"""Hashes of every snapshot, lobby, listing and feed answer of a few thousand fed rounds.

A refactor of the table record must leave every byte the service serves unchanged. This
script feeds simulated shoes (:mod:`roads.simulator`) through the HTTP feed of an in-process
app (Flask test client, SQLite store in a temporary directory, a fixed clock) and, after
every write, prints the sha256 of the write's status + body and of the table's snapshot JSON;
every few writes also the lobby (``GET /api/tables``), the shoe listing, the round export
and past shoes' snapshots. Between the simulated rounds it sends, from a seeded random
source: repeats (unchanged), conflicting rounds, gaps, voids (new, repeated, another
reason), corrections (new, repeated, of a voided round, with a cut card too early), result-
level rounds, shoe starts repeated or going back, rounds after the cut card, bad burn counts,
unknown variants and path mismatches. At the end the app is opened again on the same data
directory (replay) and everything is hashed once more.

Usage (compare the output of two versions with ``diff``)::

    .venv/bin/python bench/snapshot_hashes.py [--shoes 6] > /tmp/hashes.txt

The last line is one sha256 over all the lines before it.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from roads.simulator import feed_request, simulate  # noqa: E402

TOKEN = "hash-token"
HEADERS = {"Authorization": f"Bearer {TOKEN}"}

# (table id, seed, shoes, decks, burn between rounds, variant on the shoe messages)
RUNS = (
    ("T1", 1, None, 8, False, None),
    ("T2", 2, None, 8, True, "seed002"),
    ("T3", 3, None, 6, False, "seed001_no_commission"),
    ("mini", 4, None, 1, False, "seed004_mini"),
    ("T5", 5, None, 2, True, "seed000_live_no_commission"),
)

CONFIGURED = {"T1": {"name": "Table 1"}, "cfg-only": {"name": "Configured", "variant": "seed001"},
              "T3": {"variant": "seed001"}}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Run:
    def __init__(self, data_dir: Path) -> None:
        from web import create_app

        self.data_dir = data_dir
        self.app = create_app({"TESTING": True, "ROADS_FEED_TOKEN": TOKEN, "ROADS_DATA_DIR": str(data_dir),
                               "ROADS_TABLES": CONFIGURED})
        self.service = self.app.extensions["roads.service"]
        ticks = iter(range(10**9))
        self.service.clock = lambda: 1_718_452_800.0 + 0.25 * next(ticks)
        self.client = self.app.test_client()
        self.lines: list[str] = []

    def out(self, label: str, data: bytes) -> None:
        self.lines.append(f"{label} {sha(data)}")

    def send(self, label: str, method: str, path: str, body: dict) -> int:
        resp = self.client.open(path, method=method, json=body, headers=HEADERS)
        code = ""
        if resp.status_code >= 400:
            code = " " + resp.get_json()["error"]["code"]
        self.out(f"{label} {method} {path} -> {resp.status_code}{code}", resp.get_data())
        return resp.status_code

    def get(self, path: str) -> None:
        resp = self.client.get(path)
        self.out(f"GET {path} -> {resp.status_code}", resp.get_data())

    def reads(self, table: str, shoe: int, *, full: bool) -> None:
        self.get(f"/api/tables/{table}")
        if full:
            self.get("/api/tables")
            self.get(f"/api/tables/{table}/shoes")
            for s in range(max(1, shoe - 2), shoe + 1):
                self.get(f"/api/tables/{table}/shoes/{s}")
                self.get(f"/api/tables/{table}/shoes/{s}/rounds")


def result_body(player: list[str], banker: list[str]) -> dict:
    """The result-level form of a card-level round (computed by hand-free rules: totals mod 10)."""
    from roads.cards import parse_cards
    from roads.outcome import RoundResult

    r = RoundResult.from_cards(parse_cards(player), parse_cards(banker))
    j = r.to_json()
    return {k: j[k] for k in ("winner", "player_total", "banker_total", "player_pair", "banker_pair", "natural")}


def feed_table(run: Run, table: str, seed: int, decks: int, burn_between: bool, variant: str | None,
               shoes: int) -> int:
    rng = random.Random(f"hashes:{table}:{seed}")
    rounds = 0
    last_shoe = 0
    recorded: list[dict] = []  # bodies of rounds of the current shoe
    writes = 0
    for message in simulate(table, seed=seed, shoes=shoes, decks=decks, burn_between_rounds=burn_between,
                            variant=variant):
        req = feed_request(message)
        body = dict(req.body)
        shoe = body["shoe"]
        if message["type"] == "shoe":
            if last_shoe:
                # rounds after the cut card, a shoe going back, a repeated start
                end = recorded[-1] if recorded else None
                if end is not None:
                    after = dict(end, round=end["round"] + 1)
                    run.send("after-cut", "POST", f"/api/tables/{table}/rounds", after)
                run.send("backwards", "POST", f"/api/tables/{table}/shoes", {"shoe": last_shoe - 1 or 1})
            if shoe % 3 == 0 and body["burn"]:
                run.send("bad-burn", "POST", f"/api/tables/{table}/shoes", dict(body, burn=body["burn"][:-1]))
            if shoe % 4 == 2:
                run.send("bad-variant", "POST", f"/api/tables/{table}/shoes", dict(body, variant="no-such"))
            if shoe % 5 == 4:
                # the shoe opened by its first round instead of a shoe message
                last_shoe = shoe
                recorded = []
                continue
            run.send("shoe", "POST", req.path, body)
            run.send("shoe-again", "POST", req.path, body)
            last_shoe = shoe
            recorded = []
            run.reads(table, shoe, full=True)
            continue
        number = body["round"]
        if rng.random() < 0.15:
            body = dict(body)
            player, banker = body.pop("player"), body.pop("banker")
            body["result"] = result_body(player, banker)
        if rng.random() < 0.03 and number > 1:
            run.send("gap", "POST", req.path, dict(body, round=number + 1))
        run.send("round", "POST", req.path, body)
        rounds += 1
        writes += 1
        recorded.append(body)
        roll = rng.random()
        if roll < 0.10:
            run.send("repeat", "POST", req.path, body)
        elif roll < 0.14 and len(recorded) > 1:
            other = dict(recorded[rng.randrange(len(recorded) - 1)], round=number)
            run.send("conflict", "POST", req.path, other)
        roll = rng.random()
        if roll < 0.05:
            target = rng.randint(1, number)
            reason = rng.choice(["misdeal", "card exposed"])
            base = f"/api/tables/{table}/shoes/{shoe}/rounds/{target}"
            run.send("void", "POST", base + "/void", {"reason": reason})
            run.send("void-again", "POST", base + "/void", {"reason": reason})
            run.send("void-other", "POST", base + "/void", {"reason": "other " + reason})
            run.send("correct-voided", "PUT", base, {k: v for k, v in recorded[target - 1].items()
                                                    if k not in ("shoe", "round")})
        elif roll < 0.10 and len(recorded) > 1:
            target = rng.randint(1, number)
            source = recorded[rng.randrange(len(recorded))]
            fix = {k: v for k, v in source.items() if k not in ("shoe", "round", "cut_card", "burn")}
            if "player" in fix and rng.random() < 0.7:  # a result-level fix takes no card copies
                fix = {"result": result_body(fix.pop("player"), fix.pop("banker"))}
            if rng.random() < 0.5:
                fix["reason"] = "dealer slip"
            base = f"/api/tables/{table}/shoes/{shoe}/rounds/{target}"
            run.send("correct", "PUT", base, fix)
            run.send("correct-again", "PUT", base, fix)
            run.send("mismatch", "PUT", base, dict(fix, round=target + 1))
            if target < number:
                run.send("early-cut", "PUT", base, dict(fix, cut_card=True))
        elif roll < 0.12:
            run.send("unknown-round", "POST", f"/api/tables/{table}/shoes/{shoe}/rounds/{number + 5}/void",
                     {"reason": "x"})
            run.send("unknown-shoe", "PUT", f"/api/tables/{table}/shoes/{shoe + 7}/rounds/1",
                     {k: v for k, v in body.items() if k not in ("shoe", "round")})
        run.reads(table, shoe, full=writes % 17 == 0 or bool(body.get("cut_card")))
    run.reads(table, last_shoe, full=True)
    return rounds


def copies_run(run: Run) -> None:
    """A one-deck table fed the same cards until the copies run out (too_many_copies)."""
    run.send("copies-shoe", "POST", "/api/tables/one/shoes", {"shoe": 1, "variant": "seed004_mini"})
    for n in range(1, 5):
        run.send("copies", "POST", "/api/tables/one/rounds",
                 {"shoe": 1, "round": n, "player": ["9S", "KS"], "banker": ["9S", "QS"]})
    run.send("copies-new", "POST", "/api/tables/two/rounds",
             {"shoe": 1, "round": 1, "player": ["AS", "AS"], "banker": ["AS", "AS"], "burn": ["AS"] * 6})
    run.send("copies-burn", "POST", "/api/tables/three/shoes", {"shoe": 1, "burn": ["AS"] + ["AS"] * 9,
                                                                "variant": "seed004_mini"})
    run.send("tableau", "POST", "/api/tables/one/rounds",
             {"shoe": 1, "round": 2, "player": ["9S", "KH"], "banker": ["2C", "3D", "4H"]})
    run.send("contradiction", "POST", "/api/tables/one/rounds",
             {"shoe": 1, "round": 2, "result": {"winner": "B", "player_total": 9, "banker_total": 2,
                                                "player_pair": False, "banker_pair": False, "natural": True}})
    run.send("bad-id", "POST", "/api/tables/bad%20id/rounds",
             {"shoe": 1, "round": 1, "player": ["9S", "KH"], "banker": ["2C", "3D"]})
    run.send("gap-first", "POST", "/api/tables/four/rounds",
             {"shoe": 1, "round": 3, "player": ["9S", "KH"], "banker": ["2C", "3D"]})
    run.send("unknown-table", "POST", "/api/tables/nobody/shoes/1/rounds/1/void", {"reason": "x"})
    run.reads("one", 1, full=True)
    run.get("/api/tables/cfg-only")
    run.get("/api/tables/cfg-only/shoes")
    run.get("/api/tables/cfg-only/shoes/1")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shoes", type=int, default=14, help="shoes per simulated table")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        run = Run(data)
        total = 0
        for table, seed, _, decks, burn_between, variant in RUNS:
            total += feed_table(run, table, seed, decks, burn_between, variant, args.shoes)
        copies_run(run)
        lines = run.lines
        run.service.close()
        again = Run(data)  # replay the store
        for table, *_ in RUNS + (("one",),):
            again.get(f"/api/tables/{table}")
            again.get(f"/api/tables/{table}/shoes")
            for s in range(1, args.shoes + 1):
                again.get(f"/api/tables/{table}/shoes/{s}")
                again.get(f"/api/tables/{table}/shoes/{s}/rounds")
        again.get("/api/tables")
        lines += ["-- after restart"] + again.lines
        again.service.close()
    for line in lines:
        print(line)
    print(f"rounds fed {total}, lines {len(lines)}")
    print("all " + sha("\n".join(lines).encode()))


if __name__ == "__main__":
    main()
