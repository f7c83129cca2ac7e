"""Settings: environment variables, their units and checks, ``ROADS_TABLES`` in every form."""

from __future__ import annotations

import json
import re

import pytest

import web.settings as config
from support.feed import close_app, make_app
from web.settings import ConfigError, table_configs


def test_every_setting_is_documented_with_its_unit():
    for name, field in config.Settings.model_fields.items():
        assert field.description and len(field.description) > 20, f"{name} has no help text"
        assert field.json_schema_extra["unit"], f"{name} has no unit"


def test_environment_sets_and_converts_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("ROADS_MAX_BODY_BYTES", "2048")
    monkeypatch.setenv("ROADS_PORT", "9123")
    monkeypatch.setenv("ROADS_HOST", "0.0.0.0")
    monkeypatch.setenv("ROADS_TABLES", '{"T7": {"name": "Seven"}}')
    app = make_app(tmp_path / "d")
    try:
        assert app.config["ROADS_MAX_BODY_BYTES"] == 2048 and app.config["MAX_CONTENT_LENGTH"] == 2048
        assert app.config["ROADS_PORT"] == 9123 and app.config["ROADS_HOST"] == "0.0.0.0"
        assert [t["name"] for t in app.test_client().get("/api/tables").json["tables"]] == ["Seven"]
    finally:
        close_app(app)


def test_test_overrides_win_over_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("ROADS_FEED_TOKEN", "from-env")
    app = make_app(tmp_path / "d")
    try:
        assert app.config["ROADS_FEED_TOKEN"] == "test-token"
    finally:
        close_app(app)


@pytest.mark.parametrize("key, value", [
    ("ROADS_PORT", "eighty"), ("ROADS_PORT", "70000"), ("ROADS_MAX_BODY_BYTES", "10"), ("ROADS_PORT", True),
])
def test_bad_numbers_are_refused_naming_the_setting(tmp_path, key, value):
    with pytest.raises(ConfigError, match=key):
        make_app(tmp_path / "d", **{key: value})


def test_tables_setting_forms():
    expected = {"T1": {"name": "Table 1", "variant": "seed001"}, "b-2": {"name": None, "variant": None}}
    assert table_configs('{"T1": {"name": "Table 1", "variant": "seed001"}, "b-2": {}}') == expected
    assert table_configs([{"id": "T1", "name": "Table 1", "variant": "seed001"}, {"id": "b-2"}]) == expected
    assert table_configs(None) == {} and table_configs("") == {}


def test_tables_setting_from_a_file(tmp_path):
    path = tmp_path / "tables.json"
    path.write_text(json.dumps({"T1": {"name": "百家乐"}}), encoding="utf-8")
    assert table_configs(str(path)) == {"T1": {"name": "百家乐", "variant": None}}
    with pytest.raises(ConfigError, match="cannot read file"):
        table_configs(str(tmp_path / "missing.json"))


@pytest.mark.parametrize("value, words", [
    ('{"T1": ', "not valid JSON"),
    ('{"bad id!": {}}', "'bad id!'"),
    ('{"T1": {"colour": "red"}}', "unknown key"),
    ('{"T1": {"name": 5}}', 'ROADS_TABLES["T1"].name must be a JSON string, got 5'),
    ('[{"name": "x"}]', "'id'"),
    ('[{"id": "T1"}, {"id": "T1"}]', "appears twice"),
    ("[1]", "expected an object"),
])
def test_bad_tables_settings_are_refused(value, words):
    with pytest.raises(ConfigError, match=re.escape(words)):
        table_configs(value)


def test_a_configured_variant_must_be_a_preset(tmp_path):
    with pytest.raises(ConfigError, match="no-such-game"):
        make_app(tmp_path / "d", ROADS_TABLES={"T1": {"variant": "no-such-game"}})


def test_the_app_keeps_one_validated_settings_object(tmp_path, monkeypatch):
    from web.settings import Settings, get_settings

    monkeypatch.setenv("ROADS_PNG_CACHE_ENTRIES", "")  # empty counts as unset
    app = make_app(tmp_path / "d", ROADS_WS_PING_S="0.5", ROADS_NOT_A_SETTING="x")
    try:
        settings = get_settings(app)
        assert isinstance(settings, Settings)
        assert settings.ws_ping_s == 0.5 and settings.png_cache_entries == 256
        assert settings.feed_token == "test-token" and str(settings.data_dir) == str(tmp_path / "d")
        assert app.config["ROADS_WS_PING_S"] == 0.5  # the validated value, mirrored for Flask and tools
        # one naming scheme for the app's extensions: "roads.<what>"
        assert {"roads.settings", "roads.service", "roads.png_cache"} <= set(app.extensions)
        assert [k for k in app.extensions if not k.startswith("roads.")] == []
    finally:
        close_app(app)


