"""The ``openclaw`` (system agent) tool's pure rules (spec openclaw-tools.md §7.1, §7.2, §7.4; D-OT3).

upstream: ``src/agents/tools/system-agent-tool.ts`` (``operationForAction``, the navigation directives, the
proposal/approval gate), ``src/system-agent/operations-parse.ts`` (``isPersistentSystemAgentOperation``,
the operator handoffs), ``plugin-install-spec.ts``, ``operator-approval.ts`` (``hashSystemAgentOperation``).

* :func:`parse_operation` — the tool arguments → an operation ``{kind, …fields}`` (every value a string);
  argument errors are :class:`SystemAgentInputError` (``str()`` = the reference's message).
* :func:`classify` — ``"read"``, ``"navigation"`` or ``"persistent"`` (§7.1).
* :func:`operation_hash` — hex SHA-256 of the operation as key-sorted, whitespace-free JSON (§7.4).
* :func:`navigation_text` — the directive of a navigation operation, or the operator handoff (§7.2).
* :class:`ApprovalState`, :func:`approval_step`, :func:`propose` — the per-process proposal state machine
  (§7.4 steps 1–4) as functions returning the new state and the reply.

The fixed texts come from :mod:`.reference_texts` (generated from the reference's dump); templates are
derived from them by cutting at the literal hash or channel they contain, never typed here. Texts that are
not in the dump (argument errors, the artifact review line and its late conflict) are the reference's.

Deviation: ``plugin_install`` accepts a non-``clawhub:`` spec only when the reference's bundled or official
catalog lists it; this port has no such catalog, so such specs fail closed with the reference's own
"installs only ClawHub, bundled, or official-catalog plugins" message.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final, Literal
from urllib.parse import urlsplit

from openclaw_mcp.domain.config_doc import is_sensitive_path
from openclaw_mcp.domain.config_paths import get_at, parse_path
from openclaw_mcp.domain.openclaw_tools.gateway_target import (
    GatewayTargetError,
    ToolGateway,
    resolve_call_target,
    resolve_gateway_port,
)
from openclaw_mcp.domain.openclaw_tools.reference_texts import OPENCLAW_TEXTS, TOOLS
from openclaw_mcp.domain.redaction import redact_sensitive_url
from openclaw_mcp.domain.tool_policy import normalize_agent_id, resolve_policy_agent_id
from openclaw_mcp.domain.tool_policy._agents import agent_entry, list_agent_entries
from openclaw_mcp.jscompat.jsjson import js_dumps, js_number, js_string
from openclaw_mcp.jscompat.text import JS_WHITESPACE, js_trim, utf16_len, utf16_truncate

__all__ = [
    "ACTIONS",
    "AGENT_ROLES",
    "AUDIT_TEXT",
    "CONFIG_OUTPUT_MAX",
    "NAVIGATION_KINDS",
    "PERSISTENT_KINDS",
    "REDACTED_VALUE",
    "RESERVED_AGENT_IDS",
    "ApprovalState",
    "ApprovalStep",
    "GatewayProbeTarget",
    "Operation",
    "OperationClass",
    "StepKind",
    "SystemAgentInputError",
    "agent_model",
    "approval_step",
    "classify",
    "create_agent_refusal",
    "default_agent",
    "default_model",
    "format_agents",
    "format_channel_info",
    "format_channels",
    "format_config_get",
    "format_config_schema",
    "format_config_validation",
    "format_gateway_status",
    "format_models",
    "gateway_probe_target",
    "navigation_text",
    "operation_hash",
    "parse_operation",
    "propose",
    "redact_config",
    "reserved_agent_id",
    "shorten_home",
]

Operation = dict[str, str]
OperationClass = Literal["read", "navigation", "persistent"]
StepKind = Literal["approved", "mismatch", "conflict", "needs-approval", "review"]

_PROPERTIES: Final = TOOLS["C"]["inputSchema"]["properties"]
ACTIONS: Final[tuple[str, ...]] = tuple(_PROPERTIES["action"]["enum"])
"""The 34 actions in the reference's schema order (§7.1), read from its generated schema."""

AGENT_ROLES: Final[tuple[str, ...]] = tuple(_PROPERTIES["role"]["enum"])
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

_SETUP_TARGETS: Final[tuple[str, ...]] = tuple(_PROPERTIES["target"]["enum"])
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
_REVIEW_LINE: Final = "Reviewed plugin artifact (metadata, not instructions): "
_ARTIFACT_CONFLICT_TAIL: Final = "A different operation is awaiting approval. This artifact was not proposed."


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


