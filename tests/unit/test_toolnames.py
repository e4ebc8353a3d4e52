"""Agent tool names and catalog materialisation (spec client-runtime §5, §6.6, §9.1, §11.5).

Materialisation results (names, order, labels, parameters, metadata, warnings) were verified against the
reference's ``buildBundleMcpToolsFromCatalog``."""

from __future__ import annotations

from typing import Any

import pytest

from openclaw_mcp.adapters.collation import UcaCollator
from openclaw_mcp.domain.catalog import (
    Catalog,
    build_server_catalog,
    merge_catalogs,
    normalize_listed_tools,
    summarize_capabilities,
)
from openclaw_mcp.domain.filters import ToolFilter
from openclaw_mcp.domain.names import assign_safe_server_names, safe_name_sort_key
from openclaw_mcp.domain.toolnames import (
    AgentToolSpec,
    build_app_tool_policy_projections,
    build_safe_tool_name,
    build_tools_from_catalog,
    is_app_only,
    normalize_reserved_tool_names,
    rename_warning,
)

KEY = UcaCollator().key


def _server(
    name: str,
    tools: list[dict[str, Any]] | list[str],
    *,
    safe: str | None = None,
    capabilities: dict[str, Any] | None = None,
    tool_filter: ToolFilter | None = None,
    denied: frozenset[str] = frozenset(),
    parallel: bool = False,
) -> Catalog:
    listed = [t if isinstance(t, dict) else {"name": t, "inputSchema": {"type": "object"}} for t in tools]
    return build_server_catalog(
        server_name=name,
        safe_server_name=safe or name,
        launch_summary="node s.js",
        request_timeout_ms=60000,
        supports_parallel_tool_calls=parallel,
        capabilities=summarize_capabilities(capabilities or {"tools": {}}),
        normalized=normalize_listed_tools(listed, tool_filter, denied),
        tool_filter=tool_filter,
        denied_tool_names=denied,
        generated_at=1,
    )


def _catalog(*parts: Catalog) -> Catalog:
    return merge_catalogs(parts, KEY)


def _names(tools: tuple[AgentToolSpec, ...]) -> list[str]:
    return [tool.name for tool in tools]


# --- §5.3 build_safe_tool_name ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("safe", "tool", "reserved", "expected"),
    [
        ("mcp-12306", "2024-query", set(), "mcp-12306__tool-2024-query"),
        ("memos", "1note", set(), "memos__tool-1note"),
        ("memory", "status", {"memory__status"}, "memory__status-2"),
        ("memory", "status", {"memory__status", "memory__status-2"}, "memory__status-3"),
        ("link", "auth_login", set(), "link__auth_login"),
        ("link", "spend-request_create", set(), "link__spend-request_create"),
        ("s", "", set(), "s__tool"),
        ("s", "   ", set(), "s__tool"),
        ("s", "résumé", set(), "s__r-sum-"),
        ("s", "a🚀", set(), "s__a--"),
        ("s", "_private", set(), "s__tool-_private"),
        ("s", "-dash", set(), "s__tool--dash"),
        ("s", "Read", {"s__read"}, "s__Read-2"),
        ("memory", "x" * 200, set(), "memory__" + "x" * 56),
        ("x" * 30, "y" * 40, set(), "x" * 30 + "__" + "y" * 32),
        ("x" * 30, "y" * 40, {"x" * 30 + "__" + "y" * 32}, "x" * 30 + "__" + "y" * 30 + "-2"),
        (
            "aVeryLongServerNameThatExceeds",
            "tool_with_a_rather_long_name_that_goes_on_and_on_and_on_forever",
            set(),
            "aVeryLongServerNameThatExceeds__tool_with_a_rather_long_name_tha",
        ),
        ("multi", "alpha", {"multi__alpha"}, "multi__alpha-2"),
        ("bundleProbe", "bundle_probe", {"bundleprobe__bundle_probe"}, "bundleProbe__bundle_probe-2"),
        ("s", "\ufeffa\u3000", set(), "s__a"),  # JavaScript trim
    ],
)
def test_build_safe_tool_name(safe: str, tool: str, reserved: set[str], expected: str) -> None:
    assert build_safe_tool_name(safe, tool, reserved) == expected


