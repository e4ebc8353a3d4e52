"""The MCP SDK's OAuth schemas (``@modelcontextprotocol/sdk`` 1.30 ``shared/auth``, zod 4) as checks of plain
JSON data: client information, tokens and the three discovery metadata documents (spec cli-registry §7.4)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from openclaw_mcp.jscompat.numbers import js_to_number
from openclaw_mcp.jscompat.text import js_trim
from openclaw_mcp.jscompat.urls import can_parse_url, parse_url

__all__ = [
    "CLIENT_INFORMATION_SCHEMA",
    "OAUTH_METADATA_SCHEMA",
    "OPENID_METADATA_SCHEMA",
    "RESOURCE_METADATA_SCHEMA",
    "TOKENS_SCHEMA",
    "ObjectSchema",
    "is_js_number",
]


def is_js_number(value: object) -> bool:
    """``typeof value === "number"`` and finite (zod's ``z.number()``)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value) if isinstance(value, float) else abs(value) < 2**1024


_Check = Callable[[object], bool]


def _string(value: object) -> bool:
    return isinstance(value, str)


def _boolean(value: object) -> bool:
    return isinstance(value, bool)


def _url(value: object) -> bool:
    """``z.string().url()``: the JS-trimmed text parses as a URL."""
    return isinstance(value, str) and can_parse_url(js_trim(value))


_UNSAFE_PROTOCOLS = ("javascript:", "data:", "vbscript:")


def _safe_url(value: object) -> bool:
    """The SDK's ``SafeUrlSchema``: a URL whose scheme is not ``javascript:``, ``data:`` or ``vbscript:``."""
    if not isinstance(value, str):
        return False
    url = parse_url(re.sub(r"[\t\n\r]", "", js_trim(value)))
    return url is not None and url.protocol not in _UNSAFE_PROTOCOLS


def _string_array(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _array_of(check: _Check) -> _Check:
    return lambda value: isinstance(value, list) and all(check(item) for item in value)


def _coerced_number(value: object) -> bool:
    return math.isfinite(js_to_number(value))


@dataclass(frozen=True, slots=True)
class ObjectSchema:
    """A zod object schema of the MCP SDK as an ordered table ``(key, check, required)``. Calling it checks a
    value: every required key present and valid, every optional key absent or valid; other keys are allowed
    (``looseObject`` keeps them, ``strip`` drops them — either way they never fail). :attr:`keys` is the
    schema's key order (what a zod parse writes first)."""

    fields: tuple[tuple[str, _Check, bool], ...]

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(key for key, _, _ in self.fields)

    def __call__(self, value: object) -> bool:
        if not isinstance(value, dict):
            return False
        for key, check, required in self.fields:
            if key in value:
                if not check(value[key]):
                    return False
            elif required:
                return False
        return True


CLIENT_INFORMATION_SCHEMA = ObjectSchema(
    # the SDK's OAuthClientInformation
    (
        ("client_id", _string, True),
        ("client_secret", _string, False),
        ("client_id_issued_at", is_js_number, False),
        ("client_secret_expires_at", is_js_number, False),
    ),
)

TOKENS_SCHEMA = ObjectSchema(
    # the SDK's OAuthTokens, in its key order
    (
        ("access_token", _string, True),
        ("id_token", _string, False),
        ("token_type", _string, True),
        ("expires_in", _coerced_number, False),
        ("scope", _string, False),
        ("refresh_token", _string, False),
    ),
)

RESOURCE_METADATA_SCHEMA = ObjectSchema(
    # the SDK's OAuthProtectedResourceMetadata (loose), in its key order
    (
        ("resource", _url, True),
        ("authorization_servers", _array_of(_safe_url), False),
        ("jwks_uri", _url, False),
        ("scopes_supported", _string_array, False),
        ("bearer_methods_supported", _string_array, False),
        ("resource_signing_alg_values_supported", _string_array, False),
        ("resource_name", _string, False),
        ("resource_documentation", _string, False),
        ("resource_policy_uri", _url, False),
        ("resource_tos_uri", _url, False),
        ("tls_client_certificate_bound_access_tokens", _boolean, False),
        ("authorization_details_types_supported", _string_array, False),
        ("dpop_signing_alg_values_supported", _string_array, False),
        ("dpop_bound_access_tokens_required", _boolean, False),
    ),
)

OAUTH_METADATA_SCHEMA = ObjectSchema(
    # the SDK's OAuthMetadata (loose), in its key order
    (
        ("issuer", _string, True),
        ("authorization_endpoint", _safe_url, True),
        ("token_endpoint", _safe_url, True),
        ("registration_endpoint", _safe_url, False),
        ("scopes_supported", _string_array, False),
        ("response_types_supported", _string_array, True),
        ("response_modes_supported", _string_array, False),
        ("grant_types_supported", _string_array, False),
        ("token_endpoint_auth_methods_supported", _string_array, False),
        ("token_endpoint_auth_signing_alg_values_supported", _string_array, False),
        ("service_documentation", _safe_url, False),
        ("revocation_endpoint", _safe_url, False),
        ("revocation_endpoint_auth_methods_supported", _string_array, False),
        ("revocation_endpoint_auth_signing_alg_values_supported", _string_array, False),
        ("introspection_endpoint", _string, False),
        ("introspection_endpoint_auth_methods_supported", _string_array, False),
        ("introspection_endpoint_auth_signing_alg_values_supported", _string_array, False),
        ("code_challenge_methods_supported", _string_array, False),
        ("client_id_metadata_document_supported", _boolean, False),
    ),
)

OPENID_METADATA_SCHEMA = ObjectSchema(
    # the SDK's OpenIdProviderDiscoveryMetadata, in its key order
    (
        ("issuer", _string, True),
        ("authorization_endpoint", _safe_url, True),
        ("token_endpoint", _safe_url, True),
        ("userinfo_endpoint", _safe_url, False),
        ("jwks_uri", _safe_url, True),
        ("registration_endpoint", _safe_url, False),
        ("scopes_supported", _string_array, False),
        ("response_types_supported", _string_array, True),
        ("response_modes_supported", _string_array, False),
        ("grant_types_supported", _string_array, False),
        ("acr_values_supported", _string_array, False),
        ("subject_types_supported", _string_array, True),
        ("id_token_signing_alg_values_supported", _string_array, True),
        ("id_token_encryption_alg_values_supported", _string_array, False),
        ("id_token_encryption_enc_values_supported", _string_array, False),
        ("userinfo_signing_alg_values_supported", _string_array, False),
        ("userinfo_encryption_alg_values_supported", _string_array, False),
        ("userinfo_encryption_enc_values_supported", _string_array, False),
        ("request_object_signing_alg_values_supported", _string_array, False),
        ("request_object_encryption_alg_values_supported", _string_array, False),
        ("request_object_encryption_enc_values_supported", _string_array, False),
        ("token_endpoint_auth_methods_supported", _string_array, False),
        ("token_endpoint_auth_signing_alg_values_supported", _string_array, False),
        ("display_values_supported", _string_array, False),
        ("claim_types_supported", _string_array, False),
        ("claims_supported", _string_array, False),
        ("service_documentation", _string, False),
        ("claims_locales_supported", _string_array, False),
        ("ui_locales_supported", _string_array, False),
        ("claims_parameter_supported", _boolean, False),
        ("request_parameter_supported", _boolean, False),
        ("request_uri_parameter_supported", _boolean, False),
        ("require_request_uri_registration", _boolean, False),
        ("op_policy_uri", _safe_url, False),
        ("op_tos_uri", _safe_url, False),
        ("client_id_metadata_document_supported", _boolean, False),
        ("code_challenge_methods_supported", _string_array, False),
    ),
)
