"""``openclaw config get/set/unset`` and ``openclaw doctor`` rules for the ``mcp`` section: path syntax, the
``mcp`` schema's path shape, reading and editing by path, the value parser of ``config set``, the view ``get``
prints (schema key order, redaction), the gateway-apply hint, and the doctor's legacy-key migration
(spec cli-registry §1.4; upstream ``src/shared/dot-path.ts``, ``src/cli/config-cli-path.ts``,
``src/config/redact-snapshot.ts``, ``src/gateway/config-reload-plan.ts``,
``doctor/shared/legacy-config-migrations.runtime.mcp.ts``).

Pure: no I/O. Paths are lists of tokens: ``str`` for keys (also ``"0"`` written with dots), ``int`` for an
unquoted bracket index (``args[0]``).
"""

from __future__ import annotations

from openclaw_mcp.domain.config_paths._apply import apply_hint, changed_leaf_paths
from openclaw_mcp.domain.config_paths._editing import SetValueError, get_at, parse_set_value, set_at, unset_at
from openclaw_mcp.domain.config_paths._legacy import migrate_legacy_mcp
from openclaw_mcp.domain.config_paths._schema import is_known_mcp_path
from openclaw_mcp.domain.config_paths._syntax import (
    ConfigPath,
    PathError,
    Token,
    format_path,
    outside_mcp_message,
    parse_path,
)
from openclaw_mcp.domain.config_paths._view import REDACTED, mcp_view

__all__ = [
    "REDACTED",
    "ConfigPath",
    "PathError",
    "SetValueError",
    "Token",
    "apply_hint",
    "changed_leaf_paths",
    "format_path",
    "get_at",
    "is_known_mcp_path",
    "mcp_view",
    "migrate_legacy_mcp",
    "outside_mcp_message",
    "parse_path",
    "parse_set_value",
    "set_at",
    "unset_at",
]
