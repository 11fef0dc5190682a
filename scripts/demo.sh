#!/usr/bin/env bash
# The main job (`npm run demo`): on a fresh machine, installs the npm packages from the lock file if
# missing, starts PostgreSQL and Kafka (scripts/stack.sh), builds, starts the ledger API, the outbox
# relay and the projector, then runs scripts/demo.ts (simulated shoes on three tables, each void and
# correction requested by pit manager pm-1 and approved by pm-2 with their own token, and a slice of
# the recorded third-party hands, through the HTTP API), prints the reconciliation, the decisions
# and the anchor verification (scripts/verify.ts, when present), and stops what
# it started. `--keep-running` leaves the services up for exploration (stop: npm run demo:stop) and
# prints the back-office console's address ($LEDGER_API/console) with a pit-manager token to sign in.
#   env PORT [3000]  LEDGER_ENV [development]  DATABASE_URL [postgres://ledger_app:ledger_app@127.0.0.1:5432/ledger]
#   (the API's role; the relay, the projector and the migrations use the same database as ledger_relay,
#   ledger_projector, ledger_owner)
set -euo pipefail
cd "$(dirname "$0")/.."
keep=0
for a in "$@"; do [ "$a" = "--keep-running" ] && keep=1; done
say() { printf '\033[1m[demo]\033[0m %s\n' "$*" >&2; }

if [ ! -d node_modules ]; then say "installing npm packages from the lock file (npm ci)"; npm ci --no-audit --no-fund >&2; fi
bash scripts/stack.sh up
say "building"
npm run -s build >&2

# development mode: the API falls back to the public development secret (with a warning) when JWT_SECRET is unset
export LEDGER_ENV=${LEDGER_ENV:-development}
export PORT=${PORT:-3000}
export DATABASE_URL=${DATABASE_URL:-postgres://ledger_app:ledger_app@127.0.0.1:5432/ledger}
export LEDGER_API=${LEDGER_API:-http://127.0.0.1:$PORT}
# the whole casino from one address and as fast as it can deal (every simulated device and platform
# on 127.0.0.1): the per-address and per-role rate limits of a real deployment (README "Limits at
# the edge") would throttle it, so they are lifted here unless set; body limits and heavy-read
# limits stay as configured
export RATE_LIMIT_PER_ADDRESS=${RATE_LIMIT_PER_ADDRESS:-100000000}
export RATE_LIMIT_TABLE_DEVICE=${RATE_LIMIT_TABLE_DEVICE:-100000000}
export RATE_LIMIT_BETTING_PLATFORM=${RATE_LIMIT_BETTING_PLATFORM:-100000000}
export RATE_LIMIT_PIT_MANAGER=${RATE_LIMIT_PIT_MANAGER:-100000000}
export RATE_LIMIT_AUDITOR=${RATE_LIMIT_AUDITOR:-100000000}
# kept running for exploration: the void the demo leaves pending for the console's second manager
# waits a day instead of the default 30 minutes (DECISION_TTL_MS, docs/domain-rules.md §6)
if [ "$keep" = 1 ]; then export DECISION_TTL_MS=${DECISION_TTL_MS:-86400000}; fi
logs=.stack/logs
mkdir -p "$logs"
bash scripts/demo-stop.sh >/dev/null 2>&1 || true
if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  say "port $PORT is taken by another program: set PORT=<free port> and run again"; exit 1
fi
start() { # name, command...
  local name=$1; shift
  nohup "$@" >"$logs/$name.log" 2>&1 &
  echo $! >".stack/$name.pid"
  say "started $name (pid $!, log $logs/$name.log)"
}
start api env TS_NODE_BASEURL=./dist node -r tsconfig-paths/register dist/apps/ledger/src/main.js
start relay env TS_NODE_BASEURL=./dist node -r tsconfig-paths/register dist/apps/relay/src/main.js
start projector env TS_NODE_BASEURL=./dist node -r tsconfig-paths/register dist/apps/projector/src/main.js
cleanup() { [ "$keep" = 1 ] || bash scripts/demo-stop.sh >&2; }
trap cleanup EXIT
for i in $(seq 1 120); do
  curl -fs "$LEDGER_API/health" >/dev/null 2>&1 && break
  if ! kill -0 "$(cat .stack/api.pid)" 2>/dev/null; then say "the API did not start; see $logs/api.log"; tail -20 "$logs/api.log" >&2; exit 1; fi
  sleep 0.5
done
curl -fs "$LEDGER_API/health" >/dev/null || { say "the API did not answer on $LEDGER_API; see $logs/api.log"; exit 1; }
say "ledger API up on $LEDGER_API (OpenAPI: $LEDGER_API/docs)"
npx tsx scripts/demo.ts "$@"
if [ "$keep" = 1 ]; then
  say "services keep running (API $LEDGER_API, logs in $logs); stop them with: npm run demo:stop"
  say "the console: $LEDGER_API/console (sign in with the pit-manager token printed above; mint others with: LEDGER_ENV=development npm run -s token -- --role auditor --sub aud-1)"
fi
