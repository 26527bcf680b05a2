#!/usr/bin/env bash
# Failover test (`make failover-test`).
#
# Two PostgreSQL clusters on loopback (scripts/lib/pg-cluster.sh): a primary with
# synchronous_standby_names naming the standby and synchronous_commit on, and a streaming standby
# made by pg_basebackup -R, so a COMMIT returns only once the standby has flushed it. Two
# `vault serve` on two ports with one multi-host URL
#   postgres://vault@127.0.0.1:PRIMARY,127.0.0.1:STANDBY/vault?target_session_attrs=read-write
# take registrations from a load driver (scripts/failover_driver.py register: threads posting to
# both servers in turn) while `vault charge run` charges due steps against the NMI fake
# (scripts/fake_nmi_gateway.py) that drops some answers. After FAILOVER_KILL_AFTER seconds the
# primary is killed with SIGKILL (postmaster and backends, as when the machine is lost); after
# FAILOVER_PROMOTE_AFTER more seconds the standby is promoted (pg_ctl promote). The servers find
# the new primary themselves (no restart); the load goes on for FAILOVER_LOAD_AFTER seconds.
# The charge run is then re-run until it exits 0 (in-doubt sales settle after the grace period).
#
# Checks: every registration answered 2xx is retrievable on both servers (acknowledged writes
# lost must be 0); every step is approved with one approved transaction and the gateway holds one
# sale per step (no order id charged twice, none the vault does not know: the crash test's
# check_exactly_once on a snapshot of the database). Prints the time from the kill to the first
# successful registration sent after it.
#
# Settings (environment): VAULT_BIN (else the release build), FAILOVER_KILL_AFTER (5),
# FAILOVER_PROMOTE_AFTER (1), FAILOVER_LOAD_AFTER (5), FAILOVER_THREADS (8), FAILOVER_STEPS (400:
# schedules made through the API), FAILOVER_LOST_RATE (0.02), FAILOVER_LATENCY_MS (20),
# FAILOVER_GRACE_S (5), KEEP_WORKDIR=1, FAILOVER_RECONNECT (inprocess: servers and runner keep
# running and find the promoted standby themselves through the multi-host URL; restart: they are
# SIGKILLed and restarted after the promotion, as a supervisor would). Exit 0 on PASS, 1 on FAIL.
set -euo pipefail
umask 077

SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPTS/.." && pwd)
# shellcheck source=crash-test.sh
source "$SCRIPTS/crash-test.sh"
# shellcheck source=lib/pg-cluster.sh
source "$SCRIPTS/lib/pg-cluster.sh"

KILL_AFTER=${FAILOVER_KILL_AFTER:-5}
PROMOTE_AFTER=${FAILOVER_PROMOTE_AFTER:-1}
LOAD_AFTER=${FAILOVER_LOAD_AFTER:-5}
THREADS=${FAILOVER_THREADS:-8}
STEPS=${FAILOVER_STEPS:-400}
LOST_RATE=${FAILOVER_LOST_RATE:-0.02}
LATENCY_MS=${FAILOVER_LATENCY_MS:-20}
GRACE_S=${FAILOVER_GRACE_S:-5}
RECONNECT=${FAILOVER_RECONNECT:-inprocess}
GATEWAY=nmi
SERVER_PIDS=()
LOAD_PID=""
RUNNER_PID=""

now() { date +%s.%N; }
seconds_between() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

cleanup() {
    local pid
    [[ -n "$LOAD_PID" ]] && { touch "$WORK/stop"; wait "$LOAD_PID" 2>/dev/null || true; }
    [[ -n "$RUNNER_PID" ]] && kill -TERM "$RUNNER_PID" 2>/dev/null || true
    for pid in "${SERVER_PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    stop_all_fakes
    pg_cluster_stop S
    pg_cluster_stop P
    if [[ "${KEEP_WORKDIR:-0}" == 1 ]]; then log "kept $WORK"; else rm -rf "$WORK"; fi
}

# vault_pg ARGS...: vault on the pair's URL and the shared key directory, in $WORK.
vault_pg() {
    (cd "$WORK" && exec env -u VAULT_MASTER_KEY -u VAULT_MASTER_PASSPHRASE -u VAULT_DATABASE VAULT_DATABASE_URL="$DATABASE_URL" \
        VAULT_KEYS_DIR="$WORK/keys" VAULT_HOST=127.0.0.1 VAULT_PORT=0 VAULT_METRICS_PORT=0 "$VAULT" "$@")
}

