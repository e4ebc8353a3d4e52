import random

import pyuca
from hypothesis import given, settings
from hypothesis import strategies as st

from openclaw_mcp.adapters.collation import UcaCollator


def test_orders_names_like_the_reference_list_command() -> None:
    names = ["b", "A", "a", "_u", "Zed", "été", "10", "2", "with space", "dots.name", "ab"]
    assert UcaCollator().sort(names) == [
        "_u",
        "10",
        "2",
        "a",
        "A",
        "ab",
        "b",
        "dots.name",
        "été",
        "with space",
        "Zed",
    ]


def test_ascii_fast_path_gives_the_same_keys_as_pyuca() -> None:
    reference = pyuca.Collator()
    collator = UcaCollator()
    rng = random.Random(7)
    alphabet = [chr(c) for c in range(0x20, 0x7F)]
    for _ in range(3000):
        name = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        assert collator.key(name) == reference.sort_key(name), name


def test_sort_is_stable_for_equal_keys() -> None:
    collator = UcaCollator()
    assert collator.sort(["b", "a", "b"]) == ["a", "b", "b"]


def test_non_ascii_names_sort_between_ascii_ones() -> None:
    assert UcaCollator().sort(["z", "日本", "é", "e", "f"]) == ["e", "é", "f", "z", "日本"]


_PYUCA = pyuca.Collator()
_OURS = UcaCollator()  # one instance: a fresh one per example would rebuild pyuca's table for non-ASCII names
_ASCII = st.text(alphabet=st.characters(min_codepoint=0x00, max_codepoint=0x7F), max_size=16)


@given(_ASCII)
@settings(max_examples=400, deadline=None)
def test_property_ascii_keys_equal_pyuca(name: str) -> None:
    assert _OURS.key(name) == _PYUCA.sort_key(name)


@given(st.lists(st.one_of(_ASCII, st.text(max_size=8)), max_size=12))
@settings(max_examples=300, deadline=None)
def test_property_sort_order_equals_pyuca(names: list[str]) -> None:
    assert _OURS.sort(names) == sorted(names, key=_PYUCA.sort_key)
