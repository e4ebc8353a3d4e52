#!/usr/bin/env bash
# Installs Debian's chromium (binary /usr/bin/chromium) for the browser tests when it is missing. Idempotent.
set -euo pipefail
if [[ -x /usr/bin/chromium ]]; then
  exit 0
fi
SUDO=""
if [[ $(id -u) -ne 0 ]]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get install -y -q chromium >/dev/null 2>&1; then
  $SUDO apt-get update -q >/dev/null
  $SUDO apt-get install -y -q chromium >/dev/null
fi
/usr/bin/chromium --version
