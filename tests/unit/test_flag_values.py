from typing import Any

import pytest

from openclaw_mcp.domain.flag_values import (
    ValueProblem,
    parse_approval,
    parse_auth,
    parse_csv,
    parse_key_values,
    parse_seconds,
    parse_ssl_verify,
)


def test_csv_splits_trims_and_drops_empties() -> None:
    assert parse_csv("search, read_*,search,,") == ["search", "read_*", "search"]
    assert parse_csv(" , ,") is None
    assert parse_csv(None) is None


def test_key_values_split_on_the_first_equals_and_later_keys_win() -> None:
    assert parse_key_values(["A=1", "B=x=y", "A=2"], "--env") == {"A": "2", "B": "x=y"}
    assert parse_key_values([], "--env") is None


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("NOEQUALS", "--env entries must use KEY=VALUE."),
        ("=v", "--env entries must use KEY=VALUE."),
        (" =v", "--env entries must use a non-empty key."),
    ],
)
def test_key_values_reject_entries_without_a_key(entry: str, message: str) -> None:
    with pytest.raises(ValueProblem, match="^" + message.replace(".", r"\.") + "$"):
        parse_key_values([entry], "--env")


@pytest.mark.parametrize(
    ("text", "ms"),
    [("12", 12000), ("2.5", 2500), ("1e1", 10000), ("0.0001", 0.1), (" .5 ", 500), ("+3", 3000)],
)
def test_seconds_become_milliseconds_as_javascript_multiplies(text: str, ms: Any) -> None:
    assert parse_seconds(text, "--timeout") == ms


@pytest.mark.parametrize("text", ["0x10", "0", "-1", "abc", "Infinity", "", "1e400"])
def test_seconds_must_be_positive_finite_decimals(text: str) -> None:
    with pytest.raises(ValueProblem, match=r"^--timeout must be a positive number\.$"):
        parse_seconds(text, "--timeout")


def test_enumerated_flags_are_case_insensitive_and_trimmed() -> None:
    assert parse_approval(" Prompt ") == "prompt"
    assert parse_auth("OAuth") == "oauth"
    assert parse_auth("  ") is None
    assert parse_ssl_verify("FALSE") is False
    for fn, bad in ((parse_approval, "never"), (parse_auth, "basic"), (parse_ssl_verify, "yes")):
        with pytest.raises(ValueProblem):
            fn(bad)
