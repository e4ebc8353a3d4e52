"""The WHATWG URL record, its serialisation, and the mutable record the parser fills (private to
:mod:`jscompat.urls`)."""

from __future__ import annotations

from dataclasses import dataclass

from openclaw_mcp.jscompat._url_percent import _ASCII_ALPHA

SPECIAL_SCHEME_PORTS: dict[str, int | None] = {
    "ftp": 21,
    "file": None,
    "http": 80,
    "https": 443,
    "ws": 80,
    "wss": 443,
}


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


# --- the record while parsing ----------------------------------------------------------------------------


def _is_windows_drive_letter(text: str) -> bool:
    return len(text) == 2 and text[0] in _ASCII_ALPHA and text[1] in ":|"


def _is_normalized_windows_drive_letter(text: str) -> bool:
    return len(text) == 2 and text[0] in _ASCII_ALPHA and text[1] == ":"


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
