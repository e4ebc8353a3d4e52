"""The process's settings, resolved once at the entry from the environment (after the root options applied
``--profile``/``--dev`` to it) and handed down as one frozen value: adapters receive its paths and values,
never the environment mapping.

    settings = Settings.from_environ(os.environ)
    registry = composition.registry(settings, console.err)

``environ`` is still carried, as data: ``${VAR}`` references of the config are substituted from it and stdio
servers inherit it (filtered by the env policy). Everything else an adapter needs from the environment is a
field here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from openclaw_mcp.entrypoints.paths import resolve_config_path, resolve_home, resolve_state_dir
from openclaw_mcp.jscompat.numbers import MAX_SAFE_INTEGER
from openclaw_mcp.jscompat.paths import path_resolve

if TYPE_CHECKING:
    from openclaw_mcp.entrypoints.otel_settings import OtelExport

__all__ = [
    "Settings",
    "audit_settings",
    "challenge_timeout_ms",
    "include_roots",
    "oom_adjust_enabled",
    "preauth_handshake_timeout_ms",
    "user_name",
]

_TILDE: Final = re.compile(r"^~(?=$|[\\/])")
_OOM_OPT_OUT: Final = frozenset({"0", "false", "no", "off"})
_DEFAULT_PREAUTH_TIMEOUT_MS: Final = 15_000
_MAX_TIMER_MS: Final = 2_147_483_647


def include_roots(environ: Mapping[str, str]) -> list[str]:
    """The extra ``$include`` roots: ``OPENCLAW_INCLUDE_ROOTS`` trimmed and split on ``os.pathsep`` (``:`` on
    POSIX), each entry trimmed, blank ones skipped, a leading ``~`` expanded to the OpenClaw home, made
    absolute (Node's ``path.resolve``); duplicates dropped. Unset or blank: none."""
    raw = (environ.get("OPENCLAW_INCLUDE_ROOTS") or "").strip()
    if not raw:
        return []
    roots: list[str] = []
    for entry in raw.split(os.pathsep):
        trimmed = entry.strip()
        if not trimmed:
            continue
        if _TILDE.match(trimmed):
            trimmed = resolve_home(environ) + trimmed[1:]
        resolved = path_resolve(os.getcwd(), trimmed) if os.sep == "/" else os.path.abspath(trimmed)
        if os.path.isabs(resolved) and resolved not in roots:
            roots.append(resolved)
    return roots


def oom_adjust_enabled(environ: Mapping[str, str]) -> bool:
    """Whether stdio children raise their OOM score (not when ``OPENCLAW_CHILD_OOM_SCORE_ADJ`` is
    0/false/no/off)."""
    value = environ.get("OPENCLAW_CHILD_OOM_SCORE_ADJ")
    return value is None or value.strip().lower() not in _OOM_OPT_OUT


def _positive_setting(raw: str | None) -> int | None:
    """A positive safe integer of milliseconds (one leading ``+`` allowed), capped at the timer maximum."""
    if not raw:
        return None
    text = raw.strip()
    if text.startswith("+"):
        text = text[1:]
    if not text.isascii() or not text.isdigit():
        return None
    value = int(text)
    if value <= 0 or value > MAX_SAFE_INTEGER:
        return None
    return min(value, _MAX_TIMER_MS)


def preauth_handshake_timeout_ms(environ: Mapping[str, str]) -> int:
    """``OPENCLAW_HANDSHAKE_TIMEOUT_MS`` (positive integer ms) or 15 000: also the Gateway socket's open timeout."""
    return _positive_setting(environ.get("OPENCLAW_HANDSHAKE_TIMEOUT_MS")) or _DEFAULT_PREAUTH_TIMEOUT_MS


def challenge_timeout_ms(environ: Mapping[str, str]) -> int:
    """How long to wait for ``connect.challenge`` after the socket opened (gateway-protocol §2.1)."""
    # The reference clamps to 250 … max(15 000, handshake timeout, override): only the floor can apply.
    override = _positive_setting(environ.get("OPENCLAW_CONNECT_CHALLENGE_TIMEOUT_MS"))
    return max(250, override if override is not None else preauth_handshake_timeout_ms(environ))


def _otel_export(environ: Mapping[str, str]) -> OtelExport | None:
    """The span export the ``OTEL_*`` variables ask for (``entrypoints.otel_settings``, loaded only when one is
    set: no start-up cost otherwise)."""
    if not any(key.startswith("OTEL_") for key in environ):
        return None
    from openclaw_mcp.entrypoints.otel_settings import otel_export

    return otel_export(environ)


def user_name(environ: Mapping[str, str]) -> str:
    """The user running this process: ``USER``, ``LOGNAME`` or ``USERNAME`` (like ``getpass.getuser``, but from
    the entry's environment), else the password database's name, else ``unknown``."""
    for key in ("USER", "LOGNAME", "USERNAME"):
        value = (environ.get(key) or "").strip()
        if value:
            return value
    try:
        import pwd  # deferred: nearly every environment sets USER

        return pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError, OSError):
        return "unknown"


