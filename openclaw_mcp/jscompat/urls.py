"""WHATWG URL parsing and serialisation, as Node's ``new URL(text)`` does it (spec cli-registry D18).

``urllib.parse`` neither validates nor normalises the way the reference does, so this module implements
the WHATWG URL Standard's basic URL parser (without a base URL), the URL serialiser and the setters the
redactor needs (``username``, ``password``, ``pathname``, ``search``, ``hash``). The record is in
``_url_record``, the host parser in ``_url_host``; ``URLSearchParams`` and ``encodeURIComponent`` live in
:mod:`jscompat.urlencoded`.

Covered exactly: special schemes (``http``, ``https``, ``ws``, ``wss``, ``ftp``, ``file``) and
non-special ones (``mailto:x``, ``foo://h/p``, ``foo:bar``); validity; lower-casing of scheme and host;
percent-decoding of hosts; IPv4 numbers in every WHATWG spelling (``0x7f.1`` → ``127.0.0.1``); IPv6
parsing and compression; default ports dropped; dot-segment removal; ``\\`` as ``/`` in special URLs;
the path, query, special-query, fragment and userinfo percent-encode sets; opaque paths. Strings are
handled as Unicode code points; lone surrogates become U+FFFD as in a JavaScript ``USVString`` conversion.

Known deviation: hosts with non-ASCII characters go through an approximation of UTS #46 (see
``_url_host``); ASCII hosts are exact.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import replace

from openclaw_mcp.jscompat._url_host import _parse_host
from openclaw_mcp.jscompat._url_percent import (
    _ASCII_ALPHA,
    _ASCII_DIGIT,
    _SCHEME_CHARS,
    _encode,
    _encode_char,
    _Failure,
    _in_c0,
    _in_fragment,
    _in_path,
    _in_query,
    _in_special_query,
    _in_userinfo,
    to_usv_string,
)
from openclaw_mcp.jscompat._url_record import (
    SPECIAL_SCHEME_PORTS,
    Url,
    _is_windows_drive_letter,
    _Record,
    is_special_scheme,
)
from openclaw_mcp.jscompat.urlencoded import serialize_search_params

__all__ = [
    "SPECIAL_SCHEME_PORTS",
    "Url",
    "can_parse_url",
    "is_special_scheme",
    "parse_url",
    "set_hash",
    "set_password",
    "set_pathname",
    "set_search",
    "set_search_params",
    "set_username",
    "to_usv_string",
    "with_changes",
]

# --- the basic URL parser -------------------------------------------------------------------------------


_SINGLE_DOT = frozenset({".", "%2e"})
_DOUBLE_DOT = frozenset({"..", ".%2e", "%2e.", "%2e%2e"})

_EOF = ""

# The C0 control or space code points the parser strips from both ends of its input.
_C0_OR_SPACE = "".join(chr(c) for c in range(0x21))

# Runs of code points that a state only appends (to its buffer, or percent-encoded to the record): the
# parser takes a whole run in one step instead of one code point per turn of the loop. Each pattern
# stops at every code point that state reacts to; ``\\`` only stops the special-URL variants.
_SCHEME_RUN = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
_AUTHORITY_RUN = re.compile(r"[^@/?#]+")
_AUTHORITY_RUN_SPECIAL = re.compile(r"[^@/?#\\]+")
_HOST_RUN = re.compile(r"[^:/?#\[\]]+")
_HOST_RUN_SPECIAL = re.compile(r"[^:/?#\[\]\\]+")
_PATH_RUN = re.compile(r"[^/?#]+")
_PATH_RUN_SPECIAL = re.compile(r"[^/?#\\]+")
_PATH_RUN_OVERRIDE = re.compile(r"[^/]+")  # the pathname setter: ``?`` and ``#`` belong to the path
_PATH_RUN_OVERRIDE_SPECIAL = re.compile(r"[^/\\]+")
_OPAQUE_PATH_RUN = re.compile(r"[^?# ]+")


@functools.cache
def _kept_ascii(in_set: Callable[[str], bool]) -> frozenset[str]:
    """The ASCII code points a percent-encode set leaves as they are."""
    return frozenset(chr(c) for c in range(0x80) if not in_set(chr(c)))


def _encode_run(text: str, in_set: Callable[[str], bool]) -> str:
    """``text`` percent-encoded code point by code point with ``in_set`` (unchanged text skips the walk)."""
    if _kept_ascii(in_set).issuperset(text):
        return text
    return _encode(text, in_set)


class _State:
    SCHEME_START = 0
    SCHEME = 1
    NO_SCHEME = 2
    SPECIAL_AUTHORITY_SLASHES = 3
    SPECIAL_AUTHORITY_IGNORE_SLASHES = 4
    PATH_OR_AUTHORITY = 5
    AUTHORITY = 6
    HOST = 7
    PORT = 8
    FILE = 9
    FILE_SLASH = 10
    FILE_HOST = 11
    PATH_START = 12
    PATH = 13
    OPAQUE_PATH = 14
    QUERY = 15
    FRAGMENT = 16


def _basic_parse(
    text: str, record: _Record | None = None, state_override: int | None = None, *, runs: bool = True
) -> _Record:
    """The basic URL parser. With ``runs`` (the default) the states that only collect code points take a
    whole run of them per step; ``runs=False`` walks one code point per step as the standard's text does
    (the two agree on every input: a property test holds them to it)."""
    text = to_usv_string(text)
    if record is None:
        record = _Record()
        text = text.strip(_C0_OR_SPACE)
    text = text.replace("\t", "").replace("\n", "").replace("\r", "")
    url = record
    state = state_override if state_override is not None else _State.SCHEME_START
    buffer = ""
    at_sign_seen = False
    inside_brackets = False
    password_token_seen = False
    pointer = 0
    n = len(text)

    while True:
        c = text[pointer] if pointer < n else _EOF
        special = url.scheme in SPECIAL_SCHEME_PORTS

        if state == _State.SCHEME_START:
            if c != _EOF and c in _ASCII_ALPHA:
                if runs:
                    run = _SCHEME_RUN.match(text, pointer)
                    assert run is not None
                    c = run.group()
                    pointer = run.end() - 1
                buffer += c.lower()
                state = _State.SCHEME
            elif state_override is None:
                state = _State.NO_SCHEME
                pointer -= 1
            else:
                raise _Failure

        elif state == _State.SCHEME:
            if c != _EOF and c in _SCHEME_CHARS:
                buffer += c.lower()
            elif c == ":":
                url.scheme = buffer
                buffer = ""
                special = url.scheme in SPECIAL_SCHEME_PORTS
                if url.scheme == "file":
                    state = _State.FILE
                elif special:
                    state = _State.SPECIAL_AUTHORITY_SLASHES
                elif text.startswith("/", pointer + 1):
                    state = _State.PATH_OR_AUTHORITY
                    pointer += 1
                else:
                    url.path = ""
                    state = _State.OPAQUE_PATH
            elif state_override is None:
                buffer = ""
                state = _State.NO_SCHEME
                pointer = -1
            else:
                raise _Failure

        elif state == _State.NO_SCHEME:
            # Without a base URL, a string without a scheme is not a URL.
            raise _Failure

        elif state == _State.SPECIAL_AUTHORITY_SLASHES:
            if c == "/" and text.startswith("/", pointer + 1):
                state = _State.SPECIAL_AUTHORITY_IGNORE_SLASHES
                pointer += 1
            else:
                state = _State.SPECIAL_AUTHORITY_IGNORE_SLASHES
                pointer -= 1

        elif state == _State.SPECIAL_AUTHORITY_IGNORE_SLASHES:
            if c not in ("/", "\\"):
                state = _State.AUTHORITY
                pointer -= 1

        elif state == _State.PATH_OR_AUTHORITY:
            if c == "/":
                state = _State.AUTHORITY
            else:
                state = _State.PATH
                pointer -= 1

        elif state == _State.AUTHORITY:
            if c == "@":
                if at_sign_seen:
                    buffer = "%40" + buffer
                at_sign_seen = True
                if runs:  # the first ":" ever seen splits the username from the password
                    if not password_token_seen:
                        user, colon, buffer = buffer.partition(":")
                        url.username += _encode_run(user, _in_userinfo)
                        password_token_seen = colon == ":"
                    url.password += _encode_run(buffer, _in_userinfo)
                else:
                    for code_point in buffer:
                        if code_point == ":" and not password_token_seen:
                            password_token_seen = True
                            continue
                        encoded = _encode_char(code_point, _in_userinfo)
                        if password_token_seen:
                            url.password += encoded
                        else:
                            url.username += encoded
                buffer = ""
            elif c in (_EOF, "/", "?", "#") or (special and c == "\\"):
                if at_sign_seen and buffer == "":
                    raise _Failure
                pointer -= len(buffer) + 1
                buffer = ""
                state = _State.HOST
            elif runs:
                run = (_AUTHORITY_RUN_SPECIAL if special else _AUTHORITY_RUN).match(text, pointer)
                assert run is not None
                buffer += run.group()
                pointer = run.end() - 1
            else:
                buffer += c

        elif state == _State.HOST:
            if c == ":" and not inside_brackets:
                if buffer == "":
                    raise _Failure
                url.host = _parse_host(buffer, opaque=not special)
                buffer = ""
                state = _State.PORT
            elif c in (_EOF, "/", "?", "#") or (special and c == "\\"):
                pointer -= 1
                if special and buffer == "":
                    raise _Failure
                url.host = _parse_host(buffer, opaque=not special)
                buffer = ""
                state = _State.PATH_START
            else:
                if c == "[":
                    inside_brackets = True
                elif c == "]":
                    inside_brackets = False
                elif runs:  # a ":" inside brackets does not start a run
                    run = (_HOST_RUN_SPECIAL if special else _HOST_RUN).match(text, pointer)
                    if run is not None:
                        c = run.group()
                        pointer = run.end() - 1
                buffer += c

        elif state == _State.PORT:
            if c != _EOF and c in _ASCII_DIGIT:
                buffer += c
            elif c in (_EOF, "/", "?", "#") or (special and c == "\\"):
                if buffer != "":
                    port = int(buffer)
                    if port > 65535:
                        raise _Failure
                    url.port = None if SPECIAL_SCHEME_PORTS.get(url.scheme, -1) == port else port
                    buffer = ""
                state = _State.PATH_START
                pointer -= 1
            else:
                raise _Failure

        elif state == _State.FILE:
            url.scheme = "file"
            url.host = ""
            if c in ("/", "\\"):
                state = _State.FILE_SLASH
            else:
                state = _State.PATH
                pointer -= 1

        elif state == _State.FILE_SLASH:
            if c in ("/", "\\"):
                state = _State.FILE_HOST
            else:
                state = _State.PATH
                pointer -= 1

        elif state == _State.FILE_HOST:
            if c in (_EOF, "/", "\\", "?", "#"):
                pointer -= 1
                if state_override is None and _is_windows_drive_letter(buffer):
                    state = _State.PATH
                elif buffer == "":
                    url.host = ""
                    state = _State.PATH_START
                else:
                    host = _parse_host(buffer, opaque=False)
                    url.host = "" if host == "localhost" else host
                    buffer = ""
                    state = _State.PATH_START
            else:
                buffer += c

        elif state == _State.PATH_START:
            if special:
                state = _State.PATH
                if c not in ("/", "\\"):
                    pointer -= 1
            elif state_override is None and c == "?":
                url.query = ""
                state = _State.QUERY
            elif state_override is None and c == "#":
                url.fragment = ""
                state = _State.FRAGMENT
            elif c != _EOF:
                state = _State.PATH
                if c != "/":
                    pointer -= 1
            elif state_override is not None and url.host is None:
                assert isinstance(url.path, list)
                url.path.append("")

        elif state == _State.PATH:
            assert isinstance(url.path, list)
            slash = c == "/" or (special and c == "\\")
            if c == _EOF or slash or (state_override is None and c in ("?", "#")):
                lowered = buffer.lower()
                if lowered in _DOUBLE_DOT:
                    url.shorten_path()
                    if not slash:
                        url.path.append("")
                elif lowered in _SINGLE_DOT:
                    if not slash:
                        url.path.append("")
                else:
                    if url.scheme == "file" and not url.path and _is_windows_drive_letter(buffer):
                        buffer = buffer[0] + ":"
                    url.path.append(buffer)
                buffer = ""
                if c == "?":
                    url.query = ""
                    state = _State.QUERY
                elif c == "#":
                    url.fragment = ""
                    state = _State.FRAGMENT
            elif runs:
                if state_override is None:
                    pattern = _PATH_RUN_SPECIAL if special else _PATH_RUN
                else:
                    pattern = _PATH_RUN_OVERRIDE_SPECIAL if special else _PATH_RUN_OVERRIDE
                run = pattern.match(text, pointer)
                assert run is not None
                buffer += _encode_run(run.group(), _in_path)
                pointer = run.end() - 1
            else:
                buffer += _encode_char(c, _in_path)

        elif state == _State.OPAQUE_PATH:
            assert isinstance(url.path, str)
            if c == "?":
                url.query = ""
                state = _State.QUERY
            elif c == "#":
                url.fragment = ""
                state = _State.FRAGMENT
            elif c == " ":
                nxt = text[pointer + 1] if pointer + 1 < n else _EOF
                url.path += "%20" if nxt in ("?", "#") else " "
            elif c != _EOF and runs:
                run = _OPAQUE_PATH_RUN.match(text, pointer)
                assert run is not None
                url.path += _encode_run(run.group(), _in_c0)
                pointer = run.end() - 1
            elif c != _EOF:
                url.path += _encode_char(c, _in_c0)

        elif state == _State.QUERY:
            if (state_override is None and c == "#") or c == _EOF:
                in_set = _in_special_query if special else _in_query
                url.query = (url.query or "") + _encode_run(buffer, in_set)
                buffer = ""
                if c == "#":
                    url.fragment = ""
                    state = _State.FRAGMENT
            elif runs:
                end = text.find("#", pointer) if state_override is None else -1
                end = n if end < 0 else end
                buffer += text[pointer:end]
                pointer = end - 1
            else:
                buffer += c

        elif state == _State.FRAGMENT and c != _EOF:
            if runs:
                url.fragment = (url.fragment or "") + _encode_run(text[pointer:], _in_fragment)
                pointer = n - 1
            else:
                url.fragment = (url.fragment or "") + _encode_char(c, _in_fragment)

        if pointer >= n:
            break
        pointer += 1
    return url


@functools.lru_cache(maxsize=4096)
def parse_url(text: str) -> Url | None:
    """``new URL(text)``: the parsed URL, or ``None`` where JavaScript throws.

    Results are cached per text (a :class:`Url` is immutable): one command checks, resolves and redacts
    the same server URL several times."""
    try:
        return _basic_parse(text).freeze()
    except _Failure:
        return None


def can_parse_url(text: str) -> bool:
    """``URL.canParse(text)``."""
    return parse_url(text) is not None


# --- setters --------------------------------------------------------------------------------------------


def _cannot_have_credentials(url: Url) -> bool:
    return url.hostname is None or url.hostname == "" or url.scheme == "file"


def _strip_trailing_spaces_from_opaque_path(record: _Record) -> None:
    if not isinstance(record.path, str) or record.fragment is not None or record.query is not None:
        return
    record.path = record.path.rstrip(" ")


def set_username(url: Url, value: str) -> Url:
    """``url.username = value``."""
    if _cannot_have_credentials(url):
        return url
    return replace(url, username=_encode(to_usv_string(value), _in_userinfo))


def set_password(url: Url, value: str) -> Url:
    """``url.password = value``."""
    if _cannot_have_credentials(url):
        return url
    return replace(url, password=_encode(to_usv_string(value), _in_userinfo))


def set_pathname(url: Url, value: str) -> Url:
    """``url.pathname = value`` (ignored for an opaque path)."""
    if url.has_opaque_path:
        return url
    record = _Record.of(url)
    record.path = []
    try:
        return _basic_parse(value, record, _State.PATH_START).freeze()
    except _Failure:  # pragma: no cover - the path states never fail
        return url


def set_search(url: Url, value: str) -> Url:
    """``url.search = value``."""
    return _set_query_or_fragment(url, value, "?", "query", _State.QUERY)


def set_hash(url: Url, value: str) -> Url:
    """``url.hash = value``."""
    return _set_query_or_fragment(url, value, "#", "fragment", _State.FRAGMENT)


def _set_query_or_fragment(url: Url, value: str, sigil: str, part: str, state: int) -> Url:
    """The ``search``/``hash`` setters: empty clears the part; else one leading ``sigil`` is dropped and the
    rest parsed from ``state``."""
    record = _Record.of(url)
    if value == "":
        setattr(record, part, None)
        _strip_trailing_spaces_from_opaque_path(record)
        return record.freeze()
    setattr(record, part, "")
    try:
        return _basic_parse(value.removeprefix(sigil), record, state).freeze()
    except _Failure:  # pragma: no cover - the query and fragment states never fail
        return url


def set_search_params(url: Url, pairs: Iterable[tuple[str, str]]) -> Url:
    """Write ``url.searchParams`` back after a mutation (the URLSearchParams "update" steps)."""
    record = _Record.of(url)
    serialized = serialize_search_params(pairs)
    record.query = serialized or None
    if record.query is None:
        _strip_trailing_spaces_from_opaque_path(record)
    return record.freeze()


def with_changes(
    url: Url,
    *,
    username: str | None = None,
    password: str | None = None,
    pathname: str | None = None,
    search: str | None = None,
    hash: str | None = None,
) -> Url:
    """Apply JavaScript URL setters (in this order) for the arguments that are not ``None``."""
    if pathname is not None:
        url = set_pathname(url, pathname)
    if username is not None:
        url = set_username(url, username)
    if password is not None:
        url = set_password(url, password)
    if search is not None:
        url = set_search(url, search)
    if hash is not None:
        url = set_hash(url, hash)
    return url
