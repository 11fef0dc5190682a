#!/usr/bin/env bash
# The README's test command (`npm test`): starts what the tests need (PostgreSQL, Kafka) through
# the project's own stack script, runs every Jest tier, and ends with `tests: N passed, N failed`.
#   TEST_TIERS="unit int"  restricts the tiers (default: all: unit int e2e data)
set -uo pipefail
cd "$(dirname "$0")/.."
tiers=${TEST_TIERS:-"unit int e2e data"}
mkdir -p .stack
# a fresh checkout: install from the lock file; the integration tier runs the services from dist/
[ -d node_modules ] || npm ci --no-audit --no-fund >&2
# development mode for every service the tests start (the attack specs start production-mode APIs themselves)
export LEDGER_ENV=${LEDGER_ENV:-development}
export TEST_DB_NAME=${TEST_DB_NAME:-ledger_test}
# as the owner (setup, migrations, checks); the services under test log in as the runtime roles on
# the same database (TEST_APP_DATABASE_URL etc., derived from this URL by the test support code)
export TEST_DATABASE_URL=${TEST_DATABASE_URL:-postgres://ledger_owner:ledger_owner@127.0.0.1:5432/$TEST_DB_NAME}
needs_stack=0
for t in $tiers; do case $t in int|e2e) needs_stack=1 ;; esac; done
if [ "$needs_stack" = 1 ]; then
  bash scripts/stack.sh up >&2 || { echo "stack failed to start; see .stack/kafka/kafka.log" >&2; echo "tests: 0 passed, 1 failed"; exit 1; }
  bash scripts/stack.sh fresh-test-db >&2 || { echo "tests: 0 passed, 1 failed"; exit 1; }
  npm run -s build >&2 || { echo "build failed"; echo "tests: 0 passed, 1 failed"; exit 1; }
fi
args=()
for t in $tiers; do args+=(--selectProjects "$t"); done
results=.stack/jest-results.json
rm -f "$results"
npx jest "${args[@]}" --runInBand --forceExit --json --outputFile="$results" "$@"
code=$?
node -e '
  const fs = require("fs");
  let r;
  try { r = JSON.parse(fs.readFileSync(process.argv[1], "utf8")); } catch { console.log("tests: 0 passed, 1 failed"); process.exit(0); }
  const failedSuites = (r.testResults || []).filter((s) => s.status === "failed" && (s.assertionResults || []).length === 0).length;
  console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests + failedSuites} failed`);
' "$results"
exit $code
