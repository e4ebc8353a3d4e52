"""Secrets in exported files and variable references in every client's syntax.

OpenClaw's own reference syntax is ``${VAR}`` (``domain.config_doc``); every mapping works on that form and
converts at the edge: :func:`to_client_syntax` for export, :func:`from_client_syntax` for import.

Without ``--include-secrets`` every ``env`` value, every header value, URL userinfo and credential query
and fragment parameters (the names ``domain.redaction`` treats as credentials, and values holding a secret such
as a nested URL with a token) are replaced by references to variables
named by :func:`env_var`, :func:`header_var`, :func:`token_var` and :func:`url_var`. A value that already
is a whole ``${VAR}`` (or ``Bearer ${VAR}``) reference stays a reference to ``VAR``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final, Literal

from openclaw_mcp.domain.interchange.model import Exported, Variable
from openclaw_mcp.domain.interchange.secret_guard import redactor_hides
from openclaw_mcp.domain.redaction import is_sensitive_url_query_param_name
from openclaw_mcp.jscompat.jsjson import js_to_string

__all__ = [
    "Syntax",
    "env_var",
    "from_client_syntax",
    "header_var",
    "template_env",
    "template_headers",
    "template_url",
    "to_client_syntax",
    "token_var",
    "url_var",
    "whole_reference",
]

Syntax = Literal["dollar", "env-colon", "gemini", "literal"]
"""``dollar``: ``${VAR}`` (Claude Code; also ``${VAR:-default}`` on import); ``env-colon``: ``${env:VAR}``
(Cursor, VS Code; VS Code also ``${input:id}``); ``gemini``: ``${VAR}`` written, ``$VAR`` also read;
``literal``: no expansion (Codex)."""

_NAME: Final = r"[A-Za-z_][A-Za-z0-9_]*"
_WHOLE: Final = re.compile(rf"^\$\{{({_NAME})\}}$")
_BEARER: Final = re.compile(rf"^Bearer \$\{{({_NAME})\}}$")
_REF: Final = re.compile(rf"\$\{{({_NAME})\}}")
_ENV_COLON: Final = re.compile(rf"\$\{{env:({_NAME})\}}")
_INPUT: Final = re.compile(r"\$\{input:([^}]*)\}")
_DEFAULT: Final = re.compile(rf"\$\{{({_NAME}):-([^}}]*)\}}")
_BARE: Final = re.compile(rf"(?<![$\w])\$({_NAME})")
_SEGMENT: Final = re.compile(r"[^A-Z0-9]+")
_ENV_KEY: Final = re.compile(_NAME)


def _segment(text: str) -> str:
    return _SEGMENT.sub("_", text.upper())


def env_var(server: str, key: str) -> str:
    """The variable for env key ``key``: ``key`` itself when it is a variable name, else
    ``OPENCLAW_MCP_<S>_<KEY>``."""
    return key if _ENV_KEY.fullmatch(key) else f"OPENCLAW_MCP_{_segment(server)}_{_segment(key)}"


def header_var(server: str, header: str) -> str:
    """``OPENCLAW_MCP_<S>_<H>``: uppercased, runs outside ``[A-Z0-9]`` → ``_``."""
    return f"OPENCLAW_MCP_{_segment(server)}_{_segment(header)}"


def token_var(server: str) -> str:
    """The bearer token of ``Authorization: Bearer …``: ``OPENCLAW_MCP_<S>_TOKEN``."""
    return f"OPENCLAW_MCP_{_segment(server)}_TOKEN"


def url_var(server: str, part: str) -> str:
    """A URL credential (``USERINFO`` or a query parameter name): ``OPENCLAW_MCP_<S>_URL_<PART>``."""
    return f"OPENCLAW_MCP_{_segment(server)}_URL_{_segment(part)}"


def whole_reference(value: str) -> str | None:
    """``VAR`` when ``value`` is exactly ``${VAR}``."""
    match = _WHOLE.match(value)
    return match.group(1) if match else None


def _text(value: object) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return js_to_string(value)
    return None


def template_env(server: str, env: object, include_secrets: bool, out: Exported) -> dict[str, str] | None:
    """The env map to export (string values; numbers and booleans as text), ``None`` when there is none."""
    if not isinstance(env, Mapping):
        return None
    result: dict[str, str] = {}
    for key, raw in env.items():
        value = _text(raw)
        if value is None:
            continue
        ref = whole_reference(value)
        if ref is not None:
            out.add_variable(Variable(ref, server, "env"))
            result[str(key)] = value
        elif include_secrets:
            result[str(key)] = value
        else:
            name = env_var(server, str(key))
            out.add_variable(Variable(name, server, "env"))
            result[str(key)] = f"${{{name}}}"
    return result or None


def template_headers(server: str, headers: object, include_secrets: bool, out: Exported) -> dict[str, str] | None:
    """The headers to export; see the module docstring."""
    if not isinstance(headers, Mapping):
        return None
    result: dict[str, str] = {}
    for key, raw in headers.items():
        header = str(key)
        value = _text(raw)
        if value is None:
            continue
        field = f"header {header}"
        ref = whole_reference(value)
        bearer = _BEARER.match(value)
        if ref is not None or bearer is not None:
            out.add_variable(Variable(ref if ref is not None else bearer.group(1) if bearer else "", server, field))
            result[header] = value
        elif include_secrets:
            result[header] = value
        elif header.lower() == "authorization" and value[:7].lower() == "bearer ":
            name = token_var(server)
            out.add_variable(Variable(name, server, field))
            result[header] = f"Bearer ${{{name}}}"
        else:
            name = header_var(server, header)
            out.add_variable(Variable(name, server, field))
            result[header] = f"${{{name}}}"
    return result or None


def _split_url(url: str) -> tuple[str, str, str, str, str] | None:
    """``(scheme://, userinfo, rest-before-query, query, fragment-with-#)`` by text, or ``None`` when the URL
    has no ``scheme://`` authority (nothing to template)."""
    match = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*)(.*)$", url, re.DOTALL)
    if match is None:
        return None
    prefix, authority, tail = match.groups()
    userinfo, at, host = authority.rpartition("@")
    if not at:
        userinfo, host = "", authority
    fragment = ""
    if "#" in tail:
        tail, hash_, after = tail.partition("#")
        fragment = hash_ + after
    path, _, query = tail.partition("?")
    return prefix, userinfo, host + path, query, fragment


