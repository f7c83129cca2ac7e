"""Every JSON answer the test suite gets from the app is checked against the OpenAPI document
(issue 21 item 6: ``TableSummary`` lacked ``in_progress``, ``RoundRecord`` ``incomplete``, ...).

:func:`install` wraps Flask's test client (``FlaskClient.open``, which every ``client.get/post``
goes through): an answer of a documented operation whose status the operation documents with a
JSON schema must validate against that schema, and a JSON answer with a status the operation does
not document fails too. A mismatch fails the test that made the request, naming the operation,
status and the first schema error. Identical bodies are checked once per run (keyed by operation,
status and a digest of the bytes).

The document is :func:`web.http.openapi.document` (what ``/api/openapi.json`` serves). Answers of
routes the document lacks (static files), non-JSON answers (pages, PNGs) and WebSocket upgrades are
not checked here (tests/web/test_openapi.py covers the routes).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from typing import Any, Iterator

import jsonschema
from flask.testing import FlaskClient

_STATE: dict[str, Any] = {}
ENABLED = True
"""Off inside :func:`unchecked` (tests about answers that are wrong on purpose: the 500 of a
renderer failure a test forces, tests/web/test_model_held.py)."""


@contextlib.contextmanager
def unchecked() -> Iterator[None]:
    """Answers within the ``with`` block are not checked against the document."""
    global ENABLED
    before, ENABLED = ENABLED, False
    try:
        yield
    finally:
        ENABLED = before


def _operations(doc: dict[str, Any]) -> list[tuple[re.Pattern[str], str, str, dict[str, Any]]]:
    """``(path regex, method, "METHOD /path", operation)``, the most literal path first."""
    out = []
    for path, ops in doc["paths"].items():
        regex = "^" + re.sub(r"\\{[a-z_]+\\}", "[^/]+", re.escape(path)) + "$"
        literal = len(re.sub(r"\{[a-z_]+\}", "", path))
        for method, op in ops.items():
            out.append((literal, re.compile(regex), method.upper(), f"{method.upper()} {path}", op))
    out.sort(key=lambda x: -x[0])
    return [x[1:] for x in out]


def _validator(doc: dict[str, Any], schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator({**schema, "components": doc["components"]},
                                           format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def _setup() -> dict[str, Any]:
    if not _STATE:
        from web.http.openapi import document

        doc = document()
        _STATE.update(doc=doc, ops=_operations(doc), validators={}, seen=set())
    return _STATE


def check(method: str, path: str, status: int, mimetype: str, body: bytes) -> None:
    """Raise ``AssertionError`` when a JSON answer (``mimetype`` ``application/json``) of a
    documented operation breaks the document (module docstring)."""
    if mimetype != "application/json" or not body:
        return
    state = _setup()
    if method == "HEAD":
        return
    found = next(((name, op) for regex, m, name, op in state["ops"] if m == method and regex.match(path)), None)
    if found is None:
        return
    name, op = found
    key = (name, status, hashlib.blake2b(body, digest_size=16).digest())
    if key in state["seen"]:
        return
    responses = op.get("responses", {})
    documented = responses.get(str(status)) or responses.get(f"{str(status)[0]}XX") or responses.get("default")
    assert documented is not None, f"{name} answered {status}, which the OpenAPI document does not list: {body[:300]!r}"
    schema = documented.get("content", {}).get("application/json", {}).get("schema")
    assert schema is not None, f"{name} answered {status} with JSON, documented without a JSON body: {body[:300]!r}"
    vkey = (name, str(status))
    validator = state["validators"].get(vkey)
    if validator is None:
        validator = state["validators"][vkey] = _validator(state["doc"], schema)
    data = json.loads(body)
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    assert error is None, (f"{name} {status} breaks the OpenAPI document at "
                           f"{'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message[:400]}")
    state["seen"].add(key)


def install() -> None:
    """Wrap ``FlaskClient.open`` so every answer goes through :func:`check` (once per process)."""
    if getattr(FlaskClient.open, "_openapi_checked", False):
        return
    original = FlaskClient.open

    def open_checked(self: FlaskClient, *args: Any, **kwargs: Any) -> Any:
        response = original(self, *args, **kwargs)
        if ENABLED:
            request = response.request
            check(request.method, request.path, response.status_code, response.mimetype, response.get_data())
        return response

    open_checked._openapi_checked = True  # type: ignore[attr-defined]
    FlaskClient.open = open_checked  # type: ignore[method-assign]
