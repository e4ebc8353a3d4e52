#!/usr/bin/env bash
# The main job, end to end on a fresh machine: install, then drive the registry CLI on a demo config in
# an isolated, throw-away state directory (never your real ~/.openclaw).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
export OPENCLAW_STATE_DIR="$state" OPENCLAW_CONFIG_PATH="$state/openclaw.json" HOME="$state/home"
oc=.venv/bin/openclaw
run() { echo "\$ openclaw $*"; "$oc" "$@" || echo "(exit $?)"; echo; }
run mcp list
run mcp set context7 '{"command":"uvx","args":["context7-mcp"]}'
run mcp set docs '{"type":"http","url":"https://user:secret@mcp.example.com/mcp?token=abc"}'
run mcp set events '{"url":"https://sse.example.com/sse","headers":{"Authorization":"Bearer abcdefghijklmnopqrstuvwxyz"}}'
run mcp tools context7 --include 'resolve-*,get-library-docs'
run mcp configure docs --timeout 12 --connect-timeout 2.5 --parallel
run mcp list
run mcp status --verbose
run mcp status --json
run mcp show docs
run mcp unset events
run mcp show nope
echo "config file: $OPENCLAW_CONFIG_PATH ($(wc -c < "$OPENCLAW_CONFIG_PATH") bytes, backups: $(ls "$OPENCLAW_STATE_DIR" | grep -c bak))"
