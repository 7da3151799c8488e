#!/bin/sh
# Runs a command with a throwaway PostgreSQL cluster: `sh tools/test-postgres.sh <command…>`.
# The cluster lives in a temporary folder, listens on 127.0.0.1 on a free port, and is
# stopped and deleted when the command ends; the command sees SYNC_TEST_DATABASE_URL.
# Debian's server binaries refuse root, so as root they run as the "postgres" user.
set -eu
BIN="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}"
if [ ! -x "$BIN/initdb" ]; then
  echo "== installing Debian's postgresql (needed for the sync tests)"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
  BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
fi
DIR="$(mktemp -d /tmp/kib-test-pg.XXXXXX)"
PORT="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
AS=""
if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$DIR"; AS="runuser -u postgres --"; fi
cleanup() {
  $AS "$BIN/pg_ctl" -D "$DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT INT TERM
$AS "$BIN/initdb" -D "$DIR/data" -U sync --auth=trust --encoding=UTF8 --no-locale --no-sync >/dev/null
# durability off: a test cluster is thrown away anyway (the bench uses its own, durable one)
$AS "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 \
  -o "-p $PORT -c listen_addresses=127.0.0.1 -k $DIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" start >/dev/null
export SYNC_TEST_DATABASE_URL="postgres://sync@127.0.0.1:$PORT/postgres"
status=0
"$@" || status=$?
exit $status
