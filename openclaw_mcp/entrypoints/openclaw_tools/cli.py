"""``openclaw-tools [--openclaw-agent-id <id>]``: the command, its composition root and its lifecycle (spec
openclaw-tools.md §1, §3, §8, D-OT1).

Order (§1.3): the flag (its error wins), the selection, each selected tool's launch checks; only with a session
key the config (an invalid config prints the invalid-config block, exit 1) and the requester policies (§3).
Logging goes to stderr only (secrets redacted); stdout carries MCP frames only. Any error prints
``openclaw-tools-serve: <message>`` and exits 1. stdin end, SIGINT and SIGTERM close gracefully: reading stops,
in-flight calls settle unanswered (at most :data:`DRAIN_TIMEOUT_S`), exit 0.

* :func:`run_openclaw_tools` — the whole command as a coroutine over a container and injectable stdio;
* :func:`main` — the console script.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from openclaw_mcp.entrypoints.containers import Container
from openclaw_mcp.entrypoints.serve.transport import ByteSink, ByteSource
from openclaw_mcp.entrypoints.stdio_process import Stderr, load_config_document
from openclaw_mcp.entrypoints.tools_stdio import (
    DRAIN_TIMEOUT_S,
    ToolsServer,
    console_main,
    run_tools_server,
    serve_stdio,
)

if TYPE_CHECKING:
    from openclaw_mcp.application.openclaw_tools._service import BuiltinTool
    from openclaw_mcp.application.ports.gateway_health import GatewayHealthProbe
    from openclaw_mcp.domain.openclaw_tools.launch import Launch

__all__ = ["DRAIN_TIMEOUT_S", "FAILURE_PREFIX", "SERVER_INFO", "main", "run_openclaw_tools"]

FAILURE_PREFIX: Final = "openclaw-tools-serve: "
SERVER_INFO: Final = {"name": "openclaw-tools", "version": "2026.9.6"}
"""``version`` is the OpenClaw compatibility version (D-OT1, as D-PT1)."""


class _LazyHealthProbe:
    """The container's Gateway health probe, built on the first ``gateway_status`` (its HTTP client stack is not
    imported at start-up: spawn → ``initialize`` stays fast)."""

    def __init__(self, container: Container) -> None:
        self._container = container

    async def healthy(self, http_url: str, timeout_s: float) -> str | None:
        probe: GatewayHealthProbe = self._container.gateway_health()
        return await probe.healthy(http_url, timeout_s)


def _build_tools(
    launch: Launch, config: dict[str, Any], config_path: str, env: Mapping[str, str], err: Stderr, container: Container
) -> list[BuiltinTool]:
    from openclaw_mcp.application.openclaw_tools._automations import AutomationsTool
    from openclaw_mcp.application.openclaw_tools._service import BuiltinTool
    from openclaw_mcp.application.openclaw_tools._system_agent import SystemAgentTool
    from openclaw_mcp.domain.openclaw_tools.catalog import automations_entry, system_agent_entry
    from openclaw_mcp.entrypoints.openclaw_tools.cli_reads import find_command, make_cli_text
    from openclaw_mcp.entrypoints.openclaw_tools.texts import load_reference_texts
    from openclaw_mcp.entrypoints.paths import resolve_home

    texts = load_reference_texts()
    tools: list[BuiltinTool] = []
    for tool_id in launch.selection:
        if tool_id == "cron":
            assert launch.session_key is not None and launch.automations_agent_id is not None
            automations = AutomationsTool(
                session_key=launch.session_key,
                agent_id=launch.automations_agent_id,
                config=config,
                config_path=config_path,
                env=env,
                caller=container.gateway_caller(),
                log=err.redacted,
                device_identities=container.device_identity_store(),
            )
            tools.append(BuiltinTool(automations_entry(texts, config), automations.call))
        else:
            state = launch.system_agent
            assert state is not None
            system_agent = SystemAgentTool(
                texts=texts,
                agent_id=launch.agent_id,
                surface=state.surface,
                armed=state.armed,
                operator_only=state.operator_only,
                proposal=state.proposal,
                config_loader=lambda: container.config_loader(warn=err.redacted),
                health_probe=_LazyHealthProbe(container),
                cli_text=make_cli_text(env),
                env=env,
                home=resolve_home(env),
                command_found=functools.partial(find_command, env=env),
            )
            tools.append(BuiltinTool(system_agent_entry(texts), system_agent.call))
    return tools


async def _serve(
    env: Mapping[str, str],
    argv: Sequence[str],
    err: Stderr,
    container: Container,
    stdin: ByteSource | None,
    stdout: ByteSink | None,
    handle_signals: bool,
) -> int:
    from openclaw_mcp.application.openclaw_tools._service import OpenclawToolsService
    from openclaw_mcp.domain.openclaw_tools.launch import resolve_launch
    from openclaw_mcp.domain.plugin_tools.launch import LaunchError
    from openclaw_mcp.domain.tool_policy import allowed_by_policies, requester_tool_policies

    try:
        launch = resolve_launch(argv, env)
    except LaunchError as exc:
        err.raw(FAILURE_PREFIX + str(exc))
        return 1
    config: dict[str, Any] = {}
    config_path: str = container.settings().config_path
    if launch.session_key is not None:
        loaded = await load_config_document(container, env, err)
        if isinstance(loaded, int):
            return loaded
        config, config_path = loaded
    tools = _build_tools(launch, config, config_path, env, err, container)
    if launch.session_key is not None:
        policies = requester_tool_policies(config, launch.session_key)
        tools = [tool for tool in tools if allowed_by_policies(tool.name, policies)]
    audit = container.audit_trail(warn=err.redacted)  # None when OPENCLAW_MCP_AUDIT=off
    if audit is not None:
        from openclaw_mcp.application.audit import AuditSubject

        audit = audit.with_subject(AuditSubject(launch.agent_id, launch.session_key, server=SERVER_INFO["name"]))
    service = OpenclawToolsService(tools, audit=audit)
    server = ToolsServer(
        SERVER_INFO, service.list_tools, lambda name, arguments, _cancel: service.call(name, arguments)
    )
    return await serve_stdio(
        server,
        stdin=stdin,
        stdout=stdout,
        handle_signals=handle_signals,
        drain_timeout=DRAIN_TIMEOUT_S,
        telemetry=container.telemetry(),
    )


run_openclaw_tools: Final = functools.partial(run_tools_server, FAILURE_PREFIX, _serve)
"""``run_openclaw_tools(argv, env, *, stdin=, stdout=, stderr=, container=, handle_signals=)`` → the exit status
(:func:`~openclaw_mcp.entrypoints.tools_stdio.run_tools_server`)."""


def main(argv: Sequence[str] | None = None) -> None:
    """The ``openclaw-tools`` console script (``-h``/``--help``: usage, exit 0; unknown flag: exit 2)."""
    from openclaw_mcp.entrypoints.tools_usage import OPENCLAW_TOOLS_USAGE

    console_main(run_openclaw_tools, argv, ("openclaw-tools", OPENCLAW_TOOLS_USAGE))
