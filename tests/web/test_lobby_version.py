"""The lobby version is the sum of the table versions, also when a rebuild of the lobby (another
table's first write) comes between a table's new view and its in-place lobby update.

Two writers on different tables hold different table locks, so the rebuild can read the
first table's new view before that table's own update adds its increment: the increment was
counted twice (the lab's two service hosts then served the same lobby under versions one
apart, deploy/labkit). The interleaving is forced here, so the test fails without the fix.
"""

from __future__ import annotations

from support.feed import AUTH
from web.service import get_service


def test_a_rebuild_between_a_view_and_its_lobby_update_counts_the_write_once(app, client, deal):
    rounds = deal(3, seed=21)
    for table in ("T1", "T2"):
        p, b = rounds[0]
        assert client.post(f"/api/tables/{table}/rounds", json={"shoe": 1, "round": 1, "player": p, "banker": b},
                           headers=AUTH).status_code == 201
    read = get_service(app).read
    in_place = read.lobby.update

    def rebuilt_first(*args, **kwargs):
        read.publish_lobby()  # what another table's first write does from its own thread
        in_place(*args, **kwargs)

    read.lobby.update = rebuilt_first
    try:
        p, b = rounds[1]
        assert client.post("/api/tables/T1/rounds", json={"shoe": 1, "round": 2, "player": p, "banker": b},
                           headers=AUTH).status_code == 201
    finally:
        del read.lobby.update
    lobby = client.get("/api/tables").get_json()
    assert [(t["id"], t["version"]) for t in lobby["tables"]] == [("T1", 2), ("T2", 1)]
    assert lobby["version"] == 3
    p, b = rounds[2]  # and the in-place updates after it go on from the right count
    assert client.post("/api/tables/T2/rounds", json={"shoe": 1, "round": 2, "player": p, "banker": b},
                       headers=AUTH).status_code == 201
    assert client.get("/api/tables").get_json()["version"] == 4
