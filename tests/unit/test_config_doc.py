from typing import Any

import pytest

from openclaw_mcp.domain.config_doc import (
    clobber_verdict,
    configured_servers,
    has_json5_comment,
    is_newer_version,
    is_sensitive_path,
    prepare_written_document,
    serialize_config,
    substitute_env,
)

META = {
    "migrations": {"modelPolicyAllowlist": True, "utilityModelSeparation": True},
    "lastTouchedVersion": "2026.9.6",
}


def test_first_write_adds_plugin_defaults_then_meta_last() -> None:
    doc = prepare_written_document({"mcp": {"servers": {"context7": {"command": "uvx"}}}}, first_write=True)
    assert list(doc) == ["mcp", "plugins", "meta"]
    assert doc["plugins"]["entries"]["codex"] == {"config": {"sessionCatalog": {"enabled": False}}}
    assert doc["meta"] == META


def test_later_writes_keep_key_positions_and_stamp_meta() -> None:
    doc = prepare_written_document(
        {"meta": {"lastTouchedVersion": "2026.1.1", "x": 1}, "gateway": {"port": 1}}, first_write=False
    )
    assert list(doc) == ["meta", "gateway"]
    assert doc["meta"] == {
        "migrations": {"modelPolicyAllowlist": True, "utilityModelSeparation": True},
        "lastTouchedVersion": "2026.9.6",
        "x": 1,
    }


def test_empty_servers_and_then_empty_mcp_are_removed() -> None:
    assert "mcp" not in prepare_written_document({"mcp": {"servers": {}}}, first_write=False)
    doc = prepare_written_document({"mcp": {"servers": {}, "apps": {"enabled": True}}}, first_write=False)
    assert doc["mcp"] == {"apps": {"enabled": True}}


def test_legacy_model_settings_leave_the_migration_markers_absent() -> None:
    doc = prepare_written_document({"agents": {"defaults": {"models": {"a": {}}}}}, first_write=False)
    assert doc["meta"] == {"lastTouchedVersion": "2026.9.6"}


def test_serialisation_is_javascript_json_with_one_newline() -> None:
    text = serialize_config({"mcp": {"servers": {"10": {}, "2": {"requestTimeoutMs": 12000.0}}}})
    assert (
        text == '{\n  "mcp": {\n    "servers": {\n      "2": {\n        "requestTimeoutMs": 12000\n      },\n'
        '      "10": {}\n    }\n  }\n}\n'
    )


def test_env_references_are_substituted_and_missing_ones_reported() -> None:
    result = substitute_env(
        {"a": "${TOKEN}", "b": ["x-${MISSING}", "$${LIT}"], "c": "${lower}", "d": 5},
        {"TOKEN": "t", "MISSING": ""},
    )
    assert result.value == {"a": "t", "b": ["x-${MISSING}", "${LIT}"], "c": "${lower}", "d": 5}
    assert result.missing == (("b.0", "MISSING"),)


def test_only_object_entries_are_configured_servers() -> None:
    servers: Any = {"mcp": {"servers": {"a": {"command": "x"}, "b": None, "c": "s"}}}
    assert configured_servers(servers) == {"a": {"command": "x"}}
    assert configured_servers({"mcp": None}) == {}


def test_comment_detection_ignores_comment_markers_inside_strings() -> None:
    assert has_json5_comment('{// c\n"a": 1}')
    assert has_json5_comment('{"a": 1 /* c */}')
    assert not has_json5_comment('{"url": "https://x//y", \'b\': "/*"}')


@pytest.mark.parametrize(
    ("version", "newer"),
    [
        ("2026.9.7", True),
        ("2026.10.1", True),
        ("2027.1.1", True),
        ("2026.9.6", False),
        ("2026.9.6-beta", False),
        ("2026.9.5", False),
        (None, False),
        ("garbage", False),
    ],
)
def test_version_skew_compares_dotted_integers(version: Any, newer: bool) -> None:
    assert is_newer_version(version) is newer


def test_clobber_guard_refuses_a_big_size_drop_only_above_512_bytes() -> None:
    big = {"mcp": {"servers": {"big": {"command": "x" * 1400}, "small": {"command": "y"}}}}
    previous = serialize_config(big)
    small = serialize_config(
        prepare_written_document({"mcp": {"servers": {"small": {"command": "y"}}}}, first_write=False)
    )
    verdict = clobber_verdict(previous, big, small, parse_ok=True)
    assert verdict is not None and verdict[1] == len(small.encode())
    assert clobber_verdict('{"a":1}', {"a": 1}, "{}\n", parse_ok=True) is None


def test_sensitive_paths_hide_their_values() -> None:
    assert is_sensitive_path("mcp.servers.x.headers.apiKey")
    assert is_sensitive_path("gateway.auth.token")
    assert not is_sensitive_path("agents.defaults.maxTokens")
    assert not is_sensitive_path("mcp.servers.x.url")


def test_clobber_baseline_is_the_previous_config_with_only_the_version_stamp() -> None:
    previous = {
        "gateway": {"port": 18789},
        "mcp": {"servers": {"big": {"command": "x", "args": ["a" * 1400]}, "small": {"command": "y"}}},
    }
    after = {"gateway": {"port": 18789}, "mcp": {"servers": {"small": {"command": "y"}}}}
    next_text = serialize_config(prepare_written_document(after, first_write=False))
    # observed on 2026.9.6: "size-drop:1671->282"
    assert clobber_verdict(serialize_config(previous), previous, next_text, parse_ok=True) == (1671, 282)
