"""The public text redactors: ``redactSensitiveText`` behind a prefilter, argv and MCP diagnostics."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from openclaw_mcp.domain.redaction._auth_headers import redact_structured_auth_headers
from openclaw_mcp.domain.redaction._aws import aws_could_match, redact_aws
from openclaw_mcp.domain.redaction._forms import redact_assignments, redact_form_body
from openclaw_mcp.domain.redaction._js import INVISIBLE, WS, lazy_regex
from openclaw_mcp.domain.redaction._mask import MASK
from openclaw_mcp.domain.redaction._patterns import apply_pattern, patterns
from openclaw_mcp.domain.redaction._url import redact_sensitive_url

__all__ = ["redact_argv", "redact_diagnostic", "redact_sensitive_text", "redact_text_line"]

_PREFILTER_SOURCES = (
    "KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|COOKIE|SIGNATURE|CREDENTIAL|CARD|CVC|CVV|PAYMENT|PRIVATE KEY",
    f"security[-_]?code|pass[{WS}]*[=:]|passphrase[{WS}]*[=:]"
    f"|_(?:password|pass|passphrase|passwd)[{WS}]*[=:]|jwt[{WS}]*[=:]|session=|code=|sig[{WS}]*=",
    f"Bearer[{WS}]+",
    f"://[^/{WS}:@]*:[^{WS}@]+@",
    "sk-|gh[opsur]_|github_pat_|glpat-|gloas-|gldt-|glcbt-|glptt-|glft-|glimt-|glagent-|glwt-"
    "|glsoat-|glffct-|glrt-|glrtr-|GR1348941|_gitlab_session=|xox[baprs]-|xapp-|hooks\\.slack\\.com"
    "|discord|gsk_|AIza|ya29\\.|1//0|eyJ|pplx-|fal_|fc-|bb_live_|gAAAA|[sr]k_(?:live|test)_|SG\\."
    "|npm_|pypi-|do[opr]_v1_|dp\\.(?:ct|pt|sa|st|scim|audit)\\.|dckr_|bkua_|CCIPAT_|sbp_|dapi[0-9a-f]"
    "|dd[pw]_|glsa_|nfp_|CFPAT-|ATCTT3|ATATT|ATBB|BBDC-|HRKU-|pat-(?:eu|na)1-|apify_api_|FlyV1"
    "|fio-u-|tvly-|exa_|syt_|retaindb_|mem0_|brv_|xai-|fw-|fw_|fpk_",
    "(?:^|[^A-Za-z0-9_])(?:am_|sk_)",
    "A[KS]IA[A-Z0-9]|AKID|LTAI|hf_|api_org_|r8_",
    "bot[0-9]{6,}:|[0-9]{6,}:[A-Za-z0-9_-]{20,}",
    f"%[0-9A-Fa-f]{{2}}[{INVISIBLE}+A-Za-z0-9_%.\\-]*=",
)
_PREFILTER = lazy_regex("|".join(_PREFILTER_SOURCES), re.IGNORECASE)
_REGEX_SYNTAX = frozenset(".^$*+?{}[]()|\\")
_NEVER = "(?!)"


def _alternatives(source: str) -> list[str]:
    """The top-level alternatives of a regular expression source (``|`` outside groups and classes)."""
    parts: list[str] = []
    depth = start = 0
    in_class = escaped = False
    for index, c in enumerate(source):
        if escaped:
            escaped = False
        elif c == "\\":
            escaped = True
        elif in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            parts.append(source[start:index])
            start = index + 1
    parts.append(source[start:])
    return parts


def _literal(alternative: str) -> str | None:
    """The text an alternative matches when it is plain text (``\\.`` its only escape), else None."""
    if any(c in _REGEX_SYNTAX for c in alternative.replace("\\.", "")):
        return None
    return alternative.replace("\\.", ".")


def _trie_pattern(words: list[str]) -> str:
    """A case-sensitive pattern that finds a match wherever one of ``words`` starts, factored by common
    prefixes (a word that extends a shorter one adds nothing: the shorter one already matches there)."""
    root: dict[str, Any] = {}
    for word in words:
        node = root
        for c in word:
            node = node.setdefault(c, {})
        node[""] = {}

    def pattern(node: dict[str, Any]) -> str:
        if "" in node:
            return ""
        branches = [re.escape(c) + pattern(child) for c, child in sorted(node.items())]
        return branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"

    return pattern(root) if root else _NEVER


@functools.cache
def _ascii_prefilter() -> tuple[re.Pattern[str], re.Pattern[str], tuple[tuple[str, str], ...]]:
    """``_PREFILTER`` for ASCII text, split into patterns that together match where it does (a search for
    ``a|b`` finds a match exactly when a search for ``a`` or one for ``b`` does):

    * its plain-text alternatives, lowered, searched case-sensitively in the lowered text through a prefix
      tree (for ASCII text, ignoring case is lowering both sides);
    * the alternatives that start with a caseless literal character (``%``, ``:``, ``_``), by that
      character: searched only in a text that contains it, and compiled only then (the ``%`` one, with
      the invisible-character class, is the costliest to compile);
    * the other alternatives, searched case-insensitively as they are.
    """
    words: list[str] = []
    others: list[str] = []
    gated: dict[str, list[str]] = {}
    for source in _PREFILTER_SOURCES:
        for part in _alternatives(source):
            word = _literal(part)
            if word is not None:
                words.append(word.lower())
            elif not part[0].isalpha() and part[0] not in _REGEX_SYNTAX:
                gated.setdefault(part[0], []).append(part)
            else:
                others.append(part)
    return (
        re.compile(_trie_pattern(words)),
        re.compile("|".join(others) or _NEVER, re.IGNORECASE),
        tuple((first, "|".join(parts)) for first, parts in gated.items()),
    )


@functools.cache
def _ignoring_case(source: str) -> re.Pattern[str]:
    return re.compile(source, re.IGNORECASE)


def _prefilter_matches(text: str) -> bool:
    """Whether ``_PREFILTER`` finds a match in ``text``. The case-insensitive alternation of about a hundred
    patterns is slow in ``re`` (~0.6 µs a character); ASCII text, nearly every argument and printed line,
    takes the equivalent :func:`_ascii_prefilter` patterns, several times faster."""
    if not text.isascii():
        return _PREFILTER().search(text) is not None
    words, others, gated = _ascii_prefilter()
    if words.search(text.lower()) is not None or others.search(text) is not None:
        return True
    return any(first in text and _ignoring_case(source).search(text) is not None for first, source in gated)


_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_%.-")
_INVISIBLE_CHAR = lazy_regex(f"[{INVISIBLE}+]")


def _has_obfuscated_form_key(text: str) -> bool:
    """An ``=`` right after a key-like run mixing key characters with ``+``/invisible characters."""
    index = text.find("=")
    while index >= 0:
        cursor = index
        has_key = has_invisible = False
        while cursor > 0:
            c = text[cursor - 1]
            if c in _KEY_CHARS:
                has_key = True
            elif _INVISIBLE_CHAR().match(c):
                has_invisible = True
            else:
                break
            cursor -= 1
        if has_key and has_invisible:
            return True
        index = text.find("=", index + 1)
    return False


def _could_match(text: str) -> bool:
    return _prefilter_matches(text) or _has_obfuscated_form_key(text) or aws_could_match(text)


# ---------------------------------------------------------------------------------------------------
# Public text redactors
# ---------------------------------------------------------------------------------------------------


def redact_sensitive_text(text: str) -> str:
    """The reference's ``redactSensitiveText`` with its built-in patterns (cli-registry §4.4, D4/D13).

    ``--env entries must use KEY=VALUE.`` → ``--env entries must use KEY=***``;
    ``Bearer abcdefghijklmnop123456`` → ``Bearer abcdef…3456``; ``https://u:p@h/?token=abc`` →
    ``https://u:***@h/?token=***``. Text without a pattern is returned unchanged.
    """
    if not text or not _could_match(text):
        return text
    result = redact_form_body(redact_assignments(redact_structured_auth_headers(text), "url"))
    for pattern in patterns():
        result = apply_pattern(pattern, result)
    return redact_aws(result)


def redact_text_line(line: str) -> str:
    """Redaction of one printed console text (stdout and stderr lines; not JSON documents)."""
    return redact_sensitive_text(line)


_SECRET_FLAGS = frozenset(
    {
        "--token", "--api-key", "--apikey", "--secret", "--password", "--provider-env", "--auth-token",
        "--access-token", "--refresh-token", "--client-secret", "--hook-token", "--gateway-token",
        "--bot-token", "--app-token", "--remote-token", "--push-token", "--webhook-secret",
        "--webhook-token", "--service-account-token", "--op-service-account-token", "--bearer",
        "--bearer-token", "--pat", "--personal-access-token", "--oauth-token", "--id-token",
        "--identity-token", "--session-token", "--service-token", "--private-key", "--recovery-key",
        "--gateway-key", "--session-key", "--active-key",
    }
)  # fmt: skip
_SECRET_FLAG_SUFFIX = lazy_regex(
    r"--(?:[a-z0-9]+(?:[-_][a-z0-9]+)*[-_])?(?:token|secret|password|passwd|passphrase|pin|api[-_]?key"
    r"|api[-_]?secret|secret[-_]?key|secret[-_]?access[-_]?key|access[-_]?key(?:[-_]?id)?|account[-_]?key"
    r"|client[-_]?key|consumer[-_]?key|license[-_]?key|subscription[-_]?key|webhook|credentials?|creds?"
    r"|auth(?:orization)?|bearer|pat|cookie|private[-_]?key|recovery[-_]?key|signing[-_]?key"
    r"|encryption[-_]?key|master[-_]?key|session[-_]?key|gateway[-_]?key|service[-_]?key|hook[-_]?key)"
)


def _is_secret_flag(arg: str) -> bool:
    if not arg.startswith("--"):
        return False
    name = arg.split("=", 1)[0].lower()
    return name in _SECRET_FLAGS or _SECRET_FLAG_SUFFIX().fullmatch(name) is not None


def redact_argv(args: Sequence[str]) -> list[str]:
    """Stdio launch arguments with secrets masked (client-runtime §1.8); same length as ``args``.

    ``--token abc`` → ``--token ***`` (the next argument is masked even when it starts with ``-``);
    ``--api-key=xyz`` → ``--api-key=***``; anything else goes through :func:`redact_sensitive_text`.
    """
    result: list[str] = []
    mask_next = False
    for arg in args:
        if mask_next:
            mask_next = False
            result.append(MASK)
            continue
        if _is_secret_flag(arg):
            equals = arg.find("=")
            if equals >= 0:
                result.append(f"{arg[: equals + 1]}{MASK}")
            else:
                result.append(arg)
                mask_next = True
            continue
        result.append(redact_sensitive_text(arg))
    return result


_BODY_MARKER = "Error POSTing to endpoint:"
_LEGACY_BODY_MARKER = lazy_regex(r"Error POSTing to endpoint \(HTTP [0-9]+\):")


def redact_diagnostic(text: str) -> str:
    """An MCP diagnostic message (client-runtime §4.12, upstream ``redactMcpDiagnosticError``).

    ``text`` is the joined error message (redacted or not). A response body after
    ``Error POSTing to endpoint:`` / ``Error POSTing to endpoint (HTTP <n>):`` is replaced by
    `` [redacted response body]``; URLs and secrets are redacted.
    """
    message = redact_sensitive_text(text)
    index = message.find(_BODY_MARKER)
    legacy = _LEGACY_BODY_MARKER().search(message)
    cut = index + len(_BODY_MARKER) if index >= 0 else legacy.end() if legacy else None
    if cut is not None:
        message = f"{message[:cut]} [redacted response body]"
    return redact_sensitive_text(redact_sensitive_url(message))
