/*
 * The vault's hosted card field, for a merchant's web page:
 *
 *   <div id="card"></div>
 *   <script src="(the vault's origin)/capture/v1.js"></script>
 *   <script>VaultCapture.mount(document.getElementById("card"), {clientSecret: "cs_..._secret_..."});</script>
 *
 * The card is typed into an iframe served by the vault and sent by it straight to the vault; this
 * page only ever receives the token and the masked number ("vault:card-saved" on the element), or
 * a message ("vault:card-error"). Messages go to and come from the vault's exact origin only.
 */
(function () {
  "use strict";

  var script = document.currentScript;
  if (!script || !script.src) {
    return;
  }
  var vaultOrigin = new URL(script.src).origin;

  /* The styling the field takes, each value checked again inside the frame. */
  var STYLE_KEYS = ["color", "backgroundColor", "borderColor", "errorColor", "fontFamily", "fontSize", "borderRadius"];

  function sessionOf(secret) {
    var at = secret.indexOf("_secret_");
    var session = at > 0 ? secret.slice(0, at) : "";
    return /^cs_[a-z2-7]{16,64}$/.test(session) ? session : null;
  }

  function pickStyle(style) {
    var picked = {};
    if (style && typeof style === "object") {
      STYLE_KEYS.forEach(function (key) {
        if (typeof style[key] === "string") {
          picked[key] = style[key];
        }
      });
    }
    return picked;
  }

  function mount(element, options) {
    if (!(element instanceof Element)) {
      throw new TypeError("VaultCapture.mount needs the element to put the card field in.");
    }
    var secret = options && typeof options.clientSecret === "string" ? options.clientSecret : "";
    var session = sessionOf(secret);
    if (!session) {
      throw new TypeError("VaultCapture.mount needs the capture session's clientSecret.");
    }
    var style = pickStyle(options.style);
    var frame = document.createElement("iframe");
    frame.src = vaultOrigin + "/capture/frame?session=" + encodeURIComponent(session);
    frame.title = "Card details";
    frame.setAttribute("referrerpolicy", "no-referrer");
    frame.setAttribute("sandbox", "allow-scripts allow-same-origin");
    frame.setAttribute("scrolling", "no");
    frame.style.border = "0";
    frame.style.width = "100%";
    frame.style.height = "240px";
    frame.style.display = "block";

    function dispatch(type, detail) {
      element.dispatchEvent(new CustomEvent(type, { bubbles: true, detail: detail }));
    }

    function onMessage(event) {
      if (event.origin !== vaultOrigin || event.source !== frame.contentWindow) {
        return;
      }
      var data = event.data;
      if (!data || typeof data !== "object" || typeof data.type !== "string") {
        return;
      }
      switch (data.type) {
        case "vault:ready":
          frame.contentWindow.postMessage({ type: "vault:init", clientSecret: secret, style: style }, vaultOrigin);
          break;
        case "vault:resize":
          if (typeof data.height === "number" && data.height > 0 && data.height < 2000) {
            frame.style.height = Math.ceil(data.height) + "px";
          }
          break;
        case "vault:card-saved":
          dispatch("vault:card-saved", {
            secureCardReference: String(data.secureCardReference),
            maskedNumber: String(data.maskedNumber),
            cardType: String(data.cardType)
          });
          break;
        case "vault:card-error":
          dispatch("vault:card-error", { message: String(data.message) });
          break;
      }
    }

    window.addEventListener("message", onMessage);
    element.appendChild(frame);
    return {
      unmount: function () {
        window.removeEventListener("message", onMessage);
        if (frame.parentNode) {
          frame.parentNode.removeChild(frame);
        }
      }
    };
  }

  window.VaultCapture = Object.freeze({ mount: mount, version: 1 });
})();
