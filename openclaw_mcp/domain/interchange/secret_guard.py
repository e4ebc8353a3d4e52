"""The last line of defence of an export without ``--include-secrets``: no string the project's own redactor
would hide reaches the written file.

A string *holds a secret* when one of the redactors (:func:`~openclaw_mcp.domain.redaction.redact_argv` for
arguments, :func:`~openclaw_mcp.domain.redaction.redact_sensitive_text` and
:func:`~openclaw_mcp.domain.redaction.redact_sensitive_url` for every string) would remove part of it. ``${VAR}``
references are not secrets: they are read as ``***`` (the mask itself, which no redactor removes). What a
redactor removes is judged by words (runs of letters and digits, case-folded): a URL the redactor re-serialises
is compared with its own WHATWG serialisation, so normalisation alone (``HOST`` → ``host``) is not a secret.

:func:`guard_entry` walks a mapped client entry: arguments holding a secret become references
(``--api-key=${OPENCLAW_MCP_<S>_API_KEY}``, the value after ``--token``, or the whole argument
``${OPENCLAW_MCP_<S>_ARG_<i>}``), as do ``command``, ``cwd`` and ``url`` as a whole, when the client expands
variables there; otherwise the server is refused with one warning line naming it and ``--include-secrets``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final

from openclaw_mcp.domain.interchange.model import Exported, Variable
from openclaw_mcp.domain.redaction import (
    MASK,
    holds_secret,
    redact_argv,
    redact_sensitive_text,
    redact_sensitive_url,
)
from openclaw_mcp.jscompat.urls import parse_url

__all__ = ["guard_entry", "redactor_hides", "secret_arguments"]

_REF: Final = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")
_WORD: Final = re.compile(r"[^\W_]+")
_SEGMENT: Final = re.compile(r"[^A-Z0-9]+")
_WHOLE_FIELDS: Final = ("command", "cwd", "url")


def _probe(text: str) -> str:
    return _REF.sub(MASK, text)


def _words(text: str) -> Counter[str]:
    return Counter(_WORD.findall(text.casefold()))


def _removes(before: str, after: str) -> bool:
    """Whether ``after`` (a redaction of ``before``) lost a word of it."""
    return before != after and bool(_words(before) - _words(after))


def _url_removes(probe: str) -> bool:
    redacted = redact_sensitive_url(probe)
    if redacted == probe:
        return False
    parsed = parse_url(probe)
    baseline = parsed.href if parsed is not None else probe
    return _removes(baseline, redacted) and _removes(probe, redacted)


def redactor_hides(text: str) -> bool:
    """Whether a redactor of the project would hide part of ``text`` (``${VAR}`` references excepted): the
    redaction package's :func:`~openclaw_mcp.domain.redaction.holds_secret` (the redactors change it), narrowed
    to changes that remove a word."""
    probe = _probe(text)
    if not holds_secret(probe):
        return False
    return _removes(probe, redact_sensitive_text(probe)) or _url_removes(probe)


def secret_arguments(args: Sequence[str]) -> list[int]:
    """The indexes of the arguments holding a secret (a value after a secret flag included)."""
    probes = [_probe(arg) for arg in args]
    redacted = redact_argv(probes)
    return [
        index
        for index, (probe, shown) in enumerate(zip(probes, redacted, strict=True))
        if _removes(probe, shown) or redactor_hides(args[index])
    ]


def _segment(text: str) -> str:
    return _SEGMENT.sub("_", text.upper()).strip("_")


def _refuse(name: str, field: str, client: str, out: Exported) -> None:
    out.warnings.append(
        f'server "{name}": {field} holds a secret that {client} cannot reference; not exported '
        "(export with --include-secrets to write it as configured)"
    )


def _fresh(base: str, used: set[str], index: int) -> str:
    name = base if base not in used else f"{base}_{index}"
    used.add(name)
    return name


def _template_args(name: str, args: list[Any], out: Exported) -> list[Any]:
    """``args`` with every argument holding a secret replaced by (or given) a reference."""
    strings = [arg for arg in args if isinstance(arg, str)]
    if len(strings) != len(args):
        return args
    flagged = set(secret_arguments(strings))
    probes = [_probe(arg) for arg in strings]
    shown = redact_argv(probes)
    prefix = f"OPENCLAW_MCP_{_segment(name)}"
    used: set[str] = set()
    result: list[Any] = []
    for index, arg in enumerate(strings):
        for ref in _REF.findall(arg):
            out.add_variable(Variable(ref[2:-1], name, f"args[{index}]"))
        if index not in flagged:
            result.append(arg)
            continue
        flag, equals, _ = arg.partition("=")
        if equals and flag.startswith("--") and shown[index] == f"{flag}={MASK}" and not redactor_hides(flag + "="):
            variable = _fresh(f"{prefix}_{_segment(flag)}", used, index)
            result.append(f"{flag}=${{{variable}}}")
        elif (
            index > 0
            and shown[index] == MASK
            and shown[index - 1] == probes[index - 1]
            and strings[index - 1][:2] == "--"
        ):
            variable = _fresh(f"{prefix}_{_segment(strings[index - 1])}", used, index)
            result.append(f"${{{variable}}}")
        else:
            variable = _fresh(f"{prefix}_ARG_{index}", used, index)
            result.append(f"${{{variable}}}")
        out.add_variable(Variable(variable, name, f"args[{index}]"))
    return result


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list | tuple):
        return [text for item in value for text in _strings(item)]
    return []


def guard_entry(
    name: str, entry: Mapping[str, Any], client: str, can_reference: bool, out: Exported
) -> dict[str, Any] | None:
    """``entry`` (canonical ``${VAR}`` syntax) without a string the redactor would hide: references where the
    client expands variables (``can_reference``), else ``None`` with one warning line (the server is not
    exported)."""
    guarded = dict(entry)
    args = guarded.get("args")
    flagged = secret_arguments(args) if isinstance(args, list) and all(isinstance(a, str) for a in args) else []
    if isinstance(args, list) and flagged:
        if not can_reference:
            _refuse(name, f"args[{flagged[0]}]", client, out)
            return None
        guarded["args"] = _template_args(name, args, out)
    for key in _WHOLE_FIELDS:
        value = guarded.get(key)
        if isinstance(value, str) and redactor_hides(value):
            if not can_reference:
                _refuse(name, key, client, out)
                return None
            variable = f"OPENCLAW_MCP_{_segment(name)}_{key.upper()}"
            out.add_variable(Variable(variable, name, key))
            guarded[key] = f"${{{variable}}}"
    for key, value in guarded.items():
        if key == "args" and isinstance(value, list):
            leaks = bool(secret_arguments([arg for arg in value if isinstance(arg, str)]))
        else:
            leaks = any(redactor_hides(text) for text in _strings(value))
        if leaks:
            _refuse(name, key, client, out)
            return None
    return guarded
