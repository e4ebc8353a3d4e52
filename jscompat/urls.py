"""WHATWG URL parsing and serialisation, as Node's ``new URL(text)`` does it (spec cli-registry D18).

``urllib.parse`` neither validates nor normalises the way the reference does, so this module implements
the WHATWG URL Standard's basic URL parser (without a base URL), the URL serialiser, the setters the
redactor needs (``username``, ``password``, ``pathname``, ``search``, ``hash``), and the
``application/x-www-form-urlencoded`` parser/serialiser behind ``URLSearchParams``. It also provides
JavaScript's ``decodeURIComponent``/``encodeURIComponent``.

Covered exactly: special schemes (``http``, ``https``, ``ws``, ``wss``, ``ftp``, ``file``) and
non-special ones (``mailto:x``, ``foo://h/p``, ``foo:bar``); validity; lower-casing of scheme and host;
percent-decoding of hosts; IPv4 numbers in every WHATWG spelling (``0x7f.1`` → ``127.0.0.1``); IPv6
parsing and compression; default ports dropped; dot-segment removal; ``\\`` as ``/`` in special URLs;
the path, query, special-query, fragment and userinfo percent-encode sets; opaque paths.

Known deviation: hosts with non-ASCII characters go through an approximation of UTS #46
(non-transitional NFKC_Casefold with ``ß``/``ς`` kept, default-ignorables dropped, disallowed
categories rejected, the RFC 5893 Bidi rule, Punycode per label) built on Python's ``unicodedata``
instead of Node's IDNA mapping table; ASCII hosts are exact. ``search_params`` is the WHATWG
urlencoded parser; Node's ``new URLSearchParams(string)`` differs for non-ASCII text next to an invalid
percent-escape (the redactor reproduces that quirk itself). Strings are handled as Unicode code points;
lone surrogates become U+FFFD as in a JavaScript ``USVString`` conversion.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

__all__ = [
    "SPECIAL_SCHEME_PORTS",
    "Url",
    "can_parse_url",
    "decode_uri_component",
    "encode_uri_component",
    "is_special_scheme",
    "parse_url",
    "search_params",
    "search_params_set",
    "serialize_search_params",
    "set_hash",
    "set_password",
    "set_pathname",
    "set_search",
    "set_search_params",
    "set_username",
    "to_usv_string",
    "with_changes",
]

SPECIAL_SCHEME_PORTS: dict[str, int | None] = {
    "ftp": 21,
    "file": None,
    "http": 80,
    "https": 443,
    "ws": 80,
    "wss": 443,
}

_ASCII_ALPHA = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_ASCII_DIGIT = frozenset("0123456789")
_ASCII_HEX = frozenset("0123456789abcdefABCDEF")
_ASCII_ALNUM = _ASCII_ALPHA | _ASCII_DIGIT
_SCHEME_CHARS = _ASCII_ALNUM | frozenset("+-.")

_FORBIDDEN_HOST = frozenset("\x00\t\n\r #/:<>?@[\\]^|")
_FORBIDDEN_DOMAIN = _FORBIDDEN_HOST | frozenset(chr(c) for c in range(0x20)) | frozenset("%\x7f")


# --- percent-encode sets -------------------------------------------------------------------------------


def _in_c0(c: str) -> bool:
    o = ord(c)
    return o < 0x20 or o > 0x7E


def _set(extra: str, base: Callable[[str], bool]) -> Callable[[str], bool]:
    chars = frozenset(extra)
    return lambda c: c in chars or base(c)


_in_fragment = _set(' "<>`', _in_c0)
_in_query = _set(' "#<>', _in_c0)
_in_special_query = _set("'", _in_query)
_in_path = _set("?^`{}", _in_query)
_in_userinfo = _set("/:;=@[\\]^|", _in_path)


def _pct_byte(b: int) -> str:
    return f"%{b:02X}"


def _encode_char(c: str, in_set: Callable[[str], bool]) -> str:
    if not in_set(c):
        return c
    return "".join(_pct_byte(b) for b in c.encode("utf-8"))


def _encode(text: str, in_set: Callable[[str], bool]) -> str:
    return "".join(_encode_char(c, in_set) for c in text)


def to_usv_string(text: str) -> str:
    """JavaScript ``USVString`` conversion: lone surrogates become U+FFFD."""
    if text.isascii():
        return text
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)


def _percent_decode_bytes(data: bytes) -> bytes:
    out = bytearray()
    i = 0
    n = len(data)
    hexdigits = b"0123456789abcdefABCDEF"
    while i < n:
        b = data[i]
        if b == 0x25 and i + 2 < n and data[i + 1] in hexdigits and data[i + 2] in hexdigits:
            out.append(int(data[i + 1 : i + 3], 16))
            i += 3
            continue
        out.append(b)
        i += 1
    return bytes(out)


def _percent_decode(text: str) -> bytes:
    return _percent_decode_bytes(text.encode("utf-8"))


# --- the URL record -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Url:
    """A WHATWG URL record.

    ``hostname`` is the serialised host (IPv6 in brackets), ``None`` for a URL without a host (JavaScript
    reports ``""`` there). ``port`` is ``None`` when absent or equal to the scheme's default port.
    ``path`` is a tuple of segments, or a string for an opaque path (``mailto:x``). ``query`` and
    ``fragment`` exclude their ``?``/``#`` and are ``None`` when absent.
    """

    scheme: str
    username: str = ""
    password: str = ""
    hostname: str | None = None
    port: int | None = None
    path: tuple[str, ...] | str = ()
    query: str | None = None
    fragment: str | None = None

    @property
    def is_special(self) -> bool:
        return self.scheme in SPECIAL_SCHEME_PORTS

    @property
    def has_opaque_path(self) -> bool:
        return isinstance(self.path, str)

    @property
    def protocol(self) -> str:
        return f"{self.scheme}:"

    @property
    def host(self) -> str:
        """JavaScript ``url.host``: hostname plus ``:port`` when a port is set."""
        if self.hostname is None:
            return ""
        if self.port is None:
            return self.hostname
        return f"{self.hostname}:{self.port}"

    @property
    def port_text(self) -> str:
        """JavaScript ``url.port``: the port as a string, ``""`` when absent."""
        return "" if self.port is None else str(self.port)

    @property
    def pathname(self) -> str:
        if isinstance(self.path, str):
            return self.path
        return "".join(f"/{segment}" for segment in self.path)

    @property
    def search(self) -> str:
        return f"?{self.query}" if self.query else ""

    @property
    def hash(self) -> str:
        return f"#{self.fragment}" if self.fragment else ""

    @property
    def href(self) -> str:
        out = [self.scheme, ":"]
        if self.hostname is not None:
            out.append("//")
            if self.username or self.password:
                out.append(self.username)
                if self.password:
                    out.append(f":{self.password}")
                out.append("@")
            out.append(self.hostname)
            if self.port is not None:
                out.append(f":{self.port}")
        elif not isinstance(self.path, str) and len(self.path) > 1 and self.path[0] == "":
            out.append("/.")
        out.append(self.pathname)
        if self.query is not None:
            out.append(f"?{self.query}")
        if self.fragment is not None:
            out.append(f"#{self.fragment}")
        return "".join(out)

    def __str__(self) -> str:
        return self.href


def is_special_scheme(scheme: str) -> bool:
    return scheme in SPECIAL_SCHEME_PORTS


# --- hosts ----------------------------------------------------------------------------------------------


class _Failure(Exception):
    pass


def _parse_ipv4_number(text: str) -> int | None:
    if text == "":
        return None
    radix = 10
    if len(text) >= 2 and text[0] == "0" and text[1] in "xX":
        text = text[2:]
        radix = 16
    elif len(text) >= 2 and text[0] == "0":
        text = text[1:]
        radix = 8
    if text == "":
        return 0
    allowed = {10: _ASCII_DIGIT, 16: _ASCII_HEX, 8: frozenset("01234567")}[radix]
    if any(c not in allowed for c in text):
        return None
    return int(text, radix)


def _ends_in_number(text: str) -> bool:
    parts = text.split(".")
    if parts[-1] == "":
        if len(parts) == 1:
            return False
        parts.pop()
    last = parts[-1]
    if last and all(c in _ASCII_DIGIT for c in last):
        return True
    return _parse_ipv4_number(last) is not None


def _parse_ipv4(text: str) -> str:
    parts = text.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if len(parts) > 4:
        raise _Failure
    numbers: list[int] = []
    for part in parts:
        number = _parse_ipv4_number(part)
        if number is None:
            raise _Failure
        numbers.append(number)
    if any(n > 255 for n in numbers[:-1]):
        raise _Failure
    if numbers[-1] >= 256 ** (5 - len(numbers)):
        raise _Failure
    value = numbers[-1]
    for i, n in enumerate(numbers[:-1]):
        value += n * 256 ** (3 - i)
    return ".".join(str((value >> shift) & 0xFF) for shift in (24, 16, 8, 0))


def _parse_ipv6(text: str) -> list[int]:
    address = [0] * 8
    piece = 0
    compress: int | None = None
    p = 0
    n = len(text)

    def at(i: int) -> str:
        return text[i] if i < n else ""

    if at(p) == ":":
        if at(p + 1) != ":":
            raise _Failure
        p += 2
        piece += 1
        compress = piece
    while at(p) != "":
        if piece == 8:
            raise _Failure
        if at(p) == ":":
            if compress is not None:
                raise _Failure
            p += 1
            piece += 1
            compress = piece
            continue
        value = 0
        length = 0
        while length < 4 and at(p) != "" and at(p) in _ASCII_HEX:
            value = value * 0x10 + int(at(p), 16)
            p += 1
            length += 1
        if at(p) == ".":
            if length == 0:
                raise _Failure
            p -= length
            if piece > 6:
                raise _Failure
            numbers_seen = 0
            while at(p) != "":
                ipv4_piece: int | None = None
                if numbers_seen > 0:
                    if at(p) == "." and numbers_seen < 4:
                        p += 1
                    else:
                        raise _Failure
                if at(p) == "" or at(p) not in _ASCII_DIGIT:
                    raise _Failure
                while at(p) != "" and at(p) in _ASCII_DIGIT:
                    number = int(at(p))
                    if ipv4_piece is None:
                        ipv4_piece = number
                    elif ipv4_piece == 0:
                        raise _Failure
                    else:
                        ipv4_piece = ipv4_piece * 10 + number
                    if ipv4_piece > 255:
                        raise _Failure
                    p += 1
                assert ipv4_piece is not None
                address[piece] = address[piece] * 0x100 + ipv4_piece
                numbers_seen += 1
                if numbers_seen in (2, 4):
                    piece += 1
            if numbers_seen != 4:
                raise _Failure
            break
        if at(p) == ":":
            p += 1
            if at(p) == "":
                raise _Failure
        elif at(p) != "":
            raise _Failure
        address[piece] = value
        piece += 1
    if compress is not None:
        swaps = piece - compress
        piece = 7
        while piece != 0 and swaps > 0:
            address[piece], address[compress + swaps - 1] = address[compress + swaps - 1], address[piece]
            piece -= 1
            swaps -= 1
    elif piece != 8:
        raise _Failure
    return address


def _serialize_ipv6(address: list[int]) -> str:
    best_start, best_len = -1, 1
    i = 0
    while i < 8:
        if address[i] == 0:
            j = i
            while j < 8 and address[j] == 0:
                j += 1
            if j - i > best_len:
                best_start, best_len = i, j - i
            i = j
        else:
            i += 1
    out: list[str] = []
    ignore0 = False
    for index in range(8):
        if ignore0 and address[index] == 0:
            continue
        ignore0 = False
        if index == best_start:
            out.append("::" if index == 0 else ":")
            ignore0 = True
            continue
        out.append(f"{address[index]:x}")
        if index != 7:
            out.append(":")
    return "".join(out)


_IDEOGRAPHIC_STOPS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})
# UTS #46 maps these default-ignorable code points to nothing.
_IDNA_IGNORED = frozenset(
    "\u00ad\u034f\u180b\u180c\u180d\u180e\u180f\u200b\u2060\u2064\ufeff\u115f\u1160\u3164\uffa0"
    + "".join(chr(c) for c in range(0xFE00, 0xFE10))
    + "".join(chr(c) for c in range(0xE0100, 0xE01F0))
)
# U+FFFD (undecodable percent-escapes) is disallowed; ZWNJ/ZWJ fail CheckJoiners outside a virama;
# remaining controls, format characters, separators and unassigned code points are disallowed.
_IDNA_DISALLOWED = frozenset("\ufffd\u200c\u200d")
# Non-transitional processing keeps these instead of case-folding them.
_IDNA_DEVIATIONS = frozenset("\u00df\u03c2")
_IDNA_DISALLOWED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})


_BIDI_RTL_ALLOWED = frozenset({"R", "AL", "AN", "EN", "ES", "CS", "ET", "ON", "BN", "NSM"})
_BIDI_LTR_ALLOWED = frozenset({"L", "EN", "ES", "CS", "ET", "ON", "BN", "NSM"})


def _bidi_label_ok(label: str) -> bool:
    """The Bidi rule of RFC 5893 for one label of a domain containing right-to-left characters."""
    if not label:
        return True
    classes = [unicodedata.bidirectional(c) for c in label]
    trimmed = list(classes)
    while trimmed and trimmed[-1] == "NSM":
        trimmed.pop()
    if classes[0] in ("R", "AL"):
        return (
            all(c in _BIDI_RTL_ALLOWED for c in classes)
            and bool(trimmed)
            and trimmed[-1] in ("R", "AL", "EN", "AN")
            and not ("EN" in classes and "AN" in classes)
        )
    if classes[0] == "L":
        return all(c in _BIDI_LTR_ALLOWED for c in classes) and bool(trimmed) and trimmed[-1] in ("L", "EN")
    return False


def _domain_to_ascii(domain: str) -> str:
    if domain.isascii():
        result = domain.lower()
    else:
        # Approximation of UTS #46 (non-transitional): NFKC_Casefold, Punycode non-ASCII labels.
        mapped = "".join(c for c in domain.translate(_IDEOGRAPHIC_STOPS) if c not in _IDNA_IGNORED)
        if any(not c.isascii() and "." in unicodedata.normalize("NFKC", c) for c in mapped):
            raise _Failure  # dot leaders and the like are disallowed rather than mapped to "."
        mapped = unicodedata.normalize("NFKC", mapped)
        mapped = "".join("\u00df" if c == "\u1e9e" else c if c in _IDNA_DEVIATIONS else c.casefold() for c in mapped)
        mapped = unicodedata.normalize("NFKC", mapped)
        mapped = "".join(c for c in mapped.translate(_IDEOGRAPHIC_STOPS) if c not in _IDNA_IGNORED)
        if any(
            c in _IDNA_DISALLOWED or unicodedata.category(c) in _IDNA_DISALLOWED_CATEGORIES
            for c in mapped
            if not c.isascii()
        ):
            raise _Failure
        label_list = mapped.split(".")
        if any(label and unicodedata.category(label[0]).startswith("M") for label in label_list):
            raise _Failure
        if any(unicodedata.bidirectional(c) in ("R", "AL", "AN") for c in mapped) and not all(
            _bidi_label_ok(label)
            for label in label_list
            if any(unicodedata.bidirectional(c) in ("R", "AL", "AN") for c in label)
        ):
            raise _Failure
        labels: list[str] = []
        for label in label_list:
            if label.isascii():
                labels.append(label)
                continue
            try:
                labels.append("xn--" + label.encode("punycode").decode("ascii"))
            except UnicodeError as exc:
                raise _Failure from exc
        result = ".".join(labels)
    if result == "":
        raise _Failure
    return result


def _parse_host(text: str, *, opaque: bool) -> str:
    if text.startswith("["):
        if not text.endswith("]"):
            raise _Failure
        return f"[{_serialize_ipv6(_parse_ipv6(text[1:-1]))}]"
    if opaque:
        if any(c in _FORBIDDEN_HOST for c in text):
            raise _Failure
        return _encode(text, _in_c0)
    domain = _percent_decode(text).decode("utf-8", errors="replace")
    ascii_domain = _domain_to_ascii(domain)
    if any(c in _FORBIDDEN_DOMAIN for c in ascii_domain):
        raise _Failure
    if _ends_in_number(ascii_domain):
        return _parse_ipv4(ascii_domain)
    return ascii_domain


# --- the basic URL parser -------------------------------------------------------------------------------


def _is_windows_drive_letter(text: str) -> bool:
    return len(text) == 2 and text[0] in _ASCII_ALPHA and text[1] in ":|"


def _is_normalized_windows_drive_letter(text: str) -> bool:
    return len(text) == 2 and text[0] in _ASCII_ALPHA and text[1] == ":"


_SINGLE_DOT = frozenset({".", "%2e"})
_DOUBLE_DOT = frozenset({"..", ".%2e", "%2e.", "%2e%2e"})

_EOF = ""


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


class _Record:
    __slots__ = ("fragment", "host", "password", "path", "port", "query", "scheme", "username")

    def __init__(self) -> None:
        self.scheme = ""
        self.username = ""
        self.password = ""
        self.host: str | None = None
        self.port: int | None = None
        self.path: list[str] | str = []
        self.query: str | None = None
        self.fragment: str | None = None

    @classmethod
    def of(cls, url: Url) -> _Record:
        record = cls()
        record.scheme = url.scheme
        record.username = url.username
        record.password = url.password
        record.host = url.hostname
        record.port = url.port
        record.path = url.path if isinstance(url.path, str) else list(url.path)
        record.query = url.query
        record.fragment = url.fragment
        return record

    def freeze(self) -> Url:
        path = self.path if isinstance(self.path, str) else tuple(self.path)
        return Url(
            scheme=self.scheme,
            username=self.username,
            password=self.password,
            hostname=self.host,
            port=self.port,
            path=path,
            query=self.query,
            fragment=self.fragment,
        )

    def shorten_path(self) -> None:
        assert isinstance(self.path, list)
        if self.scheme == "file" and len(self.path) == 1 and _is_normalized_windows_drive_letter(self.path[0]):
            return
        if self.path:
            self.path.pop()


def _basic_parse(text: str, record: _Record | None = None, state_override: int | None = None) -> _Record:
    text = to_usv_string(text)
    if record is None:
        record = _Record()
        text = text.strip("".join(chr(c) for c in range(0x21)))
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
            elif c != _EOF:
                url.path += _encode_char(c, _in_c0)

        elif state == _State.QUERY:
            if (state_override is None and c == "#") or c == _EOF:
                in_set = _in_special_query if special else _in_query
                url.query = (url.query or "") + _encode(buffer, in_set)
                buffer = ""
                if c == "#":
                    url.fragment = ""
                    state = _State.FRAGMENT
            else:
                buffer += c

        elif state == _State.FRAGMENT and c != _EOF:
            url.fragment = (url.fragment or "") + _encode_char(c, _in_fragment)

        if pointer >= n:
            break
        pointer += 1
    return url


def parse_url(text: str) -> Url | None:
    """``new URL(text)``: the parsed URL, or ``None`` where JavaScript throws."""
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
    record = _Record.of(url)
    if value == "":
        record.query = None
        _strip_trailing_spaces_from_opaque_path(record)
        return record.freeze()
    record.query = ""
    try:
        return _basic_parse(value[1:] if value.startswith("?") else value, record, _State.QUERY).freeze()
    except _Failure:  # pragma: no cover - the query state never fails
        return url


def set_hash(url: Url, value: str) -> Url:
    """``url.hash = value``."""
    record = _Record.of(url)
    if value == "":
        record.fragment = None
        _strip_trailing_spaces_from_opaque_path(record)
        return record.freeze()
    record.fragment = ""
    try:
        return _basic_parse(value[1:] if value.startswith("#") else value, record, _State.FRAGMENT).freeze()
    except _Failure:  # pragma: no cover - the fragment state never fails
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


# --- application/x-www-form-urlencoded ------------------------------------------------------------------


def search_params(query: str) -> list[tuple[str, str]]:
    """Parse ``query`` as ``application/x-www-form-urlencoded`` (what ``url.searchParams`` holds).

    ``new URLSearchParams(text)`` additionally drops one leading ``?`` first; callers do that themselves.
    """
    pairs: list[tuple[str, str]] = []
    for sequence in to_usv_string(query).encode("utf-8").split(b"&"):
        if not sequence:
            continue
        name, sep, value = sequence.partition(b"=")
        if not sep:
            value = b""
        pairs.append(
            (
                _percent_decode_bytes(name.replace(b"+", b" ")).decode("utf-8", errors="replace"),
                _percent_decode_bytes(value.replace(b"+", b" ")).decode("utf-8", errors="replace"),
            )
        )
    return pairs


_FORM_SAFE = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789*-._")


def _form_encode(text: str) -> str:
    out: list[str] = []
    for b in to_usv_string(text).encode("utf-8"):
        if b == 0x20:
            out.append("+")
        elif b in _FORM_SAFE:
            out.append(chr(b))
        else:
            out.append(_pct_byte(b))
    return "".join(out)


def serialize_search_params(pairs: Iterable[tuple[str, str]]) -> str:
    """``URLSearchParams.prototype.toString``: spaces become ``+``, the urlencoded byte set is escaped."""
    return "&".join(f"{_form_encode(name)}={_form_encode(value)}" for name, value in pairs)


def search_params_set(pairs: Iterable[tuple[str, str]], name: str, value: str) -> list[tuple[str, str]]:
    """``URLSearchParams.prototype.set``: replace the first ``name`` pair, drop later ones, else append."""
    name, value = to_usv_string(name), to_usv_string(value)
    out: list[tuple[str, str]] = []
    found = False
    for pair in pairs:
        if pair[0] == name:
            if not found:
                out.append((name, value))
                found = True
            continue
        out.append(pair)
    if not found:
        out.append((name, value))
    return out


# --- JavaScript URI component functions -----------------------------------------------------------------

_URI_UNESCAPED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()")


def encode_uri_component(text: str) -> str:
    """JavaScript ``encodeURIComponent``; ``ValueError`` (JavaScript: ``URIError``) on a lone surrogate."""
    out: list[str] = []
    for c in text:
        if c in _URI_UNESCAPED:
            out.append(c)
            continue
        if 0xD800 <= ord(c) <= 0xDFFF:
            raise ValueError("URI malformed")
        out.extend(_pct_byte(b) for b in c.encode("utf-8"))
    return "".join(out)


def _hex_byte(text: str, index: int) -> int:
    pair = text[index + 1 : index + 3]
    if len(pair) != 2 or pair[0] not in _ASCII_HEX or pair[1] not in _ASCII_HEX:
        raise ValueError("URI malformed")
    return int(pair, 16)


def decode_uri_component(text: str) -> str:
    """JavaScript ``decodeURIComponent``; ``ValueError`` (JavaScript: ``URIError``) on malformed input."""
    if "%" not in text:
        return text
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        first = _hex_byte(text, i)
        i += 3
        if first < 0x80:
            out.append(chr(first))
            continue
        if first & 0xE0 == 0xC0:
            count = 2
        elif first & 0xF0 == 0xE0:
            count = 3
        elif first & 0xF8 == 0xF0:
            count = 4
        else:
            raise ValueError("URI malformed")
        data = bytearray([first])
        for _ in range(count - 1):
            if i >= n or text[i] != "%":
                raise ValueError("URI malformed")
            b = _hex_byte(text, i)
            if b & 0xC0 != 0x80:
                raise ValueError("URI malformed")
            data.append(b)
            i += 3
        try:
            out.append(bytes(data).decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise ValueError("URI malformed") from exc
    return "".join(out)
