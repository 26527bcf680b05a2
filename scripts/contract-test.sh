#!/usr/bin/env bash
# Contract test (issue 7): schemathesis against a live `vault serve` and the OpenAPI document it
# serves at /openapi.json. Fails on any finding: a 5xx, a response the document does not allow
# (status, content type, headers, body schema), or a request the document forbids being accepted.
#
# The server runs on a free loopback port with a fresh database and key in a temporary directory,
# with a development merchant, one registered card (merchantReference cust-1) and one schedule on it.
# schemathesis is installed from PyPI into a virtual environment under .build-contract/.
#
# Environment:
#   CONTRACT_MAX_TIME       seconds schemathesis may run (default 240; fuzzing repeats until spent)
#   CONTRACT_MAX_EXAMPLES   test cases per operation and phase (default 40)
#   CONTRACT_CHECKS         schemathesis --checks (default below)
#   CONTRACT_PHASES         schemathesis --phases (default examples,coverage,fuzzing,stateful)
#   CONTRACT_SEED           hypothesis seed, for a reproducible run (default: random, printed)
#   CONTRACT_WORKERS        concurrent schemathesis workers (default 2)
#   CONTRACT_VENV           virtual environment to use or create (default .build-contract/venv)
#   CONTRACT_SCRATCH_PATH   SwiftPM scratch path for the release build (default .build)
#   VAULT_BIN               use this vault binary instead of building one
#   CONTRACT_REPORT_DIR     where the JUnit and NDJSON reports go (default .build-contract/report)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

MAX_TIME=${CONTRACT_MAX_TIME:-240}
MAX_EXAMPLES=${CONTRACT_MAX_EXAMPLES:-40}
CHECKS=${CONTRACT_CHECKS:-not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,negative_data_rejection,missing_required_header,unsupported_method,ignored_auth,use_after_free,ensure_resource_availability}
PHASES=${CONTRACT_PHASES:-examples,coverage,fuzzing,stateful}
SEED=${CONTRACT_SEED:-$((RANDOM * 32768 + RANDOM))}
WORKERS=${CONTRACT_WORKERS:-2}
VENV=${CONTRACT_VENV:-$ROOT/.build-contract/venv}
REPORT_DIR=${CONTRACT_REPORT_DIR:-$ROOT/.build-contract/report}

command -v python3 >/dev/null || scripts/install-deps.sh python3 python3-venv
command -v curl >/dev/null || scripts/install-deps.sh curl
if [ ! -x "$VENV/bin/schemathesis" ]; then
  echo "== installing schemathesis into $VENV"
  python3 -m venv "$VENV" 2>/dev/null || { scripts/install-deps.sh python3-venv && python3 -m venv "$VENV"; }
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis>=4,<5"
fi
"$VENV/bin/schemathesis" --version

if [ -z "${VAULT_BIN:-}" ]; then
  scratch=${CONTRACT_SCRATCH_PATH:-$ROOT/.build}
  echo "== building vault (release)"
  swift build -c release --product vault --scratch-path "$scratch"
  VAULT_BIN=$(swift build -c release --scratch-path "$scratch" --show-bin-path)/vault
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vault-contract.XXXXXX")
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
"$VAULT_BIN" keys init >/dev/null
"$VAULT_BIN" serve --dev-merchant contract >"$WORK/server.out" 2>"$WORK/server.log" &
SERVER_PID=$!
for _ in $(seq 1 300); do
  grep -q "vault listening on" "$WORK/server.out" 2>/dev/null && break
  kill -0 "$SERVER_PID" 2>/dev/null || { echo "contract: the server exited:" >&2; tail -20 "$WORK/server.log" >&2; exit 1; }
  sleep 0.1
done
BASE=$(grep -o "http://[0-9.]*:[0-9]*" "$WORK/server.out" | head -1)
KEY=$(grep -o "vk_[A-Za-z0-9_]*" "$WORK/server.out" | head -1)
[ -n "$BASE" ] && [ -n "$KEY" ] || { echo "contract: no address or API key from the server" >&2; cat "$WORK/server.out" >&2; exit 1; }

seed() { # method path body
  local status
  status=$(curl -s -o "$WORK/seed.json" -w "%{http_code}" -X "$1" "$BASE$2" -H "Authorization: Bearer $KEY" \
    -H "Content-Type: application/json" -d "$3")
  case "$status" in 2??) ;; *) echo "contract: seeding $1 $2 failed: HTTP $status $(cat "$WORK/seed.json")" >&2; exit 1 ;; esac
}
seed POST /v1/secure-cards '{"merchantReference": "cust-1", "method": "keyed", "verify": false,
  "card": {"number": "4242424242424242", "expiryDate": "1230", "holderName": "Ada Lovelace"},
  "customer": {"email": "ada@example.com", "country": "GB"}}'
seed POST /v1/schedules '{"merchantReference": "cust-1", "amount": 1999, "currency": "USD", "type": "monthly",
  "startDate": "2029-01-31", "endType": "count", "endCount": 3, "day": 31}'
echo "== server on $BASE (pid $SERVER_PID), merchant 'contract' with card cust-1 and a schedule"

mkdir -p "$REPORT_DIR"
echo "== schemathesis: checks $CHECKS; phases $PHASES; ≤ $MAX_EXAMPLES examples per operation; ≤ ${MAX_TIME}s; seed $SEED"
status=0
(
  cd "$WORK"
  "$VENV/bin/schemathesis" run "$BASE/openapi.json" \
    --url "$BASE" \
    --header "Authorization: Bearer $KEY" \
    --checks "$CHECKS" \
    --phases "$PHASES" \
    --max-examples "$MAX_EXAMPLES" \
    --max-time "$MAX_TIME" \
    --seed "$SEED" \
    --workers "$WORKERS" \
    --request-timeout 10 \
    --generation-database none \
    --report junit,ndjson --report-dir "$REPORT_DIR" \
    --no-color
) || status=$?

if ! kill -0 "$SERVER_PID" 2>/dev/null; then
  echo "contract: the server died during the run" >&2
  status=1
fi
if grep -q '"level":"error"\|"level": "error"' "$WORK/server.log" 2>/dev/null; then
  echo "== server errors logged during the run (first 20):"
  grep '"level":"error"\|"level": "error"' "$WORK/server.log" | head -20
fi
echo "== reports in $REPORT_DIR (seed $SEED; rerun with CONTRACT_SEED=$SEED)"
exit "$status"
