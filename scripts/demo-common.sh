#!/usr/bin/env bash
# Sourced by scripts/demo.sh and scripts/demo-stop.sh: where the demo keeps its pid files and logs,
# and which of its processes are alive.
#   env STACK_DIR [<repo>/.stack]  (pid files <STACK_DIR>/{api,relay,projector}.pid, logs <STACK_DIR>/logs)

DEMO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEMO_STATE="${STACK_DIR:-$DEMO_ROOT/.stack}"
# relative to the checkout, as scripts/stack.sh reads it
[[ "$DEMO_STATE" = /* ]] || DEMO_STATE="$DEMO_ROOT/$DEMO_STATE"
DEMO_SERVICES=(api relay projector)

# The entry point each service is started from (what its command line names).
demo_main_of() {
  case "$1" in
    api) echo dist/apps/ledger/src/main.js ;;
    relay) echo dist/apps/relay/src/main.js ;;
    projector) echo dist/apps/projector/src/main.js ;;
  esac
}

# True while process $1 runs (an exited one its parent has not reaped yet, a zombie, does not).
demo_pid_runs() {
  kill -0 "$1" 2>/dev/null && [[ "$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null)" != Z ]]
}

# The pid of the demo's service $1 when its pid file names a live process started from the service's
# entry point (a pid the system has since given to another program does not count), else nothing.
demo_live_pid() {
  local f="$DEMO_STATE/$1.pid" pid
  [[ -f "$f" ]] || return 0
  pid="$(cat "$f" 2>/dev/null)"
  [[ "$pid" =~ ^[0-9]+$ ]] && demo_pid_runs "$pid" || return 0
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$(demo_main_of "$1")" && echo "$pid"
  return 0
}
