#!/usr/bin/env bash
# Measures how much one merchant's text searches (`GET /v1/transactions?q=`) slow another merchant:
# merchant A holds SEARCH_ROWS transactions (default 300,000, written straight into a fresh SQLite
# database) and SEARCH_CLIENTS clients (default 6) of A search them for text that matches nothing, in
# a loop; meanwhile merchant B looks up one of its transactions and makes sandbox sales, and the
# script prints B's median and p99 latency beside the same requests with nobody searching.
#
# It runs the same scenario under three configurations of the same binary, so the rows compare
# like with like:
#   unbounded  every search scans the merchant's whole history, any number at once
#              (server.searchScanLimit 10,000,000, server.maxSearchesPerMerchant 1,000)
#   slots      at most server.maxSearchesPerMerchant (2) searches of one merchant at once
#   shipped    slots, and each search examines at most server.searchScanLimit (10,000) rows
#
# Environment: VAULT_BIN (default: a release build), SEARCH_ROWS, SEARCH_CLIENTS,
# SEARCH_SECONDS (per measurement, default 8). Everything stays on 127.0.0.1 in a temporary
# directory removed at the end.
set -euo pipefail
umask 077
cd "$(dirname "$0")/.."
ROOT=$PWD
ROWS=${SEARCH_ROWS:-300000}
CLIENTS=${SEARCH_CLIENTS:-6}
SECONDS_EACH=${SEARCH_SECONDS:-8}
command -v sqlite3 >/dev/null || scripts/install-deps.sh sqlite3
if [ -z "${VAULT_BIN:-}" ]; then
  swift build -c release --product vault >/dev/null
  VAULT_BIN=$(swift build -c release --show-bin-path)/vault
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/vault-search.XXXXXX")
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

cat >"$WORK/base.yaml" <<YAML
server:
  host: 127.0.0.1
  port: 0
  maxConnectionsPerAddress: 4096
metrics:
  port: 0
database:
  path: $WORK/vault.sqlite
keys:
  directory: $WORK/keys
rateLimit:
  requestsPerSecond: 0
logging:
  level: warning
YAML
"$VAULT_BIN" keys init --config "$WORK/base.yaml" >/dev/null
"$VAULT_BIN" migrate --config "$WORK/base.yaml" >/dev/null
A=$("$VAULT_BIN" merchant create searcher --config "$WORK/base.yaml" --json 2>/dev/null | tail -1)
B=$("$VAULT_BIN" merchant create bystander --config "$WORK/base.yaml" --json 2>/dev/null | tail -1)
field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$1" "$2"; }
A_ID=$(field "$A" merchantId); A_KEY=$(field "$A" apiKey); B_ID=$(field "$B" merchantId); B_KEY=$(field "$B" apiKey)

echo "== writing $ROWS transactions of merchant A (and 1,000 of B)"
seed() {  # seed MERCHANT COUNT PREFIX
  sqlite3 "$WORK/vault.sqlite" <<SQL
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $2)
INSERT INTO transactions (id, merchant_id, type, status, amount, currency, merchant_reference, masked_number, idempotency_key,
    order_reference, description, gateway, created_at, updated_at)
SELECT '$3' || i, '$1', 'sale', 'approved', 100 + i % 9000, 'USD', 'order-' || i, '424242******4242', '$3-k' || i,
    '$3-o' || i, 'Monthly plan ' || (i % 50), 'sandbox', strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (i % 600) || ' days'),
    strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM n;
SQL
}
seed "$A_ID" "$ROWS" txn_a
seed "$B_ID" 1000 txn_b

run_config() {  # run_config NAME SCAN_LIMIT SLOTS
  sed -e "s/^  maxConnectionsPerAddress: 4096/  maxConnectionsPerAddress: 4096\n  searchScanLimit: $2\n  maxSearchesPerMerchant: $3/" \
    "$WORK/base.yaml" >"$WORK/$1.yaml"
  "$VAULT_BIN" serve --config "$WORK/$1.yaml" >"$WORK/$1.out" 2>"$WORK/$1.log" &
  SERVER_PID=$!
  for _ in $(seq 1 300); do grep -q "vault listening on" "$WORK/$1.out" 2>/dev/null && break; sleep 0.1; done
  base=$(grep -o "http://[0-9.]*:[0-9]*" "$WORK/$1.out" | head -1)
  [ -n "$base" ] || { echo "search-isolation: the server did not start" >&2; tail "$WORK/$1.log" >&2; exit 1; }
  python3 - "$1" "$base" "$A_KEY" "$B_KEY" "$CLIENTS" "$SECONDS_EACH" <<'PY'
import http.client, json, statistics, sys, threading, time, urllib.parse
name, base, a_key, b_key, clients, seconds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), float(sys.argv[6])
url = urllib.parse.urlparse(base)

def connection():
    return http.client.HTTPConnection(url.hostname, url.port, timeout=120)

def request(conn, method, path, key, body=None):
    headers = {"Authorization": "Bearer " + key}
    if body is not None:
        headers["Content-Type"] = "application/json"
    start = time.perf_counter()
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    text = response.read()
    if response.status not in (200, 201, 402, 429):
        print(method, path, response.status, text[:300], file=sys.stderr)
    return response.status, (time.perf_counter() - start) * 1000

def bystander(until):
    conn = connection()
    lookups, sales, index = [], [], 0
    while time.time() < until:
        index += 1
        status, ms = request(conn, "GET", "/v1/transactions/txn_b%d" % (index % 1000 + 1), b_key)
        assert status == 200, status
        lookups.append(ms)
        if index % 5 == 0:
            body = json.dumps({"type": "sale", "amount": 1500 + index, "currency": "USD", "description": "b-%d" % index, "allowDuplicate": True,
                               "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230"}})
            status, ms = request(conn, "POST", "/v1/transactions", b_key, body)
            assert status in (201, 402), (status, body)
            sales.append(ms)
    return lookups, sales

searches = {"done": 0, "refused": 0}
def searcher(until, lock):
    conn = connection()
    while time.time() < until:
        status, _ = request(conn, "GET", "/v1/transactions?q=no-such-text&limit=100", a_key)
        with lock:
            searches["done" if status == 200 else "refused"] += 1
        if status == 429:
            time.sleep(0.05)

def p(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))] if values else float("nan")

quiet = bystander(time.time() + seconds)
lock, until = threading.Lock(), time.time() + seconds
threads = [threading.Thread(target=searcher, args=(until, lock)) for _ in range(clients)]
for thread in threads: thread.start()
loaded = bystander(until)
for thread in threads: thread.join()
for label, (lookups, sales) in (("quiet", quiet), ("searched", loaded)):
    print("%-9s %-8s B lookup median %7.1f ms p99 %7.1f ms | B sale median %7.1f ms p99 %7.1f ms | A searches answered %d, refused %d" % (
        name, label, p(lookups, 0.5), p(lookups, 0.99), p(sales, 0.5), p(sales, 0.99),
        searches["done"] if label == "searched" else 0, searches["refused"] if label == "searched" else 0))
PY
  kill -TERM "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""
}

run_config unbounded 10000000 1000
run_config slots 10000000 2
run_config shipped 10000 2
