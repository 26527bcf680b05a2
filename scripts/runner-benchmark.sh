#!/usr/bin/env bash
# Charge-runner performance numbers, printed as a table:
#   (a) 100,000 due steps against the in-process sandbox: wall time of `vault charge run` (target < 10 s);
#   (b) a loopback NMI gateway answering in 50 ms (scripts/fake_nmi_gateway.py): throughput at
#       --concurrency 64 and 256 against the ideal concurrency / latency;
#   (c) peak RSS of `vault charge run` for 10,000 vs 1,000,000 due steps (sandbox): memory must stay flat.
#
# Each case gets a fresh vault: a few schedules are created through the HTTP API and copied in SQL
# (scripts/seed_due_steps.py; INSERT ... SELECT over a recursive CTE), so seeding 1,000,000 steps
# takes seconds, not hours; the copies are then bound with the vault's own keys by
# `benchmark-seed-binder`, or the runner would send every one to review instead of charging it. A
# sandbox case whose run approves fewer steps than it seeded (or, killed at the cap, sent any to
# review) fails the benchmark with exit 1 and no table: it measured something else than charging. Wall time is the process's (start-up and summary included), peak RSS its
# VmHWM; "run s" is the runner's own duration. "CPU s" is the process's CPU time (user + system) and
# "writer CPU s" that of SQLite's single writer thread (`vault-db-writer`), both read every 0.2 s
# from /proc: when the writer's comes near the wall time, the writer is what bounds the run.
#
# Settings (environment): VAULT_BIN (else `swift build -c release --product vault`, with
# --scratch-path $SWIFT_SCRATCH_PATH when set); BINDER_BIN (else `benchmark-seed-binder` beside
# VAULT_BIN, else built like vault); BENCH_SANDBOX_STEPS (100000),
# BENCH_SANDBOX_CONCURRENCY (64), BENCH_LATENCY_MS (50), BENCH_LATENCY_STEPS (10000),
# BENCH_CONCURRENCIES ("64 256"), BENCH_RSS_SIZES ("10000 1000000"),
# BENCH_RSS_CAP_SECONDS (0: none; else each (c) run is SIGKILLed after that many seconds and its row
# counts the steps approved by then), BENCH_CASES ("a b c"), KEEP_WORKDIR=1.
set -euo pipefail
# The vault refuses a database directory or file open to group or others.
umask 077

SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=crash-test.sh
source "$SCRIPTS/crash-test.sh"

ROWS=()

