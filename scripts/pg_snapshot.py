#!/usr/bin/env python3
"""Copies the tables the exactly-once checks read from a PostgreSQL vault into a new SQLite file.

  pg_snapshot.py --url postgres://... --out FILE.sqlite

schedules (id, status), schedule_steps (id, schedule_id, status, lease_owner) and transactions
(id, step_id, order_reference, status, gateway_transaction_id), through psql's CSV output, so the
crash test's check_exactly_once (written for SQLite) runs unchanged on a PostgreSQL run.
Standard library and psql only.
"""

import argparse
import csv
import io
import os
import sqlite3
import subprocess
import sys

TABLES = {
    "schedules": ["id", "status"],
    "schedule_steps": ["id", "schedule_id", "status", "lease_owner"],
    "transactions": ["id", "step_id", "order_reference", "status", "gateway_transaction_id"],
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if os.path.exists(args.out):
        os.remove(args.out)
    db = sqlite3.connect(args.out)
    for table, columns in TABLES.items():
        # NULLs as \N so they stay NULL (an empty string is a value).
        sql = "\\copy (SELECT %s FROM %s) TO STDOUT WITH (FORMAT csv, NULL '\\N')" % (", ".join(columns), table)
        done = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", args.url, "-c", sql], capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit("psql failed on %s: %s" % (table, done.stderr.strip()[-1000:]))
        db.execute("CREATE TABLE %s (%s)" % (table, ", ".join(columns)))
        rows = [[None if value == "\\N" else value for value in row] for row in csv.reader(io.StringIO(done.stdout))]
        db.executemany("INSERT INTO %s VALUES (%s)" % (table, ", ".join("?" * len(columns))), rows)
    db.commit()
    db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
