#!/usr/bin/env bash
# Contract test: schemathesis against a live `vault serve` and the OpenAPI document it
# serves at /openapi.json. Fails on any finding: a 5xx, a response the document does not allow
# (status, content type, headers, body schema), or a request the document forbids being accepted.
#
# The server runs on a free loopback port with a fresh database and key in a temporary directory,
# with a development merchant and real objects for every operation that addresses one (cards cust-1..3,
# schedules in each state, authorizations, sales, a charge run), handed to schemathesis through a
# generated schemathesis.toml (dictionaries bound to path parameters and card references), so that
# generated requests reach the handlers rather than stopping at a 404.
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
# The vault refuses a database directory or file open to group or others.
umask 077
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
ROOT=$PWD

MAX_TIME=${CONTRACT_MAX_TIME:-240}
MAX_EXAMPLES=${CONTRACT_MAX_EXAMPLES:-40}
CHECKS=${CONTRACT_CHECKS:-all}
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

# The committed defaults, but for the failed-authentication limit: schemathesis sends hundreds of
# requests without a key or with a wrong one on purpose, which must each be a 401, not a 429.
mkdir -p "$ROOT/.build-contract"
LIVE_SERVER_CONFIG=$ROOT/.build-contract/vault-contract.yaml
sed 's/^\(  failedAuthLimit:\) [0-9]*/\1 1000000/' config/vault.yaml >"$LIVE_SERVER_CONFIG"
grep -q "failedAuthLimit: 1000000" "$LIVE_SERVER_CONFIG" || { echo "contract: could not raise server.failedAuthLimit" >&2; exit 1; }
# shellcheck source=scripts/lib/live-server.sh
. "$ROOT/scripts/lib/live-server.sh"
start_live_server contract

seed() { # method path [body]: answers the response body on stdout; exits on anything but a 2xx
  local status body=()
  [ $# -lt 3 ] || body=(-H "Content-Type: application/json" -d "$3")
  status=$(curl -s -o "$WORK/seed.json" -w "%{http_code}" -X "$1" "$BASE$2" -H "Authorization: Bearer $KEY" "${body[@]}")
  case "$status" in 2??) ;; *) echo "contract: seeding $1 $2 failed: HTTP $status $(cat "$WORK/seed.json")" >&2; exit 1 ;; esac
  cat "$WORK/seed.json"
}
field() { # python-expression on the JSON read from stdin, e.g. field "['steps'][0]['id']"
  python3 -c "import json, sys; print(json.load(sys.stdin)$1)"
}
card() { # merchantReference number
  seed POST /v1/secure-cards '{"merchantReference": "'"$1"'", "method": "keyed", "verify": false,
    "card": {"number": "'"$2"'", "expiryDate": "1230", "holderName": "Ada Lovelace"},
    "customer": {"email": "ada@example.com", "country": "GB"}}' | field "['secureCardReference']"
}
schedule() { # confirm|pause|none [plan]: a schedule on card sched-1 (default three monthly steps), in that state;
  # prints its id and its steps' ids
  local body id plan=${2:-'"type": "monthly", "startDate": "2029-01-31", "endType": "count", "endCount": 3, "day": 31'}
  body=$(seed POST /v1/schedules '{"merchantReference": "sched-1", "amount": 1999, "currency": "USD", '"$plan"'}')
  id=$(echo "$body" | field "['id']")
  case "$1" in
    confirm) seed POST "/v1/schedules/$id/confirm" >/dev/null ;;
    pause) seed POST "/v1/schedules/$id/confirm" >/dev/null; seed POST "/v1/schedules/$id/pause" >/dev/null ;;
  esac
  echo "$body" | python3 -c "import json, sys; b = json.load(sys.stdin); print(b['id'], *(s['id'] for s in b['steps']))"
}
transaction() { # sale|authorize: an approved USD 50.00 transaction on cust-1
  seed POST /v1/transactions '{"type": "'"$1"'", "amount": 5000, "currency": "USD", "merchantReference": "cust-1", "allowDuplicate": true}' | field "['id']"
}

# Real objects for the operations that need one, each operation its own where it changes state
# (a cancelled schedule cannot be paused, a captured authorization not captured again), so that
# generated requests reach the handlers instead of stopping at a 404.
TOKEN=$(card cust-1 4242424242424242)
card cust-2 5555555555554444 >/dev/null
card cust-3 378282246310005 >/dev/null
card sched-1 6011111111111117 >/dev/null  # the schedules' card, which no dictionary offers for deletion
card del-1 4242424242424242 >/dev/null
card del-2 5555555555554444 >/dev/null
SCHEDULE=$(schedule confirm | cut -d' ' -f1)
# Skipping every step completes a schedule: the skip operation gets an open-ended weekly one (its
# steps are materialized only up to the horizon, so it starts next week).
line=$(schedule confirm '"type": "weekly", "startDate": "'"$(date -u -d '+7 days' +%F)"'", "endType": "never", "day": 1')
read -r TO_SKIP STEPS_TO_SKIP <<<"$line"
PENDING=$(schedule none | cut -d' ' -f1)
TO_PAUSE=$(schedule confirm | cut -d' ' -f1)
TO_RESUME=$(schedule pause | cut -d' ' -f1)
TO_CANCEL=$(schedule confirm | cut -d' ' -f1)
TO_CANCEL2=$(schedule none | cut -d' ' -f1)
AUTH1=$(transaction authorize); AUTH2=$(transaction authorize)
SALE1=$(transaction sale); SALE2=$(transaction sale); SALE3=$(transaction sale)
RUN=$(seed POST /v1/charge-runs '{"dryRun": true}' | field "['id']")
echo "== server on $BASE (pid $SERVER_PID), merchant 'contract': cards, schedules, transactions, a charge run"

