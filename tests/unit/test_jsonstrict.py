"""The strict JSON parser reproduces V8's JSON.parse (node 24): values, messages and positions."""

from __future__ import annotations

import math
from typing import Any

import pytest

from openclaw_mcp.jscompat.jsonstrict import JsonSyntaxError, parse_json_strict

# (text, message) as node 24's JSON.parse reports them (without the "SyntaxError: " prefix).
ERROR_CASES = [
    ("", "Unexpected end of JSON input"),
    (" ", "Unexpected end of JSON input"),
    ("{", "Expected property name or '}' in JSON at position 1 (line 1 column 2)"),
    ("[", "Unexpected end of JSON input"),
    ("[1", "Expected ',' or ']' after array element in JSON at position 2 (line 1 column 3)"),
    ('{"a"', "Expected ':' after property name in JSON at position 4 (line 1 column 5)"),
    ('{"a":', "Unexpected end of JSON input"),
    ('{"a":1', "Expected ',' or '}' after property value in JSON at position 6 (line 1 column 7)"),
    ('{"a":1,', "Expected double-quoted property name in JSON at position 7 (line 1 column 8)"),
    ("[1,", "Unexpected end of JSON input"),
    ("tr", "Unexpected end of JSON input"),
    ("trUe", "Unexpected token 'U', \"trUe\" is not valid JSON"),
    ("tr1e", "Unexpected number in JSON at position 2 (line 1 column 3)"),
    ('tr"e', "Unexpected string in JSON at position 2 (line 1 column 3)"),
    ("t ue", "Unexpected token ' ', \"t ue\" is not valid JSON"),
    ('"abc', "Unterminated string in JSON at position 4 (line 1 column 5)"),
    ('"a\\', "Unexpected end of JSON input"),
    ('"a\\x"', "Bad escaped character in JSON at position 3 (line 1 column 4)"),
    ('"a\\u12"', "Bad Unicode escape in JSON at position 6 (line 1 column 7)"),
    ('"a\\u12g4"', "Bad Unicode escape in JSON at position 6 (line 1 column 7)"),
    ('"\\é"', "Bad escaped character in JSON at position 2 (line 1 column 3)"),
    ('"\\中"', 'Unexpected token \'中\', ""\\中"" is not valid JSON'),
    ('"a\nb"', "Bad control character in string literal in JSON at position 2 (line 1 column 3)"),
    ('"a\tb"', "Bad control character in string literal in JSON at position 2 (line 1 column 3)"),
    ("-", "No number after minus sign in JSON at position 1 (line 1 column 2)"),
    ("-x", "No number after minus sign in JSON at position 1 (line 1 column 2)"),
    ("1.", "Unterminated fractional number in JSON at position 2 (line 1 column 3)"),
    ("1.x", "Unterminated fractional number in JSON at position 2 (line 1 column 3)"),
    ("1e", "Exponent part is missing a number in JSON at position 2 (line 1 column 3)"),
    ("1e+", "Exponent part is missing a number in JSON at position 3 (line 1 column 4)"),
    ("01", "Unexpected number in JSON at position 1 (line 1 column 2)"),
    ("-01", "Unexpected number in JSON at position 2 (line 1 column 3)"),
    ("0x", "Unexpected non-whitespace character after JSON at position 1 (line 1 column 2)"),
    ("[1,]", "Unexpected token ']', \"[1,]\" is not valid JSON"),
    ('{"a":1,}', "Expected double-quoted property name in JSON at position 7 (line 1 column 8)"),
    ('{"a" 1}', "Expected ':' after property name in JSON at position 5 (line 1 column 6)"),
    ('{"a":1 "b":2}', "Expected ',' or '}' after property value in JSON at position 7 (line 1 column 8)"),
    ("[1 2]", "Expected ',' or ']' after array element in JSON at position 3 (line 1 column 4)"),
    ("1 2", "Unexpected non-whitespace character after JSON at position 2 (line 1 column 3)"),
    ("NaN", '"NaN" is not valid JSON'),
    ("Infinity", '"Infinity" is not valid JSON'),
    ("undefined", '"undefined" is not valid JSON'),
    ("[object Object]", '"[object Object]" is not valid JSON'),
    ("hello", "Unexpected token 'h', \"hello\" is not valid JSON"),
    ("{a:1}", "Expected property name or '}' in JSON at position 1 (line 1 column 2)"),
    ("{'a':1}", "Expected property name or '}' in JSON at position 1 (line 1 column 2)"),
    ('{"a":1}x', "Unexpected non-whitespace character after JSON at position 7 (line 1 column 8)"),
    ("[1, 2, 3, 4, 5, 6, 7, 8, 9, x]", "Unexpected token 'x', ...\" 7, 8, 9, x]\" is not valid JSON"),
    ("[1, x, 3, 4, 5, 6, 7, 8, 9, 10, 11]", "Unexpected token 'x', \"[1, x, 3, 4, 5\"... is not valid JSON"),
    (
        "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, x, 16, 17, 18, 19, 20, 21]",
        "Unexpected token 'x', ...\", 13, 14, x, 16, 17,\"... is not valid JSON",
    ),
    ('["😀😀😀😀😀😀😀😀", x]', 'Unexpected token \'x\', ..."\ude00😀😀😀", x]" is not valid JSON'),
    ("[😀]", "Unexpected token '\ud83d', \"[😀]\" is not valid JSON"),
    ('{\n"a":\r\n1,\r"b" x}', "Expected ':' after property name in JSON at position 15 (line 4 column 5)"),
    ("\u2028", "Unexpected token '\u2028', \"\u2028\" is not valid JSON"),
    ("\ufeff{}", "Unexpected token '\ufeff', \"\ufeff{}\" is not valid JSON"),
    ("[1,2,3,4,5,6,7,8,9,0]]", "Unexpected non-whitespace character after JSON at position 21 (line 1 column 22)"),
    ('{"a":1,"b"}', "Expected ':' after property name in JSON at position 10 (line 1 column 11)"),
    ("[-]", "No number after minus sign in JSON at position 2 (line 1 column 3)"),
    ("[1e5x]", "Expected ',' or ']' after array element in JSON at position 4 (line 1 column 5)"),
    ('"\\', "Unexpected end of JSON input"),
    (
        '{"command":"uvx","args":["context7-mcp"}',
        "Expected ',' or ']' after array element in JSON at position 39 (line 1 column 40)",
    ),
    ("[\n  1,\n  2\n  3\n]", "Expected ',' or ']' after array element in JSON at position 13 (line 4 column 3)"),
]


