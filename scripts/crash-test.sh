#!/usr/bin/env bash
# Crash test of the charge runner: kill -9 at any moment causes no double charge.
#
# Phase 1: >= 10,000 due steps against a fake NMI gateway on loopback (scripts/fake_nmi_gateway.py,
# which records every sale by its order id). `vault charge run` is started and SIGKILLed after a
# random 0.2-3 s, at least CRASH_KILLS times, then re-run until a run exits 0 (attempts written but
# never sent are settled after the in-doubt grace, CRASH_GRACE_S); then every step must be
# `approved`, with exactly one approved transaction, and the gateway must hold exactly one sale per
# step (no order id charged twice, no sale the vault does not know).
# Phase 2: the same checks after two `vault charge run` processes started at the same moment on one
# database; neither may fail or log "database is locked".
# Phase 3: a gateway that takes 3 s per sale (look-ups instant); the runner is SIGKILLed while every
# sale is still being processed and re-run at once (which must leave them in doubt, not re-send), then
# once more after the in-doubt grace period; the gateway must still hold one sale per step.
#
# Seeding (scripts/seed_due_steps.py prepare): a few cards and `delayedOnce` schedules due today
# 00:00 UTC are created through the real HTTP API (`vault serve` on port 0) and confirmed, then
# copied row by row in SQL (INSERT ... SELECT over a recursive CTE; only ids are new, the row
# bindings NULL), then bound with the vault's own keys by `benchmark-seed-binder` (a copy the vault
# did not bind fails the runner's integrity check and goes to review, never to the gateway: the
# checks below would fail on it, as they must).
#
# Settings (environment): VAULT_BIN (a built `vault`; otherwise `swift build -c release --product
# vault` runs, with --scratch-path $SWIFT_SCRATCH_PATH when set), BINDER_BIN (a built
# `benchmark-seed-binder`; otherwise the one beside VAULT_BIN, else built like vault), CRASH_STEPS (30000: the runner
# charges ~1,400 steps/s against this fake at concurrency 32, so 10,000 were often all charged
# before the fifth kill at 0.2-3 s),
# CRASH_KILLS (5), CRASH_CONCURRENCY (32), CRASH_LATENCY_MS (fake gateway latency, 20),
# CRASH_LOST_RATE (share of sales whose answer the fake drops, 0.01), TWO_RUNNER_STEPS (5000),
# CRASH_SLOW_PHASE (1; 0 skips phase 3), CRASH_SLOW_STEPS (8), CRASH_SLOW_MS (3000), CRASH_GRACE_S (5),
# KEEP_WORKDIR=1 keeps the temporary directory. Exit 0 on PASS, 1 on FAIL.
# CRASH_GATEWAY=bridgepay runs phases 1 and 2 against the BridgePay fake of the `fake-gateway`
# executable (FAKE_GATEWAY_BIN, else built like vault) instead of the Python NMI fake: it appends
# every charge (type, invoice number, gateway id, result code) to a ledger before answering, and
# the check maps each order reference to its BridgePay invoice number. That fake has no latency,
# lost-answer or slow mode (CRASH_LATENCY_MS, CRASH_LOST_RATE and phase 3 apply to NMI only); the
# kills make the in-doubt charges.
# CRASH_GATEWAY=authorizenet does the same against the Authorize.Net fake of `fake-gateway`: it
# appends every charge (transactionType, invoice number = our order reference, transId, response
# code) to the ledger before answering; a re-sent charge is refused there as a duplicate (error 11)
# and not recorded, so a double charge shows as an invoice number in the ledger twice.
# CRASH_DATABASE=postgres runs on a throwaway PostgreSQL cluster (scripts/lib/pg-cluster.sh,
# one database per phase, VAULT_DATABASE_URL; seeding through psql): phase 1 becomes two runner
# processes at once, each SIGKILLed at its own random moment, with `pg_ctl restart -m immediate` in
# the middle of the second round (crash recovery under the runners); phases 2 and 3 as on SQLite.
# The checks read a SQLite snapshot of the tables they need (scripts/pg_snapshot.py).
set -euo pipefail
# The vault refuses a database directory or file open to group or others.
umask 077

SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPTS/.." && pwd)
FAKE_KEY=fake6457Thfj624V5r7WUwc5v6a68Zsd
FAKE_PIDS=()

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# The release `vault` executable: $VAULT_BIN, or built now.
locate_vault() {
    if [[ -n "${VAULT_BIN:-}" ]]; then
        [[ -x "$VAULT_BIN" ]] || { log "VAULT_BIN=$VAULT_BIN is not executable"; return 1; }
        VAULT=$(cd "$(dirname "$VAULT_BIN")" && pwd)/$(basename "$VAULT_BIN")
        return
    fi
    local scratch=()
    [[ -n "${SWIFT_SCRATCH_PATH:-}" ]] && scratch=(--scratch-path "$SWIFT_SCRATCH_PATH")
    log "building the release vault executable"
    (cd "$ROOT" && swift build -c release --product vault "${scratch[@]}" >&2)
    VAULT="$(cd "$ROOT" && swift build -c release --show-bin-path "${scratch[@]}")/vault"
}

# The `benchmark-seed-binder` executable that binds the seeded copies (scripts/seed_due_steps.py
# --binder): $BINDER_BIN, else the one beside $VAULT_BIN, else built now (release, like vault).
locate_binder() {
    if [[ -n "${BINDER_BIN:-}" ]]; then
        [[ -x "$BINDER_BIN" ]] || { log "BINDER_BIN=$BINDER_BIN is not executable"; return 1; }
        BINDER=$(cd "$(dirname "$BINDER_BIN")" && pwd)/$(basename "$BINDER_BIN")
        return
    fi
    if [[ -n "${VAULT_BIN:-}" ]]; then
        BINDER="$(dirname "$VAULT")/benchmark-seed-binder"
        [[ -x "$BINDER" ]] || {
            log "no benchmark-seed-binder beside VAULT_BIN ($BINDER): build it (swift build --product benchmark-seed-binder) or set BINDER_BIN;" \
                "without it the seeded steps fail the runner's integrity check and are sent to review, not charged"
            return 1
        }
        return
    fi
    local scratch=()
    [[ -n "${SWIFT_SCRATCH_PATH:-}" ]] && scratch=(--scratch-path "$SWIFT_SCRATCH_PATH")
    log "building the release benchmark-seed-binder executable"
    (cd "$ROOT" && swift build -c release --product benchmark-seed-binder "${scratch[@]}" >&2)
    BINDER="$(cd "$ROOT" && swift build -c release --show-bin-path "${scratch[@]}")/benchmark-seed-binder"
}

# The `fake-gateway` executable (for CRASH_GATEWAY=bridgepay or authorizenet): $FAKE_GATEWAY_BIN, or built now.
locate_fake_gateway() {
    if [[ -n "${FAKE_GATEWAY_BIN:-}" ]]; then
        [[ -x "$FAKE_GATEWAY_BIN" ]] || { log "FAKE_GATEWAY_BIN=$FAKE_GATEWAY_BIN is not executable"; return 1; }
        FAKE_GATEWAY=$FAKE_GATEWAY_BIN
        return
    fi
    local scratch=()
    [[ -n "${SWIFT_SCRATCH_PATH:-}" ]] && scratch=(--scratch-path "$SWIFT_SCRATCH_PATH")
    log "building the release fake-gateway executable"
    (cd "$ROOT" && swift build -c release --product fake-gateway "${scratch[@]}" >&2)
    FAKE_GATEWAY="$(cd "$ROOT" && swift build -c release --show-bin-path "${scratch[@]}")/fake-gateway"
}

# start_fake DB [extra flags...]: starts the fake gateway, sets FAKE_URL and FAKE_PID. The NMI fake
# records sales in the SQLite file DB; the BridgePay and Authorize.Net fakes append them to
# DB.ledger (flags ignored).
start_fake() {
    local db=$1
    shift
    local port_file="$db.port"
    rm -f "$port_file"
    if [[ "$GATEWAY" != nmi ]]; then
        "$FAKE_GATEWAY" --gateway "$GATEWAY" --port-file "$port_file" --ledger "$db.ledger" >"$db.log" 2>&1 &
    else
        python3 "$SCRIPTS/fake_nmi_gateway.py" --db "$db" --port-file "$port_file" --security-key "$FAKE_KEY" "$@" \
            >"$db.log" 2>&1 &
    fi
    FAKE_PID=$!
    FAKE_PIDS+=("$FAKE_PID")
    for _ in $(seq 1 300); do
        [[ -s "$port_file" ]] && break
        kill -0 "$FAKE_PID" 2>/dev/null || { log "fake gateway died: $(cat "$db.log")"; return 1; }
        sleep 0.1
    done
    [[ -s "$port_file" ]] || { log "fake gateway did not start"; return 1; }
    FAKE_URL="http://127.0.0.1:$(cat "$port_file")"
}