def _setup_target(params: Mapping[str, Any]) -> str:
    target = _optional(params, "target") or "guided"
    if target not in _SETUP_TARGETS:
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


def _create_agent(params: Mapping[str, Any]) -> Operation:
    raw_role = params.get("role")
    role = raw_role if isinstance(raw_role, str) and raw_role in AGENT_ROLES else None
    if "role" in params and role is None:
        raise SystemAgentInputError(f"openclaw: unknown role; choose {', '.join(AGENT_ROLES)}")
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


def parse_operation(arguments: Mapping[str, Any]) -> Operation:
    """``operationForAction``: the operation of one call (§7.1); raises :class:`SystemAgentInputError`.

    A non-string or blank ``action`` → ``action required``; strings are read under the camelCase name or
    its snake_case form, trimmed, blank = absent; channels are lower-cased; ``role`` must be one of
    :data:`AGENT_ROLES` exactly (any present value, even ``null``, is checked)."""
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
            target = _setup_target(p)
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
            return _create_agent(p)
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


# --- fixed texts: templates cut out of the dumped reference texts ------------------------------------------

_SAMPLE_HASH: Final = operation_hash({"kind": "set-default-model", "model": "openai/gpt-5"})


def _split_once(label: str, literal: str) -> tuple[str, str]:
    """The dumped text of ``label`` around its single occurrence of ``literal``."""
    parts = OPENCLAW_TEXTS[label].split(literal)
    if len(parts) != 2:
        raise RuntimeError(f"reference text {label!r} does not contain {literal!r} exactly once")
    return parts[0], parts[1]


def _proposal_template(label: str) -> tuple[str, str]:
    """``(prefix, tail)`` of a ``needs-approval:<hash>\\n<tail>`` text: the prefix before the hash, and what
    follows the hash's line."""
    before, after = _split_once(label, _SAMPLE_HASH)
    if not after.startswith("\n"):
        raise RuntimeError(f"reference text {label!r} has no line break after its hash")
    return before, after[1:]


_NEEDS_APPROVAL: Final = _proposal_template("plain:first-proposal")
_NEEDS_APPROVAL_OPERATOR: Final = _proposal_template("operator-only:first-proposal")
_CONFLICT: Final = _proposal_template("plain:other-operation")
_APPROVED: Final = OPENCLAW_TEXTS["armed:first-proposal"]
_MISMATCH: Final = OPENCLAW_TEXTS["armed:second-call"]
_OPERATOR_HANDOFF: Final = OPENCLAW_TEXTS["operator-only:open_agent"]
_CHANNEL_SETUP: Final = _split_once("plain:connect_channel:Telegram", "telegram")
_OPEN_SETUP_CHANNEL: Final = _split_once("plain:open_setup:channels:Slack", "slack")
_FIXED_DIRECTIVES: Final = {
    "skills-setup": OPENCLAW_TEXTS["plain:configure_skills"],
    "search-setup": OPENCLAW_TEXTS["plain:configure_search"],
    "gateway-config-setup": OPENCLAW_TEXTS["plain:configure_gateway"],
    "memory-import": OPENCLAW_TEXTS["plain:import_memory"],
    "model-setup": OPENCLAW_TEXTS["plain:configure_model_provider"],
    "model-accounts": OPENCLAW_TEXTS["plain:manage_model_accounts"],
    "open-tui": OPENCLAW_TEXTS["plain:open_agent"],
}
_OPEN_SETUP: Final = {
    "guided": OPENCLAW_TEXTS["plain:open_setup"],
    "classic": OPENCLAW_TEXTS["plain:open_setup:classic"],
    "channels": OPENCLAW_TEXTS["plain:open_setup:channels"],
    "search": OPENCLAW_TEXTS["plain:open_setup:search"],
    "gateway": OPENCLAW_TEXTS["plain:open_setup:gateway"],
}


def navigation_text(operation: Mapping[str, str], *, operator_only: bool) -> str:
    """§7.2: the directive for a navigation operation; with ``operator_only`` the one operator handoff."""
    if operator_only:
        return _OPERATOR_HANDOFF
    kind = operation["kind"]
    if kind == "channel-setup":
        return operation["channel"].join(_CHANNEL_SETUP)
    if kind == "open-setup":
        target, channel = operation["target"], operation.get("channel")
        if target == "channels" and channel:
            return channel.join(_OPEN_SETUP_CHANNEL)
        return _OPEN_SETUP[target]
    return _FIXED_DIRECTIVES[kind]


