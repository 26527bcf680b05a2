#!/usr/bin/env bash
# Charge runner on PostgreSQL (`make runner-benchmark-pg`): 100,000
# due steps against the in-process sandbox with one `vault charge run`, then with two started at
# the same moment on one database (they share the work through FOR UPDATE SKIP LOCKED claims),
# beside the same 100,000 steps on SQLite with one runner, in one table.
#
# Each case gets a fresh vault (a new database on one throwaway cluster, scripts/lib/pg-cluster.sh):
# templates made through the HTTP API and copied in SQL (scripts/seed_due_steps.py, with
# --database-url on PostgreSQL: INSERT ... SELECT over generate_series through psql), then bound with
# the vault's own keys by `benchmark-seed-binder` (a copy the vault did not bind is sent to review by
# the runner, not charged; a case whose runners approve fewer steps than it seeded fails the
# benchmark with exit 1 and no table). Wall time is
# from the start of the first runner to the end of the last; approved/s is the steps approved (the
# runners' summaries added) over that wall time; then `vault audit verify` checks the audit chains
# the runners extended.
#
# Settings (environment): VAULT_BIN (else the release build), BINDER_BIN (else
# `benchmark-seed-binder` beside VAULT_BIN, else the release build), BENCH_PG_STEPS (100000),
# BENCH_PG_CONCURRENCY (64), BENCH_PG_CASES ("sqlite pg1 pg2"), KEEP_WORKDIR=1.
set -euo pipefail
umask 077

SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=crash-test.sh
source "$SCRIPTS/crash-test.sh"
# shellcheck source=lib/pg-cluster.sh
source "$SCRIPTS/lib/pg-cluster.sh"

STEPS=${BENCH_PG_STEPS:-100000}
CONCURRENCY=${BENCH_PG_CONCURRENCY:-64}
ROWS=()
CLUSTER=""

# database_url NAME: a new database NAME on the cluster (bench_main starts it: pg_cluster_start
# must not run in the $(...) subshell this is called in).
database_url() {
    "$(pg_bin psql)" -X -q -v ON_ERROR_STOP=1 "$PG_BENCH_URL" -c "CREATE DATABASE $1" >&2
    echo "${PG_BENCH_URL/\/vault\?//$1?}"
}

# runners LABEL DIR URL COUNT: COUNT `vault charge run` at once on DIR's keys and URL (empty: the
# SQLite file in DIR); adds a row.
runners() {
    local label=$1 dir=$2 url=$3 count=$4 pids=() rcs=() index started ended
    started=$(date +%s.%N)
    for index in $(seq 1 "$count"); do
        if [[ -n "$url" ]]; then
            (cd "$dir" && exec env -u VAULT_DATABASE VAULT_DATABASE_URL="$url" VAULT_KEYS_DIR="$dir/keys" \
                "$VAULT" charge run --concurrency "$CONCURRENCY" --json) >"$dir/run$index.json" 2>"$dir/run$index.err" &
        else
            vault_exec "$dir" charge run --concurrency "$CONCURRENCY" --json >"$dir/run$index.json" 2>"$dir/run$index.err" &
        fi
        pids+=("$!")
    done
    for index in "${!pids[@]}"; do
        local rc=0
        wait "${pids[$index]}" || rc=$?
        rcs+=("$rc")
    done
    ended=$(date +%s.%N)
    # The audit chains the runners extended, checked as an operator would (after the timing).
    local audit
    if [[ -n "$url" ]]; then
        audit=$(cd "$dir" && env -u VAULT_DATABASE VAULT_DATABASE_URL="$url" VAULT_KEYS_DIR="$dir/keys" "$VAULT" audit verify 2>"$dir/audit.err" \
            | grep -m1 "^audit chain") || true
    else
        audit=$( (vault_exec "$dir" audit verify) 2>"$dir/audit.err" | grep -m1 "^audit chain") || true
    fi
    [[ "$audit" == "audit chain intact: "* ]] && audit="intact, $(echo "$audit" | cut -d' ' -f4) events" || audit="FAILED: ${audit:0:80}"
    local row
    row=$(python3 - "$dir" "$label" "$STEPS" "$count" "$started" "$ended" "${rcs[*]}" "$audit" <<'PY'
import json, sys
directory, label, steps, count, started, ended, rcs, audit = sys.argv[1:9]
wall = float(ended) - float(started)
approved, unsettled, own = 0, 0, []
for index in range(1, int(count) + 1):
    try:
        summary = json.load(open("%s/run%d.json" % (directory, index)))
        approved += summary["outcomes"]["approved"]["count"]
        unsettled += summary["outcomes"]["unsettled"]["count"]
        own.append("%.2f" % summary["durationSeconds"])
    except Exception:
        own.append("-")
print("| %s | %s | %s | %.2f | %s | %.0f | %s | %d/%d | %s |" % (
    label, steps, count, wall, " + ".join(own), approved / wall if wall > 0 else 0, rcs.replace(" ", ","), approved, unsettled, audit))
if approved < int(steps):
    print("%s: %d of %s seeded steps approved: the runners did not charge what was seeded" % (label, approved, steps), file=sys.stderr)
    sys.exit(4)
PY
) || {
        log "FAILED: $label charged fewer steps than it seeded (see $dir/run*.err); no table is printed"
        tail -3 "$dir"/run*.err >&2
        exit 1
    }
    ROWS+=("$row")
    echo "$row" >&2
}

