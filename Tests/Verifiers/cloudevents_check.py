#!/usr/bin/env python3
"""Reads topics with PyPI's CloudEvents SDK (Kafka binding, binary content mode) and checks
that every message is a CloudEvent whose id, type, time, data schema and correlation id are
its JSON payload's own, and whose data is the payload.

Prints one JSON line: {"checked": {topic: count}, "failures": [...]}; exits 1 on a failure,
or when a topic named with --require holds no message.
"""
import argparse
import json
import sys
import time
import uuid

from cloudevents.core.bindings import kafka as ce_kafka
from confluent_kafka import Consumer, TopicPartition
from dateutil.parser import isoparse


def check(message, failures):
    headers = {name: value or b"" for name, value in (message.headers() or [])}
    where = f"{message.topic()}/{message.partition()}@{message.offset()}"
    try:
        event = ce_kafka.from_binary_event(ce_kafka.KafkaMessage(headers, message.key(), message.value()))
    except Exception as error:  # the SDK refused it: not a CloudEvent
        failures.append(f"{where}: not a CloudEvent: {type(error).__name__}: {error}")
        return
    payload = json.loads(message.value())
    expected = {
        "id": (event.get_id(), payload["id"]),
        "type": (event.get_type(), payload["schema"]),
        "time": (event.get_time(), isoparse(payload["produced_at"])),
        "data": (event.get_data(), payload),
        "specversion": (event.get_specversion(), "1.0"),
        "datacontenttype": (event.get_datacontenttype(), "application/json"),
        "correlationid": (event.get_attributes().get("correlationid"), payload.get("correlation_id")),
    }
    for name, (got, want) in expected.items():
        if got != want:
            failures.append(f"{where}: {name} {str(got)[:80]!r} is not the payload's {str(want)[:80]!r}")
    if not event.get_source().startswith("/hallmark/"):
        failures.append(f"{where}: source {event.get_source()!r}")
    if not (event.get_dataschema() or "").endswith("/" + payload["schema"] + ".json"):
        failures.append(f"{where}: dataschema {event.get_dataschema()!r} for {payload['schema']}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--brokers", required=True)
    parser.add_argument("--topic", action="append", default=[], help="a topic to read to its end")
    parser.add_argument("--require", action="append", default=[], help="a topic that must hold messages")
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args()
    topics = sorted(set(args.topic + args.require))
    consumer = Consumer({
        "bootstrap.servers": args.brokers, "group.id": f"cloudevents-check-{uuid.uuid4()}",
        "auto.offset.reset": "earliest", "enable.auto.commit": False,
    })
    # Read each partition from its start to the end it has now.
    ends = {}
    for topic in topics:
        metadata = consumer.list_topics(topic, timeout=10).topics[topic]
        for partition in metadata.partitions:
            low, high = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=10)
            if high > low:
                ends[(topic, partition)] = high
    consumer.assign([TopicPartition(t, p, 0) for (t, p) in ends] or [TopicPartition(topics[0], 0, 0)])
    checked = {topic: 0 for topic in topics}
    failures = []
    deadline = time.monotonic() + args.timeout
    pending = dict(ends)
    while pending and time.monotonic() < deadline:
        message = consumer.poll(0.5)
        if message is None or message.error():
            continue
        place = (message.topic(), message.partition())
        if place in pending:
            check(message, failures)
            checked[message.topic()] += 1
            if message.offset() + 1 >= pending[place]:
                del pending[place]
    consumer.close()
    if pending:
        failures.append(f"not read to the end in time: {sorted(pending)}")
    failures += [f"{topic}: no messages" for topic in args.require if checked.get(topic, 0) == 0]
    print(json.dumps({"checked": checked, "failures": failures[:20]}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
