"""`mqk demo`: the main job on the embedded local stack.

Starts the local stack unless MQK_KAFKA_BOOTSTRAP / MQK_REDIS_URL point elsewhere, then
shows that the pieces answer: a Kafka transaction (one committed, one aborted record,
read back with read_committed) and a Redis round trip.
"""

from __future__ import annotations

import time
import uuid

from adapter import config


def run(out=print) -> int:
    import redis
    from confluent_kafka import Consumer, Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    from ops import stack

    stack.up(log=out)
    eps = config.endpoints()
    topic = f"mqk-demo-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": eps.kafka_bootstrap})
    for fut in admin.create_topics([NewTopic(topic, 1, 1)]).values():
        fut.result(30)
    producer = Producer({"bootstrap.servers": eps.kafka_bootstrap, "transactional.id": topic})
    producer.init_transactions(30)
    for value, commit in ((b"committed", True), (b"aborted", False)):
        producer.begin_transaction()
        producer.produce(topic, value)
        (producer.commit_transaction if commit else producer.abort_transaction)(30)
    consumer = Consumer(
        {
            "bootstrap.servers": eps.kafka_bootstrap,
            "group.id": topic,
            "auto.offset.reset": "earliest",
            "isolation.level": "read_committed",
        }
    )
    consumer.subscribe([topic])
    seen: list[bytes] = []
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not seen:
        msg = consumer.poll(0.5)
        if msg is not None and not msg.error():
            seen.append(msg.value())
    consumer.close()
    out(f"kafka {eps.kafka_bootstrap}: read_committed saw {seen} (the aborted record is hidden)")
    client = redis.Redis.from_url(eps.redis_url)
    client.set("mqk:demo", topic)
    out(f"redis {eps.redis_url}: round trip {client.get('mqk:demo').decode() == topic}")
    return 0 if seen == [b"committed"] else 1
