#!/bin/bash
# The official postgres image's start-up contract, for the local stand-in image: on an empty
# PGDATA, initdb with the superuser's password from POSTGRES_PASSWORD_FILE (scram-sha-256 for
# every TCP login), create POSTGRES_DB, run /docker-entrypoint-initdb.d/*.sh against a server on
# the socket only, then serve on every address.
set -euo pipefail
export POSTGRES_USER=${POSTGRES_USER:-postgres} POSTGRES_DB=${POSTGRES_DB:-$POSTGRES_USER}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  password_file=${POSTGRES_PASSWORD_FILE:?POSTGRES_PASSWORD_FILE is required}
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$password_file" --auth-local=trust \
    --auth-host=scram-sha-256 -E UTF8 >/dev/null
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  psql -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d postgres -qAt \
    -c "CREATE DATABASE \"$POSTGRES_DB\"" 2>/dev/null || true
  for f in /docker-entrypoint-initdb.d/*.sh; do [ -e "$f" ] && bash "$f"; done
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
[ "${1:-postgres}" = postgres ] && shift || true
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
