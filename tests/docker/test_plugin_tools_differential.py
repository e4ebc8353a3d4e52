"""Differential: our ``openclaw-plugin-tools`` against the reference's ``dist/mcp/plugin-tools-serve.js``
(OpenClaw 2026.9.6; spec plugin-tools.md §2, §3.2, §4, §5, §12).

Both servers serve the test plugin ``hookplug``: the reference loads its JavaScript twin from
``tests/reference_cases/check/hookplug`` through ``plugins.load.paths``, ours finds the Python fixture plugin
through the ``openclaw_mcp.plugins`` entry point on ``PYTHONPATH`` (:data:`tests.fixtures.plugins.SITE`); both
configs enable ``plugins.entries.hookplug``. Each case (one config, one requested protocol version) starts ONE
process of each implementation — side by side, each with its own isolated HOME / state dir / config file — and
sends them the same requests one after the other over newline-delimited JSON-RPC on stdio. The reference also
serves its bundled plugin tools (``browser``, ``memory_search``, …); only the five hookplug tools are compared.

Compared exactly: the ``initialize`` result, the hookplug entries of ``tools/list`` (names only for the policy
cases), every ``tools/call`` result, the ``ping`` and ``resources/list`` responses, what ``echo_tool`` was
executed with, and the exit status on stdin EOF. Not compared: the error of a ``tools/call`` without ``name``
(decision D-PT2: our ``-32602`` against the reference's ``-32603`` with a zod issue list) — only that both
are JSON-RPC errors with a negative code.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.docker.gateway_harness import Reference, isolated_env, open_mcp_client, running_under_ci
from tests.fixtures.plugins import SITE
from tests.fixtures.reference_cases import CHECK

pytestmark = [pytest.mark.reference]

ROOT = Path(__file__).resolve().parents[2]
HOOKPLUG_JS = CHECK / "hookplug"
OURS = Path(sys.executable).parent / "openclaw-plugin-tools"
CASE_TIMEOUT_S = 120
HOOKPLUG_TOOLS = ("echo_tool", "fail_tool", "img_tool", "noschema_tool", "raw_tool")
_CALL_ID = re.compile(r"^mcp-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")

# label → tools/call params, sent in this order to both servers.
CALLS: dict[str, dict[str, Any]] = {
    "echo": {"name": "echo_tool", "arguments": {"text": "hi"}},
    "echo-without-arguments": {"name": "echo_tool"},
    "fail": {"name": "fail_tool", "arguments": {}},
    "img": {"name": "img_tool", "arguments": {}},
    "noschema": {"name": "noschema_tool", "arguments": {}},
    "raw": {"name": "raw_tool", "arguments": {}},
    "unknown": {"name": "nope", "arguments": {}},
    "cron-without-scheduler": {"name": "cron", "arguments": {}},
}


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    tools: dict[str, Any] | None
    protocol_version: str
    served: tuple[str, ...]  # the hookplug tools the spec says are served (§3.2 table)


CASES = [
    Case("no-tools-section", None, "2025-06-18", HOOKPLUG_TOOLS),
    Case("deny-echo", {"deny": ["echo_tool"]}, "2025-03-26", HOOKPLUG_TOOLS[1:]),
    Case("allow-echo", {"allow": ["echo_tool"]}, "2024-11-05", HOOKPLUG_TOOLS),
]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one server answered; responses are whole JSON-RPC messages without ``jsonrpc`` and ``id``."""

    initialize: dict[str, Any]
    tools: list[dict[str, Any]]  # the hookplug entries of tools/list, in served order
    calls: dict[str, dict[str, Any]]
    nameless_call: dict[str, Any]
    ping: dict[str, Any]
    unknown_method: dict[str, Any]
    echo_executions: list[dict[str, Any]]  # {"id": tool call id, "params": ...} from the plugin's log
    returncode: int | None
    stderr: str


def _bare(message: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in message.items() if key not in ("jsonrpc", "id")}


