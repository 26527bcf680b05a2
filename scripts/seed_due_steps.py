#!/usr/bin/env python3
"""Multiplies real, API-created schedules into many due steps, directly in the vault's SQLite file.

The crash test and the runner benchmark need 10,000 to 1,000,000 due steps; creating them through
the API would take longer than the runs they measure. So a few schedules are created through the
API first (real cards, real plans, confirmed: `active`, each with `scheduled` steps due now), and
this script copies them with `INSERT ... SELECT` over a recursive CTE: every column is taken from
the template row, only the ids (and `schedule_id` on steps) are new, and the row binding (a MAC the
vault keeps over each schedule and step row's content and id) is left NULL: a copy with its
template's binding, or with none, fails the runner's integrity check and goes to review instead of
being charged. `prepare` then runs `benchmark-seed-binder --merchant ID` (beside the `vault`
binary, or --binder), which binds every unbound row of the seeded merchant with the vault's own
keys, so the copies are rows the vault itself would have written. Ids have the vault's shape
(`sch_` / `stp_` + 20 lowercase base32 characters); the last characters of a step id carry a
counter, so the runner's order references (`s` + the id's tail + `a<attempt>`) stay unique.

Nothing else is copied: no audit events (the templates have theirs), no transactions.

Two modes:

  seed_due_steps.py prepare --vault BIN [--binder BIN] --dir DIR --total N [--gateway nmi --gateway-url URL
                            --security-key KEY | --gateway bridgepay|authorizenet --gateway-url URL --gateway-credential K=V ...] [--cards 4] [--templates 8] [--steps-per-schedule 1]
      A fresh vault in DIR (VAULT_DATABASE=DIR/vault.sqlite, VAULT_KEYS_DIR=DIR/keys): `vault keys
      init`, `vault migrate`, `vault merchant create shop ...`, then `vault serve` on port 0, where the templates
      are made through the HTTP API: cards (POST /v1/secure-cards, keyed, verify false) and
      `delayedOnce` schedules starting today (UTC) at 00:00 (POST /v1/schedules, then /confirm),
      so their steps are due now; the server is stopped with SIGTERM, the templates copied and the
      copies bound.

  seed_due_steps.py copy --db DIR/vault.sqlite --total N [--steps-per-schedule 1]
      Only the copy, from the active schedules with due steps already in the database. The copies are
      unbound (the runner sends them to review) until `benchmark-seed-binder --merchant ID` runs with
      the vault's environment; a reminder is printed on standard error.

  Either mode with --database-url postgres://... works on PostgreSQL instead: `vault` runs with
  VAULT_DATABASE_URL, and the copy is the same INSERT ... SELECT over generate_series, through psql
  (identity columns left to the database).

Both print one JSON object: {"templates", "copiedSchedules", "copiedSteps", "dueSteps", "seconds"}
(prepare adds "merchantId" and "boundSteps", the steps the binder bound; "seconds" is the copy's,
"bindSeconds" the binder's).
"""

import argparse
import datetime
import json
import os
import re
import secrets
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request

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


def copy(db_path, total, steps_per_schedule, as_of="9999-12-31T23:59:59.999Z"):
    """Copies the due templates until `total` steps are due; answers the JSON report."""
    started = time.monotonic()
    db = sqlite3.connect(db_path, isolation_level=None, timeout=60)
    db.execute("PRAGMA busy_timeout=60000")
    db.create_function("seed_id", 2, seed_id, deterministic=True)
    templates = [row[0] for row in db.execute(
        """SELECT sc.id FROM schedules sc WHERE sc.status = 'active'
           AND EXISTS (SELECT 1 FROM schedule_steps s WHERE s.schedule_id = sc.id AND s.status = 'scheduled' AND s.due_at <= ?)
           ORDER BY sc.seq""", (as_of,))]
    if not templates:
        raise SystemExit("no active schedule with a due step to copy")
    due_before = db.execute(DUE, (as_of,)).fetchone()[0]
    per = max(1, steps_per_schedule)
    copies = (max(0, total - due_before) + per - 1) // per
    schedule_columns = [c for c in columns(db, "schedules") if c != "seq"]
    step_columns = [c for c in columns(db, "schedule_steps") if c != "seq"]
    schedule_select = {"id": "seed_id('sch_', n)", "binding": "NULL"}
    schedule_select = [schedule_select.get(c, "t." + c) for c in schedule_columns]
    step_overrides = {"id": "seed_id('stp_', n * 64 + k)", "schedule_id": "seed_id('sch_', n)", "sequence": "k", "binding": "NULL"}
    step_select = [step_overrides.get(c, "t." + c) for c in step_columns]
    db.execute("BEGIN IMMEDIATE")
    db.execute("CREATE TEMP TABLE seed_templates (i INTEGER PRIMARY KEY, id TEXT NOT NULL)")
    db.executemany("INSERT INTO seed_templates VALUES (?, ?)", list(enumerate(templates)))
    db.execute("CREATE TEMP TABLE seed_map (n INTEGER PRIMARY KEY, template TEXT NOT NULL)")
    if copies > 0:
        db.execute(
            """WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < ?)
               INSERT INTO seed_map SELECT n, (SELECT id FROM seed_templates WHERE i = n % ?) FROM c""",
            (copies, len(templates)))
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
    due_after = db.execute(DUE, (as_of,)).fetchone()[0]
    db.close()
    return {"templates": len(templates), "copiedSchedules": copies, "copiedSteps": copies * per,
            "dueSteps": due_after, "seconds": round(time.monotonic() - started, 2)}


