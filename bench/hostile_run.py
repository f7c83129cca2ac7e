"""A hostile run (issue 21, "Done when"): 10,000+ schema-generated and hand-made requests against one
service; every answer must be below 500, and every refused write must leave the store as it was.

In-process on the WSGI app (Flask's test client, ``testing`` off so a 500 is answered, not raised),
over a data directory that an older release left (a dealer holding CR, U+2029 and every refused
character; a void reason with them; a table ``"a\\n"``), so the pages and PNGs draw old text too.
The cases:

- **schema**: every operation of ``/api/openapi.json`` (feed, read API, pages, models, PNGs)
  called with requests schemathesis generates from the document, valid and invalid;
- **text**: every control, format and line/paragraph separator character (Unicode Cc, Cf, Zl, Zp)
  in every feed text field (``dealer``, a void ``reason``, a correction ``reason``), and in a table
  id of every write route;
- **query**: every page, model and PNG route with every query key that clashes with URL
  building, and every page option given a control or separator character;
- **painters**: every page, model, embed and PNG (board, embed kind, one road, past shoe, lobby)
  of every table in every language and theme.

Every JSON answer is also checked against the OpenAPI document (tests/support/openapi_check.py);
one it does not describe counts as a failure (status 599). After a refused write (status >= 400) the lobby version (the sum of table versions: one more per
stored event) must be unchanged; at the end the store's events must be exactly those of the
accepted writes. Printed: the cases by kind and status class, the 5xx (with their request), and
the checks. Usage::

    .venv/bin/python bench/hostile_run.py              # about 12,000 requests
    .venv/bin/python bench/hostile_run.py --schema-examples 20

``tests/web/test_hostile.py`` (slow) runs it and asserts its totals.
"""

from __future__ import annotations

import argparse
import collections
import json
import sqlite3
import sys
import tempfile
import time
import unicodedata
import warnings
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
for path in (str(ROOT), str(ROOT / "tests")):
    if path not in sys.path:
        sys.path.insert(0, path)

REFUSED = [chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF
           and unicodedata.category(chr(cp)) in ("Cc", "Cf", "Zl", "Zp")]
"""Every control, format, line and paragraph separator character."""

CLASHING = ["table_id", "shoe", "name", "road", "endpoint", "values", "_method", "_external", "_anchor", "_scheme"]
LANGS = ["en", "zh", "th", "my", "lo"]
THEMES = ["dark", "light"]
PAGE_OPTIONS = ["lang", "theme", "tables", "good", "bead", "cols", "roads", "state", "sort", "orient", "ask"]


class Run:
    """The service under test, the tally, and the unchanged-store check of every refused write."""

    def __init__(self, app: Any) -> None:
        from web.service import get_service

        self.app = app
        self.client = app.test_client()
        self.service = get_service(app)
        self.tally: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
        self.server_errors: list[tuple[str, str, int, bytes]] = []
        self.changed_by_refusal: list[tuple[str, str, int]] = []
        self.accepted_writes = 0

    def lobby_version(self) -> int:
        return sum(slot.table.seq for slot in list(self.service.tables.slots.values()))

    def call(self, kind: str, method: str, path: str, **kwargs: Any) -> Any:
        write = method != "GET"
        before = self.lobby_version() if write else None
        try:
            resp = self.client.open(path, method=method, **kwargs)
            status = resp.status_code
            data = resp.get_data()
        except Exception as e:  # noqa: BLE001 - a crash the server would answer with 500
            status, data = 599, repr(e).encode()
        self.tally[kind][f"{status // 100}xx"] += 1
        if status >= 500:
            self.server_errors.append((method, path, status, data[:300]))
        if write:
            if status >= 400 and self.lobby_version() != before:
                self.changed_by_refusal.append((method, path, status))
            if status < 300 and self.lobby_version() != before:
                self.accepted_writes += 1
        return status

    @property
    def total(self) -> int:
        return sum(sum(c.values()) for c in self.tally.values())


