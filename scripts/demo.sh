#!/usr/bin/env bash
# The main job (`npm run demo`): on a fresh machine, installs the npm packages from the lock file if
# missing, starts PostgreSQL and Kafka (scripts/stack.sh), builds, starts the ledger API, the outbox
# relay and the projector, then runs scripts/demo.ts (simulated shoes on three tables, each void and
# correction requested by pit manager pm-1 and approved by pm-2 with their own token, and a slice of
# the recorded third-party hands, through the HTTP API), prints the reconciliation, the decisions
# and the anchor verification (scripts/verify.ts, when present), and stops what
# it started. `--keep-running` leaves the services up for exploration (stop: npm run demo:stop) and
# prints the back-office console's address ($LEDGER_API/console) with a pit-manager token to sign in.
#
# Before anything starts or is built (a refusal takes a moment, names what to change and exits 1;
# a bad option exits 2 with the usage): the options are checked; the demo's lock
# (<STACK_DIR>/demo.lock) is taken, so a second demo started while one is building or running is
# refused at once with the pid of the one that holds it (released when this script exits); a demo
# still running (one left up with --keep-running) is left alone unless --replace says to stop it; every port the services need
# (PORT, RELAY_HTTP_PORT, PROJECTOR_HTTP_PORT) must be free.
#   env PORT [3000]  RELAY_HTTP_PORT [3001]  PROJECTOR_HTTP_PORT [3002]  LEDGER_ENV [development]
#   DATABASE_URL [postgres://ledger_app:ledger_app@127.0.0.1:5432/ledger]
#   (the API's role; the relay, the projector and the migrations use the same database as ledger_relay,
#   ledger_projector, ledger_owner)  STACK_DIR [<repo>/.stack; a relative one is read from the current
#   folder, as scripts/stack.sh reads it] (pid files, logs/, demo.lock)
set -euo pipefail
DEMO_CALLER_PWD=$PWD
cd "$(dirname "$0")/.."
# shellcheck source=scripts/demo-common.sh
source scripts/demo-common.sh
say() { printf '\033[1m[demo]\033[0m %s\n' "$*" >&2; }

usage() {
  cat <<'USAGE'
usage: npm run demo -- [options]      (or: bash scripts/demo.sh [options])

Builds and starts the ledger API, the outbox relay and the projector (PostgreSQL and Kafka through
scripts/stack.sh), deals simulated shoes and recorded hands through the API, prints the
reconciliation, the decisions and the anchor verification, then stops the services.

options:
  --seed <hex>      seed of the run (printed by every run; pass it back to reproduce the same shoes)
  --shoes <n>       simulated shoes per table, 1..20 [1]
  --hands <n>       recorded third-party hands to replay, 0 = none [300]
  --keep-running    leave the services up for exploration (the console); stop them with npm run demo:stop
  --replace         stop a demo that is still running (one left up with --keep-running) and run this one;
                    without it, the demo refuses to start while another one runs
  -h, --help        this text

environment: PORT [3000] (the API), RELAY_HTTP_PORT [3001], PROJECTOR_HTTP_PORT [3002] (the relay's
and the projector's health listeners), DATABASE_URL, LEDGER_ENV [development]; see README "The two commands".
USAGE
}
# A refused command line: the reason, the usage, exit 2 (nothing was started, built or stopped).
bad_usage() {
  say "$*"
  usage >&2
  exit 2
}

keep=0
replace=0
ts_args=()
while [ $# -gt 0 ]; do
  opt=$1
  value=
  case "$opt" in
    --seed=* | --shoes=* | --hands=*) value=${opt#*=} opt=${opt%%=*} ;;
    --seed | --shoes | --hands)
      [ $# -ge 2 ] || bad_usage "$opt needs a value"
      value=$2
      shift
      ;;
  esac
  case "$opt" in
    -h | --help) usage; exit 0 ;;
    --keep-running) keep=1; ts_args+=(--keep-running) ;;
    --replace) replace=1 ;;
    --seed) [ -n "$value" ] || bad_usage "--seed needs a value"; ts_args+=(--seed "$value") ;;
    --shoes)
      [[ "$value" =~ ^[0-9]+$ ]] && [ "$((10#$value))" -ge 1 ] && [ "$((10#$value))" -le 20 ] || bad_usage "--shoes must be a whole number 1..20, got '$value'"
      ts_args+=(--shoes "$((10#$value))")
      ;;
    --hands)
      [[ "$value" =~ ^[0-9]{1,9}$ ]] || bad_usage "--hands must be a whole number (0 = none), got '$value'"
      ts_args+=(--hands "$((10#$value))")
      ;;
    *) bad_usage "unknown option '$opt'" ;;
  esac
  shift
done

# one demo at a time, from here on (the build included): a second one is refused at once
demo_lock
trap demo_unlock EXIT

# a demo still running (left up with --keep-running): never stopped by surprise
running=()
for name in "${DEMO_SERVICES[@]}"; do
  pid="$(demo_live_pid "$name")"
  if [ -n "$pid" ]; then running+=("$name (pid $pid)"); else rm -f "$DEMO_STATE/$name.pid"; fi
