"""The ``automations`` tool (alias ``cron``) up to the Gateway: arguments, local checks and what to do next
(spec openclaw-tools.md §5, §6.1, §6.2; decision D-OT2).

upstream: ``src/agents/tools/cron-tool.ts``, ``cron-tool-canonicalize.ts``, ``cron-tool-write.ts``,
``cron-tool-context.ts``, ``common.ts`` (parameter readers), ``cron/normalize.ts``, ``cron/pacing.ts``,
``cron/delivery-target-validation.ts``, ``cron/webhook-url.ts``, ``gateway.ts`` (identity rule).

:func:`plan_automations_call` turns the call's arguments into one outcome:

* :class:`Fail` — a local error text (argument checks, ``gatewayUrl`` checks, the identity error);
* :class:`CallStatus` — send ``cron.status {}`` and return its payload as the JSON result;
* :class:`FetchHistoryThenFail` — ``add`` with ``contextMessages`` > 0 and a ``systemEvent`` text: send
  ``chat.history``, ignore its outcome, then fail with the identity error.

Identity-gated methods (``cron.list/get/add/update/remove/run/runs``, ``wake``) are never sent (D-OT2).
Not modelled from the reference's job normaliser (its texts would precede the identity error): the
``schedule.staggerMs`` check of ``cron`` schedules and the ``session:<id>`` target-id check.

The argument readers, the job canonicalisation and normaliser, and the local checks are in the private modules
:mod:`._automation_params`, :mod:`._automation_jobs` and :mod:`._automation_checks`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from openclaw_mcp.domain.openclaw_tools._automation_checks import check_label, check_webhook, common_checks
from openclaw_mcp.domain.openclaw_tools._automation_jobs import (
    canonicalize,
    drop_nulls,
    empty_recovered_patch,
    job_argument,
    normalize_job,
    require_object,
)
from openclaw_mcp.domain.openclaw_tools._automation_params import (
    ToolInputError,
    has_text,
    read_non_negative,
    read_positive,
    read_string,
    require_job_id,
    require_string,
)
from openclaw_mcp.domain.openclaw_tools.tool_gateway import GatewayTargetError, ToolGateway, resolve_tool_gateway

__all__ = [
    "DEFAULT_TIMEOUT_MS",
    "IDENTITY_ERROR",
    "READ_SCOPES",
    "TRUSTED_CONTEXT_ERROR",
    "AutomationsOutcome",
    "CallStatus",
    "Fail",
    "FetchHistoryThenFail",
    "GatewayRequest",
    "plan_automations_call",
]

IDENTITY_ERROR: Final = "trusted operational run instance required for this gateway call"
TRUSTED_CONTEXT_ERROR: Final = "agent gateway calls require the trusted local gateway context"
DEFAULT_TIMEOUT_MS: Final = 60_000
READ_SCOPES: Final = ("operator.read",)
_NEXT_CHECK_ERROR: Final = "cron next_check is only available to the currently running job"


# --- outcomes ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GatewayRequest:
    """One allowed Gateway request (§6.3): method, params, least-privilege scopes, timeout, tool options."""

    method: str
    params: dict[str, Any]
    scopes: tuple[str, ...]
    timeout_ms: int
    gateway: ToolGateway


@dataclass(frozen=True, slots=True)
class Fail:
    """The call fails locally with ``Tool error: <message>``."""

    message: str


@dataclass(frozen=True, slots=True)
class CallStatus:
    """``status``: send the request and return its payload as the JSON result."""

    request: GatewayRequest


@dataclass(frozen=True, slots=True)
class FetchHistoryThenFail:
    """``add`` with reminder context (§6.2 step 7): send ``chat.history``, ignore its result or error, then
    fail with ``message``."""

    request: GatewayRequest
    message: str


AutomationsOutcome = Fail | CallStatus | FetchHistoryThenFail


# --- actions ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Context:
    params: Mapping[str, Any]
    session_key: str
    agent_id: str
    config: Mapping[str, Any]
    env: Mapping[str, str]
    gateway_url: str | None
    gateway_token: str | None
    timeout_ms: int

    def tool_gateway(self) -> ToolGateway:
        return resolve_tool_gateway(self.config, self.env, self.gateway_url, self.gateway_token)

    def request(self, method: str, params: dict[str, Any]) -> GatewayRequest:
        return GatewayRequest(method, params, READ_SCOPES, self.timeout_ms, self.tool_gateway())


def _identity_failure(ctx: _Context) -> str:
    """Why an identity-gated method cannot be sent (§6.1 "Why"): ``gatewayUrl`` validation first."""
    gateway = ctx.tool_gateway()
    return TRUSTED_CONTEXT_ERROR if gateway.explicit or gateway.target != "local" else IDENTITY_ERROR


def _plan_list(ctx: _Context) -> AutomationsOutcome:
    read_positive(ctx.params, "limit", maximum=200, message="limit must be a positive integer no greater than 200")
    read_non_negative(ctx.params, "offset")
    return Fail(_identity_failure(ctx))


def _plan_add(ctx: _Context) -> AutomationsOutcome:
    """§6.2, in order."""
    job, _ = job_argument(ctx.params, create=True)
    require_object(job)
    canonical = canonicalize(job)
    drop_nulls(canonical, keep=frozenset({"agentId", "sessionKey"}))
    common_checks(canonical)
    check_label(canonical, "declarationKey", "declarationKey must be a non-empty string")
    check_label(canonical, "displayName", "displayName must be a non-empty string")
    normalized = normalize_job(canonical)
    check_webhook(normalized)
    context_messages = read_non_negative(ctx.params, "contextMessages") or 0
    try:
        message = _identity_failure(ctx)
    except GatewayTargetError as exc:
        return Fail(exc.text)
    payload = normalized.get("payload")
    limit = min(10, context_messages)
    if (
        limit > 0
        and isinstance(payload, dict)
        and payload.get("kind") == "systemEvent"
        and has_text(payload.get("text"))
    ):
        history = {"sessionKey": ctx.session_key, "agentId": ctx.agent_id, "limit": limit}
        return FetchHistoryThenFail(ctx.request("chat.history", history), message)
    return Fail(message)


def _plan_update(ctx: _Context) -> AutomationsOutcome:
    """§6.1 ``update``: id, job (or flat keys), §6.2 steps 2–4, ``displayName``."""
    require_job_id(ctx.params)
    job, recovered = job_argument(ctx.params, create=False)
    require_object(job)
    canonical = canonicalize(job)
    common_checks(canonical)
    check_label(canonical, "displayName", "displayName must be a non-empty string or null")
    patch = normalize_job(canonical)
    if recovered and empty_recovered_patch(patch):
        raise ToolInputError("job required")
    return Fail(_identity_failure(ctx))


def _plan_action(action: str, ctx: _Context) -> AutomationsOutcome:
    if action == "status":
        return CallStatus(ctx.request("cron.status", {}))
    if action == "list":
        return _plan_list(ctx)
    if action in ("get", "remove", "runs", "run"):
        require_job_id(ctx.params)
        return Fail(_identity_failure(ctx))
    if action == "add":
        return _plan_add(ctx)
    if action == "update":
        return _plan_update(ctx)
    if action == "next_check":
        return Fail(_NEXT_CHECK_ERROR)
    if action == "wake":
        require_string(ctx.params, "text")
        return Fail(_identity_failure(ctx))
    return Fail(f"Unknown action: {action}")


def plan_automations_call(
    arguments: Mapping[str, Any] | None,
    *,
    session_key: str,
    agent_id: str,
    config: Mapping[str, Any],
    env: Mapping[str, str],
) -> AutomationsOutcome:
    """What one ``automations`` call does (§5, §6.1): ``action`` first, then the Gateway options
    (``gatewayUrl``/``gatewayToken`` untrimmed, ``timeoutMs`` default 60 000), then the action's checks."""
    params: Mapping[str, Any] = arguments if isinstance(arguments, Mapping) else {}
    try:
        action = require_string(params, "action")
        ctx = _Context(
            params=params,
            session_key=session_key,
            agent_id=agent_id,
            config=config,
            env=env,
            gateway_url=read_string(params, "gatewayUrl", trim=False),
            gateway_token=read_string(params, "gatewayToken", trim=False),
            timeout_ms=read_positive(params, "timeoutMs") or DEFAULT_TIMEOUT_MS,
        )
        return _plan_action(action, ctx)
    except ToolInputError as exc:
        return Fail(str(exc))
    except GatewayTargetError as exc:
        return Fail(exc.text)
