#!/usr/bin/env python3
"""Load and check drivers of scripts/failover-test.sh. Standard library only.

  failover_driver.py register --bases URL1,URL2 --key KEY --out FILE --stop-file F [--threads 8]
      Registers keyed cards (POST /v1/secure-cards, verify false, each with its own merchant
      reference) on the servers in turn, from several threads, until F exists; every request is
      one JSON line in FILE: {"ref", "server", "status" (0 = no answer), "started", "ended"}
      (wall-clock seconds). Connection errors are recorded and retried after 50 ms.

  failover_driver.py check --bases URL1,URL2 --key KEY --acks FILE [--kill-time T]
      Every registration answered 2xx must be retrievable (GET /v1/secure-cards/{ref}, 200) on
      every server. Prints one JSON object: requests, acknowledged, lost (acknowledged but not
      retrievable on some server, with up to 10 references), failed (non-2xx or no answer), and
      with --kill-time: the first 2xx of a request sent after the kill and its delay. Exit 1 when
      any acknowledged write is lost.

  failover_driver.py schedules --base URL --key KEY --count N [--amount 1234]
      N cards and `delayedOnce` schedules due today 00:00 UTC (confirmed): N due steps for a charge
      run. Prints {"schedules": N}.
"""

import argparse
import datetime
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse

NUMBERS = ["4242424242424242", "5555555555554444", "4111111111111111", "6011111111111117"]


class Client:
    """One keep-alive HTTP connection to one server, reopened after an error."""

    def __init__(self, base, key, timeout=10):
        url = urllib.parse.urlparse(base)
        self.host, self.port, self.key, self.timeout = url.hostname, url.port, key, timeout
        self.connection = None

    def call(self, method, path, body=None):
        """Answers (status, parsed body or None); status 0 when no answer came."""
        try:
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            self.connection.request(method, path, None if body is None else json.dumps(body),
                                    {"Authorization": "Bearer " + self.key, "Content-Type": "application/json"})
            response = self.connection.getresponse()
            text = response.read()
            try:
                parsed = json.loads(text) if text else None
            except ValueError:
                parsed = None
            return response.status, parsed
        except (OSError, http.client.HTTPException):
            if self.connection is not None:
                self.connection.close()
            self.connection = None
            return 0, None


def register(args):
    bases = args.bases.split(",")
    lock = threading.Lock()
    out = open(args.out, "a", buffering=1)
    tag = "%x" % int(time.time() * 1000)

    def worker(index):
        clients = [Client(base, args.key) for base in bases]
        number = 0
        while not os.path.exists(args.stop_file):
            server = (index + number) % len(bases)
            reference = "fo-%s-%d-%d" % (tag, index, number)
            number += 1
            body = {"merchantReference": reference, "method": "keyed", "verify": False,
                    "card": {"number": NUMBERS[number % len(NUMBERS)], "expiryDate": "1230", "holderName": "Failover Card"}}
            started = time.time()
            status, _ = clients[server].call("POST", "/v1/secure-cards", body)
            ended = time.time()
            line = json.dumps({"ref": reference, "server": server, "status": status, "started": started, "ended": ended})
            with lock:
                out.write(line + "\n")
            if status == 0 or status >= 500:
                time.sleep(0.05)

    threads = [threading.Thread(target=worker, args=(index,)) for index in range(args.threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out.close()
    return 0


def check(args):
    bases = args.bases.split(",")
    records = [json.loads(line) for line in open(args.acks) if line.strip()]
    acknowledged = [r for r in records if 200 <= r["status"] < 300]
    clients = [Client(base, args.key, timeout=30) for base in bases]
    lost = []
    for record in acknowledged:
        for index, client in enumerate(clients):
            status = 0
            for _ in range(3):
                status, body = client.call("GET", "/v1/secure-cards/" + urllib.parse.quote(record["ref"]))
                if status != 0:
                    break
                time.sleep(0.2)
            if status != 200:
                lost.append({"ref": record["ref"], "server": index, "status": status})
    report = {"requests": len(records), "acknowledged": len(acknowledged), "lost": len(lost), "lostExamples": lost[:10],
              "failed": len(records) - len(acknowledged),
              "failedByStatus": {str(s): sum(1 for r in records if r["status"] == s)
                                 for s in sorted({r["status"] for r in records if not 200 <= r["status"] < 300})}}
    if args.kill_time is not None:
        after = [r for r in acknowledged if r["started"] >= args.kill_time]
        if after:
            first = min(after, key=lambda r: r["ended"])
            report["firstSuccessAfterKillSeconds"] = round(first["ended"] - args.kill_time, 3)
        else:
            report["firstSuccessAfterKillSeconds"] = None
        report["acknowledgedBeforeKill"] = sum(1 for r in acknowledged if r["ended"] < args.kill_time)
        report["acknowledgedAfterKill"] = len(after)
    print(json.dumps(report))
    return 1 if lost else 0


def schedules(args):
    client = Client(args.base, args.key, timeout=30)
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    for index in range(args.count):
        reference = "fo-charge-%d-%d" % (int(time.time()), index)
        status, body = client.call("POST", "/v1/secure-cards", {
            "merchantReference": reference, "method": "keyed", "verify": False,
            "card": {"number": NUMBERS[index % len(NUMBERS)], "expiryDate": "1230", "holderName": "Charge Card"}})
        if status != 201:
            sys.exit("card %d: HTTP %d %s" % (index, status, body))
        status, schedule = client.call("POST", "/v1/schedules", {
            "merchantReference": reference, "amount": args.amount, "currency": "USD", "description": "failover plan",
            "type": "delayedOnce", "startDate": today, "hour": 0, "minute": 0, "timeZone": "UTC"})
        if status not in (200, 201):
            sys.exit("schedule %d: HTTP %d %s" % (index, status, schedule))
        status, body = client.call("POST", "/v1/schedules/%s/confirm" % schedule["id"])
        if status not in (200, 201):
            sys.exit("confirm %d: HTTP %d %s" % (index, status, body))
    print(json.dumps({"schedules": args.count}))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    modes = parser.add_subparsers(dest="mode", required=True)
    load = modes.add_parser("register")
    load.add_argument("--bases", required=True)
    load.add_argument("--key", required=True)
    load.add_argument("--out", required=True)
    load.add_argument("--stop-file", required=True)
    load.add_argument("--threads", type=int, default=8)
    verify = modes.add_parser("check")
    verify.add_argument("--bases", required=True)
    verify.add_argument("--key", required=True)
    verify.add_argument("--acks", required=True)
    verify.add_argument("--kill-time", type=float)
    seed = modes.add_parser("schedules")
    seed.add_argument("--base", required=True)
    seed.add_argument("--key", required=True)
    seed.add_argument("--count", type=int, required=True)
    seed.add_argument("--amount", type=int, default=1234)
    args = parser.parse_args()
    return {"register": register, "check": check, "schedules": schedules}[args.mode](args)


if __name__ == "__main__":
    sys.exit(main())
