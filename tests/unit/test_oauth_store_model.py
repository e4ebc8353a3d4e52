"""The MCP OAuth store object (spec cli-registry §7.4, §7.5): validation, encoding and the mutations.

Every expectation below was produced by the reference (OpenClaw 2026.9.6 ``parseMcpOAuthStoreJson`` and
``applyMcpOAuthMutation`` under Node 24, ``JSON.stringify`` of the result).
"""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest

from openclaw_mcp.domain.oauth_store import (
    DEFAULT_REDIRECT_URL,
    StoreRowInvalid,
    authorization_challenge,
    authorization_redirect,
    bind_tokens_issuer,
    challenge_applies,
    clear,
    complete_authorization,
    decode_store,
    decode_store_row,
    encode_for_write,
    encode_store,
    invalidate,
    set_client_information,
    set_discovery_state,
    set_tokens,
    token_expires_at,
    validate_store,
)

NOW = 1795958909814
T = {"access_token": "at", "token_type": "Bearer"}
TR = {"access_token": "at", "token_type": "Bearer", "refresh_token": "rt", "expires_in": 3600}
RMU = "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"
D = {"authorizationServerUrl": "http://127.0.0.1:47811", "resourceMetadataUrl": RMU}
RM = {"resource": "https://mcp.example.com/mcp"}
AM = {
    "issuer": "https://as",
    "authorization_endpoint": "https://as/a",
    "token_endpoint": "https://as/t",
    "response_types_supported": ["code"],
}
OIDC = {
    **AM,
    "jwks_uri": "https://as/j",
    "subject_types_supported": ["public"],
    "id_token_signing_alg_values_supported": ["RS256"],
}


def with_discovery(**fields: Any) -> dict[str, Any]:
    return {"discoveryState": {"authorizationServerUrl": "http://as", **fields}}


def tokens(**fields: Any) -> dict[str, Any]:
    return {"tokens": {**T, **fields}}


# --- validation ----------------------------------------------------------------------------------------

UNINITIALIZED = "uninitialized credential state contains authoritative OAuth fields"
BAD_RESOURCE = "discoveryState resource metadata is invalid"
BAD_SERVER = "discoveryState authorization server metadata is invalid"
BAD_EXPIRY = "tokenExpiresAt is invalid"

VALID: list[dict[str, Any]] = [
    {},
    {"x": 1},
    {"credentialState": "cleared"},
    {"credentialState": "uninitialized"},
    {"credentialState": "uninitialized", "pendingAuthorizationChallenge": {"scope": "s"}},
    {"credentialState": "cleared", "clientInformation": {"client_id": "c"}},
    {"clientInformation": {"client_id": "c", "client_id_issued_at": 1.5, "redirect_uris": 5}},
    tokens(expires_in=None),
    tokens(expires_in="12"),
    tokens(expires_in=" 0x1F "),
    tokens(expires_in=[1]),
    tokens(expires_in="1e3"),
    tokens(expires_in=".5"),
    tokens(expires_in="5."),
    tokens(expires_in=True),
    tokens(expires_in=[[" 7 "]]),
    tokens(expires_in=[None]),
    tokens(expires_in="\u00a05\ufeff"),
    {**tokens(), "tokenExpiresAt": 1.5},
    {**tokens(), "tokensAuthorizationServerUrl": "mailto:x"},  # any scheme: URL.canParse
    {**tokens(), "tokensAuthorizationServerUrl": " http://as "},
    {"redirectUrl": " "},
    with_discovery(),
    with_discovery(resourceMetadata=RM),
    with_discovery(resourceMetadata={"resource": " https://x "}),
    with_discovery(resourceMetadata={"resource": "\u00a0https://x"}),
    with_discovery(resourceMetadata={**RM, "authorization_servers": ["ftp://x"]}),
    with_discovery(authorizationServerMetadata=AM),
    with_discovery(authorizationServerMetadata={**AM, "introspection_endpoint": "not a url"}),
    with_discovery(authorizationServerMetadata={**OIDC, "service_documentation": "not a url"}),
    {"pendingAuthorizationChallenge": {}},
    {"pendingAuthorizationChallenge": {"requiresAuthorization": True, "scope": "s", "resourceMetadataUrl": RMU}},
]

