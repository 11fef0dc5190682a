#!/usr/bin/env bash
# Stops the API, relay and projector that `npm run demo` started (Kafka and PostgreSQL stay up;
# `npm run stack:down` stops Kafka). Only processes its pid files name and that run the service's
# entry point are signalled; stale pid files are removed.
#   env STACK_DIR [<repo>/.stack; a relative one is read from the current folder]
DEMO_CALLER_PWD=$PWD
cd "$(dirname "$0")/.."
# shellcheck source=scripts/demo-common.sh
source scripts/demo-common.sh
for name in projector relay api; do
  pid="$(demo_live_pid "$name")"
  if [ -n "$pid" ]; then
    pkill -TERM -P "$pid" 2>/dev/null; kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 50); do demo_pid_runs "$pid" || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null; pkill -KILL -P "$pid" 2>/dev/null
    echo "[demo] stopped $name" >&2
  fi
  rm -f "$DEMO_STATE/$name.pid"
done
