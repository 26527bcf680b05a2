#!/usr/bin/env python3
"""Multiplies real, API-created schedules into many due steps, directly in the vault's SQLite file.

The crash test and the runner benchmark need 10,000 to 1,000,000 due steps; creating them through
the API would take longer than the runs they measure. So a few schedules are created through the
API first (real cards, real plans, confirmed: `active`, each with `scheduled` steps due now), and
this script copies them with `INSERT ... SELECT` over a recursive CTE: every column is taken from
the template row, only the ids (and `schedule_id` on steps) are new. Ids have the vault's shape
(`sch_` / `stp_` + 20 lowercase base32 characters); the last characters of a step id carry a
counter, so the runner's order references (`s` + the id's tail + `a<attempt>`) stay unique.

Nothing else is copied: no audit events (the templates have theirs), no transactions.

Usage: seed_due_steps.py --db data/vault.sqlite --total 100000 [--steps-per-schedule 1]
Prints one JSON object: {"templates", "copiedSchedules", "copiedSteps", "dueSteps", "seconds"}.
"""

import argparse
import json
import secrets
import sqlite3
import sys
import time

BASE32 = "abcdefghijklmnopqrstuvwxyz234567"
RUN_TAG = "".join(secrets.choice(BASE32) for _ in range(8))


def seed_id(prefix, number):
    """`prefix` + 20 base32 characters: a per-run tag (8) and the number (12, 60 bits)."""
    digits = []
    for _ in range(12):
        digits.append(BASE32[number & 31])
        number >>= 5
    return prefix + RUN_TAG + "".join(reversed(digits))


def columns(db, table):
    return [row[1] for row in db.execute("PRAGMA table_info(%s)" % table)]


DUE = """
    SELECT count(*) FROM schedule_steps s JOIN schedules sc ON sc.id = s.schedule_id
    WHERE sc.status IN ('active', 'past_due') AND s.status = 'scheduled' AND s.due_at <= ?
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--total", type=int, required=True, help="due steps wanted in the database afterwards")
    parser.add_argument("--steps-per-schedule", type=int, default=1,
                        help="steps per copied schedule (copies of the template's first step, sequence 1..K)")
    parser.add_argument("--as-of", default="9999-12-31T23:59:59.999Z", help="what counts as due (RFC 3339, UTC, ms)")
    args = parser.parse_args()
    started = time.monotonic()
    db = sqlite3.connect(args.db, isolation_level=None, timeout=60)
    db.execute("PRAGMA busy_timeout=60000")
    db.create_function("seed_id", 2, seed_id, deterministic=True)
    templates = [row[0] for row in db.execute(
        """SELECT sc.id FROM schedules sc WHERE sc.status = 'active'
           AND EXISTS (SELECT 1 FROM schedule_steps s WHERE s.schedule_id = sc.id AND s.status = 'scheduled' AND s.due_at <= ?)
           ORDER BY sc.seq""", (args.as_of,))]
    if not templates:
        print("no active schedule with a due step to copy", file=sys.stderr)
        return 1
    due_before = db.execute(DUE, (args.as_of,)).fetchone()[0]
    per = max(1, args.steps_per_schedule)
    wanted = max(0, args.total - due_before)
    copies = (wanted + per - 1) // per
    schedule_columns = [c for c in columns(db, "schedules") if c != "seq"]
    step_columns = [c for c in columns(db, "schedule_steps") if c != "seq"]
    schedule_select = ["seed_id('sch_', n)" if c == "id" else "t." + c for c in schedule_columns]
    step_overrides = {
        "id": "seed_id('stp_', n * 64 + k)",
        "schedule_id": "seed_id('sch_', n)",
        "sequence": "k",
    }
    step_select = [step_overrides.get(c, "t." + c) for c in step_columns]
    template_values = ",".join("(%d, '%s')" % (i, t) for i, t in enumerate(templates))
    db.execute("BEGIN IMMEDIATE")
    db.execute("CREATE TEMP TABLE seed_templates (i INTEGER PRIMARY KEY, id TEXT NOT NULL)")
    db.execute("INSERT INTO seed_templates VALUES " + template_values)
    db.execute("CREATE TEMP TABLE seed_map (n INTEGER PRIMARY KEY, template TEXT NOT NULL)")
    db.execute(
        """WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < ?)
           INSERT INTO seed_map SELECT n, (SELECT id FROM seed_templates WHERE i = n % ?) FROM c""",
        (copies, len(templates)) if copies > 0 else (0, 1))
    if copies > 0:
        db.execute(
            "INSERT INTO schedules (%s) SELECT %s FROM seed_map m JOIN schedules t ON t.id = m.template ORDER BY m.n"
            % (", ".join(schedule_columns), ", ".join(schedule_select)))
        db.execute(
            """WITH RECURSIVE ks(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM ks WHERE k < ?)
               INSERT INTO schedule_steps (%s)
               SELECT %s FROM seed_map m JOIN ks
               JOIN schedule_steps t ON t.id = (SELECT id FROM schedule_steps WHERE schedule_id = m.template ORDER BY sequence LIMIT 1)
               ORDER BY m.n, ks.k"""
            % (", ".join(step_columns), ", ".join(step_select)), (per,))
    db.execute("COMMIT")
    due_after = db.execute(DUE, (args.as_of,)).fetchone()[0]
    db.close()
    print(json.dumps({"templates": len(templates), "copiedSchedules": copies, "copiedSteps": copies * per,
                      "dueSteps": due_after, "seconds": round(time.monotonic() - started, 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
