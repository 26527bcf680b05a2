#!/usr/bin/env python3
"""The operator console in a real browser (headless Chromium driven by Selenium).

Starts `vault serve` on a fresh SQLite database (loopback, plain HTTP), creates operators with the
command line (the password on standard input, the authenticator secret read from `--json`), a card
and a sale over the API, then:

  1. the sign-in page has labelled fields and a strict Content-Security-Policy; a wrong code is
     refused; the right password and code sign in; the session cookie is HttpOnly (invisible to
     page script), SameSite=Strict, Path=/console, and carries nothing but a random token;
  2. another operator is locked after repeated failures: the right password and code are refused;
  3. the card is found by its last four digits, shown masked, and its detail opens;
  4. part of the sale is refunded through the confirmation that states amount and currency;
  5. the refund is in the Audit screen under operator:NAME, and the chain verifies intact from there;
  6. a read-only operator sees no refund form, and the server refuses a forged refund post (403);
  7. the Webhooks screen lists the card's event and a support operator resends it (audited under
     the operator); the Statistics screen draws the day's turnover as an SVG chart with its table;
     an admin starts a dry run through its confirmation and the run's page reloads itself until
     the run has completed (no script: a meta refresh); the admin pages past the first 50
     transactions and back, voids an authorization through its confirmation, adds a custom field,
     issues an API key (its secret, shown once, authenticates against /v1) and revokes it (it no
     longer does);
  8. no page source ever holds the full card number, and no page scrolls sideways at 375 or 1280 px;
  then the steps of later screens, each its own function called from main() in one place:
  schedule_steps (a support operator's monthly plan refused next to its field, previewed as
  calendars, confirmed, listed; a lost-answer sale resolved from the review queue; a read-only
  operator's forged pause refused; an admin's real charge run charging the plan's first step);
  change_schedule_from_card (a support operator finds the schedule on its card's page and changes
  its amount through the confirmation stating the old and new amount).

With --screenshots DIR, each screen is saved at 375 and 1280 px wide (docs/console/ in the repository).
Run by scripts/test.sh after the build:  python3 scripts/console_browser_test.py --vault .build/debug/vault
Needs chromium, chromium-driver (scripts/install-deps.sh) and Selenium (PyPI, installed by
scripts/test.sh); when they are missing it fails, unless VAULT_TEST_BROWSER=optional.
"""

import argparse
import base64
import hashlib
import hmac
import json
import os
import secrets
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

PAN = "4111111111111111"
PAN_FORMS = [PAN, "4111 1111 1111 1111", "4111-1111-1111-1111"]
PASSWORD = "blue kettle harbour"
WAIT_SECONDS = 20
WIDTHS = (375, 1280)