# start_server N [PORT]: `vault serve` number N on PORT (else a free one); appends to SERVER_PIDS
# and BASES (not again when restarted on its port).
start_server() {
    local n=$1 port=${2:-0} out="$WORK/server$1.out"
    : >"$out"
    (cd "$WORK" && exec env -u VAULT_MASTER_KEY -u VAULT_MASTER_PASSPHRASE -u VAULT_DATABASE VAULT_DATABASE_URL="$DATABASE_URL" \
        VAULT_KEYS_DIR="$WORK/keys" VAULT_HOST=127.0.0.1 VAULT_PORT="$port" VAULT_METRICS_PORT=0 "$VAULT" serve --config "$WORK/vault.yaml") \
        >"$out" 2>>"$WORK/server$n.log" &
    SERVER_PIDS+=("$!")
    local _
    for _ in $(seq 1 600); do
        grep -q "vault listening on" "$out" 2>/dev/null && break
        kill -0 "${SERVER_PIDS[-1]}" 2>/dev/null || { log "server $n exited: $(tail -5 "$WORK/server$n.log")"; return 1; }
        sleep 0.1
    done
    ((port != 0)) || BASES+=("$(grep -o "http://[0-9.]*:[0-9]*" "$out" | head -1)")
}

# restart_servers: SIGKILL both servers and start them again on their ports; they open the URL
# afresh and so connect to the host that now accepts writes (FAILOVER_RECONNECT=restart).
restart_servers() {
    local pid i
    for pid in "${SERVER_PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    for pid in "${SERVER_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    SERVER_PIDS=()
    for i in "${!BASES[@]}"; do start_server $((i + 1)) "${BASES[$i]##*:}"; done
}

# steps_open: steps not settled yet (due, retrying or with an attempt in doubt), on the primary.
steps_open() {
    psql -X -At "$DATABASE_URL" -c "SELECT count(*) FROM schedule_steps WHERE status IN ('scheduled', 'processing', 'retry_pending')" \
        2>/dev/null || echo 1
}

# snapshot_database FILE: the tables the exactly-once check reads, copied from the new primary
# into a SQLite file (scripts/pg_snapshot.py), so check_exactly_once runs unchanged.
snapshot_database() {
    python3 "$SCRIPTS/pg_snapshot.py" --url "$DATABASE_URL" --out "$1"
}

# require_postgres_build: the merchant just created must be in PostgreSQL (a build without the
# VAULT_DATABASE_URL wiring would have used SQLite in $WORK/data).
require_postgres_build() {
    local merchants
    merchants=$(psql -X -At "$DATABASE_URL" -c "SELECT count(*) FROM merchants" 2>/dev/null || echo 0)
    if [[ "$merchants" == 0 ]]; then
        echo "FAIL: this vault build did not use PostgreSQL (VAULT_DATABASE_URL is not wired into its runtime)"
        exit 1
    fi
}

failover_main() {
    command -v python3 >/dev/null || { echo "python3 is required"; exit 1; }
    command -v sqlite3 >/dev/null || { echo "sqlite3 is required"; exit 1; }
    command -v curl >/dev/null || "$ROOT/scripts/install-deps.sh" curl
    locate_vault
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/vault-failover.XXXXXX")
    trap cleanup EXIT
    local started=$SECONDS

    log "starting the primary and its synchronous standby"
    pg_cluster_start_primary P vaultstandby
    pg_cluster_start_standby S P vaultstandby
    pg_cluster_wait_sync P vaultstandby 60
    DATABASE_URL="postgres://vault@127.0.0.1:$PG_P_PORT,127.0.0.1:$PG_S_PORT/vault?sslmode=disable&target_session_attrs=read-write"
    log "primary :$PG_P_PORT, standby :$PG_S_PORT (synchronous); $DATABASE_URL"

    # Shipped configuration with the per-key limit off (one key drives the load) and a short
    # in-doubt grace so the settling runs finish in seconds.
    sed -E "s/^(  requestsPerSecond:) *[0-9]+/\1 0/; s/^(  inDoubtGraceSeconds:) *[0-9]+/\1 $GRACE_S/; s/^(  level:) *[a-z]+/\1 warning/" \
        "$ROOT/config/vault.yaml" >"$WORK/vault.yaml"
    mkdir -p "$WORK/config"
    cp "$WORK/vault.yaml" "$WORK/config/vault.yaml"

    start_fake "$WORK/gateway.sqlite" --latency-ms "$LATENCY_MS" --lost-rate "$LOST_RATE"
    vault_pg keys init >/dev/null
    vault_pg migrate >/dev/null
    local merchant key
    merchant=$(vault_pg merchant create shop --gateway nmi --gateway-url "$FAKE_URL" \
        --gateway-credential "security_key=$FAKE_KEY" --time-zone UTC --json)
    key=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["apiKey"])' "$merchant")
    require_postgres_build

    BASES=()
    start_server 1
    start_server 2
    local bases
    bases=$(IFS=,; echo "${BASES[*]}")
    log "servers ${BASES[*]}; making $STEPS due steps through the API"
    python3 "$SCRIPTS/failover_driver.py" schedules --base "${BASES[0]}" --key "$key" --count "$STEPS" >/dev/null

    log "load: $THREADS threads registering on both servers; charge run on $STEPS steps (NMI fake, lost answers $LOST_RATE)"
    python3 "$SCRIPTS/failover_driver.py" register --bases "$bases" --key "$key" --out "$WORK/acks.jsonl" \
        --stop-file "$WORK/stop" --threads "$THREADS" &
    LOAD_PID=$!
    vault_pg charge run --concurrency 8 --json >"$WORK/run-1.out" 2>"$WORK/run-1.err" &
    RUNNER_PID=$!

    sleep "$KILL_AFTER"
    local kill_time promote_time
    kill_time=$(now)
    pg_cluster_kill P
    log "primary killed (SIGKILL)"
    sleep "$PROMOTE_AFTER"
    pg_cluster_promote S
    promote_time=$(now)
    log "standby promoted $(seconds_between "$kill_time" "$promote_time") s after the kill"
    if [[ "$RECONNECT" == restart ]]; then
        # The runner still waits on the dead primary's pool: a supervisor restarts it too. Killed
        # mid-run like the crash test's runners, so exactly once must hold across the failover.
        pkill -9 -f "$VAULT charge run" 2>/dev/null || true
        restart_servers
        log "servers restarted on their ports $(seconds_between "$kill_time" "$(now)") s after the kill"
    fi
    sleep "$LOAD_AFTER"
    touch "$WORK/stop"
    wait "$LOAD_PID" || true
    LOAD_PID=""

    local rc=0
    wait "$RUNNER_PID" || rc=$?
    RUNNER_PID=""
    log "the charge run under failover exited $rc"
    local run=1
    while (((rc != 0 || $(steps_open) > 0) && run < 8)); do
        run=$((run + 1))
        sleep $((GRACE_S + 1))
        rc=0
        vault_pg charge run --concurrency 8 --json >"$WORK/run-$run.out" 2>"$WORK/run-$run.err" || rc=$?
        log "settling run $run exited $rc"
    done

    local report failed=0
    report=$(python3 "$SCRIPTS/failover_driver.py" check --bases "$bases" --key "$key" --acks "$WORK/acks.jsonl" \
        --kill-time "$kill_time") || failed=1
    local stats
    stats=$(curl -s "$FAKE_URL/stats")
    stop_all_fakes
    FAKE_PIDS=()

    echo
    echo "failover: primary killed after ${KILL_AFTER} s of load, standby promoted $(seconds_between "$kill_time" "$promote_time") s after the kill"
    python3 - "$report" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
print("  registrations sent:                    %d (%d answered 2xx, %d not: %s)" % (r["requests"], r["acknowledged"], r["failed"], r["failedByStatus"]))
print("  acknowledged writes lost:              %d%s" % (r["lost"], (" e.g. %s" % r["lostExamples"][:3]) if r["lost"] else ""))
first = r.get("firstSuccessAfterKillSeconds")
print("  kill -> first 2xx of a request sent after the kill: %s" % ("%.3f s" % first if first is not None else "none"))
PY
    echo "  charge runs: $run, the last exit $rc; fake gateway: $stats"
    ((rc == 0)) || { echo "  FAILED: the charge run did not finish (exit $rc)"; failed=1; }
    snapshot_database "$WORK/vault.sqlite"
    check_exactly_once "$WORK" "$WORK/gateway.sqlite" "$STEPS" "charges" || failed=1
    if ((failed == 0)); then
        echo "PASS: failover test ($((SECONDS - started)) s)"
    else
        echo "FAIL: failover test ($((SECONDS - started)) s; KEEP_WORKDIR=1 keeps the logs)"
    fi
    return "$failed"
}

failover_main "$@"
