"""The JSON5 parser reproduces npm json5 2.2.3 (values, messages, positions); expectations verified on node 24."""

from __future__ import annotations

import math
from typing import Any

import pytest

from openclaw_mcp.jscompat.json5 import Json5Error, locate_value_line, locate_value_lines, parse_json5

# (text, message, line, column) as npm json5 2.2.3 reports them.
ERROR_CASES = [
    ("", "JSON5: invalid end of input at 1:1", 1, 1),
    (" ", "JSON5: invalid end of input at 1:2", 1, 2),
    ("{", "JSON5: invalid end of input at 1:2", 1, 2),
    ("{\n", "JSON5: invalid end of input at 2:1", 2, 1),
    ("[", "JSON5: invalid end of input at 1:2", 1, 2),
    ("{a:1,,}", "JSON5: invalid character ',' at 1:6", 1, 6),
    ('{"a":1}}', "JSON5: invalid character '}' at 1:8", 1, 8),
    ("{a:1", "JSON5: invalid end of input at 1:5", 1, 5),
    ("{a:1 b:2}", "JSON5: invalid character 'b' at 1:6", 1, 6),
    ("{a 1}", "JSON5: invalid character '1' at 1:4", 1, 4),
    ("{1:1}", "JSON5: invalid character '1' at 1:2", 1, 2),
    ("{\\u0030:1}", "JSON5: invalid identifier character at 1:2", 1, 2),
    ("{a\\u0020:1}", "JSON5: invalid identifier character at 1:3", 1, 3),
    ("{\\x41:1}", "JSON5: invalid character 'x' at 1:3", 1, 3),
    ("{a\\u12:1}", "JSON5: invalid character ':' at 1:7", 1, 7),
    ("{-a:1}", "JSON5: invalid character '-' at 1:2", 1, 2),
    ("[1,,2]", "JSON5: invalid character ',' at 1:4", 1, 4),
    ("[,]", "JSON5: invalid character ',' at 1:2", 1, 2),
    ("'abc", "JSON5: invalid end of input at 1:5", 1, 5),
    ("'a\nb'", "JSON5: invalid character '\\n' at 2:0", 2, 0),
    ("'a\rb'", "JSON5: invalid character '\\r' at 1:3", 1, 3),
    ('"a\\', "JSON5: invalid end of input at 1:4", 1, 4),
    ("'\\01'", "JSON5: invalid character '1' at 1:4", 1, 4),
    ("'\\8'", "JSON5: invalid character '8' at 1:3", 1, 3),
    ("'\\x4g'", "JSON5: invalid character 'g' at 1:5", 1, 5),
    ("'\\u00g0'", "JSON5: invalid character 'g' at 1:6", 1, 6),
    ("tru", "JSON5: invalid end of input at 1:4", 1, 4),
    ("trux", "JSON5: invalid character 'x' at 1:4", 1, 4),
    ("nul", "JSON5: invalid end of input at 1:4", 1, 4),
    ("Infinit", "JSON5: invalid end of input at 1:8", 1, 8),
    ("NaX", "JSON5: invalid character 'X' at 1:3", 1, 3),
    ("-", "JSON5: invalid end of input at 1:2", 1, 2),
    ("+x", "JSON5: invalid character 'x' at 1:2", 1, 2),
    ("- 1", "JSON5: invalid character ' ' at 1:2", 1, 2),
    (".", "JSON5: invalid end of input at 1:2", 1, 2),
    (".e1", "JSON5: invalid character 'e' at 1:2", 1, 2),
    ("1e", "JSON5: invalid end of input at 1:3", 1, 3),
    ("1e+", "JSON5: invalid end of input at 1:4", 1, 4),
    ("0x", "JSON5: invalid end of input at 1:3", 1, 3),
    ("0xg", "JSON5: invalid character 'g' at 1:3", 1, 3),
    ("01", "JSON5: invalid character '1' at 1:2", 1, 2),
    ("1.2.3", "JSON5: invalid character '.' at 1:4", 1, 4),
    ("1 2", "JSON5: invalid character '2' at 1:3", 1, 3),
    ("/", "JSON5: invalid end of input at 1:2", 1, 2),
    ("/x", "JSON5: invalid character 'x' at 1:2", 1, 2),
    ("/* open", "JSON5: invalid end of input at 1:8", 1, 8),
    ("[1 // c", "JSON5: invalid end of input at 1:8", 1, 8),
    ("\t\t{a:\t😀}", "JSON5: invalid character '😀' at 1:8", 1, 8),
    ("{😀:1}", "JSON5: invalid character '😀' at 1:3", 1, 3),
    ("{a:'x'}\n\n  x", "JSON5: invalid character 'x' at 3:3", 3, 3),
    ("{\r\na:1\r\nb}", "JSON5: invalid character 'b' at 3:1", 3, 1),
    ("{a:1,\u2028b}", "JSON5: invalid character '}' at 1:8", 1, 8),
    ("[\x01]", "JSON5: invalid character '\\x01' at 1:2", 1, 2),
    ("[\x7f]", "JSON5: invalid character '\x7f' at 1:2", 1, 2),
    ("[\x00]", "JSON5: invalid character '\\0' at 1:2", 1, 2),
    ("{ab\\", "JSON5: invalid end of input at 1:5", 1, 5),
    ("{\\u", "JSON5: invalid end of input at 1:4", 1, 4),
]


