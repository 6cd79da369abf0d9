#!/bin/bash
# Runs once, when PostgreSQL's data folder is first made (/docker-entrypoint-initdb.d), as the
# superuser: a login role and a schema per service (DESIGN.md §3; deploy/local/postgres-roles
# does the same for the local cluster). Each role owns only its schema and cannot create others.
# Passwords come from the postgres-roles secret, lines of "<role> <password>", never the command line.
set -euo pipefail
roles_file=/run/secrets/postgres-roles
db=${POSTGRES_DB:-hallmark}
sql() { psql -v ON_ERROR_STOP=1 --username "${POSTGRES_USER:-postgres}" --dbname "$db" -qAt "$@"; }
sql -c "REVOKE ALL ON DATABASE \"$db\" FROM PUBLIC; REVOKE ALL ON SCHEMA public FROM PUBLIC;"
while read -r role password; do
  [ -n "$role" ] || continue
  case $role in hallmark_[a-z]*) ;; *) echo "init-hallmark: refusing role name $role" >&2; exit 1 ;; esac
  service=${role#hallmark_}
  # The password reaches psql as a variable (:'password'), quoted by psql, never in argv.
  sql -v role="$role" -v password="$password" <<'SQL'
SELECT format('CREATE ROLE %I LOGIN PASSWORD %L', :'role', :'password')
 WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'role') \gexec
SELECT format('ALTER ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD %L', :'role', :'password') \gexec
SELECT format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), :'role') \gexec
SQL
  sql -c "CREATE SCHEMA IF NOT EXISTS $service AUTHORIZATION $role; REVOKE ALL ON SCHEMA $service FROM PUBLIC;"
done <"$roles_file"
echo "init-hallmark: roles and schemas ready"
