"""``StdioMcpConnector``: MCP connections to servers run as child processes (spec client-runtime §1.10, §2.8,
§3, §4.9; decisions D5–D8, D16, D18).

The protocol runs on the MCP SDK client (``ClientSession`` over a ``JSONRPCDispatcher``), in the session
shared by every SDK-backed connector (``adapters.mcp_sdk``); this module owns the transport under it: the
child environment, the process (``process.py``), stdout framing with the 10 MiB cap (``_framing.py``; the
SDK's ``stdio_client`` has no cap, no process-group teardown timeline and no stderr callback) and the stderr
logger (``stderr.py``).
"""

from __future__ import annotations

import asyncio
import math
import os
import signal
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Final

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from openclaw_mcp.adapters.mcp_sdk.context import ConnectionContext, ConnectRequest, SdkMcpConnector
from openclaw_mcp.adapters.mcp_sdk.errors import CONNECTION_CLOSED_MESSAGE, connect_timeout_error
from openclaw_mcp.adapters.mcp_sdk.session import CONNECT_TIMEOUT_DISPOSE_CAP_MS, SdkMcpConnection
from openclaw_mcp.adapters.stdio._framing import LineFramer, ReadBufferOverflow, encode_message
from openclaw_mcp.adapters.stdio.process import ProcessGroupSurvived, StdioProcess
from openclaw_mcp.adapters.stdio.stderr import StderrLineLogger
from openclaw_mcp.application.ports.mcp import (
    ElicitationHandler,
    McpCleanupError,
    McpConnectError,
    McpConnection,
    McpConnector,
    McpError,
)
from openclaw_mcp.domain.failure import FailureDetail, stderr_tail
from openclaw_mcp.domain.redaction import redact_diagnostic, sanitize_for_log
from openclaw_mcp.domain.transport import StdioConfig

__all__ = ["DISPOSE_BUDGET_MS", "INHERITED_ENV_KEYS", "StdioMcpConnector", "child_environment"]

INHERITED_ENV_KEYS: Final = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
DISPOSE_BUDGET_MS: Final = 5_000
_EXIT_STDOUT_GRACE_S: Final = 0.1
"""After the process exits, how long its stdout may still deliver data before the transport closes."""


def child_environment(
    host_env: Mapping[str, str], server_env: Mapping[str, str] | None, report: Callable[[str], None]
) -> dict[str, str]:
    """§2.8: the six inherited host variables (no ``()``-prefixed values), then the filtered server env.

    Keys the OS cannot carry (empty, or containing ``=`` or NUL) are dropped and reported (D7).
    """
    env: dict[str, str] = {}
    for key in INHERITED_ENV_KEYS:
        value = host_env.get(key)
        if value is not None and not value.startswith("()"):
            env[key] = value
    for key, value in (server_env or {}).items():
        if not key or "=" in key or "\0" in key:
            report(key)
            continue
        env[key] = value
    return env


def _describe_exit(returncode: int | None) -> str:
    if returncode is not None and returncode < 0:
        try:
            return f"process exited on signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"process exited on signal {-returncode}"
    return f"process exited with code {returncode}"


def _spawn_failure(config: StdioConfig, exc: OSError | ValueError) -> FailureDetail:
    """Why the spawn failed (issue 36): a missing executable is named as such; other OS errors keep their text."""
    if isinstance(exc, FileNotFoundError) and exc.filename in (None, config.command):
        command = sanitize_for_log(redact_diagnostic(config.command))
        return FailureDetail("executable_not_found", f"executable not found: {command}")
    text = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    where = f": {exc.filename}" if isinstance(exc, OSError) and exc.filename is not None else ""
    return FailureDetail("spawn_failed", sanitize_for_log(redact_diagnostic(f"cannot start: {text}{where}")))


async def _prepare_plugin_data_dir(path: str) -> None:
    """``mkdir -p`` the plugin's ``PLUGIN_DATA`` directory before its server is spawned (spec §2, §10.7)."""
    try:
        await anyio.to_thread.run_sync(lambda: os.makedirs(path, exist_ok=True))
    except OSError as exc:
        detail = sanitize_for_log(exc.strerror or str(exc))
        raise McpConnectError(f'unable to prepare PLUGIN_DATA directory "{path}": {detail}') from exc


