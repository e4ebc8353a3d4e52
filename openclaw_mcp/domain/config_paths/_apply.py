"""After a config write: which ``mcp`` leaves changed, and whether the gateway applies them hot or needs a restart
(upstream ``src/gateway/config-reload-plan.ts``)."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["apply_hint", "changed_leaf_paths"]


def _leaves(value: object, prefix: str) -> list[str]:
    if not isinstance(value, dict) or not value:
        return [prefix]
    return [leaf for key, item in value.items() for leaf in _leaves(item, f"{prefix}.{key}")]


def changed_leaf_paths(before: object, after: object, prefix: str = "mcp") -> list[str]:
    """Dotted paths whose values differ; an object that appears or disappears counts by its leaves."""
    if before == after and type(before) is type(after):
        return []
    if isinstance(before, dict) and isinstance(after, dict):
        keys = list(dict.fromkeys([*before, *after]))
        return [path for key in keys for path in changed_leaf_paths(before.get(key), after.get(key), f"{prefix}.{key}")]
    if before is None:
        return _leaves(after, prefix)
    if after is None:
        return _leaves(before, prefix)
    return [prefix]


def _is_under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + ".")


def apply_hint(paths: Sequence[str], *, reload_off: bool) -> str:
    """The sentence after ``Updated …``/``Removed …``: ``mcp.apps`` (but not ``mcp.apps.sandboxOrigin``) needs
    a restart, the rest of ``mcp`` reloads hot (unless ``gateway.reload.mode`` is ``off``)."""
    if not paths:
        return "No gateway restart needed."
    restart = any(_is_under(p, "mcp.apps") and not _is_under(p, "mcp.apps.sandboxOrigin") for p in paths)
    if restart or reload_off:
        return "Restart the gateway to apply."
    return "Change will apply without restarting the gateway."
