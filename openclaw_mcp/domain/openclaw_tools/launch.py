"""What an ``openclaw-tools`` launch serves (spec openclaw-tools.md §1.2, §1.3; upstream
``src/mcp/openclaw-tools-serve-config.ts``, ``openclaw-tools-serve.ts``): the tool selection of
``$OPENCLAW_TOOLS_MCP_TOOLS``, the ``openclaw`` tool's surface and approval state, and the session context the
``automations`` tool is bound to.

Pure functions of ``argv`` and an environment mapping; a bad launch raises
:class:`~openclaw_mcp.domain.plugin_tools.launch.LaunchError` with the reference's text (printed after
``openclaw-tools-serve: ``, exit 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from openclaw_mcp.domain.plugin_tools.launch import (
    SESSION_KEY_ENV,
    LaunchError,
    parse_agent_id_flag,
    resolve_session_context,
)
from openclaw_mcp.domain.tool_policy import normalize_agent_id
from openclaw_mcp.jscompat.text import js_trim, js_trim_or_none

__all__ = [
    "APPROVAL_ARMED_ENV",
    "PROPOSAL_ENV",
    "SURFACE_ENV",
    "TOOLS_ENV",
    "TOOL_IDS",
    "Launch",
    "SystemAgentLaunch",
    "ToolId",
    "resolve_launch",
    "resolve_selection",
]

TOOLS_ENV: Final = "OPENCLAW_TOOLS_MCP_TOOLS"
SURFACE_ENV: Final = "OPENCLAW_TOOLS_MCP_SYSTEM_AGENT_SURFACE"
APPROVAL_ARMED_ENV: Final = "OPENCLAW_TOOLS_MCP_SYSTEM_AGENT_APPROVAL_ARMED"
PROPOSAL_ENV: Final = "OPENCLAW_TOOLS_MCP_SYSTEM_AGENT_PROPOSAL"
ToolId = Literal["cron", "openclaw"]
TOOL_IDS: Final[tuple[ToolId, ...]] = ("cron", "openclaw")


@dataclass(frozen=True, slots=True)
class SystemAgentLaunch:
    """The ``openclaw`` tool's launch state: surface, armed / operator-only approval, the staged proposal."""

    surface: Literal["cli", "gateway"] = "cli"
    armed: bool = False
    operator_only: bool = False
    proposal: str | None = None


@dataclass(frozen=True, slots=True)
class Launch:
    """A valid launch: the selection in order (duplicates kept), the flag's agent id, the session key (``None``
    without one) and the agent ``automations`` is bound to, and the ``openclaw`` tool's state when selected."""

    selection: tuple[ToolId, ...]
    agent_id: str | None
    session_key: str | None
    automations_agent_id: str | None
    system_agent: SystemAgentLaunch | None


def resolve_selection(env: Mapping[str, str]) -> tuple[ToolId, ...]:
    """``$OPENCLAW_TOOLS_MCP_TOOLS``: unset/blank → ``cron``; else a comma list of ``cron``/``openclaw``."""
    raw = js_trim(env.get(TOOLS_ENV, ""))
    if not raw:
        return ("cron",)
    entries = [piece for piece in (js_trim(part) for part in raw.split(",")) if piece]
    selection = tuple(tool for entry in entries for tool in TOOL_IDS if entry == tool)
    if not selection or len(selection) != len(entries):
        raise LaunchError(f"{TOOLS_ENV} must be a comma list of: {', '.join(TOOL_IDS)}")
    return selection


def _system_agent(env: Mapping[str, str]) -> SystemAgentLaunch:
    surface = js_trim(env.get(SURFACE_ENV, ""))
    if surface not in ("", "cli", "gateway"):
        raise LaunchError(f'{SURFACE_ENV} must be "cli" or "gateway"')
    armed = js_trim(env.get(APPROVAL_ARMED_ENV, ""))
    return SystemAgentLaunch(
        surface="gateway" if surface == "gateway" else "cli",
        armed=armed == "1",
        operator_only=armed == "operator-only",
        proposal=js_trim_or_none(env.get(PROPOSAL_ENV)),
    )


def resolve_launch(argv: Sequence[str], env: Mapping[str, str]) -> Launch:
    """§1.3 steps 2–3: the flag (its error wins), the selection, then each tool in selection order (the first
    failing one decides): ``openclaw`` parses the surface; ``cron`` needs the session key and checks the
    key/flag pairing (plugin-tools.md §1.3). An ``openclaw``-only selection never checks the pairing."""
    flag = parse_agent_id_flag(argv)
    selection = resolve_selection(env)
    session_key = js_trim_or_none(env.get(SESSION_KEY_ENV))
    system_agent: SystemAgentLaunch | None = None
    automations_agent: str | None = None
    for tool in selection:
        if tool == "openclaw":
            system_agent = system_agent or _system_agent(env)
        elif session_key is None:
            raise LaunchError(f"{SESSION_KEY_ENV} is required")
        else:
            automations_agent = resolve_session_context(argv, env).agent_id
    return Launch(
        selection=selection,
        agent_id=normalize_agent_id(flag) if flag else None,
        session_key=session_key,
        automations_agent_id=automations_agent,
        system_agent=system_agent,
    )
