"""The ``automations`` tool's executor: plan the call, perform the allowed Gateway request, map failures
(spec openclaw-tools.md §5, §6.1–§6.3; decision D-OT2).

Only ``cron.status`` and ``chat.history`` are ever sent, through the :class:`GatewayCaller` port; everything
identity-gated fails locally (:mod:`openclaw_mcp.domain.openclaw_tools.automations`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from openclaw_mcp.application.ports.gateway import (
    DeviceIdentity,
    DeviceIdentityStore,
    GatewayCaller,
    GatewayCallTarget,
    GatewayClosed,
    GatewayError,
    GatewayRequestError,
    GatewayTimeout,
    GatewayUnreachable,
)
from openclaw_mcp.domain.openclaw_tools.automations import (
    CallStatus,
    Fail,
    FetchHistoryThenFail,
    GatewayRequest,
    plan_automations_call,
)
from openclaw_mcp.domain.openclaw_tools.tool_gateway import (
    CallTarget,
    GatewayTargetError,
    closed_message,
    credentials_required_message,
    is_unreachable_code,
    resolve_call_target,
    timeout_message,
    unreachable_message,
)
from openclaw_mcp.domain.plugin_tools.results import error_call_result
from openclaw_mcp.domain.redaction import redact_sensitive_text

__all__ = ["AutomationsTool", "ToolFailure"]


class ToolFailure(Exception):
    """A Gateway call failed; ``str(exc)`` is the tool error message (before redaction)."""


def _json_result(payload: Any) -> dict[str, Any]:
    """§5 *JSON result*: one text block, the payload as 2-space JSON."""
    return {"content": [{"type": "text", "text": json.dumps(payload, indent=2, ensure_ascii=False)}]}


def _error_result(message: str) -> dict[str, Any]:
    return error_call_result(f"Tool error: {redact_sensitive_text(message)}")


def _failure_text(exc: GatewayError, target: CallTarget, timeout_ms: int) -> str:
    """The §6.3 failure table for what the port raised."""
    if isinstance(exc, GatewayUnreachable) and is_unreachable_code(exc.code):
        return unreachable_message(target.details, exc.code)
    if isinstance(exc, GatewayTimeout):
        return timeout_message(timeout_ms, target.details)
    if isinstance(exc, GatewayClosed):
        return closed_message(str(exc), target.details)
    return str(exc)


class AutomationsTool:
    """``automations`` bound to its caller (session key, agent id), the config and the environment (§3)."""

    def __init__(
        self,
        *,
        session_key: str,
        agent_id: str,
        config: dict[str, Any],
        config_path: str,
        env: Mapping[str, str],
        caller: GatewayCaller,
        log: Callable[[str], None],
        device_identities: DeviceIdentityStore | None = None,
    ) -> None:
        self._session_key = session_key
        self._agent_id = agent_id
        self._config = config
        self._config_path = config_path
        self._env = env
        self._caller = caller
        self._log = log
        self._devices = device_identities

    async def call(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """The MCP ``tools/call`` result of one call (§5)."""
        outcome = plan_automations_call(
            arguments,
            session_key=self._session_key,
            agent_id=self._agent_id,
            config=self._config,
            env=self._env,
        )
        if isinstance(outcome, Fail):
            return _error_result(outcome.message)
        if isinstance(outcome, FetchHistoryThenFail):
            await self._fetch_history(outcome.request)
            return _error_result(outcome.message)
        return await self._status(outcome)

    async def _status(self, outcome: CallStatus) -> dict[str, Any]:
        try:
            payload = await self.request(outcome.request)
        except ToolFailure as exc:
            return _error_result(str(exc))
        return _json_result(payload)

    async def _fetch_history(self, request: GatewayRequest) -> None:
        """§6.2 step 7: the reminder context is requested; its result and errors do not matter here (the
        ``cron.add`` that would carry it is identity-gated)."""
        try:
            await self.request(request)
        except ToolFailure:
            return

    async def request(self, request: GatewayRequest) -> Any:
        """Send one allowed request (§6.3). Raises :class:`ToolFailure` with the §6.3 text."""
        try:
            target = resolve_call_target(self._config, self._env, self._config_path, request.gateway)
        except GatewayTargetError as exc:
            raise ToolFailure(exc.text) from exc
        call_target = await self._call_target(target, request.method)
        try:
            return await self._caller.call(
                call_target,
                request.method,
                request.params,
                scopes=request.scopes,
                timeout_ms=request.timeout_ms,
                log=self._log,
            )
        except GatewayRequestError as exc:
            raise ToolFailure(str(exc)) from exc
        except GatewayError as exc:
            raise ToolFailure(_failure_text(exc, target, request.timeout_ms)) from exc

    async def _device(self, target: CallTarget) -> tuple[DeviceIdentity | None, str | None]:
        """The state dir's identity and operator token, when needed; none when the store fails (as the
        reference's ``resolveDeviceIdentityForGatewayCall``)."""
        if not target.needs_device or self._devices is None:
            return None, None
        try:
            device = await self._devices.load_or_create_identity()
            return device, await self._devices.load_token(device.device_id, "operator")
        except GatewayError:
            return None, None

    async def _call_target(self, target: CallTarget, method: str) -> GatewayCallTarget:
        """The port's target; the device identity (and its stored token) when ``connect`` needs one; the
        credentials error when the auth mode needs a secret and neither a secret nor a device token exists."""
        device, device_token = await self._device(target)
        if target.missing_credentials and not device_token:
            raise ToolFailure(credentials_required_message(method, self._config_path))
        return GatewayCallTarget(
            url=target.url,
            token=target.token,
            password=target.password,
            device=device,
            device_token=device_token,
        )