stop_fake() {
    local pid=$1
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

stop_all_fakes() {
    local pid
    for pid in "${FAKE_PIDS[@]}"; do stop_fake "$pid"; done
}

# prepare DIR TOTAL GATEWAY_URL: a vault in DIR with TOTAL due steps on the fake gateway.
prepare() {
    local dir=$1 total=$2 url=$3
    local database=()
    if [[ "${DATABASE:-sqlite}" == postgres ]]; then
        mkdir -p "$dir"
        create_database "$dir" || return 1
        database=(--database-url "$(cat "$dir/database.url")")
    fi
    if [[ "$GATEWAY" == bridgepay ]]; then
        # The fake's fixed test credentials (FakeBridgePayServer), not secrets.
        python3 "$SCRIPTS/seed_due_steps.py" prepare --vault "$VAULT" --binder "$BINDER" --dir "$dir" --total "$total" \
            --gateway bridgepay --gateway-url "$url" --gateway-credential username=vaulttest \
            --gateway-credential 'password=57!sE@3Fm' --gateway-credential merchantCode=320000 \
            --gateway-credential merchantAccountCode=320001 "${database[@]}"
    elif [[ "$GATEWAY" == authorizenet ]]; then
        # The fake's fixed test credentials (FakeAuthorizeNetServer), not secrets.
        python3 "$SCRIPTS/seed_due_steps.py" prepare --vault "$VAULT" --binder "$BINDER" --dir "$dir" --total "$total" \
            --gateway authorizenet --gateway-url "$url" --gateway-credential name=fakeLogin9Z \
            --gateway-credential transactionKey=fAkEtRaNsKeY1234 "${database[@]}"
    else
        python3 "$SCRIPTS/seed_due_steps.py" prepare --vault "$VAULT" --binder "$BINDER" --dir "$dir" --total "$total" \
            --gateway nmi --gateway-url "$url" --security-key "$FAKE_KEY" "${database[@]}"
    fi
}

# create_database DIR: a new database on the test's cluster for the vault in DIR; its URL in
# DIR/database.url (read by vault_exec and the checks).
create_database() {
    local name
    name="crash_$(basename "$1" | tr -c 'a-z0-9\n' '_')"
    "$(pg_bin psql)" -X -q -v ON_ERROR_STOP=1 "$PG_CRASH_URL" -c "CREATE DATABASE $name" >&2 || return 1
    echo "${PG_CRASH_URL/\/vault\?//$name?}" >"$1/database.url"
}

# write_config DIR: DIR/config/vault.yaml (read by vault runs in DIR) with the in-doubt grace period
# shortened to GRACE_S, so a re-run settles sales the gateway never saw within seconds, not minutes.
write_config() {
    mkdir -p "$1/config"
    printf 'runner:\n  inDoubtGraceSeconds: %d\n' "$GRACE_S" >"$1/config/vault.yaml"
}

# vault_exec DIR ARGS...: becomes vault on the database and keys of DIR. Run it in the background
# (`vault_exec ... &`: the background subshell execs, so `$!` is vault's own pid) or through vault_in.
vault_exec() {
    local dir=$1
    shift
    cd "$dir" || return 1
    if [[ -f "$dir/database.url" ]]; then
        exec env -u VAULT_MASTER_KEY -u VAULT_MASTER_PASSPHRASE -u VAULT_DATABASE VAULT_DATABASE_URL="$(cat "$dir/database.url")" \
            VAULT_KEYS_DIR="$dir/keys" "$VAULT" "$@"
    fi
    exec env -u VAULT_MASTER_KEY -u VAULT_MASTER_PASSPHRASE VAULT_DATABASE="$dir/vault.sqlite" VAULT_KEYS_DIR="$dir/keys" \
        "$VAULT" "$@"
}

# vault_in DIR ARGS...: runs vault on DIR in the foreground.
vault_in() { (vault_exec "$@"); }

# check_exactly_once DIR GATEWAY_DB EXPECTED LABEL: prints the counts; returns 1 unless every step
# is approved with one approved transaction and the gateway holds exactly one sale per step.
check_exactly_once() {
    if [[ -f "$1/database.url" ]]; then
        python3 "$SCRIPTS/pg_snapshot.py" --url "$(cat "$1/database.url")" --out "$1/vault.sqlite" || return 1
    fi
    python3 - "$1/vault.sqlite" "$2" "$3" "$4" "$GATEWAY" <<'PY'
import hashlib, sqlite3, sys
vault, gateway, expected, label, kind = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
def bridgepay_invoice(ref):
    # BridgePayInvoiceNumber.of: the reference when 1-12 ASCII letters/digits, else 12 base-36 digits of SHA-256.
    if 1 <= len(ref) <= 12 and ref.isascii() and ref.isalnum():
        return ref
    value = int.from_bytes(hashlib.sha256(("bridgepay-invoice:" + ref).encode()).digest()[:8], "big")
    digits = ""
    for _ in range(12):
        digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[value % 36] + digits
        value //= 36
    return digits
db = sqlite3.connect(vault, timeout=60)
db.create_function("gateway_order_id", 1, bridgepay_invoice if kind == "bridgepay" else (lambda ref: ref), deterministic=True)
if kind in ("bridgepay", "authorizenet"):
    # One line per charge: type, invoice number (Authorize.Net: our order reference as sent), id, result.
    charge_type = "sale" if kind == "bridgepay" else "authCaptureTransaction"
    db.execute("CREATE TEMP TABLE gs (order_id TEXT, transaction_id TEXT, response TEXT)")
    with open(gateway + ".ledger") as ledger:
        rows = [line.rstrip("\n").split("\t") for line in ledger if line.strip()]
    db.executemany("INSERT INTO gs VALUES (?, ?, ?)", [(r[1], r[2], r[3]) for r in rows if r[0] == charge_type])
else:
    db.execute("ATTACH ? AS g", (gateway,))
    db.execute("CREATE TEMP TABLE gs AS SELECT order_id, transaction_id, response FROM g.sales WHERE type = 'sale'")
db.executescript("""
    CREATE TEMP TABLE refs AS SELECT gateway_order_id(order_reference) AS ref, step_id, status, gateway_transaction_id AS gtid
        FROM main.transactions WHERE step_id IS NOT NULL;
    CREATE INDEX temp.refs_ref ON refs(ref);
    CREATE INDEX temp.refs_step ON refs(step_id, status);
    CREATE INDEX temp.gs_order ON gs(order_id);
""")
def one(sql):
    return db.execute(sql).fetchone()[0]
counts = {
    "steps": one("SELECT count(*) FROM schedule_steps"),
    "steps approved": one("SELECT count(*) FROM schedule_steps WHERE status = 'approved'"),
    "steps not approved": one("SELECT count(*) FROM schedule_steps WHERE status <> 'approved'"),
    "steps sent to review": one("SELECT count(*) FROM schedule_steps WHERE status = 'needs_review'"),
    "attempt transactions": one("SELECT count(*) FROM refs"),
    "approved transactions": one("SELECT count(*) FROM refs WHERE status = 'approved'"),
    "transactions not approved": one("SELECT count(*) FROM refs WHERE status <> 'approved'"),
    "steps without exactly 1 approved txn": one(
        "SELECT count(*) FROM (SELECT s.id FROM schedule_steps s LEFT JOIN refs r ON r.step_id = s.id AND r.status = 'approved'"
        " GROUP BY s.id HAVING count(r.ref) <> 1)"),
    "gateway sales": one("SELECT count(*) FROM gs"),
    "gateway order ids charged twice": one("SELECT count(*) FROM (SELECT order_id FROM gs GROUP BY order_id HAVING count(*) > 1)"),
    "steps without exactly 1 gateway sale": one(
        "SELECT count(*) FROM (SELECT s.id FROM schedule_steps s LEFT JOIN refs r ON r.step_id = s.id"
        " LEFT JOIN gs ON gs.order_id = r.ref GROUP BY s.id HAVING count(gs.transaction_id) <> 1)"),
    "gateway sales unknown to the vault": one("SELECT count(*) FROM gs WHERE NOT EXISTS (SELECT 1 FROM refs r WHERE r.ref = gs.order_id)"),
    "approved txns whose gateway id differs": one(
        "SELECT count(*) FROM refs r JOIN gs ON gs.order_id = r.ref WHERE r.status = 'approved' AND r.gtid IS NOT gs.transaction_id"),
    "schedules not completed": one("SELECT count(*) FROM schedules WHERE status <> 'completed'"),
    "steps still leased": one("SELECT count(*) FROM schedule_steps WHERE lease_owner IS NOT NULL"),
}
integrity = one("PRAGMA main.integrity_check")
must_be_zero = ["steps not approved", "transactions not approved", "steps without exactly 1 approved txn", "gateway order ids charged twice",
                "steps without exactly 1 gateway sale", "gateway sales unknown to the vault",
                "approved txns whose gateway id differs", "schedules not completed", "steps still leased"]
failures = [name for name in must_be_zero if counts[name] != 0]
if counts["steps sent to review"]:
    failures.append("%d seeded steps were sent to review, not charged (rows the vault did not bind fail the runner's integrity check)"
                    % counts["steps sent to review"])
if counts["steps"] != expected:
    failures.append("steps = %d, expected %d" % (counts["steps"], expected))
if counts["steps approved"] < expected:
    failures.append("steps approved %d < %d seeded" % (counts["steps approved"], expected))
if counts["gateway sales"] != counts["steps"]:
    failures.append("gateway sales %d != steps %d" % (counts["gateway sales"], counts["steps"]))
if integrity != "ok":
    failures.append("integrity_check: " + integrity)
print("%s checks:" % label)
for name, value in counts.items():
    print("  %-40s %8d" % (name, value))
print("  %-40s %8s" % ("sqlite integrity_check", integrity))
if failures:
    print("  FAILED: " + "; ".join(failures))
    sys.exit(1)
PY
}

random_delay() { awk -v seed="$RANDOM$RANDOM" 'BEGIN { srand(seed); printf "%.2f", 0.2 + rand() * 2.8 }'; }

approved_count() {
    if [[ -f "$1/database.url" ]]; then
        "$(pg_bin psql)" -X -At "$(cat "$1/database.url")" -c "SELECT count(*) FROM schedule_steps WHERE status = 'approved'" 2>/dev/null || echo "?"
        return 0
    fi
    sqlite3 -cmd ".timeout 10000" "file:$1/vault.sqlite?mode=ro" "SELECT count(*) FROM schedule_steps WHERE status = 'approved'" 2>/dev/null || echo "?"
}

# Phase 1: kill -9 at random moments, then run to completion.
phase_kills() {
    local dir="$WORK/kills" gwdb="$WORK/kills-gateway.sqlite"
    write_config "$dir"
    start_fake "$gwdb" --latency-ms "$LATENCY_MS" --lost-rate "$LOST_RATE" || return 1
    local fake=$FAKE_PID
    if [[ "$GATEWAY" != nmi ]]; then
        log "phase 1: seeding $STEPS due steps (fake $GATEWAY at $FAKE_URL)"
    else
        log "phase 1: seeding $STEPS due steps (fake NMI at $FAKE_URL, ${LATENCY_MS} ms, lost answers ${LOST_RATE})"
    fi
    prepare "$dir" "$STEPS" "$FAKE_URL" >&2 || { echo "phase 1: FAILED: seeding"; return 1; }
    local kills=0 runs=0 early=0 rc delay pid
    while ((kills < KILLS && runs < KILLS * 4)); do
        runs=$((runs + 1))
        delay=$(random_delay)
        vault_exec "$dir" charge run --concurrency "$CONCURRENCY" --json >"$dir/run-$runs.out" 2>"$dir/run-$runs.err" &
        pid=$!
        sleep "$delay"
        kill -9 "$pid" 2>/dev/null || true
        rc=0
        wait "$pid" 2>/dev/null || rc=$?
        if ((rc == 137)); then
            kills=$((kills + 1))
            log "run $runs: SIGKILL after ${delay} s ($(approved_count "$dir") steps approved so far)"
        else
            early=$((early + 1))
            log "run $runs: exited $rc on its own before the kill at ${delay} s"
            if ((rc == 0)); then
                log "phase 1: everything was charged before $KILLS kills; raise CRASH_STEPS or CRASH_LATENCY_MS"
                break
            fi
        fi
    done
    # Attempts a killed runner wrote but never sent are unknown to the gateway: the next run leaves
    # them in doubt until the grace period has passed, then re-sends them with the same key. So the
    # crashed night is finished the way an operator would: re-run until the run exits 0.
    local settling=0
    while :; do
        settling=$((settling + 1))
        log "phase 1: run to completion (#$settling)"
        rc=0
        vault_in "$dir" charge run --concurrency "$CONCURRENCY" --json >"$dir/final.out" 2>"$dir/final.err" || rc=$?
        ((rc == 3 && settling < 4)) || break
        log "phase 1: some sales in doubt; re-running after the ${GRACE_S} s grace period"
        sleep $((GRACE_S + 1))
    done
    local summary
    summary=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); o=s["outcomes"]; print("due %d, approved %d, unsettled %d, failed %d, %.2f s" % (s["due"]["count"], o["approved"]["count"], o["unsettled"]["count"], o["failed"]["count"], s["durationSeconds"]))' "$dir/final.out" 2>/dev/null || echo "no summary")
    local stats
    stats=$(curl -s "$FAKE_URL/stats")
    stop_fake "$fake"
    local failed=0
    echo "phase 1: $STEPS steps, $kills SIGKILLs in $runs runs ($early ended before their kill); $settling run(s) to finish, the last exit $rc ($summary)"
    echo "  fake gateway: $stats"
    ((kills >= KILLS)) || { echo "  FAILED: only $kills kills"; failed=1; }
    ((rc == 0)) || { echo "  FAILED: the final run exited $rc"; tail -5 "$dir/final.err"; failed=1; }
    check_exactly_once "$dir" "$gwdb" "$STEPS" "phase 1" || failed=1
    return "$failed"
}

