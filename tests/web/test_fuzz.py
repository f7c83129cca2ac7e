"""Fuzzing the feed and the read routes: no input gives a 5xx, every refusal has the one error
shape, and a refused write leaves the stored record exactly as it was.

Property-based (hypothesis): bodies that are random bytes, random JSON values, deeply nested,
huge numbers, unicode and control characters, valid rounds with one field broken (wrong type,
unknown key, out of range), sent with right and wrong content types to every write route; and
reads of every page, PNG and JSON route with random path segments, query options and Accept
headers. Fixed examples (``@example``) pin the cases an outside test run found answering 500:
a JSON body nested 1,000 levels deep and an integer literal of 4,301 digits (Python's
integer-string conversion limit is 4,300 digits).

"Unchanged" is checked on the store itself (every event it holds, ``Store.load``) and on
what the read API shows (table list, snapshots, shoe lists, round exports). Case counts per
run: see ``MAX_EXAMPLES``.
"""

from __future__ import annotations

import json
import string

import pytest
from hypothesis import HealthCheck, event, example, given, settings, strategies as st

from support.feed import FEED_TOKEN, close_app, make_app

MAX_EXAMPLES = {"writes": 400, "wrong_content_type": 100, "reads": 300}
"""Generated cases per property per run (plus the fixed @example cases)."""

P1, B1 = ["4S", "KD", "9H"], ["7C", "JD"]   # player 3, banker 7: banker wins (tableau: player draws on 4)
P2, B2 = ["9C", "KH"], ["5D", "2S"]          # player natural 9
AUTH = {"Authorization": f"Bearer {FEED_TOKEN}"}
JSON = {**AUTH, "Content-Type": "application/json"}

DEEP = b"[" * 1000 + b"]" * 1000
HUGE_INT = b'{"shoe": 1, "round": ' + b"7" * 4301 + b', "player": ["9C","KH"], "banker": ["5D","2S"]}'

FIELDS = {"shoe", "round", "player", "banker", "result", "burn", "cut_card", "reason", "cut_card_position",
          "variant", "winner", "player_total", "banker_total", "player_pair", "banker_pair", "natural",
          "position", "cards", "state", "dealer", "closes_at", "seconds_left", "limits"}

WRITE_ROUTES = [
    ("post", "/api/tables/{t}/rounds"),
    ("post", "/api/tables/{t}/shoes"),
    ("post", "/api/tables/{t}/shoes/{s}/rounds/{r}/void"),
    ("put", "/api/tables/{t}/shoes/{s}/rounds/{r}"),
    ("post", "/api/tables/{t}/shoes/{s}/rounds/{r}/cards"),
    ("post", "/api/tables/{t}/state"),
]


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory):
    """One service with table T1 (shoe 1: rounds 1 and 2, round 2 voided) for every case."""
    app = make_app(tmp_path_factory.mktemp("fuzz") / "data")
    client = app.test_client()
    for number, (p, b) in enumerate([(P1, B1), (P2, B2)], start=1):
        resp = client.post("/api/tables/T1/rounds", json={"shoe": 1, "round": number, "player": p, "banker": b},
                           headers=AUTH)
        assert resp.status_code == 201
    assert client.post("/api/tables/T1/shoes/1/rounds/2/void", json={"reason": "misdeal"}, headers=AUTH).status_code == 201
    yield app
    close_app(app)


def stored(app) -> tuple:
    """Everything stored and shown: the store's events, then the read API's answers."""
    client = app.test_client()
    events = [ev.to_json() for ev in app.extensions["roads.service"].store.load()]
    shown = [client.get(p).data for p in ("/api/tables", "/api/tables/T1", "/api/tables/T1/shoes",
                                          "/api/tables/T1/shoes/1", "/api/tables/T1/shoes/1/rounds")]
    return events, shown


