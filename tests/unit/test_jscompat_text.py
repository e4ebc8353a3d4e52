"""``jscompat.text``: JavaScript whitespace, line terminators and UTF-16 code units."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openclaw_mcp.jscompat.text import (
    JS_LINE_TERMINATORS,
    JS_WHITESPACE,
    join_surrogate_pairs,
    js_trim,
    to_well_formed,
    utf16_key,
    utf16_len,
    utf16_truncate,
    utf16_units,
)

# Any code point, lone surrogates included (Python strings may hold them; JavaScript strings too).
_CODE_POINTS = st.integers(min_value=0, max_value=0x10FFFF).map(chr)
_ANY_TEXT = st.text(alphabet=_CODE_POINTS, max_size=30)
# Text as decoded JSON gives it: no surrogate code points (a pair is one astral character).
_SCALAR_TEXT = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=30)
# Text that mixes ASCII, the BMP and astral characters so that pairs and boundaries show up often.
_MIXED_TEXT = st.text(alphabet=st.sampled_from(["a", " ", "\xe9", "\uffff", "\U0001f600", "\U00010000"]), max_size=20)


def _is_js_whitespace(ch: str) -> bool:
    """ECMAScript WhiteSpace (TAB VT FF SP NBSP ZWNBSP and category Zs) or LineTerminator (LF CR LS PS)."""
    return ch in "\t\v\f \xa0\ufeff\n\r\u2028\u2029" or unicodedata.category(ch) == "Zs"


def _reference_trim(text: str) -> str:
    start, end = 0, len(text)
    while start < end and _is_js_whitespace(text[start]):
        start += 1
    while end > start and _is_js_whitespace(text[end - 1]):
        end -= 1
    return text[start:end]


def _encoded_units(text: str) -> list[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


# --- whitespace and line terminators ---


def test_js_whitespace_is_exactly_the_ecmascript_whitespace_and_line_terminators() -> None:
    expected = {chr(c) for c in range(0x110000) if _is_js_whitespace(chr(c))}
    assert set(JS_WHITESPACE) == expected
    assert len(JS_WHITESPACE) == len(expected)


def test_line_terminators_are_lf_cr_ls_ps() -> None:
    assert sorted(JS_LINE_TERMINATORS) == ["\n", "\r", "\u2028", "\u2029"]
    assert set(JS_LINE_TERMINATORS) <= set(JS_WHITESPACE)


@pytest.mark.parametrize(
    ("raw", "trimmed"),
    [
        ("  a b  ", "a b"),
        ("\ufeffx\ufeff", "x"),
        ("\u0085x\u0085", "\u0085x\u0085"),
        ("\x1cx", "\x1cx"),
        ("\u180ex", "\u180ex"),
        ("\u200bx", "\u200bx"),
        ("\u1680x\u2000\u200a\u202f\u205f\u3000\xa0\u2028\u2029\x0b\x0c", "x"),
    ],
)
def test_js_trim_strips_exactly_the_javascript_whitespace_set(raw: str, trimmed: str) -> None:
    assert js_trim(raw) == trimmed


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.one_of(st.sampled_from(JS_WHITESPACE + "\x1c\x1f\x85\u180e\u200b"), _CODE_POINTS)))
def test_js_trim_matches_the_reference_definition(text: str) -> None:
    assert js_trim(text) == _reference_trim(text)


# --- UTF-16 length, code units and order ---


@settings(max_examples=500, deadline=None)
@given(st.one_of(_ANY_TEXT, _MIXED_TEXT))
def test_utf16_len_counts_the_utf16_code_units(text: str) -> None:
    assert utf16_len(text) == len(text.encode("utf-16-le", "surrogatepass")) // 2


@settings(max_examples=500, deadline=None)
@given(st.one_of(_ANY_TEXT, _MIXED_TEXT))
def test_utf16_units_are_the_code_units_javascript_sees(text: str) -> None:
    units = utf16_units(text)
    assert units == _encoded_units(text)
    assert len(units) == utf16_len(text)
    assert all(0 <= unit <= 0xFFFF for unit in units)


def test_an_astral_character_is_two_code_units() -> None:
    assert utf16_units("a\U0001f600") == [0x61, 0xD83D, 0xDE00]
    assert utf16_len("a\U0001f600") == 3


def test_utf16_key_orders_by_code_units_not_code_points() -> None:
    # JavaScript: "\u{10000}" (D800 DC00) < "\uFFFF"; Python compares code points the other way round.
    assert utf16_key("\U00010000") < utf16_key("\uffff")
    assert "\U00010000" > "\uffff"
    assert sorted(["b", "\uffff", "\U0001f600", "a", ""], key=utf16_key) == ["", "a", "b", "\U0001f600", "\uffff"]


@settings(max_examples=500, deadline=None)
@given(st.one_of(_ANY_TEXT, _MIXED_TEXT), st.one_of(_ANY_TEXT, _MIXED_TEXT))
def test_utf16_key_order_equals_javascript_code_unit_order(left: str, right: str) -> None:
    left_units, right_units = utf16_units(left), utf16_units(right)
    assert (utf16_key(left) < utf16_key(right)) == (left_units < right_units)
    assert (utf16_key(left) == utf16_key(right)) == (left_units == right_units)


# --- truncation ---


@settings(max_examples=500, deadline=None)
@given(st.one_of(_SCALAR_TEXT, _MIXED_TEXT), st.integers(min_value=0, max_value=40))
def test_utf16_truncate_is_the_longest_prefix_within_the_limit_that_keeps_pairs_whole(text: str, limit: int) -> None:
    cut = utf16_truncate(text, limit)
    assert text.startswith(cut)
    assert utf16_len(cut) <= limit
    if cut != text:
        # one more character would exceed the limit (an astral character is never split in two)
        assert utf16_len(text[: len(cut) + 1]) > limit
    assert utf16_units(cut) == utf16_units(text)[: utf16_len(cut)]


def test_utf16_truncate_drops_a_pair_that_would_be_split() -> None:
    assert utf16_truncate("ab\U0001f600c", 3) == "ab"
    assert utf16_truncate("ab\U0001f600c", 4) == "ab\U0001f600"
    assert utf16_truncate("abc", 0) == ""
    assert utf16_truncate("abc", 5) == "abc"


# --- surrogates ---


def _split_pairs(text: str) -> str:
    """The same UTF-16 text with every astral character spelled as two surrogate code points."""
    return "".join(chr(unit) for unit in utf16_units(text))


@settings(max_examples=300, deadline=None)
@given(st.one_of(_SCALAR_TEXT, _MIXED_TEXT))
def test_join_surrogate_pairs_reverses_spelling_pairs_as_two_code_points(text: str) -> None:
    assert join_surrogate_pairs(_split_pairs(text)) == text


@settings(max_examples=300, deadline=None)
@given(_ANY_TEXT)
def test_join_surrogate_pairs_keeps_the_code_units(text: str) -> None:
    assert utf16_units(join_surrogate_pairs(text)) == utf16_units(text)


def test_lone_surrogates_stay_when_joined_and_become_replacement_characters_when_well_formed() -> None:
    text = "a\ud800b\udc00\ud83d\ude00"
    assert join_surrogate_pairs(text) == "a\ud800b\udc00\U0001f600"
    assert to_well_formed(text) == "a\ufffdb\ufffd\U0001f600"


@settings(max_examples=300, deadline=None)
@given(_ANY_TEXT)
def test_to_well_formed_leaves_no_surrogate_and_keeps_the_length(text: str) -> None:
    fixed = to_well_formed(text)
    assert not any("\ud800" <= ch <= "\udfff" for ch in fixed)
    assert utf16_len(fixed) == utf16_len(text)
    fixed.encode("utf-8")  # encodable: what Buffer.from(text) writes
