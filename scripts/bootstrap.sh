#!/usr/bin/env bash
# Creates .venv with the project (editable) and its dev tools. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [[ ! -x .venv/bin/python ]]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
# compat mode: a plain .pth path entry (the default import-hook finder adds ~9 ms to every CLI start)
.venv/bin/python -m pip install --quiet -e '.[dev]' --config-settings editable_mode=compat