# ----------------------------------------------------------------------------- the old data directory
def old_data_directory(data: Path) -> None:
    """Tables as an older release left them (see the module docstring)."""
    from roads.table_state import KEEP, SetState
    from roads.table import VoidRound
    from support.feed import Feed, close_app, dealt_rounds, make_app
    from web.service import get_service

    app = make_app(data)
    try:
        feed, service = Feed(app.test_client()), get_service(app)
        dealers = {"T1": "Anna\rX", "T2": "Bee\u2029Y", "T3": "".join(f"a{c}" for c in REFUSED)}
        for i, (table, dealer) in enumerate(dealers.items()):
            for n, (p, b) in enumerate(dealt_rounds(12, seed=i), 1):
                assert feed.round(1, n, p, b, table=table).status_code == 201
            service.write(table, SetState(state="betting", closes_at=None, seconds_left=600, dealer=dealer,
                                          limits=KEEP))
        service.write("T1", VoidRound(1, 12, "mis\r\ndeal\u2029" + "".join(REFUSED[:40])))
    finally:
        close_app(app)
    db = sqlite3.connect(data / "roads.sqlite3")
    db.execute("INSERT INTO events SELECT 'a' || char(10), seq, kind, shoe, round, data, at FROM events "
               "WHERE table_id = 'T1'")
    db.commit()
    db.close()


# ----------------------------------------------------------------------------- the cases
AUTH = {"Authorization": "Bearer test-token"}


def text_cases(run: Run) -> None:
    """Every refused character in every feed text field and in a table id of every write route."""
    from support.feed import dealt_rounds

    p, b = dealt_rounds(1, seed=0)[0]
    for char in REFUSED:
        run.call("text", "POST", "/api/tables/T1/state", json={"dealer": f"Anna{char}X"}, headers=AUTH)
        run.call("text", "POST", "/api/tables/T1/shoes/1/rounds/3/void", json={"reason": f"mis{char}deal"},
                 headers=AUTH)
        run.call("text", "PUT", "/api/tables/T1/shoes/1/rounds/2", json={"player": p, "banker": b,
                                                                         "reason": f"typo{char}"}, headers=AUTH)
        table = quote(f"t{char}", safe="")
        for method, path, body in (("POST", f"/api/tables/{table}/rounds", {"shoe": 1, "round": 1, "player": p,
                                                                            "banker": b}),
                                   ("POST", f"/api/tables/{table}/shoes", {"shoe": 1}),
                                   ("POST", f"/api/tables/{table}/state", {"state": "betting"})):
            run.call("text", method, path, json=body, headers=AUTH)


def _pages(table: str) -> list[str]:
    t = quote(table, safe="")
    return [f"/tables/{t}", f"/tables/{t}/model.json", f"/tables/{t}/shoes", f"/tables/{t}/shoes/1",
            f"/embed/{t}", f"/embed/{t}/model.json"]


def _pngs(table: str) -> list[str]:
    t = quote(table, safe="")
    return [f"/tables/{t}/board.png?width=640&height=360", f"/tables/{t}/board.png?kind=embed&width=480&height=270",
            f"/tables/{t}/roads/big_road.png?width=600&height=150",
            f"/tables/{t}/shoes/1/board.png?width=360&height=640"]


LOBBY = ["/", "/lobby", "/lobby/model.json", "/lobby/model.json?page=1", "/lobby.png?width=640&height=360"]


def query_cases(run: Run, stride: int = 1) -> None:
    """Clashing query keys on every page; every page option with a refused character (every
    ``stride``-th of them)."""
    pages = LOBBY + _pages("T1") + _pngs("T1")
    for page in pages:
        sep = "&" if "?" in page else "?"
        for key in CLASHING:
            run.call("query", "GET", f"{page}{sep}{key}=x", headers={"Host": "evil.example"})
    for page in LOBBY[:3] + _pages("T1")[:2] + ["/lobby.png?width=320&height=180"]:
        sep = "&" if "?" in page else "?"
        for option in PAGE_OPTIONS:
            for char in REFUSED[::stride]:
                run.call("query", "GET", f"{page}{sep}{option}={quote('a' + char, safe='')}")


def painter_cases(run: Run) -> None:
    """Every page, model, embed and PNG of every table (old text too) in every language and theme."""
    tables = ["T1", "T2", "T3", "a\n"]
    for lang in LANGS:
        for theme in THEMES:
            for url in LOBBY + [u for t in tables for u in _pages(t) + _pngs(t)]:
                sep = "&" if "?" in url else "?"
                run.call("painters", "GET", f"{url}{sep}lang={lang}&theme={theme}")


