"""What the server runtimes of a process share: reference timings, tuning hooks, injected services, one
server's spec and the task host (spec client-runtime §4.1–§4.4)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import anyio.abc

from openclaw_mcp.application.ports.clock import Clock
from openclaw_mcp.application.ports.mcp import McpConnector
from openclaw_mcp.application.ports.telemetry import NO_TELEMETRY, Telemetry
from openclaw_mcp.application.ports.tool_pins import ToolPinStore
from openclaw_mcp.application.runtime.pagination import MAX_LIST_BYTES, MAX_LIST_ITEMS, MAX_LIST_PAGES
from openclaw_mcp.domain.transport import TransportWarning

__all__ = [
    "CATALOG_FAILURE_RETRY_MS",
    "CATALOG_LIST_TIMEOUT_MS",
    "DISPOSE_TIMEOUT_MS",
    "FAILURE_COOLDOWN_MS",
    "FAILURE_THRESHOLD",
    "LOCAL_TIMER_GRACE_S",
    "DisposeOutcome",
    "FailureBackoff",
    "LeaseCounter",
    "RuntimeServices",
    "RuntimeTuning",
    "ServerSpec",
    "TaskHost",
    "WarningDedupe",
    "iso_timestamp",
]

FAILURE_THRESHOLD = 3
FAILURE_COOLDOWN_MS = 60_000
CATALOG_FAILURE_RETRY_MS = 5_000
CATALOG_LIST_TIMEOUT_MS = 1_500
DISPOSE_TIMEOUT_MS = 5_000
ENV_WARNING_DEDUPE_SIZE = 4_096
LOCAL_TIMER_GRACE_S = 1.0

FailureBackoff = Literal["track", "ignore"]
DisposeOutcome = Literal["closed", "uncertain"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def iso_timestamp(ms: int) -> str:
    """Epoch milliseconds as ``2026-11-29T12:07:38.088Z`` (JavaScript ``toISOString``)."""
    moment = _EPOCH + timedelta(milliseconds=ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class WarningDedupe:
    """The process-wide "warn once" memory for blocked env keys (§2.7): 4 096 pairs, LRU, no TTL."""

    def __init__(self, capacity: int = ENV_WARNING_DEDUPE_SIZE) -> None:
        self._capacity = capacity
        self._seen: OrderedDict[tuple[str, str], None] = OrderedDict()

    def first_time(self, key: tuple[str, str]) -> bool:
        """True the first time ``key`` is seen (recently); marks it as seen."""
        if key in self._seen:
            self._seen.move_to_end(key)
            return False
        self._seen[key] = None
        if len(self._seen) > self._capacity:
            self._seen.popitem(last=False)
        return True


@dataclass(frozen=True, slots=True)
class RuntimeTuning:
    """Overrides of reference timings, for tests and embedding (the reference has the same test hooks).

    ``catalog_list_timeout_ms`` replaces the ``tools/list`` deadline of §4.4 step 6 when set;
    ``dispose_timeout_ms`` is the length of each dispose phase (§3.7)."""

    dispose_timeout_ms: int = DISPOSE_TIMEOUT_MS
    catalog_list_timeout_ms: int | None = None
    max_list_pages: int = MAX_LIST_PAGES
    max_list_items: int = MAX_LIST_ITEMS
    max_list_bytes: int = MAX_LIST_BYTES


def _ignore_debug(_line: str) -> None:
    return None


@dataclass(frozen=True, slots=True)
class RuntimeServices:
    """What every server runtime of a process shares.

    ``warn`` receives warning text **without** the ``bundle-mcp: `` prefix (the CLI prints
    ``[bundle-mcp] <text>``); ``debug`` receives the connectors' debug lines (stdio stderr as
    ``bundle-mcp:<server>: <line>``). ``pins``: the tool pin store whose unreviewed tools are held out of the
    catalog (``application.runtime.pin_gate``); ``None``: no pinning at all."""

    connector: McpConnector
    clock: Clock
    warn: Callable[[str], None]
    debug: Callable[[str], None] = _ignore_debug
    tuning: RuntimeTuning = field(default_factory=RuntimeTuning)
    env_warnings: WarningDedupe = field(default_factory=WarningDedupe)
    telemetry: Telemetry = NO_TELEMETRY
    """Spans of connects and requests (docs/telemetry.md); records nothing by default."""
    pins: ToolPinStore | None = None

    def warn_transport(self, warnings: tuple[TransportWarning, ...]) -> None:
        """Warn each transport warning; one with a ``once`` key only the first time (process-wide, §2.7)."""
        for warning in warnings:
            if warning.once is None or self.env_warnings.first_time(warning.once):
                self.warn(warning.text)


@dataclass(frozen=True, slots=True)
class ServerSpec:
    """One server of a session: its raw definition (from the merged map, §10.8) and session-derived facts.

    ``safe_server_name`` is assigned session-wide (§5.2); ``denied_tool_names`` is the session deny set of
    this server (§6.6); ``fingerprint`` decides reuse on reload (§4.14, D12)."""

    server_name: str
    definition: object
    safe_server_name: str
    denied_tool_names: frozenset[str] = frozenset()
    plugin_owned: bool = False
    fingerprint: str = ""
    workspace_dir: str | None = None
    agent_dir: str | None = None
    plugin_data_dir: str | None = None
    mcp_apps_enabled: bool = False


class TaskHost:
    """Where runtime tasks run: a task group entered by the runtime's owner (a standalone
    :class:`~application.runtime.session_runtime.SessionRuntime` or the manager). Spawned functions take no
    arguments and must handle their own errors."""

    def __init__(self) -> None:
        self._tg: anyio.abc.TaskGroup | None = None

    @property
    def running(self) -> bool:
        return self._tg is not None

    def attach(self, task_group: anyio.abc.TaskGroup | None) -> None:
        self._tg = task_group

    def start_soon(self, func: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> None:
        if self._tg is None:
            raise RuntimeError("the MCP runtime is not running (enter it with `async with` first)")
        self._tg.start_soon(func, *args)


class LeaseCounter:
    """The active users of a runtime (§4.14 idle eviction skips a runtime with one)."""

    def __init__(self) -> None:
        self.count = 0

    def acquire(self) -> Callable[[], None]:
        """Count one user; the returned release is idempotent and never drops the count below 0."""
        self.count += 1
        released = False

        def release() -> None:
            nonlocal released
            if released:
                return
            released = True
            self.count = max(0, self.count - 1)

        return release
