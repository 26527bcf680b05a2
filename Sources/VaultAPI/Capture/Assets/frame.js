/*
 * The hosted card field, inside the vault's iframe. Takes its client secret and styling only from
 * the session's allowed origin (the parent page), checks the card (Luhn, expiry) before sending it
 * straight to the vault, and tells the parent only the token and the masked number.
 */
(function () {
  "use strict";

  function meta(name) {
    var element = document.querySelector('meta[name="' + name + '"]');
    return element ? element.getAttribute("content") : "";
  }

  var sessionId = meta("vault-session");
  var allowedOrigin = meta("vault-allowed-origin");
  var parentWindow = window.parent;
  var secret = null;
  var busy = false;
  var saved = false;

  var form = document.getElementById("card-form");
  var number = document.getElementById("card-number");
  var expiry = document.getElementById("card-expiry");
  var cvc = document.getElementById("card-cvc");
  var button = document.getElementById("save-card");
  var brandLabel = document.getElementById("card-brand");
  var status = document.getElementById("form-status");

  /* Display only: the vault decides the brand and its lengths. Mir before the Mastercard 2-series. */
  var BRANDS = [
    { name: "Visa", pattern: /^4/, cvc: 3 },
    { name: "Mir", pattern: /^220[0-4]/, cvc: 3 },
    { name: "Mastercard", pattern: /^(5[1-5]|222[1-9]|22[3-9]|2[3-6]|27[01]|2720)/, cvc: 3 },
    { name: "American Express", pattern: /^3[47]/, cvc: 4 },
    { name: "Discover", pattern: /^(6011|64[4-9]|65)/, cvc: 3 },
    { name: "JCB", pattern: /^35(2[89]|[3-8])/, cvc: 3 },
    { name: "Diners Club", pattern: /^3(0[0-5]|[689])/, cvc: 3 },
    { name: "UnionPay", pattern: /^62/, cvc: 3 },
    { name: "Maestro", pattern: /^(5[06-9]|6[37])/, cvc: 3 }
  ];

  /* The styling a merchant may pass, each value held to a pattern (no CSS can be injected). */
  var COLOR = /^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,20}|rgba?\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*(,\s*(0|1|0?\.\d{1,3})\s*)?\))$/;
  var LENGTH = /^\d{1,2}(\.\d{1,2})?(px|rem|em)$/;
  var FAMILY = /^[A-Za-z0-9 ,-]{1,100}$/;
  var STYLES = {
    color: ["--vault-color", COLOR],
    backgroundColor: ["--vault-background-color", COLOR],
    borderColor: ["--vault-border-color", COLOR],
    errorColor: ["--vault-error-color", COLOR],
    fontFamily: ["--vault-font-family", FAMILY],
    fontSize: ["--vault-font-size", LENGTH],
    borderRadius: ["--vault-border-radius", LENGTH]
  };

  function tell(message) {
    if (parentWindow !== window && allowedOrigin) {
      parentWindow.postMessage(message, allowedOrigin);
    }
  }

  function resize() {
    tell({ type: "vault:resize", height: document.documentElement.scrollHeight });
  }

  function digits(text) {
    return text.replace(/\D/g, "");
  }

  function brandOf(pan) {
    for (var i = 0; i < BRANDS.length; i++) {
      if (BRANDS[i].pattern.test(pan)) {
        return BRANDS[i];
      }
    }
    return null;
  }

  function luhn(pan) {
    var sum = 0;
    for (var i = 0; i < pan.length; i++) {
      var digit = pan.charCodeAt(pan.length - 1 - i) - 48;
      if (i % 2 === 1) {
        digit *= 2;
        if (digit > 9) {
          digit -= 9;
        }
      }
      sum += digit;
    }
    return sum % 10 === 0;
  }

  function grouped(pan, brand) {
    var groups = brand && brand.name === "American Express" ? [4, 6, 5] : [4, 4, 4, 4, 3];
    var parts = [];
    var at = 0;
    for (var i = 0; i < groups.length && at < pan.length; i++) {
      parts.push(pan.slice(at, at + groups[i]));
      at += groups[i];
    }
    return parts.join(" ");
  }

  function setError(input, id, message) {
    document.getElementById(id).textContent = message;
    input.setAttribute("aria-invalid", message ? "true" : "false");
  }

  function numberProblem() {
    var pan = digits(number.value);
    if (pan.length === 0) {
      return "Enter the card number.";
    }
    if (pan.length < 12 || pan.length > 19 || !luhn(pan)) {
      return "This card number is not valid. Check it for a typo.";
    }
    return "";
  }

  function expiryProblem() {
    var match = /^(\d{2})\/(\d{2})$/.exec(expiry.value);
    if (!match) {
      return "Enter the expiry date as MM/YY.";
    }
    var month = parseInt(match[1], 10);
    var year = 2000 + parseInt(match[2], 10);
    if (month < 1 || month > 12) {
      return "The expiry month must be between 01 and 12.";
    }
    var now = new Date();
    if (year < now.getFullYear() || (year === now.getFullYear() && month < now.getMonth() + 1)) {
      return "This card has expired.";
    }
    return "";
  }

  function cvcProblem() {
    var brand = brandOf(digits(number.value));
    var length = brand ? brand.cvc : 3;
    var code = digits(cvc.value);
    if (code.length === 0) {
      return "Enter the security code.";
    }
    if (code.length !== length && !(brand === null && code.length === 4)) {
      return "The security code has " + length + " digits.";
    }
    return "";
  }

  number.addEventListener("input", function () {
    var pan = digits(number.value).slice(0, 19);
    var brand = brandOf(pan);
    number.value = grouped(pan, brand);
    brandLabel.textContent = brand ? brand.name : "";
    setError(number, "card-number-error", "");
  });
  number.addEventListener("blur", function () {
    if (number.value) {
      setError(number, "card-number-error", numberProblem());
      resize();
    }
  });

  expiry.addEventListener("input", function (event) {
    var value = digits(expiry.value).slice(0, 4);
    if (value.length === 1 && value > "1") {
      value = "0" + value;
    }
    var deleting = event.inputType && event.inputType.indexOf("delete") === 0;
    expiry.value = value.length > 2 || (value.length === 2 && !deleting) ? value.slice(0, 2) + "/" + value.slice(2) : value;
    setError(expiry, "card-expiry-error", "");
  });
  expiry.addEventListener("blur", function () {
    if (expiry.value) {
      setError(expiry, "card-expiry-error", expiryProblem());
      resize();
    }
  });

  cvc.addEventListener("input", function () {
    cvc.value = digits(cvc.value).slice(0, 4);
    setError(cvc, "card-cvc-error", "");
  });

  function fail(message) {
    status.textContent = message;
    tell({ type: "vault:card-error", message: message });
    resize();
  }

  function refusalMessage(response, body) {
    if (response.status === 401 || response.status === 429) {
      return "This card form can no longer save a card. Reload the page to start again.";
    }
    if (body && body.error && typeof body.error.message === "string") {
      return body.error.message;
    }
    return "The card could not be saved. Try again.";
  }

  /*
   * Saved by the button or Enter, never by a form submission: the frame is sandboxed without
   * allow-forms and its policy has form-action 'none', so the card never leaves as a form post.
   */
  form.addEventListener("submit", function (event) {
    event.preventDefault();
  });
  form.addEventListener("keydown", function (event) {
    if (event.key === "Enter") {
      event.preventDefault();
      save();
    }
  });
  button.addEventListener("click", function (event) {
    event.preventDefault();
    save();
  });

  function save() {
    if (!secret || busy || saved) {
      return;
    }
    var problems = [
      [number, "card-number-error", numberProblem()],
      [expiry, "card-expiry-error", expiryProblem()],
      [cvc, "card-cvc-error", cvcProblem()]
    ];
    var first = null;
    problems.forEach(function (problem) {
      setError(problem[0], problem[1], problem[2]);
      if (problem[2] && !first) {
        first = problem[0];
      }
    });
    if (first) {
      first.focus();
      status.textContent = "";
      resize();
      return;
    }
    var match = /^(\d{2})\/(\d{2})$/.exec(expiry.value);
    var body = JSON.stringify({
      method: "keyed",
      card: { number: digits(number.value), expiryDate: match[1] + match[2], cvv: digits(cvc.value) }
    });
    busy = true;
    button.disabled = true;
    status.textContent = "Saving the card…";
    fetch("/v1/capture-sessions/" + encodeURIComponent(sessionId) + "/card", {
      method: "POST",
      headers: { "Authorization": "Bearer " + secret, "Content-Type": "application/json" },
      body: body,
      credentials: "omit",
      cache: "no-store",
      referrerPolicy: "no-referrer"
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (json) {
        if (response.status === 201 && json) {
          saved = true;
          number.value = "";
          expiry.value = "";
          cvc.value = "";
          brandLabel.textContent = "";
          status.textContent = "Card saved: " + json.maskedNumber;
          tell({
            type: "vault:card-saved",
            secureCardReference: json.secureCardReference,
            maskedNumber: json.maskedNumber,
            cardType: json.cardType
          });
          resize();
          return;
        }
        if (response.status === 401 || response.status === 429) {
          secret = null;
        }
        fail(refusalMessage(response, json));
      });
    }).catch(function () {
      fail("The vault could not be reached. Check the connection and try again.");
    }).then(function () {
      busy = false;
      button.disabled = saved || !secret;
    });
  }

  window.addEventListener("message", function (event) {
    if (event.origin !== allowedOrigin || event.source !== parentWindow || parentWindow === window) {
      return;
    }
    var data = event.data;
    if (!data || typeof data !== "object" || data.type !== "vault:init" || secret || saved) {
      return;
    }
    if (typeof data.clientSecret !== "string" || data.clientSecret.indexOf(sessionId + "_secret_") !== 0) {
      return;
    }
    secret = data.clientSecret;
    var style = data.style && typeof data.style === "object" ? data.style : {};
    Object.keys(STYLES).forEach(function (key) {
      var rule = STYLES[key];
      if (typeof style[key] === "string" && rule[1].test(style[key])) {
        document.documentElement.style.setProperty(rule[0], style[key]);
      }
    });
    button.disabled = false;
    resize();
  });

  if (parentWindow !== window && sessionId && allowedOrigin) {
    tell({ type: "vault:ready" });
  } else {
    status.textContent = "This card form works only inside the merchant's page.";
  }
})();
