# Sourced by scripts that need a live `vault serve` (contract-test.sh, clients-test.sh).
# start_live_server: builds the release binary unless VAULT_BIN is set, then serves a fresh
# database and key in $WORK (a new temporary directory) on a free loopback port with a development
# merchant named $1; sets VAULT_BIN, WORK, SERVER_PID, BASE (http://127.0.0.1:PORT) and KEY (its
# API key). An EXIT trap stops the server and removes $WORK. Callers set `umask 077` first: the
# vault refuses a database directory or file open to group or others.
# Environment: VAULT_BIN, CONTRACT_SCRATCH_PATH (SwiftPM scratch path for the build, default .build),
# LIVE_SERVER_CONFIG (a configuration file for the server instead of the embedded defaults).

stop_live_server() {
  if [ -n "${SERVER_PID:-}" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  [ -z "${WORK:-}" ] || rm -rf "$WORK"
}

start_live_server() {
  local merchant=$1 scratch
  if [ -z "${VAULT_BIN:-}" ]; then
    scratch=${CONTRACT_SCRATCH_PATH:-$ROOT/.build}
    echo "== building vault (release)"
    swift build -c release --product vault --scratch-path "$scratch"
    VAULT_BIN=$(swift build -c release --scratch-path "$scratch" --show-bin-path)/vault
  fi
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/vault-live.XXXXXX")
  SERVER_PID=""
  trap stop_live_server EXIT
  export VAULT_DATABASE=$WORK/vault.sqlite VAULT_KEYS_DIR=$WORK/keys VAULT_HOST=127.0.0.1 VAULT_PORT=0 VAULT_METRICS_PORT=0
  local config=()
  [ -z "${LIVE_SERVER_CONFIG:-}" ] || config=(--config "$LIVE_SERVER_CONFIG")
  "$VAULT_BIN" keys init "${config[@]}" >/dev/null
  "$VAULT_BIN" serve "${config[@]}" --dev-merchant "$merchant" >"$WORK/server.out" 2>"$WORK/server.log" &
  SERVER_PID=$!
  for _ in $(seq 1 300); do
    grep -q "vault listening on" "$WORK/server.out" 2>/dev/null && break
    kill -0 "$SERVER_PID" 2>/dev/null || { echo "the server exited:" >&2; tail -20 "$WORK/server.log" >&2; exit 1; }
    sleep 0.1
  done
  BASE=$(grep -o "http://[0-9.]*:[0-9]*" "$WORK/server.out" | head -1)
  KEY=$(grep -o "vk_[A-Za-z0-9_]*" "$WORK/server.out" | head -1)
  [ -n "$BASE" ] && [ -n "$KEY" ] || { echo "no address or API key from the server" >&2; cat "$WORK/server.out" >&2; exit 1; }
}
