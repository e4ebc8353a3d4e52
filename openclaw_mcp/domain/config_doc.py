"""The OpenClaw config document: env substitution, the ``mcp.servers`` view, and the rules of a write
(spec cli-registry §1.2, §1.5.3–§1.5.7, D2, D6, D16)."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from openclaw_mcp.jscompat.jsjson import js_dumps

__all__ = [
    "COMPAT_VERSION",
    "EnvSubstitution",
    "clobber_verdict",
    "configured_servers",
    "has_json5_comment",
    "is_newer_version",
    "is_sensitive_path",
    "mutate_servers",
    "prepare_written_document",
    "serialize_config",
    "substitute_env",
]

COMPAT_VERSION = "2026.9.6"

_ENV_REF = re.compile(r"\$?\$\{([A-Z_][A-Z0-9_]*)\}")


@dataclass(frozen=True, slots=True)
class EnvSubstitution:
    value: Any
    missing: tuple[tuple[str, str], ...]  # (dotted path, variable name)


def substitute_env(document: Any, env: Mapping[str, str]) -> EnvSubstitution:
    """Replace ``${NAME}`` in string values by the environment value; ``$${NAME}`` gives ``${NAME}``.

    A missing or empty variable leaves the reference in place and is reported with its path.
    """
    missing: list[tuple[str, str]] = []

    def sub_string(text: str, path: str) -> str:
        if "${" not in text:
            return text

        def repl(match: re.Match[str]) -> str:
            whole, name = match.group(0), match.group(1)
            if whole.startswith("$$"):
                return whole[1:]
            value = env.get(name)
            if not value:
                missing.append((path, name))
                return whole
            return value

        return _ENV_REF.sub(repl, text)

    def walk(value: Any, path: str) -> Any:
        if isinstance(value, str):
            return sub_string(value, path)
        if isinstance(value, dict):
            return {k: walk(v, f"{path}.{k}" if path else k) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, f"{path}.{i}" if path else str(i)) for i, v in enumerate(value)]
        return value

    return EnvSubstitution(walk(document, ""), tuple(missing))


def configured_servers(document: Any) -> dict[str, dict[str, Any]]:
    """The ``mcp.servers`` map commands work on: object entries only, each shallow-copied."""
    if not isinstance(document, dict):
        return {}
    mcp = document.get("mcp")
    servers = mcp.get("servers") if isinstance(mcp, dict) else None
    if not isinstance(servers, dict):
        return {}
    return {name: dict(server) for name, server in servers.items() if isinstance(server, dict)}


def is_newer_version(version: object, than: str = COMPAT_VERSION) -> bool:
    """``YYYY.M.D[-suffix]`` compared as dotted integers; a ``-suffix`` sorts before the plain release."""
    if not isinstance(version, str):
        return False

    def parse(text: str) -> tuple[tuple[int, ...], int] | None:
        core, _, suffix = text.strip().partition("-")
        parts = core.split(".")
        if not parts or not all(p.isdigit() for p in parts):
            return None
        return tuple(int(p) for p in parts), 0 if suffix else 1

    mine, theirs = parse(version), parse(than)
    return mine is not None and theirs is not None and mine > theirs


def has_json5_comment(text: str) -> bool:
    """True when ``text`` has a ``//`` or ``/*`` comment outside string literals."""
    quote: str | None = None
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "/" and i + 1 < n and text[i + 1] in "/*":
            return True
        i += 1
    return False


_FIRST_WRITE_PLUGINS: dict[str, Any] = {
    "entries": {
        "anthropic": {"config": {"sessionCatalog": {"enabled": False}}},
        "codex": {"config": {"sessionCatalog": {"enabled": False}}},
    }
}


def _needs_model_migration(document: dict[str, Any]) -> bool:
    """D6: configs whose model settings the reference would migrate keep the markers absent."""
    agents = document.get("agents")
    defaults = agents.get("defaults") if isinstance(agents, dict) else None
    if isinstance(defaults, dict):
        models = defaults.get("models")
        if isinstance(models, dict) and models and "modelPolicy" not in defaults:
            return True
    has_primary = False
    if isinstance(defaults, dict):
        model = defaults.get("model")
        has_primary = bool(model.get("primary")) if isinstance(model, dict) else bool(model)
    if has_primary:
        return False
    providers_models = False
    models_section = document.get("models")
    providers = models_section.get("providers") if isinstance(models_section, dict) else None
    if isinstance(providers, dict):
        providers_models = any(isinstance(p, dict) and p.get("models") for p in providers.values())
    utility = isinstance(defaults, dict) and "utilityModel" in defaults
    if isinstance(agents, dict) and isinstance(agents.get("list"), list):
        utility = utility or any(isinstance(a, dict) and "utilityModel" in a for a in agents["list"])
    return providers_models or utility


