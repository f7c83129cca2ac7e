"""The README's feed examples work as written on a fresh service.

The ``curl`` commands are parsed out of README.md's "Feed format" section (so this test fails
when the README drifts) and sent, in order, to a fresh app with the test token in place of
``$TOKEN``. Expected results are worked out by hand from the tableau (docs/domain.md section 1):

- round 1, Player 4S KD 9H: 4 + 0 = 4 draws, 9 -> 13 -> 3; Banker 7C JD = 7 stands: Banker 7-3,
  no pair (4/K, 7/J), no natural;
- round 2 is result-level with exactly the required facts: Banker 7-3 with a banker pair.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from support.feed import FEED_TOKEN

README = Path(__file__).resolve().parents[2] / "README.md"


def feed_examples() -> list[dict]:
    """Each ``curl`` of the README's feed section as ``{"headers", "body", "path"}``."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Feed format", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    words = shlex.split(block.replace("$TOKEN", FEED_TOKEN), comments=True)  # quotes may span lines
    starts = [i for i, w in enumerate(words) if w == "curl"]
    commands = []
    for start, end in zip(starts, starts[1:] + [len(words)]):
        line = " ".join(words[start:end])
        headers, body, url = {}, None, None
        i = start + 1
        while i < end:
            if words[i] == "-H":
                name, value = words[i + 1].split(":", 1)
                headers[name.strip()] = value.strip()
                i += 2
            elif words[i] == "-d":
                body = words[i + 1]
                i += 2
            else:
                url = words[i]
                i += 1
        assert url and url.startswith("http://127.0.0.1:8000/"), line
        commands.append({"headers": headers, "body": body, "path": url.removeprefix("http://127.0.0.1:8000")})
    return commands


def test_the_readme_has_a_card_level_and_a_result_level_example():
    bodies = [json.loads(c["body"]) for c in feed_examples()]
    assert len(bodies) == 2
    assert "player" in bodies[0] and "banker" in bodies[0]
    assert "result" in bodies[1]


def test_the_readme_feed_examples_are_recorded_by_a_fresh_service(client):
    answers = []
    for example in feed_examples():
        resp = client.post(example["path"], data=example["body"].encode(), headers=example["headers"])
        assert resp.status_code == 201, resp.get_data(as_text=True)
        answers.append(resp.get_json())
    first, second = answers
    assert (first["shoe"], first["round"], first["status"]) == (1, 1, "recorded")
    r = first["result"]
    assert (r["winner"], r["player_total"], r["banker_total"]) == ("B", 3, 7)
    assert (r["player_pair"], r["banker_pair"], r["natural"]) == (False, False, False)
    assert (r["player_card_count"], r["banker_card_count"]) == (3, 2)
    assert (second["shoe"], second["round"], second["status"]) == (1, 2, "recorded")
    r = second["result"]
    assert (r["winner"], r["player_total"], r["banker_total"], r["banker_pair"]) == ("B", 3, 7, True)
    assert r["player_card_count"] is None and r["banker_card_count"] is None   # not sent: unknown
    snapshot = client.get("/api/tables/T1").get_json()
    assert (snapshot["shoe"], snapshot["round"]) == (1, 2)


def test_the_result_level_example_sends_exactly_the_required_facts():
    from web.http.schemas import ResultIn

    body = json.loads(feed_examples()[1]["body"])
    required = {name for name, f in ResultIn.model_fields.items() if f.is_required()}
    assert set(body["result"]) == required


def test_the_readme_names_every_package_ci_run_installs():
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    packages = re.findall(r"need\+=\(([\w.-]+)\)", ci)
    assert packages == ["python3-venv", "redis-server", "chromium", "nginx", "libnginx-mod-nchan", "haproxy", "postgresql"]
    paragraph = README.read_text(encoding="utf-8").split("Run the tests", 1)[1].split("```", 1)[0]
    assert all(f"`{p}`" in paragraph for p in packages), paragraph


def test_the_feed_examples_say_they_are_for_a_fresh_server_not_the_demo():
    section = README.read_text(encoding="utf-8").split("## Feed format", 1)[1].split("```sh", 1)[0]
    assert "fresh `roads serve`" in section and "`t1`..`t4`" in section
    assert {c["path"] for c in feed_examples()} == {"/api/tables/T1/rounds"}
