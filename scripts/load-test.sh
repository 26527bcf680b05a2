#!/usr/bin/env bash
# wrk load test of `vault serve`: registrations, retrievals, schedule creation
# and a mixed read/write load at 16, 64 and 256 connections, each beside the same server's
# /healthz as the framework's ceiling. Prints requests/s, p50/p99 latency, the server's CPU time
# per request (user + system, from /proc: steadier than req/s when something else shares the
# cores), errors and the ratio to /healthz, then checks the performance targets at 64 connections (>= 5,000 registrations/s,
# >= 15,000 retrievals/s, p99 < 10 ms).
#
# The server runs from a release build on a free loopback port with a fresh database and master
# key in a temporary directory, removed at the end. Everything stays on 127.0.0.1.
#
# Environment:
#   LOAD_DURATION        seconds per run (default 10)
#   LOAD_CONNECTIONS     connection counts (default "16 64 256")
#   LOAD_SCENARIOS       default "register retrieve schedule mixed"
#   LOAD_THREADS         wrk threads (default: number of cores)
#   LOAD_SEED_CARDS      cards registered before the runs, read by retrieve/schedule (default 1000)
#   LOAD_VERIFY          verify registrations with the sandbox gateway: true|false (default false:
#                        the registration target measures validate, encrypt, fingerprint, insert)
#   LOAD_LOG_LEVEL       server log level (default: the shipped config's, info)
#   LOAD_RATE_LIMIT      per-key requests/s (default 0: the limiter off, as one key drives the load)
#   LOAD_SCRATCH_PATH    SwiftPM scratch path for the release build (default .build)
#   VAULT_BIN            use this vault binary instead of building one
#   LOAD_ENFORCE=1       exit 1 when a performance target is missed (default: report only)
#   LOAD_DATABASES       "sqlite" (default) or "sqlite postgres": the same runs on a throwaway
#                        PostgreSQL cluster (scripts/lib/pg-cluster.sh, VAULT_DATABASE_URL) after
#                        SQLite, then `pgbench` on that cluster (an insert-only custom script of a
#                        card-shaped row, the same client count, LOAD_DURATION) as the ceiling:
#                        prints vault registrations/s divided by pgbench inserts/s
#   LOAD_PGBENCH_CONNECTIONS  pgbench clients (default 64)
#   LOAD_PROFILE         a directory: each run also records the server with `perf record -g` (999 Hz)
#                        into DIR/<engine>-<scenario>-<connections>.data, kept after the script ends
# Exit status 1 also when a run saw errors or the server died.
set -euo pipefail
# The vault refuses a database directory or file open to group or others.
umask 077
cd "$(dirname "$0")/.."
ROOT=$PWD

DURATION=${LOAD_DURATION:-10}
CONNECTIONS=${LOAD_CONNECTIONS:-"16 64 256"}
SCENARIOS=${LOAD_SCENARIOS:-"register retrieve schedule mixed"}
THREADS=${LOAD_THREADS:-$(nproc)}
SEED_CARDS=${LOAD_SEED_CARDS:-1000}
export VAULT_LOAD_VERIFY=${LOAD_VERIFY:-false}
export VAULT_LOAD_SEEDED=$SEED_CARDS
export VAULT_LOAD_LUA=$ROOT/scripts/wrk

command -v wrk >/dev/null || scripts/install-deps.sh wrk
command -v curl >/dev/null || scripts/install-deps.sh curl
command -v python3 >/dev/null || scripts/install-deps.sh python3

if [ -z "${VAULT_BIN:-}" ]; then
  scratch=${LOAD_SCRATCH_PATH:-$ROOT/.build}
  echo "== building vault (release)"
  swift build -c release --product vault --scratch-path "$scratch"
  VAULT_BIN=$(swift build -c release --scratch-path "$scratch" --show-bin-path)/vault
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vault-load.XXXXXX")
SERVER_PID=""