@pytest.mark.parametrize(("text", "message", "line", "column"), ERROR_CASES)
def test_reports_the_json5_message_and_position(text: str, message: str, line: int, column: int) -> None:
    with pytest.raises(Json5Error) as caught:
        parse_json5(text)
    assert caught.value.message == message
    assert (caught.value.line, caught.value.column) == (line, column)


def test_error_is_a_value_error_whose_text_is_the_message() -> None:
    with pytest.raises(ValueError, match=r"^JSON5: invalid character ',' at 1:6$") as caught:
        parse_json5("{a:1,,}")
    assert isinstance(caught.value, Json5Error)
    assert str(caught.value) == caught.value.message


def test_reads_comments_trailing_commas_and_unquoted_keys() -> None:
    text = "// comment\n{a: 1, 'b': \"two\", c: [1, 2,], d: {e: null,}, /* x */ f: true,}"
    assert parse_json5(text) == {"a": 1, "b": "two", "c": [1, 2], "d": {"e": None}, "f": True}


def test_reads_every_json5_number_form() -> None:
    values = parse_json5("[0x1F, -0x10, +1, .5, 5., 1e3, 1.5e-3, Infinity, -Infinity, +Infinity, 0e0]")
    assert values == [31, -16, 1, 0.5, 5.0, 1000.0, 0.0015, math.inf, -math.inf, math.inf, 0.0]
    assert [type(v) for v in values[:3]] == [int, int, int]
    assert all(type(v) is float for v in values[3:])


def test_nan_and_negative_zero_keep_their_javascript_identity() -> None:
    nan, signed_nan, zero, hex_zero = parse_json5("[NaN, -NaN, -0, -0x0]")
    assert math.isnan(nan) and math.isnan(signed_nan)
    assert math.copysign(1.0, zero) == -1.0 and math.copysign(1.0, hex_zero) == -1.0


def test_integers_beyond_two_to_the_53_are_rounded_to_a_double() -> None:
    assert parse_json5("[9007199254740992, 9007199254740993, 12345678901234567890]") == [
        9007199254740992,
        9007199254740992.0,
        1.2345678901234567e19,
    ]
    assert type(parse_json5("9007199254740993")) is float


def test_reads_string_escapes_and_line_continuations() -> None:
    text = "['\\x41\\0\\v\\a\\'\\\"\\b\\f\\n\\r\\t', 'line\\\ncontinued\\\r\nagain\\\u2028!', \"\\u00e9\"]"
    assert parse_json5(text) == ["A\0\va'\"\b\f\n\r\t", "linecontinuedagain!", "é"]


def test_escaped_surrogate_pairs_form_one_character() -> None:
    assert parse_json5("['\\ud83d\\ude00', '\\ud800']") == ["😀", "\ud800"]


def test_reads_unicode_and_escaped_identifier_keys() -> None:
    assert parse_json5("{\\u0061b: 1, $_: 2, ünï: 3, 𐐀: 4, a\u200cb: 5}") == {
        "ab": 1,
        "$_": 2,
        "ünï": 3,
        "𐐀": 4,
        "a\u200cb": 5,
    }


def test_byte_order_mark_and_unicode_spaces_are_whitespace() -> None:
    assert parse_json5("\ufeff{a:\u3000[\u00a0\v\f]}\u2028") == {"a": []}


def test_repeated_key_keeps_its_first_position_and_last_value() -> None:
    result = parse_json5("{a: 1, b: 2, a: 3}")
    assert list(result.items()) == [("a", 3), ("b", 2)]


