"""Rules every format shares: the effective transport, the OAuth treatment, the import checks."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from openclaw_mcp.domain.canonical import is_known_type_alias, transport_for_type_alias
from openclaw_mcp.domain.interchange.model import Exported, Imported
from openclaw_mcp.domain.projection.codex import is_requester_scoped
from openclaw_mcp.domain.projection.oauth_bearer import with_bearer_header

__all__ = ["check_entry", "effective_transport", "oauth_prepared"]

_TRANSPORTS = ("stdio", "sse", "streamable-http")


def effective_transport(server: Mapping[str, Any]) -> str | None:
    """``stdio``, ``sse`` or ``streamable-http`` as OpenClaw would connect the server (a URL without a
    transport is SSE, cli-registry §4.1); ``None`` when it names no usable transport."""
    transport = server.get("transport")
    if isinstance(transport, str) and transport.strip().lower() in _TRANSPORTS:
        return transport.strip().lower()
    alias = server.get("type")
    if is_known_type_alias(alias):
        mapped = transport_for_type_alias(alias)
        return mapped if mapped is not None else "stdio"
    if isinstance(server.get("command"), str):
        return "stdio"
    if isinstance(server.get("url"), str):
        return "sse"
    return None


def oauth_prepared(
    name: str, server: Mapping[str, Any], token: str | None, include_secrets: bool, out: Exported
) -> dict[str, Any]:
    """The server as the export maps it: an ``auth: "oauth"`` server keeps only its URL and non-authorization
    headers (the client logs in itself), or, with ``include_secrets`` and a stored token, gets
    ``Authorization: Bearer <token>`` (which expires)."""
    copy = dict(server)
    if copy.get("auth") != "oauth":
        return copy
    if include_secrets and token is not None and not is_requester_scoped(server):
        out.warnings.append(
            f'server "{name}": exported the stored OAuth access token; it expires, export again after '
            f"openclaw mcp login {name}"
        )
        return with_bearer_header(copy, f"Bearer {token}")
    if include_secrets and not is_requester_scoped(server):
        out.warnings.append(f'server "{name}": no stored OAuth access token (run openclaw mcp login {name}); URL only')
    headers = copy.get("headers")
    if isinstance(headers, Mapping):
        kept = {k: v for k, v in headers.items() if str(k).lower() != "authorization"}
        if kept:
            copy["headers"] = kept
        else:
            copy.pop("headers")
    copy.pop("auth", None)
    copy.pop("oauth", None)
    out.notes.append(f'server "{name}" uses OAuth: the client performs its own OAuth login')
    return copy


def exportable(
    name: str, server: Mapping[str, Any], token: str | None, include_secrets: bool, out: Exported
) -> tuple[dict[str, Any], str] | None:
    """The server prepared for export (OAuth applied) and its transport; ``None`` (with a warning) when it has
    neither a command nor a url."""
    prepared = oauth_prepared(name, server, token, include_secrets, out)
    transport = effective_transport(prepared)
    if transport is None:
        out.warnings.append(f'server "{name}": no command or url, not exported')
        return None
    return dict(prepared), transport


def import_server_table(
    file: str,
    document: object,
    servers_of: Callable[[Mapping[str, Any]], object],
    entry: Callable[[str, str, object, Imported], None],
    *,
    document_kind: str,
    table_kind: str,
) -> Imported:
    """The entries of a parsed document's server table (``servers_of(document)``, ``None``: no servers), each
    mapped by ``entry(file, name, raw, out)``; a document or table of the wrong type is a problem."""
    out = Imported()
    if not isinstance(document, Mapping):
        out.problems.append(f"{file}: expected a {document_kind}")
        return out
    servers = servers_of(document)
    if servers is None:
        return out
    if not isinstance(servers, Mapping):
        out.problems.append(f"{file}: mcp_servers must be a {table_kind}")
        return out
    for name, raw in servers.items():
        entry(file, str(name), raw, out)
    return out


def check_entry(where: str, entry: Mapping[str, Any], problems: list[str]) -> bool:
    """The import checks every format shares: a known transport or type, and a command or a url."""
    ok = True
    for key in ("transport", "type"):
        value = entry.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or (
            not is_known_type_alias(value) and not (key == "transport" and value in _TRANSPORTS)
        ):
            shown = value if isinstance(value, str) else type(value).__name__
            problems.append(f'{where}: unknown transport "{shown}"')
            ok = False
    has_command = isinstance(entry.get("command"), str) and bool(entry["command"].strip())
    has_url = isinstance(entry.get("url"), str) and bool(entry["url"].strip())
    if ok and not has_command and not has_url:
        problems.append(f"{where}: needs a command or a url")
        ok = False
    return ok