def psql(url, sql, *extra):
    """Runs `sql` with psql on `url` (ON_ERROR_STOP, one transaction when the text says so); answers stdout."""
    done = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", *extra, url], input=sql,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit("psql failed (%d): %s" % (done.returncode, done.stderr.strip()[-2000:]))
    return done.stdout


def copy_postgres(url, total, steps_per_schedule, as_of="9999-12-31T23:59:59.999Z"):
    """`copy` on PostgreSQL (`VAULT_DATABASE_URL`): the same templates, copied with INSERT ... SELECT over
    generate_series through psql; identity columns (`seq`) are left to the database."""
    started = time.monotonic()
    literal = "'%s'" % as_of
    due_sql = DUE.replace("?", literal)
    templates = int(psql(url, """SELECT count(*) FROM schedules sc WHERE sc.status = 'active'
        AND EXISTS (SELECT 1 FROM schedule_steps s WHERE s.schedule_id = sc.id AND s.status = 'scheduled' AND s.due_at <= %s)""" % literal).strip())
    if templates == 0:
        raise SystemExit("no active schedule with a due step to copy")
    due_before = int(psql(url, due_sql).strip())
    per = max(1, steps_per_schedule)
    copies = (max(0, total - due_before) + per - 1) // per

    def columns_of(table):
        rows = psql(url, """SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()
            AND table_name = '%s' AND is_identity = 'NO' AND coalesce(column_default, '') NOT LIKE 'nextval(%%'
            ORDER BY ordinal_position""" % table)
        return [line for line in rows.splitlines() if line]

    schedule_columns = columns_of("schedules")
    step_columns = columns_of("schedule_steps")
    schedule_select = {"id": "pg_temp.seed_id('sch_', m.n)", "binding": "NULL"}
    schedule_select = [schedule_select.get(c, "t." + c) for c in schedule_columns]
    overrides = {"id": "pg_temp.seed_id('stp_', m.n * 64 + k)", "schedule_id": "pg_temp.seed_id('sch_', m.n)", "sequence": "k",
                 "binding": "NULL"}
    step_select = [overrides.get(c, "t." + c) for c in step_columns]
    if copies > 0:
        psql(url, """
            BEGIN;
            CREATE FUNCTION pg_temp.seed_id(prefix text, number bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
              SELECT prefix || '%(tag)s' || string_agg(substr('%(alphabet)s', ((number >> (5 * (11 - i))) & 31)::int + 1, 1), '' ORDER BY i)
              FROM generate_series(0, 11) AS i
            $$;
            CREATE TEMP TABLE seed_templates ON COMMIT DROP AS
              SELECT (row_number() OVER (ORDER BY sc.seq)) - 1 AS i, sc.id FROM schedules sc WHERE sc.status = 'active'
              AND EXISTS (SELECT 1 FROM schedule_steps s WHERE s.schedule_id = sc.id AND s.status = 'scheduled' AND s.due_at <= %(asof)s);
            CREATE TEMP TABLE seed_map ON COMMIT DROP AS
              SELECT n, (SELECT id FROM seed_templates WHERE i = n %% %(templates)d) AS template FROM generate_series(1, %(copies)d) AS n;
            INSERT INTO schedules (%(scols)s) SELECT %(ssel)s FROM seed_map m JOIN schedules t ON t.id = m.template ORDER BY m.n;
            INSERT INTO schedule_steps (%(tcols)s)
              SELECT %(tsel)s FROM seed_map m CROSS JOIN generate_series(1, %(per)d) AS k
              JOIN schedule_steps t ON t.id = (SELECT id FROM schedule_steps WHERE schedule_id = m.template ORDER BY sequence LIMIT 1)
              ORDER BY m.n, k;
            COMMIT;
            ANALYZE schedules; ANALYZE schedule_steps;
            """ % {"tag": RUN_TAG, "alphabet": BASE32, "asof": literal, "templates": templates, "copies": copies,
                   "scols": ", ".join(schedule_columns), "ssel": ", ".join(schedule_select),
                   "tcols": ", ".join(step_columns), "tsel": ", ".join(step_select), "per": per})
    due_after = int(psql(url, due_sql).strip())
    return {"templates": templates, "copiedSchedules": copies, "copiedSteps": copies * per,
            "dueSteps": due_after, "seconds": round(time.monotonic() - started, 2)}