# Phase 1 on PostgreSQL: two runners at once, each SIGKILLed at its own random moment, and in the
# second round the database restarted with `pg_ctl restart -m immediate` (crash recovery) while
# they run; then run to completion as in phase 1.
phase_pg_kills() {
    local dir="$WORK/pgkills" gwdb="$WORK/pgkills-gateway.sqlite"
    write_config "$dir"
    start_fake "$gwdb" --latency-ms "$LATENCY_MS" --lost-rate "$LOST_RATE" || return 1
    local fake=$FAKE_PID
    log "phase 1 (PostgreSQL): seeding $STEPS due steps (fake NMI at $FAKE_URL, ${LATENCY_MS} ms, lost answers ${LOST_RATE})"
    prepare "$dir" "$STEPS" "$FAKE_URL" >&2 || { echo "phase 1: FAILED: seeding"; return 1; }
    local kills=0 rounds=0 restarts=0 rc pid_a pid_b delay_a delay_b first second restart_at
    while ((kills < KILLS && rounds < KILLS * 4)); do
        rounds=$((rounds + 1))
        delay_a=$(random_delay)
        delay_b=$(random_delay)
        vault_exec "$dir" charge run --concurrency "$CONCURRENCY" --json >"$dir/round-$rounds-a.out" 2>"$dir/round-$rounds-a.err" &
        pid_a=$!
        vault_exec "$dir" charge run --concurrency "$CONCURRENCY" --json >"$dir/round-$rounds-b.out" 2>"$dir/round-$rounds-b.err" &
        pid_b=$!
        first=$(awk -v a="$delay_a" -v b="$delay_b" 'BEGIN { print (a < b ? a : b) }')
        second=$(awk -v a="$delay_a" -v b="$delay_b" 'BEGIN { print (a < b ? b - a : a - b) }')
        if ((rounds == 2)); then
            restart_at=$(awk -v f="$first" 'BEGIN { printf "%.2f", f / 2 }')
            sleep "$restart_at"
            pg_cluster_restart_immediate CRASH && restarts=$((restarts + 1))
            log "round $rounds: pg_ctl restart -m immediate after ${restart_at} s"
            first=$(awk -v f="$first" -v r="$restart_at" 'BEGIN { d = f - r; print (d > 0 ? d : 0) }')
        fi
        sleep "$first"
        if awk -v a="$delay_a" -v b="$delay_b" 'BEGIN { exit !(a <= b) }'; then
            kill -9 "$pid_a" 2>/dev/null || true; sleep "$second"; kill -9 "$pid_b" 2>/dev/null || true
        else
            kill -9 "$pid_b" 2>/dev/null || true; sleep "$second"; kill -9 "$pid_a" 2>/dev/null || true
        fi
        local pid
        for pid in "$pid_a" "$pid_b"; do
            rc=0
            wait "$pid" 2>/dev/null || rc=$?
            ((rc == 137)) && kills=$((kills + 1))
        done
        log "round $rounds: runners killed after ${delay_a} s and ${delay_b} s ($(approved_count "$dir") steps approved so far)"
    done
    local settling=0
    while :; do
        settling=$((settling + 1))
        log "phase 1 (PostgreSQL): run to completion (#$settling)"
        rc=0
        vault_in "$dir" charge run --concurrency "$CONCURRENCY" --json >"$dir/final.out" 2>"$dir/final.err" || rc=$?
        ((rc == 3 && settling < 4)) || break
        sleep $((GRACE_S + 1))
    done
    local stats
    stats=$(curl -s "$FAKE_URL/stats")
    stop_fake "$fake"
    local failed=0
    echo "phase 1 (PostgreSQL): $STEPS steps, $rounds rounds of two runners, $kills SIGKILLs, $restarts immediate restart(s); $settling run(s) to finish, the last exit $rc"
    echo "  fake gateway: $stats"
    ((kills >= KILLS)) || { echo "  FAILED: only $kills kills"; failed=1; }
    ((restarts >= 1)) || { echo "  FAILED: the database was not restarted"; failed=1; }
    ((rc == 0)) || { echo "  FAILED: the final run exited $rc"; tail -5 "$dir/final.err"; failed=1; }
    check_exactly_once "$dir" "$gwdb" "$STEPS" "phase 1 (PostgreSQL)" || failed=1
    return "$failed"
}

