#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: `start STATE` creates a cluster in a fresh folder
# under /tmp, listening only on a Unix socket there (no TCP), and writes the libpq URL of its
# "postgres" database to STATE; `stop STATE` stops it and removes the folder. initdb refuses to
# run as root, so as root the server runs as the package's postgres user.
set -euo pipefail
action="${1:?start|stop}"
state="${2:?state file}"
bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
as_server() {
  if [[ "$(id -u)" == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

stop() {
  [[ -f "$state" ]] || return 0
  local dir
  dir="$(sed -n 2p "$state")"
  if [[ -d "$dir/data" ]]; then as_server "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null || true; fi
  # The server's log outlives it, beside the state file, for a test that lost its connection.
  [[ -f "$dir/server.log" ]] && cp "$dir/server.log" "$state.log"
  rm -rf "$dir" "$state"
}

case "$action" in
  start)
    stop
    dir="$(mktemp -d /tmp/cutune-pg.XXXXXX)"
    chmod 755 "$dir"
    [[ "$(id -u)" == 0 ]] && chown postgres "$dir"
    # Durability is not under test here: fsync off keeps two cores free for the tests.
    as_server "$bin/initdb" -D "$dir/data" -A trust -U cutune -E UTF8 --no-sync >"$dir/initdb.log"
    as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o \
      "-c listen_addresses='' -c unix_socket_directories='$dir' -c fsync=off -c max_connections=100" \
      start >/dev/null
    mkdir -p "$(dirname "$state")"
    printf 'postgresql:///postgres?host=%s&user=cutune\n%s\n' "$dir" "$dir" >"$state"
    ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop STATE" >&2; exit 2 ;;
esac
