#!/usr/bin/env bash
# `make dist`: the installable tarball dist/vault-VERSION-linux-ARCH.tar.gz. `vault` is built with
# the Swift runtime linked in (--static-swift-stdlib) and stripped, so a Debian host needs no Swift
# toolchain (only libsqlite3-0 and libsodium23); packed with the default configuration, the systemd
# units (vault.service; vault-charge.service and vault-charge.timer for the nightly run), a sample
# environment file and INSTALL.md. Prints the tarball's path.
#   CONFIGURATION=release (default) or debug: the test command packs the debug build (no 10-minute
#   release build in CI) and installs it with scripts/install-test.sh, so the packaging cannot rot.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
configuration=${CONFIGURATION:-release}

# The modules are compiled against the toolchain's shared Foundation, whose objects name only
# libFoundation*: linked statically, the archives Foundation itself needs (its collections, ICU
# data and C shims) are named here, in one group so their order does not matter.
static=(--static-swift-stdlib -Xlinker --start-group)
for library in _FoundationCollections _FoundationICU _FoundationCShims FoundationEssentials FoundationInternationalization Foundation CoreFoundation swiftSynchronization; do
  static+=(-Xlinker "-l$library")
done
static+=(-Xlinker --end-group -Xlinker -lstdc++)
$SWIFT build -c "$configuration" --product vault "${static[@]}" >&2
binary=$($SWIFT build -c "$configuration" "${static[@]}" --show-bin-path)/vault
version=$("$binary" --version)
name="vault-$version-linux-$(uname -m)"
[ "$configuration" = release ] || name="$name-$configuration"

stage=$(mktemp -d "${TMPDIR:-/tmp}/vault-dist.XXXXXX")
trap 'rm -rf "$stage"' EXIT
root="$stage/$name"
install -d "$root/bin" "$root/etc" "$root/systemd"
install -m 0755 "$binary" "$root/bin/vault"
strip --strip-unneeded "$root/bin/vault"
if ldd "$root/bin/vault" | grep -q 'libswift\|libFoundation\|libdispatch'; then
  echo "dist: bin/vault links a Swift runtime library dynamically:" >&2
  ldd "$root/bin/vault" | grep 'libswift\|libFoundation\|libdispatch' >&2
  exit 1
fi
install -m 0644 config/vault.yaml "$root/etc/vault.yaml"
install -m 0644 packaging/vault.env.sample "$root/etc/vault.env.sample"
install -m 0644 packaging/systemd/vault.service packaging/systemd/vault-charge.service packaging/systemd/vault-charge.timer "$root/systemd/"
install -m 0644 packaging/INSTALL.md "$root/INSTALL.md"
mkdir -p dist
tar -C "$stage" --owner=0 --group=0 -czf "dist/$name.tar.gz" "$name"
echo "dist/$name.tar.gz"
