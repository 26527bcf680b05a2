#!/usr/bin/env python3
"""A fake NMI gateway on loopback for the charge-runner crash test and benchmark.

Speaks NMI's wire formats as the `nmi` adapter (Sources/Payments/Gateways/NMI/) and the Swift
test fake (Sources/GatewayFakes/FakeNMIServer*.swift) do:

- Direct Post: form POST /api/transact.php (security_key, type=sale|auth|validate, ccnumber,
  ccexp, amount, currency, orderid, ...), answered form-encoded
  `response=1&responsetext=SUCCESS&authcode=...&transactionid=...&...&response_code=100`.
- Query API: form POST /api/query.php (security_key, order_id or transaction_id), answered with
  `<nm_response><transaction>...</transaction></nm_response>`.

Every transaction is recorded in a SQLite file (table `sales`, one row per transaction, with the
`orderid` the runner sent: its idempotency reference) before the answer is sent, so a checker
can compare the gateway's view with the vault's. Unlike NMI, a second sale with an order id
already seen is accepted and recorded (and counted as a duplicate): the point is to catch a
runner that charges twice, not to hide it. `--reject-duplicates` answers NMI's
"Duplicate transaction" (response 3, code 300) instead.

Test triggers: an amount under 1.00 declines (200); an amount of exactly 202.00 declines with
insufficient funds (202); an expiry in the past declines (223).

GET /stats answers JSON counts. Standard library only.

Usage: fake_nmi_gateway.py --db sales.sqlite [--port 0] [--port-file F] [--latency-ms 50] [--query-latency-ms 0]
       [--security-key KEY] [--lost-rate 0.0] [--slow-rate 0.0 --slow-ms 40000]
       [--outage-status 503] [--reject-duplicates]
"""

import argparse
import datetime
import html
import json
import os
import random
import sqlite3
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_KEY = "fake6457Thfj624V5r7WUwc5v6a68Zsd"
CODE_TEXTS = {
    "100": "SUCCESS", "200": "DECLINE", "202": "Insufficient funds", "223": "Expired card",
    "300": "Rejected",
}


def luhn(digits):
    total = 0
    for index, char in enumerate(reversed(digits)):
        digit = int(char)
        if index % 2 == 1:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return total % 10 == 0


def units(text):
    """An amount in thousandths from a decimal with at most three fraction digits, else None."""
    whole, _, fraction = text.partition(".")
    if not whole.isdigit() or (fraction and (not fraction.isdigit() or len(fraction) > 3)):
        return None
    if "." in text and not fraction:
        return None
    return int(whole) * 1000 + int((fraction + "000")[:3])


def form(pairs):
    return "&".join(key + "=" + urllib.parse.quote_plus(value) for key, value in pairs)