done
if [ ${#running[@]} -gt 0 ]; then
  if [ "$replace" = 0 ]; then
    say "a demo is still running: ${running[*]} (left up with --keep-running?); it was not stopped."
    say "stop it with: npm run demo:stop    or stop it and run this one: npm run demo -- --replace ..."
    exit 1
  fi
  say "--replace: stopping the demo still running: ${running[*]}"
  bash scripts/demo-stop.sh >&2
fi

export LEDGER_ENV=${LEDGER_ENV:-development}
export PORT=${PORT:-3000}
export RELAY_HTTP_PORT=${RELAY_HTTP_PORT:-3001}
export PROJECTOR_HTTP_PORT=${PROJECTOR_HTTP_PORT:-3002}

# every port the services listen on, checked before anything starts: all that are taken, named at once
taken=()
to_set=()
declare -A seen=()
port_check() { # variable, host, what
  local var=$1 host=$2 what=$3 port=${!1}
  if ! [[ "$port" =~ ^[0-9]{1,5}$ ]] || [ "$((10#$port))" -lt 1 ] || [ "$((10#$port))" -gt 65535 ]; then
    taken+=("$var=$port is not a port number 1..65535 ($what)")
  elif [ -n "${seen[$port]:-}" ]; then
    taken+=("$var=$port is ${seen[$port]}'s port too ($what)")
  elif (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
    taken+=("port $port ($var, $what) is taken by another program")
  else
    seen[$port]=$var
    return
  fi
  to_set+=("$var=<free port>")
}
port_check PORT "${HOST:-127.0.0.1}" "the ledger API"
port_check RELAY_HTTP_PORT "${RELAY_HTTP_HOST:-127.0.0.1}" "the relay's health and metrics listener"
port_check PROJECTOR_HTTP_PORT "${PROJECTOR_HTTP_HOST:-127.0.0.1}" "the projector's health and metrics listener"
if [ ${#taken[@]} -gt 0 ]; then
  for t in "${taken[@]}"; do say "$t"; done
  say "nothing was started; run again with: ${to_set[*]} npm run demo"
  exit 1
fi

if [ ! -d node_modules ]; then say "installing npm packages from the lock file (npm ci)"; npm ci --no-audit --no-fund >&2; fi
# one broker address for the stack and the services (as scripts/bench.sh): KAFKA_PORT from a local
# KAFKA_BROKERS, or KAFKA_BROKERS from KAFKA_PORT [9092], so a second stack's port reaches the API, relay and projector
if [ -n "${KAFKA_BROKERS:-}" ]; then
  if [ -z "${KAFKA_PORT:-}" ] && [[ "$KAFKA_BROKERS" =~ ^(127\.0\.0\.1|localhost):([0-9]+)$ ]]; then export KAFKA_PORT="${BASH_REMATCH[2]}"; fi
else
  export KAFKA_BROKERS="127.0.0.1:${KAFKA_PORT:-9092}"
fi
if [ -n "${KAFKA_PORT:-}" ]; then export KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-$((KAFKA_PORT + 1))}"; fi
# (Kafka, when stack.sh starts it, outlives this script: it must not hold the demo's lock)
bash scripts/stack.sh up 8>&-
say "building"
npm run -s build >&2

# development mode: the API falls back to the public development secret (with a warning) when JWT_SECRET is unset
export DATABASE_URL=${DATABASE_URL:-postgres://ledger_app:ledger_app@127.0.0.1:5432/ledger}
export LEDGER_API=${LEDGER_API:-http://127.0.0.1:$PORT}
# the whole casino from one address and as fast as it can deal (every simulated device and platform
# on 127.0.0.1): the per-address and per-role rate limits of a real deployment (docs/http-api.md "Limits at
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
logs=$DEMO_STATE/logs
mkdir -p "$logs"
start() { # name
  local name=$1
  nohup env TS_NODE_BASEURL=./dist node "$(demo_heap_of "$name")" -r tsconfig-paths/register "$(demo_main_of "$name")" >"$logs/$name.log" 2>&1 8>&- &
  echo $! >"$DEMO_STATE/$name.pid"
  say "started $name (pid $!, log $logs/$name.log)"
}
for name in "${DEMO_SERVICES[@]}"; do start "$name"; done
# stopped at the end, or at once when one did not come up (even with --keep-running)
up=0
cleanup() {
  [ "$keep" = 1 ] && [ "$up" = 1 ] || bash scripts/demo-stop.sh >&2
  demo_unlock
}
trap cleanup EXIT

# every service answers on its port (or the demo stops with the reason its log gives)
health_url() {
  case "$1" in
    api) echo "$LEDGER_API/health" ;;
    relay) echo "http://${RELAY_HTTP_HOST:-127.0.0.1}:$RELAY_HTTP_PORT/health/live" ;;
    projector) echo "http://${PROJECTOR_HTTP_HOST:-127.0.0.1}:$PROJECTOR_HTTP_PORT/health/live" ;;
  esac
}
for name in "${DEMO_SERVICES[@]}"; do
  url=$(health_url "$name")
  for _ in $(seq 1 120); do
    curl -fs "$url" >/dev/null 2>&1 && break
    if ! kill -0 "$(cat "$DEMO_STATE/$name.pid")" 2>/dev/null; then say "the $name did not start; see $logs/$name.log:"; tail -5 "$logs/$name.log" >&2; exit 1; fi
    sleep 0.5
  done
  curl -fs "$url" >/dev/null || { say "the $name did not answer on $url; see $logs/$name.log"; exit 1; }
done
up=1
say "ledger API up on $LEDGER_API (OpenAPI: $LEDGER_API/docs); relay and projector up"
npx tsx scripts/demo.ts ${ts_args[@]+"${ts_args[@]}"}
if [ "$keep" = 1 ]; then
  say "services keep running (API $LEDGER_API, logs in $logs); stop them with: npm run demo:stop"
  say "the console: $LEDGER_API/console (sign in with the pit-manager token printed above; mint others with: LEDGER_ENV=development npm run -s token -- --role auditor --sub aud-1)"
fi
