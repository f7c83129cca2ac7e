"""The OpenAPI document matches the app's real routes, its references resolve, and real
responses validate against the schemas it documents."""

from __future__ import annotations

import re

import jsonschema
import pytest

P1, B1 = ["4S", "KD", "9H"], ["7C", "JD"]


@pytest.fixture
def doc(client):
    resp = client.get("/api/openapi.json")
    assert resp.status_code == 200 and resp.mimetype == "application/json"
    return resp.json


def api_routes(app):
    """{(openapi path, method)} of every /api rule of the app, with its path parameter names."""
    out = {}
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        path = re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"{\1}", rule.rule)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            out[(path, method.lower())] = set(rule.arguments)
    return out


def test_every_api_route_is_documented_and_nothing_else(app, doc):
    routes = api_routes(app)
    documented = {(path, method) for path, ops in doc["paths"].items() for method in ops}
    assert documented == set(routes)


def test_path_parameters_match_the_routes(app, doc):
    for (path, method), arguments in api_routes(app).items():
        op = doc["paths"][path][method]
        params = {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
        assert params == arguments, (path, method)
        assert set(re.findall(r"{([a-z_]+)}", path)) == arguments


def test_writes_need_the_token_and_reads_do_not(doc):
    for path, ops in doc["paths"].items():
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
        assert ref.rsplit("/", 1)[1] in doc["components"]["schemas"], ref


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
    for t in client.get("/api/tables").json["tables"]:
        validator(doc, "TableSummary").validate(t)
    for s in client.get("/api/tables/T1/shoes").json["shoes"]:
        validator(doc, "ShoeSummary").validate(s)
    for r in client.get("/api/tables/T1/shoes/1/rounds").json["rounds"]:
        validator(doc, "RoundRecord").validate(r)


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
