#!/usr/bin/env bash
# Refreshes requirements/lock.txt: every runtime, dev and otel (OpenTelemetry export) dependency of pyproject.toml plus the install tools
# (requirements/tools.in), resolved for Python 3.11 at their newest versions. The lock is the only way a version
# moves: scripts/bootstrap.sh (the README's set-up and CI) installs exactly it and fails on anything else.
# The published wheel keeps pyproject's ranges. Pass extra uv flags, e.g. `--upgrade-package mcp` instead of all.
set -euo pipefail
cd "$(dirname "$0")/.."
# uv trusts the platform certificate store, as pip does (a TLS-inspecting proxy's CA lives there)
export UV_SYSTEM_CERTS=1
.venv/bin/python -m pip install --quiet -c requirements/lock.txt uv
args=("$@")
[[ ${#args[@]} -gt 0 ]] || args=(--upgrade)
.venv/bin/uv pip compile pyproject.toml requirements/tools.in --extra dev --extra otel --python-version 3.11 \
  --custom-compile-command "bash scripts/lock.sh" -o requirements/lock.txt "${args[@]}"