INVALID: list[tuple[dict[str, Any], str]] = [
    ({"credentialState": "bogus"}, "credentialState is invalid"),
    ({"credentialState": None}, "credentialState is invalid"),
    ({"credentialState": "cleared", **tokens()}, "credentialState cannot coexist with tokens"),
    ({"credentialState": "uninitialized", "redirectUrl": "http://x"}, UNINITIALIZED),
    (
        {"credentialState": "uninitialized", "extra": 1},
        "uninitialized credential state contains authoritative OAuth fields",
    ),
    ({"clientInformation": {"client_id": 1}}, "clientInformation is invalid"),
    ({"clientInformation": []}, "clientInformation is invalid"),
    ({"clientInformation": None}, "clientInformation is invalid"),
    ({"clientInformation": {"client_id": "c", "client_secret": None}}, "clientInformation is invalid"),
    ({"clientInformation": {"client_id": "c", "client_id_issued_at": "1"}}, "clientInformation is invalid"),
    ({"clientInformation": {"client_id": "c", "client_secret_expires_at": True}}, "clientInformation is invalid"),
    ({"tokens": {"access_token": "a"}}, "tokens are invalid"),
    ({"tokens": {"token_type": "a"}}, "tokens are invalid"),
    ({"tokens": []}, "tokens are invalid"),
    ({"tokens": "x"}, "tokens are invalid"),
    (tokens(expires_in="abc"), "tokens are invalid"),
    (tokens(expires_in=[1, 2]), "tokens are invalid"),
    (tokens(expires_in={}), "tokens are invalid"),
    (tokens(expires_in="Infinity"), "tokens are invalid"),
    (tokens(expires_in="-0b101"), "tokens are invalid"),
    (tokens(expires_in="1_000"), "tokens are invalid"),
    (tokens(expires_in=["0x"]), "tokens are invalid"),
    (tokens(scope=1), "tokens are invalid"),
    (tokens(refresh_token=None), "tokens are invalid"),
    (tokens(id_token=5), "tokens are invalid"),
    ({**tokens(), "tokenExpiresAt": -1}, "tokenExpiresAt is invalid"),
    ({**tokens(), "tokenExpiresAt": "1"}, "tokenExpiresAt is invalid"),
    ({**tokens(), "tokenExpiresAt": None}, "tokenExpiresAt is invalid"),
    ({"tokenExpiresAt": 5}, "tokenExpiresAt requires tokens"),
    ({**tokens(), "tokensAuthorizationServerUrl": "nope"}, "tokensAuthorizationServerUrl is invalid"),
    ({**tokens(), "tokensAuthorizationServerUrl": 5}, "tokensAuthorizationServerUrl is invalid"),
    ({"tokensAuthorizationServerUrl": "http://as"}, "tokensAuthorizationServerUrl requires tokens"),
    ({"codeVerifier": ""}, "codeVerifier must be a non-empty string"),
    ({"codeVerifier": 5}, "codeVerifier must be a non-empty string"),
    ({"lastAuthorizationUrl": ""}, "lastAuthorizationUrl must be a non-empty string"),
    ({"redirectUrl": None}, "redirectUrl must be a non-empty string"),
    ({"discoveryState": {}}, "discoveryState is invalid"),
    ({"discoveryState": []}, "discoveryState is invalid"),
    ({"discoveryState": {"authorizationServerUrl": "x"}}, "discoveryState URLs are invalid"),
    (with_discovery(resourceMetadataUrl=None), "discoveryState URLs are invalid"),
    (with_discovery(resourceMetadataUrl="rel/path"), "discoveryState URLs are invalid"),
    (with_discovery(resourceMetadata={}), "discoveryState resource metadata is invalid"),
    (
        with_discovery(resourceMetadata={**RM, "authorization_servers": ["javascript:x"]}),
        "discoveryState resource metadata is invalid",
    ),
    (
        with_discovery(resourceMetadata={**RM, "authorization_servers": ["DATA:x"]}),
        "discoveryState resource metadata is invalid",
    ),
    (
        with_discovery(resourceMetadata={**RM, "scopes_supported": ["a", 1]}),
        "discoveryState resource metadata is invalid",
    ),
    (with_discovery(resourceMetadata={**RM, "jwks_uri": "x"}), "discoveryState resource metadata is invalid"),
    (
        with_discovery(resourceMetadata={**RM, "tls_client_certificate_bound_access_tokens": 1}),
        "discoveryState resource metadata is invalid",
    ),
    (
        with_discovery(authorizationServerMetadata={**AM, "response_types_supported": None}),
        "discoveryState authorization server metadata is invalid",
    ),
    (
        with_discovery(authorizationServerMetadata={**AM, "token_endpoint": "vbscript:x"}),
        "discoveryState authorization server metadata is invalid",
    ),
    (
        with_discovery(authorizationServerMetadata={**AM, "service_documentation": "not a url"}),
        "discoveryState authorization server metadata is invalid",
    ),
    (
        with_discovery(authorizationServerMetadata={**OIDC, "service_documentation": "not a url", "jwks_uri": 1}),
        "discoveryState authorization server metadata is invalid",
    ),
    (
        with_discovery(authorizationServerMetadata={**AM, "issuer": 1}),
        "discoveryState authorization server metadata is invalid",
    ),
    ({"pendingAuthorizationChallenge": []}, "pendingAuthorizationChallenge is invalid"),
    ({"pendingAuthorizationChallenge": {"resourceMetadataUrl": "x"}}, "pendingAuthorizationChallenge URL is invalid"),
    ({"pendingAuthorizationChallenge": {"scope": ""}}, "pendingAuthorizationChallenge scope is invalid"),
    (
        {"pendingAuthorizationChallenge": {"requiresAuthorization": False}},
        "pendingAuthorizationChallenge requiresAuthorization must be true",
    ),
    ({"tokens": {}, "credentialState": "x", "codeVerifier": ""}, "tokens are invalid"),  # the first rule wins
]