def test_proto_key_is_an_ordinary_key() -> None:
    assert parse_json5('{"__proto__": {"x": 1}, __proto__: 2}') == {"__proto__": 2}


def test_integer_like_keys_keep_insertion_order() -> None:
    assert list(parse_json5('{"b": 1, "2": 2, "1": 3}')) == ["b", "2", "1"]


def test_raw_line_separators_in_strings_are_accepted_with_json5s_warning() -> None:
    warnings: list[str] = []
    assert parse_json5("['a\u2028b', \"c\u2029d\"]", warnings=warnings) == ["a\u2028b", "c\u2029d"]
    assert warnings == [
        "JSON5: '\\u2028' in strings is not valid ECMAScript; consider escaping",
        "JSON5: '\\u2029' in strings is not valid ECMAScript; consider escaping",
    ]


def test_escaped_line_separator_is_a_continuation_without_warning() -> None:
    warnings: list[str] = []
    assert parse_json5("['a\\\u2028b']", warnings=warnings) == ["ab"]
    assert warnings == []


def test_raw_control_characters_other_than_newlines_are_allowed_in_strings() -> None:
    assert parse_json5("'a\tb\x01'") == "a\tb\x01"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("[\v]", []),
        ("null", None),
        ("'x' // trailing", "x"),
        ("{}", {}),
        ("[[]]", [[]]),
    ],
)
def test_reads_small_documents(text: str, value: Any) -> None:
    assert parse_json5(text) == value


def test_deep_nesting_does_not_exhaust_the_stack() -> None:
    assert parse_json5("[" * 2000 + "]" * 2000) is not None


CONFIG = (
    "{\n"
    "  // servers\n"
    "  mcp: {\n"
    "    servers: {\n"
    "      a: {\n"
    '        command: "x",\n'
    "        timeout: 5,\n"
    "      },\n"
    "      b: null,\n"
    '      c: "str",\n'
    '      d: { args: ["one",\n'
    '        "two"] },\n'
    "    },\n"
    "  },\n"
    "}\n"
)


@pytest.mark.parametrize(
    ("path", "line"),
    [
        (("mcp",), 3),
        (("mcp", "servers"), 4),
        (("mcp", "servers", "a"), 5),
        (("mcp", "servers", "a", "timeout"), 7),
        (("mcp", "servers", "b"), 9),
        (("mcp", "servers", "c"), 10),
        (("mcp", "servers", "d", "args", 1), 12),
        (("mcp", "servers", "d", "args", 2), None),
        (("mcp", "servers", "zz"), None),
        (("mcp", 0), None),
        ((), None),
    ],
)
def test_locates_the_line_where_a_value_starts(path: tuple[str | int, ...], line: int | None) -> None:
    assert locate_value_line(CONFIG, path) == line


def test_locates_the_winning_occurrence_of_a_repeated_key() -> None:
    text = '{"mcp": {"servers": {"a": {"command": "old"}}},\r\n "mcp":\r\n {"servers":\r\n  {"a":\r\n   {"url": 1}}}}'
    assert locate_value_line(text, ("mcp", "servers", "a")) == 5
    assert locate_value_line(text, ("mcp", "servers", "a", "url")) == 5
    assert locate_value_line(text, ("mcp", "servers", "a", "command")) is None


def test_a_repeated_key_with_a_scalar_value_hides_the_earlier_object() -> None:
    text = '{"a": {"x": 1},\n "a": 2}'
    assert locate_value_line(text, ("a",)) == 2
    assert locate_value_line(text, ("a", "x")) is None


def test_locator_counts_cr_and_line_separators_as_line_breaks() -> None:
    text = "{'k\\u0065y': [\n  1,\u2028  {z: 'v'}\r  ]}"
    assert locate_value_line(text, ("key",)) == 1
    assert locate_value_line(text, ("key", 0)) == 2
    assert locate_value_line(text, ("key", 1, "z")) == 3
    assert locate_value_line(text, ("key", "0")) is None


def test_locator_gives_nothing_for_unparseable_text() -> None:
    assert locate_value_line("{a:1,,}", ("a",)) is None
    assert locate_value_lines("{a:1,,}") == {}


def test_locate_value_lines_lists_every_value_once() -> None:
    assert locate_value_lines("{\n a: [1,\n 2],\n a: {b: [\n3]}}") == {
        (): 1,
        ("a",): 4,
        ("a", "b"): 4,
        ("a", "b", 0): 5,
    }
