#!/usr/bin/env bash
# Throwaway PostgreSQL clusters for the tests and scripts: each in a temporary directory, on a free
# loopback port, run as the `postgres` user when we are root (initdb refuses root), removed after.
#
#   source scripts/lib/pg-cluster.sh
#   pg_cluster_start NAME            # sets PG_<NAME>_DIR, PG_<NAME>_PORT, PG_<NAME>_URL (call it directly,
#                                    # not in $(...): the variables would stay in the subshell)
#   pg_cluster_stop NAME             # stops it and removes its directory
#   pg_bin TOOL                      # path of a server tool (pg_ctl, pg_basebackup, pgbench, ...)
#   pg_as_owner CMD...               # runs CMD as the cluster's owner (postgres when root)
#
# The cluster trusts loopback connections (it listens on 127.0.0.1 only, in a private directory), so
# the URL carries a user and no password: postgres://vault@127.0.0.1:PORT/vault.
# Installs the Debian `postgresql` package when no server is found.

pg_bin() {
  local tool=$1 dir
  for dir in /usr/lib/postgresql/*/bin; do
    [ -x "$dir/$tool" ] && { echo "$dir/$tool"; return 0; }
  done
  command -v "$tool" 2>/dev/null && return 0
  return 1
}

pg_ensure_installed() {
  pg_bin initdb >/dev/null && return 0
  "$(dirname "${BASH_SOURCE[0]}")/../install-deps.sh" postgresql >&2
  pg_bin initdb >/dev/null
}

pg_as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    # runuser keeps the caller's environment minus HOME/USER; -u postgres needs util-linux (always on Debian).
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

pg_free_port() {
  python3 - <<'EOF'
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()
EOF
}

# pg_cluster_init NAME: initdb in a new temporary directory (no start). Sets PG_<NAME>_DIR/PORT.
pg_cluster_init() {
  local name=$1 dir port
  pg_ensure_installed || { echo "pg-cluster: PostgreSQL server not available" >&2; return 1; }
  dir=$(mktemp -d "${TMPDIR:-/tmp}/vault-pg-$name.XXXXXX")
  chmod 755 "$dir"
  mkdir "$dir/data" "$dir/run"
  [ "$(id -u)" -eq 0 ] && chown -R postgres:postgres "$dir"
  port=$(pg_free_port)
  pg_as_owner "$(pg_bin initdb)" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; return 1; }
  cat >>"$dir/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir/run'
max_connections = 300
shared_buffers = 128MB
fsync = on
synchronous_commit = on
log_min_messages = warning
logging_collector = off
EOF
  printf -v "PG_${name}_DIR" '%s' "$dir"
  printf -v "PG_${name}_PORT" '%s' "$port"
  export "PG_${name}_DIR" "PG_${name}_PORT"
}

# pg_cluster_run NAME: starts an initialised cluster and waits for it.
pg_cluster_run() {
  local name=$1 dir_var="PG_${1}_DIR" port_var="PG_${1}_PORT"
  local dir=${!dir_var} port=${!port_var}
  pg_as_owner "$(pg_bin pg_ctl)" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null \
    || { cat "$dir/server.log" >&2; return 1; }
  local i
  for i in $(seq 1 100); do
    "$(pg_bin pg_isready)" -q -h 127.0.0.1 -p "$port" && return 0
    sleep 0.1
  done
  echo "pg-cluster: $name did not become ready on port $port" >&2
  return 1
}

# pg_cluster_start NAME: init + run + a `vault` role owning a `vault` database; the URL in PG_<NAME>_URL.
pg_cluster_start() {
  local name=$1
  pg_cluster_init "$name" || return 1
  pg_cluster_run "$name" || return 1
  local port_var="PG_${name}_PORT"
  local port=${!port_var}
  "$(pg_bin psql)" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 \
    -c "CREATE ROLE vault LOGIN CREATEDB" -c "CREATE DATABASE vault OWNER vault" >/dev/null || return 1
  local url="postgres://vault@127.0.0.1:$port/vault?sslmode=disable"
  printf -v "PG_${name}_URL" '%s' "$url"
  export "PG_${name}_URL"
}

# pg_cluster_stop NAME: immediate stop, then the directory goes.
pg_cluster_stop() {
  local dir_var="PG_${1}_DIR"
  local dir=${!dir_var:-}
  [ -n "$dir" ] && [ -d "$dir" ] || return 0
  pg_as_owner "$(pg_bin pg_ctl)" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