@pytest.mark.parametrize("store", VALID)
def test_valid_stores_pass_and_decode_unchanged(store: dict[str, Any]) -> None:
    validate_store("k", store)
    assert decode_store("k", json.dumps(store)) == store


@pytest.mark.parametrize(("store", "detail"), INVALID)
def test_invalid_stores_name_the_first_broken_rule(store: dict[str, Any], detail: str) -> None:
    with pytest.raises(StoreRowInvalid) as caught:
        validate_store("docs-1", store)
    assert str(caught.value) == f"MCP OAuth store docs-1 is invalid: {detail}"
    assert caught.value.detail == detail
    with pytest.raises(StoreRowInvalid, match=f"^MCP OAuth store docs-1 is invalid: {detail}$"):
        decode_store("docs-1", json.dumps(store))


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ("{not json", "store_json is not valid JSON"),
        ("NaN", "store_json is not valid JSON"),
        ('{"a":Infinity}', "store_json is not valid JSON"),
        ("\ufeff{}", "store_json is not valid JSON"),
        ("[]", "store_json must contain an object"),
        ("null", "store_json must contain an object"),
        ("5", "store_json must contain an object"),
        ('"s"', "store_json must contain an object"),
        ('{"tokens":{"access_token":"a","token_type":"b"},"tokenExpiresAt":1e400}', "tokenExpiresAt is invalid"),
        (
            '{"tokens":{"access_token":"a","token_type":"b"},"tokenExpiresAt":' + "1" * 400 + "}",
            "tokenExpiresAt is invalid",
        ),
        ('{"tokens":{"access_token":"a","token_type":"b","expires_in":1e400}}', "tokens are invalid"),
    ],
)
def test_stored_text_is_parsed_as_json_parse_does(text: str, detail: str) -> None:
    with pytest.raises(StoreRowInvalid, match=f"^MCP OAuth store k is invalid: {detail}$"):
        decode_store("k", text)


def test_json_text_quirks_match_json_parse() -> None:
    assert decode_store("k", " {} ") == {}
    assert decode_store("k", '{"a":1,"a":2}') == {"a": 2}
    assert decode_store("k", '{"credentialState":"cleared","credentialState":"uninitialized"}') == {
        "credentialState": "uninitialized"
    }
    assert decode_store("k", '{"a":"\\ud800"}') == {"a": "\ud800"}


