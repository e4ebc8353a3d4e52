"""The Codex CLI backend's ``-c mcp_servers=<TOML inline table>`` override (spec runtime-projection §4)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from openclaw_mcp.domain.projection.codex import normalize_codex, partition_codex_servers
from openclaw_mcp.domain.projection.inline_toml import toml_inline

__all__ = ["build_codex_servers", "codex_cli_args"]


def build_codex_servers(
    servers: Mapping[str, Mapping[str, Any]],
    *,
    sort: Callable[[Iterable[str]], list[str]],
    grants: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, dict[str, Any]]:
    """Codex ``mcp_servers``: requester-scoped servers left out, names in collation order (§1.2, §3.2)."""
    names, _ = partition_codex_servers(servers, sort=sort)
    return {name: normalize_codex(name, servers[name], (grants or {}).get(name, ()), sort=sort) for name in names}


def codex_cli_args(args: Sequence[str], codex_servers: Mapping[str, Any], *, web_search_disabled: bool) -> list[str]:
    """``args`` followed by the ``-c`` overrides."""
    extra = ["-c", "mcp_servers=" + toml_inline(codex_servers)]
    if web_search_disabled:
        extra += ["-c", 'web_search="disabled"']
    return [*args, *extra]
