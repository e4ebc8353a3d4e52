"""``Record``: frozen-dataclass behaviour without dataclass code generation."""

from __future__ import annotations

import dataclasses

import pytest

from openclaw_mcp.domain.record import Record


class Point(Record):
    x: int
    y: int = 0
    label: str | None = None


class Other(Record):
    x: int
    y: int = 0
    label: str | None = None


def test_construction_by_position_keyword_and_default() -> None:
    assert (Point(1).x, Point(1).y, Point(1).label) == (1, 0, None)
    assert Point(1, 2, "a") == Point(x=1, label="a", y=2)
    assert Point._fields == ("x", "y", "label")


def test_bad_arguments_raise_type_error() -> None:
    with pytest.raises(TypeError, match="missing argument 'x'"):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        Point(1, z=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="multiple values"):
        Point(1, x=2)  # type: ignore[misc]
    with pytest.raises(TypeError, match="takes 3 arguments"):
        Point(1, 2, "a", 4)  # type: ignore[call-arg]


def test_instances_are_frozen() -> None:
    point = Point(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del point.x


def test_equality_hash_and_repr_like_a_dataclass() -> None:
    assert Point(1, 2) == Point(1, 2)
    assert Point(1, 2) != Point(1, 3)
    assert Point(1) != Other(1)
    assert hash(Point(1, 2, "a")) == hash(Point(1, 2, "a"))
    assert len({Point(1), Point(1), Point(2)}) == 2
    assert repr(Point(1, label="a")) == "Point(x=1, y=0, label='a')"
