#!/usr/bin/env bash
# Installs the Debian packages the build needs (libsqlite3-dev, libsodium-dev, pkg-config), the
# browser the tests drive (chromium, chromium-driver: scripts/capture_browser_test.py) and the mail
# client the e-mail receipt test pipes to (msmtp: MsmtpReceiptTests), curl (scripts/install-test.sh
# reads the installed server's /healthz) and valgrind with binutils' objcopy (the instruction-budget
# guard, scripts/instruction-budget.sh) when missing.
set -euo pipefail

missing=()
for package in libsqlite3-dev libsodium-dev pkg-config chromium chromium-driver msmtp curl valgrind binutils "$@"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
