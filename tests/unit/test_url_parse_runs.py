"""The URL parser's shortcuts (issue 33) change no result: whole runs of code points per step agree with the
standard's one-code-point-per-step walk, and the per-text cache of ``parse_url`` returns what a fresh parse
returns."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from openclaw_mcp.jscompat import urls
from openclaw_mcp.jscompat.urls import Url, parse_url, set_hash, set_pathname, set_search

# Pieces that steer the state machine: delimiters, brackets, percent-escapes, dot segments, encode-set
# members, non-ASCII and C0 code points, whole schemes and hosts.
_PIECES = st.sampled_from(
    [
        *"aZ09:/\\?#@[]%.-+ \t\n'\"<>^`{}|;=~!$&()*,_",
        "é", "ß", "\ud800", "\x00", "\x7f", "\u3002", "😀",
        "%2e", "%2E", "..", "%41", "xn--", "0x", "127", "::", "[::1]", "C:", "C|", "localhost",
        "http", "https", "file", "foo", "mailto:", "ws",
    ]
)  # fmt: skip
_PREFIXES = st.sampled_from(
    ["", "http://", "https://", "HTTP://", "file://", "file:///", "foo://", "foo:", "ws:", "http:", "https:\\\\",
     " https://", "http://u:p@", "https://[", "ftp://a@b@", "https://h:8080/", "foo://u@h/"]
)  # fmt: skip
_TEXTS = st.builds(lambda prefix, pieces: prefix + "".join(pieces), _PREFIXES, st.lists(_PIECES, max_size=16))


def _walked(text: str, *, runs: bool) -> Url | None:
    try:
        return urls._basic_parse(text, runs=runs).freeze()
    except urls._Failure:
        return None


@settings(max_examples=3000, deadline=None)
@given(_TEXTS)
@example("https://u:p:q@h@i:80/a/./b/%2e%2e/c?x='y'#z w")
@example("http://[::1:2]:1/")
@example("foo:a ?x#y")
@example("file:///C|/../x")
def test_runs_of_code_points_parse_like_the_one_by_one_walk(text: str) -> None:
    assert _walked(text, runs=True) == _walked(text, runs=False)


@settings(max_examples=1000, deadline=None)
@given(_TEXTS, st.lists(_PIECES, max_size=8).map("".join))
def test_the_setters_agree_with_the_one_by_one_walk(text: str, value: str) -> None:
    url = parse_url(text)
    if url is None:
        return
    for setter, state, sigil in (
        (set_search, urls._State.QUERY, "?"),
        (set_hash, urls._State.FRAGMENT, "#"),
    ):
        if value == "":
            continue
        record = urls._Record.of(url)
        setattr(record, "query" if sigil == "?" else "fragment", "")
        expected = urls._basic_parse(value.removeprefix(sigil), record, state, runs=False).freeze()
        assert setter(url, value) == expected
    if not url.has_opaque_path:
        record = urls._Record.of(url)
        record.path = []
        expected = urls._basic_parse(value, record, urls._State.PATH_START, runs=False).freeze()
        assert set_pathname(url, value) == expected


@settings(max_examples=500, deadline=None)
@given(_TEXTS)
def test_the_cache_returns_what_a_fresh_parse_returns(text: str) -> None:
    first = parse_url(text)
    assert first == parse_url.__wrapped__(text)
    assert parse_url(text) is first


def test_the_cache_is_bounded() -> None:
    assert parse_url.cache_info().maxsize is not None