def assert_error_shape(resp) -> dict | None:
    """A 4xx in the one shape: JSON ``{"error": {status, code, message, field}}``, or for a
    browser outside /api/ the error page (web/http/error_pages.py) with the same status, or for an
    image client of a PNG route an image with the code in ``X-Roads-Error``."""
    assert 400 <= resp.status_code < 500, (resp.status_code, resp.data[:300])
    if resp.mimetype == "image/png":  # a PNG route's error for an image client (web/http/png_notice.py)
        assert resp.request.path.endswith(".png") and resp.data[:8] == b"\x89PNG\r\n\x1a\n"
        assert set(resp.headers["X-Roads-Error"]) <= set(string.ascii_lowercase + "_")
        return None
    if resp.mimetype == "text/html":
        assert not resp.request.path.startswith("/api/")
        assert f'data-status="{resp.status_code}"'.encode() in resp.data   # web/templates/error.html
        return None
    assert resp.mimetype == "application/json", resp.mimetype
    body = json.loads(resp.data)
    assert set(body) == {"error"}
    err = body["error"]
    assert {"status", "code", "message", "field"} <= set(err)
    assert err["status"] == resp.status_code
    assert isinstance(err["code"], str) and err["code"] and set(err["code"]) <= set(string.ascii_lowercase + "_")
    assert isinstance(err["message"], str) and err["message"]
    assert err["field"] is None or isinstance(err["field"], str)
    return err


# ----------------------------------------------------------------------------- strategies
texts = st.text(st.characters(codec="utf-8"), max_size=30) | st.sampled_from(
    ["", " ", "\x00", "\u202e", "\ufeff", "百家乐", "ເລກ", "🂡", "AS\x00", "10D ", "A" * 300, "%00", "../..", "<script>"])
json_scalars = (st.none() | st.booleans() | st.integers() | st.integers(min_value=-10**40, max_value=10**40)
                | st.floats(allow_nan=False, allow_infinity=False) | texts)
json_values = st.recursive(json_scalars,
                           lambda inner: st.lists(inner, max_size=5)
                           | st.dictionaries(texts.filter(lambda k: k not in FIELDS), inner, max_size=5),
                           max_leaves=25)


def _dump(value) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")


wrong_values = json_scalars | st.lists(json_scalars, max_size=4) | st.dictionaries(texts, json_scalars, max_size=3)
"""Replacements for one field of a valid body; each is a wrong type or an illegal value
for that field (filtered below where a value could be legal)."""

VALID_BODIES = {
    "/rounds": {"shoe": 1, "round": 3, "player": ["3H", "3D"], "banker": ["4S", "AC", "2H"]},
    "/shoes": {"shoe": 2, "burn": ["2S", "9D", "8D"], "cut_card_position": 16},
    "/void": {"reason": "misdeal"},
    "put": {"player": ["9C", "KH"], "banker": ["5D", "2S"], "reason": "typo"},
    "/cards": {"position": 1, "cards": ["AS", "2D"]},
    "/state": {"state": "betting", "dealer": "Ann"},
}


@st.composite
def broken_bodies(draw, key: str) -> bytes:
    """A valid body for the route with exactly one fault: a field of the wrong type or
    value, a field removed, or an unknown field added."""
    body = dict(VALID_BODIES[key])
    fault = draw(st.sampled_from(["replace", "remove", "add"]))
    if fault == "add":
        body[draw(texts.filter(lambda k: k not in body and k not in FIELDS))] = draw(wrong_values)
    else:
        name = draw(st.sampled_from(sorted(body)))
        if fault == "remove" and name not in ("reason", "cut_card_position", "burn", "state", "dealer"):  # optional: replace
            del body[name]
        else:
            original = body[name]
            body[name] = draw(wrong_values.filter(lambda v: not _could_be_legal(name, v, original)))
    return _dump(body)


