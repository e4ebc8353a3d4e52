"""The ``openclaw`` (system agent) tool's operations (spec openclaw-tools.md §7.1, §7.4; D-OT3).

upstream: ``src/agents/tools/system-agent-tool.ts`` (``operationForAction``), ``src/system-agent/operations-parse.ts``
(``isPersistentSystemAgentOperation``), ``plugin-install-spec.ts``, ``operator-approval.ts``
(``hashSystemAgentOperation``).

* :class:`SystemAgentActions` — the action vocabulary read from the tool's packaged schema (case C of
  :class:`~.reference.ReferenceTexts`); its :meth:`~SystemAgentActions.parse_operation` turns the tool arguments
  into an operation ``{kind, …fields}`` (every value a string); argument errors are :class:`SystemAgentInputError`
  (``str()`` = the reference's message).
* :func:`classify` — ``"read"``, ``"navigation"`` or ``"persistent"`` (§7.1).
* :func:`operation_hash` — hex SHA-256 of the operation as key-sorted, whitespace-free JSON (§7.4).

The replies (navigation directives, the proposal/approval state machine) are :mod:`.system_agent_replies`; the
read actions' texts :mod:`.system_agent_reads`.

Deviation: ``plugin_install`` accepts a non-``clawhub:`` spec only when the reference's bundled or official
catalog lists it; this port has no such catalog, so such specs fail closed with the reference's own
"installs only ClawHub, bundled, or official-catalog plugins" message.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from openclaw_mcp.domain.openclaw_tools.reference import ReferenceTexts
from openclaw_mcp.domain.tool_policy import normalize_agent_id
from openclaw_mcp.jscompat.jsjson import js_string
from openclaw_mcp.jscompat.text import JS_WHITESPACE, js_trim, utf16_len

__all__ = [
    "NAVIGATION_KINDS",
    "PERSISTENT_KINDS",
    "RESERVED_AGENT_IDS",
    "Operation",
    "OperationClass",
    "SystemAgentActions",
    "SystemAgentInputError",
    "classify",
    "operation_hash",
    "reserved_agent_id",
]

Operation = dict[str, str]
OperationClass = Literal["read", "navigation", "persistent"]

RESERVED_AGENT_IDS: Final = frozenset({"openclaw", "crestodian"})
"""The system agents' roster ids (normalised): ``create_agent`` refuses them."""

NAVIGATION_KINDS: Final = frozenset(
    {
        "channel-setup",
        "skills-setup",
        "search-setup",
        "gateway-config-setup",
        "memory-import",
        "model-setup",
        "model-accounts",
        "open-setup",
        "open-tui",
    }
)
PERSISTENT_KINDS: Final = frozenset(
    {
        "set-default-model",
        "config-set",
        "config-set-ref",
        "setup",
        "plugin-install",
        "plugin-activate-artifact",
        "plugin-uninstall",
        "create-team",
        "create-agent",
        "gateway-start",
        "gateway-stop",
        "gateway-restart",
    }
)
"""Kinds that change state; ``create-agent`` only without ``model`` and with a non-reserved id."""

_SIMPLE_KINDS: Final = {
    "status": "status",
    "models": "models",
    "agents": "agents",
    "channels": "channel-list",
    "audit": "audit",
    "validate_config": "config-validate",
    "doctor": "doctor",
    "gateway_status": "gateway-status",
    "plugin_list": "plugin-list",
    "configure_skills": "skills-setup",
    "configure_search": "search-setup",
    "configure_gateway": "gateway-config-setup",
    "import_memory": "memory-import",
    "manage_model_accounts": "model-accounts",
    "gateway_start": "gateway-start",
    "gateway_stop": "gateway-stop",
    "gateway_restart": "gateway-restart",
}
_SPEC_SOURCE_PREFIX: Final = re.compile(r"(?:\.{1,2}/|/|~/|file:|git(?:\+ssh|\+https)?:|https?:)", re.IGNORECASE)
_ARTIFACT_SUFFIX: Final = re.compile(r"\.(?:tgz|tar\.gz)\Z")
_SHA256: Final = re.compile(r"[a-f0-9]{64}")
_ARTIFACT_PATH_MAX: Final = 2048
_CAMEL_RUN: Final = re.compile(r"([A-Z]+)([A-Z][a-z])")
_CAMEL: Final = re.compile(r"([a-z0-9])([A-Z])")