# Phase 2: two runners started at the same moment on one database.
phase_two_runners() {
    local dir="$WORK/two" gwdb="$WORK/two-gateway.sqlite"
    mkdir -p "$dir"
    start_fake "$gwdb" --latency-ms "$LATENCY_MS" || return 1
    local fake=$FAKE_PID
    log "phase 2: seeding $TWO_STEPS due steps"
    prepare "$dir" "$TWO_STEPS" "$FAKE_URL" >&2 || { echo "phase 2: FAILED: seeding"; return 1; }
    log "phase 2: two runners at once"
    local rc1=0 rc2=0 p1 p2
    vault_exec "$dir" charge run --concurrency "$CONCURRENCY" --json >"$dir/a.out" 2>"$dir/a.err" &
    p1=$!
    vault_exec "$dir" charge run --concurrency "$CONCURRENCY" --json >"$dir/b.out" 2>"$dir/b.err" &
    p2=$!
    wait "$p1" || rc1=$?
    wait "$p2" || rc2=$?
    stop_fake "$fake"
    local approved
    approved=$(python3 -c 'import json,sys; print(" + ".join(str(json.load(open(f))["outcomes"]["approved"]["count"]) for f in sys.argv[1:]))' \
        "$dir/a.out" "$dir/b.out" 2>/dev/null || echo "?")
    local failed=0 locked errors
    locked=$(cat "$dir/a.err" "$dir/b.err" | grep -ci "database is locked\|SQLITE_BUSY" || true)
    errors=$(cat "$dir/a.err" "$dir/b.err" | grep -ci '"level":"error"\|^error:\| error ' || true)
    echo "phase 2: $TWO_STEPS steps, runner exits $rc1 and $rc2, approved per runner: $approved; 'database is locked' lines: $locked, error lines: $errors"
    ((rc1 == 0 && rc2 == 0)) || { echo "  FAILED: a runner exited non-zero"; tail -3 "$dir/a.err" "$dir/b.err"; failed=1; }
    ((locked == 0)) || { echo "  FAILED: 'database is locked' logged"; failed=1; }
    ((errors == 0)) || { echo "  FAILED: errors logged"; grep -hi '"level":"error"\|^error:\| error ' "$dir/a.err" "$dir/b.err" | head -5; failed=1; }
    check_exactly_once "$dir" "$gwdb" "$TWO_STEPS" "phase 2" || failed=1
    return "$failed"
}