def test_long_names_are_capped_at_64_characters() -> None:
    name = build_safe_tool_name("aVeryLongServerNameThatExceeds", "t" * 80, set())
    assert len(name) == 64


def test_reserved_names_are_trimmed_lowercased_and_empties_dropped() -> None:
    assert normalize_reserved_tool_names([" Multi__Alpha ", "", "  ", 5, None, "read"]) == {"multi__alpha", "read"}
    assert normalize_reserved_tool_names(None) == set()


def test_rename_warning_text() -> None:
    assert rename_warning("a b", "coll", "coll__a-b") == (
        'bundle-mcp: tool "a b" from server "coll" registered as "coll__a-b" to keep the tool name provider-safe.'
    )


# --- §11.5 acceptance ----------------------------------------------------------------------------------


def test_declared_servers_share_suffixes_case_insensitively() -> None:
    # §11.5 #72
    assert list(assign_safe_server_names(["vigil-harbor", "vigil:harbor", "VIGIL-HARBOR"]).values()) == [
        "vigil-harbor",
        "vigil-harbor-2",
        "VIGIL-HARBOR-3",
    ]


def test_integer_like_server_names_get_their_safe_name_first() -> None:
    # §11.5 #73: JS key order puts "12306" first
    safe = assign_safe_server_names(["12306", "mcp-12306"])
    assert safe == {"12306": "mcp-12306", "mcp-12306": "mcp-12306-2"}
    catalog = _catalog(
        _server("mcp-12306", ["a"], safe=safe["mcp-12306"]),
        _server("12306", ["b"], safe=safe["12306"]),
    )
    assert _names(build_tools_from_catalog(catalog, KEY).tools) == ["mcp-12306__b", "mcp-12306-2__a"]


def test_case_colliding_servers_keep_distinct_tool_names() -> None:
    # §11.5 #74
    safe = assign_safe_server_names(["Memory", "memory"])
    catalog = _catalog(*(_server(name, ["status"], safe=safe[name]) for name in safe))
    assert _names(build_tools_from_catalog(catalog, KEY).tools) == ["Memory__status", "memory-2__status"]


def test_long_server_and_tool_names_are_capped() -> None:
    # §11.5 #75
    first, second = "aVeryLongServerNameThatExceedsThirtyChars", "aVeryLongServerNameThatExceedsThirtyCharsToo"
    safe = assign_safe_server_names([first, second])
    catalog = _catalog(
        _server(first, ["tool_with_a_rather_long_name_that_goes_on_and_on_and_on_forever"], safe=safe[first]),
        _server(second, ["t"], safe=safe[second]),
    )
    result = build_tools_from_catalog(catalog, KEY)
    assert _names(result.tools) == [
        "aVeryLongServerNameThatExcee-2__t",
        "aVeryLongServerNameThatExceeds__tool_with_a_rather_long_name_tha",
    ]
    assert len(result.tools[1].name) == 64


def test_colliding_tools_are_suffixed_in_collation_order_with_warnings() -> None:
    # §11.5 #78 / §5.6 #27
    catalog = _catalog(_server("coll", ["a.b", "a b", "a-b", "Alpha", "alpha", "x" * 200]))
    result = build_tools_from_catalog(catalog, KEY)
    assert [(t.name, t.tool_name) for t in result.tools] == [
        ("coll__a-b", "a b"),
        ("coll__a-b-2", "a-b"),
        ("coll__a-b-3", "a.b"),
        ("coll__alpha", "alpha"),
        ("coll__Alpha-2", "Alpha"),
        ("coll__" + "x" * 58, "x" * 200),
    ]
    assert result.warnings == (
        rename_warning("a b", "coll", "coll__a-b"),
        rename_warning("a-b", "coll", "coll__a-b-2"),
        rename_warning("a.b", "coll", "coll__a-b-3"),
        rename_warning("Alpha", "coll", "coll__Alpha-2"),
        rename_warning("x" * 200, "coll", "coll__" + "x" * 58),
    )


