"""Query keys named like ``url_for``'s own arguments or a route's path values (issue 21 item 2).

Pages passed ``request.args`` whole into ``url_for``: ``/tables/T1?table_id=x``,
``/lobby?endpoint=x`` or ``?_method=POST`` on any page answered 500 with a traceback, and
``/?_external=1`` with ``Host: evil.example`` redirected to ``http://evil.example/lobby``. Only the
page options (docs/frontend.md) are carried into the URLs a page builds now; the others are ignored
as every unknown option is (docs/api.md: "an option the route does not know is ignored").
"""

from __future__ import annotations

import pytest

CLASHING = ["table_id", "shoe", "name", "road", "endpoint", "values", "_method", "_external", "_anchor", "_scheme",
            "filename"]
"""``url_for(endpoint, *, _anchor, _method, _scheme, _external, **values)``'s names and the routes' path values."""

PAGES = ["/lobby", "/lobby/model.json", "/screens/east", "/screens/east/model.json", "/tables/T1",
         "/tables/T1/shoes/1", "/tables/T1/model.json", "/embed/T1", "/embed/T1/model.json", "/tables/T1/shoes",
         "/tables/T1/board.png?width=640&height=360", "/lobby.png?width=640&height=360",
         "/screens/east.png?width=640&height=360"]

VALUE = {"_method": "POST", "_external": "1", "_scheme": "https", "shoe": "2"}
"""The value each key is sent with (``x`` otherwise)."""

SHOE_OPTION = {"/tables/T1/model.json": 404}
"""Routes that know ``shoe`` as an option: ``?shoe=2`` names a shoe the table lacks."""


@pytest.fixture
def fed(app_factory, deal):
    app = app_factory(ROADS_SCREENS={"east": {"tables": ["T1"], "title": "East"}})
    client = app.test_client()
    p, b = deal(1, seed=2)[0]
    assert client.post("/api/tables/T1/rounds", json={"shoe": 1, "round": 1, "player": p, "banker": b},
                       headers={"Authorization": "Bearer test-token"}).status_code == 201
    return client


@pytest.mark.parametrize("key", CLASHING)
@pytest.mark.parametrize("page", PAGES)
def test_a_query_key_that_clashes_with_url_building_is_ignored(fed, page, key):
    sep = "&" if "?" in page else "?"
    resp = fed.get(f"{page}{sep}{key}={VALUE.get(key, 'x')}")
    expected = SHOE_OPTION.get(page.split("?")[0], 200) if key == "shoe" else 200
    assert resp.status_code == expected, resp.data[:300]


@pytest.mark.parametrize("key", CLASHING)
def test_the_root_redirect_stays_on_this_site(fed, key):
    resp = fed.get(f"/?{key}={VALUE.get(key, 'x')}&lang=th", headers={"Host": "evil.example"})
    assert resp.status_code == 302
    kept = "shoe=2&" if key == "shoe" else ""  # a page option (a table model's shoe), carried as such
    assert resp.headers["Location"] == f"/lobby?{kept}lang=th"


def test_page_options_are_still_carried_into_the_links(fed):
    resp = fed.get("/?lang=th&theme=light&t=123")
    assert resp.headers["Location"] == "/lobby?lang=th&theme=light"
    html = fed.get("/tables/T1?lang=zh&cols=30&_external=1&table_id=x").get_data(as_text=True)
    assert '"modelUrl": "/tables/T1/model.json?lang=zh\\u0026cols=30"' in html  # "&" as the boot JSON writes it
