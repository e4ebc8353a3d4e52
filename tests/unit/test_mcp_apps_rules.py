"""The pure MCP Apps rules (``domain.mcp_apps``; spec mcp-apps §3–§7, §13.1).

The ``REFERENCE_*`` tables at the end were produced by the reference itself: a throwaway node script imported
OpenClaw 2026.9.6's ``dist/sandbox-host-*.mjs`` and printed what ``normalizeSandboxHostCsp`` (export ``a``),
``buildSandboxHostDocument(csp).headers["Content-Security-Policy"]`` (export ``n``) and
``decodeSandboxHostCsp`` (export ``i``) returned for each input; the expected values are those outputs
(decode: the policy, or ``None`` where the reference threw). Cases where this port differs from the
reference are marked ``xfail(strict=True)`` with the reason, so fixing the port turns them into failures
that ask for the mark to go.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

from openclaw_mcp.domain.mcp_apps import (
    APP_MIME_TYPE,
    RESOURCE_MAX_BYTES,
    VIEW_EXPIRED_MESSAGE,
    VIEW_MAX_BYTES,
    AppView,
    AppViewError,
    LeaseLimits,
    ViewLeases,
    app_resource_html,
    canvas_preview,
    check_descriptor,
    csp_header,
    decode_csp_param,
    encode_csp_param,
    is_app_callable,
    listing_ui_meta,
    normalize_csp,
    normalize_permissions,
    resource_ui_meta,
    view_byte_size,
)
from openclaw_mcp.jscompat.jsjson import js_dumps

TOO_LARGE = "MCP App CSP metadata exceeds safe HTTP limits"
NO_CSP_HEADER = (
    "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; media-src 'self' data:; connect-src 'none'; webrtc 'block'; frame-src 'none'; "
    "base-uri 'self'; object-src 'none'; form-action 'none'; frame-ancestors http: https:"
)
API_CDN_HEADER = (
    "default-src 'none'; script-src 'self' 'unsafe-inline' https://cdn.example.com; "
    "style-src 'self' 'unsafe-inline' https://cdn.example.com; img-src 'self' data: https://cdn.example.com; "
    "media-src 'self' data: https://cdn.example.com; font-src 'self' https://cdn.example.com; "
    "connect-src https://api.example.com; webrtc 'block'; frame-src 'none'; base-uri 'self'; object-src 'none'; "
    "form-action 'none'; frame-ancestors http: https:"
)

EMPTY_VIEW_ID = (
    "assertBoundedViewDescriptor checks viewId only when it is truthy, so the reference accepts an empty "
    "viewId; ours refuses it (views always get a generated mcp-app-<uuid> id)"
)


def csp_of(*entries: object, key: str = "connectDomains") -> dict[str, Any]:
    return {key: list(entries)}


def kept(entry: object, key: str = "connectDomains") -> list[str] | None:
    """What one entry of ``key`` normalises to (``None``: refused)."""
    csp = normalize_csp(csp_of(entry, key=key))
    return None if csp is None else csp[key]


# --- normalize_csp: the entry rules of §7.1 -------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ("", "empty"),
        ("https://" + "a" * 2037 + ".com", "longer than 2048 characters"),
        (" https://a.example.com", "not trimmed (leading)"),
        ("https://a.example.com ", "not trimmed (trailing)"),
        ("https://a.example.com\u00a0", "not trimmed (no-break space)"),
        ("\ufeffhttps://a.example.com", "not trimmed (BOM)"),
        ("https://a.exa\tmple.com", "control character (the URL parser alone would drop it)"),
        ("https://a.example.com\x7f", "DEL"),
        ("ftp://a.example.com", "scheme ftp"),
        ("file:///etc/passwd", "scheme file"),
        ("javascript:alert(1)", "scheme javascript"),
        ("data:text/html,x", "scheme data"),
        ("blob:https://a.example.com/id", "scheme blob"),
        ("https:", "bare https: outside mediaDomains"),
        ("blob:", "bare blob: outside mediaDomains"),
        ("https://user@a.example.com", "username"),
        ("https://user:secret@a.example.com", "username and password"),
        ("https://:secret@a.example.com", "password"),
        ("https://a.example.com/path", "path other than /"),
        ("https://a.example.com//", "path //"),
        ("https://a.example.com?a=1", "query"),
        ("https://a.example.com#top", "fragment"),
        ("https://*", "bare wildcard host"),
        ("https://a.*.example.com", "wildcard not leading"),
        ("https://**.example.com", "double wildcard"),
        ("https://a_b.example.com", "underscore in the host"),
        ("https://a.example.com:65536", "port out of range"),
        ("https://[fe80::1%25eth0]", "IPv6 zone id"),
        ("*.example.com", "no scheme"),
        (42, "not a string"),
        (None, "null"),
    ],
    ids=lambda value: value if isinstance(value, str) and len(value) < 40 else None,
)
def test_refused_entries(entry: object, reason: str) -> None:
    assert kept(entry) is None, reason


@pytest.mark.parametrize(
    ("entry", "origin"),
    [
        ("https://a.example.com", "https://a.example.com"),
        ("https://a.example.com/", "https://a.example.com"),
        ("https://a.example.com:443/", "https://a.example.com"),
        ("http://a.example.com:80", "http://a.example.com"),
        ("https://a.example.com:8443", "https://a.example.com:8443"),
        ("HTTPS://A.Example.COM", "https://a.example.com"),
        ("https://*.example.com", "https://*.example.com"),
        ("https://*.example.com:443", "https://*.example.com"),
        ("https://[::1]", "https://[::1]"),
        ("https://[0:0:0:0:0:0:0:1]:8443/", "https://[::1]:8443"),
        ("https://127.0.0.1", "https://127.0.0.1"),
        ("https://0x7f.1", "https://127.0.0.1"),
        ("https://b\u00fccher.de", "https://xn--bcher-kva.de"),
        ("https://a.example.com?", "https://a.example.com"),  # an empty query is no query
        ("https://a.example.com#", "https://a.example.com"),
        ("https://a.example.com/.", "https://a.example.com"),  # dot segments are resolved first
        ("https://" + "a" * 2036 + ".com", "https://" + "a" * 2036 + ".com"),  # exactly 2048 characters
    ],
)
def test_kept_entries_become_origins(entry: str, origin: str) -> None:
    assert kept(entry) == [origin]


def test_websocket_schemes_only_for_connect_domains() -> None:
    assert kept("wss://a.example.com:443", "connectDomains") == ["wss://a.example.com"]
    assert kept("ws://a.example.com", "connectDomains") == ["ws://a.example.com"]
    for key in ("resourceDomains", "mediaDomains", "frameDomains", "baseUriDomains"):
        assert kept("wss://a.example.com", key) is None
        assert kept("ws://a.example.com", key) is None


def test_bare_media_sources() -> None:
    assert kept("https:", "mediaDomains") == ["https:"]
    assert kept("blob:", "mediaDomains") == ["blob:"]
    for refused in ("data:", "http:", " https:", "blob:https://a.example.com/x"):
        assert kept(refused, "mediaDomains") is None
    for key in ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"):
        assert kept("https:", key) is None
        assert kept("blob:", key) is None


def test_policy_shape() -> None:
    value = {
        "baseUriDomains": ["https://b.example.com", "ftp://x"],
        "blockDescendantFrames": True,
        "frameDomains": ["https://f.example.com"],
        "mediaDomains": ["blob:"],
        "resourceDomains": ["https://r.example.com:443/"],
        "connectDomains": ["wss://w.example.com", "https://a.example.com", "https://a.example.com"],
        "unknownKey": ["https://u.example.com"],
    }
    csp = normalize_csp(value)
    assert csp is not None
    # key order as the reference writes it, duplicates kept, unknown keys dropped
    assert list(csp.items()) == [
        ("connectDomains", ["wss://w.example.com", "https://a.example.com", "https://a.example.com"]),
        ("resourceDomains", ["https://r.example.com"]),
        ("mediaDomains", ["blob:"]),
        ("frameDomains", ["https://f.example.com"]),
        ("baseUriDomains", ["https://b.example.com"]),
        ("blockDescendantFrames", True),
    ]


def test_empty_lists_are_dropped() -> None:
    assert normalize_csp({"connectDomains": ["ftp://x"], "resourceDomains": ["https://r.example.com"]}) == {
        "resourceDomains": ["https://r.example.com"]
    }
    assert normalize_csp({"connectDomains": [], "frameDomains": ["ws://x"]}) is None


@pytest.mark.parametrize("flag", [False, "true", 1, None, {}])
def test_block_descendant_frames_only_when_true(flag: object) -> None:
    assert normalize_csp({"blockDescendantFrames": flag}) is None
    assert normalize_csp({"blockDescendantFrames": flag, "connectDomains": ["https://a.example.com"]}) == {
        "connectDomains": ["https://a.example.com"]
    }


def test_block_descendant_frames_alone_is_a_policy() -> None:
    assert normalize_csp({"blockDescendantFrames": True}) == {"blockDescendantFrames": True}


@pytest.mark.parametrize(
    "value", [None, {}, [], "https://a.example.com", 0, {"connectDomains": "https://a.example.com"}]
)
def test_nothing_left_is_none(value: object) -> None:
    assert normalize_csp(value) is None


def _connect_policy_of_json_bytes(total: int) -> dict[str, Any]:
    """``connectDomains`` whose normalised JSON is exactly ``total`` bytes."""
    entries = [f"https://h{n:03d}.example.com" for n in range(200)]
    while len(js_dumps({"connectDomains": entries}, None)) > total - 30:
        entries.pop()
    missing = total - len(js_dumps({"connectDomains": [*entries, "https://x.com"]}, None))
    csp = {"connectDomains": [*entries, "https://" + "x" * (1 + missing) + ".com"]}
    assert len(js_dumps(csp, None)) == total
    return csp


def _resource_policy_of_header_bytes(total: int) -> dict[str, Any]:
    """``resourceDomains`` (+ one ``frameDomains`` entry) whose header is exactly ``total`` bytes."""
    entries = [f"https://r{n:03d}.example.com" for n in range(100)]
    while len(csp_header({"resourceDomains": entries})) > total - 40:
        entries.pop()
    missing = total - len(csp_header({"resourceDomains": entries}))
    csp = {"resourceDomains": entries, "frameDomains": ["https://" + "x" * (missing - 6) + ".com"]}
    assert len(csp_header(csp)) == total
    return csp


def test_size_limits_match_the_reference() -> None:
    # the reference accepted JSON of 5120 bytes / a header of 6144 bytes and refused one byte more
    json_limit = _connect_policy_of_json_bytes(5120)
    assert normalize_csp(json_limit) == json_limit
    with pytest.raises(AppViewError, match=f"^{TOO_LARGE}$"):
        normalize_csp(_connect_policy_of_json_bytes(5121))
    header_limit = _resource_policy_of_header_bytes(6144)
    assert len(js_dumps(header_limit, None)) < 5120
    assert normalize_csp(header_limit) == header_limit
    with pytest.raises(AppViewError, match=f"^{TOO_LARGE}$"):
        normalize_csp(_resource_policy_of_header_bytes(6145))


def test_oversize_policies() -> None:
    with pytest.raises(AppViewError, match=f"^{TOO_LARGE}$"):
        normalize_csp({"connectDomains": [f"https://host-{n:03d}.example.com" for n in range(200)]})
    # 60 resource origins: JSON well under 5120 bytes, but the header repeats them five times
    with pytest.raises(AppViewError, match=f"^{TOO_LARGE}$"):
        normalize_csp({"resourceDomains": [f"https://r{n:02d}.example.com" for n in range(60)]})
    assert normalize_csp({"connectDomains": [f"https://host-{n:03d}.example.com" for n in range(150)]})
    assert normalize_csp({"resourceDomains": [f"https://r{n:02d}.example.com" for n in range(40)]})


# --- csp_header (§7.2) --------------------------------------------------------------------------------


def test_header_without_csp() -> None:
    assert csp_header(None) == NO_CSP_HEADER


def test_header_with_connect_and_resource_domains() -> None:
    csp = normalize_csp({"connectDomains": ["https://api.example.com"], "resourceDomains": ["https://cdn.example.com"]})
    assert csp_header(csp) == API_CDN_HEADER


def test_header_media_defaults_to_resources_and_lists_join_with_spaces() -> None:
    csp = {
        "resourceDomains": ["https://r1", "https://r2"],
        "mediaDomains": ["blob:", "https:"],
        "frameDomains": ["https://f"],
        "baseUriDomains": ["https://b"],
        "connectDomains": ["wss://w", "https://c"],
    }
    directives = csp_header(csp).split("; ")
    assert "media-src 'self' data: blob: https:" in directives
    assert "font-src 'self' https://r1 https://r2" in directives
    assert "connect-src wss://w https://c" in directives
    assert "frame-src https://f" in directives
    assert "base-uri https://b" in directives
    assert directives[5] == "font-src 'self' https://r1 https://r2"
    only_frames = csp_header({"blockDescendantFrames": True}).split("; ")
    assert "font-src 'self'" in only_frames and "media-src 'self' data:" in only_frames


# --- the csp query parameter (§6.2) -------------------------------------------------------------------


def test_encode_decode_round_trip() -> None:
    csp = normalize_csp(
        {
            "connectDomains": ["wss://w.example.com", "https://api.example.com"],
            "resourceDomains": ["https://cdn.example.com"],
            "mediaDomains": ["blob:", "https:"],
            "frameDomains": ["https://f.example.com"],
            "baseUriDomains": ["https://b.example.com"],
            "blockDescendantFrames": True,
        }
    )
    encoded = encode_csp_param(csp)
    assert encoded is not None
    assert not set(encoded) & set("=+/")
    assert base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)) == js_dumps(csp, None).encode()
    assert decode_csp_param(encoded) == csp
    assert encode_csp_param(None) is None
    assert encode_csp_param({}) is None


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("garbage", "MCP App CSP metadata is not a valid policy"),
        (base64.urlsafe_b64encode(b"\xff\xfe{}").decode(), "MCP App CSP metadata is not a valid policy"),
        (base64.urlsafe_b64encode(b'{"connectDomains":').decode(), "MCP App CSP metadata is not a valid policy"),
        (
            base64.urlsafe_b64encode(b'{"connectDomains":["ftp://x"]}').decode(),
            "MCP App CSP metadata is not a valid policy",
        ),
        (base64.urlsafe_b64encode(b"[]").decode(), "MCP App CSP metadata is not a valid policy"),
        ("A" * 6833, "MCP App CSP metadata is too large"),
    ],
    ids=["garbage", "non-utf8", "invalid-json", "normalises-to-nothing", "array", "too-long"],
)
def test_decode_rejections(value: str, message: str) -> None:
    with pytest.raises(AppViewError, match=f"^{message}$"):
        decode_csp_param(value)


def test_decode_normalises() -> None:
    raw = base64.urlsafe_b64encode(b'{"connectDomains":["https://A.example.com:443/","ftp://x"]}').decode()
    assert decode_csp_param(raw) == {"connectDomains": ["https://a.example.com"]}


# --- resources (§4.2) --------------------------------------------------------------------------------


def read_result(*contents: dict[str, Any]) -> dict[str, Any]:
    return {"contents": list(contents)}


def html_item(**fields: Any) -> dict[str, Any]:
    return {"uri": "ui://clock/view.html", "mimeType": APP_MIME_TYPE, **fields}


def refused(result: object) -> str:
    with pytest.raises(AppViewError) as caught:
        app_resource_html(result)
    return str(caught.value)


def test_exactly_one_content() -> None:
    assert refused(read_result()) == "expected one MCP App resource, received 0"
    assert refused(read_result(html_item(text="a"), html_item(text="b"))) == "expected one MCP App resource, received 2"
    assert refused({}) == "expected one MCP App resource, received 0"
    assert refused({"contents": "x"}) == "expected one MCP App resource, received 0"
    assert refused(None) == "expected one MCP App resource, received 0"


@pytest.mark.parametrize(
    "mime", ["text/html", "text/html; profile=mcp-app", "TEXT/HTML;PROFILE=MCP-APP", "text/html;profile=mcp-app ", None]
)
def test_exact_mime_type(mime: str | None) -> None:
    assert refused(read_result(html_item(mimeType=mime, text="<p>"))) == "resource must use text/html;profile=mcp-app"


def test_content_not_an_object() -> None:
    assert refused(read_result("<p>")) == "resource must use text/html;profile=mcp-app"  # type: ignore[arg-type]


def test_text_cap_counts_utf8_bytes() -> None:
    too_big = f"MCP App resource exceeds {RESOURCE_MAX_BYTES} bytes"
    for text in ("a" * 2097152, "\u00e9" * 1048576, "\U0001f600" * 524288):
        html, item = app_resource_html(read_result(html_item(text=text)))
        assert html == text and item["text"] is text
    for text in ("a" * 2097153, "\u00e9" * 1048576 + "a", "\U0001f600" * 524288 + "a", "\u20ac" * 699051):
        assert refused(read_result(html_item(text=text))) == too_big


def test_text_wins_over_blob() -> None:
    html, _ = app_resource_html(read_result(html_item(text="<p>t</p>", blob=base64.b64encode(b"<p>b</p>").decode())))
    assert html == "<p>t</p>"


def test_blob_is_decoded() -> None:
    encoded = base64.b64encode("<p>caf\u00e9 \U0001f600</p>".encode()).decode()
    html, item = app_resource_html(read_result(html_item(blob=encoded, text=None)))
    assert html == "<p>caf\u00e9 \U0001f600</p>"
    assert item["blob"] == encoded
    # Node's Buffer.from(..., "base64"): both alphabets, whitespace skipped, invalid UTF-8 becomes U+FFFD
    assert app_resource_html(read_result(html_item(blob=" PHA+\naGk8L3A+ ")))[0] == "<p>hi</p>"
    assert app_resource_html(read_result(html_item(blob=base64.urlsafe_b64encode(b"\xfb\xff<p>").decode())))[0] == (
        "\ufffd\ufffd<p>"
    )


def test_blob_caps() -> None:
    too_big = f"MCP App resource exceeds {RESOURCE_MAX_BYTES} bytes"
    exact = base64.b64encode(b"a" * RESOURCE_MAX_BYTES).decode()
    assert len(app_resource_html(read_result(html_item(blob=exact)))[0]) == RESOURCE_MAX_BYTES
    assert refused(read_result(html_item(blob=base64.b64encode(b"a" * (RESOURCE_MAX_BYTES + 1)).decode()))) == too_big
    # the encoded length is checked before decoding: 2796208 characters are decoded (here to nothing) ...
    assert app_resource_html(read_result(html_item(blob="!" * 2796208)))[0] == ""
    # ... 2796209 are refused unread
    assert refused(read_result(html_item(blob="!" * 2796209))) == too_big


@pytest.mark.parametrize("fields", [{}, {"text": 5}, {"blob": None}, {"text": None, "blob": ["x"]}])
def test_neither_text_nor_blob(fields: dict[str, Any]) -> None:
    assert refused(read_result(html_item(**fields))) == "MCP App resource must provide text or base64 blob content"


def test_resource_ui_meta() -> None:
    ui = {"csp": {"connectDomains": ["https://api.example.com"]}}
    assert resource_ui_meta({"_meta": {"ui": ui}}) is ui
    assert resource_ui_meta({"meta": {"ui": ui}}) is ui  # deprecated spelling
    assert resource_ui_meta({"_meta": None, "meta": {"ui": ui}}) is ui
    # a present _meta wins even without ui (the reference reads `_meta ?? meta`)
    assert resource_ui_meta({"_meta": {"other": 1}, "meta": {"ui": ui}}) is None
    assert resource_ui_meta({"_meta": {"ui": "x"}}) is None
    assert resource_ui_meta({"_meta": "x"}) is None
    assert resource_ui_meta({}) is None


def test_listing_ui_meta() -> None:
    ui = {"csp": {"resourceDomains": ["https://cdn.example.com"]}}
    entries = [
        {"uri": "ui://other", "_meta": {"ui": {"csp": {}}}},
        {"uri": "ui://clock/view.html", "_meta": {"ui": ui}},
        {"uri": "ui://clock/view.html", "_meta": {"ui": {"later": True}}},
    ]
    assert listing_ui_meta({"resources": entries}, "ui://clock/view.html") is ui
    assert listing_ui_meta(entries, "ui://clock/view.html") is ui
    assert listing_ui_meta({"resources": entries}, "ui://missing") is None
    assert listing_ui_meta({"resources": [{"uri": "ui://x"}]}, "ui://x") is None
    assert listing_ui_meta({"resources": [{"uri": "ui://x", "_meta": {"ui": []}}]}, "ui://x") is None
    assert listing_ui_meta({"resources": "x"}, "ui://x") is None
    assert listing_ui_meta(None, "ui://x") is None


def test_normalize_permissions() -> None:
    value = {"camera": {}, "microphone": {"x": 1}, "geolocation": True, "clipboardWrite": [], "usb": {}}
    assert normalize_permissions(value) == {"camera": {}, "microphone": {}}
    assert list(
        normalize_permissions({"microphone": {}, "camera": {}, "clipboardWrite": {}, "geolocation": {}}) or ()
    ) == [
        "camera",
        "clipboardWrite",
        "geolocation",
        "microphone",
    ]
    assert normalize_permissions({"camera": None}) is None
    assert normalize_permissions([]) is None
    assert normalize_permissions(None) is None


def test_view_byte_size_limit() -> None:
    data = js_dumps({"toolInput": {"q": "\u00e9"}, "toolResult": {"content": []}}, None)
    overhead = len(data.encode())
    assert view_byte_size("<p>", {"q": "\u00e9"}, {"content": []}) == 3 + overhead
    html = "a" * (VIEW_MAX_BYTES - overhead)
    assert view_byte_size(html, {"q": "\u00e9"}, {"content": []}) == VIEW_MAX_BYTES
    with pytest.raises(AppViewError, match=f"^MCP App view data exceeds {VIEW_MAX_BYTES} bytes$"):
        view_byte_size(html + "a", {"q": "\u00e9"}, {"content": []})
    with pytest.raises(AppViewError, match=r"^MCP App view data exceeds 6291456 bytes$"):
        view_byte_size("\u00e9" * (VIEW_MAX_BYTES // 2), None, None)


# --- descriptor (§4.2.8, §4.4) --------------------------------------------------------------------


LIMIT = "MCP App preview descriptor exceeds safe limits"


def test_check_descriptor_bounds() -> None:
    check_descriptor("mcp-app-" + "x" * 120, "s" * 256, "t" * 256, "ui://" + "u" * 2043, "c" * 512)
    check_descriptor("mcp-app-1", "s", "t", "ui://x", None)
    for args in (
        ("mcp-app-" + "x" * 121, "s", "t", "ui://x", None),
        ("view-1", "s", "t", "ui://x", None),
        ("mcp-app-1", "", "t", "ui://x", None),
        ("mcp-app-1", "s" * 257, "t", "ui://x", None),
        ("mcp-app-1", "s", "", "ui://x", None),
        ("mcp-app-1", "s", "t" * 257, "ui://x", None),
        ("mcp-app-1", "s", "t", "https://x", None),
        ("mcp-app-1", "s", "t", "UI://x", None),
        ("mcp-app-1", "s", "t", "ui://" + "u" * 2044, None),
        ("mcp-app-1", "s", "t", "ui://x", "c" * 513),
    ):
        with pytest.raises(AppViewError, match=f"^{LIMIT}$"):
            check_descriptor(*args)


def test_check_descriptor_counts_utf16_units() -> None:
    # the reference (buildMcpAppCanvasPayload) refused a toolName of 129 emoji (258 UTF-16 units)
    with pytest.raises(AppViewError, match=f"^{LIMIT}$"):
        check_descriptor("mcp-app-1", "s", "\U0001f600" * 129, "ui://x", None)


@pytest.mark.xfail(strict=True, reason=EMPTY_VIEW_ID)
def test_check_descriptor_empty_view_id() -> None:
    check_descriptor("", "s", "t", "ui://x", None)


def make_view(
    view_id: str = "mcp-app-1", *, byte_size: int = 100, expires_at_ms: int = 600_000, **fields: Any
) -> AppView:
    values: dict[str, Any] = {
        "server_name": "clock",
        "tool_name": "show-clock",
        "ui_resource_uri": "ui://clock/view.html",
        "html": "<p>",
        "tool_input": {},
        "tool_result": {"content": []},
        "allowed_app_tools": frozenset({"tick"}),
        **fields,
    }
    return AppView(view_id=view_id, byte_size=byte_size, expires_at_ms=expires_at_ms, **values)


def test_canvas_preview_shape() -> None:
    view = make_view(tool_call_id="call-1")
    assert canvas_preview(view, result_has_meta=False, session_key="agent:main:main") == {
        "kind": "canvas",
        "view": {"id": "mcp-app-1", "title": "show-clock UI"},
        "presentation": {
            "target": "assistant_message",
            "title": "show-clock UI",
            "preferred_height": 600,
            "sandbox": "scripts",
        },
        "mcpApp": {
            "viewId": "mcp-app-1",
            "serverName": "clock",
            "toolName": "show-clock",
            "uiResourceUri": "ui://clock/view.html",
            "toolCallId": "call-1",
            "originSessionKey": "agent:main:main",
        },
    }


def test_canvas_preview_optional_fields() -> None:
    bare = canvas_preview(make_view(), result_has_meta=False)
    assert list(bare["mcpApp"]) == ["viewId", "serverName", "toolName", "uiResourceUri"]
    empty = canvas_preview(make_view(tool_call_id=""), result_has_meta=True, session_key="")
    assert list(empty["mcpApp"].items())[-1] == ("resultMetaState", "unavailable")
    assert "toolCallId" not in empty["mcpApp"] and "originSessionKey" not in empty["mcpApp"]
    # nothing of the view's content reaches the descriptor
    text = js_dumps(canvas_preview(make_view(html="SECRET-HTML", tool_input={"k": "SECRET-IN"}), result_has_meta=True))
    assert "SECRET" not in text
    with pytest.raises(AppViewError, match=f"^{LIMIT}$"):
        canvas_preview(make_view("bad-id"), result_has_meta=False)


# --- leases (§4.3) --------------------------------------------------------------------------------


class Dropped:
    def __init__(self) -> None:
        self.views: list[str] = []

    def __call__(self, view: AppView) -> None:
        self.views.append(view.view_id)


def test_ttl_expiry_on_access() -> None:
    dropped = Dropped()
    leases = ViewLeases(on_drop=dropped)
    view = make_view(expires_at_ms=600_000)
    leases.add(view, now_ms=0)
    assert leases.get("mcp-app-1", now_ms=599_999) is view
    with pytest.raises(AppViewError, match=f"^{VIEW_EXPIRED_MESSAGE}$") as caught:
        leases.get("mcp-app-1", now_ms=600_000)
    assert caught.value.kind == "expired"
    assert dropped.views == ["mcp-app-1"] and len(leases) == 0
    with pytest.raises(AppViewError, match=f"^{VIEW_EXPIRED_MESSAGE}$"):
        leases.get("mcp-app-unknown", now_ms=0)


def test_expired_views_are_pruned_on_any_access() -> None:
    dropped = Dropped()
    leases = ViewLeases(on_drop=dropped)
    leases.add(make_view("mcp-app-old", expires_at_ms=1_000), now_ms=0)
    leases.add(make_view("mcp-app-new", expires_at_ms=9_000), now_ms=0)
    leases.get("mcp-app-new", now_ms=1_000)
    assert dropped.views == ["mcp-app-old"] and len(leases) == 1


def test_view_count_cap_evicts_oldest() -> None:
    dropped = Dropped()
    leases = ViewLeases(on_drop=dropped)
    for n in range(32):
        leases.add(make_view(f"mcp-app-{n}"), now_ms=n)
    assert len(leases) == 32 and dropped.views == []
    leases.add(make_view("mcp-app-32"), now_ms=32)
    assert len(leases) == 32 and dropped.views == ["mcp-app-0"]
    with pytest.raises(AppViewError):
        leases.get("mcp-app-0", now_ms=33)
    assert leases.get("mcp-app-1", now_ms=33).view_id == "mcp-app-1"


def test_byte_cap_evicts_oldest() -> None:
    dropped = Dropped()
    leases = ViewLeases(on_drop=dropped)
    mib = 1 << 20
    leases.add(make_view("mcp-app-a", byte_size=30 * mib), now_ms=0)
    leases.add(make_view("mcp-app-b", byte_size=30 * mib), now_ms=0)
    leases.add(make_view("mcp-app-c", byte_size=4 * mib), now_ms=0)
    assert leases.total_bytes == 64 * mib == LeaseLimits().max_bytes and dropped.views == []
    leases.add(make_view("mcp-app-d", byte_size=1), now_ms=0)
    assert dropped.views == ["mcp-app-a"]
    leases.add(make_view("mcp-app-e", byte_size=60 * mib), now_ms=0)
    assert dropped.views == ["mcp-app-a", "mcp-app-b", "mcp-app-c"]
    assert leases.total_bytes == 60 * mib + 1


def test_replacing_a_view_drops_the_old_one_and_renews_its_place() -> None:
    dropped = Dropped()
    leases = ViewLeases(LeaseLimits(max_views=3), on_drop=dropped)
    first = make_view("mcp-app-x")
    leases.add(first, now_ms=0)
    leases.add(make_view("mcp-app-y"), now_ms=0)
    second = make_view("mcp-app-x")
    leases.add(second, now_ms=0)
    assert dropped.views == ["mcp-app-x"] and len(leases) == 2
    assert leases.get("mcp-app-x", now_ms=0) is second
    leases.add(make_view("mcp-app-z"), now_ms=0)
    leases.add(make_view("mcp-app-w"), now_ms=0)
    assert dropped.views == ["mcp-app-x", "mcp-app-y"]  # y is now the oldest


def test_close_drops_everything() -> None:
    dropped = Dropped()
    leases = ViewLeases(on_drop=dropped)
    leases.add(make_view("mcp-app-a"), now_ms=0)
    leases.add(make_view("mcp-app-b"), now_ms=0)
    leases.close()
    assert dropped.views == ["mcp-app-a", "mcp-app-b"] and len(leases) == 0


def _limit(leases: ViewLeases, view: AppView, kind: Any, now_ms: int) -> str:
    with pytest.raises(AppViewError) as caught:
        leases.acquire(view, kind, now_ms)
    assert caught.value.kind == "limit"
    return str(caught.value)


def test_request_rate_limit_and_window_reset() -> None:
    leases = ViewLeases()
    view = make_view()
    leases.add(view, now_ms=1_000)
    for n in range(120):
        leases.acquire(view, "request", 1_000 + n)()
    assert _limit(leases, view, "request", 1_500) == "MCP App request rate limit reached"
    assert _limit(leases, view, "tool", 1_500) == "MCP App request rate limit reached"
    assert _limit(leases, view, "request", 60_999) == "MCP App request rate limit reached"
    leases.acquire(view, "request", 61_000)()  # 60 s after the window started (the add)
    assert view.request_count == 1 and view.window_started_ms == 61_000


def test_tool_call_rate_limit() -> None:
    leases = ViewLeases()
    view = make_view()
    leases.add(view, now_ms=0)
    for n in range(30):
        leases.acquire(view, "tool", n)()
    assert _limit(leases, view, "tool", 100) == "MCP App request rate limit reached"
    for n in range(90):  # tool calls count as requests too: 90 more plain requests fill the 120
        leases.acquire(view, "request", 100 + n)()
    assert _limit(leases, view, "request", 200) == "MCP App request rate limit reached"
    assert view.request_count == 120 and view.tool_call_count == 30
    leases.acquire(view, "tool", 60_000)()
    assert view.tool_call_count == 1


def test_concurrency_limit_and_idempotent_release() -> None:
    leases = ViewLeases()
    view = make_view()
    leases.add(view, now_ms=0)
    releases = [leases.acquire(view, "tool", 0) for _ in range(4)]
    assert _limit(leases, view, "request", 0) == "MCP App request concurrency limit reached"
    assert view.request_count == 4  # refused acquisitions are not counted
    releases[0]()
    releases[0]()
    assert view.active_requests == 3
    fifth = leases.acquire(view, "request", 0)
    assert _limit(leases, view, "tool", 0) == "MCP App request concurrency limit reached"
    for release in [*releases, fifth]:
        release()
    assert view.active_requests == 0


def test_concurrency_is_checked_before_the_rate() -> None:
    leases = ViewLeases()
    view = make_view()
    leases.add(view, now_ms=0)
    for n in range(116):
        leases.acquire(view, "request", n)()
    held = [leases.acquire(view, "request", 200) for _ in range(4)]
    assert _limit(leases, view, "request", 200) == "MCP App request concurrency limit reached"
    for release in held:
        release()
    assert _limit(leases, view, "request", 200) == "MCP App request rate limit reached"


# --- app-callable (§3.3) --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("visibility", "callable_"),
    [(None, True), (["app"], True), (["app", "model"], True), (["model"], False), ([], False)],
)
def test_is_app_callable(visibility: list[str] | None, callable_: bool) -> None:
    assert is_app_callable(visibility) is callable_


# --- differential tables (expected values printed by the reference) -----------------------------------

# ``connectDomains: [entry]`` -> the origin the reference kept (None: refused)
REFERENCE_CONNECT_ENTRIES = [
    pytest.param("https://a.example.com", "https://a.example.com", id="https://a.example.com"),
    pytest.param("https://a.example.com:443/", "https://a.example.com", id="https://a.example.com:443/"),
    pytest.param("https://a.example.com/", "https://a.example.com", id="https://a.example.com/"),
    pytest.param("HTTP://X.COM", "http://x.com", id="HTTP://X.COM"),
    pytest.param("https://x.com.", "https://x.com.", id="https://x.com."),
    pytest.param("https://X.com:8443", "https://x.com:8443", id="https://X.com:8443"),
    pytest.param("http://x.com:80", "http://x.com", id="http://x.com:80"),
    pytest.param("https://x.com:80", "https://x.com:80", id="https://x.com:80"),
    pytest.param("https://x.com:0", "https://x.com:0", id="https://x.com:0"),
    pytest.param("https://x.com:65535", "https://x.com:65535", id="https://x.com:65535"),
    pytest.param("https://x.com:65536", None, id="https://x.com:65536"),
    pytest.param("https://x.com:", "https://x.com", id="https://x.com:"),
    pytest.param("https://x.com:443:443", None, id="https://x.com:443:443"),
    pytest.param("wss://x.com:443", "wss://x.com", id="wss://x.com:443"),
    pytest.param("ws://x.com", "ws://x.com", id="ws://x.com"),
    pytest.param("ws://x.com:80", "ws://x.com", id="ws://x.com:80"),
    pytest.param("ftp://x.com", None, id="ftp://x.com"),
    pytest.param("file:///etc", None, id="file:///etc"),
    pytest.param("data:text/html,x", None, id="data:text/html,x"),
    pytest.param("javascript:alert(1)", None, id="javascript:alert(1)"),
    pytest.param("blob:https://x.com/uuid", None, id="blob:https://x.com/uuid"),
    pytest.param("https:", None, id="https:"),
    pytest.param("blob:", None, id="blob:"),
    pytest.param("https://*.example.com", "https://*.example.com", id="https://*.example.com"),
    pytest.param("https://*", None, id="https://*"),
    pytest.param("https://*.", None, id="https://*."),
    pytest.param("*.example.com", None, id="*.example.com"),
    pytest.param("https://a.*.com", None, id="https://a.*.com"),
    pytest.param("https://**.example.com", None, id="https://**.example.com"),
    pytest.param("https://%2A.example.com", "https://*.example.com", id="https://%2A.example.com"),
    pytest.param("https://[::1]", "https://[::1]", id="https://[::1]"),
    pytest.param("https://[::1]:8443/", "https://[::1]:8443", id="https://[::1]:8443/"),
    pytest.param("https://[0:0:0:0:0:0:0:1]", "https://[::1]", id="https://[0:0:0:0:0:0:0:1]"),
    pytest.param("https://[::ffff:127.0.0.1]", "https://[::ffff:7f00:1]", id="https://[::ffff:127.0.0.1]"),
    pytest.param("https://[fe80::1%25eth0]", None, id="https://[fe80::1%25eth0]"),
    pytest.param("https://[::1", None, id="https://[::1"),
    pytest.param("https://127.0.0.1", "https://127.0.0.1", id="https://127.0.0.1"),
    pytest.param("https://127.1", "https://127.0.0.1", id="https://127.1"),
    pytest.param("https://0x7f.1", "https://127.0.0.1", id="https://0x7f.1"),
    pytest.param("https://2130706433", "https://127.0.0.1", id="https://2130706433"),
    pytest.param("https://1.2.3.4.5", None, id="https://1.2.3.4.5"),
    pytest.param("https://999.1.1.1", None, id="https://999.1.1.1"),
    pytest.param("https://%30x7f.1", "https://127.0.0.1", id="https://%30x7f.1"),
    pytest.param("https://user@x.com", None, id="https://user@x.com"),
    pytest.param("https://:@x.com", "https://x.com", id="https://:@x.com"),
    pytest.param("https://user:pw@x.com", None, id="https://user:pw@x.com"),
    pytest.param("https://:pw@x.com", None, id="https://:pw@x.com"),
    pytest.param("https://x.com/path", None, id="https://x.com/path"),
    pytest.param("https://x.com/.", "https://x.com", id="https://x.com/."),
    pytest.param("https://x.com/..", "https://x.com", id="https://x.com/.."),
    pytest.param("https://x.com/%2e", "https://x.com", id="https://x.com/%2e"),
    pytest.param("https://x.com\\", "https://x.com", id="https://x.com\\\\"),
    pytest.param("https://x.com//", None, id="https://x.com//"),
    pytest.param("https://x.com?", "https://x.com", id="https://x.com?"),
    pytest.param("https://x.com?a=1", None, id="https://x.com?a=1"),
    pytest.param("https://x.com#", "https://x.com", id="https://x.com#"),
    pytest.param("https://x.com#f", None, id="https://x.com#f"),
    pytest.param("https://x.com/?#", "https://x.com", id="https://x.com/?#"),
    pytest.param("https:x.com", "https://x.com", id="https:x.com"),
    pytest.param("https:///x.com", "https://x.com", id="https:///x.com"),
    pytest.param("https:\\\\x.com", "https://x.com", id="https:\\\\\\\\x.com"),
    pytest.param("https://ex%61mple.com", "https://example.com", id="https://ex%61mple.com"),
    pytest.param("https://ex%2Fample.com", None, id="https://ex%2Fample.com"),
    pytest.param("https://ex%zzample.com", None, id="https://ex%zzample.com"),
    pytest.param("https://b\xfccher.de", "https://xn--bcher-kva.de", id="https://b\\xfccher.de"),
    pytest.param("https://xn--bcher-kva.de", "https://xn--bcher-kva.de", id="https://xn--bcher-kva.de"),
    pytest.param("https://fa\xdf.de", "https://xn--fa-hia.de", id="https://fa\\xdf.de"),
    pytest.param(
        "https://\uff25\uff38\uff21\uff2d\uff30\uff2c\uff25.com",
        "https://example.com",
        id="https://\\uff25\\uff38\\uff21\\uff2d\\uff30\\u...54",
    ),
    pytest.param("https://example\u3002com", "https://example.com", id="https://example\\u3002com"),
    pytest.param("https://exa\u200bmple.com", "https://example.com", id="https://exa\\u200bmple.com"),
    pytest.param("https://x.com\u200b", "https://x.com", id="https://x.com\\u200b"),
    pytest.param("https://xn--", "https://xn--", id="https://xn--"),
    pytest.param("https://xn--a.com", "https://xn--a.com", id="https://xn--a.com"),
    pytest.param("https://x_y.com", None, id="https://x_y.com"),
    pytest.param("https://x y.com", None, id="https://x y.com"),
    pytest.param("https://a\ud800.com", None, id="https://a\\ud800.com"),
    pytest.param("https://x.com\xa0", None, id="https://x.com\\xa0"),
    pytest.param("\u2028https://x.com", None, id="\\u2028https://x.com"),
    pytest.param("\ufeffhttps://x.com", None, id="\\ufeffhttps://x.com"),
    pytest.param(" https://x.com", None, id=" https://x.com"),
    pytest.param("https://x.com\x09", None, id="https://x.com\\t"),
    pytest.param("https://x\x09.com", None, id="https://x\\t.com"),
    pytest.param("https://x\x7f.com", None, id="https://x\\x7f.com"),
    pytest.param("https://x\x85.com", None, id="https://x\\x85.com"),
    pytest.param("https://x.com\x85", None, id="https://x.com\\x85"),
    pytest.param("", None, id=""),
    pytest.param("https://localhost", "https://localhost", id="https://localhost"),
    pytest.param("https://-x.com", "https://-x.com", id="https://-x.com"),
    pytest.param("https://x..com", "https://x..com", id="https://x..com"),
    pytest.param("https://.x.com", "https://.x.com", id="https://.x.com"),
    pytest.param("https://x.com..", "https://x.com..", id="https://x.com.."),
    pytest.param("https://a-b.c-d.com", "https://a-b.c-d.com", id="https://a-b.c-d.com"),
    pytest.param(
        "https://" + "a" * 2036 + ".com",
        "https://" + "a" * 2036 + ".com",
        id="https://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...2048",
    ),
    pytest.param("https://" + "a" * 2037 + ".com", None, id="https://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...2049"),
    pytest.param(
        "https://" + "\U0001d400" * 1000 + ".com",
        "https://" + "a" * 1000 + ".com",
        id="https://\\U0001d400\\U0001d400\\U0001d400\\U...10012",
    ),
    pytest.param("https://\U0001f600.com", "https://xn--e28h.com", id="https://\\U0001f600.com"),
    pytest.param("https://i\u2764.ws", "https://xn--i-7iq.ws", id="https://i\\u2764.ws"),
    pytest.param(42, None, id="42"),
    pytest.param(None, None, id="None"),
    pytest.param(True, None, id="True"),
    pytest.param(["https://x.com"], None, id="['https://x.com']"),
    pytest.param({"url": "https://x.com"}, None, id="{'url': 'https://x.com'}"),
    pytest.param(
        "https://" + "\U0001d400" * 1030 + ".com", None, id="https://\\U0001d400\\U0001d400\\U0001d400\\U...10312"
    ),
    pytest.param(
        "https://" + "\U0001d400" * 1018 + ".com",
        "https://" + "a" * 1018 + ".com",
        id="https://\\U0001d400\\U0001d400\\U0001d400\\U...10192",
    ),
    pytest.param("https://x.com:00443", "https://x.com", id="https://x.com:00443"),
    pytest.param("https://x.com:+443", None, id="https://x.com:+443"),
    pytest.param("https://0", "https://0.0.0.0", id="https://0"),
    pytest.param("https://0x", "https://0.0.0.0", id="https://0x"),
    pytest.param("https://1.2.3.0x4", "https://1.2.3.4", id="https://1.2.3.0x4"),
    pytest.param("https://[::1]x", None, id="https://[::1]x"),
    pytest.param("https://[1:2:3:4:5:6:7:8:9]", None, id="https://[1:2:3:4:5:6:7:8:9]"),
    pytest.param("https://[::127.0.0.1]", "https://[::7f00:1]", id="https://[::127.0.0.1]"),
    pytest.param("https://x.com/%2E%2E", "https://x.com", id="https://x.com/%2E%2E"),
    pytest.param("https://x.com/./", "https://x.com", id="https://x.com/./"),
    pytest.param("https://x.com/%2E", "https://x.com", id="https://x.com/%2E"),
    pytest.param("https://x.com/.%2E", "https://x.com", id="https://x.com/.%2E"),
    pytest.param("https:/x.com", "https://x.com", id="https:/x.com"),
    pytest.param("HtTpS://X.com", "https://x.com", id="HtTpS://X.com"),
    pytest.param("https://x.com:443#", "https://x.com", id="https://x.com:443#"),
    pytest.param("https://\u0130.com", "https://xn--i-9bb.com", id="https://\\u0130.com"),
    pytest.param("https://\u03c2.com", "https://xn--3xa.com", id="https://\\u03c2.com"),
    pytest.param("https://\u2163.com", "https://iv.com", id="https://\\u2163.com"),
    pytest.param("https://\u3002x.com", "https://.x.com", id="https://\\u3002x.com"),
    pytest.param("https://x\uff0ecom", "https://x.com", id="https://x\\uff0ecom"),
    pytest.param("https://\u0644\u0627.com", "https://xn--mgb1d.com", id="https://\\u0644\\u0627.com"),
    pytest.param("https://a\u0301.com", "https://xn--1ca.com", id="https://a\\u0301.com"),
    pytest.param("https://\u0301a.com", None, id="https://\\u0301a.com"),
    pytest.param("https://a\u200db.com", None, id="https://a\\u200db.com"),
    pytest.param("https://\xad.com", "https://.com", id="https://\\xad.com"),
    pytest.param("https://x\xadx.com", "https://xx.com", id="https://x\\xadx.com"),
    pytest.param("https://xn--ls8h.la", "https://xn--ls8h.la", id="https://xn--ls8h.la"),
    pytest.param("https://XN--BCHER-KVA.de", "https://xn--bcher-kva.de", id="https://XN--BCHER-KVA.de"),
    pytest.param("https://xn--bcher-kva.xn--", "https://xn--bcher-kva.xn--", id="https://xn--bcher-kva.xn--"),
    pytest.param("https://a.b-.com", "https://a.b-.com", id="https://a.b-.com"),
    pytest.param("https://-.com", "https://-.com", id="https://-.com"),
    pytest.param("https://x.com%2F", None, id="https://x.com%2F"),
    pytest.param("https://x%00.com", None, id="https://x%00.com"),
    pytest.param("https://x%20.com", None, id="https://x%20.com"),
    pytest.param("https://%E2%9D%A4.ws", "https://xn--qei.ws", id="https://%E2%9D%A4.ws"),
    pytest.param("https://x.com\u3000", None, id="https://x.com\\u3000"),
    pytest.param("https://x.com\u180e", "https://x.com", id="https://x.com\\u180e"),
    pytest.param("https://x.com\u2029", None, id="https://x.com\\u2029"),
    pytest.param("https://x.com\ufeff", None, id="https://x.com\\ufeff"),
    pytest.param("https://*.example.com:443", "https://*.example.com", id="https://*.example.com:443"),
    pytest.param("https://*.example.com:8443/", "https://*.example.com:8443", id="https://*.example.com:8443/"),
    pytest.param("wss://*.example.com", "wss://*.example.com", id="wss://*.example.com"),
    pytest.param(
        "https://a.b.c.d.e.f.g.h.example.com",
        "https://a.b.c.d.e.f.g.h.example.com",
        id="https://a.b.c.d.e.f.g.h.example.com",
    ),
    pytest.param("https://1.2.3.4:443", "https://1.2.3.4", id="https://1.2.3.4:443"),
    pytest.param("http://[::]:80/", "http://[::]", id="http://[::]:80/"),
    pytest.param("https://x.com:443/?", "https://x.com", id="https://x.com:443/?"),
    pytest.param("https://x.com/#", "https://x.com", id="https://x.com/#"),
    pytest.param("https://\u0661\u0662.com", None, id="https://\\u0661\\u0662.com"),
    pytest.param("https://xn--a-ecp.ru", "https://xn--a-ecp.ru", id="https://xn--a-ecp.ru"),
    pytest.param("https://\u1e9e.de", "https://xn--zca.de", id="https://\\u1e9e.de"),
    pytest.param("https://x.com\u200c", None, id="https://x.com\\u200c"),
]
REFERENCE_POLICIES = [
    pytest.param(
        {"resourceDomains": ["https://cdn.example.com"]},
        {"resourceDomains": ["https://cdn.example.com"]},
        id="{'resourceDomains': ['https://cdn.example.com']}",
    ),
    pytest.param({"resourceDomains": ["wss://x.com"]}, None, id="{'resourceDomains': ['wss://x.com']}"),
    pytest.param({"resourceDomains": ["ws://x.com"]}, None, id="{'resourceDomains': ['ws://x.com']}"),
    pytest.param({"resourceDomains": ["https:"]}, None, id="{'resourceDomains': ['https:']}"),
    pytest.param({"resourceDomains": ["blob:"]}, None, id="{'resourceDomains': ['blob:']}"),
    pytest.param({"mediaDomains": ["https:"]}, {"mediaDomains": ["https:"]}, id="{'mediaDomains': ['https:']}"),
    pytest.param({"mediaDomains": ["blob:"]}, {"mediaDomains": ["blob:"]}, id="{'mediaDomains': ['blob:']}"),
    pytest.param({"mediaDomains": ["data:"]}, None, id="{'mediaDomains': ['data:']}"),
    pytest.param({"mediaDomains": ["http:"]}, None, id="{'mediaDomains': ['http:']}"),
    pytest.param({"mediaDomains": ["wss://x.com"]}, None, id="{'mediaDomains': ['wss://x.com']}"),
    pytest.param(
        {"mediaDomains": ["https://m.example.com"]},
        {"mediaDomains": ["https://m.example.com"]},
        id="{'mediaDomains': ['https://m.example.com']}",
    ),
    pytest.param({"mediaDomains": [" https:"]}, None, id="{'mediaDomains': [' https:']}"),
    pytest.param({"mediaDomains": ["blob:https://x.com"]}, None, id="{'mediaDomains': ['blob:https://x.com']}"),
    pytest.param(
        {"frameDomains": ["https://f.example.com", "ws://x.com"]},
        {"frameDomains": ["https://f.example.com"]},
        id="{'frameDomains': ['https://f.example.com...57",
    ),
    pytest.param(
        {"baseUriDomains": ["https://b.example.com:443/", "wss://x.com"]},
        {"baseUriDomains": ["https://b.example.com"]},
        id="{'baseUriDomains': ['https://b.example.c...65",
    ),
    pytest.param(
        {"connectDomains": ["https://api.example.com"], "resourceDomains": ["https://cdn.example.com"]},
        {"connectDomains": ["https://api.example.com"], "resourceDomains": ["https://cdn.example.com"]},
        id="{'connectDomains': ['https://api.example...95",
    ),
    pytest.param(
        {"resourceDomains": ["https://cdn.example.com"], "mediaDomains": ["blob:"]},
        {"resourceDomains": ["https://cdn.example.com"], "mediaDomains": ["blob:"]},
        id="{'resourceDomains': ['https://cdn.exampl...75",
    ),
    pytest.param(
        {"connectDomains": ["https://x.com", "https://x.com:443", "https://x.com"]},
        {"connectDomains": ["https://x.com", "https://x.com", "https://x.com"]},
        id="{'connectDomains': ['https://x.com', 'ht...75",
    ),
    pytest.param(
        {"connectDomains": ["ftp://x.com"], "blockDescendantFrames": True},
        {"blockDescendantFrames": True},
        id="{'connectDomains': ['ftp://x.com'], 'blo...66",
    ),
    pytest.param(
        {"blockDescendantFrames": True}, {"blockDescendantFrames": True}, id="{'blockDescendantFrames': True}"
    ),
    pytest.param({"blockDescendantFrames": "true"}, None, id="{'blockDescendantFrames': 'true'}"),
    pytest.param({"blockDescendantFrames": 1}, None, id="{'blockDescendantFrames': 1}"),
    pytest.param(
        {"blockDescendantFrames": False, "connectDomains": ["https://x.com"]},
        {"connectDomains": ["https://x.com"]},
        id="{'blockDescendantFrames': False, 'connec...69",
    ),
    pytest.param({}, None, id="{}"),
    pytest.param([], None, id="[]"),
    pytest.param("x", None, id="x"),
    pytest.param(None, None, id="None"),
    pytest.param(0, None, id="0"),
    pytest.param(
        {"connectDomains": [], "resourceDomains": [], "mediaDomains": [], "frameDomains": [], "baseUriDomains": []},
        None,
        id="{'connectDomains': [], 'resourceDomains'...107",
    ),
    pytest.param({"connectDomains": "https://x.com"}, None, id="{'connectDomains': 'https://x.com'}"),
    pytest.param({"connectDomains": {"0": "https://x.com"}}, None, id="{'connectDomains': {'0': 'https://x.com'}}"),
    pytest.param({"foo": ["https://x.com"]}, None, id="{'foo': ['https://x.com']}"),
    pytest.param(
        {
            "baseUriDomains": ["https://b.example.com"],
            "frameDomains": ["https://f.example.com"],
            "mediaDomains": ["https:", "blob:"],
            "resourceDomains": ["https://r.example.com"],
            "connectDomains": ["wss://w.example.com"],
            "blockDescendantFrames": True,
        },
        {
            "connectDomains": ["wss://w.example.com"],
            "resourceDomains": ["https://r.example.com"],
            "mediaDomains": ["https:", "blob:"],
            "frameDomains": ["https://f.example.com"],
            "baseUriDomains": ["https://b.example.com"],
            "blockDescendantFrames": True,
        },
        id="{'baseUriDomains': ['https://b.example.c...245",
    ),
]
REFERENCE_DECODE = [
    pytest.param(
        "eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2FwaS5leGFtcGxlLmNvbSJdfQ",
        {"connectDomains": ["https://api.example.com"]},
        id="eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2Fw...62",
    ),  # accepted
    pytest.param(
        "eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2FwaS5leGFtcGxlLmNvbSJdfQ==",
        {"connectDomains": ["https://api.example.com"]},
        id="eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2Fw...64",
    ),  # accepted
    pytest.param(
        "eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2FwaS5leGFtcGxlLmNvbSJdfQ=",
        {"connectDomains": ["https://api.example.com"]},
        id="eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2Fw...63",
    ),  # accepted
    pytest.param("garbage", None, id="garbage"),  # TypeError: The encoded data was not valid for encoding utf-8
    pytest.param("", None, id=""),  # SyntaxError: Unexpected end of JSON input
    pytest.param("__4", None, id="__4"),  # TypeError: The encoded data was not valid for encoding utf-8
    pytest.param("ew", None, id="ew"),  # SyntaxError: Expected property name or '}' in JSON at positi
    pytest.param("e30", None, id="e30"),  # Error: MCP App CSP metadata is not a valid policy
    pytest.param("W10", None, id="W10"),  # Error: MCP App CSP metadata is not a valid policy
    pytest.param(
        "eyJjb25uZWN0RG9tYWlucyI6WyJmdHA6Ly94LmNvbSJdfQ", None, id="eyJjb25uZWN0RG9tYWlucyI6WyJmdHA6Ly94LmNvbSJdfQ"
    ),  # Error: MCP App CSP metadata is not a valid policy
    pytest.param(
        "A" * 6833, None, id="AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA...6833"
    ),  # Error: MCP App CSP metadata is too large
    pytest.param(
        "A" * 6832, None, id="AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA...6832"
    ),  # SyntaxError: Unexpected token '?', "??????????"... is not va
    pytest.param(
        "eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2FwaS5leGFtcGxlLmNvbSJdfT8/Pz4+Pg==",
        None,
        id="eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2Fw...72",
    ),  # SyntaxError: Unexpected non-whitespace character after JSON
    pytest.param(
        "eyJjb25uZW\x0a N0RG9tYWlucyI6WyJodHRwczovL2FwaS5leGFtcGxlLmNvbSJdfQ",
        {"connectDomains": ["https://api.example.com"]},
        id="eyJjb25uZW\\n N0RG9tYWlucyI6WyJodHRwczovL...65",
    ),  # accepted
    pytest.param(
        "eyJjb25u=ZWN0RG9tYWlucyI6WyJodHRwczovL2FwaS5leGFtcGxlLmNvbSJdfQ",
        None,
        id="eyJjb25u=ZWN0RG9tYWlucyI6WyJodHRwczovL2F...63",
    ),  # SyntaxError: Unterminated string in JSON at position 6 (line
    pytest.param(
        "eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2FwaS5leGFtcGxlLmNvbSJdfQ=junk",
        {"connectDomains": ["https://api.example.com"]},
        id="eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2Fw...67",
    ),  # accepted
    pytest.param(
        "77u_eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2FwaS5leGFtcGxlLmNvbSJdfQ",
        {"connectDomains": ["https://api.example.com"]},
        id="77u_eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczov...66",
    ),  # accepted
    pytest.param(
        "eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL3guY29tIl0sIm4iOk5hTn0",
        None,
        id="eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL3gu...59",
    ),  # SyntaxError: Unexpected token 'N', ..."com"],"n":NaN}" is no
    pytest.param(
        "eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL3guY29tIl0sIm4iOkluZmluaXR5fQ",
        None,
        id="eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL3gu...66",
    ),  # SyntaxError: Unexpected token 'I', ..."com"],"n":Infinity}"
    pytest.param(
        "eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL3guY29tIl0sIm4iOjFlNDAwfQ",
        {"connectDomains": ["https://x.com"]},
        id="eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL3gu...62",
    ),  # accepted
    pytest.param(
        "eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL3guY29tIl0sImNvbm5lY3REb21haW5zIjpbImh0dHBzOi8veS5jb20iXX0",
        {"connectDomains": ["https://y.com"]},
        id="eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL3gu...95",
    ),  # accepted
    pytest.param(
        "eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL3guY29tIl19IHg", None, id="eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL3gu...51"
    ),  # SyntaxError: Unexpected non-whitespace character after JSON
    pytest.param(
        "IAkKeyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL3guY29tIl19DQo",
        {"connectDomains": ["https://x.com"]},
        id="IAkKeyJjb25uZWN0RG9tYWlucyI6WyJodHRwczov...55",
    ),  # accepted
    pytest.param(
        "DHsiY29ubmVjdERvbWFpbnMiOlsiaHR0cHM6Ly94LmNvbSJdfQ", None, id="DHsiY29ubmVjdERvbWFpbnMiOlsiaHR0cHM6Ly94...50"
    ),  # SyntaxError: Unexpected token '?', "?{"connect"... is not va
    pytest.param(
        "eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL3guY29tIl0sInMiOiJcdWQ4MDAifQ",
        {"connectDomains": ["https://x.com"]},
        id="eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL3gu...66",
    ),  # accepted
    pytest.param(
        "eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL3guY29tIl0sInMiOiLtoIAifQ",
        None,
        id="eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL3gu...62",
    ),  # TypeError: The encoded data was not valid for encoding utf-8
    pytest.param(
        "eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL3guY29tIl0sInMiOiIBIn0",
        None,
        id="eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL3gu...59",
    ),  # SyntaxError: Bad control character in string literal in JSON
    pytest.param(
        "eyJtZWRpYURvbWFpbnMiOlsiYmxvYjoiXX0%3D", None, id="eyJtZWRpYURvbWFpbnMiOlsiYmxvYjoiXX0%3D"
    ),  # SyntaxError: Unexpected non-whitespace character after JSON
    pytest.param("Ingi", None, id="Ingi"),  # Error: MCP App CSP metadata is not a valid policy
    pytest.param("bnVsbA", None, id="bnVsbA"),  # Error: MCP App CSP metadata is not a valid policy
    pytest.param("MQ", None, id="MQ"),  # Error: MCP App CSP metadata is not a valid policy
    pytest.param(
        "eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2FwaS5leGFtcGxlLmNvbSJdfQ!",
        {"connectDomains": ["https://api.example.com"]},
        id="eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2Fw...63",
    ),  # accepted
    pytest.param(
        "eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2FwaS5leGFtcGxlLmNvbSJdfQ ",
        {"connectDomains": ["https://api.example.com"]},
        id="eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2Fw...63",
    ),  # accepted
    pytest.param(
        "!eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2FwaS5leGFtcGxlLmNvbSJdfQ",
        {"connectDomains": ["https://api.example.com"]},
        id="!eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2F...63",
    ),  # accepted
    pytest.param(
        "eyJjb.25uZWN0RG9tYWlucyI6WyJodHRwczovL2FwaS5leGFtcGxlLmNvbSJdfQ",
        {"connectDomains": ["https://api.example.com"]},
        id="eyJjb.25uZWN0RG9tYWlucyI6WyJodHRwczovL2F...63",
    ),  # accepted
    pytest.param(
        "eyJjb!!!!25uZWN0RG9tYWlucyI6WyJodHRwczovL2FwaS5leGFtcGxlLmNvbSJdfQ",
        {"connectDomains": ["https://api.example.com"]},
        id="eyJjb!!!!25uZWN0RG9tYWlucyI6WyJodHRwczov...66",
    ),  # accepted
    pytest.param(
        "eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2FwaS5leGFtcGxlLmNvbSJdfQ====",
        {"connectDomains": ["https://api.example.com"]},
        id="eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2Fw...66",
    ),  # accepted
    pytest.param(
        "eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2FwaS5leGFtcGxlLmNvbSJdfQA",
        None,
        id="eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2Fw...63",
    ),  # SyntaxError: Unexpected non-whitespace character after JSON
    pytest.param(
        "eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2FwaS5leGFtcGxlLmNvbSJdfQAA",
        None,
        id="eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2Fw...64",
    ),  # SyntaxError: Unexpected non-whitespace character after JSON
    pytest.param(
        "  eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2FwaS5leGFtcGxlLmNvbSJdfQ",
        {"connectDomains": ["https://api.example.com"]},
        id="  eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2...64",
    ),  # accepted
    pytest.param(
        "e\x09yJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2FwaS5leGFtcGxlLmNvbSJdfQ",
        {"connectDomains": ["https://api.example.com"]},
        id="e\\tyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2...64",
    ),  # accepted
    pytest.param(
        "eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2FwaS5leGFtcGxlLmNvbSJdfQ=====x",
        {"connectDomains": ["https://api.example.com"]},
        id="eyJjb25uZWN0RG9tYWlucyI6WyJodHRwczovL2Fw...68",
    ),  # accepted
    pytest.param(
        "eyJtZWRpYURvbWFpbnMiOlsiYmxvYjoiXSwiY29ubmVjdERvbWFpbnMiOlsid3NzOi8vdy5leGFtcGxlLmNvbSJdfT4+Pg==",
        None,
        id="eyJtZWRpYURvbWFpbnMiOlsiYmxvYjoiXSwiY29u...96",
    ),  # SyntaxError: Unexpected non-whitespace character after JSON
]
REFERENCE_HEADERS = [
    pytest.param(
        None,
        [
            "default-src 'none'",
            "script-src 'self' 'unsafe-inline'",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "media-src 'self' data:",
            "connect-src 'none'",
            "webrtc 'block'",
            "frame-src 'none'",
            "base-uri 'self'",
            "object-src 'none'",
            "form-action 'none'",
            "frame-ancestors http: https:",
        ],
        id="None",
    ),
    pytest.param(
        {},
        [
            "default-src 'none'",
            "script-src 'self' 'unsafe-inline'",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "media-src 'self' data:",
            "font-src 'self'",
            "connect-src 'none'",
            "webrtc 'block'",
            "frame-src 'none'",
            "base-uri 'self'",
            "object-src 'none'",
            "form-action 'none'",
            "frame-ancestors http: https:",
        ],
        id="{}",
    ),
    pytest.param(
        {"connectDomains": ["https://api.example.com"], "resourceDomains": ["https://cdn.example.com"]},
        [
            "default-src 'none'",
            "script-src 'self' 'unsafe-inline' https://cdn.example.com",
            "style-src 'self' 'unsafe-inline' https://cdn.example.com",
            "img-src 'self' data: https://cdn.example.com",
            "media-src 'self' data: https://cdn.example.com",
            "font-src 'self' https://cdn.example.com",
            "connect-src https://api.example.com",
            "webrtc 'block'",
            "frame-src 'none'",
            "base-uri 'self'",
            "object-src 'none'",
            "form-action 'none'",
            "frame-ancestors http: https:",
        ],
        id="{'connectDomains': ['https://api.example...95",
    ),
    pytest.param(
        {"resourceDomains": ["https://r"], "mediaDomains": ["blob:"]},
        [
            "default-src 'none'",
            "script-src 'self' 'unsafe-inline' https://r",
            "style-src 'self' 'unsafe-inline' https://r",
            "img-src 'self' data: https://r",
            "media-src 'self' data: blob:",
            "font-src 'self' https://r",
            "connect-src 'none'",
            "webrtc 'block'",
            "frame-src 'none'",
            "base-uri 'self'",
            "object-src 'none'",
            "form-action 'none'",
            "frame-ancestors http: https:",
        ],
        id="{'resourceDomains': ['https://r'], 'medi...61",
    ),
    pytest.param(
        {"resourceDomains": ["https://r"], "mediaDomains": []},
        [
            "default-src 'none'",
            "script-src 'self' 'unsafe-inline' https://r",
            "style-src 'self' 'unsafe-inline' https://r",
            "img-src 'self' data: https://r",
            "media-src 'self' data:",
            "font-src 'self' https://r",
            "connect-src 'none'",
            "webrtc 'block'",
            "frame-src 'none'",
            "base-uri 'self'",
            "object-src 'none'",
            "form-action 'none'",
            "frame-ancestors http: https:",
        ],
        id="{'resourceDomains': ['https://r'], 'medi...54",
    ),
    pytest.param(
        {"blockDescendantFrames": True},
        [
            "default-src 'none'",
            "script-src 'self' 'unsafe-inline'",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "media-src 'self' data:",
            "font-src 'self'",
            "connect-src 'none'",
            "webrtc 'block'",
            "frame-src 'none'",
            "child-src 'none'",  # decision (issue 32): stricter than the reference
            "base-uri 'self'",
            "object-src 'none'",
            "form-action 'none'",
            "frame-ancestors http: https:",
            "require-trusted-types-for 'script'",  # decision (issue 32)
        ],
        id="{'blockDescendantFrames': True}",
    ),
    pytest.param(
        {"frameDomains": ["https://f"], "baseUriDomains": ["https://b", "https://c"], "connectDomains": ["wss://w"]},
        [
            "default-src 'none'",
            "script-src 'self' 'unsafe-inline'",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "media-src 'self' data:",
            "font-src 'self'",
            "connect-src wss://w",
            "webrtc 'block'",
            "frame-src https://f",
            "base-uri https://b https://c",
            "object-src 'none'",
            "form-action 'none'",
            "frame-ancestors http: https:",
        ],
        id="{'frameDomains': ['https://f'], 'baseUri...108",
    ),
]


@pytest.mark.parametrize(("entry", "origin"), REFERENCE_CONNECT_ENTRIES)
def test_reference_connect_entries(entry: object, origin: str | None) -> None:
    assert kept(entry) == (None if origin is None else [origin])


@pytest.mark.parametrize(("value", "expected"), REFERENCE_POLICIES)
def test_reference_policies(value: object, expected: dict[str, Any] | None) -> None:
    csp = normalize_csp(value)
    assert csp == expected
    if csp is not None and expected is not None:
        assert list(csp) == list(expected)


@pytest.mark.parametrize(("value", "expected"), REFERENCE_DECODE)
def test_reference_decode(value: str, expected: dict[str, Any] | None) -> None:
    if expected is None:
        with pytest.raises(AppViewError):
            decode_csp_param(value)
    else:
        assert decode_csp_param(value) == expected


@pytest.mark.parametrize(("csp", "directives"), REFERENCE_HEADERS)
def test_reference_headers(csp: dict[str, Any] | None, directives: list[str]) -> None:
    assert csp_header(csp) == "; ".join(directives)
