#!/usr/bin/env bash
# Install the shells the completion tests drive (tests/shells): zsh and fish from Debian.
# Idempotent and quiet: installs only what is missing; needs root (or sudo) and apt-get.
set -euo pipefail

missing=()
for shell in zsh fish; do
    command -v "$shell" >/dev/null 2>&1 || missing+=("$shell")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_shells.sh: apt-get not found; install ${missing[*]} by hand" >&2
    exit 1
fi
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { "${sudo[@]}" apt-get update -qq && "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi
