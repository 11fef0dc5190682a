#!/usr/bin/env bash
# Local infrastructure for the ledger: PostgreSQL (the machine's service) and a single-node Kafka 4.x
# (KRaft, combined broker+controller) run from the Maven Central artifacts. No Docker needed. The
# production shape (three brokers, a PostgreSQL standby, several instances) is `npm run cluster`.
#
#   bash scripts/stack.sh up       start what is down, create roles/databases/topics (idempotent)
#   bash scripts/stack.sh down     stop Kafka (SIGTERM, then SIGKILL after KAFKA_STOP_TIMEOUT s); PostgreSQL stays up
#   bash scripts/stack.sh status   print what is up; exit 0 when everything is, 3 otherwise
#   bash scripts/stack.sh reset    down + delete Kafka's data + drop and recreate the databases
#   bash scripts/stack.sh fresh-test-db   drop and recreate ledger_test (npm test does this before each run)
#   bash scripts/stack.sh fetch    only fetch the Kafka jars into <STACK_DIR>/kafka/libs (the cluster's brokers run from them)
#
# PostgreSQL roles (scripts/database-roles.sql; docs/operations.md "Database roles"; docs/architecture.md §10):
# ledger_owner owns the databases and runs the migrations; the API, relay and projector log in as
# ledger_app, ledger_relay and ledger_projector, which own nothing. The login `ledger` of older
# checkouts stays, as a member of ledger_owner; databases it created are handed to ledger_owner.
#
# Environment (defaults in brackets):
#   PGHOST [127.0.0.1]  PGPORT [5432]  PG_ADMIN_USER [postgres]
#   KAFKA_PORT [9092]  KAFKA_CONTROLLER_PORT [9093]  KAFKA_CLUSTER_ID [fixed]  KAFKA_HEAP_OPTS [-Xms256m -Xmx512m]
#   KAFKA_READY_TIMEOUT_MS [60000]  KAFKA_STOP_TIMEOUT [30]  STACK_DIR [<repo>/.stack; a relative one is read from the current folder]
#
# Files (all under the git-ignored .stack/kafka/): libs/ (jars, with .fetched marker, written only once Maven delivered the broker jars), data/ (KRaft log dir),
# server.properties, log4j2.properties, kafka.log (broker log), kafka.out (JVM stdout/stderr), kafka.pid,
# maven.log (last fetch).
# Progress goes to stderr; `status` prints to stdout.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STACK_DIR="${STACK_DIR:-$ROOT/.stack}"
# Absolute from here on: Maven reads a relative -DoutputDirectory against the pom's folder, not ours.
[[ "$STACK_DIR" == /* ]] || STACK_DIR="$PWD/$STACK_DIR"
KAFKA_DIR="$STACK_DIR/kafka"
KAFKA_LIBS="$KAFKA_DIR/libs"
KAFKA_DATA="$KAFKA_DIR/data"
KAFKA_PROPS="$KAFKA_DIR/server.properties"
KAFKA_LOG4J="$KAFKA_DIR/log4j2.properties"
KAFKA_LOG="$KAFKA_DIR/kafka.log"
KAFKA_OUT="$KAFKA_DIR/kafka.out"
KAFKA_PID="$KAFKA_DIR/kafka.pid"
KAFKA_POM="$ROOT/scripts/kafka/pom.xml"
FETCH_MARKER="$KAFKA_LIBS/.fetched"

export PGHOST="${PGHOST:-127.0.0.1}"
export PGPORT="${PGPORT:-5432}"
PG_ADMIN_USER="${PG_ADMIN_USER:-postgres}"
DB_OWNER=ledger_owner
# The owner alias of older checkouts: what it owns in DATABASES is handed over to DB_OWNER.
DB_OLD_OWNER=ledger
ROLES_SQL="$ROOT/scripts/database-roles.sql"
DATABASES=(ledger ledger_test)

KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
# Any 16 bytes in URL-safe base64; fixed, so that a reformatted data folder keeps its cluster id.
KAFKA_CLUSTER_ID="${KAFKA_CLUSTER_ID:-SLfaun8JQKi9UNmvYkNvDw}"
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"
KAFKA_STOP_TIMEOUT="${KAFKA_STOP_TIMEOUT:-30}"
# The TypeScript helpers talk to the broker this script manages, whatever KAFKA_BROKERS the caller has.
export KAFKA_BROKERS="127.0.0.1:$KAFKA_PORT"

log() { printf '[stack] %s\n' "$*" >&2; }
die() { printf '[stack] ERROR: %s\n' "$*" >&2; exit 1; }
now_ms() { local t="${EPOCHREALTIME//[.,]/}"; echo $((t / 1000)); }
secs_since() { local d=$(($(now_ms) - $1)); printf '%d.%01d' $((d / 1000)) $((d % 1000 / 100)); }
need() { command -v "$1" >/dev/null 2>&1 || die "'$1' not found on PATH ($2)"; }

# ---------------------------------------------------------------------------------------------- PostgreSQL

pg_up() { pg_isready -q -h "$PGHOST" -p "$PGPORT" >/dev/null 2>&1; }

# psql as the admin role on the maintenance database; -X ignores ~/.psqlrc.
pg_admin() { psql -X -q -v ON_ERROR_STOP=1 -h "$PGHOST" -p "$PGPORT" -U "$PG_ADMIN_USER" -d postgres "$@"; }

pg_start() {
  if pg_up; then
    log "PostgreSQL: accepting connections on $PGHOST:$PGPORT"
    return
  fi
  need pg_ctlcluster "PostgreSQL server tools"
  local version
  version="$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n1)"
  [[ -n "$version" ]] || die "PostgreSQL is not answering on $PGHOST:$PGPORT and no cluster is in /etc/postgresql"
  log "PostgreSQL: not answering on $PGHOST:$PGPORT; starting cluster $version/main"
  pg_ctlcluster --skip-systemctl-redirect "$version" main start ||
    log "PostgreSQL: pg_ctlcluster returned an error (already running?); waiting for it anyway"
  local i
  for i in $(seq 1 60); do
    pg_up && { log "PostgreSQL: accepting connections"; return; }
    sleep 0.5
  done
  die "PostgreSQL did not accept connections on $PGHOST:$PGPORT within 30 s"
}

# Creates the roles (idempotent; a run that finds them only re-asserts their attributes).
pg_ensure_roles() {
  pg_admin -f "$ROLES_SQL" || die "could not create the database roles ($ROLES_SQL)"
}

# Hands a database created by an older checkout (owner $DB_OLD_OWNER) and what $DB_OLD_OWNER owns in
# it (schemas, tables with their indexes and sequences, views, functions) to $DB_OWNER, so the
# migrations, run as $DB_OWNER, may grant on them. Not REASSIGN OWNED: that would also hand over every
# other database $DB_OLD_OWNER owns on this server (another checkout's test databases). Idempotent.
pg_hand_over_database() {
  local db=$1
  psql -X -q -v ON_ERROR_STOP=1 -h "$PGHOST" -p "$PGPORT" -U "$PG_ADMIN_USER" -d "$db" <<SQL
DO \$\$
DECLARE
  old regrole := '$DB_OLD_OWNER'::regrole;
  r record;
BEGIN
  IF (SELECT datdba FROM pg_database WHERE datname = current_database()) <> '$DB_OWNER'::regrole THEN
    EXECUTE format('ALTER DATABASE %I OWNER TO $DB_OWNER', current_database());
  END IF;
  FOR r IN SELECT nspname FROM pg_namespace WHERE nspowner = old LOOP
    EXECUTE format('ALTER SCHEMA %I OWNER TO $DB_OWNER', r.nspname);
  END LOOP;
  -- tables carry their indexes and owned sequences along; those sequences cannot be altered alone
  FOR r IN SELECT c.oid::regclass AS obj,
                  CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'S' THEN 'SEQUENCE'
                                 WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END AS kind
             FROM pg_class c
            WHERE c.relowner = old AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
              AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
                                                    AND d.objid = c.oid AND d.deptype IN ('a', 'i'))) LOOP
    EXECUTE format('ALTER %s %s OWNER TO $DB_OWNER', r.kind, r.obj);
  END LOOP;
  FOR r IN SELECT p.oid::regprocedure AS fn FROM pg_proc p WHERE p.proowner = old LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO $DB_OWNER', r.fn);
  END LOOP;
END
\$\$;
SQL
}

pg_ensure_role_and_databases() {
  pg_ensure_roles
  local db owner
  for db in "${DATABASES[@]}"; do
    owner="$(pg_admin -tAc "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = '$db'")"
    if [[ -z "$owner" ]]; then
      pg_admin -c "CREATE DATABASE $db OWNER $DB_OWNER"
      log "PostgreSQL: created database $db (owner $DB_OWNER)"
    else
      [[ "$owner" == "$DB_OWNER" ]] || log "PostgreSQL: database $db belongs to $owner (an older checkout's); handing it to $DB_OWNER"
      pg_hand_over_database "$db" || die "could not hand database $db over to $DB_OWNER"
    fi
  done
  log "PostgreSQL: roles $DB_OWNER, ledger_app, ledger_relay, ledger_projector and databases ${DATABASES[*]} (owner $DB_OWNER) present"
}

pg_recreate_databases() {
  local db
  for db in "${DATABASES[@]}"; do
    pg_admin -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"
    log "PostgreSQL: dropped database $db"
  done
  pg_ensure_role_and_databases
}

# --------------------------------------------------------------------------------------------------- Kafka

pom_kafka_version() {
  sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$KAFKA_POM" | head -n1
}

# The marker records the Kafka version and the pom's checksum: any change to the pom re-fetches.
fetch_marker_content() {
  printf 'kafka.version=%s\npom.sha256=%s\n' "$(pom_kafka_version)" "$(sha256sum "$KAFKA_POM" | cut -d' ' -f1)"
}

# True when folder $1 holds the broker's jar (kafka_2.13-<version>.jar) of the pom's version and its
# client jar: a fetch that left anything less is no fetch.
kafka_jars_complete() {
  local v
  v="$(pom_kafka_version)"
  [[ -n "$v" && -f "$1/kafka_2.13-$v.jar" && -f "$1/kafka-clients-$v.jar" ]]
}

# The Kafka jars of scripts/kafka/pom.xml into $KAFKA_LIBS, once: the marker is written only when
# Maven delivered the broker's jars, and a marker without them (an older fetch that got none) is no
# reason to skip the fetch.
kafka_fetch() {
  if [[ -f "$FETCH_MARKER" && "$(cat "$FETCH_MARKER")" == "$(fetch_marker_content)" ]] && kafka_jars_complete "$KAFKA_LIBS"; then
    log "Kafka: jars for $(pom_kafka_version) already in ${KAFKA_LIBS#"$ROOT"/}"
    return
  fi
  need mvn "Maven 3"
  log "Kafka: fetching org.apache.kafka:kafka_2.13:$(pom_kafka_version) and its runtime dependencies with Maven"
  local t0 tmp
  t0="$(now_ms)"
  mkdir -p "$KAFKA_DIR"
  tmp="$(mktemp -d "$KAFKA_DIR/libs.tmp.XXXXXX")"
  # Into a temporary folder first: an interrupted fetch never leaves a half set of jars behind the marker.
  # Maven's output is shown only on failure (with -q it prints nothing useful on success, only colour codes).
  if ! mvn -q -B -f "$KAFKA_POM" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$tmp" >"$KAFKA_DIR/maven.log" 2>&1; then
    sed 's/\x1b\[[0-9;]*m//g' "$KAFKA_DIR/maven.log" | tail -n 40 >&2
    rm -rf "$tmp"
    die "Maven could not fetch the Kafka jars (output above, in full in ${KAFKA_DIR#"$ROOT"/}/maven.log)"
  fi
  if ! kafka_jars_complete "$tmp"; then
    local got
    got="$(find "$tmp" -maxdepth 1 -name '*.jar' | wc -l)"
    rm -rf "$tmp"
    die "Maven ended without error but delivered $got jars, not kafka_2.13-$(pom_kafka_version).jar and" \
      "kafka-clients-$(pom_kafka_version).jar; nothing was marked as fetched (Maven's output: ${KAFKA_DIR#"$ROOT"/}/maven.log)"
  fi
  rm -rf "$KAFKA_LIBS"
  mv "$tmp" "$KAFKA_LIBS"
  fetch_marker_content >"$FETCH_MARKER"
  log "Kafka: fetched $(ls "$KAFKA_LIBS" | wc -l) jars in $(secs_since "$t0") s"
}

kafka_pid() { [[ -f "$KAFKA_PID" ]] && cat "$KAFKA_PID" || true; }

# True when the pid file names a live process that is our broker (guards against a recycled pid).
kafka_alive() {
  local pid
  pid="$(kafka_pid)"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null &&
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "kafka.Kafka $KAFKA_PROPS"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

kafka_write_config() {
  mkdir -p "$KAFKA_DATA"
  cat >"$KAFKA_PROPS" <<EOF
# Written by scripts/stack.sh on every start; edit the script, not this file.
# Single-node KRaft: one process is both the broker and the (only) controller.
process.roles=broker,controller
node.id=1
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.quorum.bootstrap.servers=127.0.0.1:$KAFKA_CONTROLLER_PORT
log.dirs=$KAFKA_DATA

# One broker: every internal topic has one replica.
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
default.replication.factor=1
group.initial.rebalance.delay.ms=0

# Topics are declared (libs/infra/src/kafka/topics.ts) and created by scripts/create-topics.ts, never by accident.
num.partitions=1
auto.create.topics.enable=false

# The event topic is a replayable copy of the ledger: keep everything.
log.retention.ms=-1
log.retention.bytes=-1
EOF
  cat >"$KAFKA_LOG4J" <<EOF
# Written by scripts/stack.sh. The broker logs INFO to $KAFKA_LOG, nothing to the console.
status = warn
name = kafka-stack
appender.file.type = RollingFile
appender.file.name = file
appender.file.fileName = $KAFKA_LOG
appender.file.filePattern = $KAFKA_LOG.%i
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
appender.file.policies.type = Policies
appender.file.policies.size.type = SizeBasedTriggeringPolicy
appender.file.policies.size.size = 50MB
appender.file.strategy.type = DefaultRolloverStrategy
appender.file.strategy.max = 2
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
# One line per request at DEBUG; keep it quiet.
logger.request.name = kafka.request.logger
logger.request.level = WARN
EOF
}

# The JVM command line, as an array (the class path's '*' must reach java unexpanded).
java_cmd() {
  local heap
  read -r -a heap <<<"$KAFKA_HEAP_OPTS"
  JAVA_CMD=(java "${heap[@]}" -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true
    "-Dlog4j2.configurationFile=$KAFKA_LOG4J" -cp "$KAFKA_LIBS/*")
}

kafka_format_once() {
  if [[ -f "$KAFKA_DATA/meta.properties" ]]; then
    log "Kafka: storage already formatted ($(grep '^cluster.id=' "$KAFKA_DATA/meta.properties" | cut -d= -f2))"
    return
  fi
  log "Kafka: formatting KRaft storage in ${KAFKA_DATA#"$ROOT"/} (cluster id $KAFKA_CLUSTER_ID)"
  java_cmd
  "${JAVA_CMD[@]}" kafka.tools.StorageTool format --standalone -t "$KAFKA_CLUSTER_ID" -c "$KAFKA_PROPS" \
    >>"$KAFKA_OUT" 2>&1 || { tail -n 20 "$KAFKA_OUT" >&2; die "Kafka storage format failed"; }
}

kafka_wait_ready() {
  local since="$1" pid
  pid="$(kafka_pid)"
  (cd "$ROOT" && npx --no-install tsx scripts/kafka-ready.ts --since "$since" \
    ${pid:+--pid "$pid"} --log "$KAFKA_OUT" --log "$KAFKA_LOG") ||
    die "Kafka did not become ready (logs: ${KAFKA_LOG#"$ROOT"/}, ${KAFKA_OUT#"$ROOT"/})"
}

kafka_start() {
  need java "Java 17"
  if kafka_alive; then
    if port_open "$KAFKA_PORT"; then
      log "Kafka: already running (pid $(kafka_pid)) on 127.0.0.1:$KAFKA_PORT"
      local running
      running="$(sed -n 's/^kafka.version=//p' "$FETCH_MARKER" 2>/dev/null || true)"
      [[ "$running" == "$(pom_kafka_version)" ]] ||
        log "Kafka: WARNING: running jars are $running but scripts/kafka/pom.xml says $(pom_kafka_version); run down then up"
      return
    fi
    log "Kafka: process $(kafka_pid) alive but port $KAFKA_PORT not answering yet; waiting for it"
    kafka_wait_ready "$(now_ms)"
    return
  fi
  rm -f "$KAFKA_PID"
  if port_open "$KAFKA_PORT" || port_open "$KAFKA_CONTROLLER_PORT"; then
    # Another checkout's broker (a developer with two clones): if a Kafka broker answers there, use
    # it rather than fail; this checkout's `down` leaves it alone. Anything else on the port is an error.
    if port_open "$KAFKA_PORT" && (cd "$ROOT" && KAFKA_READY_TIMEOUT_MS=10000 npx --no-install tsx scripts/kafka-ready.ts >/dev/null 2>&1); then
      log "Kafka: WARNING: a broker this checkout did not start already answers on 127.0.0.1:$KAFKA_PORT; using it (stop it, or set KAFKA_PORT/KAFKA_CONTROLLER_PORT, to run this checkout's own)"
      return
    fi
    die "port $KAFKA_PORT or $KAFKA_CONTROLLER_PORT is taken by a process this script did not start" \
      "and no Kafka broker answers there; stop it or set KAFKA_PORT/KAFKA_CONTROLLER_PORT"
  fi

  kafka_fetch
  kafka_write_config
  kafka_format_once

  log "Kafka: starting broker+controller on 127.0.0.1:$KAFKA_PORT (controller :$KAFKA_CONTROLLER_PORT), heap $KAFKA_HEAP_OPTS"
  local t0
  t0="$(now_ms)"
  printf '\n===== %s stack.sh starting kafka.Kafka =====\n' "$(date -Is)" >>"$KAFKA_OUT"
  # A new session (setsid) so the broker outlives this shell and its terminal; exec keeps $! = the JVM's pid
  # (a background job of a non-interactive shell is not a group leader, so setsid does not fork).
  # 9>&- : the broker must not inherit the lock on .stack/.lock, or the next `up` would wait for it.
  java_cmd
  (cd "$KAFKA_DIR" && exec setsid nohup "${JAVA_CMD[@]}" kafka.Kafka "$KAFKA_PROPS" </dev/null >>"$KAFKA_OUT" 2>&1 9>&-) &
  echo $! >"$KAFKA_PID"
  log "Kafka: pid $(kafka_pid); waiting for a metadata answer (timeout ${KAFKA_READY_TIMEOUT_MS:-60000} ms)"
  kafka_wait_ready "$t0"
}

kafka_stop() {
  if ! kafka_alive; then
    [[ -f "$KAFKA_PID" ]] && { log "Kafka: stale pid file removed"; rm -f "$KAFKA_PID"; }
    log "Kafka: not running"
    return
  fi
  local pid t0 i
  pid="$(kafka_pid)"
  t0="$(now_ms)"
  log "Kafka: stopping pid $pid (SIGTERM, up to $KAFKA_STOP_TIMEOUT s)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < KAFKA_STOP_TIMEOUT * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "Kafka: still running after $KAFKA_STOP_TIMEOUT s; SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  fi
  rm -f "$KAFKA_PID"
  log "Kafka: stopped in $(secs_since "$t0") s"
}

kafka_topics() {
  (cd "$ROOT" && npx --no-install tsx scripts/create-topics.ts) || die "Kafka topics could not be ensured"
}

# ------------------------------------------------------------------------------------------------ commands

cmd_up() {
  local t0
  t0="$(now_ms)"
  pg_start
  pg_ensure_role_and_databases
  kafka_start
  kafka_topics
  log "up in $(secs_since "$t0") s: PostgreSQL $PGHOST:$PGPORT (databases ${DATABASES[*]}), Kafka $KAFKA_BROKERS"
}

cmd_fetch() { kafka_fetch; }

cmd_down() {
  kafka_stop
  log "PostgreSQL left running (it is the machine's service)"
}

cmd_status() {
  local ok=0
  if pg_up; then
    echo "postgresql: up   $PGHOST:$PGPORT"
  else
    echo "postgresql: down $PGHOST:$PGPORT"
    ok=3
  fi
  if kafka_alive && port_open "$KAFKA_PORT"; then
    echo "kafka:      up   127.0.0.1:$KAFKA_PORT (pid $(kafka_pid), $(sed -n 's/^kafka.version=//p' "$FETCH_MARKER" 2>/dev/null))"
  elif kafka_alive; then
    echo "kafka:      starting (pid $(kafka_pid), port $KAFKA_PORT not answering yet)"
    ok=3
  elif port_open "$KAFKA_PORT"; then
    echo "kafka:      port $KAFKA_PORT answers but not from this stack's broker (no live ${KAFKA_PID#"$ROOT"/})"
    ok=3
  else
    echo "kafka:      down"
    ok=3
  fi
  return "$ok"
}

cmd_reset() {
  kafka_stop
  if [[ -d "$KAFKA_DATA" ]]; then
    rm -rf "$KAFKA_DATA"
    log "Kafka: deleted ${KAFKA_DATA#"$ROOT"/} (formatted again on next up)"
  fi
  pg_start
  pg_recreate_databases
  log "reset done; Kafka is down: run 'bash scripts/stack.sh up'"
}

# A clean test database for each test run: events are append-only, so a run cannot clean up after
# itself, and outbox rows left by an earlier run would name topics a fresh broker does not have.
# TEST_DB_NAME [ledger_test] names it (a second checkout on the same machine may use its own).
cmd_fresh_test_db() {
  local db="${TEST_DB_NAME:-ledger_test}"
  [[ "$db" =~ ^[a-z_][a-z0-9_]*$ && "$db" != ledger ]] || die "TEST_DB_NAME must be a plain lower-case name other than ledger"
  pg_start
  pg_ensure_role_and_databases
  pg_admin -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"
  pg_admin -c "CREATE DATABASE $db OWNER $DB_OWNER"
  log "PostgreSQL: database $db recreated empty (owner $DB_OWNER)"
}

usage() {
  sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

main() {
  [[ $# -eq 1 ]] || usage
  case "$1" in
    up | down | reset | fetch)
      mkdir -p "$STACK_DIR"
      # One stack command at a time per checkout (e.g. a test run and a developer both saying up).
      exec 9>"$STACK_DIR/.lock"
      flock -w 120 9 || die "another stack.sh command holds $STACK_DIR/.lock"
      "cmd_$1"
      ;;
    status) cmd_status ;;
    fresh-test-db) cmd_fresh_test_db ;;
    *) usage ;;
  esac
}

# Sourced (the specs call its functions), it only defines them.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then main "$@"; fi
