#!/usr/bin/env python3
"""The hosted card field in a real browser (headless Chromium driven by Selenium).

Starts `vault serve` on a fresh SQLite database (loopback, plain HTTP, origin http://127.0.0.1:PORT)
and two small pages on other origins: the merchant's checkout (http://localhost:PORT2, the session's
allowed origin) and a page of an origin that is not allowed (http://localhost:PORT3). Then:

  1. the checkout mounts the field with VaultCapture.mount(element, {clientSecret, style}); a number
     failing the Luhn check is refused inside the frame before anything is sent; a good card is typed
     and saved; the page receives `vault:card-saved` with the token and the masked number, and the
     session reads `completed` with that token over the API;
  2. the checkout page's DOM, its console log (every message event it saw included), every request
     the browser made for it and every request its own server received never hold the card number;
  3. the merchant's styling reaches the frame only through the allow-list (a `url(...)` is dropped);
  4. a page of another origin cannot frame the field: the browser refuses it for `frame-ancestors`
     and the field never talks to that page;
  5. a spent session is refused: the page receives `vault:card-error` and no second card is stored.

Run by scripts/test.sh after the build:  python3 scripts/capture_browser_test.py --vault .build/debug/vault
Needs the Debian packages `chromium` and `chromium-driver` (scripts/install-deps.sh) and Selenium
(installed from PyPI by scripts/test.sh). When they are missing it fails, unless
VAULT_TEST_BROWSER=optional, when it says so and exits 0 (a developer machine without a browser).
"""

import argparse
import base64
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAN = "4242424242424242"
PAN_FORMS = [PAN, "4242 4242 4242 4242", "4242-4242-4242-4242"]
TYPO_PAN = "4242424242424241"
WAIT_SECONDS = 20


def fail(message):
    print(f"capture browser test: FAILED: {message}", file=sys.stderr)
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


def contains_pan(text):
    return any(form in text for form in PAN_FORMS)


