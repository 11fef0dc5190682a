#!/usr/bin/env bash
# Stops the API, relay and projector that `npm run demo` started (Kafka and PostgreSQL stay up;
# `npm run stack:down` stops Kafka).
cd "$(dirname "$0")/.."
for name in projector relay api; do
  f=.stack/$name.pid
  [ -f "$f" ] || continue
  pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null; then
    pkill -TERM -P "$pid" 2>/dev/null; kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null; pkill -KILL -P "$pid" 2>/dev/null
    echo "[demo] stopped $name" >&2
  fi
  rm -f "$f"
done
