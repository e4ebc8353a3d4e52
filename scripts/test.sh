#!/usr/bin/env bash
# The whole quality gate: lint, format check, strict types on every layer, layer contracts, no import cycles, tests.
set -euo pipefail
cd "$(dirname "$0")/.."
V=.venv/bin
echo "== ruff check";        $V/ruff check .
echo "== ruff format";       $V/ruff format --check .
echo "== mypy --strict";     $V/mypy
echo "== import-linter";     $V/lint-imports
echo "== import cycles";     $V/python scripts/check_import_cycles.py
echo "== pytest";            $V/python -m pytest -q "$@"
