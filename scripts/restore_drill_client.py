#!/usr/bin/env python3
"""HTTP side of scripts/restore-drill.sh (standard library only).

  register BASE KEY PREFIX COUNT OUT   registers COUNT keyed cards (verify false), appends each
                                       acknowledged reference to OUT; every one must be 2xx
  write BASE KEY PREFIX STOP OUT       registers cards until the file STOP exists (the writes a
                                       backup and a rotation run under); 429 and 5xx are retried
  verify BASE KEY EXPECTED             lists every card and retrieves each: all must open (200);
                                       every reference in EXPECTED must be among them
"""
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

NUMBERS = ["4242424242424242", "5555555555554444", "378282246310005", "6011111111111117"]


def call(base, key, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Authorization", "Bearer " + key)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, None
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return 0, None


def register_one(base, key, reference, number):
    body = {"merchantReference": reference, "method": "keyed", "verify": False,
            "card": {"number": NUMBERS[number % len(NUMBERS)], "expiryDate": "1230", "holderName": "Drill Card"}}
    for _ in range(100):
        status, _ = call(base, key, "POST", "/v1/secure-cards", body)
        if status == 429 or status == 0:
            time.sleep(0.2)
            continue
        return status
    return status


def register(base, key, prefix, count, out):
    with open(out, "a") as file:
        for number in range(int(count)):
            reference = "%s-%d" % (prefix, number)
            status = register_one(base, key, reference, number)
            if not 200 <= status < 300:
                print("registering %s answered %d" % (reference, status), file=sys.stderr)
                return 1
            file.write(reference + "\n")
    return 0


def write(base, key, prefix, stop, out):
    number = 0
    with open(out, "a", buffering=1) as file:
        while not os.path.exists(stop):
            reference = "%s-%d" % (prefix, number)
            status = register_one(base, key, reference, number)
            number += 1
            if 200 <= status < 300:
                file.write(reference + "\n")
            elif status >= 500:
                print("registering %s answered %d" % (reference, status), file=sys.stderr)
                return 1
    return 0


def verify(base, key, expected):
    references, cursor = [], None
    while True:
        path = "/v1/secure-cards?limit=100" + ("&cursor=" + urllib.parse.quote(cursor) if cursor else "")
        status, body = call(base, key, "GET", path)
        if status != 200:
            print("listing cards answered %d" % status, file=sys.stderr)
            return 1
        references += [card["merchantReference"] for card in body["data"]]
        cursor = body.get("nextCursor")
        if not cursor:
            break
    unopened = []
    for reference in references:
        status, _ = call(base, key, "GET", "/v1/secure-cards/" + urllib.parse.quote(reference))
        if status != 200:
            unopened.append((reference, status))
    wanted = [line.strip() for line in open(expected) if line.strip()]
    missing = sorted(set(wanted) - set(references))
    print("restored cards: %d listed, %d opened, %d of %d expected present"
          % (len(references), len(references) - len(unopened), len(wanted) - len(missing), len(wanted)))
    if unopened:
        print("cards that did not open: %s" % unopened[:10], file=sys.stderr)
    if missing:
        print("cards acknowledged before the backup and missing: %s" % missing[:10], file=sys.stderr)
    return 1 if unopened or missing or not references else 0


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    sys.exit({"register": register, "write": write, "verify": verify}[command](*arguments))
