"""Hermes (``~/.hermes/config.yaml``), following ``openclaw migrate hermes`` (runtime-projection §9.2).

Servers come from ``mcp_servers``, else ``mcp.servers``, else ``mcp``. Features OpenClaw cannot express
become manual-review lines ``manual:mcp-server-<kind>:<name>: …``. Env references stay ``${VAR}`` references
(OpenClaw substitutes them from its own environment; the Hermes ``.env`` is not read).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from openclaw_mcp.domain.interchange._shared import check_entry, import_server_table
from openclaw_mcp.domain.interchange.model import Imported, ImportedServer

__all__ = ["import_hermes"]

_COPIED: Final = ("enabled", "command", "args", "env", "headers", "cwd", "workingDirectory", "url",
                  "connectionTimeoutMs", "requestTimeoutMs", "sslVerify", "clientCert", "clientKey",
                  "supportsParallelToolCalls")  # fmt: skip
#: Hermes' snake_case spellings and the OpenClaw key each becomes (when the camelCase key is absent).
_RENAMED: Final = {"ssl_verify": "sslVerify", "client_cert": "clientCert", "client_key": "clientKey",
                   "supports_parallel_tool_calls": "supportsParallelToolCalls"}  # fmt: skip
_OAUTH_KEYS: Final = ("authProfileId", "scope", "redirectUrl", "clientMetadataUrl")
_HANDLED: Final = frozenset(_COPIED) | frozenset(_RENAMED) | {
    "transport", "type", "timeout", "connectTimeout", "connect_timeout", "auth", "oauth", "tools",
}  # fmt: skip


def _servers(document: Mapping[str, Any]) -> object:
    if "mcp_servers" in document:
        return document["mcp_servers"]
    mcp = document.get("mcp")
    if isinstance(mcp, Mapping) and "servers" in mcp:
        return mcp["servers"]
    return mcp


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _patterns(name: str, values: object, out: Imported, kind: str) -> list[str]:
    kept: list[str] = []
    for value in values if isinstance(values, list) else []:
        if not isinstance(value, str) or not value.strip():
            continue
        if "?" in value or "[" in value:
            out.manual.append(f'manual:mcp-server-tool-pattern:{name}: {kind} pattern "{value}" not supported, dropped')
            continue
        kept.append(value)
    return kept


def _scalar(value: object) -> bool:
    return isinstance(value, str | int | float | bool)


def _type_problem(raw: Mapping[str, Any]) -> str | None:
    """The first field of the wrong type (checked before anything copies or walks the entry)."""
    for key in ("command", "cwd", "workingDirectory", "url", "clientCert", "client_cert", "clientKey", "client_key"):
        if key in raw and raw[key] is not None and not isinstance(raw[key], str):
            return f"{key} must be a string"
    if "args" in raw and not (isinstance(raw["args"], list) and all(isinstance(item, str) for item in raw["args"])):
        return "args must be a list of strings"
    for key in ("env", "headers"):
        value = raw.get(key)
        if key in raw and not (
            isinstance(value, Mapping) and all(isinstance(k, str) and _scalar(v) for k, v in value.items())
        ):
            return f"{key} must be a mapping of strings"
    for key in ("enabled", "sslVerify", "ssl_verify", "supportsParallelToolCalls", "supports_parallel_tool_calls"):
        if key in raw and not isinstance(raw[key], bool):
            return f"{key} must be true or false"
    for key in ("connectionTimeoutMs", "requestTimeoutMs"):
        if key in raw and not _number(raw[key]):
            return f"{key} must be a number"
    return None


def _entry(file: str, name: str, raw: object, out: Imported) -> None:
    where = f"{file}: mcp_servers.{name}"
    if not isinstance(raw, Mapping):
        out.problems.append(f"{where}: expected a mapping")
        return
    problem = _type_problem(raw)
    if problem is not None:
        out.problems.append(f"{where}: {problem}")
        return
    server: dict[str, Any] = {key: raw[key] for key in _COPIED if key in raw}
    for key, target in _RENAMED.items():
        if key in raw and target not in server:
            server[target] = raw[key]
    if not any(isinstance(server.get(key), str) and server[key].strip() for key in ("command", "url")):
        out.manual.append(f"manual:mcp-server-no-target:{name}: neither command nor url, not imported")
        return
    transport = raw.get("transport", raw.get("type"))
    if transport is not None:
        text = transport.strip().lower() if isinstance(transport, str) else None
        mapped = {"http": "streamable-http", "streamable-http": "streamable-http", "sse": "sse", "stdio": "stdio"}
        if text not in mapped:
            out.problems.append(f'{where}: unknown transport "{transport}"')
            return
        server["transport"] = mapped[text]
    elif isinstance(raw.get("url"), str) and "command" not in raw:
        server["transport"] = "streamable-http"
    for key, target in (("connectTimeout", "connectionTimeoutMs"), ("connect_timeout", "connectionTimeoutMs"),
                        ("timeout", "requestTimeoutMs")):  # fmt: skip
        if key in raw and target not in server:
            if not _number(raw[key]):
                out.problems.append(f"{where}: {key} must be a number of seconds")
                return
            server[target] = raw[key] * 1000
    if raw.get("auth") == "oauth":
        server["auth"] = "oauth"
        oauth = raw.get("oauth")
        if isinstance(oauth, Mapping):
            kept = {key: oauth[key] for key in _OAUTH_KEYS if key in oauth}
            if kept:
                server["oauth"] = kept
    elif "auth" in raw:
        out.manual.append(f'manual:mcp-server-auth:{name}: auth "{raw["auth"]}" not supported')
    tools = raw.get("tools")
    if isinstance(tools, Mapping):
        include = _patterns(name, tools.get("include"), out, "include")
        exclude = _patterns(name, tools.get("exclude"), out, "exclude")
        if tools.get("resources") is False:
            exclude += ["resources_list", "resources_read"]
        if tools.get("prompts") is False:
            exclude += ["prompts_list", "prompts_get"]
        tool_filter = {k: v for k, v in (("include", include), ("exclude", exclude)) if v}
        if tool_filter:
            server["toolFilter"] = tool_filter
    for key in raw:
        if key not in _HANDLED:
            out.manual.append(f"manual:mcp-server-{key}:{name}: Hermes setting {key} has no OpenClaw equivalent")
    if not check_entry(where, server, out.problems):
        return
    out.servers.append(ImportedServer(name, server, where, "Hermes config.yaml"))


def import_hermes(file: str, document: object) -> Imported:
    return import_server_table(file, document, _servers, _entry, document_kind="YAML mapping", table_kind="mapping")
