"""``jscompat.numbers``, ``jscompat.undefined`` and the ``String()`` / ``Boolean()`` of ``jscompat.jsjson``."""

from __future__ import annotations

import copy
import math
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openclaw_mcp.jscompat.jsjson import js_number, js_to_string, js_truthy
from openclaw_mcp.jscompat.numbers import MAX_SAFE_INTEGER, is_safe_integer, js_to_number, string_to_number
from openclaw_mcp.jscompat.undefined import UNDEFINED, Undefined

# --- numbers ---


def test_max_safe_integer_is_two_to_the_53_minus_one() -> None:
    assert MAX_SAFE_INTEGER == 2**53 - 1 == 9007199254740991
    assert float(MAX_SAFE_INTEGER) == MAX_SAFE_INTEGER
    assert float(MAX_SAFE_INTEGER + 1) == float(MAX_SAFE_INTEGER + 2)  # beyond it, doubles skip integers


@pytest.mark.parametrize(
    ("value", "safe"),
    [
        (0, True),
        (-0.0, True),
        (1.0, True),
        (MAX_SAFE_INTEGER, True),
        (-MAX_SAFE_INTEGER, True),
        (float(MAX_SAFE_INTEGER), True),
        (MAX_SAFE_INTEGER + 1, False),
        (float(2**53), False),
        (-(2**53), False),
        (1.5, False),
        (math.nan, False),
        (math.inf, False),
        (-math.inf, False),
        (True, False),
        (False, False),
        ("1", False),
        (None, False),
        ([1], False),
    ],
)
def test_is_safe_integer_follows_number_is_safe_integer(value: object, safe: bool) -> None:
    assert is_safe_integer(value) is safe


@settings(max_examples=500, deadline=None)
@given(st.integers(min_value=-(2**60), max_value=2**60))
def test_an_int_is_safe_exactly_within_the_bounds(value: int) -> None:
    assert is_safe_integer(value) == (-MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER)


@settings(max_examples=500, deadline=None)
@given(st.floats())
def test_a_float_is_safe_when_integral_and_within_the_bounds(value: float) -> None:
    expected = math.isfinite(value) and value == math.floor(value) and abs(value) <= MAX_SAFE_INTEGER
    assert is_safe_integer(value) == expected


@pytest.mark.parametrize(
    ("value", "number"),
    [
        (None, 0.0),
        (False, 0.0),
        (True, 1.0),
        ("", 0.0),
        (" \ufeff\u3000 ", 0.0),
        (" 12 ", 12.0),
        ("+.5", 0.5),
        ("1.", 1.0),
        ("-1e3", -1000.0),
        ("1e400", math.inf),
        ("-Infinity", -math.inf),
        ("+Infinity", math.inf),
        ("0x1F", 31.0),
        ("0B11", 3.0),
        ("0o17", 15.0),
        ([], 0.0),
        ([7], 7.0),
        (10**400, math.inf),
        (-(10**400), -math.inf),
        (2.5, 2.5),
    ],
)
def test_js_to_number_follows_javascript_number(value: object, number: float) -> None:
    assert js_to_number(value) == number


@pytest.mark.parametrize(
    "value",
    ["-0x1", "0x", "0b2", "1_000", "\u0661", "inf", "nan", "Infinityx", "1e", ".", "1 2", [1, 2], {}, UNDEFINED],
)
def test_js_to_number_is_nan_where_javascript_gives_nan(value: object) -> None:
    assert math.isnan(js_to_number(value))


@settings(max_examples=500, deadline=None)
@given(st.floats(allow_nan=False))
def test_a_number_survives_string_and_back(value: float) -> None:
    assert string_to_number(js_number(value)) == value


# --- undefined ---


def test_undefined_is_falsy_and_distinct_from_null() -> None:
    assert not UNDEFINED
    assert bool(UNDEFINED) is False
    assert UNDEFINED is not None
    assert UNDEFINED != None  # noqa: E711 — JavaScript: undefined !== null
    assert repr(UNDEFINED) == "UNDEFINED"


def test_undefined_keeps_its_identity_through_copies_and_pickling() -> None:
    assert copy.copy(UNDEFINED) is UNDEFINED
    assert copy.deepcopy({"a": [UNDEFINED]})["a"][0] is UNDEFINED
    assert pickle.loads(pickle.dumps(UNDEFINED)) is UNDEFINED
    assert Undefined("undefined") is UNDEFINED
    assert list(Undefined) == [UNDEFINED]


def test_undefined_marks_a_missing_key() -> None:
    data = {"a": None}
    assert data.get("a", UNDEFINED) is None
    assert data.get("b", UNDEFINED) is UNDEFINED


# --- String() and Boolean() of JSON data ---


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (42, "42"),
        (42.0, "42"),
        (1e21, "1e+21"),
        (1.5, "1.5"),
        (None, "null"),
        (True, "true"),
        (False, "false"),
        ([1, [2, 3], None], "1,2,3,"),
        ([UNDEFINED, 1], ",1"),
        ({"a": 1}, "[object Object]"),
        (0.1 + 0.2, "0.30000000000000004"),
        (-0.0, "0"),
        (1e-7, "1e-7"),
        (123456789012345680000, "123456789012345680000"),
        (UNDEFINED, "undefined"),
        (" x ", " x "),
    ],
)
def test_js_to_string_renders_like_javascript_string(value: object, text: str) -> None:
    assert js_to_string(value) == text


def test_js_truthy_follows_javascript_for_json_values() -> None:
    falsy: tuple[object, ...] = (None, UNDEFINED, False, 0, 0.0, -0.0, "", math.nan)
    truthy: tuple[object, ...] = ([], {}, "0", " ", "false", -1, 0.5, math.inf, True, 10**400)
    assert [js_truthy(v) for v in falsy] == [False] * len(falsy)
    assert [js_truthy(v) for v in truthy] == [True] * len(truthy)


_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=3))


@settings(max_examples=500, deadline=None)
@given(_SCALARS)
def test_js_truthy_of_a_scalar_other_than_nan_is_python_truthiness(value: object) -> None:
    assert js_truthy(value) == bool(value)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.lists(_SCALARS, max_size=3), st.dictionaries(st.text(max_size=3), _SCALARS, max_size=3)))
def test_objects_and_arrays_are_truthy_even_when_empty(value: object) -> None:
    assert js_truthy(value)