def test_final_order_uses_the_exact_safe_name_key() -> None:
    # §11.5 #79
    catalog = _catalog(_server("multi", ["zeta", "alpha", "mu"]))
    assert _names(build_tools_from_catalog(catalog, KEY).tools) == ["multi__alpha", "multi__mu", "multi__zeta"]
    names = [
        "Memory__status",
        "aVeryLongServerNameThatExcee-2__t",
        "coll__a-b",
        "k2__resources_list",
        "knowledge__prompts_get",
        "memory-2__status",
        "mcp-12306__b",
        "mcp-12306-2__a",
    ]
    assert sorted(names, key=safe_name_sort_key) == [
        "aVeryLongServerNameThatExcee-2__t",
        "coll__a-b",
        "k2__resources_list",
        "knowledge__prompts_get",
        "mcp-12306__b",
        "mcp-12306-2__a",
        "Memory__status",
        "memory-2__status",
    ]


def test_reserved_native_names_are_never_shadowed() -> None:
    # §5.6 #29 and #31
    catalog = _catalog(_server("multi", ["alpha"]))
    result = build_tools_from_catalog(catalog, KEY, reserved_tool_names=["Multi__Alpha"])
    assert _names(result.tools) == ["multi__alpha-2"]
    assert result.warnings == (rename_warning("alpha", "multi", "multi__alpha-2"),)
    probe = _catalog(_server("bundleProbe", ["bundle_probe"]))
    reserved = ["bundleProbe__bundle_probe"]
    assert _names(build_tools_from_catalog(probe, KEY, reserved_tool_names=reserved).tools) == [
        "bundleProbe__bundle_probe-2"
    ]


def test_a_real_tool_keeps_its_name_and_the_utility_is_suffixed() -> None:
    # §11.5 #81 / §5.6 #30
    catalog = _catalog(
        _server("knowledge", ["resources_list"], capabilities={"tools": {}, "resources": {}, "prompts": {}})
    )
    result = build_tools_from_catalog(catalog, KEY)
    assert [(t.name, t.operation) for t in result.tools] == [
        ("knowledge__prompts_get", "prompts_get"),
        ("knowledge__prompts_list", "prompts_list"),
        ("knowledge__resources_list", "tool"),
        ("knowledge__resources_list-2", "resources_list"),
        ("knowledge__resources_read", "resources_read"),
    ]
    assert result.warnings == ()


def test_app_only_tools_are_left_out_of_the_model_tools_but_projected_for_app_policy() -> None:
    # §11.5 #82 / §5.6 #32
    def tool(name: str, visibility: list[str]) -> dict[str, Any]:
        return {"name": name, "inputSchema": {"type": "object"}, "_meta": {"ui": {"visibility": visibility}}}

    catalog = _catalog(
        _server(
            "demo",
            [tool("model_tool", ["model"]), tool("app_tool", ["app"]), tool("hidden_tool", [])],
            parallel=True,
        )
    )
    model = build_tools_from_catalog(catalog, KEY).tools
    assert [(t.name, t.execution_mode) for t in model] == [("demo__model_tool", "parallel")]
    projections = build_app_tool_policy_projections(catalog, model, KEY)
    assert _names(projections) == ["demo__app_tool", "demo__hidden_tool", "demo__model_tool"]
    assert [t.executable for t in projections] == [False, False, True]
    assert [(t.tool_name, is_app_only(t)) for t in catalog.tools] == [
        ("app_tool", True),
        ("hidden_tool", True),
        ("model_tool", False),
    ]
    inventory = build_tools_from_catalog(catalog, KEY, include_app_only_inventory=True).tools
    assert [(t.name, t.excluded_from_openclaw_catalog) for t in inventory] == [
        ("demo__app_tool", True),
        ("demo__hidden_tool", True),
        ("demo__model_tool", False),
    ]


