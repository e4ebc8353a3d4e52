"""The JSON client formats (Claude Code, Claude Desktop, Cursor, VS Code, Gemini CLI): one entry each way.

A :class:`JsonFormat` says how a client spells an entry; :func:`export_entry` and :func:`import_entry` do the
work for all of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from openclaw_mcp.domain.interchange._shared import check_entry, exportable
from openclaw_mcp.domain.interchange.model import Exported, Imported, ImportedServer
from openclaw_mcp.domain.interchange.refs import (
    Syntax,
    from_client_syntax,
    template_env,
    template_headers,
    template_url,
    to_client_syntax,
)
from openclaw_mcp.domain.interchange.secret_guard import guard_entry
from openclaw_mcp.domain.projection.codex import clamp_ms

__all__ = ["JsonFormat", "export_entry", "import_document", "import_entry", "merge_document"]

_TYPE_OF: Final = {"stdio": "stdio", "sse": "sse", "streamable-http": "http"}


@dataclass(frozen=True, slots=True)
class JsonFormat:
    name: str
    label: str
    top_key: str
    syntax: Syntax
    writes_type: bool = True
    carries_cwd: bool = False
    gemini: bool = False
    whitelist: tuple[str, ...] = ()
    """Import: only these keys are read (empty: every key this module knows)."""


_KNOWN_KEYS: Final = (
    "command", "args", "env", "cwd", "workingDirectory", "url", "type", "transport", "headers",
    "connectionTimeoutMs", "requestTimeoutMs",
)  # fmt: skip
_GEMINI_KEYS: Final = ("httpUrl", "timeout", "includeTools", "excludeTools")


def _convert(value: Any, syntax: Syntax) -> Any:
    if isinstance(value, str):
        return to_client_syntax(value, syntax)
    if isinstance(value, list):
        return [_convert(item, syntax) for item in value]
    if isinstance(value, dict):
        return {key: _convert(item, syntax) for key, item in value.items()}
    return value


def _exact(name: str, raw: object, key: str, out: Exported) -> list[str]:
    if not isinstance(raw, list):
        return []
    kept: list[str] = []
    for item in raw:
        if not isinstance(item, str) or not item.strip():
            continue
        if "*" in item:
            out.warnings.append(f'server "{name}": toolFilter pattern "{item}" dropped ({key} takes exact tool names)')
        elif item.strip() not in kept:
            kept.append(item.strip())
    return kept


def export_entry(
    spec: JsonFormat, name: str, server: Mapping[str, Any], token: str | None, include_secrets: bool, out: Exported
) -> dict[str, Any] | None:
    """The client's entry for one server, or ``None`` (with a warning) when the format cannot express it."""
    if server.get("enabled") is False:
        out.warnings.append(f'server "{name}": disabled; {spec.label} has no per-server enabled flag, not exported')
        return None
    ready = exportable(name, server, token, include_secrets, out)
    if ready is None:
        return None
    prepared, transport = ready
    entry: dict[str, Any] = {}
    if spec.writes_type:
        entry["type"] = _TYPE_OF[transport]
    if transport == "stdio":
        if not isinstance(prepared.get("command"), str):
            out.warnings.append(f'server "{name}": stdio without a command, not exported')
            return None
        entry["command"] = prepared["command"]
        args = prepared.get("args")
        if isinstance(args, list) and args and all(isinstance(arg, str) for arg in args):
            entry["args"] = list(args)
        env = template_env(name, prepared.get("env"), include_secrets, out)
        if env is not None:
            entry["env"] = env
        if (spec.carries_cwd or spec.gemini) and isinstance(prepared.get("cwd"), str):
            entry["cwd"] = prepared["cwd"]
    else:
        url = prepared.get("url")
        if not isinstance(url, str):
            out.warnings.append(f'server "{name}": {transport} without a url, not exported')
            return None
        exported_url = template_url(name, url, include_secrets, True, out, spec.label)
        entry["url"] = exported_url
        headers = template_headers(name, prepared.get("headers"), include_secrets, out)
        if headers is not None:
            entry["headers"] = headers
    if spec.gemini:
        timeout = clamp_ms(prepared.get("requestTimeoutMs"))
        if timeout is not None:
            entry["timeout"] = timeout
        tool_filter = prepared.get("toolFilter")
        if isinstance(tool_filter, Mapping):
            include = _exact(name, tool_filter.get("include"), "includeTools", out)
            exclude = _exact(name, tool_filter.get("exclude"), "excludeTools", out)
            if include:
                entry["includeTools"] = include
            if exclude:
                entry["excludeTools"] = exclude
    if not include_secrets:
        guarded = guard_entry(name, entry, spec.label, True, out)
        if guarded is None:
            return None
        entry = guarded
    return _convert(entry, spec.syntax)  # type: ignore[no-any-return]


