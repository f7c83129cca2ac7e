"""Display text (docs/api.md "Display text", roads/text.py) through the feed and every painter.

Issue 21: ``{"dealer": "Anna\\rX"}`` was stored, then every board, PNG, model and embed answered
500 (``raqm_layout() failed``). Now:

- every control, format and line/paragraph separator character in every text field of the feed
  (dealer, void reason, correction reason) is a 400 ``bad_text`` naming the field, and the store
  holds exactly what it held before;
- text an older release stored (a data directory written before the rule: a dealer with CR, with
  U+2029, with every refused character at once, a void reason with them, a table id ``"a\\n"``)
  renders on every HTML page, PNG (boards, one road, tiles, lobby) in every language, model JSON
  and embed without a 5xx, and the painters show it cleaned (``Anna X``).

The refused characters are enumerated here from ``unicodedata`` on their own (categories Cc, Cf,
Zl, Zp), not taken from roads.text.
"""

from __future__ import annotations

import sqlite3
import unicodedata

import pytest

from roads.table_state import KEEP, SetState
from roads.table import VoidRound
from support.feed import AUTH, Feed, close_app, dealt_rounds, make_app
from web.i18n import LANGUAGES
from web.service import get_service

CATEGORIES = {"Cc": "a control character", "Cf": "a format character", "Zl": "a line separator",
              "Zp": "a paragraph separator"}
REFUSED = [chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF
           and unicodedata.category(chr(cp)) in CATEGORIES]
ROUNDS = dealt_rounds(6, seed=21)


def test_the_refused_characters_are_those_the_issue_names():
    assert len(REFUSED) == 65 + 1 + 1 + sum(unicodedata.category(c) == "Cf" for c in REFUSED)
    assert {"\r", "\n", "\t", "\x00", "\x7f", "\x85", "\u2028", "\u2029", "\u202e", "\u200b", "\ufeff"} <= set(REFUSED)


def _everything(app) -> list:
    """Every stored event and what the read API shows of T1."""
    client = app.test_client()
    events = [e.to_json() for e in get_service(app).store.load()]
    reads = [client.get(u).data for u in ("/api/tables", "/api/tables/T1", "/api/tables/T1/shoes",
                                          "/api/tables/T1/shoes/1/rounds")]
    return [events, reads]


def test_every_refused_character_in_every_text_field_is_a_400_naming_it_and_stores_nothing(app):
    feed = Feed(app.test_client())
    for n, (p, b) in enumerate(ROUNDS[:2], 1):
        assert feed.round(1, n, p, b).status_code == 201
    assert app.test_client().post("/api/tables/T1/state", json={"dealer": "Anna"}, headers=AUTH).status_code == 201
    before = _everything(app)
    client = app.test_client()
    for char in REFUSED:
        name = unicodedata.category(char)
        cases = [
            ("dealer", client.post("/api/tables/T1/state", json={"dealer": f"Anna{char}X"}, headers=AUTH)),
            ("reason", feed.void(1, 2, f"mis{char}deal")),
            ("reason", feed.correct(1, 1, {"player": ROUNDS[0][0], "banker": ROUNDS[0][1], "reason": f"typo{char}"})),
        ]
        for field, resp in cases:
            assert resp.status_code == 400, (hex(ord(char)), field, resp.json)
            err = resp.json["error"]
            assert (err["code"], err["field"]) == ("bad_text", field)
            assert f"U+{ord(char):04X} ({CATEGORIES[name]})" in err["message"]
    for blank in (" ", "\u3000\u00a0"):
        resp = client.post("/api/tables/T1/state", json={"dealer": blank}, headers=AUTH)
        assert (resp.status_code, resp.json["error"]["code"]) == (400, "bad_text")
    surrogate = client.post("/api/tables/T1/state", data=b'{"dealer": "Anna\\ud800"}',
                            headers={**AUTH, "Content-Type": "application/json"})
    assert (surrogate.status_code, surrogate.json["error"]["code"]) == (400, "malformed_json")
    assert _everything(app) == before


