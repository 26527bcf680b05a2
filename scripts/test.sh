#!/usr/bin/env bash
# `make test`: the whole suite, the PostgreSQL tests against a throwaway cluster (temporary
# directory, free loopback port) that is stopped and removed however the run ends.
#   SWIFT=swift scripts/test.sh
# With VAULT_TEST_DATABASE_URL already set (a server whose role may CREATE DATABASE) no cluster is
# started. VAULT_TEST_POSTGRES=off runs the suite without PostgreSQL. The suite runs twice: on
# SQLite, then with VAULT_TEST_ENGINE=postgres on PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}

$SWIFT build --build-tests

if [ "${VAULT_TEST_POSTGRES:-on}" != "off" ] && [ -z "${VAULT_TEST_DATABASE_URL:-}" ]; then
  # shellcheck source=lib/pg-cluster.sh
  source scripts/lib/pg-cluster.sh
  trap 'pg_cluster_stop TEST >/dev/null 2>&1 || true' EXIT INT TERM
  pg_cluster_start TEST >/dev/null
  export VAULT_TEST_DATABASE_URL=$PG_TEST_URL
fi

$SWIFT test --skip-build "$@"

# The same suite again on PostgreSQL: every store fixture opens a fresh database copied from a
# migrated template (Tests/StorageTestSupport). The PostgreSQL-only suites already ran above.
if [ "${VAULT_TEST_POSTGRES:-on}" != "off" ]; then
  VAULT_TEST_ENGINE=postgres $SWIFT test --skip-build --skip VaultPostgresTests "$@"
fi