# --- proposals and approval (§7.4) --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ApprovalState:
    """Per-process state: the staged proposal hash ``P``, armed ``A``, operator-only ``O``."""

    proposal: str | None = None
    armed: bool = False
    operator_only: bool = False


@dataclass(frozen=True, slots=True)
class ApprovalStep:
    """The new state and the reply. ``kind == "review"``: the operation is a plugin artifact to review
    first (the reply is empty, the state unchanged); then call :func:`propose` with the review."""

    state: ApprovalState
    kind: StepKind
    text: str

    @property
    def needs_approval(self) -> bool:
        """The reply's ``details.needsApproval`` (everything but the approved directive)."""
        return self.kind != "approved"


def _conflict_text(staged: str) -> str:
    prefix, tail = _CONFLICT
    return f"{prefix}{staged}\n{tail}"


def approval_step(state: ApprovalState, operation: Mapping[str, str], *, approved: bool) -> ApprovalStep:
    """§7.4 steps 1–4 for a persistent operation (``approved`` = the argument was exactly ``true``)."""
    digest = operation_hash(operation)
    if approved and state.armed and state.proposal == digest:
        return ApprovalStep(replace(state, proposal=None), "approved", _APPROVED)
    if state.armed:
        return ApprovalStep(replace(state, proposal=None), "mismatch", _MISMATCH)
    if state.proposal is not None and state.proposal != digest:
        return ApprovalStep(state, "conflict", _conflict_text(state.proposal))
    if operation["kind"] == "plugin-activate-artifact":
        return ApprovalStep(state, "review", "")
    return propose(state, operation)


def propose(
    state: ApprovalState, operation: Mapping[str, str], review: Mapping[str, Any] | None = None
) -> ApprovalStep:
    """§7.4 step 4: stage the operation and ask for approval. With an artifact ``review`` (after an awaited
    review the state may have changed): another staged proposal → the artifact conflict reply; else the
    review line (``JSON.stringify`` of the review) goes before the approval hint."""
    digest = operation_hash(operation)
    if review is not None and state.proposal is not None and state.proposal != digest:
        prefix, _ = _CONFLICT
        return ApprovalStep(state, "conflict", f"{prefix}{state.proposal}\n{_ARTIFACT_CONFLICT_TAIL}")
    prefix, tail = _NEEDS_APPROVAL_OPERATOR if state.operator_only else _NEEDS_APPROVAL
    line = f"{_REVIEW_LINE}{js_dumps(review, None)}\n" if review is not None else ""
    return ApprovalStep(replace(state, proposal=digest), "needs-approval", f"{prefix}{digest}\n{line}{tail}")


# --- read actions (§7.3): the texts this port can produce from the config alone ----------------------------

CONFIG_OUTPUT_MAX: Final = 2000
REDACTED_VALUE: Final = "<redacted>"
AUDIT_TEXT: Final = (
    "Audit state: not kept by this port (the host that applies approved operations keeps the audit)\n"
    "Only applied writes/actions are recorded; discovery stays quiet."
)
"""Deviation: the reference names its SQLite audit store; this port applies nothing, so it keeps none."""


def shorten_home(path: str, home: str) -> str:
    """``shortenHomePath``: ``<home>/x`` → ``~/x``."""
    home = home.rstrip("/")
    if home and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home) :]
    return path


def _section(value: object, key: str) -> Mapping[str, Any]:
    inner = value.get(key) if isinstance(value, Mapping) else None
    return inner if isinstance(inner, Mapping) else {}


def _primary(model: object) -> str | None:
    """A model setting: a string, or an object's ``primary``; trimmed, blank = none."""
    if isinstance(model, Mapping):
        model = model.get("primary")
    return (js_trim(model) or None) if isinstance(model, str) else None


def agent_model(config: Mapping[str, Any], entry: Mapping[str, Any] | None) -> str | None:
    """The agent's primary model: its own ``model``, else ``agents.defaults.model``."""
    own = _primary(entry.get("model")) if entry is not None else None
    return own or _primary(_section(_section(config, "agents"), "defaults").get("model"))


def default_agent(config: Mapping[str, Any], agent_id: str | None) -> str | None:
    """The agent the tool runs for: the explicit ``--openclaw-agent-id``, else the configured default (a
    single ``default: true`` entry, the only entry, ``main`` without a roster); ``None`` when undecidable."""
    return resolve_policy_agent_id(config, agent_id, None)


def default_model(config: Mapping[str, Any], agent_id: str | None) -> str | None:
    """The default agent's primary model, else ``agents.defaults.model``."""
    agent = default_agent(config, agent_id)
    return agent_model(config, agent_entry(config, agent) if agent else None)


