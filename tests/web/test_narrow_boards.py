"""Boards with very few or very many big-road columns still draw (a narrow board leaves text
panels out instead of failing): every page, model and PNG answers 200, never a 5xx."""

from __future__ import annotations

import pytest

from support.feed import AUTH


@pytest.mark.parametrize("rounds", [0, 1])
def test_every_column_count_draws_on_pages_models_and_pngs(client, rounds):
    client.post("/api/tables/T1/shoes", json={"shoe": 1}, headers=AUTH)
    if rounds:
        r = client.post("/api/tables/T1/rounds", headers=AUTH,
                        json={"shoe": 1, "round": 1, "player": ["4S", "KD", "9H"], "banker": ["7C", "JD"]})
        assert r.status_code == 201
    for n in (1, 2, 3, 4, 6, 9, 14, 30, 60, 200):
        for path in (f"/tables/T1?cols={n}", f"/tables/T1/model.json?cols={n}", f"/embed/T1?cols={n}",
                     f"/embed/T1/model.json?cols={n}", f"/tables/T1/board.png?columns={n}",
                     f"/tables/T1/board.png?columns={n}&width=1080&height=1920"):
            r = client.get(path)
            assert r.status_code in (200, 400), (path, r.status_code)
            if r.status_code == 400:
                assert r.get_json()["error"]["code"] == "bad_parameter", path