def test_a_row_must_have_format_version_one() -> None:
    assert decode_store_row("k", 1, "{}") == {}
    with pytest.raises(StoreRowInvalid, match=r"^MCP OAuth store k is invalid: unsupported format version 2$"):
        decode_store_row("k", 2, "{}")


# --- encoding ------------------------------------------------------------------------------------------

LOGIN_ROW = (
    '{"discoveryState":{"authorizationServerUrl":"http://127.0.0.1:47811"},"clientInformation":{"redirect_uris":'
    '["http://127.0.0.1:8989/oauth/callback"],"token_endpoint_auth_method":"none","grant_types":'
    '["authorization_code","refresh_token"],"response_types":["code"],"client_name":"OpenClaw MCP","scope":'
    '"docs.read","client_id":"client-123","client_id_issued_at":1795958899},"tokens":{"access_token":"at-1",'
    '"token_type":"Bearer","expires_in":3600,"scope":"docs.read","refresh_token":"rt-1"},'
    '"tokensAuthorizationServerUrl":"http://127.0.0.1:47811","tokenExpiresAt":1795962509814}'
)


def test_the_observed_login_row_round_trips_byte_for_byte() -> None:
    assert encode_store(decode_store("k", LOGIN_ROW)) == LOGIN_ROW


def test_encoding_is_compact_json_stringify() -> None:
    assert encode_store({"b": 1.0, "a": [0.1, 1e21], "10": "é\u2028", "2": None}) == (
        '{"2":null,"10":"é\u2028","b":1,"a":[0.1,1e+21]}'
    )


def test_a_write_is_validated_from_its_encoded_text() -> None:
    text, stored = encode_for_write("k", {"tokens": TR, "tokenExpiresAt": 5.0})
    tokens_json = '{"access_token":"at","token_type":"Bearer","refresh_token":"rt","expires_in":3600}'
    assert text == '{"tokens":' + tokens_json + ',"tokenExpiresAt":5}'
    assert stored == {"tokens": TR, "tokenExpiresAt": 5}
    with pytest.raises(StoreRowInvalid, match="tokenExpiresAt requires tokens"):
        encode_for_write("k", {"tokenExpiresAt": 5})


# --- mutations -----------------------------------------------------------------------------------------


def js(store: dict[str, Any] | None) -> str | None:
    return None if store is None else encode_store(store)


def test_client_information_and_discovery_begin_an_authorization() -> None:
    uninitialized = {"credentialState": "uninitialized", "pendingAuthorizationChallenge": {"scope": "a"}}
    info = {"client_id": "c2", "client_id_issued_at": 1}
    assert js(set_client_information({}, info)) == '{"clientInformation":{"client_id":"c2","client_id_issued_at":1}}'
    assert js(set_client_information(uninitialized, info)) == (
        '{"pendingAuthorizationChallenge":{"scope":"a"},"clientInformation":{"client_id":"c2","client_id_issued_at":1}}'
    )
    assert js(set_discovery_state({"credentialState": "cleared"}, D)) == (
        '{"credentialState":"cleared","discoveryState":' + json.dumps(D, separators=(",", ":")) + "}"
    )
    assert uninitialized["credentialState"] == "uninitialized"  # the argument is not modified


def test_authorization_redirect_resolves_the_redirect_uri() -> None:
    url = "http://as/authorize?state=s1"
    uninitialized = {"credentialState": "uninitialized", "pendingAuthorizationChallenge": {"scope": "a"}}
    assert js(authorization_redirect(uninitialized, "ver", url)) == (
        '{"pendingAuthorizationChallenge":{"scope":"a"},"codeVerifier":"ver","lastAuthorizationUrl":'
        '"http://as/authorize?state=s1","redirectUrl":"http://127.0.0.1:8989/oauth/callback"}'
    )
    pending = {"x": 1, "redirectUrl": "  http://127.0.0.1:9/cb  ", "codeVerifier": "v", "lastAuthorizationUrl": "u"}
    assert js(authorization_redirect(pending, "ver", url)) == (
        '{"x":1,"redirectUrl":"http://127.0.0.1:9/cb","codeVerifier":"ver","lastAuthorizationUrl":'
        '"http://as/authorize?state=s1"}'
    )
    assert js(authorization_redirect({"redirectUrl": " "}, "", url, "http://127.0.0.1:7/cb")) == (
        '{"redirectUrl":"http://127.0.0.1:7/cb","lastAuthorizationUrl":"http://as/authorize?state=s1"}'
    )
    assert authorization_redirect({}, None, url, "  ")["redirectUrl"] == DEFAULT_REDIRECT_URL


