"""What a connection of the 2026-07-28 era adds on top of the shared SDK session (spec protocol-eras §3.1,
§3.6, §3.7): the ``server/discover`` result check, the ``resultType`` check and the ``input_required`` loop.

The loop is the SDK's own (``mcp.client._input_required.run_input_required_driver``: at most 10 rounds, the
50→250 ms backoff of state-only rounds); embedded input requests are answered by the SDK session's callbacks
(``ClientSession.dispatch_input_request``: the connector's elicitation handler, else the SDK's refusals). The
protocol facts (keys, versions, result types) are ``domain.mcp_eras``'s.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, Final

import mcp_types as types
from mcp.client._input_required import InputRequiredRoundsExceededError, run_input_required_driver
from mcp.client.session import ClientRequestContext, ClientSession
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from openclaw_mcp.application.ports.mcp import McpConnectError, McpError, McpRequestError
from openclaw_mcp.domain.mcp_eras import (
    RESULT_TYPE_COMPLETE,
    RESULT_TYPE_INPUT_REQUIRED,
    supports_modern,
)

__all__ = ["INPUT_REQUIRED_METHODS", "MAX_INPUT_ROUNDS", "discover_result", "resolve_result"]

INPUT_REQUIRED_METHODS: Final = frozenset({"tools/call", "prompts/get", "resources/read"})
"""The methods whose result may be ``input_required`` (§2.3)."""
MAX_INPUT_ROUNDS: Final = 10

Send = Callable[[dict[str, Any] | None], Awaitable[dict[str, Any]]]
"""Sends the request again (a new id, a fresh envelope) with these extra params; returns the raw result."""


def discover_result(raw: dict[str, Any]) -> types.DiscoverResult:
    """The validated ``server/discover`` result, or the connect failure of §3.1 step 5. A negative ``ttlMs`` reads
    as ``0`` (§2.3, as the SDK's ``_clamp_inbound_ttl`` does before its ``ge=0`` validation)."""
    ttl = raw.get("ttlMs")
    if isinstance(ttl, int | float) and not isinstance(ttl, bool) and ttl < 0:
        raw = {**raw, "ttlMs": 0}
    try:
        result = types.DiscoverResult.model_validate(raw, by_name=False)
    except ValidationError:
        raise McpConnectError("MCP server/discover returned an invalid result") from None
    if not supports_modern(list(result.supported_versions)):
        versions = ", ".join(result.supported_versions)
        raise McpConnectError(f"Server's protocol version is not supported: {versions}")
    return result


def _result_type(raw: dict[str, Any]) -> object:
    return raw.get("resultType", RESULT_TYPE_COMPLETE)


def _unsupported(method: str, value: object) -> McpError:
    shown = value if isinstance(value, str) else json.dumps(value)
    return McpError(f"MCP {method} returned an unsupported resultType: {shown}")


def _input_required(method: str, raw: dict[str, Any]) -> types.InputRequiredResult:
    try:
        return types.InputRequiredResult.model_validate(raw, by_name=False)
    except ValidationError:
        raise McpError(f"MCP {method} returned an invalid result") from None


async def resolve_result(
    session: ClientSession, method: str, raw: dict[str, Any], send: Send, request_id: Callable[[], int]
) -> dict[str, Any]:
    """The final result of a 2026 request whose first answer is ``raw`` (§3.6, §3.7): a complete result (absent
    ``resultType`` included) as received; ``input_required`` on an interactive method resolved through the
    SDK driver, each retry sent by ``send``; anything else an error. ``request_id``: the id on the wire now."""
    kind = _result_type(raw)
    if kind == RESULT_TYPE_COMPLETE:
        return raw
    if kind != RESULT_TYPE_INPUT_REQUIRED or method not in INPUT_REQUIRED_METHODS:
        raise _unsupported(method, kind)

    async def dispatch(key: str, request: types.InputRequest) -> types.InputResponse | types.ErrorData:
        context = ClientRequestContext(session=session, request_id=request_id())
        return await session.dispatch_input_request(context, request)

    async def retry(
        responses: types.InputResponses | None, state: str | None
    ) -> dict[str, Any] | types.InputRequiredResult:
        extra: dict[str, Any] = {}
        if responses:
            extra["inputResponses"] = {
                key: response.model_dump(by_alias=True, mode="json", exclude_none=True)
                for key, response in responses.items()
            }
        if state is not None:
            extra["requestState"] = state
        answer = await send(extra)
        kind = _result_type(answer)
        if kind == RESULT_TYPE_COMPLETE:
            return answer
        if kind == RESULT_TYPE_INPUT_REQUIRED:
            return _input_required(method, answer)
        raise _unsupported(method, kind)

    try:
        return await run_input_required_driver(
            _input_required(method, raw), dispatch=dispatch, retry=retry, max_rounds=MAX_INPUT_ROUNDS
        )
    except InputRequiredRoundsExceededError:
        raise McpError(f"Server returned InputRequiredResult for more than {MAX_INPUT_ROUNDS} rounds") from None
    except MCPError as exc:  # an input request the client refused
        raise McpRequestError(exc.code, exc.message, exc.data) from None
