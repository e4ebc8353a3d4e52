#!/usr/bin/env bash
# Installs axe-core (the accessibility engine the settings page's browser tier injects, tests/browser) OUTSIDE the
# repository, from the npm registry, exactly as pinned in scripts/axe/package-lock.json: `npm ci` checks the
# tarball against the lock's sha512 integrity. Idempotent: a stamp holding the lock's sha256 skips the install
# when nothing changed. ~1 s, ~3 MB.
#
#   bash scripts/install_axe.sh          # installs into $OPENCLAW_AXE_DIR
#   bash scripts/install_axe.sh --path   # prints the path of axe.min.js (what the tests load)
#
# Default dir: ${XDG_CACHE_HOME:-$HOME/.cache}/openclaw-axe (the tests look there, or at $OPENCLAW_AXE_JS).
# Refresh the pin: edit scripts/axe/package.json, then `npm install --package-lock-only` in that folder.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pins="$here/axe"
dir=${OPENCLAW_AXE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/openclaw-axe}
js="$dir/node_modules/axe-core/axe.min.js"
if [[ "${1:-}" == "--path" ]]; then
  echo "$js"
  exit 0
fi
want=$(sha256sum "$pins/package-lock.json" | cut -d' ' -f1)
stamp="$dir/.openclaw-mcp-lock.sha256"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -f "$js" ]]; then
  echo "axe-core: up to date in $dir"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -q npm >/dev/null 2>&1 || { $SUDO apt-get update -q >/dev/null; $SUDO apt-get install -y -q npm >/dev/null; }
fi
mkdir -p "$dir"
cp "$pins/package.json" "$pins/package-lock.json" "$dir/"
rm -f "$stamp"
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error --ignore-scripts)
[[ -f "$js" ]] || { echo "install_axe: $js missing after npm ci" >&2; exit 1; }
echo "$want" > "$stamp"
echo "axe-core: $(grep -m1 '"version"' "$dir/node_modules/axe-core/package.json" | tr -d ' ,') in $dir"
