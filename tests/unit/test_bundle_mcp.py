"""Plugin-bundle MCP config loading and merge precedence (spec client-runtime §10).

Expected values were produced by the reference (openclaw 2026.9.6 ``loadEnabledBundleMcpConfig`` on node 24)
on the same trees, with the temporary directory replaced by ``T``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.adapters.filesystem.bundle_mcp import load_bundle_mcp, read_json_object
from openclaw_mcp.domain.bundle_agent import (
    AGENT_MCP_SCHEMA,
    encode_plugin_install_dir_name,
    parse_agent_mcp_json,
    plugin_data_dir,
)
from openclaw_mcp.domain.bundle_mcp import (
    BundleMcpResult,
    BundlePlugin,
    declared_mcp_paths,
    extract_server_map,
    kept_data_dirs,
    mcp_file_paths,
    merge_patch,
    merge_with_config,
    to_cli_server_config,
)
from openclaw_mcp.domain.bundle_paths import absolutize_server
from openclaw_mcp.jscompat.paths import path_normalize

# --- merge patch (§10.5) ---------------------------------------------------------------------------------


def test_merge_patch_merges_objects_deletes_nulls_and_replaces_lists() -> None:
    base: dict[str, Any] = {"s": {"command": "a", "args": ["1", "2"], "env": {"A": "1", "B": "2"}}, "gone": {"x": 1}}
    patch = {"s": {"args": ["3"], "env": {"B": None, "C": "3"}}, "gone": None}
    assert merge_patch(base, patch) == {"s": {"command": "a", "args": ["3"], "env": {"A": "1", "C": "3"}}}
    assert base["s"]["env"] == {"A": "1", "B": "2"}


def test_merge_patch_skips_prototype_keys_at_every_level() -> None:
    patch = {"__proto__": {"x": 1}, "prototype": {"y": 1}, "constructor": {"z": 1}, "ok": {"constructor": "c", "v": 1}}
    assert merge_patch({}, patch) == {"ok": {"v": 1}}


def test_merge_patch_with_a_non_object_patch_replaces_the_base() -> None:
    assert merge_patch({"a": 1}, [1]) == [1]
    assert merge_patch({"a": 1}, "x") == "x"
    assert merge_patch([1], {"a": {"b": 1}}) == {"a": {"b": 1}}
    assert merge_patch({"a": "str"}, {"a": {"b": 1}}) == {"a": {"b": 1}}


# --- file shapes (§10.4) ---------------------------------------------------------------------------------


def test_extract_server_map_reads_wrapper_forms_and_drops_non_objects() -> None:
    assert extract_server_map({"mcpServers": {"a": {"command": "x"}, "b": 5}}) == {"a": {"command": "x"}}
    assert extract_server_map({"servers": {"a": {"url": "u"}}}) == {"a": {"url": "u"}}
    assert extract_server_map({"a": {"command": "x"}, "n": None}) == {"a": {"command": "x"}}
    assert extract_server_map({"mcpServers": "x.json", "a": {"command": "x"}}) == {"a": {"command": "x"}}
    assert extract_server_map(["x"]) == {}
    assert extract_server_map("x.json") == {}


def test_extract_server_map_reads_a_server_named_servers_as_the_wrapper() -> None:
    assert extract_server_map({"servers": {"command": "x"}, "other": {"command": "y"}}) == {}


def test_extract_server_map_iterates_in_javascript_key_order() -> None:
    assert list(extract_server_map({"b": {}, "10": {}, "a": {}, "2": {}})) == ["2", "10", "b", "a"]


def test_declared_paths_are_trimmed_deduplicated_and_listed_after_dot_mcp_json() -> None:
    assert declared_mcp_paths(["sub/servers.json", " sub/servers.json ", "", "  ", 5, "b.json"]) == [
        "sub/servers.json",
        "b.json",
    ]
    assert declared_mcp_paths(" one.json ") == ["one.json"]
    assert declared_mcp_paths({"a": {}}) == []
    manifest = {"mcpServers": [".mcp.json", "x.json"]}
    assert mcp_file_paths("codex", manifest, default_exists=True) == [".mcp.json", "x.json"]
    assert mcp_file_paths("codex", manifest, default_exists=False) == [".mcp.json", "x.json"]
    assert mcp_file_paths("claude", {"mcpServers": ["x.json"]}, default_exists=True) == [".mcp.json", "x.json"]
    assert mcp_file_paths("agent", manifest, default_exists=True) == ["mcp.json"]
    assert mcp_file_paths("agent", manifest, default_exists=False) == []


# --- absolutization (§10.6) ------------------------------------------------------------------------------


def test_absolutize_server_resolves_relative_paths_against_the_file_directory() -> None:
    server = {
        "command": "./run.sh",
        "args": ["../up.js", "/abs//path/../p", "plain", 5],
        "cwd": "rel",
        "env": {"P": "${CLAUDE_PLUGIN_ROOT}/data", "Q": "/a/../b", "N": 5, "R": "./rel"},
    }
    assert absolutize_server(server, root="/p/A", base="/p/A") == {
        "command": "/p/A/run.sh",
        "args": ["/p/up.js", "/abs/p", "plain", 5],
        "cwd": "/p/A/rel",
        "env": {"P": "/p/A/data", "Q": "/b", "N": 5, "R": "./rel"},
    }


def test_absolutize_server_keeps_an_absolute_cwd_as_written_and_normalises_working_directory() -> None:
    assert absolutize_server({"command": "x", "cwd": "/a/../b/"}, root="/r", base="/r") == {
        "command": "x",
        "cwd": "/a/../b/",
    }
    assert absolutize_server({"command": "x", "workingDirectory": "/a/../b/"}, root="/r", base="/r") == {
        "command": "x",
        "workingDirectory": "/b/",
    }


def test_absolutize_server_adds_the_file_directory_as_cwd_even_for_http_servers() -> None:
    assert absolutize_server({"url": "https://x/mcp", "type": "http"}, root="/p/A", base="/p/A/sub") == {
        "url": "https://x/mcp",
        "type": "http",
        "cwd": "/p/A/sub",
    }


def test_agent_placeholders_are_left_literal_without_a_data_dir() -> None:
    server = {"command": "${PLUGIN_ROOT}/x", "args": ["${PLUGIN_DATA}/d", "${CLAUDE_PLUGIN_ROOT}"]}
    assert absolutize_server(server, root="/r", base="/r") == {
        "command": "${PLUGIN_ROOT}/x",
        "args": ["${PLUGIN_DATA}/d", "/r"],
        "cwd": "/r",
    }


def test_normalisation_follows_node_path_normalize() -> None:
    assert path_normalize("/a/b/") == "/a/b/"
    assert path_normalize("//a//b") == "/a/b"
    assert path_normalize("/a/./b/..") == "/a"
    assert path_normalize("/..") == "/"


# --- agent format (§10.7) --------------------------------------------------------------------------------

_ROOT = "/p/D"
_DATA = "/s/plugin-data/D"


def _agent(servers: dict[str, Any]) -> dict[str, Any]:
    return {"$schema": AGENT_MCP_SCHEMA, "mcpServers": servers}


@pytest.mark.parametrize(
    ("name", "server", "error"),
    [
        ("notobj", 5, "configuration must be an object with a supported type"),
        ("notype", {"command": "x"}, "configuration must be an object with a supported type"),
        ("badkey", {"type": "stdio", "command": "node", "timeout": 5}, "stdio configuration contains unknown fields"),
        (
            "badcmd",
            {"type": "stdio", "command": "/usr/bin/node"},
            "stdio command must be a bare name or ./-relative path",
        ),
        ("dotcmd", {"type": "stdio", "command": "./"}, "stdio command must be a bare name or ./-relative path"),
        ("esc", {"type": "stdio", "command": "./../x"}, "stdio command must be a bare name or ./-relative path"),
        ("sp", {"type": "stdio", "command": "a b"}, "stdio command must be a bare name or ./-relative path"),
        ("empty", {"type": "stdio", "command": ""}, "stdio command must be a bare name or ./-relative path"),
        ("badargs", {"type": "stdio", "command": "node", "args": [1]}, "stdio args must be an array of strings"),
        ("badenvv", {"type": "stdio", "command": "node", "env": {"A": 1}}, "stdio env must contain only string values"),
        (
            "badenv",
            {"type": "stdio", "command": "node", "env": {"PLUGIN_ROOT": "x"}},
            "stdio env must not define PLUGIN_ROOT or PLUGIN_DATA",
        ),
        (
            "badcwd",
            {"type": "stdio", "command": "node", "cwd": "/etc"},
            "stdio cwd must remain within PLUGIN_ROOT or PLUGIN_DATA",
        ),
        (
            "cwdesc",
            {"type": "stdio", "command": "n", "cwd": "${PLUGIN_DATA}/../x"},
            "stdio cwd must remain within PLUGIN_ROOT or PLUGIN_DATA",
        ),
        (
            "cwdplain",
            {"type": "stdio", "command": "n", "cwd": "sub"},
            "stdio cwd must remain within PLUGIN_ROOT or PLUGIN_DATA",
        ),
        ("sseextra", {"type": "sse", "url": "u", "x": 1}, "sse configuration contains unknown fields"),
        ("sseurl", {"type": "sse", "url": ""}, "sse url must be a non-empty string"),
        ("ssehdr", {"type": "sse", "url": "u", "headers": {"a": 1}}, "sse headers must contain only string values"),
        (
            "webextra",
            {"type": "streamable-http", "url": "u", "cwd": "./"},
            "streamable-http configuration contains unknown fields",
        ),
        ("webbad", {"type": "http", "url": "https://w"}, "unsupported type: http"),
    ],
)
def test_agent_server_validation_rejects_with_the_reference_message(name: str, server: Any, error: str) -> None:
    servers, diagnostics = parse_agent_mcp_json(_agent({name: server}), root=_ROOT, data_dir=_DATA)
    assert servers == {}
    assert diagnostics == [f'invalid MCP server "{name}" in mcp.json: {error}']


def test_agent_document_must_have_only_schema_and_mcp_servers() -> None:
    message = (
        "invalid mcp.json: expected only $schema=https://agent-plugins.org/schemas/1.0.0/mcp.schema.json "
        "and object mcpServers"
    )
    docs: list[dict[str, Any]] = [
        {"mcpServers": {}},
        {**_agent({}), "x": 1},
        {"$schema": AGENT_MCP_SCHEMA, "mcpServers": []},
    ]
    for doc in docs:
        assert parse_agent_mcp_json(doc, root=_ROOT, data_dir=_DATA) == ({}, [message])


def test_valid_agent_servers_move_type_to_transport() -> None:
    doc = _agent(
        {
            "cwdroot": {"type": "stdio", "command": "n", "cwd": "${PLUGIN_ROOT}"},
            "cwddot": {"type": "stdio", "command": "n", "cwd": "./sub/../"},
            "web": {"type": "streamable-http", "url": "https://w/mcp", "headers": {"A": "b"}},
        }
    )
    servers, diagnostics = parse_agent_mcp_json(doc, root=_ROOT, data_dir=_DATA)
    assert diagnostics == []
    assert servers == {
        "cwdroot": {"command": "n", "cwd": "${PLUGIN_ROOT}", "transport": "stdio"},
        "cwddot": {"command": "n", "cwd": "./sub/../", "transport": "stdio"},
        "web": {"url": "https://w/mcp", "headers": {"A": "b"}, "transport": "streamable-http"},
    }


def test_plugin_install_dir_names_match_the_reference() -> None:
    assert encode_plugin_install_dir_name("my-plugin") == "my-plugin"
    assert encode_plugin_install_dir_name(" a\\b ") == "a__b"
    assert encode_plugin_install_dir_name("@scope/name") == "@scope-name-17bddecad4"
    assert encode_plugin_install_dir_name("a/b") == "@a-b-c14cddc033"
    assert encode_plugin_install_dir_name("x" * 70 + "/y") == "@" + "x" * 50 + "-a4f1274de5"
    assert encode_plugin_install_dir_name("ok.name_1/x") == "@ok.name_1-x-f347d3c991"
    assert encode_plugin_install_dir_name("-/-") == "@skill-9da763e568"
    assert encode_plugin_install_dir_name("é/ü") == "@skill-172f7ec3f2"
    assert plugin_data_dir("/s/", "D") == "/s/plugin-data/D"


# --- merge with user config (§10.8) ----------------------------------------------------------------------

_BUNDLE = {
    "fromdot": {"command": "/p/A/run.sh"},
    "shared": {"command": "from-b"},
    "wd": {"command": "node", "workingDirectory": "/p/A/w2"},
    "http": {"url": "https://x/mcp", "type": "http", "cwd": "/p/A"},
    "inline": {"command": "/p/A/bin/inline"},
    "bonly": {"command": "/p/B/sub/b.sh", "cwd": "/abs/cwd"},
}
_CONFIGURED = {
    "bonly": {"command": "configured-bonly"},
    "fromdot": {"enabled": False},
    "wd": {"enabled": False},
    "own": {"command": "own"},
    "off": {"command": "x", "enabled": False},
}


def test_spec_example_merge_with_config_masks_replaces_and_applies_overrides_in_key_order() -> None:
    merged = merge_with_config(_BUNDLE, _CONFIGURED, {"wd": True, "own": False})
    assert list(merged) == ["shared", "wd", "http", "inline", "bonly"]
    assert merged["wd"] == {"enabled": False}
    assert merged["bonly"] == {"command": "configured-bonly"}
    assert merged["shared"] == {"command": "from-b"}


def test_configured_servers_replace_bundle_servers_wholesale_and_configured_only_names_follow() -> None:
    merged = merge_with_config(
        {"a": {"command": "b", "env": {"X": "1"}}, "b": {"command": "b"}},
        {"new": {"command": "n"}, "a": {"args": ["z"]}, "junk": 5},
    )
    assert merged == {"a": {"args": ["z"]}, "b": {"command": "b"}, "new": {"command": "n"}}
    assert list(merged) == ["a", "b", "new"]


def test_override_false_excludes_bundle_and_configured_servers() -> None:
    merged = merge_with_config({"a": {"command": "a"}}, {"b": {"command": "b"}}, {"a": False, "b": False})
    assert merged == {}


def test_enabled_is_compared_strictly() -> None:
    merged = merge_with_config({"a": {"command": "bundle"}}, {"a": {"command": "c", "enabled": "false"}})
    assert merged == {"a": {"command": "c", "enabled": "false"}}


def test_override_true_lifts_the_mask_and_non_boolean_overrides_are_ignored() -> None:
    bundle = {"a": {"command": "bundle"}, "b": {"command": "bundle-b"}}
    configured = {"a": {"command": "c", "enabled": False}, "b": {"enabled": False}}
    assert merge_with_config(bundle, configured, {"a": True, "b": "false"}) == {"a": {"command": "c", "enabled": False}}


def test_merged_map_uses_javascript_key_order() -> None:
    merged = merge_with_config({"b": {"command": "x"}, "2": {"command": "y"}}, {"1": {"command": "z"}})
    assert list(merged) == ["1", "2", "b"]


def test_data_dirs_are_kept_only_for_bundle_servers_in_the_result_not_replaced() -> None:
    bundle = {"ok": {"command": "a"}, "gone": {"command": "b"}, "replaced": {"command": "c"}}
    dirs = {"ok": "/s/d", "gone": "/s/d", "replaced": "/s/d"}
    kept = kept_data_dirs(dirs, bundle, {"replaced": {"command": "own"}}, {"gone": False})
    assert kept == {"ok": "/s/d"}


def test_cli_backend_adapter_maps_transport_to_type() -> None:
    assert to_cli_server_config({"url": "u", "transport": "streamable-http"}) == {"url": "u", "type": "http"}
    assert to_cli_server_config({"url": "u", "transport": "sse"}) == {"url": "u", "type": "sse"}
    assert to_cli_server_config({"command": "c", "transport": "stdio"}) == {"command": "c", "type": "stdio"}
    assert to_cli_server_config({"url": "u", "transport": "sse", "type": "x"}) == {"url": "u", "type": "x"}
    assert to_cli_server_config({"url": "u", "transport": "weird"}) == {"url": "u"}


# --- filesystem loading (§10.2–10.7) ---------------------------------------------------------------------


def _write(root: Path, relative: str, content: Any, *, raw: bool = False) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if raw else json.dumps(content), encoding="utf-8")
    return path


def _spec_example_tree(t: Path) -> list[BundlePlugin]:
    _write(
        t,
        "A/.claude-plugin/plugin.json",
        {
            "mcpServers": {
                "inline": {
                    "command": "${CLAUDE_PLUGIN_ROOT}/bin/inline",
                    "args": ["./x.js", "--root=${CLAUDE_PLUGIN_ROOT}", "${PLUGIN_ROOT}/y"],
                },
                "shared": {"command": "node", "args": ["inline-wins"], "env": {"A": "inline"}},
            }
        },
    )
    _write(
        t,
        "A/.mcp.json",
        {
            "mcpServers": {
                "fromdot": {
                    "command": "./run.sh",
                    "args": ["../up.js", "/abs//path/../p", "plain"],
                    "cwd": "rel",
                    "env": {"P": "${CLAUDE_PLUGIN_ROOT}/data", "Q": "/a/../b", "N": 5},
                },
                "shared": {"command": "python3", "args": ["dot"], "env": {"A": "dot", "B": "dot"}},
                "wd": {"command": "node", "workingDirectory": "${CLAUDE_PLUGIN_ROOT}/w/../w2"},
                "http": {"url": "https://x/mcp", "type": "http"},
                "junk": 5,
            }
        },
    )
    _write(t, "B/.codex-plugin/plugin.json", {"mcpServers": ["sub/servers.json", " sub/servers.json "]})
    _write(
        t,
        "B/sub/servers.json",
        {
            "servers": {
                "shared": {"command": "from-b", "env": {"B": None}},
                "bonly": {"command": "./b.sh", "cwd": "/abs/cwd"},
            }
        },
    )
    (t / "C").mkdir()
    return [
        BundlePlugin("A", "claude", str(t / "A")),
        BundlePlugin("B", "codex", str(t / "B")),
        BundlePlugin("C", "cursor", str(t / "C")),
    ]


def test_spec_example_bundle_result(tmp_path: Path) -> None:
    t = str(tmp_path)
    result = load_bundle_mcp(_spec_example_tree(tmp_path), state_dir=str(tmp_path / "s"))
    assert result.servers == {
        "fromdot": {
            "command": f"{t}/A/run.sh",
            "args": [f"{t}/up.js", "/abs/p", "plain"],
            "cwd": f"{t}/A/rel",
            "env": {"P": f"{t}/A/data", "Q": "/b", "N": 5},
        },
        "shared": {
            "command": "from-b",
            "args": ["inline-wins"],
            "env": {"A": "inline", "B": "dot"},
            "cwd": f"{t}/B/sub",
        },
        "wd": {"command": "node", "workingDirectory": f"{t}/A/w2"},
        "http": {"url": "https://x/mcp", "type": "http", "cwd": f"{t}/A"},
        "inline": {
            "command": f"{t}/A/bin/inline",
            "args": [f"{t}/A/x.js", f"--root={t}/A", "${PLUGIN_ROOT}/y"],
            "cwd": f"{t}/A",
        },
        "bonly": {"command": f"{t}/B/sub/b.sh", "cwd": "/abs/cwd"},
    }
    assert list(result.servers) == ["fromdot", "shared", "wd", "http", "inline", "bonly"]
    assert list(result.servers["shared"]) == ["command", "args", "env", "cwd"]
    assert result.data_dirs == {}
    assert result.diagnostics == (("C", "unable to read .cursor-plugin/plugin.json: path"),)


def test_spec_example_agent_plugin(tmp_path: Path) -> None:
    _write(tmp_path, "D/plugin.json", {})
    _write(
        tmp_path,
        "D/mcp.json",
        _agent(
            {
                "ok": {
                    "type": "stdio",
                    "command": "./bin/srv",
                    "args": ["${PLUGIN_ROOT}/a", "${PLUGIN_DATA}/db", "${CLAUDE_PLUGIN_ROOT}/c"],
                    "env": {"X": "${PLUGIN_DATA}/x"},
                    "cwd": "${PLUGIN_DATA}/work",
                },
                "bare": {"type": "stdio", "command": "node"},
                "web": {"type": "streamable-http", "url": "https://w/mcp", "headers": {"A": "b"}},
                "badcmd": {"type": "stdio", "command": "/usr/bin/node"},
                "badkey": {"type": "stdio", "command": "node", "timeout": 5},
                "badenv": {"type": "stdio", "command": "node", "env": {"PLUGIN_ROOT": "x"}},
                "badcwd": {"type": "stdio", "command": "node", "cwd": "/etc"},
                "webbad": {"type": "http", "url": "https://w"},
            }
        ),
    )
    t = os.path.realpath(tmp_path)
    data = f"{t}/s/plugin-data/D"
    result = load_bundle_mcp([BundlePlugin("D", "agent", str(tmp_path / "D"))], state_dir=f"{t}/s")
    assert result.servers == {
        "ok": {
            "command": f"{t}/D/bin/srv",
            "args": [f"{t}/D/a", f"{data}/db", f"{t}/D/c"],
            "env": {"X": f"{data}/x", "PLUGIN_ROOT": f"{t}/D", "PLUGIN_DATA": data},
            "cwd": f"{data}/work",
            "transport": "stdio",
        },
        "bare": {
            "command": "node",
            "transport": "stdio",
            "cwd": f"{t}/D",
            "env": {"PLUGIN_ROOT": f"{t}/D", "PLUGIN_DATA": data},
        },
        "web": {"url": "https://w/mcp", "headers": {"A": "b"}, "transport": "streamable-http"},
    }
    assert list(result.servers["bare"]) == ["command", "transport", "cwd", "env"]
    assert result.data_dirs == {"ok": data, "bare": data}
    prefix = 'invalid MCP server "{}" in mcp.json: '
    assert [message for _, message in result.diagnostics] == [
        prefix.format("badcmd") + "stdio command must be a bare name or ./-relative path",
        prefix.format("badkey") + "stdio configuration contains unknown fields",
        prefix.format("badenv") + "stdio env must not define PLUGIN_ROOT or PLUGIN_DATA",
        prefix.format("badcwd") + "stdio cwd must remain within PLUGIN_ROOT or PLUGIN_DATA",
        prefix.format("webbad") + "unsupported type: http",
    ]


def test_agent_plugin_without_stdio_servers_gets_no_data_dir(tmp_path: Path) -> None:
    _write(tmp_path, "D/plugin.json", {})
    _write(
        tmp_path, "D/mcp.json", _agent({"web": {"type": "sse", "url": "u"}, "x": {"type": "stdio", "command": "/a"}})
    )
    result = load_bundle_mcp([BundlePlugin("D", "agent", str(tmp_path / "D"))], state_dir=str(tmp_path / "s"))
    assert result.servers == {"web": {"url": "u", "transport": "sse"}}
    assert result.data_dirs == {}


def test_agent_plugin_without_manifest_contributes_nothing(tmp_path: Path) -> None:
    _write(tmp_path, "D/mcp.json", _agent({"web": {"type": "sse", "url": "u"}}))
    result = load_bundle_mcp([BundlePlugin("D", "agent", str(tmp_path / "D"))], state_dir=str(tmp_path / "s"))
    assert result.servers == {}
    assert result.diagnostics == (("D", "unable to read plugin.json: path"),)


def test_a_later_plugin_overriding_a_server_keeps_the_earlier_plugin_data_dir(tmp_path: Path) -> None:
    # Reference behaviour: the data-dir map is merged per plugin first (``null`` markers vanish there), so a
    # later plugin deep-merging the same server name does not clear the agent plugin's data dir.
    _write(tmp_path, "D/plugin.json", {})
    _write(tmp_path, "D/mcp.json", _agent({"srv": {"type": "stdio", "command": "node"}}))
    _write(tmp_path, "E/.mcp.json", {"srv": {"args": ["x"]}})
    plugins = [BundlePlugin("D", "agent", str(tmp_path / "D")), BundlePlugin("E", "claude", str(tmp_path / "E"))]
    result = load_bundle_mcp(plugins, state_dir=str(tmp_path / "s"))
    t = os.path.realpath(tmp_path)
    assert result.data_dirs == {"srv": f"{tmp_path}/s/plugin-data/D"}
    assert result.servers["srv"] == {
        "command": "node",
        "transport": "stdio",
        "cwd": f"{tmp_path}/E",
        "env": {"PLUGIN_ROOT": f"{t}/D", "PLUGIN_DATA": f"{tmp_path}/s/plugin-data/D"},
        "args": ["x"],
    }


def test_a_null_only_deletes_values_of_earlier_files_of_the_same_plugin(tmp_path: Path) -> None:
    _write(tmp_path, "A/.mcp.json", {"s": {"command": "a", "env": {"K": "a"}}})
    _write(tmp_path, "B/.mcp.json", {"s": {"env": {"K": None}}, "t": {"command": "t"}})
    _write(tmp_path, "B/.claude-plugin/plugin.json", {"mcpServers": {"t": None}})
    plugins = [BundlePlugin("A", "claude", str(tmp_path / "A")), BundlePlugin("B", "claude", str(tmp_path / "B"))]
    result = load_bundle_mcp(plugins, state_dir=str(tmp_path / "s"))
    assert result.servers["s"]["env"] == {"K": "a"}
    assert "t" in result.servers


def test_native_plugin_servers_are_absolutized_against_the_root() -> None:
    plugin = BundlePlugin("n", "native", "/p/N/", manifest_mcp_servers={"s": {"command": "./s", "args": ["./a"]}})
    result = load_bundle_mcp([plugin], state_dir="/s")
    assert result.servers == {"s": {"command": "/p/N/s", "args": ["/p/N/a"], "cwd": "/p/N"}}


def test_missing_declared_files_are_skipped_silently(tmp_path: Path) -> None:
    _write(tmp_path, "A/.claude-plugin/plugin.json", {"mcpServers": ["nope.json", "missing/x.json", "", "  "]})
    result = load_bundle_mcp([BundlePlugin("A", "claude", str(tmp_path / "A"))], state_dir=str(tmp_path / "s"))
    assert result.servers == {}
    assert result.diagnostics == ()


def _diagnostics(tmp_path: Path, plugin: BundlePlugin) -> list[str]:
    result = load_bundle_mcp([plugin], state_dir=str(tmp_path / "s"))
    assert result.servers == {}
    return [message for _, message in result.diagnostics]


def test_symlink_escaping_the_root_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, "outside/o.json", {"mcpServers": {"o": {"command": "x"}}})
    (tmp_path / "E").mkdir()
    (tmp_path / "E/.mcp.json").symlink_to("../outside/o.json")
    plugin = BundlePlugin("E", "claude", str(tmp_path / "E"))
    assert _diagnostics(tmp_path, plugin) == ["unable to read .mcp.json: validation"]


def test_symlinks_inside_the_root_are_refused_too(tmp_path: Path) -> None:
    _write(tmp_path, "L/real.json", {"mcpServers": {"in": {"command": "./in"}}})
    (tmp_path / "L/.mcp.json").symlink_to("real.json")
    _write(tmp_path, "L/realsub/m.json", {"s": {"command": "x"}})
    (tmp_path / "L/sub").symlink_to("realsub")
    _write(tmp_path, "L/.claude-plugin/plugin.json", {"mcpServers": "sub/m.json"})
    plugin = BundlePlugin("L", "claude", str(tmp_path / "L"))
    assert _diagnostics(tmp_path, plugin) == [
        "unable to read .mcp.json: validation",
        "unable to read sub/m.json: validation",
    ]


def test_declared_paths_leaving_the_root_are_refused(tmp_path: Path) -> None:
    _write(tmp_path, "outside.json", {"o": {"command": "x"}})
    _write(tmp_path, "A/f", {})
    _write(tmp_path, "A/.claude-plugin/plugin.json", {"mcpServers": ["../outside.json", "/etc/hostname", "f/x.json"]})
    assert _diagnostics(tmp_path, BundlePlugin("A", "claude", str(tmp_path / "A"))) == [
        "unable to read ../outside.json: validation",
        "unable to read /etc/hostname: validation",
        "unable to read f/x.json: validation",
    ]


def test_hard_linked_files_are_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, "F/.mcp.json", {"mcpServers": {"h": {"command": "x"}}})
    os.link(path, tmp_path / "F/hl.json")
    assert _diagnostics(tmp_path, BundlePlugin("F", "claude", str(tmp_path / "F"))) == [
        "unable to read .mcp.json: validation"
    ]


def test_a_directory_instead_of_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "G/.mcp.json").mkdir(parents=True)
    assert _diagnostics(tmp_path, BundlePlugin("G", "claude", str(tmp_path / "G"))) == [
        "unable to read .mcp.json: validation"
    ]


def test_invalid_json_in_an_mcp_file_names_the_v8_error(tmp_path: Path) -> None:
    _write(tmp_path, "H/.mcp.json", '{"mcpServers": {,}}', raw=True)
    _write(tmp_path, "M/.mcp.json", '\ufeff{"mcpServers":{}}', raw=True)
    assert _diagnostics(tmp_path, BundlePlugin("H", "claude", str(tmp_path / "H"))) == [
        "unable to read .mcp.json: failed to parse .mcp.json: SyntaxError: Expected property name or '}' in JSON "
        "at position 16 (line 1 column 17)"
    ]
    assert _diagnostics(tmp_path, BundlePlugin("M", "claude", str(tmp_path / "M"))) == [
        "unable to read .mcp.json: failed to parse .mcp.json: SyntaxError: Unexpected token '\ufeff', "
        '"\ufeff{"mcpServers":{}}" is not valid JSON'
    ]


def test_non_object_mcp_file_and_manifest_are_reported(tmp_path: Path) -> None:
    _write(tmp_path, "I/.mcp.json", [1])
    _write(tmp_path, "K/.codex-plugin/plugin.json", "str")
    assert _diagnostics(tmp_path, BundlePlugin("I", "claude", str(tmp_path / "I"))) == [
        "unable to read .mcp.json: .mcp.json must contain a JSON object"
    ]
    assert _diagnostics(tmp_path, BundlePlugin("K", "codex", str(tmp_path / "K"))) == [
        ".codex-plugin/plugin.json must contain a JSON object"
    ]


def test_invalid_manifest_json_stops_the_plugin(tmp_path: Path) -> None:
    _write(tmp_path, "J/plugin.json", "{bad", raw=True)
    _write(tmp_path, "J/mcp.json", _agent({"web": {"type": "sse", "url": "u"}}))
    assert _diagnostics(tmp_path, BundlePlugin("J", "agent", str(tmp_path / "J"))) == [
        "failed to parse plugin.json: SyntaxError: Expected property name or '}' in JSON "
        "at position 1 (line 1 column 2)"
    ]


def test_read_json_object_reports_a_missing_file_as_path(tmp_path: Path) -> None:
    read = read_json_object(str(tmp_path), "nope.json")
    assert (read.status, read.reason) == ("open", "path")


def test_session_runtime_merges_bundle_servers_with_configured_ones_and_overrides() -> None:
    from openclaw_mcp.entrypoints.runtime_api import RuntimeBundle, SessionMcpRuntime

    runtime = SessionMcpRuntime(
        _CONFIGURED,
        bundle=RuntimeBundle(bundle=BundleMcpResult(_BUNDLE, {}), tool_overrides={"wd": True, "own": False}),
    )
    assert list(runtime.session.config.servers) == ["shared", "wd", "http", "inline", "bonly"]
    plain = SessionMcpRuntime({"b": {"command": "b"}, "a": {"command": "a", "enabled": False}})
    assert list(plain.session.config.servers) == ["b"]


@pytest.mark.asyncio
async def test_an_agent_plugins_data_dir_is_created_when_its_server_first_connects(tmp_path: Path) -> None:
    import sys

    from openclaw_mcp.entrypoints.runtime_api import RuntimeBundle, RuntimeHost, SessionMcpRuntime

    server_script = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_servers" / "env_server.py"
    data_dir = tmp_path / "state" / "plugin-data" / "agent-d"
    bundle = {"agent": {"command": sys.executable, "args": [str(server_script)]}}
    replaced = {"other": {"command": sys.executable, "args": [str(server_script)]}}
    warnings: list[str] = []
    loaded = BundleMcpResult(
        {**bundle, "other": {"command": "unused"}},
        {"agent": str(data_dir), "other": str(tmp_path / "never")},
        (("agent-d", 'invalid MCP server "x" in mcp.json: unsupported type: http'),),
    )
    runtime = SessionMcpRuntime(replaced, host=RuntimeHost(warn=warnings.append), bundle=RuntimeBundle(bundle=loaded))
    assert warnings == ['agent-d: invalid MCP server "x" in mcp.json: unsupported type: http']
    assert runtime.session.config.plugin_data_dirs == {"agent": str(data_dir)}
    assert not data_dir.exists()
    with anyio.fail_after(20):
        async with runtime:
            names = [tool.name for tool in await runtime.tools()]
    assert any(name.startswith("agent__") for name in names)
    assert data_dir.is_dir()
    assert not (tmp_path / "never").exists()