def _could_be_legal(name: str, value, original) -> bool:
    """Whether ``value`` might be an acceptable ``name`` (then the body might be recorded)."""
    if value == original:
        return True
    if name == "reason":
        return isinstance(value, str) and 1 <= len(value) <= 500 or value is None
    if name == "cut_card_position":
        return value is None or (type(value) is int and 0 <= value <= 832)
    if name in ("shoe", "round", "position"):
        return type(value) is int and 1 <= value <= 10**9
    if name == "state":
        return value is None or isinstance(value, str)
    if name == "dealer":
        return value is None or isinstance(value, str)
    if name in ("player", "banker", "burn", "cards"):  # strings might be cards ("10D " is one); [] is a legal burn
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    return False


def bodies(key: str):
    return st.one_of(
        broken_bodies(key),
        json_values.map(_dump),
        st.binary(max_size=300),
        st.integers(1, 2000).map(lambda n: b"[" * n + b"]" * n),
        st.integers(1, 2000).map(lambda n: b'{"a":' * n + b"1" + b"}" * n),
        st.integers(20, 6000).map(lambda n: b'{"shoe": ' + b"9" * n + b"}"),
        st.sampled_from([b"1e999", b'{"shoe": -1e400}', b'{"shoe": NaN}', b'{"shoe": Infinity}', b'"\\ud800"',
                         b'{"\\udfff": 1}', b"\xef\xbb\xbf{}", b'{"shoe": 1, "shoe": 1}', b"null", b"{}", b"[]"]),
        st.integers(15_000, 40_000).map(lambda n: b'{"reason": "' + b"x" * n + b'"}'),
    )


table_ids = st.sampled_from(["T1", "T2", "t-1", "x" * 32]) | st.text(st.characters(codec="utf-8", exclude_characters="/?#"), min_size=1, max_size=40)
numbers = st.sampled_from(["1", "2", "3", "0", "9999999999"]) | st.integers(0, 10**30).map(str)


def _path(template: str, t: str, s: str, r: str) -> str:
    from urllib.parse import quote

    return template.format(t=quote(t, safe=""), s=s, r=r)


# ----------------------------------------------------------------------------- writes
@st.composite
def write_cases(draw):
    method, template = draw(st.sampled_from(WRITE_ROUTES))
    key = "put" if method == "put" else "/" + template.rsplit("/", 1)[1]
    path = _path(template, draw(table_ids), draw(numbers), draw(numbers))
    return method, path, draw(bodies(key))


@settings(max_examples=MAX_EXAMPLES["writes"], deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=write_cases())
@example(case=("post", "/api/tables/T1/rounds", DEEP))
@example(case=("post", "/api/tables/T1/rounds", HUGE_INT))
@example(case=("post", "/api/tables/T1/shoes", b'{"shoe": ' + b"2" * 4301 + b"}"))
@example(case=("put", "/api/tables/T1/shoes/1/rounds/1", DEEP))
@example(case=("post", "/api/tables/T1/shoes/1/rounds/1/void", b'{"reason": ' + b"[" * 1000 + b"]" * 1000 + b"}"))
def test_a_bad_write_is_a_4xx_in_the_error_shape_and_stores_nothing(fuzz_app, case):
    method, path, body = case
    before = stored(fuzz_app)
    resp = getattr(fuzz_app.test_client(), method)(path, data=body, headers=JSON)
    event(f"status {resp.status_code}")
    err = assert_error_shape(resp)
    assert err is not None
    if body in (DEEP, HUGE_INT):
        assert (resp.status_code, err["code"]) == (400, "malformed_json")
    assert stored(fuzz_app) == before


CONTENT_TYPES = st.sampled_from([None, "", "text/plain", "application/x-www-form-urlencoded", "text/json",
                                 "multipart/form-data; boundary=xyz", "application/jsonx", "application/xml",
                                 "application/octet-stream", "json", "application/json-patch+json"])