@pytest.mark.parametrize(("text", "message"), ERROR_CASES)
def test_reports_v8s_message(text: str, message: str) -> None:
    with pytest.raises(JsonSyntaxError) as caught:
        parse_json_strict(text)
    assert caught.value.message == message


def test_error_is_a_value_error_whose_text_is_the_message() -> None:
    with pytest.raises(ValueError, match=r"^Unexpected end of JSON input$") as caught:
        parse_json_strict("[")
    assert isinstance(caught.value, JsonSyntaxError)
    assert str(caught.value) == caught.value.message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # Positions and columns count UTF-16 code units; the window is cut in code units too.
        ('["😀", x]', 'Unexpected token \'x\', "["😀", x]" is not valid JSON'),
        ('{"😀": 1 x}', "Expected ',' or '}' after property value in JSON at position 9 (line 1 column 10)"),
        ("[😀]", "Unexpected token '\ud83d', \"[😀]\" is not valid JSON"),
        ('["😀😀😀😀😀😀😀😀", x]', 'Unexpected token \'x\', ..."\ude00😀😀😀", x]" is not valid JSON'),
        # Only \r, \n and \r\n end lines.
        ('{\n"a":\r\n1,\r"b" x}', "Expected ':' after property name in JSON at position 15 (line 4 column 5)"),
        ("[1,\u2028 x]", "Unexpected token '\u2028', \"[1,\u2028 x]\" is not valid JSON"),
    ],
)
def test_counts_positions_like_javascript(text: str, message: str) -> None:
    with pytest.raises(JsonSyntaxError) as caught:
        parse_json_strict(text)
    assert caught.value.message == message


def test_reads_json_values() -> None:
    text = '{"a": [1, 2.5, -0, 1e400, "x\\ud83d\\ude00\\ud800"], "b": {"c": null}, "d": [true, false]}'
    assert parse_json_strict(text) == {
        "a": [1, 2.5, -0.0, math.inf, "x😀\ud800"],
        "b": {"c": None},
        "d": [True, False],
    }


def test_reads_every_escape() -> None:
    assert parse_json_strict('"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9"') == '"\\/\b\f\n\r\tAé'


def test_integer_literals_are_ints_and_others_are_floats() -> None:
    values = parse_json_strict("[0, -12, 1.0, 1e2, 9007199254740992, 9007199254740993]")
    assert values == [0, -12, 1.0, 100.0, 9007199254740992, 9007199254740992.0]
    assert [type(v) for v in values] == [int, int, float, float, int, float]


def test_negative_zero_is_a_negative_float() -> None:
    assert math.copysign(1.0, parse_json_strict("-0")) == -1.0


def test_repeated_key_keeps_its_first_position_and_last_value() -> None:
    assert list(parse_json_strict('{"a": 1, "b": 2, "a": 3}').items()) == [("a", 3), ("b", 2)]


def test_proto_and_integer_like_keys_are_ordinary_keys_in_insertion_order() -> None:
    assert list(parse_json_strict('{"__proto__": 1, "b": 2, "1": 3}')) == ["__proto__", "b", "1"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (" [ null , false ] ", [None, False]),
        ('\r\n{"a"\r:\r\n1}\r\n', {"a": 1}),
        ('"\u2028\u2029"', "\u2028\u2029"),
        ("[[], {}]", [[], {}]),
    ],
)
def test_reads_small_documents(text: str, value: Any) -> None:
    assert parse_json_strict(text) == value


def test_deep_nesting_does_not_exhaust_the_stack() -> None:
    assert parse_json_strict("[" * 2000 + "]" * 2000) is not None
