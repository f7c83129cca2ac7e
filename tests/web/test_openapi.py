"""The OpenAPI document matches the app's real routes, its references resolve, and real
responses validate against the schemas it documents."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest

P1, B1 = ["4S", "KD", "9H"], ["7C", "JD"]


@pytest.fixture
def doc(client):
    resp = client.get("/api/openapi.json")
    assert resp.status_code == 200 and resp.mimetype == "application/json"
    return resp.json


def app_routes(app, prefix="/"):
    """{(openapi path, method): path parameter names} of every rule of the app under ``prefix``
    (static files aside)."""
    out = {}
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith(prefix) or rule.endpoint == "static":
            continue
        path = re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"{\1}", rule.rule)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            out[(path, method.lower())] = set(rule.arguments)
    return out


def api_routes(app):
    return app_routes(app, "/api/")


def test_every_route_of_the_app_is_documented_and_nothing_else(app, doc):
    routes = app_routes(app)
    documented = {(path, method) for path, ops in doc["paths"].items() for method in ops}
    assert documented == set(routes)
    assert {("/lobby", "get"), ("/embed/{table_id}", "get"), ("/lobby.png", "get"), ("/ws/lobby", "get"),
            ("/tables/{table_id}/roads/{road}.png", "get"), ("/ws/tables/{table_id}", "get")} <= documented


def test_path_parameters_match_the_routes(app, doc):
    for (path, method), arguments in app_routes(app).items():
        op = doc["paths"][path][method]
        params = {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
        assert params == arguments, (path, method)
        assert set(re.findall(r"{([a-z_]+)}", path)) == arguments


@pytest.mark.parametrize("path, options", [
    ("/tables/{table_id}", {"lang", "theme", "cols", "bead", "good", "motion"}),
    ("/embed/{table_id}", {"lang", "theme", "cols", "roads", "w", "h", "bead", "good", "motion"}),
    ("/lobby", {"lang", "theme", "tables", "per_page", "page", "rotate_s", "bead", "good", "motion", "good_road"}),
    ("/tables/{table_id}/board.png", {"width", "height", "cols", "columns", "theme", "lang", "kind"}),
    ("/lobby.png", {"width", "height", "cols", "columns", "theme", "lang", "kind", "tables", "per_page", "page",
                    "good_road"}),
])
def test_page_and_png_routes_list_their_query_options(doc, path, options):
    op = doc["paths"][path]["get"]
    assert {p["name"] for p in op["parameters"] if p["in"] == "query"} == options


def test_media_types_of_pages_pngs_and_websockets(doc):
    assert set(doc["paths"]["/lobby"]["get"]["responses"]["200"]["content"]) == {"text/html"}
    assert set(doc["paths"]["/tables/{table_id}/board.png"]["get"]["responses"]["200"]["content"]) == {"image/png"}
    assert set(doc["paths"]["/ws/lobby"]["get"]["responses"]) == {"101", "400"}


def test_writes_need_the_token_and_reads_do_not(doc):
    for path, ops in doc["paths"].items():
        if not path.startswith("/api/"):
            assert all("security" not in op for op in ops.values()), path
            continue
        for method, op in ops.items():
            if method == "get":
                assert "security" not in op, path
            else:
                assert op["security"] == [{"feedToken": []}], (path, method)
                assert "401" in op["responses"] and "422" in op["responses"]
    assert doc["components"]["securitySchemes"]["feedToken"]["scheme"] == "bearer"


def test_every_reference_resolves(doc):
    refs = set()

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                refs.add(node["$ref"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(doc)
    assert refs
    for ref in refs:
        assert ref.startswith("#/components/schemas/"), ref
        node = doc
        for step in ref[2:].split("/"):   # a JSON pointer: a component, or a part of one
            assert step in node, ref
            node = node[step]


def validator(doc, name):
    return jsonschema.Draft202012Validator({"$ref": f"#/components/schemas/{name}", "components": doc["components"]})


def test_real_responses_validate_against_the_documented_schemas(client, feed, doc):
    created = feed.round(1, 1, P1, B1)
    validator(doc, "Ack").validate(created.json)
    validator(doc, "Ack").validate(feed.round(1, 1, P1, B1).json)
    validator(doc, "Ack").validate(feed.void(1, 1, "misdeal").json)
    validator(doc, "Error").validate(feed.round(1, 1, ["9C", "KH"], ["5D", "2S"]).json)
    validator(doc, "Error").validate(client.get("/api/tables/nope").json)
    validator(doc, "Snapshot").validate(client.get("/api/tables/T1").json)
    validator(doc, "Ack").validate(feed.shoe(2, burn=["AS", "2C"]).json)
    validator(doc, "Ack").validate(feed.round(2, 1, P1, B1).json)
    validator(doc, "Ack").validate(feed.correct(2, 1, {"player": ["9C", "KH"], "banker": ["5D", "2S"]}).json)
    validator(doc, "TableList").validate(client.get("/api/tables").json)
    validator(doc, "ShoeList").validate(client.get("/api/tables/T1/shoes").json)
    validator(doc, "RoundExport").validate(client.get("/api/tables/T1/shoes/1/rounds").json)
    validator(doc, "RoundExport").validate(client.get("/api/tables/T1/shoes/2/rounds").json)


ANSWERS = [
    # (schema, how to get a real answer, a key path inside it)
    ("Ack", lambda c, f: f.round(1, 2, ["9C", "KH"], ["5D", "2S"]).json, ("result", "winner")),
    ("TableList", lambda c, f: c.get("/api/tables").json, ("tables", 0, "version")),
    ("ShoeList", lambda c, f: c.get("/api/tables/T1/shoes").json, ("shoes", 0, "counted")),
    ("RoundExport", lambda c, f: c.get("/api/tables/T1/shoes/1/rounds").json, ("rounds", 0, "corrections")),
    ("RoundExport", lambda c, f: c.get("/api/tables/T1/shoes/1/rounds").json, ("shoe", "cut_card_round")),
    ("Error", lambda c, f: c.get("/api/tables/nope").json, ("error", "field")),
]


@pytest.mark.parametrize("name, get, where", ANSWERS, ids=[f"{a[0]}-{a[2][-1]}" for a in ANSWERS])
def test_a_renamed_or_dropped_key_in_an_answer_fails_its_schema(client, feed, doc, name, get, where):
    assert feed.round(1, 1, P1, B1).status_code == 201
    body = get(client, feed)
    check = validator(doc, name)
    check.validate(body)
    *parents, key = where
    renamed = json.loads(json.dumps(body))
    node = renamed
    for step in parents:
        node = node[step]
    node[key + "_renamed"] = node.pop(key)
    with pytest.raises(jsonschema.ValidationError):
        check.validate(renamed)
    dropped = json.loads(json.dumps(body))
    node = dropped
    for step in parents:
        node = node[step]
    del node[key]
    if key in ("round", "result", "void", "stored"):  # optional keys: dropping one is allowed
        return
    with pytest.raises(jsonschema.ValidationError):
        check.validate(dropped)


def test_answer_schemas_come_from_the_typed_models(doc):
    from web.http import responses

    for name, model in responses.MODELS.items():
        schema = doc["components"]["schemas"][name]
        assert schema["additionalProperties"] is False, name
        assert set(schema["properties"]) == set(model.model_fields), name
        assert set(schema["required"]) == {f for f, info in model.model_fields.items() if info.is_required()}, name


def test_documented_request_bodies_accept_what_the_feed_accepts_and_refuse_unknown_fields(doc):
    card = validator(doc, "CardRoundIn")
    card.validate({"shoe": 1, "round": 1, "player": ["4S", "KD", "9H"], "banker": ["7C", "10d"]})
    with pytest.raises(jsonschema.ValidationError):
        card.validate({"shoe": 1, "round": 1, "player": P1, "banker": B1, "dealer": "Ann"})
    with pytest.raises(jsonschema.ValidationError):
        card.validate({"shoe": 1, "round": 1, "player": ["4S"], "banker": B1})
    with pytest.raises(jsonschema.ValidationError):
        card.validate({"shoe": 1, "round": 1, "player": ["4S", "1H"], "banker": B1})
    validator(doc, "ResultRoundIn").validate({"shoe": 3, "round": 42, "result": {
        "winner": "B", "player_total": 3, "banker_total": 7, "player_pair": False, "banker_pair": True, "natural": False}})
    validator(doc, "ShoeIn").validate({"shoe": 3, "burn": ["5H", "KD", "2C", "9S", "4D", "QH"], "cut_card_position": 30})
    validator(doc, "VoidIn").validate({"reason": "misdeal"})


def test_answers_with_a_round_in_progress_or_a_state_validate(client, feed, auth, doc):
    # issue 21 item 6: TableSummary lacked in_progress and state, RoundRecord incomplete (and a null
    # result), ErrorDetail in_progress
    assert feed.round(1, 1, P1, B1).status_code == 201
    assert client.post("/api/tables/T1/state", json={"state": "dealing", "dealer": "Anna"}, headers=auth).status_code == 201
    assert client.post("/api/tables/T1/shoes/1/rounds/2/cards", json={"position": 1, "cards": ["4S"]},
                       headers=auth).status_code == 201
    listed = client.get("/api/tables").json
    assert set(listed["tables"][0]) >= {"in_progress", "state"}
    validator(doc, "TableList").validate(listed)
    refused = client.post("/api/tables/T1/shoes", json={"shoe": 2}, headers=auth)
    assert (refused.status_code, refused.json["error"]["code"]) == (409, "round_in_progress")
    validator(doc, "Error").validate(refused.json)
    assert feed.void(1, 2, "misdeal").status_code == 201
    export = client.get("/api/tables/T1/shoes/1/rounds").json
    assert (export["rounds"][1]["result"], export["rounds"][1]["incomplete"]) == (None, True)
    validator(doc, "RoundExport").validate(export)


def test_the_suite_wide_check_refuses_an_answer_the_document_does_not_describe():
    from support import openapi_check

    with pytest.raises(AssertionError, match="'surprise' was unexpected"):
        openapi_check.check("GET", "/api/tables", 200, "application/json", b'{"version": 0, "tables": [], "surprise": 1}')
    with pytest.raises(AssertionError, match="does not list"):
        openapi_check.check("GET", "/api/tables", 418, "application/json", b'{"error": {}}')
    openapi_check.check("GET", "/api/tables", 200, "application/json", b'{"version": 0, "tables": []}')
