#!/usr/bin/env bash
# Installs the agent CLIs whose own config parsers check `openclaw mcp export` (tests/clients): Codex
# (@openai/codex), Claude Code (@anthropic-ai/claude-code) and the Gemini CLI (@google/gemini-cli), pinned,
# outside the repository, with npm. Idempotent: nothing is fetched when the pinned versions are there. The first
# install takes ~20 s and ~0.9 GB (Codex and Claude Code ship native binaries). They run on the Node.js 24 that
# scripts/install_reference.sh installs when it is there (Claude Code wants node >= 22), else on the
# node on PATH.
#
#   bash scripts/install_agent_clients.sh                    # installs into $OPENCLAW_AGENT_CLIENTS_DIR
#   eval "$(bash scripts/install_agent_clients.sh --env)"   # PATH with codex, claude and gemini (and that node)
#
# Default dir: ${XDG_CACHE_HOME:-$HOME/.cache}/openclaw-agent-clients. Prints one line on success.
set -euo pipefail
CODEX_VERSION=${CODEX_VERSION:-0.171.0}
CLAUDE_CODE_VERSION=${CLAUDE_CODE_VERSION:-2.1.332}
GEMINI_CLI_VERSION=${GEMINI_CLI_VERSION:-0.61.0}
dir=${OPENCLAW_AGENT_CLIENTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/openclaw-agent-clients}
reference=${OPENCLAW_REFERENCE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/openclaw-reference}
node_path=""
for candidate in "$reference"/node_modules/node-linux-{x64,arm64}/bin; do
  [[ -x "$candidate/node" ]] && node_path=$candidate
done
if [[ "${1:-}" == "--env" ]]; then
  echo "export PATH=\"$dir/node_modules/.bin${node_path:+:$node_path}:\$PATH\""
  exit 0
fi
[[ -z "$node_path" ]] || export PATH="$node_path:$PATH"
installed() {  # <package> <version> <bin>
  [[ -f "$dir/node_modules/$1/package.json" ]] && grep -q "\"version\": \"$2\"" "$dir/node_modules/$1/package.json" \
    && [[ -e "$dir/node_modules/.bin/$3" ]]
}
summary="codex $CODEX_VERSION, claude-code $CLAUDE_CODE_VERSION, gemini-cli $GEMINI_CLI_VERSION in $dir"
if installed @openai/codex "$CODEX_VERSION" codex && installed @anthropic-ai/claude-code "$CLAUDE_CODE_VERSION" claude \
  && installed @google/gemini-cli "$GEMINI_CLI_VERSION" gemini; then
  echo "agent clients: $summary (cached)"
  exit 0
fi
mkdir -p "$dir"
cd "$dir"
[[ -f package.json ]] || echo '{"private": true}' > package.json
npm install --no-audit --no-fund --loglevel=error --save-exact \
  "@openai/codex@$CODEX_VERSION" "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" \
  "@google/gemini-cli@$GEMINI_CLI_VERSION" > /dev/null
echo "agent clients: $summary"