case_sqlite() {
    local dir="$WORK/sqlite"
    mkdir -p "$dir"
    python3 "$SCRIPTS/seed_due_steps.py" prepare --vault "$VAULT" --binder "$BINDER" --dir "$dir" --total "$STEPS" --gateway sandbox >&2
    runners "SQLite, 1 runner" "$dir" "" 1
}

case_pg() { # RUNNERS
    local count=$1 dir="$WORK/pg$1" url
    mkdir -p "$dir"
    url=$(database_url "bench_pg$count")
    python3 "$SCRIPTS/seed_due_steps.py" prepare --vault "$VAULT" --binder "$BINDER" --dir "$dir" --total "$STEPS" --gateway sandbox \
        --database-url "$url" >&2
    local merchants
    merchants=$("$(pg_bin psql)" -X -At "$url" -c "SELECT count(*) FROM merchants" 2>/dev/null || echo 0)
    if [[ "$merchants" == 0 ]]; then
        log "this vault build did not use PostgreSQL (VAULT_DATABASE_URL is not wired into its runtime): skipping"
        ROWS+=("| PostgreSQL, $count runner(s) | $STEPS | $count | - | - | - | not run: no PostgreSQL wiring in this build | - | - |")
        return 0
    fi
    runners "PostgreSQL, $count runner(s)" "$dir" "$url" "$count"
}

bench_main() {
    command -v python3 >/dev/null || { echo "python3 is required"; exit 1; }
    locate_vault
    locate_binder
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/vault-runner-benchmark-pg.XXXXXX")
    trap 'if [[ -n "$CLUSTER" ]]; then pg_cluster_stop BENCH; fi; if [[ "${KEEP_WORKDIR:-0}" == 1 ]]; then log "kept $WORK"; else rm -rf "$WORK"; fi' EXIT
    local load_at_start name
    load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
    log "vault: $VAULT; $(nproc) cores; load average $load_at_start"
    if [[ " ${BENCH_PG_CASES:-sqlite pg1 pg2} " == *" pg"* ]]; then
        pg_cluster_start BENCH
        CLUSTER=1
    fi
    for name in ${BENCH_PG_CASES:-sqlite pg1 pg2}; do
        case $name in
            sqlite) case_sqlite ;;
            pg1) case_pg 1 ;;
            pg2) case_pg 2 ;;
            *) echo "unknown case $name"; exit 1 ;;
        esac
    done
    echo
    echo "charge runner on PostgreSQL vs SQLite, sandbox gateway ($(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ); load average at start $load_at_start, now $(cut -d' ' -f1-3 /proc/loadavg))"
    echo "| case | due steps | runners | wall s | each runner's run s | approved/s | exits | approved/unsettled | audit verify |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    printf '%s\n' "${ROWS[@]}"
}

bench_main "$@"
