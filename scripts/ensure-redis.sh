#!/usr/bin/env bash
# Finds the redis-server the specs of the shared limits start on a port of their own
# (test/support/redis-server.ts; docs/architecture.md §10) and prints its path on stdout; quick and
# idempotent when it is there. Looks at REDIS_SERVER, then redis-server on PATH and /usr/bin. When
# none is found and this runs as root on Debian (CI), it installs the distribution's package
# (`apt-get update` once, then `apt-get install -y redis-server`; the specs only use the binary, never
# a Redis the machine runs); otherwise it says how to install it and exits 1.
#   bash scripts/ensure-redis.sh        # prints e.g. /usr/bin/redis-server
set -euo pipefail
say() { printf '[ensure-redis] %s\n' "$*" >&2; }

works() { [[ -n "$1" && -x "$1" ]] && "$1" --version >/dev/null 2>&1; }

find_redis() {
  local c
  if [[ -n "${REDIS_SERVER:-}" ]]; then
    works "$REDIS_SERVER" && { echo "$REDIS_SERVER"; return 0; }
    say "REDIS_SERVER=$REDIS_SERVER is not a working redis-server"
    return 1
  fi
  for c in "$(command -v redis-server 2>/dev/null || true)" /usr/bin/redis-server; do
    works "$c" && { echo "$c"; return 0; }
  done
  return 1
}

if path="$(find_redis)"; then
  echo "$path"
  exit 0
fi
[[ -z "${REDIS_SERVER:-}" ]] || exit 1

if [[ "$(id -u)" == 0 && -f /etc/debian_version ]] && command -v apt-get >/dev/null; then
  say "redis-server not found; installing the Debian package (apt-get update, apt-get install -y redis-server)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 || { say "apt-get update failed"; exit 1; }
  apt-get install -y -qq redis-server >&2 || { say "apt-get install -y redis-server failed"; exit 1; }
  if path="$(find_redis)"; then
    say "installed $("$path" --version 2>/dev/null)"
    echo "$path"
    exit 0
  fi
  say "redis-server was installed but no working binary was found"
  exit 1
fi

say "redis-server not found (looked at redis-server on PATH and /usr/bin/redis-server)."
say "Install it (Debian/Ubuntu: sudo apt-get install -y redis-server) or set REDIS_SERVER to a redis-server binary."
exit 1