def _config(case: Case, *, reference: bool) -> dict[str, Any]:
    plugins: dict[str, Any] = {"entries": {"hookplug": {"enabled": True}}}
    if reference:
        plugins = {"load": {"paths": [str(HOOKPLUG_JS)]}, **plugins}
    config: dict[str, Any] = {"plugins": plugins}
    if case.tools is not None:
        config["tools"] = case.tools
    return config


def _echo_executions(log: Path) -> list[dict[str, Any]]:
    if not log.is_file():
        return []
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [{"id": entry["id"], "params": entry["params"]} for entry in entries if entry.get("exec") == "echo_tool"]


async def _session(command: list[str], state: Path, case: Case, *, reference: bool, path: str | None) -> Outcome:
    state.mkdir(parents=True)
    (state / "openclaw.json").write_text(json.dumps(_config(case, reference=reference), indent=2) + "\n")
    log = state / "hookplug-log.jsonl"
    extra = {"HOOKPLUG_LOG": str(log)} | ({} if reference else {"PYTHONPATH": str(SITE)})
    env = isolated_env(state, path=path, extra=extra)
    name = "reference" if reference else "ours"
    async with open_mcp_client(command, env, cwd=state, name=name) as client:
        initialize = await client.request(
            "initialize",
            {
                "protocolVersion": case.protocol_version,
                "capabilities": {},
                "clientInfo": {"name": "plugin-tools-differential", "version": "1"},
            },
        )
        assert "result" in initialize, (name, initialize, client.stderr_text)
        await client.notify("notifications/initialized")
        listed = await client.request("tools/list", {})
        assert "result" in listed, (name, listed, client.stderr_text)
        tools = [entry for entry in listed["result"]["tools"] if entry.get("name") in HOOKPLUG_TOOLS]
        calls = {label: _bare(await client.request("tools/call", params)) for label, params in CALLS.items()}
        nameless = _bare(await client.request("tools/call", {"arguments": {}}))
        ping = _bare(await client.request("ping"))
        unknown = _bare(await client.request("resources/list"))
        await client.close_stdin()
        returncode = await client.wait_exit()
    return Outcome(
        initialize=_bare(initialize),
        tools=tools,
        calls=calls,
        nameless_call=nameless,
        ping=ping,
        unknown_method=unknown,
        echo_executions=_echo_executions(log),
        returncode=returncode,
        stderr=client.stderr_text,
    )


async def _case(reference: Reference, serve: Path, case: Case, base: Path) -> tuple[Outcome, Outcome]:
    """One case: the reference and ours side by side, each on its own state dir."""
    found: dict[str, Outcome] = {}

    async def run(key: str, command: list[str], path: str | None) -> None:
        found[key] = await _session(command, base / case.name / key, case, reference=key == "reference", path=path)

    async with anyio.create_task_group() as tg:
        tg.start_soon(run, "reference", [str(reference.node), str(serve)], reference.path_env)
        tg.start_soon(run, "ours", [str(OURS)], None)
    return found["reference"], found["ours"]


async def _both(reference: Reference, base: Path) -> dict[str, tuple[Outcome, Outcome]]:
    """Every case through both servers, one case after another (ONE reference process per case)."""
    serve = reference.root / "node_modules" / "openclaw" / "dist" / "mcp" / "plugin-tools-serve.js"
    assert serve.is_file(), f"the reference has no {serve}"
    results: dict[str, tuple[Outcome, Outcome]] = {}
    for case in CASES:
        with anyio.fail_after(CASE_TIMEOUT_S):
            results[case.name] = await _case(reference, serve, case, base)
    return results


@pytest.fixture(scope="module")
def outcomes(reference: Reference) -> dict[str, tuple[Outcome, Outcome]]:
    """(reference, ours) per case name."""
    for needed in (HOOKPLUG_JS / "index.js", OURS):
        if not needed.is_file():
            reason = f"{needed} is missing"
            if running_under_ci():
                pytest.fail(f"CI=true but {reason}", pytrace=False)
            pytest.skip(reason)
    with tempfile.TemporaryDirectory(prefix="plugin-tools-diff-") as tmp:
        return anyio.run(_both, reference, Path(tmp))