_ARTIFACT_ERROR: Final = (
    "openclaw: plugin_activate_artifact requires an absolute packed .tgz path and its exact SHA256 from "
    "openclaw plugins pack"
)


class SystemAgentInputError(ValueError):
    """An argument the tool refuses (the reference's ``ToolInputError``); ``str()`` is the message."""


# --- arguments → operation (§7.1) -------------------------------------------------------------------------


def _snake_case(key: str) -> str:
    return _CAMEL.sub(r"\1_\2", _CAMEL_RUN.sub(r"\1_\2", key)).lower()


def _raw(params: Mapping[str, Any], key: str) -> object:
    """The value under ``key``, else under its snake_case form (a present ``null`` counts as given)."""
    if key in params:
        return params[key]
    snake = _snake_case(key)
    return params[snake] if snake != key and snake in params else None


def _optional(params: Mapping[str, Any], key: str) -> str | None:
    """A string argument trimmed; ``None`` when absent, not a string or blank."""
    raw = _raw(params, key)
    if not isinstance(raw, str):
        return None
    return js_trim(raw) or None


def _required(params: Mapping[str, Any], name: str) -> str:
    value = _optional(params, name)
    if value is None:
        raise SystemAgentInputError(f'openclaw: "{name}" is required for this action')
    return value


def _with(kind: str, **fields: str | None) -> Operation:
    """``{kind, …fields}`` keeping only the fields with a value (already trimmed, non-blank)."""
    operation: Operation = {"kind": kind}
    operation.update({key: value for key, value in fields.items() if value})
    return operation


def _setup_target(params: Mapping[str, Any], targets: tuple[str, ...]) -> str:
    target = _optional(params, "target") or "guided"
    if target not in targets:
        raise SystemAgentInputError(f'openclaw: unknown setup target "{target}"')
    return target


def _plugin_spec_problem(spec: str) -> str | None:
    """``validateSystemAgentPluginInstallSpec`` (see the module docstring for the catalog deviation)."""
    trimmed = js_trim(spec)
    if not trimmed:
        return "Plugin install spec is required."
    if any(char in JS_WHITESPACE for char in trimmed):
        return "OpenClaw plugin install accepts one npm or ClawHub package spec."
    if _SPEC_SOURCE_PREFIX.match(trimmed):
        return "OpenClaw plugin install accepts npm or ClawHub package specs only."
    if not trimmed.lower().startswith("clawhub:"):
        return (
            "OpenClaw installs only ClawHub, bundled, or official-catalog plugins. Use `openclaw plugins install "
            "<spec>` in a trusted shell to review an arbitrary executable source."
        )
    return None


def _artifact(params: Mapping[str, Any]) -> Operation:
    path = _required(params, "path")
    sha256 = _required(params, "sha256").lower()
    if (
        not path.startswith("/")
        or utf16_len(path) > _ARTIFACT_PATH_MAX
        or not _ARTIFACT_SUFFIX.search(path)
        or not _SHA256.fullmatch(sha256)
    ):
        raise SystemAgentInputError(_ARTIFACT_ERROR)
    return {"kind": "plugin-activate-artifact", "path": path, "sha256": sha256}


def _create_agent(params: Mapping[str, Any], roles: tuple[str, ...]) -> Operation:
    raw_role = params.get("role")
    role = raw_role if isinstance(raw_role, str) and raw_role in roles else None
    if "role" in params and role is None:
        raise SystemAgentInputError(f"openclaw: unknown role; choose {', '.join(roles)}")
    workspace, name = _optional(params, "workspace"), _optional(params, "name")
    purpose, model = _optional(params, "purpose"), _optional(params, "model")
    return _with(
        "create-agent",
        agentId=_required(params, "agentId"),
        name=name,
        purpose=purpose,
        role=role,
        workspace=workspace,
        model=model,
    )


def _lower(value: str | None) -> str | None:
    return value.lower() if value is not None else None


