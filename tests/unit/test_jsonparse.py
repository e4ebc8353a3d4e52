"""The one ``JSON.parse`` for data (``jscompat.jsonparse``): JavaScript's numbers, no non-JSON constants, any
depth, hooks that only make it stricter."""

from __future__ import annotations

import math

import pytest

from openclaw_mcp.jscompat.jsonparse import JsonSyntaxError, parse_json
from openclaw_mcp.jscompat.jsonstrict import parse_json_strict


@pytest.mark.parametrize(
    "text",
    ["9007199254740991", "9007199254740992", "9007199254740993", "-9007199254740993", "1" * 5000, "-0", "1e400", "0.1"],
)
def test_numbers_are_the_ones_json_parse_gives(text: str) -> None:
    ours = parse_json(text)
    exact = parse_json_strict(text)
    assert type(ours) is type(exact)
    assert ours == exact or (math.isnan(ours) and math.isnan(exact))
    assert math.copysign(1, ours) == math.copysign(1, exact)


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}'])
def test_non_json_constants_are_refused(text: str) -> None:
    with pytest.raises(JsonSyntaxError):
        parse_json(text)


def test_any_depth_is_read_without_a_recursion_error() -> None:
    depth = 100_000
    value = parse_json("[" * depth + "]" * depth)
    for _ in range(depth - 1):
        value = value[0]
    assert value == []


def test_a_hook_can_only_refuse_more() -> None:
    def unique(pairs: list[tuple[str, object]]) -> dict[str, object]:
        if len({key for key, _ in pairs}) != len(pairs):
            raise ValueError("duplicate key")
        return dict(pairs)

    assert parse_json('{"a": 1}', object_pairs_hook=unique) == {"a": 1}
    with pytest.raises(ValueError, match="duplicate key"):
        parse_json('{"a": 1, "a": 2}', object_pairs_hook=unique)
    with pytest.raises(JsonSyntaxError):
        parse_json("[NaN]", object_pairs_hook=unique)
    with pytest.raises(RecursionError):
        parse_json("[" * 100_000 + "]" * 100_000, object_pairs_hook=unique)
