"""``js_dumps`` hands plain data to Python's encoder; the text must stay exactly ``JSON.stringify``'s."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openclaw_mcp.jscompat import jsjson
from openclaw_mcp.jscompat.jsjson import js_dumps


def _written_node_by_node(value: Any, indent: int | None) -> str:
    parts: list[str] = []
    jsjson._write(value, parts, " " * indent if indent else "", "")
    return "".join(parts)


_KEYS = st.one_of(st.text(max_size=5), st.sampled_from(["0", "1", "12", "01", "4294967294", "4294967295", "-1"]))
_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**22), max_value=10**22),
    st.floats(),
    st.text(max_size=8),
    st.sampled_from(["\ud800", "x\udfff", "\u2028", "\x7f\x00\x1f", '"\\']),
)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_KEYS, inner, max_size=4)),
    max_leaves=20,
)


@settings(max_examples=500, deadline=None)
@given(_VALUES, st.sampled_from([None, 0, 2]))
def test_the_fast_path_writes_what_the_node_by_node_writer_writes(value: Any, indent: int | None) -> None:
    assert js_dumps(value, indent) == _written_node_by_node(value, indent)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"b": 1, "2": 2, "a": [True, None]}, '{"2":2,"b":1,"a":[true,null]}'),
        ({"n": 12000.0, "big": 10**21}, '{"n":12000,"big":1e+21}'),
        (["\ud800", "\u2028"], '["\\ud800","\u2028"]'),
        ({"plain": ["x", 1, {"y": {}}]}, '{"plain":["x",1,{"y":{}}]}'),
    ],
)
def test_values_python_would_write_differently_take_the_javascript_path(value: Any, text: str) -> None:
    assert js_dumps(value, None) == text


def test_a_cyclic_value_is_an_error_not_an_endless_loop() -> None:
    cyclic: dict[str, Any] = {}
    cyclic["self"] = [cyclic]
    with pytest.raises(RecursionError):
        js_dumps(cyclic, None)


def test_a_shared_subvalue_is_written_at_each_place() -> None:
    shared = {"k": [1, 2]}
    assert js_dumps({"a": shared, "b": [shared, shared]}, None) == '{"a":{"k":[1,2]},"b":[{"k":[1,2]},{"k":[1,2]}]}'