class StdioMcpConnector(SdkMcpConnector):
    """Opens stdio connections. ``inherited`` holds the variables a child may inherit, filtered by the env
    policy (default: ``os.environ`` at connect time) — data for the child, not settings of the adapter;
    ``raise_oom_score``: children raise their OOM score (``OPENCLAW_CHILD_OOM_SCORE_ADJ``, resolved by the entry)."""

    def __init__(
        self,
        *,
        inherited: Mapping[str, str] | None = None,
        raise_oom_score: bool = True,
        elicitation: ElicitationHandler | None = None,
    ) -> None:
        self._inherited = inherited
        self._raise_oom_score = raise_oom_score
        self.elicitation = elicitation

    def _context(self, request: ConnectRequest) -> _StdioConnection:
        inherited = os.environ if self._inherited is None else self._inherited
        return _StdioConnection(request, inherited, raise_oom_score=self._raise_oom_score)


class _StdioConnection(ConnectionContext):
    """The async context manager of one stdio connection (one child process)."""

    _already_started_message = "stdio transport already started or closed"

    def __init__(self, request: ConnectRequest, inherited: Mapping[str, str], *, raise_oom_score: bool) -> None:
        super().__init__(request)
        self._inherited = inherited
        self._raise_oom_score = raise_oom_score
        self._core = SdkMcpConnection(
            request.server_name,
            on_event=request.on_event,
            log=request.log,
            elicitation=request.elicitation,
            ui_extension=request.config.ui_extension,
        )
        self._framer = LineFramer()
        self._stdout_done = False
        self._read_send: MemoryObjectSendStream[SessionMessage | Exception] | None = None
        self._process: StdioProcess | None = None
        self._pumps: anyio.abc.TaskGroup | None = None

    async def _run(self, *, task_status: anyio.abc.TaskStatus[McpConnection]) -> None:
        config = self._config
        if not isinstance(config, StdioConfig):
            raise McpConnectError(f"stdio connector cannot open a {config.transport_type} transport")
        timeout_ms = config.connection_timeout_ms
        deadline = anyio.current_time() + timeout_ms / 1000
        loop = asyncio.get_running_loop()

        def schedule(delay: float, callback: Callable[[], None]) -> Callable[[], None]:
            return loop.call_later(delay, callback).cancel

        if config.plugin_data_dir is not None:
            await _prepare_plugin_data_dir(config.plugin_data_dir)
        stderr = StderrLineLogger(self._server_name, self._log, schedule)
        env = child_environment(self._inherited, config.env, self._report_env_key)
        read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](math.inf)
        write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)
        self._read_send = read_send
        with read_send, read_receive, write_send, write_receive:
            try:
                with anyio.CancelScope(deadline=deadline) as spawn_scope:
                    process = await StdioProcess.spawn(
                        [config.command, *(config.args or ())],
                        env=env,
                        cwd=config.cwd,
                        raise_oom_score=self._raise_oom_score,
                        on_stdout=self._on_stdout,
                        on_stderr=stderr.feed,
                    )
            except (OSError, ValueError) as exc:
                stderr.close()
                # The reference reports only "Connection closed" (observed); the OS error goes to the debug log.
                name = sanitize_for_log(self._server_name)
                self._log(f'bundle-mcp: server "{name}" failed to spawn: {sanitize_for_log(str(exc))}')
                error = McpConnectError(CONNECTION_CLOSED_MESSAGE)
                error.detail = _spawn_failure(config, exc)
                raise error from None
            if spawn_scope.cancelled_caught:
                stderr.close()
                raise connect_timeout_error(timeout_ms)
            await self._serve(process, stderr, read_receive, write_send, write_receive, deadline, task_status)

    async def _serve(
        self,
        process: StdioProcess,
        stderr: StderrLineLogger,
        read_receive: MemoryObjectReceiveStream[SessionMessage | Exception],
        write_send: MemoryObjectSendStream[SessionMessage],
        write_receive: MemoryObjectReceiveStream[SessionMessage],
        deadline: float,
        task_status: anyio.abc.TaskStatus[McpConnection],
    ) -> None:
        timeout_ms = self._config.connection_timeout_ms
        budget_ms = DISPOSE_BUDGET_MS
        forced = False
        failure: McpError | None = None
        exit_code: int | None = None
        async with anyio.create_task_group() as pumps:
            self._process, self._pumps = process, pumps
            pumps.start_soon(self._pump_stdin, process, write_receive)
            pumps.start_soon(self._watch_exit, process)
            self._core.set_spawner(pumps.start_soon)
            try:
                await self._core.start(read_receive, write_send)
                if await self._core.initialize_before(deadline):
                    task_status.started(self._core)
                    await self._stop_requested.wait()
                else:
                    budget_ms = min(timeout_ms, CONNECT_TIMEOUT_DISPOSE_CAP_MS)
                    failure = connect_timeout_error(timeout_ms)
            except McpError as exc:
                failure = exc  # raised outside the task group, not as an exception group
                exit_code = process.returncode  # before the dispose: did the server end on its own?
            except anyio.get_cancelled_exc_class():
                forced = True
                raise
            finally:
                try:
                    await self._dispose(process, budget_ms / 1000, forced=forced)
                finally:
                    self._stdout_done = True
                    pumps.cancel_scope.cancel()
                    stderr.close()
        if failure is not None:
            if failure.detail is None:
                exited = exit_code is not None
                reason = _describe_exit(exit_code) if exited else None
                failure.detail = FailureDetail("exited" if exited else "other", reason, stderr_tail(stderr.tail))
            raise failure

    async def _dispose(self, process: StdioProcess, budget_s: float, *, forced: bool) -> None:
        """§3.7: graceful close within the budget, else forced close within another; then the session."""
        self._core.begin_close()
        failure: BaseException | None = None
        cancelled: BaseException | None = None
        finished = False
        if not forced:
            try:
                with anyio.move_on_after(budget_s):
                    await process.close()
                    finished = True
            except ProcessGroupSurvived as exc:
                failure, finished = exc, True
            except anyio.get_cancelled_exc_class() as exc:
                cancelled = exc
        with anyio.CancelScope(shield=True):
            if not finished:
                with anyio.move_on_after(budget_s):
                    try:
                        await process.close(force=True)
                        finished = True
                    except ProcessGroupSurvived as exc:
                        failure, finished = exc, True
            process.release()
        if failure is not None or not finished:
            error = McpCleanupError("MCP stdio transport could not confirm that the server's process group exited")
            error.__cause__ = failure
            self._cleanup_error = error
        # Not under a new scope: the SDK session's task group was entered before this function ran.
        await self._core.stop()
        if cancelled is not None:
            raise cancelled

    def _on_stdout(self, chunk: bytes) -> None:
        read_send = self._read_send
        if self._stdout_done or read_send is None:
            return
        try:
            items: list[SessionMessage | Exception] = self._framer.feed(chunk)
        except ReadBufferOverflow as exc:
            self._deliver(read_send, [exc])
            self._fail_transport(str(exc))
            return
        self._deliver(read_send, items)

    def _deliver(
        self, read_send: MemoryObjectSendStream[SessionMessage | Exception], items: list[SessionMessage | Exception]
    ) -> None:
        for item in items:
            try:
                read_send.send_nowait(item)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return  # the session is gone; late pipe data is dropped

    def _fail_transport(self, reason: str) -> None:
        """The transport closes itself (stdout overflow, stdin write failure): end it and stop the process."""
        if self._stdout_done:
            return
        self._end_stdout(reason)
        if self._pumps is not None:
            self._pumps.start_soon(self._close_process)

    def _end_stdout(self, reason: str) -> None:
        """The transport closes: what was read is delivered, then the session sees the end."""
        if self._stdout_done:
            return
        self._stdout_done = True
        self._framer.clear()
        self._core.set_close_reason(reason)
        if self._read_send is not None:
            self._read_send.close()

    async def _watch_exit(self, process: StdioProcess) -> None:
        await process.exited.wait()
        with anyio.move_on_after(_EXIT_STDOUT_GRACE_S):
            await process.stdout_closed.wait()
        self._end_stdout(_describe_exit(process.returncode))
        # The close (§3.3) also reaps whatever the server left in its group.
        await self._close_process()

    async def _close_process(self) -> None:
        """The transport's own close (exit, overflow); the dispose joins the same close later."""
        if self._process is None:
            return
        try:
            await self._process.close()
        except ProcessGroupSurvived:
            pass  # the dispose runs the same close and reports it

    async def _pump_stdin(self, process: StdioProcess, messages: MemoryObjectReceiveStream[SessionMessage]) -> None:
        async for message in messages:
            try:
                await process.write(encode_message(message))
            except OSError as exc:
                if not self._stdout_done:
                    name = sanitize_for_log(self._server_name)
                    self._log(f'bundle-mcp: server "{name}" transport error: stdin write failed: {exc}')
                    self._fail_transport(f"stdin write failed: {exc}")

    def _report_env_key(self, key: str) -> None:
        self._log(
            f'bundle-mcp: server "{sanitize_for_log(self._server_name)}": env "{sanitize_for_log(key)}" '
            "is blocked for stdio startup safety and was ignored."
        )


if TYPE_CHECKING:
    _connector: McpConnector = StdioMcpConnector()