CARDS = ["4242424242424242", "5555555555554444", "4111111111111111", "4012888888881881",
         "5105105105105100", "4000056655665556", "2223003122003222", "5200828282828210"]


class Vault:
    """Runs the `vault` executable on one directory."""

    def __init__(self, binary, directory, database_url=None):
        self.binary = os.path.abspath(binary)
        self.directory = os.path.abspath(directory)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("VAULT_")}
        self.env.update(VAULT_DATABASE=os.path.join(self.directory, "vault.sqlite"),
                        VAULT_KEYS_DIR=os.path.join(self.directory, "keys"), VAULT_HOST="127.0.0.1", VAULT_PORT="0", VAULT_METRICS_PORT="0")
        if database_url:
            self.env["VAULT_DATABASE_URL"] = database_url

    def run(self, *arguments, binary=None):
        done = subprocess.run([binary or self.binary, *arguments], cwd=self.directory, env=self.env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit("%s %s failed (%d): %s" % (os.path.basename(binary or self.binary), arguments[0], done.returncode,
                                                       done.stderr.strip()[-2000:]))
        return done.stdout

    def bind(self, binder, merchant_id):
        """Runs `benchmark-seed-binder --merchant ID` on this vault's database and keys; answers its JSON report."""
        return json.loads(self.run("--merchant", merchant_id, binary=os.path.abspath(binder)).strip().splitlines()[-1])

    def serve(self):
        """Starts `vault serve`; answers the process and its base URL."""
        process = subprocess.Popen([self.binary, "serve"], cwd=self.directory, env=self.env, stdout=subprocess.PIPE,
                                   stderr=open(os.path.join(self.directory, "serve.log"), "w"), text=True)
        deadline = time.monotonic() + 120
        for line in process.stdout:
            found = re.search(r"listening on (http://[0-9.]+:\d+)", line)
            if found:
                return process, found.group(1)
            if time.monotonic() > deadline:
                break
        process.kill()
        raise SystemExit("vault serve did not start (see %s/serve.log)" % self.directory)


def call(base, key, method, path, body=None):
    request = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        raise SystemExit("%s %s: HTTP %d %s" % (method, path, error.code, error.read().decode()[:500]))


def binder_path(args):
    """--binder, else `benchmark-seed-binder` beside the `vault` binary; exits when it is not there."""
    binder = args.binder or os.path.join(os.path.dirname(os.path.abspath(args.vault)), "benchmark-seed-binder")
    if not (os.path.isfile(binder) and os.access(binder, os.X_OK)):
        raise SystemExit("no benchmark-seed-binder at %s (build it: swift build --product benchmark-seed-binder; or pass --binder): "
                         "without it the copied steps fail the runner's integrity check and are not charged" % binder)
    return binder


def prepare(args):
    binder = binder_path(args)
    os.makedirs(args.dir, exist_ok=True)
    vault = Vault(args.vault, args.dir, args.database_url)
    vault.run("keys", "init")
    # Only `migrate` and `serve` create the database; every other command refuses a missing one.
    vault.run("migrate")
    merchant = ["merchant", "create", args.merchant, "--gateway", args.gateway, "--time-zone", "UTC", "--json"]
    if args.gateway_url:
        merchant += ["--gateway-url", args.gateway_url]
    if args.security_key:
        merchant += ["--gateway-credential", "security_key=" + args.security_key]
    for credential in args.gateway_credential or []:
        merchant += ["--gateway-credential", credential]
    created = json.loads(vault.run(*merchant))
    server, base = vault.serve()
    try:
        key = created["apiKey"]
        today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
        cards = CARDS[:max(1, min(args.cards, len(CARDS)))]
        for index, number in enumerate(cards):
            call(base, key, "POST", "/v1/secure-cards", {
                "merchantReference": "card-%d" % index, "method": "keyed", "verify": False,
                "card": {"number": number, "expiryDate": "1230", "holderName": "Card Holder %d" % index}})
        for index in range(max(1, args.templates)):
            schedule = call(base, key, "POST", "/v1/schedules", {
                "merchantReference": "card-%d" % (index % len(cards)), "amount": args.amount, "currency": args.currency,
                "description": "seeded plan %d" % index, "type": "delayedOnce", "startDate": today,
                "hour": 0, "minute": 0, "timeZone": "UTC"})
            call(base, key, "POST", "/v1/schedules/%s/confirm" % schedule["id"])
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    if args.database_url:
        report = copy_postgres(args.database_url, args.total, args.steps_per_schedule)
    else:
        report = copy(os.path.join(vault.directory, "vault.sqlite"), args.total, args.steps_per_schedule)
    report["merchantId"] = created["merchantId"]
    bound = vault.bind(binder, created["merchantId"])
    report["boundSteps"] = bound["steps"]
    report["bindSeconds"] = bound["seconds"]
    if bound["steps"] != report["copiedSteps"] or bound["schedules"] != report["copiedSchedules"]:
        raise SystemExit("the binder bound %d schedules and %d steps, not the %d and %d copied" % (
            bound["schedules"], bound["steps"], report["copiedSchedules"], report["copiedSteps"]))
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    modes = parser.add_subparsers(dest="mode", required=True)
    only = modes.add_parser("copy", help="copy the due schedules already in a database")
    only.add_argument("--db", help="the SQLite file (or --database-url)")
    full = modes.add_parser("prepare", help="a fresh vault with templates made through the API, then copied")
    full.add_argument("--vault", required=True, help="the vault executable")
    full.add_argument("--binder", help="the benchmark-seed-binder executable (default: beside --vault)")
    full.add_argument("--dir", required=True, help="the vault's directory (database, keys, logs)")
    full.add_argument("--merchant", default="shop")
    full.add_argument("--gateway", default="nmi", choices=["nmi", "sandbox", "bridgepay", "authorizenet"])
    full.add_argument("--gateway-credential", action="append", help="KEY=VALUE, repeatable (other gateways' credentials: bridgepay username, password, "
                           "merchantCode, merchantAccountCode; authorizenet name, transactionKey)")
    full.add_argument("--gateway-url")
    full.add_argument("--security-key")
    full.add_argument("--cards", type=int, default=4)
    full.add_argument("--templates", type=int, default=8)
    full.add_argument("--amount", type=int, default=1234, help="minor units (the fake NMI declines under 1.00)")
    full.add_argument("--currency", default="USD")
    for mode in (only, full):
        mode.add_argument("--database-url", help="PostgreSQL (VAULT_DATABASE_URL) instead of SQLite: the copy runs through psql")
        mode.add_argument("--total", type=int, required=True, help="due steps wanted in the database afterwards")
        mode.add_argument("--steps-per-schedule", type=int, default=1,
                          help="steps per copied schedule (copies of the template's first step, sequence 1..K)")
    args = parser.parse_args()
    if args.mode == "prepare":
        report = prepare(args)
    elif args.database_url:
        report = copy_postgres(args.database_url, args.total, args.steps_per_schedule)
    elif args.db:
        report = copy(args.db, args.total, args.steps_per_schedule)
    else:
        parser.error("copy needs --db or --database-url")
    if args.mode == "copy" and report["copiedSteps"] > 0:
        print("the %d copied steps have no row binding: run `benchmark-seed-binder --merchant ID` with the vault's environment "
              "before charging, or the runner sends them to review" % report["copiedSteps"], file=sys.stderr)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
