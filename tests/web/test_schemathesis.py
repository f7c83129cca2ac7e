"""Schemathesis against ``/api/openapi.json``, in-process on the WSGI app (no server, no network).

Every operation of the document is called with requests generated from its schema, valid and
invalid, and every answer is checked: never a 5xx, a documented status and content type,
a body that validates against the documented response schema, invalid requests refused
(``negative_data_rejection``), and, in place of schemathesis' own ``positive_data_acceptance``,
:func:`schema_valid_requests_pass_validation`: a request the document calls valid is never
refused with 400 by the validation. The game's rules (tableau, totals against the winner,
card copies in the shoe) and the record (a round number taken, a gap, a past shoe) lie beyond
any JSON Schema: those refusals are 409/422 and allowed.

Four 400s are allowed for schema-valid requests because JSON Schema cannot express them: a
number written with a fraction (``3.0``; JSON Schema counts it as the integer 3, the feed
takes JSON types strictly, docs/api.md), a ``PUT`` body naming another shoe or round than
its path (``path_mismatch``), and a ``date-time`` whose instant in UTC falls outside years
1-9999 (``0001-01-01T00:00:00+00:02`` is RFC 3339 but 1 minute 58 s before year 1 in UTC:
refused as ``invalid_value`` "out of range", roads/table_state.py ``parse_time``), and a range of
gaming days whose ``to`` is before its ``from`` or too long (``bad_parameter`` naming ``to``).

Bounded for CI: :data:`MAX_EXAMPLES` generated cases per operation (plus schemathesis'
explicit examples and coverage cases): about 1,600 calls in about 12 s.
"""

from __future__ import annotations

import json
import tempfile

import schemathesis
from hypothesis import HealthCheck, settings

from support.feed import FEED_TOKEN, close_app, make_app

MAX_EXAMPLES = 100
"""Generated cases per operation per run."""

AUTH = {"Authorization": f"Bearer {FEED_TOKEN}"}
APP = make_app(tempfile.mkdtemp(prefix="roads-schemathesis-"))
CONFIG = schemathesis.config.SchemathesisConfig.from_dict({
    "checks": {"positive_data_acceptance": {"enabled": False}},
})
# The JSON API only: pages, PNGs and WebSockets are in the document too, but drawing random
# PNG sizes would cost minutes; tests/web/test_fuzz.py covers those routes.
schema = schemathesis.openapi.from_wsgi("/api/openapi.json", APP, config=CONFIG).include(path_regex="^/api/")

CALLS: list[tuple[str, int]] = []
"""(operation, status) of every call this run made (the report counts them)."""


def _has_integral_float(raw: object) -> bool:
    def walk(node: object) -> bool:
        if isinstance(node, float):
            return True
        if isinstance(node, dict):
            return any(walk(v) for v in node.values())
        if isinstance(node, list):
            return any(walk(v) for v in node)
        return False

    return walk(raw)


def _is_time_out_of_range(error: dict) -> bool:
    """Whether the 400 ``error`` is a time outside years 1-9999 in UTC (module docstring): its
    field is a time option and its message says so."""
    return error.get("field") == "closes_at" and "is out of range" in error.get("message", "")


@schemathesis.check
def schema_valid_requests_pass_validation(ctx, response, case):
    """A request valid by the document must not be a 400 (the schema would be looser than
    the validation), except for the four cases JSON Schema cannot express (module docstring)."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return None
    try:
        error = json.loads(response.content)["error"]
        code = error["code"]
    except (ValueError, KeyError, TypeError):
        error, code = {}, None
    if code == "path_mismatch" or _has_integral_float(case.body if isinstance(case.body, (dict, list)) else None):
        return None
    if code == "invalid_value" and _is_time_out_of_range(error):
        return None
    if code == "bad_parameter" and error.get("field") == "to" and case.operation.path.endswith("/stats/days"):
        return None
    raise AssertionError(f"schema-valid request refused with 400 {code}: {response.content[:300]!r}")


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_api_answers_as_its_openapi_document_says(case):
    response = case.call_and_validate(headers=AUTH, additional_checks=[schema_valid_requests_pass_validation])
    CALLS.append((case.operation.label, response.status_code))
