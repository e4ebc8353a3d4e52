#!/usr/bin/env bash
# Copies the specification's check material that the tests run into tests/reference_cases (see its README):
# the CLI oracle and recorded serve exchanges, the check scripts driving the reference, the page seed.
# The repository needs nothing beside it; run this only to take a newer copy from a specification folder.
#
#   bash scripts/refresh_reference_cases.sh SPEC_ROOT     (the folder holding spec/ and oracle/)
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -eq 1 ]] || { echo "usage: bash scripts/refresh_reference_cases.sh SPEC_ROOT" >&2; exit 2; }
src=$1
[[ -d "$src/oracle" && -d "$src/spec/check" ]] || { echo "refresh_reference_cases: no oracle/ and spec/check/ under $src" >&2; exit 2; }
dst=tests/reference_cases
rm -rf "$dst/oracle" "$dst/check" "$dst/fixtures"
mkdir -p "$dst/check" "$dst/fixtures"
cp -r "$src/oracle" "$dst/oracle"
cp -r "$src/spec/check/hookplug" "$src/spec/check/openclaw-tools" "$src/spec/check/pol.mjs" "$dst/check/"
cp "$src/spec/fixtures/"* "$dst/fixtures/"
find "$dst" -name __pycache__ -prune -exec rm -rf {} +
chmod -R u+w "$dst"
echo "reference cases: copied from $src into $dst"