def _operation_for_action(arguments: Mapping[str, Any], roles: tuple[str, ...], targets: tuple[str, ...]) -> Operation:
    action = _optional(arguments, "action")
    if action is None:
        raise SystemAgentInputError("action required")
    p = arguments
    simple = _SIMPLE_KINDS.get(action)
    if simple is not None:
        return {"kind": simple}
    match action:
        case "channel_info":
            return {"kind": "channel-info", "channel": _required(p, "channel").lower()}
        case "config_get":
            return {"kind": "config-get", "path": _required(p, "path")}
        case "config_schema":
            return _with("config-schema", path=_optional(p, "path"))
        case "connect_channel":
            return {"kind": "channel-setup", "channel": _required(p, "channel").lower()}
        case "configure_model_provider":
            return _with("model-setup", workspace=_optional(p, "workspace"))
        case "open_agent":
            return _with("open-tui", agentId=_optional(p, "agentId"), workspace=_optional(p, "workspace"))
        case "open_setup":
            target = _setup_target(p, targets)
            return _with("open-setup", target=target, channel=_lower(_optional(p, "channel")))
        case "plugin_search":
            return {"kind": "plugin-search", "query": _required(p, "query")}
        case "plugin_install":
            spec = _required(p, "spec")
            problem = _plugin_spec_problem(spec)
            if problem is not None:
                raise SystemAgentInputError(f"openclaw: {problem}")
            return {"kind": "plugin-install", "spec": spec}
        case "plugin_uninstall":
            return {"kind": "plugin-uninstall", "pluginId": _required(p, "pluginId")}
        case "plugin_activate_artifact":
            return _artifact(p)
        case "setup":
            return _with("setup", workspace=_optional(p, "workspace"), model=_optional(p, "model"))
        case "set_default_model":
            agent_id = _optional(p, "agentId")
            return _with("set-default-model", model=_required(p, "model"), agentId=agent_id)
        case "create_agent":
            return _create_agent(p, roles)
        case "create_team":
            return _with(
                "create-team",
                coordinatorId=_optional(p, "coordinatorId"),
                prefix=_optional(p, "prefix"),
                workspaceRoot=_optional(p, "workspaceRoot"),
            )
        case "config_set":
            return {"kind": "config-set", "path": _required(p, "path"), "value": _required(p, "value")}
        case "config_set_ref":
            return {
                "kind": "config-set-ref",
                "path": _required(p, "path"),
                "source": "env",
                "id": _required(p, "envVar"),
            }
        case _:
            raise SystemAgentInputError(f'openclaw: unknown action "{action}"')


@dataclass(frozen=True, slots=True)
class SystemAgentActions:
    """The ``openclaw`` tool's action vocabulary, read from its packaged ``tools/list`` schema (case C): the 34
    ``actions`` in the reference's schema order (§7.1), the ``create_agent`` roles and the ``open_setup``
    targets."""

    actions: tuple[str, ...]
    agent_roles: tuple[str, ...]
    setup_targets: tuple[str, ...]

    @classmethod
    def from_reference(cls, texts: ReferenceTexts) -> SystemAgentActions:
        """The enums of the ``openclaw`` input schema's ``action``, ``role`` and ``target`` properties."""
        properties = texts.tools["C"]["inputSchema"]["properties"]
        return cls(
            actions=tuple(properties["action"]["enum"]),
            agent_roles=tuple(properties["role"]["enum"]),
            setup_targets=tuple(properties["target"]["enum"]),
        )

    def parse_operation(self, arguments: Mapping[str, Any]) -> Operation:
        """``operationForAction``: the operation of one call (§7.1); raises :class:`SystemAgentInputError`.

        A non-string or blank ``action`` → ``action required``; strings are read under the camelCase name or
        its snake_case form, trimmed, blank = absent; channels are lower-cased; ``role`` must be one of
        :attr:`agent_roles` exactly (any present value, even ``null``, is checked)."""
        return _operation_for_action(arguments, self.agent_roles, self.setup_targets)


def reserved_agent_id(agent_id: str) -> bool:
    """Whether ``agent_id`` names a system agent (compared normalised)."""
    return normalize_agent_id(agent_id) in RESERVED_AGENT_IDS


def classify(operation: Mapping[str, str]) -> OperationClass:
    """§7.1: navigation, persistent, or read (``create-agent`` with a model or a reserved id is a read:
    it runs and fails with the §7.3 error)."""
    kind = operation["kind"]
    if kind in NAVIGATION_KINDS:
        return "navigation"
    if kind == "create-agent" and (operation.get("model") or reserved_agent_id(operation["agentId"])):
        return "read"
    return "persistent" if kind in PERSISTENT_KINDS else "read"


def operation_hash(operation: Mapping[str, str]) -> str:
    """§7.4: hex SHA-256 of the operation as JSON with sorted keys and no whitespace (``stableStringify``)."""
    body = ",".join(f"{js_string(key)}:{js_string(operation[key])}" for key in sorted(operation))
    return hashlib.sha256(("{" + body + "}").encode("utf-8")).hexdigest()
