"""The MCP OAuth store object (spec cli-registry §7.4, §7.5, §7.7): validation, encoding and mutations.

A store is a plain JSON object (``dict``) kept as compact JSON in one ``mcp_oauth_stores`` row. This module
validates a store exactly as the reference does when it reads a row or before it writes one (the
``OAuthClientInformation``/``OAuthTokens``/metadata schemas of the MCP SDK included), encodes it as
``JSON.stringify`` does, and holds the §7.5 mutations as pure functions ``store -> new store`` (``None`` for
"no change"), ready to be the ``change`` of ``OAuthCredentialStore.update``::

    await credentials.update(lease, key, functools.partial(set_tokens, tokens=tokens, now_ms=now))

Mutations never modify their argument; unknown fields are kept, new fields are appended.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from openclaw_mcp.domain.oauth_schemas import (
    CLIENT_INFORMATION_SCHEMA,
    OAUTH_METADATA_SCHEMA,
    OPENID_METADATA_SCHEMA,
    RESOURCE_METADATA_SCHEMA,
    TOKENS_SCHEMA,
    is_js_number,
)
from openclaw_mcp.jscompat.jsjson import js_dumps
from openclaw_mcp.jscompat.jsonparse import parse_json
from openclaw_mcp.jscompat.text import js_trim
from openclaw_mcp.jscompat.urls import can_parse_url

__all__ = [
    "CLEARED_STORE",
    "DEFAULT_REDIRECT_URL",
    "PENDING_TTL_MS",
    "InvalidateScope",
    "StoreRowInvalid",
    "authorization_challenge",
    "authorization_redirect",
    "bind_tokens_issuer",
    "challenge_applies",
    "clear",
    "complete_authorization",
    "decode_store",
    "decode_store_row",
    "encode_for_write",
    "encode_store",
    "invalidate",
    "set_client_information",
    "set_discovery_state",
    "set_tokens",
    "token_expires_at",
    "validate_store",
]

PENDING_TTL_MS = 600_000
"""How long a pending authorization (``mcp_oauth_pending_authorizations`` row) stays claimable (§7.7)."""

DEFAULT_REDIRECT_URL = "http://127.0.0.1:8989/oauth/callback"
"""The redirect URI used when neither the config nor the store names one (§7.5, §7.8.1)."""

CLEARED_STORE: Mapping[str, str] = {"credentialState": "cleared"}
"""The store after a logout (§7.10); use :func:`clear` for a fresh copy."""

InvalidateScope = Literal["all", "client", "tokens", "verifier", "discovery"]


class StoreRowInvalid(ValueError):
    """A store that fails §7.4 validation; ``str(exc)`` is ``MCP OAuth store <key> is invalid: <detail>``."""

    def __init__(self, store_key: str, detail: str) -> None:
        super().__init__(f"MCP OAuth store {store_key} is invalid: {detail}")
        self.store_key = store_key
        self.detail = detail


# --- Validation ----------------------------------------------------------------------------------------

_CREDENTIAL_STATES = ("uninitialized", "cleared")
_UNINITIALIZED_FIELDS = frozenset({"credentialState", "pendingAuthorizationChallenge"})
_STRING_FIELDS = ("codeVerifier", "lastAuthorizationUrl", "redirectUrl")


def _discovery_state_issue(value: object) -> str | None:
    if not isinstance(value, dict) or not isinstance(value.get("authorizationServerUrl"), str):
        return "discoveryState is invalid"
    if not can_parse_url(value["authorizationServerUrl"]):
        return "discoveryState URLs are invalid"
    if "resourceMetadataUrl" in value:
        url = value["resourceMetadataUrl"]
        if not isinstance(url, str) or not can_parse_url(url):
            return "discoveryState URLs are invalid"
    if "resourceMetadata" in value and not RESOURCE_METADATA_SCHEMA(value["resourceMetadata"]):
        return "discoveryState resource metadata is invalid"
    if "authorizationServerMetadata" in value:
        metadata = value["authorizationServerMetadata"]
        if not OAUTH_METADATA_SCHEMA(metadata) and not OPENID_METADATA_SCHEMA(metadata):
            return "discoveryState authorization server metadata is invalid"
    return None


def _challenge_issue(value: object) -> str | None:
    if not isinstance(value, dict):
        return "pendingAuthorizationChallenge is invalid"
    if "resourceMetadataUrl" in value:
        url = value["resourceMetadataUrl"]
        if not isinstance(url, str) or not can_parse_url(url):
            return "pendingAuthorizationChallenge URL is invalid"
    if "scope" in value and not (isinstance(value["scope"], str) and value["scope"]):
        return "pendingAuthorizationChallenge scope is invalid"
    if "requiresAuthorization" in value and value["requiresAuthorization"] is not True:
        return "pendingAuthorizationChallenge requiresAuthorization must be true"
    return None


def _store_issue(store: Mapping[str, Any]) -> str | None:
    """The first §7.4 rule ``store`` breaks (in the reference's order), or ``None``."""
    if "clientInformation" in store and not CLIENT_INFORMATION_SCHEMA(store["clientInformation"]):
        return "clientInformation is invalid"
    if "tokens" in store and not TOKENS_SCHEMA(store["tokens"]):
        return "tokens are invalid"
    if "credentialState" in store:
        if not isinstance(store["credentialState"], str) or store["credentialState"] not in _CREDENTIAL_STATES:
            return "credentialState is invalid"
        if "tokens" in store:
            return "credentialState cannot coexist with tokens"
        if store["credentialState"] == "uninitialized" and not set(store) <= _UNINITIALIZED_FIELDS:
            return "uninitialized credential state contains authoritative OAuth fields"
    if "tokenExpiresAt" in store:
        expires = store["tokenExpiresAt"]
        if not is_js_number(expires) or expires < 0:
            return "tokenExpiresAt is invalid"
        if "tokens" not in store:
            return "tokenExpiresAt requires tokens"
    if "tokensAuthorizationServerUrl" in store:
        url = store["tokensAuthorizationServerUrl"]
        if not isinstance(url, str) or not can_parse_url(url):
            return "tokensAuthorizationServerUrl is invalid"
        if "tokens" not in store:
            return "tokensAuthorizationServerUrl requires tokens"
    for field in _STRING_FIELDS:
        if field in store and not (isinstance(store[field], str) and store[field]):
            return f"{field} must be a non-empty string"
    if "discoveryState" in store:
        issue = _discovery_state_issue(store["discoveryState"])
        if issue is not None:
            return issue
    if "pendingAuthorizationChallenge" in store:
        return _challenge_issue(store["pendingAuthorizationChallenge"])
    return None


def validate_store(store_key: str, store: object) -> None:
    """Check a decoded store object against §7.4; raise :class:`StoreRowInvalid` naming the first problem
    (``store_json must contain an object`` when ``store`` is not an object)."""
    if not isinstance(store, dict):
        raise StoreRowInvalid(store_key, "store_json must contain an object")
    issue = _store_issue(store)
    if issue is not None:
        raise StoreRowInvalid(store_key, issue)


def decode_store(store_key: str, store_json: object) -> dict[str, Any]:
    """``JSON.parse`` the stored text and validate it (§7.4); :class:`StoreRowInvalid` otherwise."""
    if not isinstance(store_json, str):
        raise StoreRowInvalid(store_key, "store_json is not valid JSON")
    try:
        value = parse_json(store_json)
    except (ValueError, RecursionError):
        raise StoreRowInvalid(store_key, "store_json is not valid JSON") from None
    validate_store(store_key, value)
    result: dict[str, Any] = value
    return result


def decode_store_row(store_key: str, format_version: object, store_json: object) -> dict[str, Any]:
    """The store object of one ``mcp_oauth_stores`` row (format version 1), or :class:`StoreRowInvalid`."""
    if format_version != 1 or isinstance(format_version, bool):
        raise StoreRowInvalid(store_key, f"unsupported format version {format_version}")
    return decode_store(store_key, store_json)


def encode_store(store: Mapping[str, Any]) -> str:
    """The compact JSON text of ``store`` as ``JSON.stringify`` writes it (key order kept, integer-like keys
    first as in JavaScript). ``TypeError`` for values that are not JSON data."""
    return js_dumps(dict(store), indent=None)


def encode_for_write(store_key: str, store: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """What a writer stores: the compact JSON of ``store`` and that text decoded again, after the re-validation
    every write runs (§7.4). Raises :class:`StoreRowInvalid` (nothing may be written then)."""
    text = encode_store(store)
    return text, decode_store(store_key, text)


# --- Mutations (§7.5) ----------------------------------------------------------------------------------


def _normalized(value: object) -> str | None:
    """The reference's ``normalizeOptionalString``: the JS-trimmed string, ``None`` when blank or no string."""
    if not isinstance(value, str):
        return None
    return js_trim(value) or None


def _begin(store: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``store`` without an ``uninitialized`` credential state (an authorization begins)."""
    result = dict(store)
    if result.get("credentialState") == "uninitialized":
        del result["credentialState"]
    return result


def _discovery_server(store: Mapping[str, Any]) -> object | None:
    discovery = store.get("discoveryState")
    return discovery.get("authorizationServerUrl") if isinstance(discovery, dict) else None


def set_client_information(store: Mapping[str, Any], client_information: Mapping[str, Any]) -> dict[str, Any]:
    """``clientInformation``: begin an authorization and store the registration (client) information."""
    result = _begin(store)
    result["clientInformation"] = dict(client_information)
    return result


def set_discovery_state(store: Mapping[str, Any], discovery_state: Mapping[str, Any]) -> dict[str, Any]:
    """``discoveryState``: begin an authorization and store the discovery result."""
    result = _begin(store)
    result["discoveryState"] = dict(discovery_state)
    return result


def authorization_redirect(
    store: Mapping[str, Any],
    code_verifier: str | None,
    authorization_url: str,
    configured_redirect_url: str | None = None,
) -> dict[str, Any]:
    """``authorizationRedirect``: begin; store the PKCE ``codeVerifier`` (when non-empty), the authorization
    URL and the redirect URI — the configured ``oauth.redirectUrl`` (trimmed), else the stored one, else
    :data:`DEFAULT_REDIRECT_URL`."""
    result = _begin(store)
    if code_verifier:
        result["codeVerifier"] = code_verifier
    result["lastAuthorizationUrl"] = authorization_url
    result["redirectUrl"] = (
        _normalized(configured_redirect_url) or _normalized(store.get("redirectUrl")) or DEFAULT_REDIRECT_URL
    )
    return result


def token_expires_at(tokens: Mapping[str, Any], now_ms: int) -> int | float | None:
    """``now + expires_in × 1000`` when ``expires_in`` is a finite number, else ``None``."""
    expires_in = tokens.get("expires_in")
    if not isinstance(expires_in, int | float) or not is_js_number(expires_in):
        return None
    value: int | float = now_ms + expires_in * 1000
    return int(value) if isinstance(value, float) and value.is_integer() else value


def set_tokens(store: Mapping[str, Any], tokens: Mapping[str, Any], now_ms: int) -> dict[str, Any]:
    """``tokens``: store the token response; drop ``credentialState`` and ``pendingAuthorizationChallenge``;
    ``tokensAuthorizationServerUrl`` = the discovery state's authorization server (else removed);
    ``tokenExpiresAt`` from ``expires_in`` (else removed)."""
    result = dict(store)
    result["tokens"] = dict(tokens)
    result.pop("credentialState", None)
    result.pop("pendingAuthorizationChallenge", None)
    issuer = _discovery_server(store)
    if issuer is None:
        result.pop("tokensAuthorizationServerUrl", None)
    else:
        result["tokensAuthorizationServerUrl"] = issuer
    expires_at = token_expires_at(tokens, now_ms)
    if expires_at is None:
        result.pop("tokenExpiresAt", None)
    else:
        result["tokenExpiresAt"] = expires_at
    return result


def _bound(store: Mapping[str, Any]) -> dict[str, Any] | None:
    tokens = store.get("tokens")
    issuer = _discovery_server(store)
    refresh = tokens.get("refresh_token") if isinstance(tokens, dict) else None
    if not refresh or "tokensAuthorizationServerUrl" in store or issuer is None:
        return None
    result = dict(store)
    result["tokensAuthorizationServerUrl"] = issuer
    return result


def bind_tokens_issuer(store: Mapping[str, Any]) -> dict[str, Any] | None:
    """``bindTokensIssuer``: when the tokens carry a refresh token, no issuer is recorded yet and a discovery
    authorization server is known, record it as ``tokensAuthorizationServerUrl``; ``None`` otherwise."""
    return _bound(store)


def challenge_applies(store: Mapping[str, Any], rejected_access_token: str | None) -> bool:
    """Whether an authorization challenge is applied: no rejected token was named, or it is the stored
    access token."""
    if rejected_access_token is None:
        return True
    tokens = store.get("tokens")
    stored = tokens.get("access_token") if isinstance(tokens, dict) else None
    return bool(stored == rejected_access_token and isinstance(stored, str))


_AUTHORITATIVE_FIELDS = (
    "credentialState",
    "tokens",
    "clientInformation",
    "codeVerifier",
    "discoveryState",
    "lastAuthorizationUrl",
    "redirectUrl",
)


def authorization_challenge(
    store: Mapping[str, Any],
    resource_metadata_url: str | None = None,
    scope: str | None = None,
    requires_authorization: bool = False,
    rejected_access_token: str | None = None,
) -> dict[str, Any] | None:
    """``authorizationChallenge``: ``None`` ("not applied") when ``rejected_access_token`` is given and is not
    the stored access token. Otherwise merge the non-empty fields into ``pendingAuthorizationChallenge``
    (``requiresAuthorization: true`` only when asked); mark an otherwise empty store ``uninitialized``; and
    when the challenge names a resource metadata URL other than the discovery state's, bind the tokens'
    issuer and drop ``discoveryState`` (it must be rediscovered)."""
    if not challenge_applies(store, rejected_access_token):
        return None
    previous = store.get("pendingAuthorizationChallenge")
    challenge: dict[str, Any] = dict(previous) if isinstance(previous, dict) else {}
    if resource_metadata_url:
        challenge["resourceMetadataUrl"] = resource_metadata_url
    if scope:
        challenge["scope"] = scope
    if requires_authorization:
        challenge["requiresAuthorization"] = True
    result = dict(store)
    result["pendingAuthorizationChallenge"] = challenge
    if not any(field in store for field in _AUTHORITATIVE_FIELDS):
        result["credentialState"] = "uninitialized"
    discovery = store.get("discoveryState")
    known = discovery.get("resourceMetadataUrl") if isinstance(discovery, dict) else None
    if resource_metadata_url and known != resource_metadata_url:
        result = _bound(result) or result
        result.pop("discoveryState", None)
    return result


def complete_authorization(store: Mapping[str, Any]) -> dict[str, Any]:
    """``completeAuthorization``: drop ``codeVerifier``, ``lastAuthorizationUrl`` and ``redirectUrl``."""
    result = dict(store)
    for field in ("codeVerifier", "lastAuthorizationUrl", "redirectUrl"):
        result.pop(field, None)
    return result


def invalidate(
    store: Mapping[str, Any], scope: InvalidateScope, suppress_stored_tokens: bool = False
) -> dict[str, Any]:
    """``invalidate``: ``all``/``client`` drop ``clientInformation``; ``all``/``tokens`` (unless
    ``suppress_stored_tokens``) drop the tokens, their expiry and issuer and set ``credentialState:
    "cleared"``; ``all``/``verifier`` drop ``codeVerifier``; ``all``/``discovery`` drop ``discoveryState``."""
    if scope not in ("all", "client", "tokens", "verifier", "discovery"):
        raise ValueError(f"unknown invalidation scope {scope!r}")
    result = dict(store)
    if scope in ("all", "client"):
        result.pop("clientInformation", None)
    if scope in ("all", "tokens") and not suppress_stored_tokens:
        for field in ("tokens", "tokenExpiresAt", "tokensAuthorizationServerUrl"):
            result.pop(field, None)
        result["credentialState"] = "cleared"
    if scope in ("all", "verifier"):
        result.pop("codeVerifier", None)
    if scope in ("all", "discovery"):
        result.pop("discoveryState", None)
    return result


def clear(store: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Logout: the whole store becomes ``{"credentialState": "cleared"}`` whatever it held."""
    return dict(CLEARED_STORE)
