#!/usr/bin/env bash
# Sourced by scripts/demo.sh and scripts/demo-stop.sh: where the demo keeps its pid files, logs and
# lock, and which of its processes are alive.
#   env STACK_DIR [<repo>/.stack]  (pid files <STACK_DIR>/{api,relay,projector}.pid, logs <STACK_DIR>/logs,
#   lock <STACK_DIR>/demo.lock). A relative STACK_DIR is read from the folder the command was started
#   in, as scripts/stack.sh reads it: the caller sets DEMO_CALLER_PWD before changing to the checkout;
#   STACK_DIR is exported absolute, so scripts/stack.sh started from the checkout finds the same folder.

DEMO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEMO_STATE="${STACK_DIR:-$DEMO_ROOT/.stack}"
[[ "$DEMO_STATE" = /* ]] || DEMO_STATE="${DEMO_CALLER_PWD:-$PWD}/$DEMO_STATE"
export STACK_DIR="$DEMO_STATE"
DEMO_SERVICES=(api relay projector)
DEMO_LOCK="$DEMO_STATE/demo.lock"

# Takes the demo's lock (flock on $DEMO_LOCK, file descriptor 8, held until this shell exits; the
# file names the holder's pid) or refuses at once, exit 1, naming the demo that holds it: one demo
# at a time from its first step, the build included, not only once its services wrote their pid files.
# Programs that outlive the demo's shell must be started with 8>&- (they would hold the lock on).
demo_lock() {
  local holder
  mkdir -p "$DEMO_STATE"
  exec 8>>"$DEMO_LOCK"
  if ! flock -n 8; then
    holder="$(cat "$DEMO_LOCK" 2>/dev/null)"
    printf '\033[1m[demo]\033[0m another demo is starting or running (pid %s, lock %s); nothing was started or stopped.\n' "${holder:-unknown}" "$DEMO_LOCK" >&2
    printf '\033[1m[demo]\033[0m wait for it to end, or stop it (Ctrl-C in its terminal, or: kill %s; --replace stops only a demo left running with --keep-running)\n' "${holder:-<its pid>}" >&2
    exit 1
  fi
  echo "$$" >"$DEMO_LOCK"
}

# Releases the lock taken by demo_lock (also released when the shell exits).
demo_unlock() {
  { : >"$DEMO_LOCK"; } 2>/dev/null || true
  flock -u 8 2>/dev/null || true
}

# The entry point each service is started from (what its command line names).
# The node heap option of service $1 (SERVICE_HEAP_MIB, libs/config/src/heap.ts).
demo_heap_of() {
  case "$1" in
    api) echo --max-old-space-size=512 ;;
    relay) echo --max-old-space-size=160 ;;
    projector) echo --max-old-space-size=160 ;;
  esac
}

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