def _strings(where: str, key: str, value: object, problems: list[str]) -> bool:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return True
    problems.append(f"{where}: {key} must be an array of strings")
    return False


def _scalar_map(where: str, key: str, value: object, problems: list[str]) -> bool:
    if isinstance(value, dict) and all(
        (isinstance(item, str | int | float) and not isinstance(item, bool)) or isinstance(item, bool)
        for item in value.values()
    ):
        return True
    problems.append(f"{where}: {key} must be an object of strings")
    return False


def import_entry(spec: JsonFormat, file: str, name: str, raw: object, source: str) -> Imported:
    """One client entry as an ``mcp.servers`` definition (problems and warnings in the result)."""
    out = Imported()
    where = f"{file}: {spec.top_key}.{name}"
    if not isinstance(raw, dict):
        out.problems.append(f"{where}: expected an object")
        return out
    known = spec.whitelist or (_KNOWN_KEYS + (_GEMINI_KEYS if spec.gemini else ()))
    before = len(out.problems)
    for key in ("command", "cwd", "workingDirectory", "url", "httpUrl"):
        if key in raw and key in known and not isinstance(raw[key], str):
            out.problems.append(f"{where}: {key} must be a string")
    if "args" in raw and "args" in known:
        _strings(where, "args", raw["args"], out.problems)
    for key in ("env", "headers"):
        if key in raw and key in known:
            _scalar_map(where, key, raw[key], out.problems)
    for key in ("includeTools", "excludeTools"):
        if spec.gemini and key in raw:
            _strings(where, key, raw[key], out.problems)
    if (
        spec.gemini
        and "timeout" in raw
        and (isinstance(raw["timeout"], bool) or not isinstance(raw["timeout"], int | float))
    ):
        out.problems.append(f"{where}: timeout must be a number")
    if len(out.problems) > before:
        return out
    server: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in known or value is None:
            if not spec.whitelist:
                out.warnings.append(f'{where}: field "{key}" not imported')
            continue
        server[key] = value
    if spec.gemini:
        if "httpUrl" in server:
            http_url = server.pop("httpUrl")
            if "url" not in server:
                server["url"] = http_url
                if "type" not in server:
                    server["type"] = "http"
        elif isinstance(server.get("url"), str) and "type" not in server:
            server["type"] = "http"  # Gemini CLI ≥ 0.61: a bare url is streamable HTTP (SSE needs type "sse")
        if "timeout" in server:
            server["requestTimeoutMs"] = server.pop("timeout")
        include = server.pop("includeTools", None)
        exclude = server.pop("excludeTools", None)
        tool_filter = {k: v for k, v in (("include", include), ("exclude", exclude)) if v}
        if tool_filter:
            server["toolFilter"] = tool_filter
    if not check_entry(where, server, out.problems):
        return out
    converted = _from_syntax(server, spec.syntax, where, out.warnings)
    out.servers.append(ImportedServer(name, converted, where, source))
    return out


def _from_syntax(value: Any, syntax: Syntax, where: str, warnings: list[str]) -> Any:
    if isinstance(value, str):
        return from_client_syntax(value, syntax, where, warnings)
    if isinstance(value, list):
        return [_from_syntax(item, syntax, where, warnings) for item in value]
    if isinstance(value, dict):
        return {key: _from_syntax(item, syntax, where, warnings) for key, item in value.items()}
    return value


def import_document(
    spec: JsonFormat, file: str, document: object, source: str, *, whole_fallback: bool = False
) -> Imported:
    """Every entry of ``document[spec.top_key]`` (``whole_fallback``: the whole object when that key is absent,
    as Claude's project ``.mcp.json``)."""
    out = Imported()
    if not isinstance(document, dict):
        out.problems.append(f"{file}: expected a JSON object")
        return out
    servers = document.get(spec.top_key)
    if servers is None:
        if not whole_fallback:
            return out
        servers = document
    if not isinstance(servers, dict):
        out.problems.append(f"{file}: {spec.top_key} must be an object")
        return out
    for name, raw in servers.items():
        if not name.strip():
            out.warnings.append(f"{file}: {spec.top_key}: entry with a blank name skipped")
            continue
        out.extend(import_entry(spec, file, name, raw, source))
    return out


def merge_document(
    existing: object, top_key: str, entries: Mapping[str, dict[str, Any]], inputs: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """``existing`` (a copy) with ``top_key.<name>`` replaced for every exported name; other keys kept."""
    document: dict[str, Any] = dict(existing) if isinstance(existing, dict) else {}
    current = document.get(top_key)
    servers = dict(current) if isinstance(current, dict) else {}
    servers.update(entries)
    document[top_key] = servers
    if inputs:
        known = document.get("inputs")
        merged = list(known) if isinstance(known, list) else []
        ids = {item.get("id") for item in merged if isinstance(item, dict)}
        merged += [item for item in inputs if item.get("id") not in ids]
        document["inputs"] = merged
    return document
