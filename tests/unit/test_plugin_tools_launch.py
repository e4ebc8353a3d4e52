"""Who ``openclaw-plugin-tools`` runs for (plugin-tools.md §1.2, §1.3): the ``--openclaw-agent-id`` flag rules,
the agent id normalisation it goes through, the session key from the environment and every row of the §1.3
table with the reference's exact error texts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from openclaw_mcp.domain.plugin_tools.launch import (
    AGENT_ID_FLAG,
    AGENT_ID_FLAG_ERROR,
    SESSION_KEY_ENV,
    SESSION_KEY_ERROR,
    LaunchError,
    SessionContext,
    parse_agent_id_flag,
    resolve_session_context,
)
from openclaw_mcp.jscompat.text import js_trim

FLAG = "--openclaw-agent-id"
ENV = "OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY"
FLAG_TEXT = "--openclaw-agent-id requires one OpenClaw agent owner"
KEY_TEXT = (
    "OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY must be a canonical agent session key or have a matching explicit "
    "OpenClaw owner"
)


def launch(flag: str | None = None, key: str | None = None) -> SessionContext:
    argv = [] if flag is None else [FLAG, flag]
    env = {} if key is None else {ENV: key}
    return resolve_session_context(argv, env)


def test_the_constants_are_the_reference_texts() -> None:
    assert AGENT_ID_FLAG == FLAG
    assert SESSION_KEY_ENV == ENV
    assert AGENT_ID_FLAG_ERROR == FLAG_TEXT
    assert SESSION_KEY_ERROR == KEY_TEXT


def test_the_launch_error_is_a_value_error_whose_text_is_the_message() -> None:
    with pytest.raises(LaunchError) as caught:
        resolve_session_context([FLAG], {})
    assert isinstance(caught.value, ValueError)
    assert str(caught.value) == FLAG_TEXT


# --- §1.3 table ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "flag", "expected"),
    [
        pytest.param(None, None, SessionContext(), id="absent-absent"),
        pytest.param("agent:main:main", None, SessionContext("agent:main:main", "main"), id="canonical-absent"),
        pytest.param("agent:main:main", "main", SessionContext("agent:main:main", "main"), id="canonical-same"),
        pytest.param("main", "ops", SessionContext("main", "ops"), id="opaque-explicit"),
    ],
)
def test_each_accepted_row_of_the_session_table_gives_its_context(
    key: str | None, flag: str | None, expected: SessionContext
) -> None:
    assert launch(flag, key) == expected


@pytest.mark.parametrize(
    ("key", "flag"),
    [
        pytest.param("agent:main:main", "other", id="owner-mismatch"),
        pytest.param(None, "main", id="flag-without-key"),
        pytest.param("main", None, id="opaque-without-owner"),
    ],
)
def test_each_rejected_row_of_the_session_table_raises_the_session_key_text(key: str | None, flag: str | None) -> None:
    with pytest.raises(LaunchError) as caught:
        launch(flag, key)
    assert str(caught.value) == KEY_TEXT


def test_the_empty_context_has_no_session_key_and_no_agent() -> None:
    context = launch()
    assert context.empty
    assert (context.session_key, context.agent_id) == (None, None)
    assert not launch(None, "agent:main:main").empty


@pytest.mark.parametrize("key", ["", "   ", "\t\n", "\u00a0\ufeff"])
def test_a_blank_session_key_counts_as_absent(key: str) -> None:
    assert launch(None, key) == SessionContext()
    with pytest.raises(LaunchError, match=r"^OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY must be"):
        launch("main", key)


def test_the_session_key_is_trimmed_but_keeps_its_case() -> None:
    assert launch(None, "  agent:Ops:Main  ") == SessionContext("agent:Ops:Main", "ops")


def test_the_agent_comes_from_a_canonical_key_when_no_flag_is_given() -> None:
    assert launch(None, "agent:ops:telegram:direct:42") == SessionContext("agent:ops:telegram:direct:42", "ops")


def test_an_explicit_owner_matches_the_key_after_normalisation() -> None:
    assert launch("OPS", "agent:Ops:main") == SessionContext("agent:Ops:main", "ops")


@pytest.mark.parametrize("key", ["agent::main", "agent:main", "agent:main:", "agent:main::x", "session:main:main"])
def test_a_non_canonical_key_needs_an_explicit_owner(key: str) -> None:
    with pytest.raises(LaunchError) as caught:
        launch(None, key)
    assert str(caught.value) == KEY_TEXT
    assert launch("ops", key) == SessionContext(key, "ops")


def test_other_environment_variables_do_not_matter() -> None:
    env = {"OPENCLAW_AGENT_ID": "ops", "OPENCLAW_SESSION_KEY": "agent:ops:main"}
    assert resolve_session_context([], env) == SessionContext()


# --- §1.2 the flag -------------------------------------------------------------------------------------


def test_without_the_flag_there_is_no_explicit_agent() -> None:
    assert parse_agent_id_flag([]) is None
    assert parse_agent_id_flag(["--verbose", "ops", "serve"]) is None


def test_the_flag_value_is_returned_trimmed_but_not_normalised() -> None:
    assert parse_agent_id_flag([FLAG, "  My Agent  "]) == "My Agent"


def test_arguments_around_the_flag_are_ignored() -> None:
    assert parse_agent_id_flag(["--verbose", "x", FLAG, "ops", "--other", "y"]) == "ops"
    assert launch("ops", "main") == resolve_session_context(["serve", FLAG, "ops", "--debug"], {ENV: "main"})


def test_a_flag_written_with_an_equals_sign_is_not_the_flag() -> None:
    assert parse_agent_id_flag([f"{FLAG}=ops"]) is None
    assert resolve_session_context([f"{FLAG}=ops"], {}) == SessionContext()


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param([FLAG], id="last-argument"),
        pytest.param(["serve", FLAG], id="last-after-others"),
        pytest.param([FLAG, ""], id="empty"),
        pytest.param([FLAG, "   "], id="blank"),
        pytest.param([FLAG, "--other"], id="dashed"),
        pytest.param([FLAG, "  --other"], id="dashed-after-trim"),
        pytest.param([FLAG, "--"], id="double-dash"),
        pytest.param([FLAG, FLAG], id="flag-as-value"),
        pytest.param([FLAG, "main", FLAG, "main"], id="repeated-same"),
        pytest.param([FLAG, "main", "x", FLAG, "ops"], id="repeated-later"),
    ],
)
def test_a_bad_flag_raises_the_flag_text_whatever_the_session_key(argv: list[str]) -> None:
    for env in ({}, {ENV: "agent:main:main"}, {ENV: "main"}):
        with pytest.raises(LaunchError) as caught:
            resolve_session_context(argv, env)
        assert str(caught.value) == FLAG_TEXT


def test_a_value_with_a_single_leading_dash_is_a_value() -> None:
    assert parse_agent_id_flag([FLAG, "-ops"]) == "-ops"
    assert launch("-ops", "main") == SessionContext("main", "ops")


@pytest.mark.parametrize(
    ("value", "agent_id"),
    [
        pytest.param("OPS", "ops", id="uppercase"),
        pytest.param("Main", "main", id="mixed-case"),
        pytest.param("  ops  ", "ops", id="trimmed"),
        pytest.param("a_b-c9", "a_b-c9", id="canonical"),
        pytest.param("My Agent!!", "my-agent", id="invalid-chars-run"),
        pytest.param("a..b", "a-b", id="invalid-run-one-dash"),
        pytest.param("_ops", "_ops", id="leading-underscore-kept"),
        pytest.param("-ops", "ops", id="leading-dash-removed"),
        pytest.param("ops-", "ops-", id="canonical-trailing-dash-kept"),
        pytest.param("ops!", "ops", id="trailing-dash-removed"),
        pytest.param("Ünïcode", "n-code", id="non-ascii"),
        pytest.param("a" * 64, "a" * 64, id="64-canonical"),
        pytest.param("a" * 70, "a" * 64, id="cut-to-64"),
        pytest.param("!" + "b" * 70, "b" * 64, id="edge-removed-then-cut"),
        pytest.param("a" * 63 + "!" + "b" * 5, "a" * 63 + "-", id="cut-after-edge-removal"),
        pytest.param("!!!", "main", id="empty-becomes-main"),
        pytest.param("日本", "main", id="only-non-ascii-becomes-main"),
    ],
)
def test_the_flag_value_is_normalised_as_an_agent_id(value: str, agent_id: str) -> None:
    assert launch(value, "main") == SessionContext("main", agent_id)


def test_a_normalised_flag_must_still_match_the_keys_owner() -> None:
    assert launch("!!!", "agent:main:main") == SessionContext("agent:main:main", "main")
    with pytest.raises(LaunchError) as caught:
        launch("My Agent", "agent:my_agent:main")
    assert str(caught.value) == KEY_TEXT
    assert launch("My Agent", "agent:my-agent:main") == SessionContext("agent:my-agent:main", "my-agent")


# --- properties ----------------------------------------------------------------------------------------

_WORDS = st.sampled_from([FLAG, "--", "-", "", " ", "main", "ops", "agent:main:main", "OPS", "!!"])
_ARGV = st.lists(st.one_of(_WORDS, st.text(max_size=12)), max_size=6)
_KEYS = st.one_of(
    st.none(),
    st.sampled_from(["", " ", "main", "agent:main:main", "agent:ops:x", "agent::x", "agent:main:"]),
    st.text(max_size=20),
    st.builds(lambda a, r: f"agent:{a}:{r}", st.text(max_size=8), st.text(max_size=8)),
)


@given(argv=_ARGV, key=_KEYS, extra=st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=3))
def test_resolving_any_launch_either_gives_a_consistent_context_or_raises_a_launch_error(
    argv: list[str], key: str | None, extra: dict[str, str]
) -> None:
    env = {**extra, ENV: key} if key is not None else {k: v for k, v in extra.items() if k != ENV}
    try:
        context = resolve_session_context(argv, env)
    except LaunchError as exc:
        assert str(exc) in {FLAG_TEXT, KEY_TEXT}
        return
    if context.empty:
        assert context.agent_id is None
    else:
        assert context.session_key and context.session_key == js_trim(context.session_key)
        assert context.agent_id and len(context.agent_id) <= 64


@given(value=st.text(max_size=80))
def test_any_accepted_flag_value_normalises_to_a_valid_agent_id(value: str) -> None:
    try:
        context = resolve_session_context([FLAG, value], {ENV: "opaque"})
    except LaunchError as exc:
        assert str(exc) == FLAG_TEXT
        return
    assert context.agent_id is not None
    assert 1 <= len(context.agent_id) <= 64
    assert context.agent_id == context.agent_id.lower()


@pytest.mark.parametrize(("value", "agent_id"), [("ſ", "main"), ("ı", "main"), ("İ", "i"), ("aſb", "a-b")])
def test_non_ascii_letters_that_case_fold_to_ascii_are_invalid_agent_id_characters(value: str, agent_id: str) -> None:
    assert launch(value, "main") == SessionContext("main", agent_id)