def test_tokens_replace_the_challenge_and_record_issuer_and_expiry() -> None:
    assert js(set_tokens({}, TR, NOW)) == (
        '{"tokens":{"access_token":"at","token_type":"Bearer","refresh_token":"rt","expires_in":3600},'
        '"tokenExpiresAt":1795962509814}'
    )
    assert js(set_tokens({"tokens": TR, "discoveryState": D}, TR, NOW)) == (
        '{"tokens":{"access_token":"at","token_type":"Bearer","refresh_token":"rt","expires_in":3600},'
        '"discoveryState":{"authorizationServerUrl":"http://127.0.0.1:47811","resourceMetadataUrl":'
        '"http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"},'
        '"tokensAuthorizationServerUrl":"http://127.0.0.1:47811","tokenExpiresAt":1795962509814}'
    )
    challenged = {
        "credentialState": "cleared",
        "pendingAuthorizationChallenge": {"requiresAuthorization": True},
        "tokensAuthorizationServerUrl": "http://old",
        "tokenExpiresAt": 5,
    }
    assert js(set_tokens(challenged, {**T, "expires_in": "60"}, NOW)) == (
        '{"tokens":{"access_token":"at","token_type":"Bearer","expires_in":"60"}}'
    )


def test_token_expiry_is_now_plus_expires_in_seconds() -> None:
    assert token_expires_at({"expires_in": 3600}, NOW) == 1795962509814
    assert token_expires_at({"expires_in": 0.1}, NOW) == 1795958909914
    assert token_expires_at({"expires_in": 1.5}, 0) == 1500
    assert token_expires_at({"expires_in": 0.0001}, 1) == 1.1
    assert token_expires_at({"expires_in": "60"}, NOW) is None
    assert token_expires_at({"expires_in": True}, NOW) is None
    assert token_expires_at({}, NOW) is None


def test_bind_tokens_issuer_only_fills_a_missing_issuer_of_refreshable_tokens() -> None:
    assert js(bind_tokens_issuer({"tokens": TR, "discoveryState": D})) == (
        '{"tokens":{"access_token":"at","token_type":"Bearer","refresh_token":"rt","expires_in":3600},'
        '"discoveryState":{"authorizationServerUrl":"http://127.0.0.1:47811","resourceMetadataUrl":'
        '"http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"},'
        '"tokensAuthorizationServerUrl":"http://127.0.0.1:47811"}'
    )
    assert bind_tokens_issuer({"tokens": TR, "discoveryState": D, "tokensAuthorizationServerUrl": "http://old"}) is None
    assert bind_tokens_issuer({"tokens": {**T, "refresh_token": ""}, "discoveryState": D}) is None
    assert bind_tokens_issuer({"tokens": TR}) is None
    assert bind_tokens_issuer({}) is None


def test_a_challenge_on_an_empty_store_marks_it_uninitialized() -> None:
    assert js(authorization_challenge({}, RMU)) == (
        '{"pendingAuthorizationChallenge":{"resourceMetadataUrl":'
        '"http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"},"credentialState":"uninitialized"}'
    )
    assert js(authorization_challenge({"credentialState": "cleared"}, RMU)) == (
        '{"credentialState":"cleared","pendingAuthorizationChallenge":{"resourceMetadataUrl":'
        '"http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"}}'
    )


def test_a_challenge_with_the_known_resource_metadata_keeps_discovery() -> None:
    assert js(authorization_challenge({"tokens": TR, "discoveryState": D}, RMU)) == (
        '{"tokens":{"access_token":"at","token_type":"Bearer","refresh_token":"rt","expires_in":3600},'
        '"discoveryState":{"authorizationServerUrl":"http://127.0.0.1:47811","resourceMetadataUrl":'
        '"http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"},"pendingAuthorizationChallenge":'
        '{"resourceMetadataUrl":"http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"}}'
    )