DATABASES=${LOAD_DATABASES:-sqlite}
PG_STARTED=""
stop_server() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
}
cleanup() {
  stop_server
  if [ -n "$PG_STARTED" ]; then pg_cluster_stop LOAD; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# start_server DATABASE: a fresh server (new key, new database) on sqlite or postgres; sets BASE,
# VAULT_LOAD_KEY, SERVER_PID; seeds SEED_CARDS cards.
start_server() {
  local database=$1
  local dir=$WORK/$database
  mkdir -p "$dir"
  unset VAULT_DATABASE_URL
  export VAULT_DATABASE=$dir/vault.sqlite VAULT_KEYS_DIR=$dir/keys VAULT_HOST=127.0.0.1 VAULT_PORT=0 VAULT_METRICS_PORT=0
  if [ "$database" = postgres ]; then
    if [ -z "$PG_STARTED" ]; then
      # shellcheck source=lib/pg-cluster.sh
      source "$ROOT/scripts/lib/pg-cluster.sh"
      pg_cluster_start LOAD
      PG_STARTED=1
    fi
    export VAULT_DATABASE_URL=$PG_LOAD_URL
  fi
  # The shipped configuration, with the per-key rate limit off (one key drives all the load: the
  # test measures capacity, not the limiter), the connection cap per client address raised (every
  # load connection comes from one loopback address) and, when asked, another log level.
  config=$dir/vault.yaml
  sed -E -e "s/^(  requestsPerSecond:) *[0-9]+/\1 ${LOAD_RATE_LIMIT:-0}/" \
    -e "s/^(  maxConnectionsPerAddress:) *[0-9]+/\1 4096/" "$ROOT/config/vault.yaml" >"$config"
  if [ -n "${LOAD_LOG_LEVEL:-}" ]; then
    sed -i -E "s/^(  level:) *[a-z]+/\1 $LOAD_LOG_LEVEL/" "$config"
  fi
  "$VAULT_BIN" keys init --config "$config" >/dev/null
  "$VAULT_BIN" serve --config "$config" --dev-merchant load >"$dir/server.out" 2>"$dir/server.log" &
  SERVER_PID=$!

  for _ in $(seq 1 300); do
    grep -q "vault listening on" "$dir/server.out" 2>/dev/null && break
    kill -0 "$SERVER_PID" 2>/dev/null || { echo "load: the server exited:" >&2; tail -20 "$dir/server.log" >&2; exit 1; }
    sleep 0.1
  done
  BASE=$(grep -o "http://[0-9.]*:[0-9]*" "$dir/server.out" | head -1)
  export VAULT_LOAD_KEY=$(grep -o "vk_[A-Za-z0-9_]*" "$dir/server.out" | head -1)
  [ -n "$BASE" ] && [ -n "$VAULT_LOAD_KEY" ] || { echo "load: no address or API key from the server" >&2; cat "$dir/server.out" >&2; exit 1; }
  echo "== server on $BASE (pid $SERVER_PID); seeding $SEED_CARDS cards"

  python3 - "$BASE" "$VAULT_LOAD_KEY" "$SEED_CARDS" <<'PY'
import http.client, json, sys, urllib.parse
base, key, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
url = urllib.parse.urlparse(base)
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
numbers = ["4242424242424242", "5555555555554444", "4111111111111111", "6011111111111117"]
for index in range(count):
    body = {"merchantReference": f"seed-{index}", "method": "keyed", "verify": False,
            "card": {"number": numbers[index % len(numbers)], "expiryDate": "1230", "holderName": "Seed Card"}}
    connection.request("POST", "/v1/secure-cards", json.dumps(body),
                       {"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    response = connection.getresponse()
    text = response.read()
    if response.status != 201:
        sys.exit(f"seeding failed at card {index}: HTTP {response.status} {text[:300]!r}")
PY
}

declare -A RPS P50 P99 ERRORS CPU
TICKS=$(getconf CLK_TCK)
# The server's CPU time so far (user + system), in clock ticks.
server_ticks() { awk '{ print $14 + $15 }' "/proc/$SERVER_PID/stat"; }
run() { # scenario connections
  local scenario=$1 connections=$2 output before after
  export VAULT_LOAD_RUN="$scenario$connections-r$RANDOM$RANDOM"
  local threads=$THREADS
  [ "$threads" -gt "$connections" ] && threads=$connections
  before=$(server_ticks)
  local profiler=""
  if [ -n "${LOAD_PROFILE:-}" ]; then
    mkdir -p "$LOAD_PROFILE"
    perf record -q -g -F 999 -p "$SERVER_PID" -o "$LOAD_PROFILE/$DB-$scenario-$connections.data" -- sleep "$DURATION" 2>/dev/null &
    profiler=$!
  fi
  output=$(wrk -t"$threads" -c"$connections" -d"${DURATION}s" --timeout 5s -s "scripts/wrk/$scenario.lua" "$BASE" 2>&1) || {
    echo "load: wrk failed on $scenario at $connections connections:" >&2
    echo "$output" >&2
    exit 1
  }
  after=$(server_ticks)
  [ -z "$profiler" ] || wait "$profiler" || true
  local line
  line=$(grep "^RESULT" <<<"$output" || true)
  [ -n "$line" ] || { echo "load: no result from wrk for $scenario:" >&2; echo "$output" >&2; exit 1; }
  field() { sed -E "s/.* $1=([0-9.]+).*/\1/" <<<"$line"; }
  local key="$DB/$scenario/$connections"
  RPS[$key]=$(field rps)
  P50[$key]=$(field p50_ms)
  P99[$key]=$(field p99_ms)
  ERRORS[$key]=$(($(field connect) + $(field read) + $(field write) + $(field status) + $(field timeout)))
  CPU[$key]=$(awk -v t="$((after - before))" -v hz="$TICKS" -v n="$(field requests)" 'BEGIN { printf "%.0f", (n > 0 ? t / hz * 1e6 / n : 0) }')
  kill -0 "$SERVER_PID" 2>/dev/null || { echo "load: the server died during $scenario:" >&2; tail -20 "$WORK/$DB/server.log" >&2; exit 1; }
  local detail=""
  [ "${ERRORS[$key]}" -eq 0 ] || detail=" (connect $(field connect), read $(field read), write $(field write), status>=400 $(field status), timeout $(field timeout))"
  printf '   %-8s %-9s c=%-4s %10s req/s  p50 %7s ms  p99 %7s ms  server CPU %5s us/req  errors %s%s\n' \
    "$DB" "$scenario" "$connections" "${RPS[$key]}" "${P50[$key]}" "${P99[$key]}" "${CPU[$key]}" "${ERRORS[$key]}" "$detail"
}

# pgbench_ceiling: pgbench on the PostgreSQL cluster of the runs, in its own database: an
# insert-only custom script of one card-shaped row (text id and reference, a 300-byte sealed
# blob, a fingerprint; unique and lookup indexes as secure_cards has), LOAD_PGBENCH_CONNECTIONS
# clients, LOAD_DURATION seconds. Sets PGBENCH_TPS.
PGBENCH_TPS=""
pgbench_ceiling() {
  local clients=${LOAD_PGBENCH_CONNECTIONS:-64} url script output
  "$(pg_bin psql)" -X -q -v ON_ERROR_STOP=1 "$PG_LOAD_URL" -c "CREATE DATABASE pgbench_ceiling" >/dev/null
  url=${PG_LOAD_URL/\/vault\?/\/pgbench_ceiling?}
  "$(pg_bin psql)" -X -q -v ON_ERROR_STOP=1 "$url" -c "CREATE TABLE cards (seq bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
      id text NOT NULL UNIQUE, merchant_id text NOT NULL, merchant_reference text NOT NULL, sealed bytea NOT NULL,
      fingerprint text NOT NULL, created_at timestamptz NOT NULL, UNIQUE (merchant_id, merchant_reference))" \
    -c "CREATE INDEX cards_by_fingerprint ON cards (merchant_id, fingerprint)" >/dev/null
  script=$WORK/pgbench-insert.sql
  cat >"$script" <<'SQL'
\set n random(1, 2000000000)
INSERT INTO cards (id, merchant_id, merchant_reference, sealed, fingerprint, created_at)
  VALUES ('card_' || :client_id || '_' || :n || '_' || md5(random()::text), 'mer_load', 'ref-' || :client_id || '-' || :n || '-' || md5(random()::text),
          convert_to(repeat('x', 300), 'UTF8'), md5(:n::text), now());
SQL
  output=$(PGOPTIONS= "$(pg_bin pgbench)" -n -c "$clients" -j "$THREADS" -T "$DURATION" -f "$script" "$url" 2>&1) || {
    echo "load: pgbench failed:" >&2; echo "$output" >&2; return 1; }
  PGBENCH_TPS=$(sed -n -E 's/^tps = ([0-9.]+).*/\1/p' <<<"$output" | head -1)
  local latency
  latency=$(sed -n -E 's/^latency average = ([0-9.]+) ms/\1/p' <<<"$output" | head -1)
  printf '   %-8s %-9s c=%-4s %10s inserts/s  average latency %s ms\n' postgres pgbench "$clients" "$PGBENCH_TPS" "$latency"
}

echo "== wrk: ${DURATION}s per run, $THREADS threads, connections: $CONNECTIONS; databases: $DATABASES"
for DB in $DATABASES; do
  start_server "$DB"
  for connections in $CONNECTIONS; do
    run healthz "$connections"
    for scenario in $SCENARIOS; do run "$scenario" "$connections"; done
  done
  stop_server
  if [ "$DB" = postgres ]; then pgbench_ceiling; fi
done

echo
echo "== results (vault serve, $(nproc) cores shared with wrk; ratio = req/s / /healthz req/s at the same connections)"
printf '%-9s %-10s %6s %12s %10s %10s %11s %8s %9s\n' database scenario conns "req/s" "p50 ms" "p99 ms" "CPU us/req" errors "vs healthz"
FAILED=0
for DB in $DATABASES; do
  for scenario in healthz $SCENARIOS; do
    for connections in $CONNECTIONS; do
      key="$DB/$scenario/$connections"
      ratio=$(awk -v a="${RPS[$key]}" -v b="${RPS[$DB/healthz/$connections]}" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
      printf '%-9s %-10s %6s %12s %10s %10s %11s %8s %9s\n' "$DB" "$scenario" "$connections" "${RPS[$key]}" "${P50[$key]}" "${P99[$key]}" "${CPU[$key]}" "${ERRORS[$key]}" "$ratio"
      [ "${ERRORS[$key]}" -eq 0 ] || FAILED=1
    done
  done
done
if [ -n "$PGBENCH_TPS" ] && [ -n "${RPS[postgres/register/${LOAD_PGBENCH_CONNECTIONS:-64}]:-}" ]; then
  clients=${LOAD_PGBENCH_CONNECTIONS:-64}
  echo
  echo "== PostgreSQL ceiling: pgbench insert-only at $clients clients $PGBENCH_TPS inserts/s"
  awk -v v="${RPS[postgres/register/$clients]}" -v p="$PGBENCH_TPS" -v s="${RPS[sqlite/register/$clients]:-0}" 'BEGIN {
    printf "   vault registrations/s on PostgreSQL / pgbench inserts/s = %.0f / %.0f = %.3f\n", v, p, (p > 0 ? v / p : 0)
    if (s > 0) printf "   PostgreSQL / SQLite registrations/s = %.0f / %.0f = %.3f\n", v, s, v / s }'
fi

check() { # label value op target
  if awk -v v="$2" -v t="$4" "BEGIN { exit !(v $3 t) }"; then
    echo "   met:    $1 ($2 $3 $4)"
  else
    echo "   missed: $1 ($2, target $3 $4)"
    if [ "${LOAD_ENFORCE:-0}" = 1 ]; then FAILED=1; fi
  fi
  return 0
}
if [[ " $CONNECTIONS " == *" 64 "* ]]; then
  echo
  echo "== performance targets at 64 connections"
  for DB in $DATABASES; do
    [ -n "${RPS[$DB/register/64]:-}" ] && check "$DB registrations/s" "${RPS[$DB/register/64]}" ">=" 5000 && check "$DB registration p99 ms" "${P99[$DB/register/64]}" "<" 10
    [ -n "${RPS[$DB/retrieve/64]:-}" ] && check "$DB retrievals/s" "${RPS[$DB/retrieve/64]}" ">=" 15000 && check "$DB retrieval p99 ms" "${P99[$DB/retrieve/64]}" "<" 10
  done
fi
[ "$FAILED" -eq 0 ] || echo "load: errors seen (or a target missed with LOAD_ENFORCE=1)" >&2
exit "$FAILED"