class Ledger:
    """The fake's transactions: in memory for look-ups, in SQLite for the checker."""

    def __init__(self, path, reject_duplicates):
        self.lock = threading.Lock()
        self.reject_duplicates = reject_duplicates
        self.next_id = 9_100_000_001
        self.by_order = {}
        self.by_id = {}
        self.counts = {"requests": 0, "sales": 0, "approved": 0, "declined": 0, "rejected": 0,
                       "duplicates": 0, "lookups": 0, "lost": 0, "slow": 0, "outage": 0, "validates": 0}
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=OFF")
        self.db.execute(
            """CREATE TABLE IF NOT EXISTS sales (
                seq INTEGER PRIMARY KEY, transaction_id TEXT NOT NULL UNIQUE, type TEXT NOT NULL,
                order_id TEXT NOT NULL, amount TEXT NOT NULL, currency TEXT NOT NULL,
                response TEXT NOT NULL, response_code TEXT NOT NULL, auth_code TEXT NOT NULL,
                duplicate INTEGER NOT NULL, created_at REAL NOT NULL)""")
        self.db.execute("CREATE INDEX IF NOT EXISTS sales_by_order ON sales(order_id)")
        row = self.db.execute("SELECT max(CAST(transaction_id AS INTEGER)) FROM sales").fetchone()
        if row and row[0]:
            self.next_id = int(row[0]) + 1
        for (tid, kind, order, amount, currency, response, code, auth) in self.db.execute(
                "SELECT transaction_id, type, order_id, amount, currency, response, response_code, auth_code FROM sales"):
            self._remember(dict(transaction_id=tid, type=kind, order_id=order, amount=amount, currency=currency,
                                response=response, response_code=code, auth_code=auth))

    def _remember(self, txn):
        self.by_id[txn["transaction_id"]] = txn
        self.by_order.setdefault(txn["order_id"], []).append(txn)

    def charge(self, kind, order_id, amount_text, currency, code):
        """Records one transaction; answers (txn, duplicate) or (None, True) when rejected as a duplicate."""
        with self.lock:
            self.counts["requests"] += 1
            earlier = [t for t in self.by_order.get(order_id, []) if t["type"] == kind] if order_id else []
            duplicate = bool(earlier)
            if duplicate and self.reject_duplicates:
                self.counts["rejected"] += 1
                return None, True
            response = "1" if code == "100" else "2"
            tid = str(self.next_id)
            self.next_id += 1
            txn = dict(transaction_id=tid, type=kind, order_id=order_id, amount=amount_text, currency=currency,
                       response=response, response_code=code, auth_code=tid[-6:] if response == "1" else "")
            self._remember(txn)
            key = "validates" if kind == "validate" else "sales"
            self.counts[key] += 1
            self.counts["approved" if response == "1" else "declined"] += 1
            if duplicate:
                self.counts["duplicates"] += 1
            self.db.execute(
                "INSERT INTO sales (transaction_id, type, order_id, amount, currency, response, response_code, auth_code,"
                " duplicate, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (tid, kind, order_id, amount_text, currency, response, code, txn["auth_code"], int(duplicate), time.time()))
            return txn, duplicate

    def find(self, order_id=None, transaction_id=None):
        with self.lock:
            self.counts["lookups"] += 1
            if transaction_id:
                found = self.by_id.get(transaction_id)
                return [found] if found else []
            if order_id is not None:
                return list(self.by_order.get(order_id, []))
            return list(self.by_id.values())

    def count(self, name):
        with self.lock:
            self.counts[name] += 1

    def stats(self):
        with self.lock:
            counts = dict(self.counts)
            counts["distinct_orders"] = len(self.by_order)
            counts["orders_with_more_than_one_sale"] = sum(
                1 for txns in self.by_order.values() if sum(1 for t in txns if t["type"] == "sale") > 1)
            return counts


def transaction_xml(txn):
    def element(name, value):
        return "<%s>%s</%s>" % (name, html.escape(value, quote=False), name)

    approved = txn["response"] == "1"
    condition = "pendingsettlement" if approved else "failed"
    if approved and txn["type"] == "auth":
        condition = "pending"
    if approved and txn["type"] == "validate":
        condition = "complete"
    text = "<transaction>"
    text += element("transaction_id", txn["transaction_id"]) + element("transaction_type", "cc")
    text += element("condition", condition) + element("order_id", txn["order_id"])
    text += element("authorization_code", txn["auth_code"]) + element("currency", txn["currency"].lower())
    text += "<action>" + element("amount", txn["amount"]) + element("action_type", txn["type"])
    text += element("date", "20300101100000") + element("success", "1" if approved else "0")
    text += element("source", "api") + element("response_text", CODE_TEXTS.get(txn["response_code"], "DECLINE"))
    text += element("response_code", txn["response_code"]) + "</action>"
    return text + "</transaction>\n"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeNMI/1.0"
    # Headers and body go out in two writes: without TCP_NODELAY, Nagle and the client's delayed
    # ACK add ~40 ms to every answer on a kept-alive connection.
    disable_nagle_algorithm = True

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass

    def reply(self, status, body, content_type):
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/stats":
            self.reply(200, json.dumps(self.server.ledger.stats()), "application/json")
        elif self.path == "/healthz":
            self.reply(200, "ok", "text/plain")
        else:
            self.reply(404, "not found", "text/plain")

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8", "replace")
        fields = dict(urllib.parse.parse_qsl(raw, keep_blank_values=True))
        latency = self.server.query_latency if self.path == "/api/query.php" else self.server.latency
        if latency > 0:
            time.sleep(latency)
        if self.server.outage_status:
            # A gateway outage: every call fails, nothing is recorded.
            self.server.ledger.count("outage")
            return self.reply(self.server.outage_status, "<html>Service Unavailable</html>", "text/html")
        if self.path == "/api/transact.php":
            self.transact(fields)
        elif self.path == "/api/query.php":
            self.query(fields)
        else:
            self.reply(404, "<html>Not Found</html>", "text/html")

    def rejected(self, text, kind):
        pairs = [("response", "3"), ("responsetext", text + " REFID:3000000001"), ("authcode", ""),
                 ("transactionid", ""), ("avsresponse", ""), ("cvvresponse", ""), ("orderid", ""),
                 ("type", kind), ("response_code", "300")]
        self.reply(200, form(pairs), "text/html; charset=UTF-8")

    def transact(self, fields):
        kind = fields.get("type", "")
        if fields.get("security_key") != self.server.security_key:
            return self.rejected("Authentication Failed", kind)
        if kind not in ("sale", "auth", "validate"):
            return self.rejected("Invalid Transaction Type", kind)
        number = fields.get("ccnumber", "")
        if not (13 <= len(number) <= 19 and number.isdigit() and luhn(number)):
            return self.rejected("Invalid Credit Card Number", kind)
        expiry = fields.get("ccexp", "")
        if not (len(expiry) == 4 and expiry.isdigit() and 1 <= int(expiry[:2]) <= 12):
            return self.rejected("Invalid Credit Card Expiration Date", kind)
        amount_text = fields.get("amount", "0.00" if kind == "validate" else "")
        amount = units(amount_text)
        if amount is None or (amount != 0 if kind == "validate" else amount <= 0):
            return self.rejected("Invalid amount", kind)
        currency = fields.get("currency", "USD")
        order_id = fields.get("orderid", "")
        today = datetime.datetime.now(datetime.timezone.utc)
        code = "100"
        if (2000 + int(expiry[2:]), int(expiry[:2])) < (today.year, today.month):
            code = "223"
        elif kind != "validate" and amount < 1000:
            code = "200"
        elif amount == 202000:
            code = "202"
        if kind == "sale" and self.server.slow_rate > 0 and random.random() < self.server.slow_rate:
            # Processing takes longer than the client waits: the sale is recorded after it gave up.
            self.server.ledger.count("slow")
            time.sleep(self.server.slow)
        txn, duplicate = self.server.ledger.charge(kind, order_id, amount_text, currency, code)
        if txn is None:
            return self.rejected("Duplicate transaction", kind)
        if kind == "sale" and self.server.lost_rate > 0 and random.random() < self.server.lost_rate:
            # Processed and recorded, but the answer is lost: the runner must settle it by look-up.
            self.server.ledger.count("lost")
            self.close_connection = True
            return
        pairs = [("response", txn["response"]), ("responsetext", CODE_TEXTS.get(code, "DECLINE")),
                 ("authcode", txn["auth_code"]), ("transactionid", txn["transaction_id"]), ("avsresponse", ""),
                 ("cvvresponse", ""), ("orderid", order_id), ("type", kind), ("response_code", code)]
        self.reply(200, form(pairs), "text/html; charset=UTF-8")

    def query(self, fields):
        if fields.get("security_key") != self.server.security_key:
            body = "<nm_response><error_response>Invalid Security Key REFID:3000000001</error_response></nm_response>"
            return self.reply(200, body, "text/xml; charset=UTF-8")
        found = self.server.ledger.find(order_id=fields.get("order_id"), transaction_id=fields.get("transaction_id"))
        body = '<?xml version="1.0" encoding="UTF-8"?>\n<nm_response>\n' + "".join(map(transaction_xml, found))
        self.reply(200, body + "</nm_response>\n", "text/xml; charset=UTF-8")


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 4096
    allow_reuse_address = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", required=True, help="SQLite file recording every transaction")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file", help="write the bound port here once listening")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="delay before every answer")
    parser.add_argument("--query-latency-ms", type=float, help="delay before look-up answers (default: --latency-ms)")
    parser.add_argument("--security-key", default=DEFAULT_KEY)
    parser.add_argument("--lost-rate", type=float, default=0.0,
                        help="probability that a processed sale's answer is dropped (connection closed)")
    parser.add_argument("--slow-rate", type=float, default=0.0,
                        help="probability that a sale is processed only after --slow-ms (beyond the client's timeout)")
    parser.add_argument("--slow-ms", type=float, default=40000.0)
    parser.add_argument("--outage-status", type=int, default=0,
                        help="answer every POST with this HTTP status (e.g. 503) and record nothing")
    parser.add_argument("--reject-duplicates", action="store_true",
                        help="answer NMI's 'Duplicate transaction' for a second sale of one order id")
    args = parser.parse_args()
    server = Server(("127.0.0.1", args.port), Handler)
    server.ledger = Ledger(args.db, args.reject_duplicates)
    server.latency = args.latency_ms / 1000.0
    server.query_latency = (args.latency_ms if args.query_latency_ms is None else args.query_latency_ms) / 1000.0
    server.security_key = args.security_key
    server.lost_rate = args.lost_rate
    server.outage_status = args.outage_status
    server.slow_rate = args.slow_rate
    server.slow = args.slow_ms / 1000.0
    port = server.server_address[1]
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as handle:
            handle.write(str(port))
        os.replace(args.port_file + ".tmp", args.port_file)
    print("fake NMI gateway listening on http://127.0.0.1:%d" % port, flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
