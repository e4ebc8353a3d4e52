"""What plugin tools look like over MCP (plugin-tools.md §4, §5): the ``tools/list`` entry, the scheduler alias
of the lookup, the ``tools/call`` result mapping (block table, ``coerce_text``, ``is_tool_result_error``), the
observed ``img_tool`` example and the ``Unknown tool:`` / ``Tool error:`` texts."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from openclaw_mcp.domain.catalog_text import format_error_message
from openclaw_mcp.domain.plugin_tools.results import (
    SCHEDULER_ALIASES,
    SCHEDULER_TOOL,
    call_result,
    coerce_text,
    error_call_result,
    is_tool_result_error,
    list_entry,
    lookup_name,
    to_mcp_content_block,
    tool_error_result,
    unknown_tool_result,
)

EMPTY_SCHEMA = {"type": "object", "properties": {}}
ERROR_STATUSES = [
    "error",
    "failed",
    "failure",
    "timeout",
    "timed_out",
    "blocked",
    "denied",
    "forbidden",
    "unavailable",
    "approval-unavailable",
    "disabled",
    "aborted",
    "cancelled",
    "canceled",
    "killed",
    "invalid",
]


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


# --- §4 tools/list -------------------------------------------------------------------------------------


def test_a_list_entry_has_exactly_name_description_and_input_schema() -> None:
    schema = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    assert list_entry("echo_tool", "Echo the input", schema) == {
        "name": "echo_tool",
        "description": "Echo the input",
        "inputSchema": schema,
    }


def test_the_name_is_neither_trimmed_nor_lowercased() -> None:
    assert list_entry("  Echo_Tool ", "", EMPTY_SCHEMA)["name"] == "  Echo_Tool "


@pytest.mark.parametrize(
    ("description", "expected"),
    [(None, ""), ("", ""), ("Echo", "Echo"), ("  spaced  ", "  spaced  ")],
)
def test_a_missing_description_becomes_the_empty_string(description: object, expected: str) -> None:
    assert list_entry("t", description, EMPTY_SCHEMA)["description"] == expected


def test_a_non_string_description_is_passed_on_like_the_references_nullish_default() -> None:
    assert list_entry("t", 5, EMPTY_SCHEMA)["description"] == 5


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"type": "string"}}},
        {"type": "string"},
        {"type": None},
        {"type": ["object", "null"], "additionalProperties": False},
    ],
)
def test_parameters_with_a_type_key_are_the_input_schema_unchanged(schema: dict[str, Any]) -> None:
    before = json.dumps(schema)
    assert list_entry("t", "", schema)["inputSchema"] == schema
    assert json.dumps(schema) == before


@pytest.mark.parametrize(
    "parameters",
    [None, {}, {"properties": {"a": {"type": "string"}}}, [], ["type"], "object", 42],
)
def test_parameters_without_a_type_key_become_the_empty_object_schema(parameters: object) -> None:
    assert list_entry("t", "", parameters)["inputSchema"] == EMPTY_SCHEMA


def test_each_empty_schema_is_a_fresh_object() -> None:
    first = list_entry("a", "", None)["inputSchema"]
    first["properties"] = {"x": {}}
    first["extra"] = True
    assert list_entry("b", "", None)["inputSchema"] == EMPTY_SCHEMA


# --- §5 step 1–2: lookup and unknown tools -------------------------------------------------------------


def test_the_lookup_is_exact_and_case_sensitive() -> None:
    served = {"echo_tool": 1, "Echo": 2}
    assert lookup_name("echo_tool", served) == "echo_tool"
    assert lookup_name("Echo", served) == "Echo"
    assert lookup_name("ECHO_TOOL", served) is None
    assert lookup_name(" echo_tool", served) is None
    assert lookup_name("echo", served) is None


def test_the_scheduler_constants_are_automations_and_its_cron_alias() -> None:
    assert SCHEDULER_TOOL == "automations"
    assert sorted(SCHEDULER_ALIASES) == ["automations", "cron"]


def test_cron_means_the_served_automations_tool() -> None:
    served = {"automations": 1, "echo_tool": 2}
    assert lookup_name("cron", served) == "automations"
    assert lookup_name("automations", served) == "automations"


def test_cron_is_unknown_without_a_served_automations_tool() -> None:
    assert lookup_name("cron", {"echo_tool": 1}) is None
    assert lookup_name("automations", {}) is None
    assert lookup_name("Cron", {"automations": 1}) is None


def test_a_served_tool_named_cron_is_found_by_its_own_name() -> None:
    assert lookup_name("cron", {"cron": 1, "automations": 2}) == "cron"


@pytest.mark.parametrize("name", ["nope", "cron", "", "Echo Tool"])
def test_an_unknown_tool_is_an_error_result_naming_it(name: str) -> None:
    assert unknown_tool_result(name) == {"content": [text(f"Unknown tool: {name}")], "isError": True}


def test_an_error_call_result_is_one_text_block_with_is_error() -> None:
    assert error_call_result("x") == {"content": [text("x")], "isError": True}


# --- coerce_text -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("plain", "plain", id="string"),
        pytest.param("", "", id="empty-string"),
        pytest.param(None, "", id="none"),
        pytest.param(42, "42", id="int"),
        pytest.param(-7, "-7", id="negative-int"),
        pytest.param(0, "0", id="zero"),
        pytest.param(1.0, "1", id="integral-float"),
        pytest.param(1.5, "1.5", id="float"),
        pytest.param(-0.0, "0", id="negative-zero"),
        pytest.param(0.1 + 0.2, "0.30000000000000004", id="shortest-round-trip"),
        pytest.param(1e21, "1e+21", id="exponent"),
        pytest.param(1e-7, "1e-7", id="small-exponent"),
        pytest.param(123456789012345680000.0, "123456789012345680000", id="large-no-exponent"),
        pytest.param(math.nan, "NaN", id="nan"),
        pytest.param(math.inf, "Infinity", id="infinity"),
        pytest.param(-math.inf, "-Infinity", id="minus-infinity"),
        pytest.param(True, "true", id="true"),
        pytest.param(False, "false", id="false"),
        pytest.param({"a": 1, "b": "x"}, '{"a":1,"b":"x"}', id="object"),
        pytest.param({"a": {"b": [1, {"c": None}]}}, '{"a":{"b":[1,{"c":null}]}}', id="nested"),
        pytest.param({"f": 1.0, "g": 2.5}, '{"f":1,"g":2.5}', id="floats-in-json"),
        pytest.param({"n": math.nan}, '{"n":null}', id="nan-in-json"),
        pytest.param([1, "x", True, None], '[1,"x",true,null]', id="list"),
        pytest.param({"é": "ü"}, '{"é":"ü"}', id="non-ascii-unescaped"),
        pytest.param({}, "{}", id="empty-object"),
        pytest.param([], "[]", id="empty-list"),
    ],
)
def test_coerce_text_follows_the_javascript_string_and_json_rules(value: object, expected: str) -> None:
    assert coerce_text(value) == expected


@pytest.mark.parametrize("value", [object(), {"k": object()}, [1, object()], {1j}])
def test_coerce_text_of_something_without_json_is_the_empty_string(value: object) -> None:
    assert coerce_text(value) == ""


def test_coerce_text_of_a_cyclic_object_is_the_empty_string() -> None:
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    assert coerce_text(cyclic) == ""


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)


@given(value=_JSON)
def test_coerce_text_always_gives_a_string(value: object) -> None:
    assert isinstance(coerce_text(value), str)


_NON_INDEX_KEYS = st.text(max_size=5).filter(lambda key: not key[:1].isdigit())


@given(value=st.dictionaries(_NON_INDEX_KEYS, st.none() | st.booleans() | st.text(max_size=8), max_size=4))
def test_coerce_text_of_an_object_is_its_compact_json(value: dict[str, Any]) -> None:
    # Integer-like keys are left out: JavaScript writes them first, in numeric order (covered by jsjson's tests).
    assert coerce_text(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# --- block table ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("element", "expected"),
    [
        pytest.param("plain-string", text("plain-string"), id="string"),
        pytest.param(42, text("42"), id="number"),
        pytest.param(1.5, text("1.5"), id="float"),
        pytest.param(None, text(""), id="null"),
        pytest.param(True, text("true"), id="boolean"),
        pytest.param([1, {"a": "b"}], text('[1,{"a":"b"}]'), id="list"),
    ],
)
def test_a_non_object_element_becomes_a_text_block(element: object, expected: dict[str, Any]) -> None:
    assert to_mcp_content_block(element) == expected


@pytest.mark.parametrize(
    "element",
    [
        {"type": "text", "text": "x", "extra": 1},
        {"type": "text", "text": 5},
        {"type": "resource", "resource": {"uri": "file:///x", "text": "t"}},
        {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
        {"type": "Image", "url": "x"},
        {"type": None},
        {"no": "type"},
        {},
    ],
)
def test_an_object_that_is_not_an_image_passes_through_unchanged(element: dict[str, Any]) -> None:
    assert to_mcp_content_block(element) is element


def test_an_image_with_string_data_and_mime_type_passes_through_unchanged() -> None:
    element = {"type": "image", "data": "BBBB", "mimeType": "image/gif", "extra": True}
    assert to_mcp_content_block(element) is element


def test_an_image_with_a_base64_source_becomes_an_mcp_image() -> None:
    element = {"type": "image", "source": {"type": "base64", "data": "AAAA", "media_type": "image/png"}, "x": 1}
    assert to_mcp_content_block(element) == {"type": "image", "data": "AAAA", "mimeType": "image/png"}


@pytest.mark.parametrize(
    "element",
    [
        pytest.param({"type": "image", "url": "x"}, id="url"),
        pytest.param({"type": "image"}, id="bare"),
        pytest.param({"type": "image", "data": "AAAA"}, id="no-mime"),
        pytest.param({"type": "image", "data": 5, "mimeType": "image/png"}, id="numeric-data"),
        pytest.param({"type": "image", "data": "AAAA", "mimeType": None}, id="null-mime"),
        pytest.param({"type": "image", "source": {"type": "url", "data": "A", "media_type": "p"}}, id="url-source"),
        pytest.param({"type": "image", "source": {"type": "base64", "data": 1, "media_type": "p"}}, id="bad-data"),
        pytest.param({"type": "image", "source": {"type": "base64", "data": "A"}}, id="no-media-type"),
        pytest.param({"type": "image", "source": "base64"}, id="source-not-object"),
        pytest.param({"type": "image", "source": {"data": "A", "media_type": "p"}}, id="source-without-type"),
    ],
)
def test_any_other_image_becomes_a_text_block_of_its_compact_json(element: dict[str, Any]) -> None:
    assert to_mcp_content_block(element) == text(json.dumps(element, separators=(",", ":")))


# --- is_tool_result_error -------------------------------------------------------------------------------


def details(**fields: object) -> dict[str, Any]:
    return {"content": [], "details": fields}


@pytest.mark.parametrize(
    "raw",
    [
        None,
        "bare",
        42,
        [],
        [{"details": {"ok": False}}],
        {},
        {"content": "x"},
        {"details": None},
        {"details": "error"},
        {"details": [{"ok": False}]},
        {"details": {}},
    ],
)
def test_a_result_without_details_is_not_an_error(raw: object) -> None:
    assert is_tool_result_error(raw) is False


@pytest.mark.parametrize("key", ["ok", "success"])
def test_ok_or_success_false_is_an_error(key: str) -> None:
    assert is_tool_result_error(details(**{key: False})) is True
    assert is_tool_result_error(details(**{key: False, "status": "completed"})) is True
    assert is_tool_result_error(details(**{key: False, "exitCode": 0})) is True


@pytest.mark.parametrize("value", [0, None, "false", "", []])
def test_only_the_boolean_false_counts_for_ok_and_success(value: object) -> None:
    assert is_tool_result_error(details(ok=value)) is False
    assert is_tool_result_error(details(success=value)) is False


@pytest.mark.parametrize("status", ERROR_STATUSES)
def test_each_error_status_is_an_error_in_any_case(status: str) -> None:
    assert is_tool_result_error(details(status=status)) is True
    assert is_tool_result_error(details(status=status.upper())) is True
    assert is_tool_result_error(details(status=status.title())) is True


@pytest.mark.parametrize("status", ERROR_STATUSES)
@pytest.mark.parametrize("key", ["ok", "success"])
def test_an_explicit_success_overrides_an_error_status(status: str, key: str) -> None:
    assert is_tool_result_error(details(status=status, **{key: True})) is False


def test_an_error_status_is_trimmed_like_the_references_status_normalisation() -> None:
    assert is_tool_result_error(details(status=" Blocked ")) is True
    assert is_tool_result_error(details(status="\tfailed\n")) is True
    assert is_tool_result_error(details(status=" completed ", exitCode=1)) is False


@pytest.mark.parametrize("status", ["ok", "done", "success", "pending", "errors", "fail", "time-out", ""])
def test_another_status_is_not_an_error(status: str) -> None:
    assert is_tool_result_error(details(status=status)) is False


@pytest.mark.parametrize("status", [None, 1, True, ["error"], {"error": True}])
def test_a_non_string_status_is_ignored(status: object) -> None:
    assert is_tool_result_error(details(status=status)) is False


def test_timed_out_true_is_an_error_even_when_ok() -> None:
    assert is_tool_result_error(details(timedOut=True)) is True
    assert is_tool_result_error(details(timedOut=True, ok=True)) is True
    assert is_tool_result_error(details(timedOut=True, status="completed")) is True


@pytest.mark.parametrize("value", [1, "true", "yes", False, None])
def test_only_the_boolean_true_counts_for_timed_out(value: object) -> None:
    assert is_tool_result_error(details(timedOut=value)) is False


@pytest.mark.parametrize("value", ["boom", 1, -1, 0.5, {}, [], {"message": "x"}, True])
def test_a_truthy_error_is_an_error_even_when_ok(value: object) -> None:
    assert is_tool_result_error(details(error=value)) is True
    assert is_tool_result_error(details(error=value, ok=True, success=True, status="completed")) is True


@pytest.mark.parametrize("value", ["", 0, 0.0, -0.0, math.nan, None, False])
def test_a_falsy_error_is_not_an_error(value: object) -> None:
    assert is_tool_result_error(details(error=value)) is False


@pytest.mark.parametrize("status", ["completed", "Completed", "COMPLETED"])
def test_completed_wins_over_a_failing_exit_code(status: str) -> None:
    assert is_tool_result_error(details(status=status, exitCode=1)) is False


@pytest.mark.parametrize(
    ("exit_code", "expected"),
    [
        (1, True),
        (-1, True),
        (127, True),
        (2.5, True),
        (0, False),
        (0.0, False),
        (-0.0, False),
        (math.nan, False),
        (math.inf, False),
        (-math.inf, False),
        (True, False),
        (False, False),
        ("1", False),
        (None, False),
    ],
)
def test_only_a_finite_non_zero_exit_code_is_an_error(exit_code: object, expected: bool) -> None:
    assert is_tool_result_error(details(exitCode=exit_code)) is expected
    assert is_tool_result_error(details(exitCode=exit_code, status="running")) is expected


def test_a_bare_value_with_details_is_judged_by_them() -> None:
    assert is_tool_result_error({"details": {"ok": False}}) is True


# --- §5 step 5: call results ---------------------------------------------------------------------------


def test_the_observed_img_tool_result_is_mapped_exactly() -> None:
    raw = {
        "content": [
            {"type": "image", "source": {"type": "base64", "data": "AAAA", "media_type": "image/png"}},
            {"type": "image", "data": "BBBB", "mimeType": "image/gif"},
            {"type": "image", "url": "x"},
            "plain-string",
            42,
        ],
        "details": {"status": "blocked"},
    }
    assert call_result(raw) == {
        "content": [
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "image", "data": "BBBB", "mimeType": "image/gif"},
            {"type": "text", "text": '{"type":"image","url":"x"}'},
            {"type": "text", "text": "plain-string"},
            {"type": "text", "text": "42"},
        ],
        "isError": True,
    }


def test_a_successful_result_has_no_is_error_key() -> None:
    result = call_result({"content": [text('echo:{"text":"hi"}')], "details": {"ok": True}})
    assert result == {"content": [text('echo:{"text":"hi"}')]}
    assert "isError" not in result


def test_a_string_content_is_one_text_block() -> None:
    assert call_result({"content": "just a string result"}) == {"content": [text("just a string result")]}


@pytest.mark.parametrize(
    ("raw", "block"),
    [
        pytest.param("bare", text("bare"), id="string"),
        pytest.param(None, text(""), id="none"),
        pytest.param(42, text("42"), id="number"),
        pytest.param(1.0, text("1"), id="integral-float"),
        pytest.param(False, text("false"), id="boolean"),
        pytest.param({"answer": 42}, text('{"answer":42}'), id="object-without-content"),
        pytest.param({"content": None}, text(""), id="null-content"),
        pytest.param({"content": 7, "details": {}}, text("7"), id="numeric-content"),
        pytest.param({"content": {"type": "text", "text": "x"}}, text('{"type":"text","text":"x"}'), id="object"),
    ],
)
def test_content_that_is_not_a_list_is_one_coerced_text_block(raw: object, block: dict[str, Any]) -> None:
    assert call_result(raw) == {"content": [block]}


def test_a_bare_list_is_mapped_block_by_block() -> None:
    assert call_result(["a", {"type": "text", "text": "b"}, None]) == {"content": [text("a"), text("b"), text("")]}


def test_an_empty_content_list_gives_no_blocks() -> None:
    assert call_result({"content": []}) == {"content": []}


def test_an_object_without_content_is_its_json_and_its_details_still_decide() -> None:
    raw = {"details": {"ok": False}}
    assert call_result(raw) == {"content": [text('{"details":{"ok":false}}')], "isError": True}


# --- §5 step 6: Tool error ------------------------------------------------------------------------------


def test_an_exception_is_a_tool_error_with_its_message() -> None:
    assert tool_error_result(RuntimeError("boom from fail_tool")) == {
        "content": [text("Tool error: boom from fail_tool")],
        "isError": True,
    }


def test_a_tool_error_uses_the_formatted_error_message_with_its_causes() -> None:
    try:
        try:
            raise ValueError("inner reason")
        except ValueError as inner:
            raise RuntimeError("outer") from inner
    except RuntimeError as exc:
        result = tool_error_result(exc)
        assert result["content"] == [text(f"Tool error: {format_error_message(exc)}")]
        assert result["content"] == [text("Tool error: outer | inner reason")]


def test_a_secret_in_the_error_message_is_redacted() -> None:
    secret = "sk-abcdef1234567890abcdef"
    result = tool_error_result(RuntimeError(f"upstream said Authorization: Bearer {secret}"))
    [block] = result["content"]
    assert result["isError"] is True
    assert secret not in block["text"]
    assert block["text"] == "Tool error: upstream said Authorization: Bearer sk-abc…cdef"
