"""The one table that maps the record's domain errors (roads.errors) to HTTP statuses."""

from __future__ import annotations

from roads import errors
from roads.record import RESULT_KEYS
from web.http import schemas
from web.http.errors import DOMAIN_STATUS, Conflict, NotFound, from_domain_error

# docs/api.md section "Errors": status of each code.
DOCUMENTED = {
    "round_conflict": 409, "round_gap": 409, "shoe_ended": 409, "shoe_backwards": 409, "shoe_conflict": 409,
    "already_voided": 409, "round_voided": 409, "tableau": 422, "result_contradiction": 422,
    "too_many_copies": 422, "burn_count": 422, "cut_card_position": 422, "unknown_variant": 422, "unknown_table": 404,
    "unknown_shoe": 404, "unknown_round": 404, "bad_card": 400,
    "round_in_progress": 409, "round_held": 409, "card_conflict": 409, "card_gap": 409, "deal_order": 422, "bad_table_state": 422,
    "unknown_bet": 422, "bad_table_id": 400, "table_not_allowed": 403, "too_many_tables": 403,
}


def test_every_domain_error_has_its_documented_status():
    classes = errors.error_classes()
    assert set(classes) == set(DOMAIN_STATUS)
    assert {cls.code: DOMAIN_STATUS[cls] for cls in classes} == DOCUMENTED


def test_a_domain_error_keeps_its_code_field_and_extra_keys():
    e = from_domain_error(errors.UnknownShoe("table 'T1' has no shoe 2", field="shoe"))
    assert isinstance(e, NotFound)
    assert e.to_json() == {"error": {"status": 404, "code": "unknown_shoe", "message": "table 'T1' has no shoe 2",
                                     "field": "shoe"}}
    e = from_domain_error(errors.RoundConflict("shoe 1 round 2 of table 'T1' is already stored as x; y differs.",
                                               table="T1", shoe=1, round=2, extra={"stored": {"round": 2}}))
    assert isinstance(e, Conflict) and e.to_json()["error"]["stored"] == {"round": 2}
    assert e.message.endswith(" To correct the stored round, PUT it to /api/tables/T1/shoes/1/rounds/2")


def test_result_keys_follow_the_feed_schema():
    assert tuple(schemas.ResultIn.model_fields) == RESULT_KEYS
