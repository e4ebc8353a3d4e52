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
# `python -m venv` seeds setuptools (Python 3.11) and uv's sync keeps seed packages: drop what the lock does not name
for seeded in setuptools wheel; do
  grep -q "^$seeded==" requirements/lock.txt || .venv/bin/uv pip uninstall --quiet --python .venv/bin/python "$seeded" 2>/dev/null || true
done
# editable: the locked hatchling writes a plain .pth path entry (no import hook added to every CLI start); no
# isolated build environment with whatever build backend is newest
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
.venv/bin/python scripts/check_lock.py
