#!/usr/bin/env bash
# Restore drill: a backup taken while `vault serve` takes writes, then a master key rotation, then a
# restore into a new directory, where every card must open and the audit chain must verify.
#
#   1. keys init, migrate, a merchant; `vault serve` on a free port; DRILL_CARDS cards registered
#      (acknowledged before the backup, so the backup must hold them);
#   2. a writer registers cards without pause while `vault backup` runs (the file must be mode
#      0600, with FILE.keys.json naming the master key versions it needs) and while
#      `vault keys rotate` moves the old version to keys/retired.key;
#   3. `vault restore` with a key file that is not the vault's must exit non-zero and write nothing;
#   4. `vault restore FILE --to DIR` with the rotated key file and its archive; in DIR,
#      `vault audit verify`, then `vault serve`: every card listed must open (200) and every card
#      acknowledged before the backup must be there.
#
# Settings (environment): VAULT_BIN (a built `vault`; otherwise `swift build --product vault` runs),
# DRILL_CARDS (50), KEEP_WORKDIR=1 keeps the temporary directory. Prints PASS and exits 0, or exits 1.
# SQLite only: on PostgreSQL the backup is pg_dump's or pg_basebackup's (see the README).
set -euo pipefail
umask 077

SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPTS/.." && pwd)
CLIENT="$SCRIPTS/restore_drill_client.py"
CARDS=${DRILL_CARDS:-50}
PIDS=()

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
fail() { log "FAIL: $*"; exit 1; }

if [[ -n "${VAULT_BIN:-}" ]]; then
    [[ -x "$VAULT_BIN" ]] || fail "VAULT_BIN=$VAULT_BIN is not executable"
    VAULT=$(cd "$(dirname "$VAULT_BIN")" && pwd)/$(basename "$VAULT_BIN")
else
    (cd "$ROOT" && swift build --product vault >&2)
    VAULT="$(cd "$ROOT" && swift build --show-bin-path)/vault"
fi

WORK=$(mktemp -d)
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    if [[ "${KEEP_WORKDIR:-0}" == 1 ]]; then log "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# Every vault command runs with the built-in defaults of its directory: no configuration file,
# no key or database from the caller's environment.
CLEAN_ENV=(-u VAULT_CONFIG -u VAULT_DATABASE -u VAULT_DATABASE_URL -u VAULT_KEYS_DIR -u VAULT_MASTER_KEY -u VAULT_MASTER_PASSPHRASE
    VAULT_PORT=0 VAULT_METRICS_PORT=0)
vault_in() {
    local directory=$1
    shift
    (cd "$directory" && exec env "${CLEAN_ENV[@]}" "$VAULT" "$@")
}

# serve DIR: starts `vault serve` in DIR, sets BASE to its URL and SERVE_PID. The background
# subshell execs the server, so SERVE_PID is the server's own pid and SIGTERM reaches it (a shell
# between them may have SIGTERM blocked, as under a test runner).
serve() {
    local directory=$1
    (cd "$directory" && exec env "${CLEAN_ENV[@]}" "$VAULT" serve) >"$directory/serve.out" 2>"$directory/serve.err" &
    SERVE_PID=$!
    PIDS+=("$SERVE_PID")
    for _ in $(seq 1 600); do
        grep -q "vault listening on" "$directory/serve.out" 2>/dev/null && break
        kill -0 "$SERVE_PID" 2>/dev/null || fail "vault serve in $directory died: $(tail -5 "$directory/serve.err")"
        sleep 0.1
    done
    BASE=$(sed -n 's/^vault listening on \(http[^ ]*\).*$/\1/p' "$directory/serve.out" | head -1)
    [[ -n "$BASE" ]] || fail "vault serve in $directory did not start"
}

# Stops the server with SIGTERM; one that has not exited after 60 s is killed and the drill fails.
stop_serve() {
    kill -TERM "$SERVE_PID"
    for _ in $(seq 1 600); do
        kill -0 "$SERVE_PID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$SERVE_PID" 2>/dev/null; then
        kill -KILL "$SERVE_PID"
        fail "vault serve did not stop within 60 s of SIGTERM"
    fi
    wait "$SERVE_PID" 2>/dev/null || true
}

mode_of() { stat -c %a "$1"; }

LIVE=$WORK/live
mkdir -p "$LIVE"
vault_in "$LIVE" keys init >/dev/null
vault_in "$LIVE" migrate >/dev/null
KEY=$(vault_in "$LIVE" merchant create drill --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["apiKey"])')
serve "$LIVE"
log "vault serve at $BASE; registering $CARDS cards"
python3 "$CLIENT" register "$BASE" "$KEY" before "$CARDS" "$WORK/acknowledged" || fail "registration before the backup"

log "backup and rotation under write load"
python3 "$CLIENT" write "$BASE" "$KEY" during "$WORK/stop" "$WORK/written-during" &
WRITER=$!
PIDS+=("$WRITER")
sleep 1
vault_in "$LIVE" backup "$WORK/backup.sqlite" >&2 || fail "vault backup"
[[ "$(mode_of "$WORK/backup.sqlite")" == 600 ]] || fail "backup mode $(mode_of "$WORK/backup.sqlite"), not 600"
[[ "$(mode_of "$WORK/backup.sqlite.keys.json")" == 600 ]] || fail "manifest mode is not 600"
python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); sys.exit(0 if m["masterKeyVersionsNeeded"] == [1] else 1)' \
    "$WORK/backup.sqlite.keys.json" || fail "the manifest does not name master key version 1: $(cat "$WORK/backup.sqlite.keys.json")"
vault_in "$LIVE" keys rotate >&2 || fail "vault keys rotate"
touch "$WORK/stop"
wait "$WRITER" || fail "the writer saw a 5xx during the backup or the rotation"
[[ -s "$WORK/written-during" ]] || fail "no write was acknowledged while the backup and the rotation ran"
stop_serve
grep -q '^1 ' "$LIVE/keys/master.key" && fail "the rotated key file still holds version 1"
grep -q '^1 ' "$LIVE/keys/retired.key" || fail "keys/retired.key does not hold the retired version 1"

log "restore with a key that is not the vault's: refused, nothing written"
OTHER=$WORK/other
mkdir -p "$OTHER"
vault_in "$OTHER" keys init >/dev/null
if vault_in "$OTHER" restore "$WORK/backup.sqlite" --to "$WORK/wrong" >"$WORK/wrong.out" 2>&1; then
    fail "a restore with another vault's key succeeded"
fi
[[ ! -e "$WORK/wrong" ]] || fail "a refused restore wrote $WORK/wrong"

log "restore into a new directory"
RESTORED=$WORK/restored
vault_in "$LIVE" restore "$WORK/backup.sqlite" --to "$RESTORED" >&2 || fail "vault restore"
vault_in "$RESTORED" migrate >/dev/null || fail "vault migrate on the restored directory"
vault_in "$RESTORED" audit verify >"$WORK/audit.out" 2>&1 || fail "vault audit verify on the restored copy: $(cat "$WORK/audit.out")"
serve "$RESTORED"
python3 "$CLIENT" verify "$BASE" "$KEY" "$WORK/acknowledged" >&2 || fail "cards of the restored copy"
stop_serve
echo "PASS: backup under write load ($(wc -l <"$WORK/written-during") writes during backup and rotation), restored across a rotation, every card opened, audit chain verified"
