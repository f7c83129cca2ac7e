"""The service worker's route, the waiting page and image, and the lite option, without a browser
(tests/web/test_offline_browser.py runs them in Chromium)."""

from __future__ import annotations

import io
import json
import re

import pytest
from PIL import Image

from support.feed import AUTH, dealt_rounds
from web import i18n
from web.http import offline


def test_the_worker_is_served_from_the_root_with_its_release_and_shell(client):
    from web.release import RELEASE

    resp = client.get("/sw.js")
    assert resp.status_code == 200 and resp.mimetype == "application/javascript"
    assert resp.headers["Cache-Control"] == "no-cache" and resp.headers["Service-Worker-Allowed"] == "/"
    head = resp.get_data(as_text=True).split("\n", 1)[0]
    settings = json.loads(re.fullmatch(r"self\.ROADS = (\{.*\});", head).group(1))
    assert settings["release"] == RELEASE and settings["scope"] == "/" and settings["static"] == "/static/"
    assert settings["waiting"] == "/static/waiting.html" and "/theme.css" in settings["shell"]
    for url in settings["shell"]:                                  # cache.addAll fails on any missing file
        answer = client.get(url)
        assert answer.status_code == 200, url
        answer.close()
    assert client.get("/sw.js", headers={"If-None-Match": resp.headers["ETag"]}).status_code in (200, 304)


def test_every_page_registers_the_worker(client):
    from support.html import Page

    for i, (p, b) in enumerate(dealt_rounds(2), 1):
        client.post("/api/tables/T1/rounds", json={"shoe": 1, "round": i, "player": p, "banker": b}, headers=AUTH)
    for path in ("/tables/T1", "/lobby", "/embed/T1", "/tables/T1/shoes/1", "/tables/T1/shoes", "/tables/NOPE"):
        html = client.get(path, headers={"Accept": "text/html"}).get_data(as_text=True)
        scripts = Page(html).find_all("script", src="/static/js/offline.js")
        assert len(scripts) == 1 and scripts[0].attrs["data-sw"] == "/sw.js" and scripts[0].attrs["data-scope"] == "/", path


def test_the_waiting_page_is_made_from_the_catalogues():
    """static/waiting.html is generated (python -m web.http.offline): every language's words."""
    text = offline.WAITING_FILE.read_text(encoding="utf-8")
    assert text == offline.waiting_html(), "run: python -m web.http.offline"
    words = json.loads(re.search(r'<script type="application/json" id="words">(.*?)</script>', text, re.S).group(1))
    assert set(words) == set(i18n.LANGUAGES)
    assert words["zh-Hant"]["waiting.title"] == "等待服務" and words["ko"]["waiting.title"] == "서비스를 기다리는 중"
    assert words["vi"]["waiting.title"] == "Đang chờ dịch vụ" and words["en"]["waiting.title"] == "Waiting for the service"
    assert "<script>" not in text and 'src="/static/js/waiting.js"' in text   # no inline code (CSP)


def test_the_waiting_image_is_a_1080p_png():
    img = Image.open(io.BytesIO(offline.WAITING_PNG.read_bytes()))
    assert img.format == "PNG" and img.size == (1920, 1080)


def test_nginx_answers_the_waiting_page_and_image_for_a_service_that_is_down():
    conf = (offline.STATIC_DIR.parent / "deploy" / "nginx-nchan.conf").read_text(encoding="utf-8")
    assert "error_page 502 503 504 /static/waiting.html;" in conf
    assert "error_page 502 503 504 /static/waiting.png;" in conf


def test_motion_none_says_when_betting_closes_instead_of_counting(client):
    for i, (p, b) in enumerate(dealt_rounds(3), 1):
        client.post("/api/tables/T1/rounds", json={"shoe": 1, "round": i, "player": p, "banker": b}, headers=AUTH)
    assert client.post("/api/tables/T1/state", json={"state": "betting", "seconds_left": 90}, headers=AUTH).status_code == 201

    def words(query):
        doc = client.get(f"/tables/T1/model.json?orient=landscape{query}").json
        items = [i for p in doc["models"]["landscape"]["panels"] for i in p["items"] if i.get("p") == "t"]
        return [i["t"] for i in items], [i for i in items if i.get("cd")]

    full, ticking = words("")
    lite, still = words("&motion=none")
    assert len(ticking) == 1 and ticking[0]["fmt"] == "Bets close in {s} s"
    assert still == [] and any(re.fullmatch(r"Bets close at \d\d:\d\d:\d\d", w) for w in lite)
    bad = client.get("/tables/T1?motion=slow")
    assert bad.status_code == 400 and bad.json["error"]["field"] == "motion"
