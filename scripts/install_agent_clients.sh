#!/usr/bin/env bash
# Installs the agent CLIs whose own config parsers check `openclaw mcp export` (tests/clients): Codex
# (@openai/codex), Claude Code (@anthropic-ai/claude-code) and the Gemini CLI (@google/gemini-cli), pinned,
# outside the repository. Idempotent; ~20 s and ~0.9 GB the first time. They run on the Node.js 24 that
# ../shared/reference/install-openclaw.sh installs (or any node >= 20 on PATH).
#
#   bash scripts/install_agent_clients.sh              # installs into $OPENCLAW_AGENT_CLIENTS_DIR
#   eval "$(bash scripts/install_agent_clients.sh --env)"   # PATH with codex, claude and gemini
#
# Default dir: ${XDG_CACHE_HOME:-$HOME/.cache}/openclaw-agent-clients.
set -euo pipefail
CODEX_VERSION=${CODEX_VERSION:-0.171.0}
CLAUDE_CODE_VERSION=${CLAUDE_CODE_VERSION:-2.1.332}
GEMINI_CLI_VERSION=${GEMINI_CLI_VERSION:-0.61.0}
dir=${OPENCLAW_AGENT_CLIENTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/openclaw-agent-clients}
if [[ "${1:-}" == "--env" ]]; then
  echo "export PATH=\"$dir/node_modules/.bin:\$PATH\""
  exit 0
fi
installed() {  # <package> <version>
  [[ -f "$dir/node_modules/$1/package.json" ]] && grep -q "\"version\": \"$2\"" "$dir/node_modules/$1/package.json"
}
if installed @openai/codex "$CODEX_VERSION" && installed @anthropic-ai/claude-code "$CLAUDE_CODE_VERSION" \
  && installed @google/gemini-cli "$GEMINI_CLI_VERSION"; then
  exit 0
fi
mkdir -p "$dir"
cd "$dir"
[[ -f package.json ]] || echo '{"private": true}' > package.json
npm install --no-audit --no-fund --loglevel=error \
  "@openai/codex@$CODEX_VERSION" "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" "@google/gemini-cli@$GEMINI_CLI_VERSION"
echo "agent clients: codex $CODEX_VERSION, claude-code $CLAUDE_CODE_VERSION, gemini-cli $GEMINI_CLI_VERSION in $dir"
