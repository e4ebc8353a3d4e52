#!/usr/bin/env bash
# Creates .venv holding exactly requirements/lock.txt (every runtime and dev dependency, pinned) and the project in
# editable mode. Idempotent. Refresh the lock with `bash scripts/lock.sh`; it is the only way a version moves.
set -euo pipefail
cd "$(dirname "$0")/.."
# uv trusts the platform certificate store, as pip does (a TLS-inspecting proxy's CA lives there)
export UV_SYSTEM_CERTS=1
PY=${PYTHON:-python3}
if [[ ! -x .venv/bin/python ]]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -c requirements/lock.txt pip uv
# exactly the lock: installs what is missing, moves what differs, removes what the lock does not name
.venv/bin/uv pip sync --quiet --python .venv/bin/python requirements/lock.txt
# compat mode: a plain .pth path entry (the default import-hook finder adds ~9 ms to every CLI start); the locked
# setuptools builds it (no isolated build environment with whatever setuptools is newest)
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e . \
  --config-settings editable_mode=compat
.venv/bin/python scripts/check_lock.py