class Vault:
    """`vault serve` on a fresh database in a temporary directory, and its API."""

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
            )
        self.env = dict(os.environ, VAULT_MASTER_KEY=base64.b64encode(secrets.token_bytes(32)).decode())
        for name in ("VAULT_HOST", "VAULT_PORT", "VAULT_DATABASE", "VAULT_DATABASE_URL", "VAULT_KEYS_DIR", "VAULT_METRICS_PORT"):
            self.env.pop(name, None)
        self.log = open(os.path.join(directory, "vault.log"), "w")
        self.process = None
        self.api_key = None

    def run(self, *arguments):
        done = subprocess.run([self.binary, *arguments, "--config", self.config], env=self.env, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            fail(f"vault {' '.join(arguments)} exited {done.returncode}: {done.stderr.strip()[-500:]}")
        return done.stdout

    def start(self):
        self.run("migrate")
        self.api_key = json.loads(self.run("merchant", "create", "shop", "--json"))["apiKey"]
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

    def session(self, reference, allowed_origin):
        status, body = self.api("POST", "/v1/capture-sessions", {"merchantReference": reference, "allowedOrigin": allowed_origin, "verify": False})
        if status != 201:
            fail(f"creating a capture session answered {status}: {body}")
        return body["id"], body["clientSecret"]


def checkout_page(vault_origin, secret):
    """The merchant's page: an element, the vault's script, mount, and listeners that show what it receives."""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shop checkout</title></head>
<body>
<h1>Checkout</h1>
<div id="card"></div>
<pre id="result"></pre>
<pre id="errors"></pre>
<pre id="messages"></pre>
<script src="{vault_origin}/capture/v1.js"></script>
<script>
  var element = document.getElementById("card");
  element.addEventListener("vault:card-saved", function (event) {{
    document.getElementById("result").textContent = JSON.stringify(event.detail);
    console.log("card saved " + JSON.stringify(event.detail));
  }});
  element.addEventListener("vault:card-error", function (event) {{
    document.getElementById("errors").textContent = event.detail.message;
    console.log("card error " + event.detail.message);
  }});
  // A curious page: every message it is sent goes to its console and its DOM.
  window.addEventListener("message", function (event) {{
    var line = event.origin + " " + JSON.stringify(event.data);
    document.getElementById("messages").textContent += line + "\\n";
    console.log("message " + line);
  }});
  VaultCapture.mount(element, {{
    clientSecret: {json.dumps(secret)},
    style: {{color: "#112233", fontSize: "15px", fontFamily: "Georgia, serif", backgroundColor: "url(https://evil.example/x.png)"}}
  }});
</script>
</body></html>"""


class PageServer:
    """A loopback HTTP server for one origin's pages, recording every request it receives."""

    def __init__(self):
        self.port = free_port()
        self.origin = f"http://localhost:{self.port}"
        self.pages = {}
        self.received = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *arguments):
                pass

            def record(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
                server.received.append(f"{self.command} {self.path}\n{self.headers}\n{body}")

            def do_GET(self):
                self.record()
                page = server.pages.get(self.path.split("?")[0])
                self.send_response(200 if page else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.end_headers()
                self.wfile.write((page or "not found").encode())

            do_POST = do_GET

        self.httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)


def wait_for(description, condition):
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(None, WAIT_SECONDS, poll_frequency=0.1).until(lambda _: condition())
    except Exception:
        fail(f"timed out waiting for {description}")


def requests_seen(performance_log):
    """Every request the browser reported, as (documentURL, text of URL, headers and body)."""
    seen = []
    for entry in performance_log:
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            params = message["params"]
            request = params["request"]
            text = request["url"] + json.dumps(request.get("headers", {})) + (request.get("postData") or "")
            seen.append((params.get("documentURL", ""), text))
    return seen


def in_frame(driver, body):
    from selenium.webdriver.common.by import By

    driver.switch_to.frame(driver.find_element(By.CSS_SELECTOR, "#card iframe"))
    try:
        return body()
    finally:
        driver.switch_to.default_content()


def type_card(driver, number, expiry="1230", code="123"):
    from selenium.webdriver.common.by import By

    def typing():
        wait_for("the frame to take its client secret", lambda: driver.find_element(By.ID, "save-card").is_enabled())
        for field, value in (("card-number", number), ("card-expiry", expiry), ("card-cvc", code)):
            element = driver.find_element(By.ID, field)
            element.clear()
            element.send_keys(value)
        shown = (
            driver.find_element(By.ID, "card-number").get_attribute("value"),
            driver.find_element(By.ID, "card-expiry").get_attribute("value"),
            driver.find_element(By.ID, "card-brand").text,
        )
        driver.find_element(By.ID, "save-card").click()
        return shown

    return in_frame(driver, typing)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", default=".build/debug/vault", help="the vault executable")
    arguments = parser.parse_args()

    missing = missing_tools()
    if missing:
        if os.environ.get("VAULT_TEST_BROWSER") == "optional":
            print(f"capture browser test: skipped (VAULT_TEST_BROWSER=optional): missing {', '.join(missing)}")
            return
        fail(f"missing {', '.join(missing)}: run scripts/install-deps.sh and pip install selenium, or set VAULT_TEST_BROWSER=optional")
    if not os.access(arguments.vault, os.X_OK):
        fail(f"no vault executable at {arguments.vault} (swift build first)")

    from selenium.webdriver.common.by import By

    directory = tempfile.mkdtemp(prefix="vault-capture-browser-")
    os.chmod(directory, 0o700)
    vault = Vault(os.path.abspath(arguments.vault), directory)
    merchant = PageServer()
    stranger = PageServer()
    driver = None
    try:
        vault.start()
        driver = browser()

        # 1. The checkout mounts the field; a typo is caught in the frame; a good card is saved.
        session_id, secret = vault.session("browser-1", merchant.origin)
        merchant.pages["/checkout"] = checkout_page(vault.origin, secret)
        driver.get(merchant.origin + "/checkout")
        type_card(driver, TYPO_PAN)
        problem = in_frame(driver, lambda: driver.find_element(By.ID, "card-number-error").text)
        if "not valid" not in problem:
            fail(f"a number failing the Luhn check was not refused in the frame (error text: {problem!r})")
        status, body = vault.api("GET", f"/v1/capture-sessions/{session_id}")
        if status != 200 or body["status"] != "open":
            fail(f"the refused number reached the vault: the session reads {status} {body}")

        def accessible():
            # The name a screen reader announces: the <label for> of each input, the button's text.
            return driver.execute_script(
                "var names = {}; ['card-number', 'card-expiry', 'card-cvc', 'save-card'].forEach(function (id) {"
                " var e = document.getElementById(id); names[id] = (e.labels && e.labels.length ? e.labels[0] : e).textContent.trim(); });"
                " return names;"), None

        names, _ = in_frame(driver, accessible)
        expected = {"card-number": "Card number", "card-expiry": "Expiry date", "card-cvc": "Security code", "save-card": "Save card"}
        if names != expected:
            fail(f"the fields' accessible names are {names}, not {expected}")

        shown_number, shown_expiry, shown_brand = type_card(driver, PAN)
        if shown_number != "4242 4242 4242 4242" or shown_expiry != "12/30" or shown_brand != "Visa":
            fail(f"the frame did not format what was typed or show its brand: {shown_number!r} {shown_expiry!r} {shown_brand!r}")
        result = wait_for("vault:card-saved on the merchant's element", lambda: driver.find_element(By.ID, "result").text)
        detail = json.loads(result)
        if not detail.get("secureCardReference", "").startswith("sc_") or detail.get("maskedNumber") != "424242******4242" or detail.get("cardType") != "visa":
            fail(f"the page received {detail}")
        status, body = vault.api("GET", f"/v1/capture-sessions/{session_id}")
        if body.get("status") != "completed" or body.get("secureCardReference") != detail["secureCardReference"]:
            fail(f"the session reads {status} {body} after the page received {detail}")
        status, card = vault.api("GET", "/v1/secure-cards/browser-1")
        if status != 200 or card.get("secureCardReference") != detail["secureCardReference"]:
            fail(f"the card is not registered under the session's merchantReference: {status} {card}")

        # 2. The merchant's page never holds the number: DOM, console, requests.
        dom = driver.execute_script(
            "return document.documentElement.outerHTML + Array.from(document.querySelectorAll('input')).map(function (i) { return i.value; }).join();")
        console = json.dumps(driver.get_log("browser"))
        performance = driver.get_log("performance")
        requests = requests_seen(performance)
        page_requests = [text for document, text in requests if not document.startswith(vault.origin + "/capture/frame")]
        if contains_pan(dom):
            fail("the merchant page's DOM holds the card number")
        if contains_pan(console):
            fail("the merchant page's console log holds the card number")
        if not any("/capture/v1.js" in text for text in page_requests):
            fail("the browser's request log shows no load of v1.js: the request check saw nothing")
        leaking = [text[:200] for text in page_requests if contains_pan(text)]
        if leaking:
            fail(f"requests of the merchant page hold the card number: {leaking}")
        if any(contains_pan(text) for text in merchant.received):
            fail("the merchant's server received the card number")
        if "vault:card-saved" not in dom or "vault:ready" not in dom:
            fail("the page's message log did not record the frame's messages (the console and DOM checks saw nothing)")

        # 3. Styling through the allow-list only.
        color, background = in_frame(
            driver,
            lambda: driver.execute_script("var s = getComputedStyle(document.body); return [s.color, s.backgroundColor];"),
        )
        if color != "rgb(17, 34, 51)":
            fail(f"the merchant's allowed colour did not reach the frame: {color}")
        if background != "rgb(255, 255, 255)":
            fail(f"a style value outside the allow-list reached the frame: background {background}")

        # 4. A page of another origin cannot frame the field.
        _, other_secret = vault.session("browser-2", merchant.origin)
        stranger.pages["/checkout"] = checkout_page(vault.origin, other_secret)
        driver.get_log("browser")
        driver.get(stranger.origin + "/checkout")
        refusal = wait_for(
            "the browser to refuse framing by another origin",
            lambda: [entry["message"] for entry in driver.get_log("browser") if "frame-ancestors" in entry["message"]],
        )
        if merchant.origin not in refusal[0]:
            fail(f"the refusal does not name the allowed origin: {refusal[0]}")
        framed = in_frame(driver, lambda: driver.find_elements(By.ID, "card-number"))
        if framed:
            fail("a page of another origin shows the card field")
        if "vault:" in driver.find_element(By.ID, "messages").text:
            fail("the field talked to a page of another origin")

        # 5. A spent session is refused in the page.
        driver.get(merchant.origin + "/checkout")
        type_card(driver, "5555555555554444")
        message = wait_for("vault:card-error on the merchant's element", lambda: driver.find_element(By.ID, "errors").text)
        if "no longer" not in message:
            fail(f"a spent session's refusal reads {message!r}")
        status, listed = vault.api("GET", "/v1/secure-cards?limit=100")
        if len([card for card in listed.get("data", []) if card["merchantReference"] == "browser-1"]) != 1:
            fail(f"a spent session stored another card: {listed}")
        print("capture browser test: passed (field mounted, card saved, no card number in the merchant page, framing refused, spent session refused)")
    finally:
        if driver:
            driver.quit()
        vault.stop()
        merchant.stop()
        stranger.stop()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