# Phase 3: SIGKILL while the gateway is still processing the sales (it answers after SLOW_MS, look-ups
# are instant), then an immediate re-run: the gateway has no record of the sales yet, so the re-run
# must leave them in doubt (exit 3, nothing re-sent inside `runner.inDoubtGraceSeconds`, here
# CRASH_GRACE_S). A last run after the gateway has finished and the grace has passed settles them by
# look-up. The gateway must hold exactly one sale per step.
phase_slow_gateway() {
    local dir="$WORK/slow" gwdb="$WORK/slow-gateway.sqlite" rc_at_once=0 rc=0 pid
    write_config "$dir"
    start_fake "$gwdb" --latency-ms "$SLOW_MS" --query-latency-ms 0 || return 1
    local fake=$FAKE_PID
    log "phase 3: seeding $SLOW_STEPS due steps (fake NMI processing every sale for $SLOW_MS ms; grace ${GRACE_S} s)"
    prepare "$dir" "$SLOW_STEPS" "$FAKE_URL" >&2 || { echo "phase 3: FAILED: seeding"; return 1; }
    vault_exec "$dir" charge run --concurrency "$CONCURRENCY" --json >"$dir/killed.out" 2>"$dir/killed.err" &
    pid=$!
    sleep "$(awk -v ms="$SLOW_MS" 'BEGIN { printf "%.2f", ms / 2000 }')"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    log "phase 3: killed the runner with every sale still at the gateway; re-running at once"
    vault_in "$dir" charge run --concurrency "$CONCURRENCY" --json >"$dir/at-once.out" 2>"$dir/at-once.err" || rc_at_once=$?
    local sent_at_once
    sent_at_once=$(curl -s "$FAKE_URL/stats")
    local wait_s
    wait_s=$(awk -v ms="$SLOW_MS" -v g="$GRACE_S" 'BEGIN { w = ms / 1000 + 1; if (g + 1 > w) w = g + 1; printf "%.2f", w }')
    log "phase 3: re-run at once exited $rc_at_once; waiting ${wait_s} s for the gateway and the grace period, then settling"
    sleep "$wait_s"
    vault_in "$dir" charge run --concurrency "$CONCURRENCY" --json >"$dir/final.out" 2>"$dir/final.err" || rc=$?
    local stats
    stats=$(curl -s "$FAKE_URL/stats")
    stop_fake "$fake"
    local failed=0 unsettled
    unsettled=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["outcomes"]["unsettled"]["count"])' "$dir/at-once.out" 2>/dev/null || echo "?")
    echo "phase 3: $SLOW_STEPS steps, killed mid-call; re-run at once exit $rc_at_once ($unsettled left in doubt), settling run exit $rc"
    echo "  fake gateway after the re-run at once: $sent_at_once"
    echo "  fake gateway at the end: $stats"
    ((rc_at_once == 3)) || { echo "  FAILED: the re-run at once should exit 3 (sales in doubt), exited $rc_at_once"; failed=1; }
    [[ "$unsettled" == "$SLOW_STEPS" ]] || { echo "  FAILED: the re-run at once should leave all $SLOW_STEPS in doubt, left $unsettled"; failed=1; }
    ((rc == 0)) || { echo "  FAILED: the settling run exited $rc"; tail -5 "$dir/final.err"; failed=1; }
    check_exactly_once "$dir" "$gwdb" "$SLOW_STEPS" "phase 3" || failed=1
    return "$failed"
}