ALL_REFUSED = "".join(f"a{c}" for c in REFUSED)
OLD_DEALERS = {"T1": "Anna\rX", "T2": "Bee\u2029Y", "T3": ALL_REFUSED}


@pytest.fixture(scope="module")
def old_data(tmp_path_factory):
    """A data directory as an older release left it: dealers holding CR, U+2029 and every refused
    character, a void reason with them, and table ``"a\\n"`` (a copy of T1's record)."""
    data = tmp_path_factory.mktemp("old") / "data"
    app = make_app(data)
    try:
        feed, service = Feed(app.test_client()), get_service(app)
        for table, dealer in OLD_DEALERS.items():
            for n, (p, b) in enumerate(ROUNDS[:4], 1):
                assert feed.round(1, n, p, b, table=table).status_code == 201
            # what the feed let through before the rule: the domain write takes any text
            service.write(table, SetState(state="betting", closes_at=None, seconds_left=60, dealer=dealer, limits=KEEP))
        service.write("T1", VoidRound(1, 4, "mis\r\ndeal\u2029" + ALL_REFUSED))
    finally:
        close_app(app)
    db = sqlite3.connect(data / "roads.sqlite3")
    db.execute("INSERT INTO tables (table_id) VALUES ('a' || char(10))")  # the table's rows catch up at load
    db.execute("INSERT INTO events SELECT 'a' || char(10), seq, kind, shoe, round, data, at FROM events "
               "WHERE table_id = 'T1'")
    db.commit()
    db.close()
    app = make_app(data)
    app.testing = False  # a 500 is answered, not raised
    yield app
    close_app(app)


SMALL = "width=960&height=540"


def _routes(table: str) -> list[str]:
    t = table.replace("\n", "%0A")
    return [f"/tables/{t}", f"/tables/{t}/model.json", f"/tables/{t}/model.json?orient=portrait",
            f"/tables/{t}/board.png?{SMALL}", f"/tables/{t}/board.png?kind=embed&{SMALL}",
            f"/tables/{t}/roads/big_road.png", f"/tables/{t}/shoes", f"/tables/{t}/shoes/1",
            f"/tables/{t}/shoes/1/board.png?{SMALL}", f"/embed/{t}", f"/embed/{t}/model.json",
            f"/api/tables/{t}", f"/api/tables/{t}/shoes/1/rounds"]


LOBBY = ["/lobby", "/lobby/model.json", "/lobby/model.json?page=1", f"/lobby.png?{SMALL}", "/api/tables"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_text_an_older_release_stored_renders_on_every_page_and_png_in_every_language(old_data, lang):
    client = old_data.test_client()
    failed = {}
    for url in LOBBY + [u for t in (*OLD_DEALERS, "a\n") for u in _routes(t)]:
        resp = client.get(url + ("&" if "?" in url else "?") + f"lang={lang}")
        if resp.status_code != 200:
            failed[url] = resp.status_code
    assert failed == {}


def _texts(doc) -> list[str]:
    return [item["t"] for model in doc["models"].values() for panel in model["panels"] for item in panel["items"]
            if item.get("p") == "t"]


def test_the_painters_show_old_text_cleaned(old_data):
    client = old_data.test_client()
    assert "Dealer Anna X" in _texts(client.get("/tables/T1/model.json?lang=en").json)
    assert "Dealer Bee Y" in _texts(client.get("/tables/T2/model.json?lang=en").json)
    for table in OLD_DEALERS:
        texts = _texts(client.get(f"/tables/{table}/model.json").json)
        assert not any(c in t for t in texts for c in REFUSED), table
    assert client.get("/api/tables/T1").json["state"]["dealer"] == "Anna\rX"  # the API gives what is stored


def test_a_non_slug_table_id_in_a_lobby_query_is_a_400_naming_tables(client):
    # issue 21: /lobby?tables=a%0db drew a tile named "a\rb" and answered 500
    for url in ("/lobby?tables=a%0db", "/lobby.png?tables=T1,a%0db", "/lobby/model.json?tables=a%E2%80%AEb"):
        resp = client.get(url)
        assert resp.status_code == 400, url
        assert (resp.json["error"]["code"], resp.json["error"]["field"]) == ("bad_parameter", "tables")
