#!/usr/bin/env bash
# Installs a `make dist` tarball into a clean directory tree (a temporary prefix laid out as
# INSTALL.md says: PREFIX/opt/vault, PREFIX/etc/vault, PREFIX/var/lib/vault) and checks it runs
# there with an environment that names no Swift toolchain: `vault --version` (the version in the
# tarball's name), `vault keys init`, `vault migrate`, `vault serve` on a free loopback port, whose
# /healthz and start-up line name the same version, registers a card with a new merchant's key; then
# SIGTERM, which must end it with status 0; then the nightly unit's `ExecStart` with the install's paths.
#   scripts/install-test.sh dist/vault-VERSION-linux-ARCH[-debug].tar.gz
set -euo pipefail
tarball=$(realpath "$1")
umask 077
prefix=$(mktemp -d "${TMPDIR:-/tmp}/vault-install.XXXXXX")
server=""
cleanup() {
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then kill -KILL "$server" 2>/dev/null || true; fi
  rm -rf "$prefix"
}
trap cleanup EXIT
fail() {
  echo "install test: $*" >&2
  for log in "$prefix/cli.log" "$prefix/serve.log"; do [ ! -f "$log" ] || tail -20 "$log" >&2; done
  exit 1
}

name=$(basename "$tarball" .tar.gz)
expected=${name#vault-}
expected=${expected%%-linux-*}
mkdir -p "$prefix/opt" "$prefix/etc/vault" "$prefix/var/lib/vault"
tar -xzf "$tarball" -C "$prefix/opt"
mv "$prefix/opt/$name" "$prefix/opt/vault"
for file in bin/vault etc/vault.yaml etc/vault.env.sample systemd/vault.service systemd/vault-charge.service systemd/vault-charge.timer INSTALL.md; do
  [ -e "$prefix/opt/vault/$file" ] || fail "the tarball has no $file"
done
install -m 0644 "$prefix/opt/vault/etc/vault.yaml" "$prefix/etc/vault/vault.yaml"
vault=$prefix/opt/vault/bin/vault
config=$prefix/etc/vault/vault.yaml
run() { (cd "$prefix/var/lib/vault" && env -i PATH=/usr/bin:/bin HOME="$prefix" VAULT_PORT=0 VAULT_METRICS_PORT=0 "$vault" "$@" 2>>"$prefix/cli.log"); }

version=$(run --version) || fail "vault --version failed"
[ "$version" = "$expected" ] || fail "vault --version says $version, the tarball $expected"
run keys init --config "$config" >/dev/null || fail "vault keys init failed"
run migrate --config "$config" >/dev/null || fail "vault migrate failed"
[ -f "$prefix/var/lib/vault/data/vault.sqlite" ] || fail "vault migrate made no database under the working directory"

(cd "$prefix/var/lib/vault" && exec env -i PATH=/usr/bin:/bin HOME="$prefix" VAULT_PORT=0 VAULT_METRICS_PORT=0 "$vault" serve --config "$config") \
  >"$prefix/serve.out" 2>"$prefix/serve.log" &
server=$!
base=""
for _ in $(seq 1 300); do
  base=$(grep -o "http://127.0.0.1:[0-9]*" "$prefix/serve.out" 2>/dev/null | head -1 || true)
  [ -z "$base" ] || break
  kill -0 "$server" 2>/dev/null || fail "vault serve exited"
  sleep 0.1
done
[ -n "$base" ] || fail "vault serve did not say where it listens"
health=$(curl -fsS "$base/healthz") || fail "GET /healthz failed"
echo "$health" | grep -q "\"version\":\"$version\"" || fail "/healthz does not name version $version: $health"
grep -q "$version" "$prefix/serve.log" || fail "the start-up line does not name version $version"
created=$(run merchant create shop --config "$config" --json) || fail "vault merchant create failed"
key=$(echo "$created" | sed -nE 's/.*"apiKey" *: *"([^"]+)".*/\1/p')
[ -n "$key" ] || fail "vault merchant create printed no API key"
card='{"merchantReference": "install-test", "method": "keyed", "card": {"number": "4242424242424242", "expiryDate": "1230", "holderName": "Ada Lovelace"}}'
answer=$(curl -sS -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
  -H 'Idempotency-Key: install-test-1' -d "$card" "$base/v1/secure-cards") || fail "POST /v1/secure-cards failed"
[ "$answer" = 201 ] || fail "registering a card answered $answer, not 201"
kill -TERM "$server"
status=0
wait "$server" || status=$?
server=""
[ "$status" -eq 0 ] || fail "vault serve exited $status after SIGTERM"
# The nightly unit's own command, with the install's paths.
nightly=$(sed -nE "s|^ExecStart=||; T; s|/opt/vault|$prefix/opt/vault|g; s|/etc/vault|$prefix/etc/vault|g; p" \
  "$prefix/opt/vault/systemd/vault-charge.service")
[ -n "$nightly" ] || fail "vault-charge.service has no ExecStart"
read -r -a command <<<"$nightly"
(cd "$prefix/var/lib/vault" && env -i PATH=/usr/bin:/bin HOME="$prefix" VAULT_METRICS_PORT=0 "${command[@]}" >>"$prefix/cli.log" 2>&1) ||
  fail "the nightly unit's command (${command[*]}) failed"
echo "install test: $name installed, served /healthz (version $version), registered a card and ran the nightly unit's command"
