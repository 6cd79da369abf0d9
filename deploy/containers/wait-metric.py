"""Waits until an instance's metrics snapshot on hallmark.metrics shows a counter at or above a
value (summed over its dimensions), for scripts that must act part-way through a load.

    wait-metric.py --brokers B --instance I --metric NAME --at-least N [--since UNIX] [--timeout S]

Only snapshots produced at or after --since count (an earlier run's instance of the same name
must not satisfy it). Exit 0 when seen, 1 on timeout. Runs with the local venv's confluent-kafka.
"""
import argparse
import json
import sys
import time
import uuid
from datetime import datetime

from confluent_kafka import Consumer


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--brokers", required=True)
    p.add_argument("--topic", default="hallmark.metrics")
    p.add_argument("--instance", required=True)
    p.add_argument("--metric", required=True)
    p.add_argument("--at-least", type=float, required=True)
    p.add_argument("--since", type=float, default=0)
    p.add_argument("--timeout", type=float, default=60)
    a = p.parse_args()
    consumer = Consumer({"bootstrap.servers": a.brokers, "group.id": f"wait-metric-{uuid.uuid4()}",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe([a.topic])
    deadline = time.monotonic() + a.timeout
    best = None
    try:
        while time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None or message.error():
                continue
            try:
                snapshot = json.loads(message.value())
                produced = datetime.fromisoformat(snapshot["produced_at"].replace("Z", "+00:00")).timestamp()
            except (ValueError, KeyError, TypeError):
                continue
            if snapshot.get("instance") != a.instance or produced < a.since:
                continue
            value = sum(c.get("value", 0) for c in snapshot.get("counters", []) if c.get("name") == a.metric)
            best = value if best is None else max(best, value)
            if value >= a.at_least:
                print(f"{a.instance}: {a.metric} = {value:g}")
                return 0
    finally:
        consumer.close()
    print(f"{a.instance}: {a.metric} did not reach {a.at_least:g} in {a.timeout:g} s (last seen: {best})", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