@settings(max_examples=MAX_EXAMPLES["wrong_content_type"], deadline=None)
@given(method_template=st.sampled_from(WRITE_ROUTES), content_type=CONTENT_TYPES)
def test_a_write_without_a_json_content_type_is_415_and_stores_nothing(fuzz_app, method_template, content_type):
    method, template = method_template
    key = "put" if method == "put" else "/" + template.rsplit("/", 1)[1]
    body = dict(VALID_BODIES[key])
    if key == "/rounds":
        body["round"] = 3
    headers = dict(AUTH)
    if content_type is not None:
        headers["Content-Type"] = content_type
    before = stored(fuzz_app)
    resp = getattr(fuzz_app.test_client(), method)(_path(template, "T1", "1", "1"), data=_dump(body), headers=headers)
    err = assert_error_shape(resp)
    assert (resp.status_code, err["code"], err["field"]) == (415, "unsupported_media_type", "Content-Type")
    assert stored(fuzz_app) == before


# ----------------------------------------------------------------------------- reads
READ_ROUTES = [
    "/", "/lobby", "/tables/{t}", "/tables/{t}/shoes/{s}", "/embed/{t}", "/lobby.png", "/tables/{t}/board.png",
    "/tables/{t}/shoes/{s}/board.png", "/tables/{t}/roads/{road}.png", "/api/tables", "/api/tables/{t}",
    "/api/tables/{t}/shoes", "/api/tables/{t}/shoes/{s}", "/api/tables/{t}/shoes/{s}/rounds", "/api/openapi.json",
]
OPTIONS = ["lang", "theme", "cols", "columns", "width", "height", "w", "h", "roads", "kind"]
option_values = (st.sampled_from(["", "1", "0", "-1", "64", "200", "201", "3841", "dark", "light", "zh", "en-US",
                                  "big_road", "bead_plate,big_road", ",", "lobby", "board", "1_0", "١٢", " 5"])
                 | st.integers(-10**6, 10**6).map(str) | st.just("9" * 5000) | texts)
ACCEPTS = st.sampled_from([None, "text/html", "application/json", "*/*", "image/png", "text/html;q=0.1, */*;q=0.9",
                           "\x00", "garbage;;q=x"])


@st.composite
def read_cases(draw):
    from urllib.parse import quote

    template = draw(st.sampled_from(READ_ROUTES))
    road = draw(st.sampled_from(["big_road", "bead_plate", "cockroach_pig", "nope"]) | texts.filter(bool))
    path = template.format(t=quote(draw(table_ids), safe=""), s=draw(numbers), road=quote(road, safe=""))
    query = draw(st.lists(st.tuples(st.sampled_from(OPTIONS) | texts, option_values), max_size=4))
    if query and draw(st.booleans()):  # small images: the PNG cases stay quick
        query = [(k, v) for k, v in query if k not in ("width", "height")] + [("width", "64"), ("height", "64")]
    return path, query, draw(ACCEPTS)


@settings(max_examples=MAX_EXAMPLES["reads"], deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=read_cases())
@example(case=("/tables/T1", [("cols", "9" * 4301)], None))
@example(case=("/api/tables/T1/shoes/" + "9" * 4301, [], None))
@example(case=("/tables/T1/board.png", [("width", "9" * 4301)], "image/png"))
@example(case=("/tables/T1/roads/%2F0.png", [], None))  # was a 308: Werkzeug merged the slashes
@example(case=("/api/tables//T1", [], None))
def test_a_read_never_fails_with_a_5xx_and_changes_nothing(fuzz_app, case):
    path, query, accept = case
    before = stored(fuzz_app)
    headers = {"Accept": accept} if accept is not None else {}
    resp = fuzz_app.test_client().get(path, query_string=query, headers=headers)
    event(f"status {resp.status_code}")
    assert resp.status_code < 500, (path, query, resp.data[:300])
    if resp.status_code >= 400:
        assert_error_shape(resp)
    else:
        assert resp.status_code in (200, 302, 304)
    assert stored(fuzz_app) == before
