"""The ``openclaw`` (system agent) tool's read actions that this port answers from the config and the
environment alone (spec openclaw-tools.md §7.3; D-OT4): ``agents``, ``models``, ``validate_config``,
``config_get`` (redacted), ``config_schema``, ``channels``, ``channel_info``, ``gateway_status``, ``audit``, and
the ``create_agent`` refusals. Pure: the application reads the config and probes the Gateway, these functions
format what it found.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from openclaw_mcp.domain.config_doc import is_sensitive_path
from openclaw_mcp.domain.config_paths import get_at, parse_path
from openclaw_mcp.domain.openclaw_tools.system_agent import reserved_agent_id
from openclaw_mcp.domain.openclaw_tools.tool_gateway import (
    GatewayTargetError,
    ToolGateway,
    resolve_call_target,
    resolve_gateway_port,
)
from openclaw_mcp.domain.redaction import redact_sensitive_url
from openclaw_mcp.domain.tool_policy import normalize_agent_id, resolve_policy_agent_id
from openclaw_mcp.domain.tool_policy._agents import agent_entry, list_agent_entries
from openclaw_mcp.jscompat.jsjson import js_dumps, js_number
from openclaw_mcp.jscompat.text import js_trim, utf16_len, utf16_truncate

__all__ = [
    "AUDIT_TEXT",
    "CONFIG_OUTPUT_MAX",
    "REDACTED_VALUE",
    "GatewayProbeTarget",
    "agent_model",
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
    "redact_config",
    "shorten_home",
]

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