def _case_params() -> list[Any]:
    return [pytest.param(case, id=case.name) for case in CASES]


@pytest.mark.parametrize("case", _case_params())
def test_the_initialize_result_matches_the_reference(case: Case, outcomes: dict[str, tuple[Outcome, Outcome]]) -> None:
    ref, ours = outcomes[case.name]
    assert ours.initialize == ref.initialize
    assert ref.initialize["result"]["protocolVersion"] == case.protocol_version
    assert ref.initialize["result"]["serverInfo"] == {"name": "openclaw-plugin-tools", "version": "2026.9.6"}


def test_the_hookplug_tool_entries_match_the_reference(outcomes: dict[str, tuple[Outcome, Outcome]]) -> None:
    ref, ours = outcomes["no-tools-section"]
    assert ours.tools == ref.tools
    assert [entry["name"] for entry in ref.tools] == list(HOOKPLUG_TOOLS)


@pytest.mark.parametrize("case", _case_params())
def test_the_tool_policy_serves_the_same_hookplug_tools_as_the_reference(
    case: Case, outcomes: dict[str, tuple[Outcome, Outcome]]
) -> None:
    ref, ours = outcomes[case.name]
    names = ([entry["name"] for entry in ref.tools], [entry["name"] for entry in ours.tools])
    assert names[1] == names[0]
    assert names[0] == list(case.served)


@pytest.mark.parametrize(
    ("case", "label"), [pytest.param(case, label, id=f"{case.name}-{label}") for case in CASES for label in CALLS]
)
def test_the_tool_call_result_matches_the_reference(
    case: Case, label: str, outcomes: dict[str, tuple[Outcome, Outcome]]
) -> None:
    ref, ours = outcomes[case.name]
    assert ours.calls[label] == ref.calls[label]
    assert "result" in ref.calls[label]


@pytest.mark.parametrize("case", _case_params())
def test_echo_tool_runs_with_the_same_params_and_an_mcp_call_id_as_in_the_reference(
    case: Case, outcomes: dict[str, tuple[Outcome, Outcome]]
) -> None:
    ref, ours = outcomes[case.name]
    assert [run["params"] for run in ours.echo_executions] == [run["params"] for run in ref.echo_executions]
    expected = [{"text": "hi"}, {}] if "echo_tool" in case.served else []
    assert [run["params"] for run in ref.echo_executions] == expected
    for run in (*ref.echo_executions, *ours.echo_executions):
        assert _CALL_ID.match(run["id"]), run


@pytest.mark.parametrize("case", _case_params())
def test_ping_and_an_unknown_method_answer_like_the_reference(
    case: Case, outcomes: dict[str, tuple[Outcome, Outcome]]
) -> None:
    ref, ours = outcomes[case.name]
    assert (ours.ping, ours.unknown_method) == (ref.ping, ref.unknown_method)
    assert ref.unknown_method == {"error": {"code": -32601, "message": "Method not found"}}


@pytest.mark.parametrize("case", _case_params())
def test_a_tools_call_without_a_name_is_a_json_rpc_error_in_both(
    case: Case, outcomes: dict[str, tuple[Outcome, Outcome]]
) -> None:
    for outcome in outcomes[case.name]:
        assert "result" not in outcome.nameless_call, outcome.nameless_call
        code = outcome.nameless_call["error"]["code"]
        assert isinstance(code, int) and code < 0


@pytest.mark.parametrize("case", _case_params())
def test_both_exit_zero_on_stdin_eof_without_reporting_an_empty_tool_list(
    case: Case, outcomes: dict[str, tuple[Outcome, Outcome]]
) -> None:
    ref, ours = outcomes[case.name]
    assert (ref.returncode, ours.returncode) == (0, 0), (ref.stderr, ours.stderr)
    for outcome in (ref, ours):
        assert "plugin-tools-serve: no plugin tools found" not in outcome.stderr
