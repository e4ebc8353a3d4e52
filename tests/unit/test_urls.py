"""WHATWG URL parsing as Node 24's ``new URL`` does it.

Every expected value below was produced by Node 24 (the reference's runtime) for the same input.
"""

from __future__ import annotations

import pytest

from openclaw_mcp.jscompat.urlencoded import (
    decode_uri_component,
    encode_uri_component,
    search_params,
    search_params_set,
    serialize_search_params,
)
from openclaw_mcp.jscompat.urls import (
    Url,
    can_parse_url,
    parse_url,
    set_hash,
    set_password,
    set_pathname,
    set_search,
    set_search_params,
    set_username,
    with_changes,
)

# (input, None when ``new URL`` throws, else (href, protocol, hostname, port, pathname, search, hash))
PARSE_CASES = [
    ("https://mcp.example.com", ("https://mcp.example.com/", "https:", "mcp.example.com", "", "/", "", "")),
    (
        "HTTP://Example.COM:80/a/../b?x=1 2#frag",
        ("http://example.com/b?x=1%202#frag", "http:", "example.com", "", "/b", "?x=1%202", "#frag"),
    ),
    ("http://0x7f.1/", ("http://127.0.0.1/", "http:", "127.0.0.1", "", "/", "", "")),
    ("http://127.1:8080/", ("http://127.0.0.1:8080/", "http:", "127.0.0.1", "8080", "/", "", "")),
    ("http://0300.0250.1.1/", ("http://192.168.1.1/", "http:", "192.168.1.1", "", "/", "", "")),
    ("http://4294967295/", ("http://255.255.255.255/", "http:", "255.255.255.255", "", "/", "", "")),
    ("http://4294967296/", None),
    ("http://1.2.3.4.5/", None),
    ("http://foo.09/", None),
    ("http://foo.0x/", None),
    ("http://[::1]:80/", ("http://[::1]/", "http:", "[::1]", "", "/", "", "")),
    ("http://[1:0:0:2:0:0:0:3]/", ("http://[1:0:0:2::3]/", "http:", "[1:0:0:2::3]", "", "/", "", "")),
    ("http://[0:0:0:0:0:ffff:1.2.3.4]/", ("http://[::ffff:102:304]/", "http:", "[::ffff:102:304]", "", "/", "", "")),
    ("http://[1:2]/", None),
    ("https://u:p@h.example/", ("https://u:p@h.example/", "https:", "h.example", "", "/", "", "")),
    ("https://us er:pa ss@h/", ("https://us%20er:pa%20ss@h/", "https:", "h", "", "/", "", "")),
    ("http://a:b@/", None),
    ("http://@h/", ("http://h/", "http:", "h", "", "/", "", "")),
    ("http://ex%41mple.com/", ("http://example.com/", "http:", "example.com", "", "/", "", "")),
    ("http://a%2Fb/", None),
    ("http://a^b/", None),
    ("http://bücher.de/", ("http://xn--bcher-kva.de/", "http:", "xn--bcher-kva.de", "", "/", "", "")),
    ("http://straße.de/", ("http://xn--strae-oqa.de/", "http:", "xn--strae-oqa.de", "", "/", "", "")),
    ("http://ÉXAMPLE.org/", ("http://xn--xample-9ua.org/", "http:", "xn--xample-9ua.org", "", "/", "", "")),
    ("http://h/a/%2e%2E/b", ("http://h/b", "http:", "h", "", "/b", "", "")),
    ("http://h\\a\\b/./c", ("http://h/a/b/c", "http:", "h", "", "/a/b/c", "", "")),
    (
        'http://h/a^b|c{d}e`f"g<h>i j',
        (
            "http://h/a%5Eb|c%7Bd%7De%60f%22g%3Ch%3Ei%20j",
            "http:",
            "h",
            "",
            "/a%5Eb|c%7Bd%7De%60f%22g%3Ch%3Ei%20j",
            "",
            "",
        ),
    ),
    (
        "http://h/?a^b`c{d}|'\" <>",
        ("http://h/?a^b`c{d}|%27%22%20%3C%3E", "http:", "h", "", "/", "?a^b`c{d}|%27%22%20%3C%3E", ""),
    ),
    ("foo://h/?a'b", ("foo://h/?a'b", "foo:", "h", "", "/", "?a'b", "")),
    ('http://h/#a b`c"<>{}', ("http://h/#a%20b%60c%22%3C%3E{}", "http:", "h", "", "/", "", "#a%20b%60c%22%3C%3E{}")),
    ("http://h/é?é#é", ("http://h/%C3%A9?%C3%A9#%C3%A9", "http:", "h", "", "/%C3%A9", "?%C3%A9", "#%C3%A9")),
    ("mailto:Foo@Example.COM", ("mailto:Foo@Example.COM", "mailto:", "", "", "Foo@Example.COM", "", "")),
    ("foo:bar baz ", ("foo:bar baz", "foo:", "", "", "bar baz", "", "")),
    ("foo:a ?x", ("foo:a%20?x", "foo:", "", "", "a%20", "?x", "")),
    ("foo://H/x", ("foo://H/x", "foo:", "H", "", "/x", "", "")),
    ("foo://", ("foo://", "foo:", "", "", "", "", "")),
    ("non-spec:/..//p", ("non-spec:/.//p", "non-spec:", "", "", "//p", "", "")),
    ("file:///C|/x", ("file:///C:/x", "file:", "", "", "/C:/x", "", "")),
    ("file://localhost/etc", ("file:///etc", "file:", "", "", "/etc", "", "")),
    ("ws://h:80/", ("ws://h/", "ws:", "h", "", "/", "", "")),
    ("wss://h:443/x", ("wss://h/x", "wss:", "h", "", "/x", "", "")),
    ("ftp://h:21/", ("ftp://h/", "ftp:", "h", "", "/", "", "")),
    ("http:/h/x", ("http://h/x", "http:", "h", "", "/x", "", "")),
    ("http:h/x", ("http://h/x", "http:", "h", "", "/x", "", "")),
    ("  \t http://h/ \n", ("http://h/", "http:", "h", "", "/", "", "")),
    ("no scheme", None),
    ("http://h:65536/", None),
    ("http://h:8a/", None),
    (
        "git+ssh://git@github.com/o/r.git",
        ("git+ssh://git@github.com/o/r.git", "git+ssh:", "github.com", "", "/o/r.git", "", ""),
    ),
    ("javascript:alert(1)", ("javascript:alert(1)", "javascript:", "", "", "alert(1)", "", "")),
]

