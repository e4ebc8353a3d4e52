"""``parse_json5`` hands a strict JSON text to the standard library's C decoder (issue 33); the value must
stay exactly the JSON5 parser's, and anything the C decoder refuses still gets json5's own result or error."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openclaw_mcp.jscompat._json5_parser import _Json5Parser
from openclaw_mcp.jscompat.json5 import Json5Error, parse_json5


def _tagged(value: Any) -> Any:
    """The value with its types spelled out: ``1`` vs ``1.0`` vs ``True``, ``-0.0``, NaN and key order count."""
    if isinstance(value, dict):
        return ("object", [(key, _tagged(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("array", [_tagged(item) for item in value])
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else repr(value))
    return (type(value).__name__, value)


def _outcome(parse: Any, text: str) -> tuple[str, Any]:
    try:
        return "value", _tagged(parse(text))
    except Json5Error as exc:
        return "json5 error", str(exc)
    except (ValueError, OverflowError) as exc:
        return "error", type(exc).__name__


def _parser_only(text: str, warnings: list[str] | None = None) -> Any:
    return _Json5Parser(text, warnings, track=False).parse()[0]


_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**60), max_value=2**60),
    st.sampled_from([0, 2**53, 2**53 + 1, -(2**53) - 1, 10**21, 10**400]),
    st.floats(allow_nan=False),
    st.text(max_size=6),
    st.sampled_from(["\u2028", "\ud83d\ude00", "__proto__", "\x00\x1f"]),
)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4)),
    max_leaves=20,
)


@settings(max_examples=1000, deadline=None)
@given(_VALUES, st.booleans(), st.sampled_from([None, 2]))
def test_a_strict_json_text_parses_to_the_json5_parsers_value(value: Any, ascii_only: bool, indent: int | None) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    assert _outcome(parse_json5, text) == _outcome(_parser_only, text)


_NOISE = st.sampled_from(
    ["-0", "NaN", "-Infinity", "1e400", "01", "1.", ".5", "0x10", ",", "}", "]", "//c\n", "'s'", "\ufeff", "\u00a0",
     "\\u2028", "\u2028", "1" * 30, "-", '"\\ud83d"', '"\udc00"', "\t", '"\t"']
)  # fmt: skip


@settings(max_examples=1000, deadline=None)
@given(_VALUES, _NOISE, st.integers(min_value=0))
def test_a_text_that_is_not_strict_json_gets_the_json5_parsers_outcome(value: Any, noise: str, where: int) -> None:
    text = json.dumps(value, ensure_ascii=False)
    at = where % (len(text) + 1)
    text = text[:at] + noise + text[at:]
    assert _outcome(parse_json5, text) == _outcome(_parser_only, text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("-0", -0.0),
        ("[9007199254740993]", [9007199254740992.0]),
        ("[9007199254740992, -9007199254740992]", [9007199254740992, -9007199254740992]),
        ('{"a": 1, "b": 2, "a": 3}', {"a": 3, "b": 2}),
        ('"\\ud83d\\ude00"', "\U0001f600"),
        ("[1e400]", [math.inf]),
    ],
)
def test_numbers_and_repeated_keys_come_out_as_json5_gives_them(text: str, expected: Any) -> None:
    assert _tagged(parse_json5(text)) == _tagged(expected)


def test_raw_line_separators_still_warn_when_warnings_are_collected() -> None:
    text = '{"a": "x\u2028y"}'
    warnings: list[str] = []
    expected: list[str] = []
    assert parse_json5(text, warnings=warnings) == _parser_only(text, expected)
    assert warnings == expected
    assert warnings


def test_nesting_beyond_the_c_decoder_goes_to_the_json5_parser() -> None:
    text = "[" * 100_000 + "]" * 100_000
    value = parse_json5(text)
    for _ in range(100_000 - 1):
        value = value[0]
    assert value == []
