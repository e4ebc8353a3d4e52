"""Secret redaction exactly as the reference prints it (spec cli-registry §4.2–§4.4, D4; client-runtime
§1.8, §4.12, D13).

Four redactors, each reproducing one of the reference's:

* :func:`redact_sensitive_url` — URL redaction (userinfo → ``***``, sensitive query values → ``***``,
  Telegram bot-token path segments → ``/bot***``, nested URLs in query values and fragments, WHATWG
  re-serialisation only when something changed, a text fallback for unparsable values);
* :func:`redact_sensitive_text` (alias :func:`redact_text_line`) — the generic secret-text redactor the
  reference applies to every printed console line, to error messages and to argv entries: the
  ``NAME=value`` assignment rules, ``Authorization``/``Proxy-Authorization`` and API-key headers,
  ``Bearer`` tokens, passwords of URLs in free text, sensitive query and form pairs, PEM private keys,
  40-character AWS secret keys, and the reference's vendor token prefixes (``sk-``, ``ghp_``,
  ``github_pat_``, ``xox?-``, ``AKIA``, ``eyJ…`` JWTs, Telegram tokens, …). Short secrets become
  ``***``; secrets of 18+ UTF-16 units keep their first 6 and last 4 characters around ``…``;
* :func:`redact_argv` — stdio launch arguments (secret flags, then the text redactor);
* :func:`redact_diagnostic` — MCP diagnostics (response bodies cut, URLs and secrets redacted).

Deviations, all outside what the MCP commands print: exact-value redaction of secrets registered at
runtime and user-configured ``logging.redactPatterns`` are not supported (the reference's defaults
apply); regex character classes built from Unicode category C omit unassigned code points; JavaScript's
case-insensitive ``u``-flag regexes also fold U+017F/U+212A onto ``s``/``k``, which is not reproduced.
Verified against the reference on tens of thousands of generated inputs.
"""

from __future__ import annotations

from openclaw_mcp.domain.redaction._log import sanitize_for_log
from openclaw_mcp.domain.redaction._mask import MASK, mask_token
from openclaw_mcp.domain.redaction._query import is_sensitive_url_query_param_name
from openclaw_mcp.domain.redaction._text import redact_argv, redact_diagnostic, redact_sensitive_text, redact_text_line
from openclaw_mcp.domain.redaction._url import redact_sensitive_url, redact_url_text
from openclaw_mcp.domain.redaction._values import holds_secret

__all__ = [
    "MASK",
    "holds_secret",
    "is_sensitive_url_query_param_name",
    "mask_token",
    "redact_argv",
    "redact_diagnostic",
    "redact_sensitive_text",
    "redact_sensitive_url",
    "redact_text_line",
    "redact_url_text",
    "sanitize_for_log",
]
