"""``openclaw-plugin-tools [--openclaw-agent-id <id>]``: the command, its composition root and its lifecycle
(spec plugin-tools.md §1, §10 D-PT4).

Order: the launch context (flag and ``$OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY``), the config (an invalid config
prints the invalid-config block, exit 1), the plugins (entry points, from the container), their tools under
the tool policy; no tool → ``plugin-tools-serve: no plugin tools found`` and the server still serves. Logging
goes to stderr only (secrets redacted); stdout carries MCP frames only. Any other error prints
``plugin-tools-serve: <message>`` and exits 1. stdin end, SIGINT and SIGTERM close gracefully: reading stops,
in-flight calls settle unanswered (at most :data:`DRAIN_TIMEOUT_S`), exit 0. Plugin code that outlives its
deadline (a hook or a factory that refuses to stop) never keeps the process alive: once serving is over, the
process ends within :data:`SHUTDOWN_GRACE_S` whatever still runs (:func:`stdio_process.exit_deadline`).

* :func:`run_plugin_tools` — the whole command as a coroutine over a container and injectable stdio;
* :func:`main` — the console script.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Mapping, Sequence
from typing import Final

from openclaw_mcp.entrypoints.containers import Container
from openclaw_mcp.entrypoints.serve.transport import ByteSink, ByteSource
from openclaw_mcp.entrypoints.stdio_process import Stderr, exit_deadline, load_config_document
from openclaw_mcp.entrypoints.tools_stdio import DRAIN_TIMEOUT_S, console_main, run_tools_server, serve_stdio

__all__ = [
    "DRAIN_TIMEOUT_S",
    "FAILURE_PREFIX",
    "NO_TOOLS_LINE",
    "SHUTDOWN_GRACE_S",
    "STUCK_AT_EXIT_LINE",
    "main",
    "run_plugin_tools",
]

FAILURE_PREFIX: Final = "plugin-tools-serve: "
NO_TOOLS_LINE: Final = "plugin-tools-serve: no plugin tools found"
SHUTDOWN_GRACE_S: Final = 2.0
"""How long the process may take to end once serving is over (decision: the MCP SDK's stdio client gives a
server 2 s after closing its stdin before SIGTERM; well-behaved teardown takes milliseconds)."""
STUCK_AT_EXIT_LINE: Final = "plugin-tools-serve: plugin code did not stop at shutdown; exiting"


async def _serve(
    env: Mapping[str, str],
    argv: Sequence[str],
    err: Stderr,
    container: Container,
    stdin: ByteSource | None,
    stdout: ByteSink | None,
    handle_signals: bool,
) -> int:
    from openclaw_mcp.application.plugin_tools import PluginToolsService, ToolFactoryContext, collect_plugin_tools
    from openclaw_mcp.domain.plugin_tools.launch import LaunchError, resolve_session_context
    from openclaw_mcp.domain.tool_policy import plugin_tools_policy
    from openclaw_mcp.entrypoints.plugin_tools.server import PluginToolsServer

    try:
        context = resolve_session_context(argv, env)
    except LaunchError as exc:
        err.raw(FAILURE_PREFIX + str(exc))
        return 1
    loaded = await load_config_document(container, env, err)
    if isinstance(loaded, int):
        return loaded
    config = loaded[0]
    plugins = container.plugin_source().load(log=err.redacted)
    collected = await collect_plugin_tools(
        plugins,
        config=config,
        policy=plugin_tools_policy(config, agent_id=context.agent_id, session_key=context.session_key),
        context=ToolFactoryContext(config, agent_id=context.agent_id, session_key=context.session_key),
        log=err.redacted,
    )
    if not collected.tools:
        err.raw(NO_TOOLS_LINE)
    audit = container.audit_trail(warn=err.redacted)  # None when OPENCLAW_MCP_AUDIT=off
    if audit is not None:
        from openclaw_mcp.application.audit import AuditSubject
        from openclaw_mcp.entrypoints.plugin_tools.server import SERVER_INFO

        audit = audit.with_subject(AuditSubject(context.agent_id, context.session_key, server=SERVER_INFO["name"]))
    service = PluginToolsService(collected.tools, collected.hooks, log=err.redacted, audit=audit)
    server = PluginToolsServer(service)
    return await serve_stdio(
        server,
        stdin=stdin,
        stdout=stdout,
        handle_signals=handle_signals,
        drain_timeout=DRAIN_TIMEOUT_S,
        telemetry=container.telemetry(),
    )


run_plugin_tools: Final = functools.partial(run_tools_server, FAILURE_PREFIX, _serve)
"""``run_plugin_tools(argv, env, *, stdin=, stdout=, stderr=, container=, handle_signals=)`` → the exit status
(:func:`~openclaw_mcp.entrypoints.tools_stdio.run_tools_server`)."""


async def _run_process(argv: list[str], env: dict[str, str]) -> int:
    """:func:`run_plugin_tools` as the process: its exit status is final once it returns, so the event loop's
    teardown (which waits for every task, a stuck plugin task included) gets :data:`SHUTDOWN_GRACE_S`."""
    status = await run_plugin_tools(argv, env)
    exit_deadline(status, SHUTDOWN_GRACE_S, stderr=Stderr(sys.stderr), line=STUCK_AT_EXIT_LINE)
    return status


def main(argv: Sequence[str] | None = None) -> None:
    """The ``openclaw-plugin-tools`` console script (``-h``/``--help``: usage, exit 0; unknown flag: exit 2)."""
    from openclaw_mcp.entrypoints.tools_usage import PLUGIN_TOOLS_USAGE

    console_main(_run_process, argv, ("openclaw-plugin-tools", PLUGIN_TOOLS_USAGE))
