"""The settings serve's Gateway connection uses (serve-bridge §3.4, §3.5): the one Gateway target resolver
(:mod:`openclaw_mcp.domain.gateway_target`) with serve's rules — a ``--url`` override without ``--token`` or
``--password`` sends no secret — and the remote TLS pin."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from openclaw_mcp.application.ports.gateway import GatewaySettings
from openclaw_mcp.domain.gateway_target import remote_tls_fingerprint, resolve_gateway_target

__all__ = ["serve_gateway_settings"]


def serve_gateway_settings(
    config: Mapping[str, Any],
    env: Mapping[str, str],
    config_path: str,
    *,
    cli_url: object = None,
    token: str | None = None,
    password: str | None = None,
    request_timeout_ms: int | None = None,
) -> GatewaySettings:
    """Where serve (and its approval route) connects, with which secret and pin; raises
    :class:`~openclaw_mcp.domain.gateway_url.GatewayTargetError` for an unusable URL or pin."""
    target = resolve_gateway_target(
        config, env, config_path, override_url=cli_url, explicit_token=token, explicit_password=password
    )
    fingerprint = remote_tls_fingerprint(config, target)
    settings = GatewaySettings(
        url=target.url, token=target.token, password=target.password, tls_fingerprint=fingerprint
    )
    return settings if request_timeout_ms is None else replace(settings, request_timeout_ms=request_timeout_ms)