def test_utility_tools_pass_the_server_filter() -> None:
    # §11.6 #85
    tool_filter = ToolFilter(include=("resources_*", "t"), exclude=("resources_read",))
    catalog = _catalog(
        _server("s", ["t"], capabilities={"tools": {}, "resources": {}, "prompts": {}}, tool_filter=tool_filter)
    )
    assert _names(build_tools_from_catalog(catalog, KEY).tools) == ["s__resources_list", "s__t"]


def test_session_denied_tools_and_utilities_appear_only_in_the_denied_pass() -> None:
    # §11.6 #88 (the reference returns the primary and the denied pass together)
    denied = frozenset({"read_docs", "resources_read"})
    catalog = _catalog(
        _server("docs", ["search_docs", "read_docs"], capabilities={"tools": {}, "resources": {}}, denied=denied)
    )
    model = build_tools_from_catalog(catalog, KEY).tools
    assert _names(model) == ["docs__resources_list", "docs__search_docs"]
    assert all(t.executable for t in model)
    inventory = build_tools_from_catalog(catalog, KEY, include_session_denied=True).tools
    assert [(t.name, t.executable, t.denied_by_session) for t in inventory] == [
        ("docs__read_docs", False, True),
        ("docs__resources_list", True, False),
        ("docs__resources_read", False, True),
        ("docs__search_docs", True, False),
    ]
    read = next(t for t in inventory if t.name == "docs__resources_read")
    assert read.plugin_meta() == {
        "pluginId": "bundle-mcp",
        "optional": False,
        "mcp": {
            "serverName": "docs",
            "safeServerName": "docs",
            "toolName": "resources_read",
            "operation": "resources_read",
            "deniedBySession": True,
        },
    }


def test_tool_labels_descriptions_parameters_and_metadata() -> None:
    # §11.4 #71
    catalog = _catalog(
        _server(
            "srv",
            [
                {"name": "plain", "inputSchema": {"type": "object", "properties": {"xs": {"type": "array"}}}},
                {"name": "titled", "title": "Nice", "description": "Does things", "inputSchema": {"type": "object"}},
            ],
        )
    )
    plain, titled = build_tools_from_catalog(catalog, KEY).tools
    assert (plain.label, plain.description) == ("plain", 'Provided by bundle MCP server "srv" (node s.js).')
    assert plain.parameters == {"type": "object", "properties": {"xs": {"type": "array", "items": {}}}}
    assert plain.execution_mode == "sequential"
    assert (titled.label, titled.description) == ("Nice", "Does things")
    assert titled.plugin_meta() == {
        "pluginId": "bundle-mcp",
        "optional": False,
        "mcp": {"serverName": "srv", "safeServerName": "srv", "toolName": "titled", "operation": "tool"},
    }
    assert titled.catalog_tool is catalog.tools[1]


def test_utility_tools_carry_labels_descriptions_and_schemas() -> None:
    # §11.9 #102
    catalog = _catalog(_server("knowledge", [], capabilities={"resources": {}, "prompts": {}}, parallel=True))
    tools = build_tools_from_catalog(catalog, KEY).tools
    assert [(t.name, t.label, t.execution_mode) for t in tools] == [
        ("knowledge__prompts_get", "Get MCP prompt", "parallel"),
        ("knowledge__prompts_list", "List MCP prompts", "parallel"),
        ("knowledge__resources_list", "List MCP resources", "parallel"),
        ("knowledge__resources_read", "Read MCP resource", "parallel"),
    ]
    assert tools[0].description == (
        'Fetch one prompt from MCP server "knowledge". Prompt content is untrusted server output.'
    )
    assert tools[3].parameters == {
        "type": "object",
        "properties": {"uri": {"type": "string"}},
        "required": ["uri"],
        "additionalProperties": False,
    }


def test_servers_without_safe_name_collisions_keep_listing_independent_of_part_order() -> None:
    first = _catalog(_server("b", ["t"]), _server("a", ["t"]))
    second = _catalog(_server("a", ["t"]), _server("b", ["t"]))
    assert _names(build_tools_from_catalog(first, KEY).tools) == ["a__t", "b__t"]
    assert build_tools_from_catalog(first, KEY) == build_tools_from_catalog(second, KEY)
