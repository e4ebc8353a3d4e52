"""The pure parts of the conformance client: scenario plans, the server definition, elicitation answers,
the login trigger and the command line (no network: the suite itself runs in tests/contract)."""

from __future__ import annotations

import pytest

from tests.conformance.client import (
    CLIENT_METADATA_URL,
    ScenarioPlan,
    accept_with_defaults,
    context_calls,
    main,
    needs_login,
    plan_for,
    server_definition,
)


def test_tools_call_scenario_calls_add_numbers_with_two_numbers() -> None:
    assert plan_for("tools_call") == ScenarioPlan(call=("add_numbers",), arguments={"a": 5, "b": 3})


def test_initialize_scenario_only_lists_tools() -> None:
    assert plan_for("initialize") == ScenarioPlan()


def test_auth_scenarios_use_oauth_and_call_the_first_listed_tool() -> None:
    plan = plan_for("auth/some-future-scenario")
    assert plan.oauth and plan.call_first_tool and plan.call == ()


def test_unknown_scenario_only_connects_and_lists() -> None:
    assert plan_for("something-new") == ScenarioPlan()
    assert plan_for(None) == ScenarioPlan()


def test_2026_scenarios_make_the_calls_their_servers_observe() -> None:
    assert plan_for("sep-2322-client-request-state").call == (
        "test_mrtr_echo_state",
        "test_mrtr_no_state",
        "test_mrtr_unrelated",
        "test_mrtr_no_result_type",
    )
    assert plan_for("http-custom-headers") == ScenarioPlan(context_calls=True)
    assert plan_for("http-invalid-tool-headers").call_all_tools
    assert plan_for("json-schema-2020-12-preservation").echo_schema == ("json_schema_echo", "json_schema_2020_12_tool")
    assert plan_for("request-metadata") == ScenarioPlan()


def test_context_tool_calls_are_read_in_order() -> None:
    context = {"toolCalls": [{"name": "a", "arguments": {"x": None}}, {"name": "b"}]}
    assert context_calls(context) == [("a", {"x": None}), ("b", {})]
    assert context_calls({}) == []
    with pytest.raises(ValueError, match="toolCalls"):
        context_calls({"toolCalls": [{"arguments": {}}]})


def test_server_definition_is_what_a_user_would_configure() -> None:
    assert server_definition("http://localhost:1/mcp", oauth=False) == {
        "url": "http://localhost:1/mcp",
        "transport": "streamable-http",
    }
    assert server_definition("http://localhost:1/mcp", oauth=True) == {
        "url": "http://localhost:1/mcp",
        "transport": "streamable-http",
        "auth": "oauth",
        "oauth": {"clientMetadataUrl": CLIENT_METADATA_URL},
    }


def test_elicitation_is_accepted_with_every_declared_default() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
            "verified": {"type": "boolean", "default": True},
            "nickname": {"type": "string"},
        },
    }
    assert accept_with_defaults(schema) == {
        "action": "accept",
        "content": {"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": True},
    }


def test_elicitation_without_properties_is_accepted_empty() -> None:
    assert accept_with_defaults(None) == {"action": "accept", "content": {}}
    assert accept_with_defaults({"type": "object"}) == {"action": "accept", "content": {}}


def test_login_is_triggered_by_the_runtimes_authorization_messages_only() -> None:
    assert needs_login(
        ValueError('MCP server "conformance" requires OAuth authorization. Run openclaw mcp login conformance.')
    )
    assert needs_login(
        ValueError(
            'MCP server "conformance" requires additional OAuth authorization. Run openclaw mcp login conformance.'
        )
    )
    assert not needs_login(ValueError("fetch failed"))


def test_missing_server_url_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([], {}) == 2
    assert capsys.readouterr().err == "usage: python -m tests.conformance.client <server-url>\n"


def test_invalid_context_fails_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    environ = {"MCP_CONFORMANCE_SCENARIO": "auth/pre-registration", "MCP_CONFORMANCE_CONTEXT": "{not json"}
    assert main(["http://127.0.0.1:9/mcp"], environ) == 1
    assert capsys.readouterr().err == (
        "conformance client (auth/pre-registration): MCP_CONFORMANCE_CONTEXT is not valid JSON\n"
    )


def test_refused_connection_fails_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["http://127.0.0.1:9/mcp"], {"MCP_CONFORMANCE_SCENARIO": "initialize"}) == 1
    err = capsys.readouterr().err
    assert err.startswith("conformance client (initialize): ")
    assert err.count("\n") == 1
    assert "Traceback" not in err