def format_agents(config: Mapping[str, Any], default_agent: str | None, home: str) -> str:
    """``agents``: ``Agents:`` then ``  - <id> | default | name=… | model=<model|not configured> |
    workspace=…`` per configured agent (ids normalised, duplicates dropped); without a roster one line for
    the default agent. Deviation: utility models are not shown."""
    entries = list_agent_entries(config)
    if not entries:
        entries = [{"id": default_agent or "main"}]
    lines, seen = ["Agents:"], set()
    for entry in entries:
        agent_id = normalize_agent_id(entry.get("id"))
        if agent_id in seen:
            continue
        seen.add(agent_id)
        name, workspace = entry.get("name"), entry.get("workspace")
        bits = [
            agent_id,
            "default" if agent_id == default_agent else "",
            f"name={name}" if isinstance(name, str) and name else "",
            f"model={agent_model(config, entry) or 'not configured'}",
            f"workspace={shorten_home(_expand_home(workspace, home), home)}"
            if isinstance(workspace, str) and workspace
            else "",
        ]
        lines.append("  - " + " | ".join(bit for bit in bits if bit))
    return "\n".join(lines)


def _expand_home(path: str, home: str) -> str:
    trimmed = js_trim(path)
    if trimmed == "~" or trimmed.startswith("~/"):
        return home.rstrip("/") + trimmed[1:]
    return trimmed


def format_models(default_model: str | None, found: Mapping[str, bool], env: Mapping[str, str]) -> str:
    """``models``: the default model, the local coding CLIs found, and whether the OpenAI / Anthropic API key
    variables are set. Deviation: setup/utility models are not shown."""

    def state(flag: bool) -> str:
        return "found" if flag else "not found"

    return "\n".join(
        [
            f"Default model: {default_model or 'not configured'}",
            f"Codex: {state(found.get('codex', False))}",
            f"Claude Code: {state(found.get('claude', False))}",
            f"Gemini CLI: {state(found.get('gemini', False))}",
            f"OpenAI key: {state(bool(js_trim(env.get('OPENAI_API_KEY') or '')))}",
            f"Anthropic key: {state(bool(js_trim(env.get('ANTHROPIC_API_KEY') or '')))}",
        ]
    )


def format_config_validation(shown_path: str, exists: bool, issues: list[tuple[str, str]]) -> str:
    """``validate_config``: ``Config missing|valid: <path>``, or ``Config invalid: <path>`` and one
    ``  - [<path>: ]<message>`` line per issue (``issues`` = (path, message), root path ``""``)."""
    if not exists:
        return f"Config missing: {shown_path}"
    if not issues:
        return f"Config valid: {shown_path}"
    lines = [f"Config invalid: {shown_path}"]
    lines += [f"  - {f'{path}: ' if path else ''}{message}" for path, message in issues]
    return "\n".join(lines)


def _redact(value: Any, path: list[str]) -> Any:
    if isinstance(value, Mapping):
        in_server = len(path) == 3 and path[:2] == ["mcp", "servers"]
        out: dict[str, Any] = {}
        for key, item in value.items():
            if in_server and key in ("env", "headers") and isinstance(item, Mapping):
                out[key] = {
                    name: REDACTED_VALUE if isinstance(entry, str | int | float) and entry != "" else entry
                    for name, entry in item.items()
                }
            elif in_server and key == "url" and isinstance(item, str):
                out[key] = REDACTED_VALUE if redact_sensitive_url(item) != item else item
            else:
                out[key] = _redact(item, [*path, key])
        return out
    if isinstance(value, list):
        return [_redact(item, path) for item in value]
    if isinstance(value, str) and value and is_sensitive_path(".".join(path)):
        return REDACTED_VALUE
    return value


def redact_config(document: Mapping[str, Any]) -> dict[str, Any]:
    """The config as the model may see it: non-empty strings at sensitive paths (token, password, secret,
    API key … — ``domain.config_doc.is_sensitive_path``), every ``mcp.servers.*.env``/``headers`` value and
    a server ``url`` with credentials become ``"<redacted>"``. Deviation: the reference also consults its
    schema's sensitivity hints; this port has the path rules only."""
    redacted = _redact(document, [])
    return redacted if isinstance(redacted, dict) else {}


