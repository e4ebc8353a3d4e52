"""Placeholders and paths of a plugin-bundle MCP server (spec client-runtime §10.6): ``${CLAUDE_PLUGIN_ROOT}``,
``${PLUGIN_ROOT}`` and ``${PLUGIN_DATA}`` expanded, relative commands, arguments and directories made absolute
against the directory of the file the server came from (Node's ``path.posix``, :mod:`jscompat.paths`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from openclaw_mcp.jscompat.jsjson import js_ordered_keys
from openclaw_mcp.jscompat.paths import path_normalize, path_resolve

__all__ = ["PLUGIN_DATA_PLACEHOLDER", "PLUGIN_ROOT_PLACEHOLDER", "absolutize_server", "expand_placeholders"]

PLUGIN_ROOT_PLACEHOLDER: Final = "${PLUGIN_ROOT}"
PLUGIN_DATA_PLACEHOLDER: Final = "${PLUGIN_DATA}"
_CLAUDE_ROOT: Final = "${CLAUDE_PLUGIN_ROOT}"
_PLACEHOLDER = re.compile(r"\$\{(?:CLAUDE_PLUGIN_ROOT|PLUGIN_ROOT|PLUGIN_DATA)\}")


def _is_explicit_relative(value: str) -> bool:
    return value in (".", "..") or value.startswith(("./", "../"))


def _normalize_if_absolute(value: str) -> str:
    return path_normalize(value) if value.startswith("/") else value


def _command_like(base: str, value: str) -> str:
    """``command`` and ``args`` entries: explicitly relative → resolved; absolute → normalised."""
    return path_resolve(base, value) if _is_explicit_relative(value) else _normalize_if_absolute(value)


def expand_placeholders(value: str, *, root: str, data_dir: str | None = None) -> str:
    """Replace ``${CLAUDE_PLUGIN_ROOT}`` with ``root``; ``${PLUGIN_ROOT}`` and ``${PLUGIN_DATA}`` only when
    a plugin data dir is given (agent format), else they stay literal."""

    def substitute(match: re.Match[str]) -> str:
        placeholder = match.group(0)
        if placeholder == _CLAUDE_ROOT or (placeholder == PLUGIN_ROOT_PLACEHOLDER and data_dir):
            return root
        return data_dir if data_dir is not None else placeholder

    return _PLACEHOLDER.sub(substitute, value)


def absolutize_server(
    server: Mapping[str, Any],
    *,
    root: str,
    base: str,
    agent_data_dir: str | None = None,
    agent_format: bool = False,
) -> dict[str, Any]:
    """A copy of ``server`` with placeholders expanded and paths made absolute (§10.6).

    ``root`` is the plugin root and ``base`` the directory of the file the server came from (both
    absolute and normalised); ``agent_data_dir`` is the agent-format plugin's data dir, if it has one."""
    nxt = dict(server)
    if (
        not isinstance(nxt.get("cwd"), str)
        and not isinstance(nxt.get("workingDirectory"), str)
        and (not agent_format or isinstance(nxt.get("command"), str))
    ):
        nxt["cwd"] = base

    def expand(value: str) -> str:
        return expand_placeholders(value, root=root, data_dir=agent_data_dir)

    command = nxt.get("command")
    if isinstance(command, str):
        expanded = expand(command)
        nxt["command"] = (
            path_resolve(base, expanded) if _is_explicit_relative(expanded) else _normalize_if_absolute(expanded)
        )
    cwd = nxt.get("cwd")
    if isinstance(cwd, str):
        expanded = expand(cwd)
        nxt["cwd"] = expanded if expanded.startswith("/") else path_resolve(base, expanded)
    working = nxt.get("workingDirectory")
    if isinstance(working, str):
        expanded = expand(working)
        nxt["workingDirectory"] = path_normalize(expanded) if expanded.startswith("/") else path_resolve(base, expanded)
    args = nxt.get("args")
    if isinstance(args, list):
        new_args: list[Any] = []
        for entry in args:
            if not isinstance(entry, str):
                new_args.append(entry)
                continue
            expanded = expand(entry)
            new_args.append(
                path_resolve(base, expanded) if _is_explicit_relative(expanded) else _normalize_if_absolute(expanded)
            )
        nxt["args"] = new_args
    env = nxt.get("env")
    if isinstance(env, dict):
        nxt["env"] = {
            key: _normalize_if_absolute(expand(env[key])) if isinstance(env[key], str) else env[key]
            for key in js_ordered_keys(env)
        }
    if agent_data_dir and isinstance(nxt.get("command"), str):
        current = nxt.get("env")
        merged_env = dict(current) if isinstance(current, dict) else {}
        merged_env["PLUGIN_ROOT"] = root
        merged_env["PLUGIN_DATA"] = agent_data_dir
        nxt["env"] = merged_env
    return nxt