@pytest.mark.parametrize("key, value, message", [
    ("ROADS_PORT", True, "ROADS_PORT must be an integer, got True"),
    ("ROADS_PORT", "70000", "ROADS_PORT must be an integer 0-65535, got '70000'"),
    ("ROADS_MAX_BODY_BYTES", "1.5", "ROADS_MAX_BODY_BYTES must be an integer, got '1.5'"),
    ("ROADS_WS_KEEPALIVE_S", "0", "ROADS_WS_KEEPALIVE_S must be between 0.05 and 3600, got '0'"),
    ("ROADS_TABLES", '{"bad id!": {}}', "ROADS_TABLES: table id 'bad id!' is not a slug of 1-32"),
])
def test_a_bad_value_is_refused_naming_the_setting_and_quoting_the_value(key, value, message):
    from web.settings import Settings

    with pytest.raises(ConfigError, match=re.escape(message)):
        Settings.load({key: value})


def test_display_settings_are_typed_fields_of_the_model(tmp_path, monkeypatch):
    monkeypatch.setenv("ROADS_VENUE_TZ", "Asia/Bangkok")
    monkeypatch.setenv("ROADS_STALE_S", "90")
    monkeypatch.setenv("ROADS_GOOD_ROADS", "ping_pong, long_banker,ping_pong")
    monkeypatch.setenv("ROADS_SCREENS", '{"east": {"tables": ["T2", "T1"], "per_page": 4, "good": []}}')
    settings = config.Settings.load()
    assert settings.venue_tz == "Asia/Bangkok" and settings.stale_s == 90.0
    assert settings.good_roads == ("ping_pong", "long_banker")
    assert {k: v.preset() for k, v in settings.screens.items()} == {
        "east": {"tables": ["T2", "T1"], "per_page": 4, "good": []}}
    assert config.Settings.load({"ROADS_GOOD_ROADS": "none"}).good_roads == ()


def test_display_settings_defaults():
    settings = config.Settings.load()
    assert settings.venue_tz == "UTC" and settings.stale_s == 300.0 and settings.screens == {}
    assert settings.good_roads == ("long_banker", "long_player", "ping_pong")


def test_screens_setting_from_a_file(tmp_path):
    path = tmp_path / "screens.json"
    path.write_text(json.dumps({"west": {"lang": "th", "title": "ตะวันตก"}}), encoding="utf-8")
    assert config.screen_configs(str(path)) == {"west": {"lang": "th", "title": "ตะวันตก"}}


@pytest.mark.parametrize("key, value, words", [
    ("ROADS_VENUE_TZ", "Mars/Olympus", "ROADS_VENUE_TZ is not an IANA time zone"),
    ("ROADS_STALE_S", "0", "ROADS_STALE_S must be seconds in [1, 604800]"),
    ("ROADS_STALE_S", "soon", "ROADS_STALE_S must be a number of seconds"),
    ("ROADS_GOOD_ROADS", "long_banker,dragon", "unknown pattern 'dragon'"),
    ("ROADS_SCREENS", '{"east": ', "ROADS_SCREENS: not valid JSON"),
    ("ROADS_SCREENS", '["east"]', "expected a JSON object of screens"),
    ("ROADS_SCREENS", '{"east": {"colour": "red"}}', "unknown key(s) ['colour']"),
    ("ROADS_SCREENS", '{"east": {"per_page": "six"}}', 'ROADS_SCREENS["east"].per_page must be a JSON integer'),
    ("ROADS_SCREENS", '{"east": {"tables": "T1"}}', "tables must be a JSON array"),
    ("ROADS_SCREENS", '{"bad name!": {}}', "screen name 'bad name!'"),
])
def test_bad_display_settings_stop_the_app_naming_the_setting(tmp_path, key, value, words):
    with pytest.raises(ConfigError, match=re.escape(words)):
        make_app(tmp_path / "d", **{key: value})


