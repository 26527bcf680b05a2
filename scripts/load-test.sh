#!/usr/bin/env bash
# wrk load test of `vault serve` (issue 7, SPEC §12): registrations, retrievals, schedule creation
# and a mixed read/write load at 16, 64 and 256 connections, each beside the same server's
# /healthz as the framework's ceiling. Prints requests/s, p50/p99 latency, the server's CPU time
# per request (user + system, from /proc: steadier than req/s when something else shares the
# cores), errors and the ratio to /healthz, then checks SPEC §12's targets at 64 connections (>= 5,000 registrations/s,
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
#                        SPEC §12 measures validate, encrypt, fingerprint, insert)
#   LOAD_LOG_LEVEL       server log level (default: the shipped config's, info)
#   LOAD_RATE_LIMIT      per-key requests/s (default 0: the limiter off, as one key drives the load)
#   LOAD_SCRATCH_PATH    SwiftPM scratch path for the release build (default .build)
#   VAULT_BIN            use this vault binary instead of building one
#   LOAD_ENFORCE=1       exit 1 when a SPEC §12 target is missed (default: report only)
# Exit status 1 also when a run saw errors or the server died.
set -euo pipefail
# The vault refuses a database directory or file open to group or others (SPEC §14).
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
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

export VAULT_DATABASE=$WORK/vault.sqlite VAULT_KEYS_DIR=$WORK/keys VAULT_HOST=127.0.0.1 VAULT_PORT=0
# The shipped configuration, with the per-key rate limit off (one key drives all the load: the
# test measures capacity, not the limiter) and, when asked, another log level.
config=$WORK/vault.yaml
sed -E "s/^(  requestsPerSecond:) *[0-9]+/\1 ${LOAD_RATE_LIMIT:-0}/" "$ROOT/config/vault.yaml" >"$config"
if [ -n "${LOAD_LOG_LEVEL:-}" ]; then
  sed -i -E "s/^(  level:) *[a-z]+/\1 $LOAD_LOG_LEVEL/" "$config"
fi
"$VAULT_BIN" keys init --config "$config" >/dev/null
"$VAULT_BIN" serve --config "$config" --dev-merchant load >"$WORK/server.out" 2>"$WORK/server.log" &
SERVER_PID=$!

for _ in $(seq 1 300); do
  grep -q "vault listening on" "$WORK/server.out" 2>/dev/null && break
  kill -0 "$SERVER_PID" 2>/dev/null || { echo "load: the server exited:" >&2; tail -20 "$WORK/server.log" >&2; exit 1; }
  sleep 0.1
done
BASE=$(grep -o "http://[0-9.]*:[0-9]*" "$WORK/server.out" | head -1)
export VAULT_LOAD_KEY=$(grep -o "vk_[A-Za-z0-9_]*" "$WORK/server.out" | head -1)
[ -n "$BASE" ] && [ -n "$VAULT_LOAD_KEY" ] || { echo "load: no address or API key from the server" >&2; cat "$WORK/server.out" >&2; exit 1; }
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

declare -A RPS P50 P99 ERRORS CPU
TICKS=$(getconf CLK_TCK)
# The server's CPU time so far (user + system), in clock ticks.
server_ticks() { awk '{ print $14 + $15 }' "/proc/$SERVER_PID/stat"; }
run() { # scenario connections
  local scenario=$1 connections=$2 output before after
  export VAULT_LOAD_RUN="$scenario$connections-$RANDOM$RANDOM"
  local threads=$THREADS
  [ "$threads" -gt "$connections" ] && threads=$connections
  before=$(server_ticks)
  output=$(wrk -t"$threads" -c"$connections" -d"${DURATION}s" --timeout 5s -s "scripts/wrk/$scenario.lua" "$BASE" 2>&1) || {
    echo "load: wrk failed on $scenario at $connections connections:" >&2
    echo "$output" >&2
    exit 1
  }
  after=$(server_ticks)
  local line
  line=$(grep "^RESULT" <<<"$output" || true)
  [ -n "$line" ] || { echo "load: no result from wrk for $scenario:" >&2; echo "$output" >&2; exit 1; }
  field() { sed -E "s/.* $1=([0-9.]+).*/\1/" <<<"$line"; }
  local key="$scenario/$connections"
  RPS[$key]=$(field rps)
  P50[$key]=$(field p50_ms)
  P99[$key]=$(field p99_ms)
  ERRORS[$key]=$(($(field connect) + $(field read) + $(field write) + $(field status) + $(field timeout)))
  CPU[$key]=$(awk -v t="$((after - before))" -v hz="$TICKS" -v n="$(field requests)" 'BEGIN { printf "%.0f", (n > 0 ? t / hz * 1e6 / n : 0) }')
  kill -0 "$SERVER_PID" 2>/dev/null || { echo "load: the server died during $scenario:" >&2; tail -20 "$WORK/server.log" >&2; exit 1; }
  local detail=""
  [ "${ERRORS[$key]}" -eq 0 ] || detail=" (connect $(field connect), read $(field read), write $(field write), status>=400 $(field status), timeout $(field timeout))"
  printf '   %-9s c=%-4s %10s req/s  p50 %7s ms  p99 %7s ms  server CPU %5s us/req  errors %s%s\n' \
    "$scenario" "$connections" "${RPS[$key]}" "${P50[$key]}" "${P99[$key]}" "${CPU[$key]}" "${ERRORS[$key]}" "$detail"
}

echo "== wrk: ${DURATION}s per run, $THREADS threads, connections: $CONNECTIONS"
for connections in $CONNECTIONS; do
  run healthz "$connections"
  for scenario in $SCENARIOS; do run "$scenario" "$connections"; done
done

echo
echo "== results (vault serve, $(nproc) cores shared with wrk; ratio = req/s / /healthz req/s at the same connections)"
printf '%-10s %6s %12s %10s %10s %11s %8s %9s\n' scenario conns "req/s" "p50 ms" "p99 ms" "CPU us/req" errors "vs healthz"
FAILED=0
for scenario in healthz $SCENARIOS; do
  for connections in $CONNECTIONS; do
    key="$scenario/$connections"
    ratio=$(awk -v a="${RPS[$key]}" -v b="${RPS[healthz/$connections]}" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
    printf '%-10s %6s %12s %10s %10s %11s %8s %9s\n' "$scenario" "$connections" "${RPS[$key]}" "${P50[$key]}" "${P99[$key]}" "${CPU[$key]}" "${ERRORS[$key]}" "$ratio"
    [ "${ERRORS[$key]}" -eq 0 ] || FAILED=1
  done
done

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
  echo "== SPEC §12 at 64 connections"
  [ -n "${RPS[register/64]:-}" ] && check "registrations/s" "${RPS[register/64]}" ">=" 5000 && check "registration p99 ms" "${P99[register/64]}" "<" 10
  [ -n "${RPS[retrieve/64]:-}" ] && check "retrievals/s" "${RPS[retrieve/64]}" ">=" 15000 && check "retrieval p99 ms" "${P99[retrieve/64]}" "<" 10
fi
[ "$FAILED" -eq 0 ] || echo "load: errors seen (or a target missed with LOAD_ENFORCE=1)" >&2
exit "$FAILED"