# schemathesis draws these values (with the given probability) instead of random ones; the rest of
# each request is still generated from the document.
use() { # operation ids, then location.name=dictionary[@probability] (default 0.8)
  local operations=$1 pairs="" pair binding; shift
  for pair in "$@"; do
    binding=${pair#*=}
    [[ $binding == *@* ]] || binding+="@0.8"
    pairs+="${pairs:+, }\"${pair%%=*}\" = { dictionary = \"${binding%@*}\", probability = ${binding#*@} }"
  done
  printf '[[operations]]\ninclude-operation-id = [%s]\nparameters = { %s }\n\n' "$operations" "$pairs"
}
{
  echo "[dictionaries]"
  echo "live-cards = { values = [\"cust-1\", \"cust-2\", \"cust-3\"] }"
  echo "cards-to-delete = { values = [\"del-1\", \"del-2\"] }"
  echo "card-tokens = { values = [\"$TOKEN\"] }"
  echo "test-card-numbers = { values = [\"4242424242424242\", \"4111 1111 1111 1111\", \"5555555555554444\", \"378282246310005\", \"6011111111111117\"] }"
  echo "expiry-dates = { values = [\"1230\", \"0931\", \"0129\"] }"
  echo "currencies = { values = [\"USD\", \"EUR\", \"GBP\", \"JPY\"] }"
  echo "schedule-to-skip = { values = [\"$TO_SKIP\"] }"
  echo "steps-to-skip = { values = [\"${STEPS_TO_SKIP// /\", \"}\"] }"
  echo "schedules-any = { values = [\"$SCHEDULE\", \"$PENDING\"] }"
  echo "schedule-pending = { values = [\"$PENDING\"] }"
  echo "schedule-to-pause = { values = [\"$TO_PAUSE\"] }"
  echo "schedule-to-resume = { values = [\"$TO_RESUME\"] }"
  echo "schedules-to-cancel = { values = [\"$TO_CANCEL\", \"$TO_CANCEL2\"] }"
  echo "authorizations = { values = [\"$AUTH1\", \"$AUTH2\"] }"
  echo "sales-to-refund = { values = [\"$SALE1\", \"$SALE2\"] }"
  echo "sale-to-void = { values = [\"$SALE3\"] }"
  echo "transactions = { values = [\"$AUTH1\", \"$SALE1\", \"$SALE3\"] }"
  echo "charge-runs = { values = [\"$RUN\"] }"
  echo
  use '"retrieveSecureCard", "updateSecureCard"' path.merchantReference=live-cards \
    body.card.number=test-card-numbers body.card.expiryDate=expiry-dates
  use '"deleteSecureCard"' path.merchantReference=cards-to-delete@1.0
  use '"registerSecureCard"' body.card.number=test-card-numbers body.card.expiryDate=expiry-dates
  use '"createSchedule", "previewSchedule"' body.merchantReference=live-cards body.secureCardReference=card-tokens \
    body.currency=currencies
  use '"getSchedule", "listScheduleSteps", "changeSchedule"' path.id=schedules-any \
    body.merchantReference=live-cards body.secureCardReference=card-tokens
  use '"confirmSchedule"' path.id=schedule-pending
  use '"pauseSchedule"' path.id=schedule-to-pause
  use '"resumeSchedule"' path.id=schedule-to-resume
  use '"cancelSchedule"' path.id=schedules-to-cancel@1.0
  use '"skipScheduleStep"' path.id=schedule-to-skip path.stepId=steps-to-skip
  use '"createTransaction"' body.merchantReference=live-cards body.secureCardReference=card-tokens \
    body.currency=currencies body.card.number=test-card-numbers body.card.expiryDate=expiry-dates
  use '"getTransaction"' path.id=transactions
  use '"captureTransaction"' path.id=authorizations
  use '"refundTransaction"' path.id=sales-to-refund
  use '"voidTransaction"' path.id=sale-to-void
  use '"getChargeRun"' path.id=charge-runs
} >"$WORK/schemathesis.toml"

mkdir -p "$REPORT_DIR"
echo "== schemathesis: checks $CHECKS; phases $PHASES; ≤ $MAX_EXAMPLES examples per operation; ≤ ${MAX_TIME}s; seed $SEED"
status=0
(
  cd "$WORK"
  "$VENV/bin/schemathesis" --config-file "$WORK/schemathesis.toml" run "$BASE/openapi.json" \
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
