#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests and benchmarks: Debian's `postgresql` package,
# a cluster made by `initdb` as an unprivileged user in a folder of its own, listening only on
# 127.0.0.1 (and a unix socket in that folder). No containers.
#
#   scripts/postgres.sh start DIR    # installs the package if needed, starts; writes DIR/env
#   scripts/postgres.sh restart DIR  # stops and starts the same cluster (the fault benchmark)
#   scripts/postgres.sh stop DIR     # stops it and removes DIR
#
# DIR is made (or taken empty) by the caller, e.g. `mktemp -d`; as root its parents must be
# enterable by others, as /tmp is.
#
# DIR/env holds what a client needs, for `source`: VERITY_TEST_POSTGRES_URL (the superuser
# `verity` on the database `postgres`, with no password in it), PGPASSFILE (the password, in a
# file only its owner reads), PG_BIN (the server's programs, pg_dump among them) and
# VERITY_TEST_POSTGRES_ROOT_CERT: the server offers TLS with a self-signed certificate for
# 127.0.0.1, which that file is the root of (made with openssl when it is installed).
set -euo pipefail

cmd=${1:?usage: scripts/postgres.sh start|restart|stop DIR}
dir=${2:?usage: scripts/postgres.sh start|restart|stop DIR}

pg_bin() {
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

# The server refuses to run as root: it runs as `nobody` then, owning only its folder.
as_server() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u nobody -- "$@"
  else
    "$@"
  fi
}

start_server() {
  local bin=$1 port tls=""
  port=$(cat "$dir/port")
  if [ -f "$dir/server.key" ]; then
    tls="-c ssl=on -c ssl_cert_file=$dir/server.crt -c ssl_key_file=$dir/server.key"
  fi
  as_server "$bin/pg_ctl" start -w -t 60 -D "$dir/data" -l "$dir/server.log" \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir/socket -c fsync=off -c synchronous_commit=off -c full_page_writes=off $tls" \
    >/dev/null
}

case "$cmd" in
start)
  bin=$(pg_bin)
  if [ -z "$bin" ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
    bin=$(pg_bin)
  fi
  [ -n "$bin" ] || { echo "postgres: Debian's postgresql package did not install initdb" >&2; exit 2; }
  mkdir -p "$dir/socket"
  head -c 24 /dev/urandom | base64 | tr -d '/+=' >"$dir/superuser-password"
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' >"$dir/port"
  if [ "$(id -u)" -eq 0 ]; then
    chown -R nobody "$dir"
    chmod 700 "$dir"
  fi
  as_server "$bin/initdb" -D "$dir/data" -U verity --pwfile="$dir/superuser-password" \
    --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >/dev/null
  root_cert=""
  if command -v openssl >/dev/null; then
    # A root that signs the server's certificate, as a real deployment has.
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=Verity test root" \
      -keyout "$dir/root.key" -out "$dir/root.crt" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 \
      -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >"$dir/server.ext"
    openssl x509 -req -in "$dir/server.csr" -CA "$dir/root.crt" -CAkey "$dir/root.key" \
      -CAcreateserial -days 2 -extfile "$dir/server.ext" -out "$dir/server.crt" 2>/dev/null
    chmod 600 "$dir/server.key"
    [ "$(id -u)" -ne 0 ] || chown nobody "$dir/server.key" "$dir/server.crt"
    root_cert=$dir/root.crt
  fi
  start_server "$bin"
  port=$(cat "$dir/port")
  # The client's copy of the password, readable by the one who started the server alone.
  umask 077
  printf '127.0.0.1:%s:*:verity:%s\n' "$port" "$(cat "$dir/superuser-password")" >"$dir/pgpass"
  cat >"$dir/env" <<EOF
export VERITY_TEST_POSTGRES_URL=postgres://verity@127.0.0.1:$port/postgres
export PGPASSFILE=$dir/pgpass
export PG_BIN=$bin
export VERITY_TEST_POSTGRES_ROOT_CERT=$root_cert
EOF
  ;;
restart)
  bin=$(pg_bin)
  as_server "$bin/pg_ctl" stop -w -D "$dir/data" -m fast >/dev/null
  start_server "$bin"
  ;;
stop)
  bin=$(pg_bin)
  if [ -d "$dir/data" ]; then
    as_server "$bin/pg_ctl" stop -w -D "$dir/data" -m fast >/dev/null || true
  fi
  rm -rf "$dir"
  ;;
*)
  echo "usage: scripts/postgres.sh start|restart|stop DIR" >&2
  exit 2
  ;;
esac
