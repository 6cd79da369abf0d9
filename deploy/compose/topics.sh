#!/bin/sh
# Creates the topics of DESIGN.md §2 (the same list as deploy/local/env.sh's HALLMARK_TOPICS),
# HALLMARK_PARTITIONS partitions each, on HALLMARK_KAFKA_BROKERS. Idempotent. Runs in the Kafka
# image (kafka-topics.sh) or, with compose.local.yaml, in the local Tansu image (`tansu topic`).
set -eu
topics="smileid.sign.requests smileid.sign.results smileid.verify.requests smileid.verify.results
  smileid.encrypt.requests smileid.encrypt.results smileid.decrypt.requests smileid.decrypt.results
  e2ee.handshakes e2ee.handshake.results e2ee.inbound e2ee.plaintext e2ee.outbound.requests e2ee.outbound
  birthmark.provision.requests birthmark.provision.results birthmark.token.requests birthmark.token.results
  birthmark.authority.admin birthmark.submissions birthmark.submission.results birthmark.checkpoints
  birthmark.verify.requests birthmark.verify.results birthmark.modifications birthmark.modification.results
  hallmark.rejected hallmark.metrics hallmark.security hallmark.audit hallmark.privacy.requests hallmark.privacy.results"
brokers=${HALLMARK_KAFKA_BROKERS:-kafka:9092}
partitions=${HALLMARK_PARTITIONS:-4}
if command -v tansu >/dev/null 2>&1; then
  existing=$(tansu topic list --broker "tcp://$brokers" 2>/dev/null || true)
  for t in $topics; do
    printf '%s\n' "$existing" | grep -q "\"$t\"" && continue
    tansu topic create --broker "tcp://$brokers" --partitions "$partitions" "$t" >/dev/null
  done
else
  for t in $topics; do
    "${HALLMARK_TOPICS_COMMAND:-/opt/kafka/bin/kafka-topics.sh}" --bootstrap-server "$brokers" --create --if-not-exists \
      --topic "$t" --partitions "$partitions" --replication-factor 1 --config max.message.bytes=1048576 >/dev/null
  done
fi
echo "topics ready: $(printf '%s\n' $topics | wc -l) on $brokers"