def _template_pairs(
    server: str, text: str, part: str, can_reference: bool, used: set[str], out: Exported, client: str
) -> tuple[list[str], bool]:
    """The ``&``-separated pairs of a query or fragment with credential values (a credential name, or a value
    holding a secret such as a nested URL with a token) replaced by references or dropped."""
    pieces: list[str] = []
    changed = False
    for piece in text.split("&") if text else []:
        name, eq, value = piece.partition("=")
        ref = whole_reference(value) if eq else None
        if not eq or not value or not (is_sensitive_url_query_param_name(name) or redactor_hides(value)):
            pieces.append(piece)
            continue
        if can_reference:
            variable = ref or url_var(server, name)
            if ref is None and variable in used:
                variable = url_var(server, f"{part}_{name}")
            used.add(variable)
            out.add_variable(Variable(variable, server, "url"))
            if ref is None:
                changed = True
                pieces.append(f"{name}=${{{variable}}}")
            else:
                pieces.append(piece)
        else:
            changed = True
            out.warnings.append(
                f'server "{server}": URL {part} parameter "{name}" dropped ({client} cannot reference a variable '
                "in url; --include-secrets keeps it)"
            )
    return pieces, changed


def template_url(server: str, url: str, include_secrets: bool, can_reference: bool, out: Exported, client: str) -> str:
    """The URL to export: credentials (userinfo, credential query and fragment parameters, values holding a
    secret) replaced by references (``can_reference``) or dropped with a warning (the client expands no
    variables in URLs). With ``include_secrets`` the URL is kept as it is."""
    if include_secrets:
        return url
    parts = _split_url(url)
    if parts is None:
        return url
    prefix, userinfo, middle, query, fragment = parts
    changed = False
    if userinfo and whole_reference(userinfo) is None:
        changed = True
        if can_reference:
            name = url_var(server, "userinfo")
            out.add_variable(Variable(name, server, "url"))
            userinfo = f"${{{name}}}"
        else:
            userinfo = ""
            out.warnings.append(
                f'server "{server}": URL userinfo dropped ({client} cannot reference a variable in url; '
                "--include-secrets keeps it)"
            )
    elif userinfo:
        ref = whole_reference(userinfo)
        assert ref is not None
        if can_reference:
            out.add_variable(Variable(ref, server, "url"))
        else:
            userinfo = ""
            changed = True
            out.warnings.append(
                f'server "{server}": URL userinfo dropped ({client} cannot reference a variable in url; '
                "--include-secrets keeps it)"
            )
    used: set[str] = set()
    pieces, query_changed = _template_pairs(server, query, "query", can_reference, used, out, client)
    fragment_pieces, fragment_changed = _template_pairs(
        server, fragment[1:], "fragment", can_reference, used, out, client
    )
    if not (changed or query_changed or fragment_changed):
        return url
    at = "@" if userinfo else ""
    rebuilt_query = "?" + "&".join(pieces) if pieces else ""
    rebuilt_fragment = "#" + "&".join(fragment_pieces) if fragment_pieces else ""
    return f"{prefix}{userinfo}{at}{middle}{rebuilt_query}{rebuilt_fragment}"


def to_client_syntax(text: str, syntax: Syntax) -> str:
    """``${VAR}`` references rewritten for the client (``${env:VAR}`` for Cursor and VS Code)."""
    if syntax == "env-colon":
        return _REF.sub(lambda m: f"${{env:{m.group(1)}}}", text)
    return text


def from_client_syntax(text: str, syntax: Syntax, where: str, warnings: list[str]) -> str:
    """A client's references rewritten to ``${VAR}``; losses are reported in ``warnings``."""
    if syntax == "env-colon":
        text = _ENV_COLON.sub(lambda m: f"${{{m.group(1)}}}", text)

        def input_ref(match: re.Match[str]) -> str:
            name = _segment(match.group(1)).strip("_") or "INPUT"
            warnings.append(f"{where}: ${{input:{match.group(1)}}} became ${{{name}}}: set {name} for OpenClaw")
            return f"${{{name}}}"

        return _INPUT.sub(input_ref, text)
    if syntax == "dollar":

        def default_ref(match: re.Match[str]) -> str:
            warnings.append(f"{where}: default of ${{{match.group(1)}:-…}} dropped (OpenClaw has no defaults)")
            return f"${{{match.group(1)}}}"

        return _DEFAULT.sub(default_ref, text)
    if syntax == "gemini":
        return _BARE.sub(lambda m: f"${{{m.group(1)}}}", text)
    return text
