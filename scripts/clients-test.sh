#!/usr/bin/env bash
# A generated client: openapi-python-client generates a client from the /openapi.json a live
# `vault serve` serves, and that client runs the README's quick-start flow (register a card, retrieve
# it, preview a schedule, create it, confirm it) against that server. Fails when the generator refuses
# the document or when a response does not parse into the generated types. Then, as a control, the
# client is generated again from a wrong document (SecureCardFields.fingerprint renamed fingerPrint)
# and must fail the flow: a check that cannot fail proves nothing.
#
# openapi-python-client is installed from PyPI into a virtual environment under .build-contract/.
#
# Environment:
#   CLIENTS_CONTROL     1 (default): also run the wrong-document control; 0: skip it
#   CLIENTS_VENV        virtual environment to use or create (default .build-contract/clients-venv)
#   VAULT_BIN           use this vault binary instead of building one (release)
set -euo pipefail
umask 077
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
ROOT=$PWD
CONTROL=${CLIENTS_CONTROL:-1}
VENV=${CLIENTS_VENV:-$ROOT/.build-contract/clients-venv}

command -v python3 >/dev/null || scripts/install-deps.sh python3 python3-venv
command -v curl >/dev/null || scripts/install-deps.sh curl

# shellcheck source=scripts/lib/live-server.sh
. "$ROOT/scripts/lib/live-server.sh"
start_live_server clients
echo "== server on $BASE"
curl -sf "$BASE/openapi.json" -o "$WORK/openapi.json"

# The control document: one required response field renamed, as a server/document drift would be.
python3 - "$WORK/openapi.json" "$WORK/wrong-openapi.json" <<'PY'
import json, sys
document = json.load(open(sys.argv[1]))
fields = document["components"]["schemas"]["SecureCardFields"]
fields["properties"]["fingerPrint"] = fields["properties"].pop("fingerprint")
fields["required"] = ["fingerPrint" if name == "fingerprint" else name for name in fields["required"]]
json.dump(document, open(sys.argv[2], "w"), sort_keys=True)
PY

python_client() { # document output-dir run: generates the client and runs the flow through it
  if PATH="$VENV/bin:$PATH" "$VENV/bin/openapi-python-client" generate --path "$1" --output-path "$2" \
      --fail-on-warning >"$2.log" 2>&1; then
    PYTHONPATH="$2" "$VENV/bin/python" scripts/clients/quickstart.py "$BASE" "$KEY" "$3"
  else
    echo "python client: openapi-python-client refused the document:" >&2
    grep -v "^$\|ruff is not in PATH\|Skipping Integration" "$2.log" >&2 || true
    return 1
  fi
}

status=0
if [ ! -x "$VENV/bin/openapi-python-client" ]; then
  echo "== installing openapi-python-client into $VENV"
  python3 -m venv "$VENV" 2>/dev/null || { scripts/install-deps.sh python3-venv && python3 -m venv "$VENV"; }
  "$VENV/bin/pip" install --quiet --disable-pip-version-check openapi-python-client
fi
echo "== python: openapi-python-client $("$VENV/bin/pip" show openapi-python-client | sed -n 's/^Version: //p')"
# --fail-on-warning: a schema the generator had to leave out is a failure, not a thinner client.
python_client "$WORK/openapi.json" "$WORK/python-client" 1 || status=1
if [ "$CONTROL" = 1 ]; then
  echo "== python, control: a client from a document with a renamed field must fail"
  if python_client "$WORK/wrong-openapi.json" "$WORK/python-control" control >"$WORK/python-control.out" 2>&1; then
    echo "python client: the flow passed with a wrong document" >&2; status=1
  elif grep -q "fingerPrint" "$WORK/python-control.out"; then
    echo "failed as it must: $(tail -1 "$WORK/python-control.out")"
  else
    echo "python client: the control failed, but not on the renamed field:" >&2; tail -5 "$WORK/python-control.out" >&2; status=1
  fi
fi

exit "$status"