SETTER_CASES = [
    ("setpath", ("http://h/p?q#f", "/a/../b c"), "http://h/b%20c?q#f"),
    ("setpath", ("foo:bar", "/x"), "foo:bar"),
    ("setsearch", ("http://h/p", "x=1 2&y='"), "http://h/p?x=1%202&y=%27"),
    ("setsearch", ("foo:bar ?x", ""), "foo:bar%20"),
    ("sethash", ("http://h/p", "a b"), "http://h/p#a%20b"),
    ("sethash", ("foo:bar #x", ""), "foo:bar%20"),
    ("setuser", ("https://alice:pw@h/", "***", "***"), "https://***:***@h/"),
    ("setuser", ("https://alice@h/", "***", ""), "https://***@h/"),
    ("setuser", ("file:///x", "u", "p"), "file:///x"),
]

SEARCH_PARAMS_CASES = [
    ("a=1&b=2", [("a", "1"), ("b", "2")]),
    ("a+b=c+d&x=%20&%zz=1", [("a b", "c d"), ("x", " "), ("%zz", "1")]),
    ("=&a&&b=", [("", ""), ("a", ""), ("b", "")]),
    ("k=%F0%9F&e=%C3%A9", [("k", "�"), ("e", "é")]),
    ("x=1=2", [("x", "1=2")]),
]
SERIALIZE_CASES = [
    ([("a b", "c&d"), ("é", "~!*'()")], "a+b=c%26d&%C3%A9=%7E%21*%27%28%29"),
    ([("x", ""), ("", "y")], "x=&=y"),
]
SET_CASES = [
    ("token=a&x=1&token=b", "token", "***", "token=***&x=1"),
    ("x=1", "token", "***", "x=1&token=***"),
    ("a=1 2&token=z", "token", "***", "a=1+2&token=***"),
]
DECODE_CASES = [
    ("%41%C3%A9", "Aé"),
    ("%", None),
    ("%C3", None),
    ("%C0%80", None),
    ("%ED%A0%80", None),
    ("a+b%20", "a+b "),
]
ENCODE_CASES = [
    ("a b&c=d/é~!*'()", "a%20b%26c%3Dd%2F%C3%A9~!*'()"),
    ("😀", "%F0%9F%98%80"),
]


