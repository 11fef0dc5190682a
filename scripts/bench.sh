#!/usr/bin/env bash
# `npm run bench` (docs/development.md, "Benchmarks"): the ledger's performance figures in one run, each against the
# machine's own ceiling doing the same work (PostgreSQL COPY of the same rows with their keys, indexes and
# foreign keys, pgbench commits, a Kafka producer with the relay's own records and headers, ConsumerPerformance),
# and the performance targets (`targets` in latest.json).
# Starts PostgreSQL + Kafka (scripts/stack.sh up), builds dist/, recreates the bench's own database
# (ledger_bench; never ledger nor ledger_test), then runs bench/run.ts, which starts the API, relay
# and projector from dist/ as its child processes (port BENCH_PORT [3901], topics bench.<run>.*,
# read schema bench_read) and stops them when done. Prints a table; full results in
# bench/results/latest.json (fields: bench/results/README.md).
#
#   bash scripts/bench.sh [--quick] [--profile] [--keep-topics] [--only ingest,append,relay,lag,round,audit,significant,rebuild,ceilings]
#   BENCH_QUICK=1 bash scripts/bench.sh      # = --quick: every figure at a small size (CI, < ~4 minutes)
# Needs psql, pgbench, java and javac (the producer ceiling is compiled against the stack's kafka-clients jar).
#
# Addresses: KAFKA_BROKERS [127.0.0.1:$KAFKA_PORT, KAFKA_PORT 9092], BENCH_DATABASE_URL
# [postgres://ledger:ledger@127.0.0.1:5432/ledger_bench], BENCH_PORT [3901]. Every phase and every
# ceiling (the Java producer, Kafka's ProducerPerformance and ConsumerPerformance) uses them. A local
# KAFKA_BROKERS (one 127.0.0.1/localhost broker) names the broker scripts/stack.sh starts or checks
# (KAFKA_PORT, its controller on KAFKA_CONTROLLER_PORT [KAFKA_PORT + 1], STACK_DIR for a second
# stack); the database of BENCH_DATABASE_URL is the one recreated (on its host and port).
# A failing phase or ceiling is recorded in latest.json (`failures`, and its targets 'not measured'
# with the reason); the other figures are still measured and latest.json is still written; the exit
# code is then 1 (0 when everything was measured, whatever the targets' verdicts).
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '[bench] %s\n' "$*" >&2; }
started=$(date +%s)
if [ ! -d node_modules ]; then say "installing npm packages from the lock file (npm ci)"; npm ci --no-audit --no-fund >&2; fi
# one address for the stack and the bench: KAFKA_PORT from a local KAFKA_BROKERS, or KAFKA_BROKERS from KAFKA_PORT
if [ -n "${KAFKA_BROKERS:-}" ]; then
  if [ -z "${KAFKA_PORT:-}" ] && [[ "$KAFKA_BROKERS" =~ ^(127\.0\.0\.1|localhost):([0-9]+)$ ]]; then export KAFKA_PORT="${BASH_REMATCH[2]}"; fi
else
  export KAFKA_BROKERS="127.0.0.1:${KAFKA_PORT:-9092}"
fi
if [ -n "${KAFKA_PORT:-}" ]; then export KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-$((KAFKA_PORT + 1))}"; fi
export BENCH_DATABASE_URL="${BENCH_DATABASE_URL:-postgres://ledger:ledger@127.0.0.1:5432/ledger_bench}"
# the bench database's name, host and port, for the stack's fresh-test-db
read -r bench_db bench_pghost bench_pgport < <(node -e 'const u = new URL(process.argv[1]); console.log(decodeURIComponent(u.pathname.slice(1)) || "ledger_bench", u.hostname || "127.0.0.1", u.port || "5432")' "$BENCH_DATABASE_URL")
say "Kafka $KAFKA_BROKERS, database $bench_db on $bench_pghost:$bench_pgport, API port ${BENCH_PORT:-3901}"
PGHOST="$bench_pghost" PGPORT="$bench_pgport" bash scripts/stack.sh up
say "building dist/"
npm run -s build >&2
PGHOST="$bench_pghost" PGPORT="$bench_pgport" TEST_DB_NAME="$bench_db" bash scripts/stack.sh fresh-test-db
# development mode: the bench's API, relay and projector and its client use the development secret
export LEDGER_ENV=${LEDGER_ENV:-development}
# the whole casino from one address and as fast as it can deal (every simulated device and platform
# on 127.0.0.1): the per-address and per-role rate limits of a real deployment (docs/http-api.md "Limits at
# the edge") would throttle it, so they are lifted here unless set; body limits and heavy-read
# limits stay as configured
export RATE_LIMIT_PER_ADDRESS=${RATE_LIMIT_PER_ADDRESS:-100000000}
export RATE_LIMIT_TABLE_DEVICE=${RATE_LIMIT_TABLE_DEVICE:-100000000}
export RATE_LIMIT_BETTING_PLATFORM=${RATE_LIMIT_BETTING_PLATFORM:-100000000}
export RATE_LIMIT_PIT_MANAGER=${RATE_LIMIT_PIT_MANAGER:-100000000}
export RATE_LIMIT_AUDITOR=${RATE_LIMIT_AUDITOR:-100000000}
code=0
npx --no-install tsx bench/run.ts "$@" || code=$?
say "done in $(( $(date +%s) - started )) s (exit $code)"
exit $code