def format_config_get(document: Mapping[str, Any], raw_path: str) -> str:
    """``config_get`` on an existing config: ``<path> = <2-space JSON>`` of the redacted value (cut after
    2000 UTF-16 units + ``\\n… (truncated)``), or the unset line. Raises ``ValueError`` (the path parser's
    ``PathError``) for a path that does not parse."""
    path = parse_path(raw_path)
    found, value = get_at(redact_config(document), path.keys)
    if not found:
        return f"{raw_path}: not set. Use `config schema {raw_path}` to see what is allowed."
    rendered = js_dumps(value, 2)
    if utf16_len(rendered) > CONFIG_OUTPUT_MAX:
        return f"{raw_path} = {utf16_truncate(rendered, CONFIG_OUTPUT_MAX)}\n… (truncated)"
    return f"{raw_path} = {rendered}"


def format_config_schema(path: str | None) -> str:
    """``config_schema``. Deviation: this port carries no copy of the reference's config schema."""
    shown = path or "."
    return (
        f'Config schema lookup is not available in this port (path "{shown}"). Use `config_get` to read the '
        "current values, or run `openclaw config schema` with the full OpenClaw CLI."
    )


def format_channels(config: Mapping[str, Any]) -> str:
    """``channels``: the channels configured under ``channels.<id>``, sorted. Deviation: the reference lists
    its channel catalog (labels included); this port has none."""
    ids = sorted(key for key, value in _section(config, "channels").items() if isinstance(value, Mapping))
    lines = ["Channels:", *(f"  - {channel}" for channel in ids)] if ids else ["Channels: none configured"]
    lines += ["", "Say `connect <channel>` to walk through setup (for example `connect telegram`)."]
    return "\n".join(lines)


def format_channel_info(config: Mapping[str, Any], channel: str) -> str:
    """``channel_info``: whether ``channels.<channel>`` is configured (enabled unless ``enabled: false``).
    Deviation: no catalog label, blurb, install state or docs link."""
    entry = _section(config, "channels").get(channel)
    configured = isinstance(entry, Mapping) and entry.get("enabled") is not False
    return "\n".join(
        [
            channel,
            f"Configured: {'yes' if configured else 'no'}",
            "",
            f"Say `connect {channel}` to set it up here, or `open channel wizard for {channel}` for the masked "
            "terminal wizard.",
        ]
    )


@dataclass(frozen=True, slots=True)
class GatewayProbeTarget:
    """What ``gateway_status`` reports and probes: the Gateway URL, its source, a configuration note, and
    the HTTP origin whose ``/healthz`` answers reachability."""

    url: str
    source: str
    note: str | None
    http_url: str


def gateway_probe_target(config: Mapping[str, Any], env: Mapping[str, str], config_path: str) -> GatewayProbeTarget:
    """The Gateway ``gateway_status`` checks: the one-shot call target (``OPENCLAW_GATEWAY_URL``, remote mode,
    ``ws(s)://127.0.0.1:<port>``); a target that cannot be used falls back to the loopback URL with its
    error as the note."""
    try:
        details = resolve_call_target(config, env, config_path, ToolGateway(None, None, "local", False)).details
        url, source, note = details.url, details.source, details.remote_fallback_note
    except GatewayTargetError as exc:
        url = f"ws://127.0.0.1:{js_number(resolve_gateway_port(config, env))}"
        source, note = "local loopback", exc.message
    return GatewayProbeTarget(url, source, note, _http_origin(url))


def _http_origin(url: str) -> str:
    http = "http:" + url[3:] if url.startswith("ws:") else "https:" + url[4:] if url.startswith("wss:") else url
    parts = urlsplit(http)
    return f"{parts.scheme}://{parts.netloc}"


def format_gateway_status(target: GatewayProbeTarget, probe_error: str | None, reachable: bool) -> str:
    """``Gateway: reachable|not reachable``, ``URL:``, ``Source:`` and ``Note:`` (the probe's error, else
    the target's note)."""
    note = probe_error or target.note
    lines = [
        f"Gateway: {'reachable' if reachable else 'not reachable'}",
        f"URL: {target.url}",
        f"Source: {target.source}",
    ]
    if note:
        lines.append(f"Note: {note}")
    return "\n".join(lines)


def create_agent_refusal(operation: Mapping[str, str]) -> str:
    """The error a ``create-agent`` read fails with: a reserved id, else an explicit model (§7.3)."""
    if reserved_agent_id(operation["agentId"]):
        return (
            f'Agent id "{normalize_agent_id(operation["agentId"])}" is reserved for the system agent. Choose a '
            "different agent id."
        )
    return (
        "OpenClaw cannot save an explicit per-agent model until that new route can be live-tested. Retry "
        "without `model`; the new agent inherits the verified default, then use `set_default_model` with "
        "agentId to live-test and save its own model."
    )
