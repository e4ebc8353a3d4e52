"""Provider-safe names (spec client-runtime §5.1–§5.2) and the OAuth store keys built from them (§7.3)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from openclaw_mcp.jscompat.text import js_trim

__all__ = [
    "SERVER_PREFIX_MAX",
    "assign_safe_server_names",
    "operator_store_key",
    "requester_store_key",
    "safe_name_sort_key",
    "sanitize_fragment",
    "sanitize_server_name",
]

SERVER_PREFIX_MAX = 30
_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def sanitize_fragment(raw: str, fallback: str, max_chars: int | None = None) -> str:
    """``[A-Za-z0-9_-]`` only (one ``-`` per UTF-16 code unit), starting with a letter, optionally capped."""
    out: list[str] = []
    for ch in js_trim(raw):
        if ch in _SAFE:
            out.append(ch)
        else:
            out.append("--" if ord(ch) > 0xFFFF else "-")
    text = "".join(out) or fallback
    if not ("a" <= text[0] <= "z" or "A" <= text[0] <= "Z"):
        text = f"{fallback}-{text}"
    return text[:max_chars] if max_chars is not None else text


def sanitize_server_name(raw: str, used: set[str]) -> str:
    """The safe server name of ``raw``, unique case-insensitively within ``used`` (which it extends)."""
    base = sanitize_fragment(raw, "mcp", SERVER_PREFIX_MAX)
    candidate = base
    n = 2
    while candidate.lower() in used:
        suffix = f"-{n}"
        candidate = base[: max(1, SERVER_PREFIX_MAX - len(suffix))] + suffix
        n += 1
    used.add(candidate.lower())
    return candidate


def assign_safe_server_names(names: Iterable[str]) -> dict[str, str]:
    """Safe names for a session's whole server set, in the given (JavaScript key) order."""
    used: set[str] = set()
    return {name: sanitize_server_name(name, used) for name in names}


_WEIGHTS = {"_": 0, "-": 1, **{str(d): 2 + d for d in range(10)}}


def safe_name_sort_key(name: str) -> tuple[list[int], list[bool]]:
    """The exact ICU root order on ``[A-Za-z0-9_-]`` names (§5.4): ``_ < - < digits < letters``,
    letters case-insensitive with lowercase first on ties."""
    primary = [_WEIGHTS.get(ch, 12 + ord(ch.lower()) - ord("a")) for ch in name]
    return primary, [ch.isupper() for ch in name]


def _short_hash(*parts: str) -> str:
    return hashlib.sha256(b"\x00".join(p.encode("utf-8") for p in parts)).hexdigest()[:16]


def operator_store_key(server_name: str, url: str) -> str:
    """OAuth store key of the operator identity of (server name, resolved URL): ``<safe>-<16 hex>``."""
    return f"{sanitize_server_name(server_name, set())}-{_short_hash(server_name, url)}"


def requester_store_key(operator_key: str, channel: str, account_id: str, sender_id: str) -> str:
    """OAuth store key of one requester of a per-requester server."""
    return f"{operator_key}-r-{_short_hash(channel, account_id, sender_id)}"
