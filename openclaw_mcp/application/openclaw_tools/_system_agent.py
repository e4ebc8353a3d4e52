"""The ``openclaw`` (system agent) tool's executor (spec openclaw-tools.md §7; decisions D-OT3, D-OT4).

One call: parse the arguments into an operation (:mod:`openclaw_mcp.domain.openclaw_tools.system_agent`, over the
packaged schema's vocabulary), then by its class (§7.1):

* **navigation** — the fixed directive (§7.2), or with operator-only approval the operator handoff;
* **persistent** — the proposal/approval state machine (§7.4); nothing is ever applied here (the host applies
  an approved operation after the turn). ``plugin_activate_artifact`` is reviewed first through the injected
  ``artifact_reviewer``; without one (the default: this port cannot review plugin artifacts) the call is a
  tool error;
* **read** — answered in process (§7.3): ``agents``, ``models``, ``validate_config``, ``config_get``
  (redacted), ``config_schema``, ``gateway_status`` (``GET /healthz`` through :class:`GatewayHealthProbe`,
  900 ms), ``channels``, ``channel_info``, ``audit`` from the config and the environment; ``create_agent``
  with a model or a reserved id fails with the reference's error. D-OT4: ``status``, ``doctor``,
  ``plugin_list``, ``plugin_search`` return this port's own CLI text through the injected ``cli_text``
  (``openclaw mcp status``, ``openclaw doctor``, ``plugins list``/``plugins search <query>``: see
  ``entrypoints.openclaw_tools.cli_reads``), never written to stdout; a non-zero exit code makes the call
  fail as the reference's ``runtime.exit`` does.

Results: a text block and no ``isError`` for navigation, proposals and reads; argument errors are
``Tool error: <message>`` (secrets redacted) with ``isError``; read failures are ``<captured>\\nerror:
<message>`` with ``isError``. ``details`` are not part of the MCP result.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final, Literal

from openclaw_mcp.application.config_service import ConfigService
from openclaw_mcp.application.ports.gateway_health import GatewayHealthProbe
from openclaw_mcp.domain.catalog_text import format_error_message
from openclaw_mcp.domain.config_paths import PathError
from openclaw_mcp.domain.openclaw_tools.reference import ReferenceTexts
from openclaw_mcp.domain.openclaw_tools.system_agent import (
    Operation,
    SystemAgentActions,
    SystemAgentInputError,
    classify,
)
from openclaw_mcp.domain.openclaw_tools.system_agent_reads import (
    AUDIT_TEXT,
    create_agent_refusal,
    default_agent,
    default_model,
    format_agents,
    format_channel_info,
    format_channels,
    format_config_get,
    format_config_schema,
    format_config_validation,
    format_gateway_status,
    format_models,
    gateway_probe_target,
    shorten_home,
)
from openclaw_mcp.domain.openclaw_tools.system_agent_replies import ApprovalState, SystemAgentReplies
from openclaw_mcp.domain.plugin_tools.results import error_call_result
from openclaw_mcp.domain.redaction import redact_sensitive_text

__all__ = [
    "ArtifactReviewError",
    "ArtifactReviewer",
    "CliText",
    "Surface",
    "SystemAgentTool",
]

Surface = Literal["cli", "gateway"]
CliText = Callable[[Sequence[str]], Awaitable[tuple[int, str]]]
"""Runs one of this port's CLI commands in process (argv without the program name, e.g. ``["mcp", "status"]``,
``["doctor"]``, ``["plugins", "list"]``, ``["plugins", "search", <query>]``); returns its exit code and its
captured output (stdout and stderr in order, no trailing newline). Must not write to the process's stdout."""
ArtifactReviewer = Callable[[str, str], Awaitable[Mapping[str, Any]]]
"""Reviews a packed plugin artifact (absolute path, lower-case SHA-256) before it is proposed; returns the review
metadata or raises :class:`ArtifactReviewError`."""

HEALTH_TIMEOUT_S: Final = 0.9
_COMMAND_PROBES: Final = ("codex", "claude", "gemini")
_NO_ARTIFACT_REVIEW: Final = (
    "plugin_activate_artifact is not available in this port: it cannot review plugin artifacts. Install the "
    "artifact with `openclaw plugins install <path>` from a trusted shell."
)


class ArtifactReviewError(Exception):
    """A plugin artifact failed its review; ``str()`` is the tool error message."""


class _ReadFailure(Exception):
    def __init__(self, message: str, captured: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.captured = captured


def _text(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}]}


def _tool_error(message: str) -> dict[str, Any]:
    return error_call_result(f"Tool error: {redact_sensitive_text(message)}")