main() {
    STEPS=${CRASH_STEPS:-30000}
    KILLS=${CRASH_KILLS:-5}
    CONCURRENCY=${CRASH_CONCURRENCY:-32}
    LATENCY_MS=${CRASH_LATENCY_MS:-20}
    LOST_RATE=${CRASH_LOST_RATE:-0.01}
    TWO_STEPS=${TWO_RUNNER_STEPS:-5000}
    SLOW_STEPS=${CRASH_SLOW_STEPS:-8}
    SLOW_MS=${CRASH_SLOW_MS:-3000}
    GRACE_S=${CRASH_GRACE_S:-5}
    command -v python3 >/dev/null || { echo "python3 is required"; exit 1; }
    command -v sqlite3 >/dev/null || { echo "sqlite3 is required"; exit 1; }
    GATEWAY=${CRASH_GATEWAY:-nmi}
    [[ "$GATEWAY" == nmi || "$GATEWAY" == bridgepay || "$GATEWAY" == authorizenet ]] ||
        { echo "CRASH_GATEWAY must be nmi, bridgepay or authorizenet"; exit 1; }
    DATABASE=${CRASH_DATABASE:-sqlite}
    [[ "$DATABASE" == sqlite || "$DATABASE" == postgres ]] || { echo "CRASH_DATABASE must be sqlite or postgres"; exit 1; }
    locate_vault
    locate_binder
    [[ "$GATEWAY" != nmi ]] && locate_fake_gateway
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/vault-crash-test.XXXXXX")
    trap 'stop_all_fakes; if [[ "$DATABASE" == postgres ]]; then pg_cluster_stop CRASH; fi; if [[ "${KEEP_WORKDIR:-0}" == 1 ]]; then log "kept $WORK"; else rm -rf "$WORK"; fi' EXIT
    if [[ "$DATABASE" == postgres ]]; then
        # shellcheck source=lib/pg-cluster.sh
        source "$SCRIPTS/lib/pg-cluster.sh"
        pg_cluster_start CRASH
        log "PostgreSQL cluster on port $PG_CRASH_PORT"
    fi
    local started=$SECONDS result=0 verdicts=() phase
    log "vault: $VAULT; work directory: $WORK"
    local phases=("phase_kills:random SIGKILLs" "phase_two_runners:two runners at once")
    [[ "$DATABASE" == postgres ]] &&
        phases=("phase_pg_kills:two runners SIGKILLed at random, database restarted mid-run" "phase_two_runners:two runners at once")
    [[ "${CRASH_SLOW_PHASE:-1}" == 1 && "$GATEWAY" == nmi ]] && phases+=("phase_slow_gateway:SIGKILL while the gateway is processing")
    for phase in "${phases[@]}"; do
        if "${phase%%:*}"; then
            verdicts+=("  PASS  ${phase#*:}")
        else
            verdicts+=("  FAIL  ${phase#*:}")
            result=1
        fi
    done
    echo
    printf '%s\n' "${verdicts[@]}"
    if ((result == 0)); then
        echo "PASS: crash test ($((SECONDS - started)) s)"
    else
        echo "FAIL: crash test ($((SECONDS - started)) s; KEEP_WORKDIR=1 keeps the logs)"
    fi
    return "$result"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    main "$@"
fi
