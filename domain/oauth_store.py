"""Validation of a stored MCP OAuth store row when it is read (spec cli-registry §7.4)."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["StoreRowInvalid", "decode_store_row"]


class StoreRowInvalid(ValueError):
    """``str(exc)`` is ``MCP OAuth store <key> is invalid: <detail>``."""


_STATES = ("uninitialized", "cleared")
_STRING_FIELDS = ("codeVerifier", "lastAuthorizationUrl", "redirectUrl")


def decode_store_row(store_key: str, format_version: object, store_json: object) -> dict[str, Any]:
    """The store object of one ``mcp_oauth_stores`` row, or ``StoreRowInvalid``."""

    def invalid(detail: str) -> StoreRowInvalid:
        return StoreRowInvalid(f"MCP OAuth store {store_key} is invalid: {detail}")

    if format_version != 1:
        raise invalid(f"unsupported format version {format_version}")
    try:
        value = json.loads(store_json) if isinstance(store_json, str) else None
    except ValueError:
        value = None
        raise invalid("store_json is not valid JSON") from None
    if not isinstance(value, dict):
        raise invalid("store_json must contain an object")
    if "clientInformation" in value and not (
        isinstance(value["clientInformation"], dict) and isinstance(value["clientInformation"].get("client_id"), str)
    ):
        raise invalid("clientInformation is invalid")
    tokens = value.get("tokens")
    if "tokens" in value and not (
        isinstance(tokens, dict)
        and isinstance(tokens.get("access_token"), str)
        and isinstance(tokens.get("token_type"), str)
    ):
        raise invalid("tokens are invalid")
    state = value.get("credentialState")
    if "credentialState" in value:
        if state not in _STATES:
            raise invalid("credentialState is invalid")
        if "tokens" in value:
            raise invalid("credentialState cannot coexist with tokens")
        if state == "uninitialized" and set(value) - {"credentialState", "pendingAuthorizationChallenge"}:
            raise invalid("uninitialized credential state contains authoritative OAuth fields")
    if "tokenExpiresAt" in value:
        expires = value["tokenExpiresAt"]
        if isinstance(expires, bool) or not isinstance(expires, int | float) or not expires >= 0:
            raise invalid("tokenExpiresAt is invalid")
        if "tokens" not in value:
            raise invalid("tokenExpiresAt requires tokens")
    for key in _STRING_FIELDS:
        if key in value and not (isinstance(value[key], str) and value[key]):
            raise invalid(f"{key} must be a non-empty string")
    return value
