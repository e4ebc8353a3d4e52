"""Codex (``${CODEX_HOME:-~/.codex}/config.toml``): ``[mcp_servers.<name>]`` tables.

Export maps each server with ``domain.projection.codex.normalize_codex`` (runtime-projection §3.2) and adds
``enabled = false`` for disabled servers. Codex expands no variables: secrets become ``env_vars`` (env entries
Codex forwards from its own environment), ``env_http_headers`` and ``bearer_token_env_var``; URL credentials
cannot be referenced and are dropped with a warning; a server whose arguments (or anything else) still hold
a secret is not exported (``secret_guard``). Import is the inverse (seconds → milliseconds,
``enabled_tools``/``disabled_tools`` → ``toolFilter``, ``default_tools_approval_mode`` →
``codex.defaultToolsApprovalMode``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from openclaw_mcp.domain.interchange._shared import check_entry, exportable, import_server_table
from openclaw_mcp.domain.interchange.model import Exported, Imported, ImportedServer, Variable
from openclaw_mcp.domain.interchange.refs import template_headers, template_url, whole_reference
from openclaw_mcp.domain.interchange.secret_guard import guard_entry
from openclaw_mcp.domain.projection.codex import is_requester_scoped, normalize_codex
from openclaw_mcp.jscompat.jsjson import js_to_string

__all__ = ["export_codex_entry", "import_codex"]

LABEL = "Codex"


def _env_text(value: object) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return js_to_string(value)
    return None


def export_codex_entry(
    name: str, server: Mapping[str, Any], token: str | None, include_secrets: bool, out: Exported
) -> dict[str, Any] | None:
    """The ``[mcp_servers.<name>]`` table; ``None`` (with a warning) for servers Codex cannot use. Raises
    ``CodexProjectionError`` for wildcard tool filters."""
    if is_requester_scoped(server):
        out.warnings.append(f'server "{name}": per-requester OAuth servers are never exported to Codex')
        return None
    ready = exportable(name, server, token, include_secrets, out)
    if ready is None:
        return None
    prepared, transport = ready
    if transport == "sse":
        out.warnings.append(f'server "{name}": Codex supports streamable HTTP only; the SSE URL is exported as url')
    work = dict(prepared)
    env = work.pop("env", None)
    headers = template_headers(name, work.get("headers"), include_secrets, out)
    if headers is None:
        work.pop("headers", None)
    else:
        work["headers"] = headers
    if isinstance(work.get("url"), str):
        work["url"] = template_url(name, work["url"], include_secrets, False, out, LABEL)
    if transport == "stdio":
        work.pop("url", None)
    else:
        work.pop("command", None)
    entry = normalize_codex(name, work)
    env_out: dict[str, str] = {}
    env_vars: list[str] = []
    for key, raw in env.items() if isinstance(env, Mapping) else ():
        value = _env_text(raw)
        if value is None:
            continue
        ref = whole_reference(value)
        if ref is None and include_secrets:
            env_out[str(key)] = value
            continue
        if ref is not None and ref != key:
            out.warnings.append(
                f'server "{name}": env {key} refers to ${{{ref}}}; Codex forwards {key} from its environment (env_vars)'
            )
        env_vars.append(str(key))
        out.add_variable(Variable(str(key), name, "env"))
    anchor = [key for key in entry if key in ("command", "cwd", "url", "args")]
    ordered: dict[str, Any] = {}
    if not anchor:
        _put_env(ordered, env_out, env_vars)
    for key, value in entry.items():
        ordered[key] = value
        if anchor and key == anchor[-1]:
            _put_env(ordered, env_out, env_vars)
    if server.get("enabled") is False:
        ordered["enabled"] = False
    if include_secrets:
        return ordered
    return guard_entry(name, ordered, LABEL, False, out)


def _put_env(ordered: dict[str, Any], env_out: dict[str, str], env_vars: list[str]) -> None:
    if env_out and "env" not in ordered:
        ordered["env"] = env_out
    if env_vars and "env_vars" not in ordered:
        ordered["env_vars"] = env_vars


def _seconds_to_ms(value: int | float) -> int | float:
    ms = value * 1000
    return int(ms) if float(ms).is_integer() else ms


_KNOWN = frozenset(
    {
        "command", "args", "env", "env_vars", "cwd", "url", "bearer_token_env_var", "http_headers",
        "env_http_headers", "startup_timeout_sec", "startup_timeout_ms", "tool_timeout_sec", "enabled",
        "enabled_tools", "disabled_tools", "default_tools_approval_mode", "supports_parallel_tool_calls",
    }
)  # fmt: skip


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_types(where: str, raw: Mapping[str, Any], problems: list[str]) -> None:
    for key in ("command", "cwd", "url", "bearer_token_env_var", "default_tools_approval_mode"):
        if key in raw and not isinstance(raw[key], str):
            problems.append(f"{where}: {key} must be a string")
    for key in ("args", "enabled_tools", "disabled_tools"):
        if key in raw and not (isinstance(raw[key], list) and all(isinstance(i, str) for i in raw[key])):
            problems.append(f"{where}: {key} must be an array of strings")
    if "env_vars" in raw and not (
        isinstance(raw["env_vars"], list)
        and all(
            isinstance(i, str) or (isinstance(i, Mapping) and isinstance(i.get("name"), str)) for i in raw["env_vars"]
        )
    ):
        problems.append(f"{where}: env_vars must be an array of variable names")
    for key in ("env", "http_headers", "env_http_headers"):
        if key in raw and not (isinstance(raw[key], Mapping) and all(isinstance(v, str) for v in raw[key].values())):
            problems.append(f"{where}: {key} must be a table of strings")
    for key in ("startup_timeout_sec", "startup_timeout_ms", "tool_timeout_sec"):
        if key in raw and not _number(raw[key]):
            problems.append(f"{where}: {key} must be a number")
    for key in ("enabled", "supports_parallel_tool_calls"):
        if key in raw and not isinstance(raw[key], bool):
            problems.append(f"{where}: {key} must be a boolean")


def _entry(file: str, name: str, raw: object, out: Imported) -> None:
    where = f"{file}: mcp_servers.{name}"
    if not isinstance(raw, Mapping):
        out.problems.append(f"{where}: expected a table")
        return
    before = len(out.problems)
    _check_types(where, raw, out.problems)
    if len(out.problems) > before:
        return
    for key in raw:
        if key not in _KNOWN:
            out.warnings.append(f'{where}: field "{key}" not imported')
    server: dict[str, Any] = {}
    for key in ("command", "args", "cwd", "url"):
        if key in raw:
            server[key] = list(raw[key]) if key == "args" else raw[key]
    env: dict[str, Any] = dict(raw.get("env") or {})
    for item in raw.get("env_vars") or []:
        var = item if isinstance(item, str) else item["name"]
        env.setdefault(var, f"${{{var}}}")
    if env:
        server["env"] = env
    if isinstance(raw.get("url"), str):
        server["transport"] = "streamable-http"  # Codex speaks streamable HTTP only
    headers: dict[str, Any] = dict(raw.get("http_headers") or {})
    for header, var in (raw.get("env_http_headers") or {}).items():
        headers[header] = f"${{{var}}}"
    if isinstance(raw.get("bearer_token_env_var"), str):
        headers["Authorization"] = f"Bearer ${{{raw['bearer_token_env_var']}}}"
    if headers:
        server["headers"] = headers
    if "startup_timeout_sec" in raw:
        server["connectionTimeoutMs"] = _seconds_to_ms(raw["startup_timeout_sec"])
    elif "startup_timeout_ms" in raw:
        server["connectionTimeoutMs"] = raw["startup_timeout_ms"]
    if "tool_timeout_sec" in raw:
        server["requestTimeoutMs"] = _seconds_to_ms(raw["tool_timeout_sec"])
    if "supports_parallel_tool_calls" in raw:
        server["supportsParallelToolCalls"] = raw["supports_parallel_tool_calls"]
    tool_filter = {
        target: list(raw[source])
        for source, target in (("enabled_tools", "include"), ("disabled_tools", "exclude"))
        if raw.get(source)
    }
    if tool_filter:
        server["toolFilter"] = tool_filter
    if "default_tools_approval_mode" in raw:
        server["codex"] = {"defaultToolsApprovalMode": raw["default_tools_approval_mode"]}
    if raw.get("enabled") is False:
        server["enabled"] = False
    if not check_entry(where, server, out.problems):
        return
    out.servers.append(ImportedServer(name, server, where, "Codex config.toml"))


def import_codex(file: str, document: object) -> Imported:
    """Every ``[mcp_servers.<name>]`` table of a parsed ``config.toml``."""
    return import_server_table(
        file, document, lambda doc: doc.get("mcp_servers"), _entry, document_kind="TOML document", table_kind="table"
    )