_DEFAULT_AUDIT_MAX_RECORDS: Final = 100_000


def _positive_count(raw: str | None) -> int | None:
    text = (raw or "").strip()
    if not text.isascii() or not text.isdigit() or int(text) <= 0:
        return None
    return min(int(text), MAX_SAFE_INTEGER)


def audit_settings(environ: Mapping[str, str]) -> tuple[bool, int, int | None]:
    """The audit trail's settings (docs/audit.md): on unless ``OPENCLAW_MCP_AUDIT`` is 0/false/no/off; keep the
    newest ``OPENCLAW_MCP_AUDIT_MAX_RECORDS`` records (a positive integer; default 100 000) and, when
    ``OPENCLAW_MCP_AUDIT_MAX_DAYS`` is a positive integer, none older than that many days."""
    enabled = (environ.get("OPENCLAW_MCP_AUDIT") or "").strip().lower() not in _OOM_OPT_OUT
    max_records = _positive_count(environ.get("OPENCLAW_MCP_AUDIT_MAX_RECORDS")) or _DEFAULT_AUDIT_MAX_RECORDS
    return enabled, max_records, _positive_count(environ.get("OPENCLAW_MCP_AUDIT_MAX_DAYS"))


@dataclass(frozen=True, slots=True)
class Settings:
    """What this process's adapters need from its environment, resolved once (spec cli-registry §1.1)."""

    environ: Mapping[str, str]
    """The environment as the entry left it: ``${VAR}`` substitution, stdio servers' inherited variables."""
    home: str
    """The OpenClaw home (``OPENCLAW_HOME``, ``HOME`` …)."""
    state_dir: str
    config_path: str
    state_db_path: str
    """``<state dir>/state/openclaw.sqlite``: OAuth rows, leases, device identity."""
    include_roots: tuple[str, ...]
    oom_adjust: bool
    gateway_open_timeout_ms: int
    gateway_challenge_timeout_ms: int
    user: str = ""
    """Who runs this process (``$USER``/``$LOGNAME``/``$USERNAME``, else ``getpass.getuser()``): the ``pinned_by``
    of tool pins."""
    otel_export: OtelExport | None = None
    """Where OpenTelemetry spans are exported (standard ``OTEL_*`` variables), ``None``: not exported."""
    audit_enabled: bool = True
    """Whether tool calls are recorded in the audit trail (``OPENCLAW_MCP_AUDIT``, :func:`audit_settings`)."""
    audit_max_records: int = _DEFAULT_AUDIT_MAX_RECORDS
    audit_max_days: int | None = None

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings of ``environ`` (default: the process environment). Raises ``ConfigStoreError`` when no
        home directory can be found."""
        env: Mapping[str, str] = os.environ if environ is None else environ
        state_dir = resolve_state_dir(env)
        audit_enabled, audit_max_records, audit_max_days = audit_settings(env)
        return cls(
            environ=env,
            home=resolve_home(env),
            state_dir=state_dir,
            config_path=resolve_config_path(env),
            state_db_path=os.path.join(state_dir, "state", "openclaw.sqlite"),
            include_roots=tuple(include_roots(env)),
            oom_adjust=oom_adjust_enabled(env),
            gateway_open_timeout_ms=preauth_handshake_timeout_ms(env),
            gateway_challenge_timeout_ms=challenge_timeout_ms(env),
            user=user_name(env),
            otel_export=_otel_export(env),
            audit_enabled=audit_enabled,
            audit_max_records=audit_max_records,
            audit_max_days=audit_max_days,
        )

    def state_db_exists(self) -> bool:
        """Whether the state database exists (config writes then hold the per-server lifecycle lease, D5)."""
        return os.path.isfile(self.state_db_path)
