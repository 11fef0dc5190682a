#!/usr/bin/env bash
# The README's test command (`npm test`): starts what the tests need (PostgreSQL, Kafka) through
# the project's own stack script, runs every Jest tier, then the browser tier (Playwright driving
# the system Chromium against the real services, test/browser/playwright.config.ts), and ends with
# `tests: N passed, N failed` (Jest's and Playwright's counts added).
#   TEST_TIERS="unit int"  restricts the tiers (default: all: unit int e2e data browser)
#   TEST_BUILT=1  dist/ was built from this tree just before (.ci/run): no second build
#   paths given go to Jest (and, unless TEST_TIERS names it, the browser tier is then left out); with
#   TEST_TIERS=browser alone they go to Playwright (files or -g <title>)
# The unit and data tiers run in a Jest process of their own beside the int and e2e tiers (each one
# suite at a time), and the browser tier after them, still beside the int and e2e tiers
# (TEST_BROWSER_BESIDE=0: after every Jest tier); TEST_SERIAL=1, or paths given, runs every Jest tier
# in one process and the browser tier after it.
set -uo pipefail
cd "$(dirname "$0")/.."
# `npm test -- <path>` runs the Jest specs named, not the whole browser tier besides
if [ $# -gt 0 ]; then default_tiers="unit int e2e data"; else default_tiers="unit int e2e data browser"; fi
tiers=${TEST_TIERS:-$default_tiers}
mkdir -p .stack
# a fresh checkout: install from the lock file; the integration tier runs the services from dist/
[ -d node_modules ] || npm ci --no-audit --no-fund >&2
# development mode for every service the tests start (the attack specs start production-mode APIs themselves)
export LEDGER_ENV=${LEDGER_ENV:-development}
export TEST_DB_NAME=${TEST_DB_NAME:-ledger_test}
# as the owner (setup, migrations, checks); the services under test log in as the runtime roles on
# the same database (TEST_APP_DATABASE_URL etc., derived from this URL by the test support code)
export TEST_DATABASE_URL=${TEST_DATABASE_URL:-postgres://ledger_owner:ledger_owner@127.0.0.1:5432/$TEST_DB_NAME}
jest_tiers=()
browser=0
needs_stack=0
for t in $tiers; do
  case $t in
    browser) browser=1; needs_stack=1 ;;
    int|e2e) jest_tiers+=("$t"); needs_stack=1 ;;
    *) jest_tiers+=("$t") ;;
  esac
done
if [ "$needs_stack" = 1 ]; then
  bash scripts/stack.sh up >&2 || { echo "stack failed to start; see .stack/kafka/kafka.log" >&2; echo "tests: 0 passed, 1 failed"; exit 1; }
  # the Jest tiers' database; the browser tier makes its own (BROWSER_DB_NAME, default ledger_browser)
  if [ "${#jest_tiers[@]}" -gt 0 ]; then bash scripts/stack.sh fresh-test-db >&2 || { echo "tests: 0 passed, 1 failed"; exit 1; }; fi
  # the specs of the shared limits start a Redis of their own (test/support/redis-server.ts)
  if redis="$(bash scripts/ensure-package.sh redis-server redis-server)"; then export REDIS_SERVER="$redis"; else echo "tests: 0 passed, 1 failed"; exit 1; fi
  # the services (dist/) and the console (dist/console) the int, e2e and browser tiers run; .ci/run,
  # which built this very tree a moment before, says so with TEST_BUILT=1 (one build of ~1 min, not two)
  if [ "${TEST_BUILT:-0}" != 1 ]; then
    npm run -s build >&2 || { echo "build failed"; echo "tests: 0 passed, 1 failed"; exit 1; }
  fi
fi

code=0
rm -f .stack/jest-results*.json .stack/jest-stderr*.log
# one Jest run: `run_jest <name> <tier>... [-- <paths>]`, its JSON in .stack/jest-results-<name>.json and
# its stderr in .stack/jest-stderr-<name>.log. Jest's own summary is kept too: when its JSON cannot be
# written (a failed expectation holding a BigInt makes Jest's JSON.stringify throw), the counts come
# from its "Tests:" line instead
run_jest() {
  local name=$1
  shift
  local args=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=(--selectProjects "$1"); shift; done
  [ "${1:-}" = -- ] && shift
  npx jest "${args[@]}" --runInBand --forceExit --json --outputFile=".stack/jest-results-$name.json" "$@" 2> >(tee ".stack/jest-stderr-$name.log" >&2)
}
# the tiers that need no service (unit, data: CPU-bound) run in a Jest process of their own beside the
# ones that mostly wait on PostgreSQL, Kafka and the services they start (int, e2e), unless paths are
# given or TEST_SERIAL=1; each process runs its suites one at a time
pure=()
stacked=()
for t in "${jest_tiers[@]}"; do
  case $t in unit|data) pure+=("$t") ;; *) stacked+=("$t") ;; esac