def test_tables_setting_lets_limits_through_to_the_service(app_factory):
    limits = {"min": 100, "max": 10000, "bets": {"player_pair": {"min": 10, "max": 500}}}
    assert table_configs({"T1": {"name": "One", "limits": limits}}) == {
        "T1": {"name": "One", "variant": None, "limits": limits}}
    app = app_factory(ROADS_TABLES={"T1": {"name": "One", "limits": {"min": 100, "max": 10000}}})
    snap = app.test_client().get("/api/tables/T1").json
    assert snap["state"]["limits"] == {"min": 100, "max": 10000} and snap["state"]["state"] is None


@pytest.mark.parametrize("limits, words", [
    ([100, 1000], "limits must be an object"),
    ({"min": 500, "max": 100}, "limits"),
    ({"min": 1, "max": 5, "colour": 1}, "limits"),
])
def test_bad_configured_limits_are_refused_naming_the_table(tmp_path, limits, words):
    with pytest.raises(ConfigError, match=re.escape('ROADS_TABLES["T1"]')):
        make_app(tmp_path / "d", ROADS_TABLES={"T1": {"limits": limits}})


@pytest.mark.parametrize("key, value, message", [
    # issue 21: a CR in a name or title started the service without a word, then broke every board
    ("ROADS_TABLES", '{"T1": {"name": "Table\\r1"}}',
     'ROADS_TABLES["T1"].name must be text without control, format or line/paragraph separator characters, '
     "and not blank; it holds U+000D (a control character) at index 5, got 'Table\\r1'"),
    ("ROADS_TABLES", '[{"id": "T2", "name": "Two\\u2029"}]',
     'ROADS_TABLES["T2"].name must be text without control, format or line/paragraph separator characters, '
     "and not blank; it holds U+2029 (a paragraph separator) at index 3, got 'Two\\u2029'"),
    ("ROADS_TABLES", '{"T1": {"name": "  "}}', 'ROADS_TABLES["T1"].name must be text without control, format '
     "or line/paragraph separator characters, and not blank; it is blank, got '  '"),
    ("ROADS_TABLES", '{"T1": {"name": "' + "x" * 101 + '"}}',
     'ROADS_TABLES["T1"].name must be at most 100 characters, got 101'),
    ("ROADS_TABLES", '{"T1": 5}', 'ROADS_TABLES["T1"] must be a JSON object, got 5'),
    ("ROADS_TABLES", '{"T1": {"variant": ""}}', "ROADS_TABLES[\"T1\"].variant must not be empty, got ''"),
    ("ROADS_TABLES", '{"T1": {"colour": "red", "size": 1}}',
     "ROADS_TABLES[\"T1\"]: unknown key(s) ['colour', 'size'] (allowed: name, variant, limits)"),
    ("ROADS_SCREENS", '{"east": {"title": "East\\u202eWest"}}',
     'ROADS_SCREENS["east"].title must be text without control, format or line/paragraph separator characters, '
     "and not blank; it holds U+202E (a format character) at index 4, got 'East\\u202eWest'"),
    ("ROADS_SCREENS", '{"east": {"tables": ["T1", 2]}}', 'ROADS_SCREENS["east"].tables[1] must be a JSON string, got 2'),
    ("ROADS_SCREENS", '{"east": {"per_page": true}}', 'ROADS_SCREENS["east"].per_page must be a JSON integer, got True'),
    ("ROADS_SCREENS", '{"east": {"tables": ["T1", "a\\rb"]}}',
     "ROADS_SCREENS[\"east\"].tables[1] is not a table id (a slug of 1-32 letters, digits, '_' or '-'), got 'a\\rb'"),
])
def test_bad_names_and_titles_stop_the_start_naming_the_setting(tmp_path, key, value, message):
    with pytest.raises(ConfigError) as caught:
        make_app(tmp_path / "d", **{key: value})
    assert str(caught.value) == message


def test_configured_names_and_titles_are_typed_models(tmp_path):
    settings = config.Settings.load({"ROADS_TABLES": '{"T1": {"name": "百家乐 1", "variant": "seed001"}, "T2": null}',
                                     "ROADS_SCREENS": '{"east": {"title": "ตะวันออก", "per_page": 4}}'})
    assert settings.tables == {"T1": config.TableConfig(name="百家乐 1", variant="seed001"), "T2": config.TableConfig()}
    assert settings.screens["east"] == config.ScreenConfig(title="ตะวันออก", per_page=4)
    assert settings.screens["east"].preset() == {"title": "ตะวันออก", "per_page": 4}
