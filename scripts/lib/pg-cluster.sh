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
  # python3 picks the free port (pg_free_port); a bare CI machine may have neither.
  command -v python3 >/dev/null || "$(dirname "${BASH_SOURCE[0]}")/../install-deps.sh" python3 >&2
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
max_connections = 800
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

# --- Primary and streaming standby (scripts/failover-test.sh) ----------------------------------
#
#   pg_cluster_start_primary NAME STANDBY_APP   # as pg_cluster_start, with WAL senders and
#                                               # synchronous_standby_names = 'STANDBY_APP' (commit
#                                               # waits for that standby's flush: synchronous_commit on)
#   pg_cluster_start_standby NAME PRIMARY APP   # pg_basebackup -R from PRIMARY into a new directory,
#                                               # its own port, streaming as application_name APP;
#                                               # sets PG_<NAME>_DIR/PORT/URL like pg_cluster_start
#   pg_cluster_wait_sync PRIMARY APP [SECONDS]  # waits until APP streams with sync_state 'sync'
#   pg_cluster_kill NAME                        # SIGKILL to the postmaster and its children
#   pg_cluster_promote NAME                     # pg_ctl promote -w: a standby becomes a primary
#   pg_cluster_restart_immediate NAME           # pg_ctl restart -m immediate (crash recovery)
#   pg_cluster_in_recovery NAME                 # prints t or f (pg_is_in_recovery())
#   pg_cluster_psql NAME ARGS...                # psql as postgres on database vault, ON_ERROR_STOP
#
# A standby copies the primary's postgresql.conf and postgresql.auto.conf, so its own port, socket
# directory and an empty synchronous_standby_names are appended after the copy (later lines win):
# once promoted it must not wait for a standby of its own that does not exist.

pg_cluster_start_primary() {
  local name=$1 app=$2
  pg_cluster_init "$name" || return 1
  local dir_var="PG_${name}_DIR"
  cat >>"${!dir_var}/data/postgresql.conf" <<EOC
wal_level = replica
max_wal_senders = 10
wal_keep_size = 256MB
EOC
  pg_cluster_run "$name" || return 1
  local port_var="PG_${name}_PORT"
  # The role and database first: with the standby named already, these commits would wait for it.
  "$(pg_bin psql)" -q -h 127.0.0.1 -p "${!port_var}" -U postgres -d postgres -v ON_ERROR_STOP=1 \
    -c "CREATE ROLE vault LOGIN CREATEDB" -c "CREATE DATABASE vault OWNER vault" \
    -c "ALTER SYSTEM SET synchronous_standby_names = '$app'" -c "SELECT pg_reload_conf()" >/dev/null || return 1
  printf -v "PG_${name}_URL" '%s' "postgres://vault@127.0.0.1:${!port_var}/vault?sslmode=disable"
  export "PG_${name}_URL"
}

pg_cluster_start_standby() {
  local name=$1 primary=$2 app=$3 dir port
  local primary_port_var="PG_${primary}_PORT"
  local primary_port=${!primary_port_var}
  dir=$(mktemp -d "${TMPDIR:-/tmp}/vault-pg-$name.XXXXXX")
  chmod 755 "$dir"
  mkdir "$dir/run"
  [ "$(id -u)" -eq 0 ] && chown -R postgres:postgres "$dir"
  port=$(pg_free_port)
  pg_as_owner "$(pg_bin pg_basebackup)" -h 127.0.0.1 -p "$primary_port" -U postgres -D "$dir/data" \
    -R -X stream -c fast >"$dir/basebackup.log" 2>&1 || { cat "$dir/basebackup.log" >&2; return 1; }
  cat >>"$dir/data/postgresql.conf" <<EOC
port = $port
unix_socket_directories = '$dir/run'
hot_standby = on
EOC
  # -R wrote primary_conninfo to postgresql.auto.conf, which also holds the primary's ALTER SYSTEM
  # synchronous_standby_names (and wins over postgresql.conf): name the stream so the primary's
  # setting matches it, and clear the setting here.
  printf "%s\n" "primary_conninfo = 'host=127.0.0.1 port=$primary_port user=postgres application_name=$app'" \
    "synchronous_standby_names = ''" >>"$dir/data/postgresql.auto.conf"
  printf -v "PG_${name}_DIR" '%s' "$dir"
  printf -v "PG_${name}_PORT" '%s' "$port"
  export "PG_${name}_DIR" "PG_${name}_PORT"
  pg_cluster_run "$name" || return 1
  printf -v "PG_${name}_URL" '%s' "postgres://vault@127.0.0.1:$port/vault?sslmode=disable"
  export "PG_${name}_URL"
}

pg_cluster_psql() {
  local name=$1 port_var="PG_${1}_PORT"
  shift
  "$(pg_bin psql)" -X -q -h 127.0.0.1 -p "${!port_var}" -U postgres -d vault -v ON_ERROR_STOP=1 "$@"
}

pg_cluster_wait_sync() {
  local primary=$1 app=$2 seconds=${3:-60} i state
  for i in $(seq 1 $((seconds * 10))); do
    state=$(pg_cluster_psql "$primary" -At -c "SELECT sync_state FROM pg_stat_replication WHERE application_name = '$app' AND state = 'streaming'" 2>/dev/null || true)
    [ "$state" = sync ] && return 0
    sleep 0.1
  done
  echo "pg-cluster: standby $app is not a synchronous streaming standby of $primary (state '${state:-none}')" >&2
  return 1
}

pg_cluster_kill() {
  local dir_var="PG_${1}_DIR" pid
  pid=$(head -1 "${!dir_var}/data/postmaster.pid" 2>/dev/null) || { echo "pg-cluster: $1 is not running" >&2; return 1; }
  # The postmaster and its children at once, as when the machine is lost (a backend left alone
  # would notice the postmaster's death only at its next wait).
  kill -KILL "$pid" $(ps -o pid= --ppid "$pid") 2>/dev/null || true
  local port_var="PG_${1}_PORT" i
  for i in $(seq 1 100); do
    "$(pg_bin pg_isready)" -q -h 127.0.0.1 -p "${!port_var}" || return 0
    sleep 0.05
  done
  return 0
}

pg_cluster_promote() {
  local dir_var="PG_${1}_DIR"
  pg_as_owner "$(pg_bin pg_ctl)" -D "${!dir_var}/data" -w -t 60 promote >/dev/null
}

pg_cluster_restart_immediate() {
  local dir_var="PG_${1}_DIR"
  pg_as_owner "$(pg_bin pg_ctl)" -D "${!dir_var}/data" -l "${!dir_var}/server.log" -m immediate -w -t 60 restart >/dev/null
}

pg_cluster_in_recovery() {
  pg_cluster_psql "$1" -At -c "SELECT pg_is_in_recovery()"
}