class SystemAgentTool:
    """``openclaw`` for one served process: the launch's agent and surface, the approval mode, and the
    per-process staged proposal (§7.4)."""

    def __init__(
        self,
        *,
        texts: ReferenceTexts,
        agent_id: str | None,
        surface: Surface,
        armed: bool,
        operator_only: bool,
        proposal: str | None,
        config_loader: Callable[[], ConfigService],
        health_probe: GatewayHealthProbe,
        cli_text: CliText,
        env: Mapping[str, str],
        home: str,
        command_found: Callable[[str], bool] | None = None,
        artifact_reviewer: ArtifactReviewer | None = None,
    ) -> None:
        """``texts`` are the packaged reference texts (the action vocabulary, the directives and approval
        texts); ``config_loader`` builds the read-only config service (e.g. the container's ``config_loader``),
        called once per read; ``env`` supplies the Gateway target variables and the API-key presence checks
        of ``models``; ``home`` shortens printed paths to ``~/…``; ``command_found`` tells ``models`` whether
        ``codex``/``claude``/``gemini`` are installed (absent: reported not found)."""
        self.agent_id = agent_id
        self._actions = SystemAgentActions.from_reference(texts)
        self._replies = SystemAgentReplies.from_reference(texts)
        self.surface: Surface = surface
        self._state = ApprovalState(proposal=proposal, armed=armed, operator_only=operator_only)
        self._config_loader = config_loader
        self._health = health_probe
        self._cli_text = cli_text
        self._env = env
        self._home = home
        self._command_found = command_found
        self._artifact_reviewer = artifact_reviewer

    @property
    def state(self) -> ApprovalState:
        """The current proposal state (staged hash, armed, operator-only)."""
        return self._state

    async def call(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """One ``tools/call`` of ``openclaw``: the MCP result dict."""
        params: Mapping[str, Any] = arguments if arguments is not None else {}
        try:
            operation = self._actions.parse_operation(params)
        except SystemAgentInputError as exc:
            return _tool_error(str(exc))
        kind = classify(operation)
        if kind == "navigation":
            return _text(self._replies.navigation_text(operation, operator_only=self._state.operator_only))
        if kind == "persistent":
            return await self._persistent(operation, approved=params.get("approved") is True)
        try:
            text = await self._read(operation)
        except _ReadFailure as exc:
            return error_call_result("\n".join(part for part in (exc.captured, f"error: {exc.message}") if part))
        return _text(text or "done")

    async def _persistent(self, operation: Operation, *, approved: bool) -> dict[str, Any]:
        step = self._replies.approval_step(self._state, operation, approved=approved)
        if step.kind == "review":
            if self._artifact_reviewer is None:
                return _tool_error(_NO_ARTIFACT_REVIEW)
            try:
                review = await self._artifact_reviewer(operation["path"], operation["sha256"])
            except ArtifactReviewError as exc:
                return _tool_error(str(exc))
            step = self._replies.propose(self._state, operation, review)  # the state may have moved during the review
        self._state = step.state
        return _text(step.text)

    # --- read actions (§7.3) ---------------------------------------------------------------------------

    async def _read(self, operation: Operation) -> str:
        kind = operation["kind"]
        if kind == "audit":
            return AUDIT_TEXT
        if kind == "config-schema":
            return format_config_schema(operation.get("path"))
        if kind == "create-agent":
            raise _ReadFailure(create_agent_refusal(operation))
        cli = _CLI_COMMANDS.get(kind)
        if cli is not None:
            return await self._run_cli([*cli, *([operation["query"]] if kind == "plugin-search" else [])])
        try:
            return await self._config_read(operation)
        except _ReadFailure:
            raise
        except Exception as exc:  # a read that fails (config store, probe) is the reference's error line
            raise _ReadFailure(format_error_message(exc)) from exc

    async def _run_cli(self, argv: Sequence[str]) -> str:
        code, output = await self._cli_text(argv)
        text = output.strip()
        if code != 0:
            raise _ReadFailure(f"openclaw operation exited with code {code}", text)
        return text

    async def _config_read(self, operation: Operation) -> str:
        service = self._config_loader()
        path = service.path
        text, analysis = await service.inspect()
        exists = text is not None
        shown = shorten_home(path, self._home)
        config: Mapping[str, Any] = analysis.document if analysis.valid else {}
        match operation["kind"]:
            case "config-validate":
                issues = [("" if issue.path == "<root>" else issue.display, issue.message) for issue in analysis.issues]
                return format_config_validation(shown, exists, issues)
            case "config-get":
                if not exists:
                    return f"Config missing: {shown}"
                try:
                    return format_config_get(analysis.document, operation["path"])
                except PathError as exc:
                    raise _ReadFailure(str(exc)) from exc
            case "agents":
                return format_agents(config, default_agent(config, self.agent_id), self._home)
            case "models":
                probe = self._command_found
                found = {name: bool(probe and probe(name)) for name in _COMMAND_PROBES}
                return format_models(default_model(config, self.agent_id), found, self._env)
            case "channel-list":
                return format_channels(config)
            case "channel-info":
                return format_channel_info(config, operation["channel"])
            case "gateway-status":
                target = gateway_probe_target(config, self._env, path)
                note = await self._health.healthy(target.http_url, HEALTH_TIMEOUT_S)
                return format_gateway_status(target, note, note is None)
            case _:
                return ""


_CLI_COMMANDS: Final[Mapping[str, tuple[str, ...]]] = {
    "status": ("mcp", "status"),
    "doctor": ("doctor",),
    "plugin-list": ("plugins", "list"),
    "plugin-search": ("plugins", "search"),
}
