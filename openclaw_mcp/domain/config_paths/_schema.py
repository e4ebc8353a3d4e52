"""The ``mcp`` section's shape as the config schema has it: which paths exist and what kind of node each is
(``Config path is valid but unset`` vs ``Unknown config path``; what ``config set`` creates for a missing
segment; the key order ``config get`` shows)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from openclaw_mcp.domain.config_paths._syntax import array_index

__all__ = [
    "APPS_FIELDS",
    "CODEX_FIELDS",
    "FILTER_FIELDS",
    "MCP_FIELDS",
    "OAUTH_FIELDS",
    "SERVER_FIELDS",
    "is_known_mcp_path",
    "node_kind",
]

SERVER_FIELDS: Final = (
    "enabled",
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "transport",
    "headers",
    "connectionTimeoutMs",
    "requestTimeoutMs",
    "supportsParallelToolCalls",
    "auth",
    "oauth",
    "sslVerify",
    "clientCert",
    "clientKey",
    "toolFilter",
    "codex",
)
MCP_FIELDS: Final = ("sessionIdleTtlMs", "servers", "apps")
APPS_FIELDS: Final = ("enabled", "sandboxOrigin", "sandboxPort")
OAUTH_FIELDS: Final = ("identity", "authProfileId", "scope", "redirectUrl", "clientMetadataUrl")
FILTER_FIELDS: Final = ("include", "exclude")
CODEX_FIELDS: Final = ("agents", "defaultToolsApprovalMode")

# kind of a node: "leaf", "array" (of leaves), "map" (of leaves), "object" (fields), "any" (open value)
_SERVER_KINDS: Final[dict[str, str]] = {
    "args": "array",
    "env": "map",
    "headers": "map",
    "oauth": "oauth",
    "toolFilter": "toolFilter",
    "codex": "codex",
}


def node_kind(keys: Sequence[str]) -> str | None:
    """The schema node at an ``mcp`` path: a kind name, or ``None`` when the schema has no such path."""
    if not keys or keys[0] != "mcp":
        return None
    rest = list(keys[1:])
    if not rest:
        return "mcp"
    head = rest.pop(0)
    if head == "sessionIdleTtlMs":
        return "leaf" if not rest else None
    if head == "apps":
        if not rest:
            return "apps"
        return "leaf" if len(rest) == 1 and rest[0] in APPS_FIELDS else None
    if head != "servers":
        return None
    if not rest:
        return "servers"
    rest.pop(0)  # the server name
    if not rest:
        return "server"
    name = rest.pop(0)
    kind = _SERVER_KINDS.get(name, "leaf")
    if not rest:
        return kind
    if kind in ("array", "map"):
        if kind == "array" and array_index(rest[0]) is None:
            return None
        return "leaf" if len(rest) == 1 else None
    fields = {"oauth": OAUTH_FIELDS, "toolFilter": FILTER_FIELDS, "codex": CODEX_FIELDS}.get(kind)
    if fields is None or rest[0] not in fields:
        return None
    inner = "array" if rest[0] in ("include", "exclude", "agents") else "leaf"
    if len(rest) == 1:
        return inner
    if inner == "array" and len(rest) == 2 and array_index(rest[1]) is not None:
        return "leaf"
    return None


def is_known_mcp_path(keys: Sequence[str]) -> bool:
    """Whether the config schema has this path (``Config path is valid but unset`` vs ``Unknown config path``)."""
    return node_kind(keys) is not None