def schema_cases(run: Run, examples: int) -> None:
    """Requests schemathesis generates from the OpenAPI document, for every operation."""
    import schemathesis
    from hypothesis import HealthCheck, given, settings

    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", run.app)
    for result in schema.get_all_operations():
        op = result.ok()
        if op.path.startswith("/ws/"):
            continue  # WebSocket upgrades: tests/web/test_serve_edges.py and test_ws.py
        count = examples if not op.path.endswith(".png") else max(5, examples // 4)

        @settings(max_examples=count, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(case=op.as_strategy())
        def one(case: Any) -> None:
            kwargs = case.as_transport_kwargs()
            method = kwargs.pop("method")
            path = kwargs.pop("path")
            query = kwargs.pop("query_string", None)
            body = kwargs.pop("json", None)
            data = kwargs.pop("data", None)
            headers = {k: v for k, v in (kwargs.pop("headers", None) or {}).items() if isinstance(v, str)}
            headers.update(AUTH)  # writes reach validation (tests/web/test_feed.py covers the token)
            extra: dict[str, Any] = {"headers": headers}
            if query:
                extra["query_string"] = query
            if body is not None:
                extra["json"] = body
            elif data is not None:
                extra["data"] = data
            run.call("schema", method.upper(), path, **extra)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            one()


# ----------------------------------------------------------------------------- the run
def run_all(schema_examples: int = 60, query_stride: int = 1, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Build the service on an old data directory and run every kind of case; the report dict."""
    from support import openapi_check
    from support.feed import close_app, make_app

    openapi_check.install()  # a JSON answer the OpenAPI document does not describe counts as a failure (599)
    with tempfile.TemporaryDirectory(prefix="roads-hostile-") as tmp:
        data = Path(tmp) / "data"
        old_data_directory(data)
        app = make_app(data)
        app.testing = False
        run = Run(app)
        started = time.monotonic()
        try:
            before = [e.to_json() for e in run.service.store.load()]
            for name, cases in (("text", lambda: text_cases(run)), ("query", lambda: query_cases(run, query_stride)),
                                ("painters", lambda: painter_cases(run)),
                                ("schema", lambda: schema_cases(run, schema_examples))):
                t0 = time.monotonic()
                cases()
                log(f"{name:9s} {sum(run.tally[name].values()):6d} requests {dict(sorted(run.tally[name].items()))} "
                    f"in {time.monotonic() - t0:.0f} s")
            after = [e.to_json() for e in run.service.store.load()]
        finally:
            close_app(app)
    report = {
        "requests": run.total,
        "by_kind": {k: dict(v) for k, v in run.tally.items()},
        "server_errors": run.server_errors,
        "changed_by_refusal": run.changed_by_refusal,
        "stored_events_before": len(before),
        "stored_events_after": len(after),
        "accepted_writes": run.accepted_writes,
        "old_events_kept": all(_per_table(after)[t][:len(evs)] == evs for t, evs in _per_table(before).items()),
        "seconds": round(time.monotonic() - started, 1),
    }
    return report


def _per_table(events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for e in events:
        out[e["table"]].append(e)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--schema-examples", type=int, default=60, help="generated cases per operation (PNGs: a quarter)")
    ap.add_argument("--query-stride", type=int, default=1, help="every n-th refused character in page options")
    args = ap.parse_args()
    report = run_all(args.schema_examples, args.query_stride)
    print(f"hostile run: {report['requests']} requests in {report['seconds']} s; "
          f"{len(report['server_errors'])} x 5xx; {len(report['changed_by_refusal'])} refused writes changed the store; "
          f"store {report['stored_events_before']} -> {report['stored_events_after']} events "
          f"({report['accepted_writes']} accepted writes; old events kept: {report['old_events_kept']})")
    for method, path, status, body in report["server_errors"][:20]:
        print(f"  {status} {method} {path!r}: {body!r}")
    print(json.dumps(report["by_kind"], sort_keys=True))


if __name__ == "__main__":
    main()