def fail(message):
    print(f"console browser test: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def missing_tools():
    missing = [tool for tool in ("chromium", "chromedriver") if shutil.which(tool) is None]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (PyPI)")
    return missing


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def totp(secret_base32, at=None):
    """RFC 6238: HMAC-SHA1 over the 30-second step, 6 digits."""
    key = base64.b32decode(secret_base32 + "=" * (-len(secret_base32) % 8))
    step = int((at if at is not None else time.time()) // 30)
    digest = hmac.new(key, struct.pack(">Q", step), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    value = struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF
    return f"{value % 1_000_000:06d}"


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *arguments):
        return None


class Vault:
    """`vault serve` on a fresh database in a temporary directory, its API and its command line."""

    def __init__(self, binary, directory):
        self.binary = binary
        self.port = free_port()
        self.origin = f"http://127.0.0.1:{self.port}"
        self.config = os.path.join(directory, "vault.yaml")
        with open(self.config, "w") as config:
            config.write(
                f"server:\n  host: 127.0.0.1\n  port: {self.port}\n"
                "metrics:\n  enabled: false\n"
                f"database:\n  path: {directory}/data/vault.sqlite\n"
                f"keys:\n  directory: {directory}/keys\n"
                "console:\n  lockoutAttempts: 3\n"
                # A sale whose answer is lost reaches the review queue within seconds.
                "runner:\n  inDoubtGraceSeconds: 1\n"
                "reconcile:\n  intervalSeconds: 1\n"
            )
        self.env = dict(os.environ, VAULT_MASTER_KEY=base64.b64encode(secrets.token_bytes(32)).decode())
        for name in ("VAULT_HOST", "VAULT_PORT", "VAULT_DATABASE", "VAULT_DATABASE_URL", "VAULT_KEYS_DIR", "VAULT_METRICS_PORT"):
            self.env.pop(name, None)
        self.log = open(os.path.join(directory, "vault.log"), "w")
        self.process = None
        self.api_key = None
        self.opener = urllib.request.build_opener(NoRedirect)

    def run(self, *arguments, stdin=None):
        done = subprocess.run(
            [self.binary, *arguments, "--config", self.config], env=self.env, capture_output=True, text=True, timeout=120, input=stdin)
        if done.returncode != 0:
            fail(f"vault {' '.join(arguments)} exited {done.returncode}: {done.stderr.strip()[-500:]}")
        return done.stdout

    def operator(self, name, role):
        created = json.loads(self.run("operator", "create", name, "--role", role, "--password-stdin", "--json", stdin=PASSWORD + "\n"))
        if set(created) != {"operator", "totpSecret", "otpauthURI"} or not created["otpauthURI"].startswith("otpauth://totp/"):
            fail(f"vault operator create --json printed {sorted(created)}")
        return created["totpSecret"]

    def start(self):
        self.api_key = json.loads(self.run("merchant", "create", "shop", "--currency", "USD", "--json"))["apiKey"]
        self.process = subprocess.Popen([self.binary, "serve", "--config", self.config], env=self.env, stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.origin + "/healthz", timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.2)
        fail("vault serve did not answer /healthz within 60 s")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()

    def api(self, method, path, body=None):
        request = urllib.request.Request(self.origin + path, method=method, headers={"Authorization": f"Bearer {self.api_key}"})
        if body is not None:
            request.data = json.dumps(body).encode()
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def page(self, method, path, fields=None, cookie=None):
        """A console request outside the browser: (status, headers, body)."""
        request = urllib.request.Request(self.origin + path, method=method)
        if fields is not None:
            request.data = urllib.parse.urlencode(fields).encode()
            request.add_header("Content-Type", "application/x-www-form-urlencoded")
        if cookie:
            request.add_header("Cookie", f"vault_console={cookie}")
        try:
            with self.opener.open(request, timeout=10) as response:
                return response.status, response.headers, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read().decode()


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)


def wait_for(description, condition):
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(None, WAIT_SECONDS, poll_frequency=0.1).until(lambda _: condition())
    except Exception:
        fail(f"timed out waiting for {description}")


class Screens:
    """Checks every page the browser shows, and saves it at both widths when asked."""

    def __init__(self, driver, directory):
        self.driver = driver
        self.directory = directory
        self.sources = []

    def check(self, name):
        driver = self.driver
        source = driver.page_source
        self.sources.append(source)
        if any(form in source for form in PAN_FORMS):
            fail(f"the {name} page holds a full card number")
        if "<script" in source or " style=" in source:
            fail(f"the {name} page has inline script or style")
        for width in WIDTHS:
            driver.set_window_size(width, 900)
            overflow = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
            if overflow > 0:
                fail(f"the {name} page scrolls sideways by {overflow} px at {width} px")
            if self.directory:
                height = driver.execute_script("return Math.max(document.body.scrollHeight, 600)")
                driver.set_window_size(width, min(height + 120, 2400))
                driver.save_screenshot(os.path.join(self.directory, f"{name}-{width}.png"))
        driver.set_window_size(1280, 900)


def sign_in(driver, vault, name, password, code):
    from selenium.webdriver.common.by import By

    driver.get(vault.origin + "/console/sign-in")
    for label, value in (("Name", name), ("Password", password), ("Authentication code", code)):
        field = driver.find_element(By.XPATH, f"//label[normalize-space()='{label}']")
        driver.find_element(By.ID, field.get_attribute("for")).send_keys(value)
    driver.find_element(By.XPATH, "//button[normalize-space()='Sign in']").click()


def schedule_steps(driver, vault, screens, rita_token):
    """Schedules: a support operator builds a monthly plan on the card, checks its preview calendar
    (the due days marked), confirms it and finds it in the list, records the customer's
    confirmation, and resolves a sale whose answer the sandbox lost from the review queue; an admin starts the real charge run (after a dry run) and follows its page until
    it has finished and the step is charged; the Needs-review screen is shown; a read-only operator
    sees no schedule action and a forged pause is refused."""
    import calendar
    import datetime

    from selenium.webdriver.common.by import By

    sam = vault.operator("sam", "support")
    ben = vault.operator("ben", "admin")
    # The sandbox charges this card and loses the answer, and its records cannot be searched: the
    # reconciler puts the sale in review once the grace period (1 s here) has passed.
    status, lost_card = vault.api("POST", "/v1/secure-cards", {
        "merchantReference": "order-6975", "verify": False, "method": "keyed",
        "card": {"number": "4000000000006975", "expiryDate": "1230", "holderName": "Ada Lovelace"}})
    if status != 201:
        fail(f"registering the lost-answer card answered {status}: {lost_card}")
    status, lost = vault.api("POST", "/v1/transactions", {
        "type": "sale", "amount": 1999, "currency": "USD", "secureCardReference": lost_card["secureCardReference"]})
    lost_id = (lost.get("transaction") or {}).get("id")
    if status != 502 or not lost_id:
        fail(f"the lost-answer sale answered {status}: {lost}")
    driver.find_element(By.XPATH, "//button[normalize-space()='Sign out']").click()
    wait_for("the sign-in form after signing out", lambda: driver.current_url.endswith("/console/sign-in"))
    sign_in(driver, vault, "sam", PASSWORD, totp(sam))
    wait_for("the Cards screen after the support operator's sign-in", lambda: driver.current_url.endswith("/console/cards"))
    driver.find_element(By.LINK_TEXT, "Schedules").click()
    wait_for("the Schedules screen", lambda: "New schedule" in driver.page_source)
    driver.find_element(By.LINK_TEXT, "New schedule").click()
    wait_for("the plan builder", lambda: "Preview</button>" in driver.page_source)

    def fill(name, value):
        field = driver.find_element(By.ID, name)
        field.clear()
        field.send_keys(value)

    # The merchant's zone is UTC: the plan starts today, on today's day of the month, due at 00:00,
    # so its first step is due now.
    today = datetime.datetime.now(datetime.timezone.utc).date()
    fill("merchantReference", "order-4411")
    fill("amount", "25")
    fill("day", "40")
    fill("endCount", "3")
    fill("hour", "0")
    fill("minute", "0")
    driver.find_element(By.XPATH, "//button[normalize-space()='Preview']").click()
    wait_for("the refusal of day 40 next to its field", lambda: 'id="day-error"' in driver.page_source)
    if driver.find_element(By.ID, "day").get_attribute("aria-invalid") != "true":
        fail("the field the plan was refused for is not marked invalid")
    screens.check("plan-builder-refused")
    fill("day", str(today.day))
    driver.find_element(By.XPATH, "//button[normalize-space()='Preview']").click()
    wait_for("the plan's preview", lambda: "Confirm and create the schedule" in driver.page_source)
    expected = []
    for offset in range(3):
        year, month = today.year + (today.month - 1 + offset) // 12, (today.month - 1 + offset) % 12 + 1
        expected.append(datetime.date(year, month, min(today.day, calendar.monthrange(year, month)[1])).isoformat())
    marked = [cell.get_attribute("data-date") for cell in driver.find_elements(By.CSS_SELECTOR, "table.calendar td.due")]
    if marked != expected:
        fail(f"the preview calendar marks {marked}, not {expected}")
    if "$25.00" not in driver.page_source or "totalling <strong>$75.00</strong>" not in driver.page_source:
        fail("the preview does not state the amounts")
    screens.check("plan-preview")
    driver.find_element(By.XPATH, "//button[normalize-space()='Confirm and create the schedule']").click()
    wait_for("the new schedule's page", lambda: "Schedule sch_" in driver.page_source and "pending_confirmation" in driver.page_source)
    schedule_path = urllib.parse.urlparse(driver.current_url).path
    schedule_id = schedule_path.rsplit("/", 1)[1]
    if "411111******1111" not in driver.page_source:
        fail("the schedule's card is not shown masked")
    driver.find_element(By.XPATH, "//button[normalize-space()=\"Record the customer's confirmation\"]").click()
    wait_for("the confirmation of the schedule", lambda: "Confirm the schedule</button>" in driver.page_source)
    screens.check("schedule-confirm")
    driver.find_element(By.XPATH, "//button[normalize-space()='Confirm the schedule']").click()
    wait_for("the active schedule", lambda: driver.current_url.endswith(schedule_path) and "<td>active</td>" in driver.page_source)
    driver.find_element(By.LINK_TEXT, "Schedules").click()
    wait_for("the schedule in the list", lambda: schedule_id in driver.page_source)
    screens.check("schedules")
    # The lost-answer sale in the review queue, resolved as charged with the gateway's id.
    driver.find_element(By.LINK_TEXT, "Needs review").click()

    def listed():
        if lost_id in driver.page_source:
            return True
        driver.refresh()
        return False

    wait_for("the lost-answer sale in the review queue", listed)
    if "$19.99" not in driver.page_source or "400000******6975" not in driver.page_source:
        fail("the review queue does not show the sale's amount and masked card")
    screens.check("review-queue")
    form = f"//form[.//input[@name='id' and @value='{lost_id}']]"
    driver.find_element(By.XPATH, form + "//input[@name='gatewayTransactionId']").send_keys("SBX-FOUND-6975")
    driver.find_element(By.XPATH, form + "//button[normalize-space()='Resolve']").click()
    wait_for("the resolution's confirmation", lambda: "Confirm resolution" in driver.page_source)
    if "SBX-FOUND-6975" not in driver.page_source or "<strong>charged</strong>" not in driver.page_source:
        fail("the resolution's confirmation does not state the outcome and the gateway's id")
    screens.check("review-resolve-confirm")
    driver.find_element(By.XPATH, "//button[normalize-space()='Resolve']").click()
    wait_for("the queue emptied", lambda: "resolved=" in driver.current_url and "Nothing waits for review." in driver.page_source)
    status, resolved = vault.api("GET", f"/v1/transactions/{lost_id}")
    if status != 200 or resolved.get("status") == "needs_review":
        fail(f"the resolved sale: {status} {resolved.get('status')}")

    # A read-only operator: no schedule action, and a forged pause refused.
    status, _, page = vault.page("GET", schedule_path, cookie=rita_token)
    if status != 200 or "/pause" in page or "/cancel" in page or "/skip" in page:
        fail("a read-only operator is shown a schedule action")
    csrf = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    status, _, _ = vault.page("POST", schedule_path + "/pause", {"csrf": csrf, "confirm": "yes"}, cookie=rita_token)
    if status != 403:
        fail(f"a read-only operator's forged pause answered {status}")
    status, schedule = vault.api("GET", f"/v1/schedules/{schedule_id}")
    if status != 200 or schedule.get("status") != "active":
        fail(f"the schedule after the forged pause: {status} {schedule.get('status')}")

    # The real charge run, started by an admin from a dry run, followed until it has finished.
    driver.find_element(By.XPATH, "//button[normalize-space()='Sign out']").click()
    wait_for("the sign-in form after signing out", lambda: driver.current_url.endswith("/console/sign-in"))
    sign_in(driver, vault, "ben", PASSWORD, totp(ben))
    wait_for("the Cards screen after the admin's sign-in", lambda: driver.current_url.endswith("/console/cards"))
    driver.find_element(By.LINK_TEXT, "Charge runs").click()
    wait_for("the Charge runs screen", lambda: "Start a dry run" in driver.page_source)
    driver.find_element(By.XPATH, "//button[normalize-space()='Start a dry run']").click()
    wait_for("the dry run's confirmation", lambda: "Start the dry run" in driver.page_source)
    driver.find_element(By.XPATH, "//button[normalize-space()='Start the dry run']").click()
    wait_for("the dry run finished", lambda: "Dry run: nothing charged" in driver.page_source and ">completed<" in driver.page_source)
    driver.find_element(By.XPATH, "//button[normalize-space()='Start the run']").click()
    wait_for("the run's confirmation", lambda: "the run (due steps are charged)" in driver.page_source)
    driver.find_element(By.XPATH, "//button[normalize-space()='Start the run']").click()
    wait_for("the run's page, reloaded until it finished", lambda: "<td>Charging</td>" in driver.page_source and ">completed<" in driver.page_source)
    if "$25.00" not in driver.page_source or "approved" not in driver.page_source:
        fail("the finished run does not show the step charged")
    driver.get(vault.origin + schedule_path)
    wait_for("the charged step on the schedule's timeline", lambda: "<strong>approved</strong>" in driver.page_source)
    screens.check("schedule")


def bearer_status(vault, bearer, path):
    """The status `path` of the API answers a request with `bearer`."""
    request = urllib.request.Request(vault.origin + path, headers={"Authorization": f"Bearer {bearer}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def page_transactions(driver, vault, screens, card):
    """More than 50 transactions: "Next" leads to the second page and "Previous" back to the first."""
    from selenium.webdriver.common.by import By

    for number in range(55):
        status, _ = vault.api("POST", "/v1/transactions", {
            "type": "sale", "amount": 2000 + number, "currency": "USD", "secureCardReference": card["secureCardReference"]})
        if status != 201:
            fail(f"a sale of the paging test answered {status}")
    driver.get(vault.origin + "/console/transactions")
    wait_for("the first page of transactions", lambda: "$20.54" in driver.page_source)
    if "$20.04" in driver.page_source:
        fail("the first page of transactions shows more than 50 rows")
    driver.find_element(By.LINK_TEXT, "Next").click()
    wait_for("the second page of transactions", lambda: "cursor=" in driver.current_url and "$20.04" in driver.page_source)
    if "$20.54" in driver.page_source:
        fail("the second page repeats the first page's rows")
    screens.check("transactions-page-2")
    driver.find_element(By.LINK_TEXT, "Previous").click()
    wait_for("the first page again", lambda: "$20.54" in driver.page_source and "cursor=" not in driver.current_url)


def void_authorization(driver, vault, screens, card):
    """An authorization voided through the confirmation that states amount and currency."""
    from selenium.webdriver.common.by import By

    status, authorization = vault.api("POST", "/v1/transactions", {
        "type": "authorize", "amount": 1234, "currency": "USD", "secureCardReference": card["secureCardReference"]})
    if status != 201:
        fail(f"the authorization answered {status}: {authorization}")
    driver.get(vault.origin + f"/console/transactions?q={authorization['id']}")
    wait_for("the authorization in the search", lambda: authorization["id"] in driver.page_source)
    driver.find_element(By.LINK_TEXT, authorization["id"]).click()
    wait_for("the authorization's detail", lambda: "Review void" in driver.page_source and "Review capture" in driver.page_source)
    screens.check("authorization")
    driver.find_element(By.XPATH, "//button[normalize-space()='Review void']").click()
    wait_for("the void's confirmation", lambda: "Confirm void" in driver.page_source)
    if "$12.34" not in driver.page_source or "(USD)" not in driver.page_source:
        fail("the void's confirmation does not state the amount and currency")
    screens.check("void-confirm")
    driver.find_element(By.XPATH, "//button[normalize-space()='Void $12.34']").click()
    wait_for("the void's detail", lambda: ">void<" in driver.page_source)
    status, original = vault.api("GET", f"/v1/transactions/{authorization['id']}")
    if status != 200 or original.get("status") != "voided":
        fail(f"the authorization after the void: {status} {original.get('status')}")


def add_custom_field(driver, vault, screens):
    """An admin adds a custom field definition in Settings; the API lists it."""
    from selenium.webdriver.common.by import By

    driver.get(vault.origin + "/console/settings")
    wait_for("the admin's settings", lambda: "Custom fields of shop" in driver.page_source)
    driver.find_element(By.ID, "field-name").send_keys("loyalty_id")
    driver.find_element(By.XPATH, "//button[normalize-space()='Add field']").click()
    wait_for("the new custom field", lambda: "Remove loyalty_id" in driver.page_source)
    status, fields = vault.api("GET", "/v1/custom-fields")
    if status != 200 or [field["name"] for field in fields.get("fields", [])] != ["loyalty_id"]:
        fail(f"the custom fields after adding one: {status} {fields}")
    screens.check("settings-admin")


def issue_and_revoke_api_key(driver, vault, screens):
    """An admin issues an API key (the secret shown once authenticates) and revokes it (it no longer does)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.get(vault.origin + "/console/settings")
    wait_for("the API keys", lambda: "API keys of shop" in driver.page_source)
    driver.find_element(By.ID, "key-label").send_keys("till 3")
    Select(driver.find_element(By.ID, "key-role")).select_by_value("readonly")
    driver.find_element(By.XPATH, "//button[normalize-space()='Issue a key']").click()
    wait_for("the issued key", lambda: "API key issued" in driver.page_source)
    secret = driver.find_element(By.ID, "secret").get_attribute("value")
    if not secret.startswith("vk_") or bearer_status(vault, secret, "/v1/transactions") != 200:
        fail("the issued key does not authenticate")
    key_id = secret[3:19]
    driver.get(vault.origin + "/console/settings")
    wait_for("the key in the list", lambda: "till 3" in driver.page_source)
    if secret in driver.page_source:
        fail("the key's secret is shown again")
    driver.find_element(By.XPATH, f"//button[@aria-label='Revoke key_{key_id}']").click()
    wait_for("the revocation's confirmation", lambda: "Confirm revocation" in driver.page_source)
    screens.check("api-key-revoke-confirm")
    driver.find_element(By.XPATH, "//button[normalize-space()='Revoke the key']").click()
    wait_for("the revoked key", lambda: "revoked" in driver.page_source)
    if bearer_status(vault, secret, "/v1/transactions") != 401:
        fail("a revoked key still authenticates")


def change_schedule_from_card(driver, vault, screens, card):
    """A card's schedules and a schedule's change: a support operator opens the card, finds the
    schedule schedule_steps built on it listed on the card's page (status, plan, amount, next step),
    follows it, changes its amount through the confirmation that states the old and new amount,
    and sees the new amount on the schedule's page (and over the API)."""
    from selenium.webdriver.common.by import By

    sue = vault.operator("sue", "support")
    driver.find_element(By.XPATH, "//button[normalize-space()='Sign out']").click()
    wait_for("the sign-in form after signing out", lambda: driver.current_url.endswith("/console/sign-in"))
    sign_in(driver, vault, "sue", PASSWORD, totp(sue))
    wait_for("the Cards screen after the support operator's sign-in", lambda: driver.current_url.endswith("/console/cards"))
    search = driver.find_element(By.XPATH, "//label[normalize-space()='Search cards']")
    driver.find_element(By.ID, search.get_attribute("for")).send_keys("order-4411")
    driver.find_element(By.XPATH, "//button[normalize-space()='Search']").click()
    wait_for("the card in the results", lambda: card["secureCardReference"] in driver.page_source)
    driver.find_element(By.LINK_TEXT, card["secureCardReference"]).click()
    wait_for("the card's schedules", lambda: 'aria-label="Schedules charging the card"' in driver.page_source)
    listed = driver.find_elements(By.XPATH, "//div[@aria-label='Schedules charging the card']//a")
    if len(listed) != 1 or "$25.00" not in driver.page_source:
        fail(f"the card's page lists {len(listed)} schedules, not the $25.00 one built on it")
    schedule_id = listed[0].text
    screens.check("card-schedules")
    listed[0].click()
    wait_for("the schedule's page", lambda: f"Schedule {schedule_id}" in driver.page_source and "Review change" in driver.page_source)
    driver.find_element(By.ID, "change-amount").send_keys("30")
    driver.find_element(By.XPATH, "//button[normalize-space()='Review change']").click()
    wait_for("the change's confirmation", lambda: "Change the schedule</button>" in driver.page_source)
    if "<td>$25.00</td>" not in driver.page_source or "<strong>$30.00</strong>" not in driver.page_source:
        fail("the change's confirmation does not state the old and new amount")
    screens.check("schedule-change-confirm")
    driver.find_element(By.XPATH, "//button[normalize-space()='Change the schedule']").click()
    wait_for("the changed schedule's page", lambda: f"Schedule {schedule_id}" in driver.page_source and "<td>$30.00</td>" in driver.page_source)
    screens.check("schedule-changed")
    status, schedule = vault.api("GET", f"/v1/schedules/{schedule_id}")
    if status != 200 or schedule.get("amount") != 3000:
        fail(f"the schedule after the change: {status} {schedule.get('amount')}")


def create_operator_in_settings(driver, vault, screens):
    """An admin creates a support operator in Settings (the password typed twice), reads its
    authenticator secret off the result page, signs out, and the new operator signs in with it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    password = "tidal orchard lantern"
    driver.get(vault.origin + "/console/settings")
    wait_for("the operator creation form", lambda: "Create an operator" in driver.page_source)
    driver.find_element(By.ID, "new-name").send_keys("tess")
    Select(driver.find_element(By.ID, "new-role")).select_by_value("support")
    driver.find_element(By.ID, "new-password").send_keys(password)
    driver.find_element(By.ID, "new-password-again").send_keys(password)
    driver.find_element(By.XPATH, "//button[normalize-space()='Create the operator']").click()
    wait_for("the new operator's enrolment", lambda: "Operator created" in driver.page_source)
    secret = driver.find_element(By.ID, "totp-secret").get_attribute("value")
    uri = driver.find_element(By.ID, "otpauth-uri").get_attribute("value")
    if not secret or not uri.startswith("otpauth://totp/") or f"secret={secret}" not in uri or password in driver.page_source:
        fail("the created operator's enrolment page does not show its secret and URI, or shows the password")
    screens.check("operator-created")
    driver.find_element(By.XPATH, "//button[normalize-space()='Sign out']").click()
    wait_for("the sign-in form after signing out", lambda: driver.current_url.endswith("/console/sign-in"))
    sign_in(driver, vault, "tess", password, totp(secret))
    wait_for("the Cards screen after the new operator's sign-in", lambda: driver.current_url.endswith("/console/cards"))
    if "tess · support" not in driver.page_source:
        fail("the new operator is not signed in as tess, support")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", default=".build/debug/vault", help="the vault executable")
    parser.add_argument("--screenshots", help="save each screen at 375 and 1280 px into this directory")
    arguments = parser.parse_args()

    missing = missing_tools()
    if missing:
        if os.environ.get("VAULT_TEST_BROWSER") == "optional":
            print(f"console browser test: skipped (VAULT_TEST_BROWSER=optional): missing {', '.join(missing)}")
            return
        fail(f"missing {', '.join(missing)}: run scripts/install-deps.sh and pip install selenium, or set VAULT_TEST_BROWSER=optional")
    if not os.access(arguments.vault, os.X_OK):
        fail(f"no vault executable at {arguments.vault} (swift build first)")
    if arguments.screenshots:
        os.makedirs(arguments.screenshots, exist_ok=True)

    from selenium.webdriver.common.by import By

    directory = tempfile.mkdtemp(prefix="vault-console-browser-")
    os.chmod(directory, 0o700)
    vault = Vault(os.path.abspath(arguments.vault), directory)
    driver = None
    try:
        vault.run("migrate")
        ada = vault.operator("ada", "support")
        rita = vault.operator("rita", "readonly")
        lou = vault.operator("lou", "admin")
        max_admin = vault.operator("max", "admin")
        vault.start()
        status, card = vault.api("POST", "/v1/secure-cards", {
            "merchantReference": "order-4411", "verify": False, "method": "keyed",
            "card": {"number": PAN, "expiryDate": "1230", "holderName": "Ada Lovelace"}})
        if status != 201:
            fail(f"registering the card answered {status}: {card}")
        status, sale = vault.api("POST", "/v1/transactions", {
            "type": "sale", "amount": 24680000, "currency": "USD", "secureCardReference": card["secureCardReference"]})
        if status != 201:
            fail(f"the sale answered {status}: {sale}")

        # 1. The sign-in page, its policy, a wrong code, then the right one.
        status, headers, body = vault.page("GET", "/console/sign-in")
        policy = headers.get("Content-Security-Policy", "")
        if status != 200 or "default-src 'none'" not in policy or "frame-ancestors 'none'" not in policy or "unsafe-inline" in policy:
            fail(f"the sign-in page answered {status} with policy {policy!r}")
        driver = browser()
        screens = Screens(driver, arguments.screenshots)
        driver.get(vault.origin + "/console/sign-in")
        screens.check("sign-in")
        good = totp(ada)
        wrong = "000000" if good != "000000" else "111111"
        sign_in(driver, vault, "ada", PASSWORD, wrong)
        wait_for("the refusal of a wrong code", lambda: "not right" in driver.page_source)
        if driver.get_cookie("vault_console"):
            fail("a wrong code set a session cookie")
        sign_in(driver, vault, "ada", PASSWORD, good)
        wait_for("the Cards screen after sign-in", lambda: driver.current_url.endswith("/console/cards"))
        cookie = driver.get_cookie("vault_console")
        if not cookie or not cookie.get("httpOnly") or cookie.get("sameSite") != "Strict" or cookie.get("path") != "/console":
            fail(f"the session cookie's flags: {cookie}")
        if not cookie["value"].startswith("cs_") or driver.execute_script("return document.cookie"):
            fail("the session cookie is readable by page script or is not a random token")

        # 2. Another operator is locked after repeated failures.
        for _ in range(3):
            vault.page("POST", "/console/sign-in", {"name": "lou", "password": "not the password", "code": totp(lou)})
        status, _, _ = vault.page("POST", "/console/sign-in", {"name": "lou", "password": PASSWORD, "code": totp(lou)})
        if status != 401:
            fail(f"a locked operator's right password and code answered {status}")

        # 3. The card, found by its last four digits, masked.
        screens.check("cards")
        search = driver.find_element(By.XPATH, "//label[normalize-space()='Search cards']")
        driver.find_element(By.ID, search.get_attribute("for")).send_keys("1111")
        driver.find_element(By.XPATH, "//button[normalize-space()='Search']").click()
        wait_for("the card in the results", lambda: "order-4411" in driver.page_source)
        if "411111******1111" not in driver.page_source:
            fail("the card found is not shown masked")
        screens.check("cards-search")
        driver.find_element(By.LINK_TEXT, card["secureCardReference"]).click()
        wait_for("the card's detail", lambda: "Card order-4411" in driver.page_source)
        if "411111******1111" not in driver.page_source or "12/2030" not in driver.page_source:
            fail("the card's detail does not show the masked number and expiry")
        screens.check("card")
        driver.find_element(By.LINK_TEXT, "Cards").click()

        # The day's turnover before the refund, to see it change after.
        driver.get(vault.origin + "/console/statistics?groupBy=day")
        wait_for("the statistics before the refund", lambda: "<svg" in driver.page_source and "$246,800.00" in driver.page_source)

        # 4. Part of the sale refunded through the confirmation.
        driver.find_element(By.LINK_TEXT, "Transactions").click()
        wait_for("the Transactions screen", lambda: sale["id"] in driver.page_source)
        screens.check("transactions")
        driver.find_element(By.LINK_TEXT, sale["id"]).click()
        wait_for("the sale's detail", lambda: "$246,800.00" in driver.page_source)
        if "Reverse mode" not in driver.page_source or "sub-state" not in driver.page_source:
            fail("the sale's detail does not show its state, sub-state and reverse mode")
        screens.check("transaction")
        driver.find_element(By.ID, "refund-amount").send_keys("1234.50")
        driver.find_element(By.XPATH, "//button[normalize-space()='Review refund']").click()
        wait_for("the confirmation", lambda: "Confirm refund" in driver.page_source)
        if "$1,234.50" not in driver.page_source or "(USD)" not in driver.page_source:
            fail("the confirmation does not state the amount and currency")
        screens.check("refund-confirm")
        driver.find_element(By.XPATH, "//button[contains(normalize-space(), 'Refund $1,234.50')]").click()
        wait_for("the refund's detail", lambda: ">refund<" in driver.page_source)

        # 5. The refund in the audit trail, under the operator.
        driver.get(vault.origin + "/console/audit?actor=operator%3Aada")
        wait_for("the audit events", lambda: "operator:ada" in driver.page_source)
        if "refund" not in driver.page_source:
            fail("the refund is not in the audit view under operator:ada")
        driver.find_element(By.XPATH, "//button[normalize-space()='Verify the chain']").click()
        wait_for("the chain's verification", lambda: "Chain verified: intact" in driver.page_source)
        screens.check("audit")
        driver.get(vault.origin + "/console/settings")
        screens.check("settings")

        # 6. A read-only operator: no refund form, and a forged post refused.
        status, headers, _ = vault.page("POST", "/console/sign-in", {"name": "rita", "password": PASSWORD, "code": totp(rita)})
        set_cookie = headers.get("Set-Cookie", "")
        if status != 303 or "HttpOnly" not in set_cookie or "SameSite=Strict" not in set_cookie or "Path=/console" not in set_cookie:
            fail(f"the read-only operator's sign-in answered {status}, cookie {set_cookie!r}")
        rita_token = set_cookie.split(";")[0].split("=", 1)[1]
        status, _, page = vault.page("GET", f"/console/transactions?q={sale['id']}", cookie=rita_token)
        start = page.find("/console/transactions/")
        sale_path = page[start:page.find('"', start)]
        status, _, page = vault.page("GET", sale_path, cookie=rita_token)
        if status != 200 or "/refund" in page:
            fail("a read-only operator is shown the refund form")
        csrf = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        status, _, _ = vault.page("POST", sale_path + "/refund", {"csrf": csrf, "amount": "1", "confirm": "yes"}, cookie=rita_token)
        if status != 403:
            fail(f"a read-only operator's forged refund answered {status}")
        status, refunds = vault.api("GET", "/v1/transactions?type=refund")
        if status != 200 or len(refunds.get("data", [])) != 1:
            fail(f"refunds after the forged post: {refunds}")

        # 7. Webhooks: the card's event, resent by the support operator.
        driver.get(vault.origin + "/console/webhooks")
        wait_for("the webhook events", lambda: "secure_card.registered" in driver.page_source)
        screens.check("webhooks")
        driver.find_element(By.XPATH, "//button[normalize-space()='Resend']").click()
        wait_for("the pending events after a resend", lambda: driver.current_url.endswith("/console/webhooks?status=pending"))
        driver.get(vault.origin + "/console/audit?actor=operator%3Aada&action=webhook_event.resent")
        wait_for("the resend in the audit trail", lambda: "webhook_event.resent" in driver.page_source and "operator:ada" in driver.page_source)

        # Statistics: the day's turnover drawn by the server, the numbers beside it, changed by the refund.
        driver.get(vault.origin + "/console/statistics?groupBy=day")
        wait_for("the statistics chart", lambda: "<svg" in driver.page_source and "$245,565.50" in driver.page_source)
        screens.check("statistics")

        # Charge runs: an admin starts a dry run through its confirmation; its page reloads itself.
        driver.find_element(By.XPATH, "//button[normalize-space()='Sign out']").click()
        wait_for("the sign-in form after signing out", lambda: driver.current_url.endswith("/console/sign-in"))
        sign_in(driver, vault, "max", PASSWORD, totp(max_admin))
        wait_for("the Cards screen after the admin's sign-in", lambda: driver.current_url.endswith("/console/cards"))
        driver.find_element(By.LINK_TEXT, "Charge runs").click()
        wait_for("the Charge runs screen", lambda: "Start a dry run" in driver.page_source)
        screens.check("charge-runs")
        driver.find_element(By.XPATH, "//button[normalize-space()='Start a dry run']").click()
        wait_for("the charge run's confirmation", lambda: "Confirm charge run" in driver.page_source)
        if "shop" not in driver.page_source or " UTC" not in driver.page_source:
            fail("the charge run's confirmation does not name the merchant and the as-of time")
        screens.check("charge-run-confirm")
        driver.find_element(By.XPATH, "//button[normalize-space()='Start the dry run']").click()
        wait_for("the dry run's page, reloaded until it completed", lambda: "Charge run run_" in driver.page_source and ">completed<" in driver.page_source)
        screens.check("charge-run")

        # Transactions paged, an authorization voided, a custom field added, an API key issued and revoked (admin).
        page_transactions(driver, vault, screens, card)
        void_authorization(driver, vault, screens, card)
        add_custom_field(driver, vault, screens)
        issue_and_revoke_api_key(driver, vault, screens)
        create_operator_in_settings(driver, vault, screens)
        # Steps of later screens, each its own function.
        schedule_steps(driver, vault, screens, rita_token)
        change_schedule_from_card(driver, vault, screens, card)

        # 8. Every page seen, and the ones fetched outside the browser, hold no card number.
        if any(form in page for form in PAN_FORMS):
            fail("a page holds a full card number")
        print("console browser test: passed (sign-in with code, lockout, cookie flags, card search, refund with confirmation, "
              "audit under the operator, chain verified, read-only refused, webhook resent, statistics changed by the refund, dry run started and followed, "
              "transactions paged, authorization voided, custom field added, API key issued and revoked, operator created in Settings and signed in, "
              "monthly plan previewed as calendars, confirmed and charged by a real run, review item resolved, "
              "schedule found on its card and its amount changed, no card number, no sideways scrolling)")
    finally:
        if driver:
            driver.quit()
        vault.stop()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