done
browser_results=.stack/browser/results.json
browser_log=.stack/browser-output.log
rm -f "$browser_results" "$browser_log" .stack/browser.rc
# the browser tier: Playwright with the system Chromium; its exit code in .stack/browser.rc. Beside the
# stacked Jest tier its output goes to $browser_log (printed once everything ended), else to stderr
run_browser() {
  local out=$1
  shift
  local pw=1
  if chromium="$(bash scripts/ensure-chromium.sh)"; then
    export CHROMIUM_PATH="$chromium"
    echo "browser tier: Playwright with $chromium" >&2
    # the JSON report is written by the config's json reporter (the list reporter prints progress)
    if [ "$out" = stderr ]; then
      npx playwright test -c test/browser/playwright.config.ts "$@" >&2
    else
      npx playwright test -c test/browser/playwright.config.ts "$@" >"$out" 2>&1
    fi
    pw=$?
  else
    echo "browser tier: no Chromium (see above)" >&2
  fi
  echo "$pw" >.stack/browser.rc
}
jest_runs=()
browser_done=0
if [ "${#pure[@]}" -gt 0 ] && [ "${#stacked[@]}" -gt 0 ] && [ $# -eq 0 ] && [ "${TEST_SERIAL:-0}" != 1 ]; then
  # the browser tier (its own database, topics and ports) starts when the pure tiers end, beside the
  # stacked one, unless TEST_BROWSER_BESIDE=0: the machine's second core is not left idle
  beside=0
  [ "$browser" = 1 ] && [ "${TEST_BROWSER_BESIDE:-1}" = 1 ] && beside=1
  (
    run_jest pure "${pure[@]}"
    rc=$?
    [ "$beside" = 1 ] && run_browser "$browser_log"
    exit $rc
  ) &
  pure_pid=$!
  run_jest stacked "${stacked[@]}"
  code=$?
  wait "$pure_pid" || code=1
  jest_runs=(pure stacked)
  if [ "$beside" = 1 ]; then
    browser_done=1
    echo "browser tier (run beside the stacked tier):" >&2
    cat "$browser_log" >&2 2>/dev/null
  fi
elif [ "${#jest_tiers[@]}" -gt 0 ]; then
  run_jest all "${jest_tiers[@]}" -- "$@"
  code=$?
  jest_runs=(all)
fi

if [ "$browser" = 1 ]; then
  if [ "$browser_done" = 0 ]; then
    pw_args=()
    [ "${#jest_tiers[@]}" -eq 0 ] && pw_args=("$@")
    run_browser stderr "${pw_args[@]}"
  fi
  [ "$(cat .stack/browser.rc 2>/dev/null)" = 0 ] || code=1
fi

node -e '
  const fs = require("fs");
  const [jestRuns, pwFile, pwRan] = process.argv.slice(1);
  let passed = 0, failed = 0;
  for (const name of jestRuns.split(" ").filter(Boolean)) {
    const jestFile = `.stack/jest-results-${name}.json`;
    const jestLog = `.stack/jest-stderr-${name}.log`;
    try {
      const r = JSON.parse(fs.readFileSync(jestFile, "utf8"));
      const failedSuites = (r.testResults || []).filter((s) => s.status === "failed" && (s.assertionResults || []).length === 0).length;
      passed += r.numPassedTests;
      failed += r.numFailedTests + failedSuites;
    } catch {
      // no JSON: the last "Tests:" and "Test Suites:" lines Jest printed (a suite that failed to run adds one)
      const log = fs.existsSync(jestLog) ? fs.readFileSync(jestLog, "utf8").replace(/\x1b\[[0-9;]*m/g, "") : "";
      const tests = [...log.matchAll(/^Tests:\s+(.*)$/gm)].pop();
      const suites = [...log.matchAll(/^Test Suites:\s+(.*)$/gm)].pop();
      const n = (line, word) => Number((line && new RegExp(`(\\d+) ${word}`).exec(line[1]) || [0, 0])[1]);
      if (tests) {
        passed += n(tests, "passed");
        // no JSON is itself a failure, even when Jest counted none
        failed += Math.max(n(tests, "failed"), n(suites, "failed"), 1);
      } else failed += 1;
    }
  }
  if (pwRan === "1") {
    // a run that could not start (no Chromium, a failed global setup, no report) counts as 1 failed
    try {
      const r = JSON.parse(fs.readFileSync(pwFile, "utf8"));
      const s = r.stats || {};
      const p = (s.expected || 0) + (s.flaky || 0);
      let f = (s.unexpected || 0) + (s.skipped || 0);
      if (f === 0 && ((r.errors || []).length > 0 || p === 0)) f = 1;
      passed += p;
      failed += f;
    } catch { failed += 1; }
  }
  console.log(`tests: ${passed} passed, ${failed} failed`);
' "${jest_runs[*]}" "$browser_results" "$browser"
exit $code
