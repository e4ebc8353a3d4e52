"""Tool filters, tool-policy server exclusion and session denial (spec client-runtime §6, §11.6)."""

from __future__ import annotations

import pytest

from openclaw_mcp.domain.filters import (
    ToolFilter,
    is_tool_allowed,
    matches,
    normalize_filter,
    server_denied_by_tool_policy,
    session_deny_set,
)
from openclaw_mcp.jscompat.text import js_trim

# --- §6.1 normalisation ------------------------------------------------------------------------------


def test_normalize_filter_keeps_string_entries_as_given_and_drops_other_entries() -> None:
    # verified with the reference's normalizeMcpToolFilter
    assert normalize_filter({"include": [1, "", " a "], "exclude": "x"}) == ToolFilter(include=("", " a "))


@pytest.mark.parametrize("raw", [{"include": [], "exclude": []}, [], None, "x", {}, {"include": [1]}])
def test_normalize_filter_returns_none_when_nothing_constrains(raw: object) -> None:
    assert normalize_filter(raw) is None


def test_tool_filter_json_has_only_the_non_empty_lists() -> None:
    assert ToolFilter(include=("a",)).to_json() == {"include": ["a"]}
    assert ToolFilter(exclude=("b",)).to_json() == {"exclude": ["b"]}
    assert ToolFilter(("a",), ("b",)).to_json() == {"include": ["a"], "exclude": ["b"]}


# --- §6.2 pattern semantics ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "name", "expected"),
    [
        ("a*b*c", "abc", True),
        ("a*b*c", "aXbYc", True),
        ("a*b*c", "acb", False),
        ("a*b*c", "ab", False),
        ("ab*ba", "aba", False),
        ("ab*ba", "abba", True),
        ("**", "x", True),
        ("**", "", True),
        ("*", "", True),
        ("*", "anything", True),
        (" read_* ", "read_x", True),
        ("search,read_*", "search", False),
        ("READ_*", "read_x", False),
        ("*_docs", "Read_Docs", False),
        ("*_docs", "read_docs", True),
        ("", "", False),
        ("   ", "x", False),
        ("exact", "exact", True),
        ("exact", "exactly", False),
        ("a*", "a", True),
        ("*a", "a", True),
        ("a**b", "ab", True),
        ("a*x*x*b", "axb", False),
        ("a*x*x*b", "axxb", True),
        ("filt3__search_docs", "search_docs", False),
    ],
)
def test_matches_follows_the_filter_glob_rules(pattern: str, name: str, expected: bool) -> None:
    assert matches(pattern, name) is expected


def test_patterns_are_trimmed_with_javascript_whitespace() -> None:
    assert matches("\ufeffread_*\u3000", "read_x")
    assert not matches("\x1cread", "read")  # U+001C is not JavaScript whitespace
    assert js_trim("\x1c a \x85") == "\x1c a \x85"
    assert js_trim("\u2028\ufeff a \xa0") == "a"


# --- §6.3 policy and §6.7 examples --------------------------------------------------------------------


def test_include_then_exclude_with_exclude_winning() -> None:
    tool_filter = ToolFilter(include=("*_docs", "admin_*"), exclude=("admin_*",))
    names = ["search_docs", "read_docs", "admin_delete", "Read_Docs"]
    assert [n for n in names if is_tool_allowed(tool_filter, n)] == ["search_docs", "read_docs"]


def test_no_filter_allows_everything() -> None:
    assert is_tool_allowed(None, "anything")
    assert is_tool_allowed(normalize_filter({"include": [], "exclude": []}), "anything")


def test_an_empty_include_pattern_allows_nothing() -> None:
    tool_filter = normalize_filter({"include": [""]})
    assert not is_tool_allowed(tool_filter, "anything")
    assert not is_tool_allowed(tool_filter, "")


def test_exclude_star_removes_tools_and_utilities() -> None:
    tool_filter = ToolFilter(exclude=("*",))
    assert not is_tool_allowed(tool_filter, "t")
    assert not is_tool_allowed(tool_filter, "resources_list")


def test_utility_operations_are_filtered_by_operation_name() -> None:
    tool_filter = ToolFilter(include=("resources_*", "t"), exclude=("resources_read",))
    operations = ["resources_list", "resources_read", "prompts_list", "prompts_get", "t"]
    assert [op for op in operations if is_tool_allowed(tool_filter, op)] == ["resources_list", "t"]


# --- §6.5 tool-policy server exclusion -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("deny", "safe", "expected"),
    [
        (["docs__*"], "docs", True),
        (["docs__search"], "docs", False),
        (["bundle-mcp"], "docs", True),
        ([" Bundle-MCP "], "anything", True),
        (["group:plugins"], "docs", True),
        (["DOCS__*"], "docs", True),
        (["docs__*"], "Docs", True),
        (["do*"], "docs", True),
        (["*"], "docs", True),
        (["*__"], "docs", False),  # only entries ending in * name a namespace
        (["doc__*"], "docs", False),
        (["d.cs__*"], "docs", False),
        ([], "docs", False),
        (None, "docs", False),
        ([5, None], "docs", False),
    ],
)
def test_tool_policy_deny_lists_exclude_whole_servers(deny: list[object] | None, safe: str, expected: bool) -> None:
    assert server_denied_by_tool_policy(deny, safe) is expected


# --- §6.6 session denial ---------------------------------------------------------------------------------


def test_session_deny_set_uses_only_the_exact_server_entry() -> None:
    deny_map = {"docs": ["read_docs", "resources_read", 5]}
    assert session_deny_set(deny_map, "docs") == frozenset({"read_docs", "resources_read"})
    assert session_deny_set(deny_map, "constructor") == frozenset()
    assert session_deny_set(deny_map, "Docs") == frozenset()
    assert session_deny_set(None, "docs") == frozenset()
    assert session_deny_set({"docs": "read_docs"}, "docs") == frozenset()