def _stamp(document: dict[str, Any]) -> None:
    meta = document.get("meta")
    if not isinstance(meta, dict):
        meta = {}
        document.pop("meta", None)
        document["meta"] = meta
    if not _needs_model_migration(document):
        migrations = meta.get("migrations")
        if not isinstance(migrations, dict):
            migrations = {}
            if "migrations" in meta:
                meta["migrations"] = migrations
            else:
                # a new ``migrations`` goes before ``lastTouchedVersion``
                rest = dict(meta)
                meta.clear()
                meta["migrations"] = migrations
                meta.update(rest)
        migrations["modelPolicyAllowlist"] = True
        migrations["utilityModelSeparation"] = True
    meta["lastTouchedVersion"] = COMPAT_VERSION


def prepare_written_document(document: Any, *, first_write: bool) -> dict[str, Any]:
    """The document as the write path saves it: empty ``mcp.servers``/``mcp`` removed, first-write
    ``plugins`` defaults, the ``meta`` stamp last when new."""
    doc: dict[str, Any] = copy.deepcopy(document) if isinstance(document, dict) else {}
    mcp = doc.get("mcp")
    if isinstance(mcp, dict):
        if isinstance(mcp.get("servers"), dict) and not mcp["servers"]:
            del mcp["servers"]
        if not mcp:
            del doc["mcp"]
    if first_write and "plugins" not in doc:
        doc["plugins"] = copy.deepcopy(_FIRST_WRITE_PLUGINS)
    _stamp(doc)
    return doc


def serialize_config(document: Any) -> str:
    """``JSON.stringify(document, null, 2)``, trailing white space trimmed, one newline."""
    return js_dumps(document, 2).rstrip() + "\n"


def clobber_verdict(
    previous_text: str, previous_document: object, next_text: str, parse_ok: bool
) -> tuple[int, int] | None:
    """``(baseline, next)`` byte sizes when the write must be refused as a suspicious size drop.

    The baseline is the previous config re-serialised with only its ``meta.lastTouchedVersion`` stamped
    (observed on 2026.9.6), or the raw size when it did not parse as an object.
    """
    if parse_ok and isinstance(previous_document, dict):
        stamped = copy.deepcopy(previous_document)
        meta = stamped.get("meta")
        if not isinstance(meta, dict):
            stamped.pop("meta", None)
            meta = stamped["meta"] = {}
        meta["lastTouchedVersion"] = COMPAT_VERSION
        baseline = len(serialize_config(stamped).encode())
    else:
        baseline = len(previous_text.encode())
    size = len(next_text.encode())
    if baseline >= 512 and size < baseline // 2:
        return baseline, size
    return None


SENSITIVE_PATH = re.compile(r"token$|password|secret|api.?key|encrypt.?key|private.?key|serviceaccount(ref)?$", re.I)
_NOT_SENSITIVE_SUFFIXES = (
    "maxtokens",
    "maxoutputtokens",
    "maxinputtokens",
    "maxcompletiontokens",
    "contexttokens",
    "totaltokens",
    "tokencount",
    "tokenlimit",
    "tokenbudget",
    "passwordfile",
)


def is_sensitive_path(path: str) -> bool:
    lowered = path.lower()
    if lowered.endswith(_NOT_SENSITIVE_SUFFIXES):
        return False
    return SENSITIVE_PATH.search(path) is not None


def mutate_servers(document: Any, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """A deep copy of ``document`` whose ``mcp.servers`` (created when missing) went through ``change``."""
    doc: dict[str, Any] = copy.deepcopy(document) if isinstance(document, dict) else {}
    mcp = doc.get("mcp")
    if not isinstance(mcp, dict):
        mcp = {}
        doc["mcp"] = mcp
    servers = mcp.get("servers")
    if not isinstance(servers, dict):
        servers = {}
        mcp["servers"] = servers
    change(servers)
    return doc