# measure LABEL DIR STEPS CONCURRENCY IDEAL_PER_SECOND [CAP_SECONDS [SEEDED]]: runs `vault charge
# run` once (SIGKILLed after CAP_SECONDS when given and not 0: then the row counts the steps approved
# in the database) and adds a row. With SEEDED (the sandbox cases, where every step approves), exits
# 1 when the run approved fewer steps than SEEDED, or, killed at the cap, sent any step to review. Peak RSS is the kernel's high-water mark (VmHWM in /proc/PID/status), read every
# 0.2 s while the process lives.
measure() {
    local label=$1 dir=$2 steps=$3 concurrency=$4 ideal=$5 cap=${6:-0} seeded=${7:-0} rc=0 pid hwm=0 value started ended
    local cpu=0 writer=0 task
    started=$(date +%s.%N)
    vault_exec "$dir" charge run --concurrency "$concurrency" --json >"$dir/run.json" 2>"$dir/run.err" &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        value=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
        [[ -n "$value" ]] && ((value > hwm)) && hwm=$value
        # CPU ticks (user + system) of the whole process and of SQLite's writer thread, the run's serial point.
        value=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || true)
        [[ -n "$value" ]] && ((value > cpu)) && cpu=$value
        for task in /proc/"$pid"/task/*; do
            [[ "$(cat "$task/comm" 2>/dev/null)" == vault-db-writer ]] || continue
            value=$(awk '{ print $14 + $15 }' "$task/stat" 2>/dev/null || true)
            [[ -n "$value" ]] && ((value > writer)) && writer=$value
        done
        if ((cap > 0)) && awk -v s="$started" -v now="$(date +%s.%N)" -v cap="$cap" 'BEGIN { exit !(now - s >= cap) }'; then
            kill -9 "$pid" 2>/dev/null || true
            break
        fi
        sleep 0.2
    done
    wait "$pid" 2>/dev/null || rc=$?
    ended=$(date +%s.%N)
    local row wall
    wall=$(awk -v a="$started" -v b="$ended" 'BEGIN { printf "%.2f", b - a }')
    local ticks
    ticks=$(getconf CLK_TCK)
    row=$(python3 - "$dir" "$label" "$steps" "$concurrency" "$ideal" "$rc" "$hwm" "$wall" "$seeded" "$cpu" "$writer" "$ticks" <<'PY'
import json, sqlite3, sys
directory, label, steps, concurrency, ideal, rc, rss_kb, wall, seeded, cpu, writer, ticks = sys.argv[1:13]
rss_kb, wall, seeded = int(rss_kb), float(wall), int(seeded)
cpu, writer = int(cpu) / int(ticks), int(writer) / int(ticks)
killed = False
try:
    summary = json.load(open(directory + "/run.json"))
    outcomes = summary["outcomes"]
    approved = outcomes["approved"]["count"]
    unsettled = outcomes["unsettled"]["count"]
    seconds = summary["durationSeconds"]
except Exception:
    # Killed at the cap: count what the database says was charged, over the wall time.
    killed = True
    db = sqlite3.connect(directory + "/vault.sqlite", timeout=60)
    approved = db.execute("SELECT count(*) FROM schedule_steps WHERE status = 'approved'").fetchone()[0]
    unsettled = db.execute("SELECT count(*) FROM schedule_steps WHERE status = 'processing'").fetchone()[0]
    seconds = wall
    label += " (killed at cap)"
rate = approved / seconds if seconds and seconds == seconds and seconds > 0 else 0
ideal = float(ideal)
ratio = "%.0f%%" % (100 * rate / ideal) if ideal > 0 else "-"
print("| %s | %s | %s | %.2f | %.2f | %.0f | %s | %s | %.1f | %.1f | %.1f | %s | %d/%d |" % (
    label, steps, concurrency, wall, seconds, rate, "%.0f" % ideal if ideal > 0 else "-", ratio, cpu, writer,
    rss_kb / 1024, rc, approved, unsettled))
if seeded:
    db = sqlite3.connect("file:%s/vault.sqlite?mode=ro" % directory, uri=True, timeout=60)
    review = db.execute("SELECT count(*) FROM schedule_steps WHERE status = 'needs_review'").fetchone()[0]
    if review or (approved < seeded and not killed):
        print("%s: %d of %d seeded steps approved, %d sent to review: the run did not charge what was seeded" % (
            label, approved, seeded, review), file=sys.stderr)
        sys.exit(4)
PY
) || {
        log "FAILED: $label charged fewer steps than it seeded (last lines of $dir/run.err below); no table is printed"
        tail -3 "$dir/run.err" >&2
        exit 1
    }
    ROWS+=("$row")
    echo "$row" >&2
    if ((rc != 0)); then
        log "$label: exit $rc; last lines of $dir/run.err:"
        tail -3 "$dir/run.err" >&2
    fi
}

seed_sandbox() {
    local dir=$1 total=$2
    mkdir -p "$dir"
    local started=$SECONDS
    python3 "$SCRIPTS/seed_due_steps.py" prepare --vault "$VAULT" --binder "$BINDER" --dir "$dir" --total "$total" --gateway sandbox >&2
    log "seeded $total due steps in $((SECONDS - started)) s ($(du -sh "$dir/vault.sqlite" | cut -f1) database)"
}

case_a() {
    local steps=${BENCH_SANDBOX_STEPS:-100000} concurrency=${BENCH_SANDBOX_CONCURRENCY:-64}
    seed_sandbox "$WORK/a" "$steps"
    measure "(a) sandbox" "$WORK/a" "$steps" "$concurrency" 0 0 "$steps"
    [[ "${KEEP_WORKDIR:-0}" == 1 ]] || rm -rf "$WORK/a"
}

case_b() {
    local latency=${BENCH_LATENCY_MS:-50} concurrency steps
    for concurrency in ${BENCH_CONCURRENCIES:-64 256}; do
        steps=${BENCH_LATENCY_STEPS:-10000}
        local dir="$WORK/b$concurrency" gwdb="$WORK/b$concurrency-gateway.sqlite"
        mkdir -p "$dir"
        start_fake "$gwdb" --latency-ms "$latency"
        local fake=$FAKE_PID
        python3 "$SCRIPTS/seed_due_steps.py" prepare --vault "$VAULT" --binder "$BINDER" --dir "$dir" --total "$steps" \
            --gateway nmi --gateway-url "$FAKE_URL" --security-key "$FAKE_KEY" >&2
        measure "(b) NMI fake ${latency} ms" "$dir" "$steps" "$concurrency" "$(python3 -c "print($concurrency / ($latency / 1000))")"
        log "fake gateway: $(curl -s "$FAKE_URL/stats")"
        stop_fake "$fake"
        [[ "${KEEP_WORKDIR:-0}" == 1 ]] || rm -rf "$dir" "$gwdb"*
    done
}

case_c() {
    local steps concurrency=${BENCH_SANDBOX_CONCURRENCY:-64}
    for steps in ${BENCH_RSS_SIZES:-10000 1000000}; do
        seed_sandbox "$WORK/c$steps" "$steps"
        measure "(c) sandbox RSS" "$WORK/c$steps" "$steps" "$concurrency" 0 "${BENCH_RSS_CAP_SECONDS:-0}" "$steps"
        [[ "${KEEP_WORKDIR:-0}" == 1 ]] || rm -rf "$WORK/c$steps"
    done
}

benchmark_main() {
    command -v python3 >/dev/null || { echo "python3 is required"; exit 1; }
    locate_vault
    locate_binder
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/vault-runner-benchmark.XXXXXX")
    trap 'stop_all_fakes; if [[ "${KEEP_WORKDIR:-0}" == 1 ]]; then log "kept $WORK"; else rm -rf "$WORK"; fi' EXIT
    LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg)
    log "vault: $VAULT; work directory: $WORK; $(nproc) cores; load average $LOAD_AT_START"
    local name
    for name in ${BENCH_CASES:-a b c}; do
        "case_$name"
    done
    echo
    echo "charge runner benchmark ($(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ); load average at start $LOAD_AT_START, now $(cut -d' ' -f1-3 /proc/loadavg))"
    echo "| case | due steps | concurrency | wall s | run s | approved/s | ideal/s | of ideal | CPU s | writer CPU s | peak RSS MB | exit | approved/unsettled |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    printf '%s\n' "${ROWS[@]}"
}

benchmark_main "$@"