def test_a_challenge_with_new_resource_metadata_binds_the_issuer_and_drops_discovery() -> None:
    change = functools.partial(
        authorization_challenge,
        resource_metadata_url="http://other/.well-known/x",
        scope="docs.write",
        requires_authorization=True,
    )
    assert js(change({"tokens": TR, "discoveryState": D})) == (
        '{"tokens":{"access_token":"at","token_type":"Bearer","refresh_token":"rt","expires_in":3600},'
        '"pendingAuthorizationChallenge":{"resourceMetadataUrl":"http://other/.well-known/x","scope":"docs.write",'
        '"requiresAuthorization":true},"tokensAuthorizationServerUrl":"http://127.0.0.1:47811"}'
    )


def test_a_challenge_ignores_empty_fields_and_merges_into_the_previous_one() -> None:
    uninitialized = {"credentialState": "uninitialized", "pendingAuthorizationChallenge": {"scope": "a"}}
    assert js(authorization_challenge(uninitialized, "", "")) == (
        '{"credentialState":"uninitialized","pendingAuthorizationChallenge":{"scope":"a"}}'
    )


def test_a_challenge_for_a_token_no_longer_stored_is_not_applied() -> None:
    store = {"tokens": T}
    assert js(authorization_challenge(store, requires_authorization=True, rejected_access_token="at")) == (
        '{"tokens":{"access_token":"at","token_type":"Bearer"},"pendingAuthorizationChallenge":'
        '{"requiresAuthorization":true}}'
    )
    assert authorization_challenge(store, requires_authorization=True, rejected_access_token="zz") is None
    assert authorization_challenge({}, requires_authorization=True, rejected_access_token="at") is None
    assert challenge_applies(store, None) and challenge_applies(store, "at")
    assert not challenge_applies(store, "zz") and not challenge_applies({}, "at")


def test_complete_authorization_drops_the_pending_session() -> None:
    pending = {"x": 1, "redirectUrl": "r", "codeVerifier": "v", "lastAuthorizationUrl": "http://a/?state=s"}
    assert js(complete_authorization(pending)) == '{"x":1}'


FULL = {
    "redirectUrl": " ",
    "clientInformation": {"client_id": "c"},
    "discoveryState": D,
    "pendingAuthorizationChallenge": {"resourceMetadataUrl": "http://r", "requiresAuthorization": True},
    "tokens": TR,
    "tokenExpiresAt": 5,
    "tokensAuthorizationServerUrl": "http://as",
}


def test_invalidate_drops_the_scoped_fields() -> None:
    assert js(invalidate(FULL, "all")) == (
        '{"redirectUrl":" ","pendingAuthorizationChallenge":{"resourceMetadataUrl":"http://r",'
        '"requiresAuthorization":true},"credentialState":"cleared"}'
    )
    assert js(invalidate(FULL, "all", suppress_stored_tokens=True)) == (
        '{"redirectUrl":" ","pendingAuthorizationChallenge":{"resourceMetadataUrl":"http://r",'
        '"requiresAuthorization":true},"tokens":{"access_token":"at","token_type":"Bearer","refresh_token":"rt",'
        '"expires_in":3600},"tokenExpiresAt":5,"tokensAuthorizationServerUrl":"http://as"}'
    )
    after_tokens = invalidate(FULL, "tokens")
    assert list(after_tokens) == [
        "redirectUrl",
        "clientInformation",
        "discoveryState",
        "pendingAuthorizationChallenge",
        "credentialState",
    ]
    assert invalidate(FULL, "tokens", True) == FULL
    assert "clientInformation" not in invalidate(FULL, "client")
    assert invalidate({"codeVerifier": "v", "x": 1}, "verifier") == {"x": 1}
    assert invalidate(FULL, "discovery") == {k: v for k, v in FULL.items() if k != "discoveryState"}
    with pytest.raises(ValueError, match="unknown invalidation scope"):
        invalidate(FULL, "everything")  # type: ignore[arg-type]


def test_clear_leaves_only_the_cleared_state() -> None:
    assert clear(FULL) == {"credentialState": "cleared"}
    assert clear() is not clear()
