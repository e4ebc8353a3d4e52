"""Content-block downgrade of call and prompt results (spec client-runtime §7, §11.7, D4).

Expected projections were verified against the reference's ``projectMcpCallToolResult`` and
``projectMcpGetPromptResult``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from openclaw_mcp.domain.content import (
    AgentToolResult,
    StructuredContentNotSerializable,
    content_block_to_agent,
    js_string_of,
    project_call_result,
    project_prompt_result,
    to_json_safe,
)

DETAILS = {"mcpServer": "s", "mcpTool": "t"}


def text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


BLOCKS: list[tuple[object, dict[str, str]]] = [
    (text("intro"), text("intro")),
    (
        {"type": "resource_link", "uri": "https://e.com/a.docx", "name": "a.docx", "title": "Quarterly report"},
        text("[Quarterly report] https://e.com/a.docx"),
    ),
    ({"type": "resource_link", "uri": "https://e.com/bare", "name": ""}, text("https://e.com/bare")),
    ({"type": "resource_link", "uri": "https://e.com/t", "title": "", "name": "n"}, text("https://e.com/t")),
    ({"type": "resource", "resource": {"uri": "memo://one", "text": "memo body"}}, text("memo body")),
    (
        {"type": "resource", "resource": {"uri": "blob://two", "blob": "AAAA", "mimeType": "application/pdf"}},
        text("blob://two"),
    ),
    ({"type": "resource", "resource": {"uri": "memo://e", "text": ""}}, text("")),
    ({"type": "audio", "data": "AA", "mimeType": "audio/mpeg"}, text("[audio audio/mpeg]")),
    (
        {"type": "image", "data": "iVBOR", "mimeType": "image/png"},
        {"type": "image", "data": "iVBOR", "mimeType": "image/png"},
    ),
    ({"type": "image"}, text('{"type":"image"}')),
    ({"type": "image", "data": "x", "mimeType": 5}, text('{"type":"image","data":"x","mimeType":5}')),
    ({"type": "text"}, text('{"type":"text"}')),
    ({"type": "video", "url": "u"}, text('{"type":"video","url":"u"}')),
    ({"type": "audio"}, text('{"type":"audio"}')),
    ("plain", text('"plain"')),
    (42, text("42")),
    (None, text("null")),
    (1.5, text("1.5")),
    (1e21, text("1e+21")),
    ([1, {"a": None}], text('[1,{"a":null}]')),
    (True, text("true")),
    ({"type": "resource_link", "uri": 5}, text('{"type":"resource_link","uri":5}')),
    ({"type": "resource_link", "uri": "u", "title": 5, "name": "n"}, text("[n] u")),
    ({"type": "resource", "resource": []}, text('{"type":"resource","resource":[]}')),
    ({"type": "resource", "resource": {"uri": "u", "text": 5}}, text("u")),
    ({"type": "text", "text": "x", "10": 1, "2": 2}, text("x")),
    ({"type": "video", "b": 1, "10": 2, "2": 3}, text('{"2":3,"10":2,"type":"video","b":1}')),
]


@pytest.mark.parametrize(("block", "expected"), BLOCKS)
def test_content_blocks_are_mapped_to_text_or_image(block: object, expected: dict[str, str]) -> None:
    assert content_block_to_agent(block) == expected


def test_all_blocks_of_one_result_are_projected_in_order() -> None:
    # §11.7 #91
    result = project_call_result({"content": [block for block, _ in BLOCKS]}, DETAILS)
    assert list(result.content) == [expected for _, expected in BLOCKS]
    assert result.details == DETAILS


def test_structured_content_comes_first_with_sorted_keys() -> None:
    # §11.7 #92 / §7.5 #14
    structured = {"threadId": "t1", "content": "pong"}
    result = project_call_result({"content": [text("pong")], "structuredContent": structured}, DETAILS)
    assert result.content == (
        text('structuredContent:\n{\n  "content": "pong",\n  "threadId": "t1"\n}'),
        text("pong"),
    )
    assert result.details == {"mcpServer": "s", "mcpTool": "t", "structuredContent": structured}


def test_the_sdk_mirror_of_structured_content_is_dropped() -> None:
    # §11.7 #93 / §7.5 #15–#16
    structured = {"b": 1, "a": 2}
    dropped = project_call_result(
        {"content": [text(pretty({"b": 1, "a": 2})), text("other")], "structuredContent": structured}
    )
    assert dropped.content == (text('structuredContent:\n{\n  "a": 2,\n  "b": 1\n}'), text("other"))
    kept = project_call_result({"content": [text(pretty({"a": 2, "b": 1}))], "structuredContent": structured})
    assert kept.content == (text('structuredContent:\n{\n  "a": 2,\n  "b": 1\n}'), text(pretty({"a": 2, "b": 1})))


def test_the_mirror_uses_javascript_key_and_number_order() -> None:
    structured = {"b": 1.5, "10": 1, "2": 2}
    mirror = '{\n  "2": 2,\n  "10": 1,\n  "b": 1.5\n}'
    result = project_call_result({"content": [text(mirror), text(pretty(structured))], "structuredContent": structured})
    assert result.content == (text(f"structuredContent:\n{mirror}"), text(pretty(structured)))


def test_structured_keys_are_sorted_by_utf16_code_units_at_every_depth() -> None:
    # §7.5 #24 and code-unit order
    result = project_call_result({"content": [], "structuredContent": {"z": {"y": 1, "x": [{"b": 1, "a": 0}]}}})
    assert result.content == (text("structuredContent:\n" + pretty({"z": {"x": [{"a": 0, "b": 1}], "y": 1}})),)
    unicode_keys = project_call_result({"structuredContent": {"\uffff": 3, "😀": 2, "é": 1, "B": 0, "b": 4}})
    assert unicode_keys.content == (
        text('structuredContent:\n{\n  "B": 0,\n  "b": 4,\n  "é": 1,\n  "😀": 2,\n  "\uffff": 3\n}'),
    )


@pytest.mark.parametrize(
    ("result", "content", "extra"),
    [
        ({"content": [], "structuredContent": {"answer": 42}}, ['structuredContent:\n{\n  "answer": 42\n}'], {}),
        ({"content": []}, ["MCP tool completed without returning content."], {}),
        ({"content": [], "isError": True}, ["MCP tool failed without returning content."], {"status": "error"}),
        ({}, ["MCP tool completed without returning content."], {}),
        ({"content": "x"}, ["MCP tool completed without returning content."], {}),
        ({"content": [], "isError": "true"}, ["MCP tool completed without returning content."], {}),
        ({"content": [], "isError": False}, ["MCP tool completed without returning content."], {}),
        ({"content": [text("x")], "structuredContent": [1, 2]}, ["x"], {"structuredContent": [1, 2]}),
        ({"content": [], "structuredContent": None}, ["MCP tool completed without returning content."], {}),
        (
            {"content": [text("bad")], "structuredContent": {"e": 1}, "isError": True},
            ['structuredContent:\n{\n  "e": 1\n}', "bad"],
            {"structuredContent": {"e": 1}, "status": "error"},
        ),
    ],
)
def test_call_result_placeholders_and_details(
    result: dict[str, Any], content: list[str], extra: dict[str, Any]
) -> None:
    # §11.7 #94–#95 / §7.5 #17–#23
    projected = project_call_result(result, DETAILS)
    assert projected.content == tuple(text(t) for t in content)
    expected_details = {**DETAILS, **extra}
    if "structuredContent" in result and "structuredContent" not in extra:
        expected_details["structuredContent"] = result["structuredContent"]
    assert projected.details == expected_details


def test_the_raw_result_is_kept_for_code_mode_consumers() -> None:
    result = project_call_result({"content": [text("x")], "structuredContent": {"a": 1}, "isError": False, "x": 1})
    assert result.guest_value == {"content": [text("x")], "structuredContent": {"a": 1}, "isError": False}
    assert project_call_result({"isError": "true"}).guest_value == {"content": []}


def test_over_deep_structured_content_fails_the_execution() -> None:
    # D4
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(5000):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(StructuredContentNotSerializable, match=r"^structuredContent could not be serialized$"):
        project_call_result({"content": [], "structuredContent": deep})


def test_non_finite_numbers_follow_the_reference() -> None:
    result = project_call_result({"content": [], "structuredContent": {"n": float("nan"), "i": float("-inf")}})
    assert result.content == (text('structuredContent:\n{\n  "i": "-Infinity",\n  "n": "NaN"\n}'),)


# --- §7.3 prompt results ----------------------------------------------------------------------------------

PROMPT_DETAILS = {"mcpServer": "s", "mcpOperation": "prompts_get", "untrustedMcpOutput": True}


def test_prompt_results_list_roles_and_contents() -> None:
    # §11.7 #96 / §7.5 #25
    image = {"type": "image", "data": "d", "mimeType": "image/png"}
    result = project_prompt_result(
        {
            "description": "desc",
            "messages": [
                {"role": "user", "content": text("hi")},
                {"role": "assistant", "content": image},
                {"role": "user", "content": {"type": "resource", "resource": {"uri": "r://x", "text": "rt"}}},
            ],
        },
        PROMPT_DETAILS,
    )
    assert result == AgentToolResult(
        (text("desc"), text("user:"), text("hi"), text("assistant:"), image, text("user:"), text("rt")),
        PROMPT_DETAILS,
    )


@pytest.mark.parametrize(
    ("result", "content"),
    [
        ({"messages": []}, ["MCP tool completed without returning content."]),
        ({"description": "", "messages": []}, [""]),
        ({"description": None, "messages": []}, ['{"type":"text","text":null}']),
    ],
)
def test_prompt_results_without_messages(result: dict[str, Any], content: list[str]) -> None:
    projected = project_prompt_result(result, PROMPT_DETAILS)
    assert projected.content == tuple(text(t) for t in content)
    assert projected.details == PROMPT_DETAILS
    assert projected.guest_value == result


# --- helpers ------------------------------------------------------------------------------------------------


def test_to_json_safe_makes_a_detached_json_copy() -> None:
    source = {"a": (1, 2), "n": float("inf"), "s": "x"}
    copy = to_json_safe(source)
    assert copy == {"a": [1, 2], "n": None, "s": "x"}
    assert to_json_safe(None) is None
    assert to_json_safe({1, 2}).startswith("[object")
    assert to_json_safe(ValueError("bad")) == "bad"


def test_js_string_of() -> None:
    assert [js_string_of(v) for v in (None, True, 3.0, "x", [1, None, "a"], {"a": 1})] == [
        "null",
        "true",
        "3",
        "x",
        "1,,a",
        "[object Object]",
    ]