def _parsed(text: str) -> Url:
    url = parse_url(text)
    assert url is not None
    return url


@pytest.mark.parametrize(("text", "expected"), PARSE_CASES)
def test_parse_url_matches_node_for_validity_and_every_component(
    text: str, expected: tuple[str, str, str, str, str, str, str] | None
) -> None:
    url = parse_url(text)
    if expected is None:
        assert url is None
        return
    assert url is not None
    actual = (url.href, url.protocol, url.hostname or "", url.port_text, url.pathname, url.search, url.hash)
    assert actual == expected


@pytest.mark.parametrize(("setter", "arguments", "expected"), SETTER_CASES)
def test_setters_behave_like_the_javascript_url_setters(setter: str, arguments: tuple[str, ...], expected: str) -> None:
    url = _parsed(arguments[0])
    if setter == "setpath":
        result = set_pathname(url, arguments[1])
    elif setter == "setsearch":
        result = set_search(url, arguments[1])
    elif setter == "sethash":
        result = set_hash(url, arguments[1])
    else:
        result = set_password(set_username(url, arguments[1]), arguments[2])
    assert result.href == expected


@pytest.mark.parametrize(("query", "expected"), SEARCH_PARAMS_CASES)
def test_search_params_parse_the_query_as_form_urlencoded(query: str, expected: list[tuple[str, str]]) -> None:
    assert search_params(query) == expected


@pytest.mark.parametrize(("pairs", "expected"), SERIALIZE_CASES)
def test_serialized_search_params_use_plus_for_space_and_the_urlencoded_byte_set(
    pairs: list[tuple[str, str]], expected: str
) -> None:
    assert serialize_search_params(pairs) == expected


@pytest.mark.parametrize(("query", "name", "value", "expected"), SET_CASES)
def test_search_params_set_replaces_the_first_pair_and_drops_later_duplicates(
    query: str, name: str, value: str, expected: str
) -> None:
    assert serialize_search_params(search_params_set(search_params(query), name, value)) == expected


@pytest.mark.parametrize(("text", "expected"), DECODE_CASES)
def test_decode_uri_component_raises_where_javascript_throws(text: str, expected: str | None) -> None:
    if expected is None:
        with pytest.raises(ValueError):
            decode_uri_component(text)
    else:
        assert decode_uri_component(text) == expected


@pytest.mark.parametrize(("text", "expected"), ENCODE_CASES)
def test_encode_uri_component_keeps_the_javascript_unreserved_set(text: str, expected: str) -> None:
    assert encode_uri_component(text) == expected


def test_encode_uri_component_rejects_a_lone_surrogate() -> None:
    with pytest.raises(ValueError):
        encode_uri_component("\ud800")


def test_writing_search_params_back_reserialises_the_query() -> None:
    url = _parsed("https://h/p?x=1%202&token=abc")
    pairs = search_params_set(search_params(url.query or ""), "token", "***")
    assert set_search_params(url, pairs).href == "https://h/p?x=1+2&token=***"


def test_writing_empty_search_params_removes_the_query() -> None:
    assert set_search_params(_parsed("https://h/p?x=1"), []).href == "https://h/p"


def test_with_changes_applies_setters_and_leaves_the_original_untouched() -> None:
    url = _parsed("https://alice:pw@h.example/a?q=1#f")
    changed = with_changes(url, username="***", password="***", pathname="/b", search="", hash="")
    assert changed.href == "https://***:***@h.example/b"
    assert url.href == "https://alice:pw@h.example/a?q=1#f"


def test_host_property_includes_a_non_default_port() -> None:
    url = _parsed("http://H.example:8080/x")
    assert (url.host, url.hostname, url.port, url.port_text) == ("h.example:8080", "h.example", 8080, "8080")


def test_url_without_host_reports_none_as_hostname() -> None:
    url = _parsed("mailto:a@b")
    assert url.hostname is None
    assert url.host == ""
    assert url.has_opaque_path


def test_can_parse_url_is_url_can_parse() -> None:
    assert can_parse_url("https://example.com/x")
    assert not can_parse_url("not a url")
    assert not can_parse_url("http://[::1")
