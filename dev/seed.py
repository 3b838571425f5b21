"""Demo data for klens, written into the dev stack (run through dev/seed).

Everything goes through the open PLAINTEXT admin port, so no credentials are needed. The data is
deterministic (fixed random seed); a topic that already holds records is left as it is, and
schemas, ACLs, SCRAM users and group offsets are set idempotently, so the script can run again.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import struct
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from confluent_kafka import (
    OFFSET_BEGINNING,
    Consumer,
    ConsumerGroupTopicPartitions,
    KafkaError,
    KafkaException,
    Producer,
    TopicPartition,
)
from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    NewTopic,
    OffsetSpec,
    ResourcePatternType,
    ResourceType,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialUpsertion,
)
import fastavro

TIMEOUT = 30
RETRY = {
    KafkaError.COORDINATOR_LOAD_IN_PROGRESS,
    KafkaError.COORDINATOR_NOT_AVAILABLE,
    KafkaError.NOT_COORDINATOR,
    KafkaError.REQUEST_TIMED_OUT,
    KafkaError._TIMED_OUT,
    KafkaError._TRANSPORT,
}
NOW_MS = int(time.time() * 1000)

# --------------------------------------------------------------------------------------------
# schemas

PAYMENT_V1 = {
    "type": "record",
    "name": "Payment",
    "namespace": "dev.klens.demo",
    "fields": [
        {"name": "id", "type": "string"},
        {"name": "order_id", "type": "string"},
        {"name": "amount_cents", "type": "long"},
        {"name": "currency", "type": {"type": "enum", "name": "Currency", "symbols": ["EUR", "USD", "GBP"]}},
        {"name": "status", "type": "string"},
        {"name": "created_at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    ],
}
# Version 2 adds an optional field: a BACKWARD-compatible change.
PAYMENT_V2 = {
    **PAYMENT_V1,
    "fields": PAYMENT_V1["fields"] + [{"name": "note", "type": ["null", "string"], "default": None}],
}

# The value message is the second one in the file, so its Confluent message index is [1].
USER_PROTO = """syntax = "proto3";
package klens.demo;

message Address {
  string street = 1;
  string city = 2;
  string country = 3;
}

message User {
  string id = 1;
  string name = 2;
  string email = 3;
  int32 age = 4;
  repeated string roles = 5;
  Address address = 6;
  bool active = 7;
}
"""

SHIPMENT_JSON_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Shipment",
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "order_id": {"type": "string"},
        "carrier": {"type": "string"},
        "status": {"type": "string", "enum": ["label_created", "in_transit", "delivered", "returned"]},
        "weight_kg": {"type": "number"},
    },
    "required": ["id", "order_id", "status"],
    "additionalProperties": False,
}

# --------------------------------------------------------------------------------------------
# helpers


def log(msg: str) -> None:
    print(msg, flush=True)


class Registry:
    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")

    def _call(self, method: str, path: str, body: dict | None = None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.url + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/vnd.schemaregistry.v1+json", "Accept": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
                return json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as e:
            raise SystemExit(f"dev/seed: registry {method} {path} answered {e.code}: {e.read().decode(errors='replace')}")
        except urllib.error.URLError as e:
            raise SystemExit(f"dev/seed: registry at {self.url} unreachable ({e.reason}); is 'dev/stack up' running?")

    def register(self, subject: str, schema: str, schema_type: str | None = None) -> int:
        body: dict = {"schema": schema}
        if schema_type:
            body["schemaType"] = schema_type
        return int(self._call("POST", f"/subjects/{subject}/versions", body)["id"])

    def subjects(self) -> list[str]:
        return self._call("GET", "/subjects")

    def versions(self, subject: str) -> list[int]:
        return self._call("GET", f"/subjects/{subject}/versions")


def confluent_frame(schema_id: int, payload: bytes, message_index: bytes = b"") -> bytes:
    """Magic byte 0, the schema id as a big-endian int32, [Protobuf message indexes], payload."""
    return b"\x00" + struct.pack(">i", schema_id) + message_index + payload


def zigzag_varint(n: int) -> bytes:
    return varint((n << 1) ^ (n >> 63))


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def proto_message_index(indexes: list[int]) -> bytes:
    """Confluent's message-index list: a count, then each index, all zigzag varints; [0] is one 0 byte."""
    if indexes == [0]:
        return b"\x00"
    return zigzag_varint(len(indexes)) + b"".join(zigzag_varint(i) for i in indexes)


def pb_field(number: int, value) -> bytes:
    """Protobuf wire encoding of one field: str/bytes (length-delimited) or non-negative int/bool (varint)."""
    if isinstance(value, bool):
        return varint(number << 3 | 0) + varint(int(value))
    if isinstance(value, int):
        assert value >= 0
        return varint(number << 3 | 0) + varint(value)
    if isinstance(value, str):
        value = value.encode()
    return varint(number << 3 | 2) + varint(len(value)) + value


def encode_address(a: dict) -> bytes:
    return pb_field(1, a["street"]) + pb_field(2, a["city"]) + pb_field(3, a["country"])


def encode_user(u: dict) -> bytes:
    out = pb_field(1, u["id"]) + pb_field(2, u["name"]) + pb_field(3, u["email"]) + pb_field(4, u["age"])
    for role in u["roles"]:
        out += pb_field(5, role)
    out += pb_field(6, encode_address(u["address"]))
    if u["active"]:  # proto3 leaves default values out
        out += pb_field(7, True)
    return out


def avro_bytes(parsed_schema, record: dict) -> bytes:
    buf = io.BytesIO()
    fastavro.schemaless_writer(buf, parsed_schema, record)
    return buf.getvalue()


def wait_all(futures: dict, what: str, ok_codes=()) -> None:
    for key, fut in futures.items():
        try:
            fut.result(timeout=TIMEOUT)
        except KafkaException as e:
            err = e.args[0]
            if isinstance(err, KafkaError) and err.code() in ok_codes:
                continue
            raise SystemExit(f"dev/seed: {what} {key}: {err}")


# --------------------------------------------------------------------------------------------
# seeding


class Seeder:
    def __init__(self, bootstrap: str, registry: str) -> None:
        self.bootstrap = bootstrap
        self.admin = AdminClient({"bootstrap.servers": bootstrap})
        self.registry = Registry(registry)
        self.produced: dict[str, int] = {}
        try:
            md = self.admin.list_topics(timeout=10)
        except KafkaException as e:
            raise SystemExit(f"dev/seed: Kafka at {bootstrap} unreachable ({e}); is 'dev/stack up' running?")
        self.brokers = len(md.brokers)

    # topics ---------------------------------------------------------------------------------

    def ensure_topic(self, name: str, partitions: int, config: dict | None = None) -> bool:
        """Creates the topic when missing; True when it still needs records."""
        md = self.admin.list_topics(timeout=TIMEOUT)
        if name not in md.topics:
            rf = min(3, self.brokers)
            fut = self.admin.create_topics([NewTopic(name, partitions, rf, config=config or {})])
            wait_all(fut, "creating topic", ok_codes=(KafkaError.TOPIC_ALREADY_EXISTS,))
            self._wait_for_topic(name, partitions)
            log(f"  created topic {name} ({partitions} partitions)")
            return True
        if self.record_count(name) > 0:
            log(f"  topic {name} exists with records; kept as it is")
            return False
        return True

    def _wait_for_topic(self, name: str, partitions: int) -> None:
        deadline = time.time() + TIMEOUT
        while time.time() < deadline:
            t = self.admin.list_topics(topic=name, timeout=TIMEOUT).topics.get(name)
            if t and not t.error and len(t.partitions) == partitions and all(p.leader >= 0 for p in t.partitions.values()):
                return
            time.sleep(0.2)
        raise SystemExit(f"dev/seed: topic {name} did not get leaders for its partitions in time")

    def offsets(self, name: str, spec: OffsetSpec) -> dict[int, int]:
        # Just after a restart of a stack that keeps its data, a leader may answer with an epoch
        # the client's metadata does not know yet (UNKNOWN_LEADER_EPOCH): ask again a few times.
        for attempt in range(10):
            md = self.admin.list_topics(topic=name, timeout=TIMEOUT).topics[name]
            req = {TopicPartition(name, p): spec for p in md.partitions}
            res = self.admin.list_offsets(req, request_timeout=TIMEOUT)
            try:
                return {tp.partition: fut.result(timeout=TIMEOUT).offset for tp, fut in res.items()}
            except KafkaException as e:
                err = e.args[0]
                settling = isinstance(err, KafkaError) and (
                    err.retriable()
                    or err.code() in (KafkaError.UNKNOWN_LEADER_EPOCH, KafkaError.NOT_LEADER_FOR_PARTITION,
                                      KafkaError.LEADER_NOT_AVAILABLE))
                if attempt == 9 or not settling:
                    raise
                time.sleep(0.5)
        raise AssertionError("unreachable")

    def record_count(self, name: str) -> int:
        end = self.offsets(name, OffsetSpec.latest())
        start = self.offsets(name, OffsetSpec.earliest())
        return sum(end[p] - start[p] for p in end)

    def check_schema_ids(self, topic: str, ids: set[int]) -> None:
        """Warns when a kept topic's records name schema ids that the registry gives otherwise now
        (the registry keeps its schemas in memory: a restart followed by other registrations)."""
        c = Consumer({"bootstrap.servers": self.bootstrap, "group.id": "dev-seed-check", "enable.auto.commit": False})
        try:
            parts = self.admin.list_topics(topic=topic, timeout=TIMEOUT).topics[topic].partitions
            c.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in parts])
            seen: set[int] = set()
            deadline = time.time() + 10
            for _ in range(50):
                m = c.poll(max(0.1, deadline - time.time()))
                if m is None or time.time() > deadline:
                    break
                v = m.value()
                if not m.error() and v and len(v) >= 5 and v[0] == 0:
                    seen.add(struct.unpack(">i", v[1:5])[0])
        finally:
            c.close()
        if seen - ids:
            log(f"  WARNING: records of {topic} name schema ids {sorted(seen)} but the registry has {sorted(ids)} "
                f"for them now; 'dev/stack reset', 'dev/stack up' and 'dev/seed' make both anew")

    def produce(self, topic: str, records: list[dict]) -> None:
        producer = Producer(
            {
                "bootstrap.servers": self.bootstrap,
                "partitioner": "murmur2_random",  # the Java client's partitioner
                "linger.ms": 20,
                # As Java producers are by default: Kafka then keeps the producer's state, and
                # the flow of data draws it as the topic's writer.
                "enable.idempotence": True,
            }
        )
        errors: list[str] = []

        def on_delivery(err, _msg):
            if err is not None:
                errors.append(str(err))

        for r in records:
            kwargs = {k: v for k, v in r.items() if k in ("key", "value", "headers", "partition", "timestamp")}
            while True:
                try:
                    producer.produce(topic, on_delivery=on_delivery, **kwargs)
                    break
                except BufferError:
                    producer.poll(0.1)
            producer.poll(0)
        remaining = producer.flush(TIMEOUT)
        if remaining or errors:
            raise SystemExit(f"dev/seed: producing to {topic} failed: {errors[:3] or f'{remaining} records undelivered'}")
        self.produced[topic] = len(records)
        log(f"  produced {len(records)} records to {topic}")

    # data sets -----------------------------------------------------------------------------

    def orders(self) -> None:
        rng = random.Random("orders")  # deterministic data per topic
        if not self.ensure_topic("orders", 6):
            return
        products = ["keyboard", "mouse", "monitor", "laptop stand", "usb-c hub", "headset", "webcam", "desk lamp"]
        statuses = ["created", "paid", "shipped", "delivered", "cancelled"]
        channels = ["web", "mobile", "store"]
        n = 300
        records = []
        for i in range(n):
            customer = f"customer-{rng.randint(1, 40):03d}"
            items = [
                {"sku": f"SKU-{rng.randint(100, 999)}", "product": rng.choice(products), "quantity": rng.randint(1, 3),
                 "unit_price": round(rng.uniform(5, 400), 2)}
                for _ in range(rng.randint(1, 4))
            ]
            value = {
                "order_id": f"ord-{i + 1:05d}",
                "customer_id": customer,
                "status": rng.choice(statuses),
                "items": items,
                "total": round(sum(it["quantity"] * it["unit_price"] for it in items), 2),
                "currency": "EUR",
                "created_at": NOW_MS - (n - i) * 60_000,
                "shipping": {"city": rng.choice(["Berlin", "Lyon", "Porto", "Oslo", "Krakow"]), "express": rng.random() < 0.2},
            }
            headers = [
                ("source", rng.choice(channels).encode()),
                ("trace-id", f"{rng.getrandbits(64):016x}".encode()),
                ("content-type", b"application/json"),
                # The same header key twice: Kafka headers are a list, not a map.
                ("tag", b"priority" if value["shipping"]["express"] else b"standard"),
                ("tag", b"eu"),
            ]
            if i % 25 == 0:
                headers.append(("retry", None))  # a header without a value
            records.append({"key": customer.encode(), "value": json.dumps(value).encode(), "headers": headers,
                            "timestamp": value["created_at"]})
        self.produce("orders", records)

    def big_orders(self) -> None:
        """The topic `make demo`'s SQL processor writes the orders over 500 into (dev/demo-processor)."""
        self.ensure_topic("big-orders", 1)

    def payments_avro(self) -> None:
        rng = random.Random("payments_avro")  # deterministic data per topic
        subject = "payments-avro-value"
        id_v1 = self.registry.register(subject, json.dumps(PAYMENT_V1))
        id_v2 = self.registry.register(subject, json.dumps(PAYMENT_V2))
        log(f"  schema {subject}: ids {id_v1} (v1), {id_v2} (v2)")
        if not self.ensure_topic("payments-avro", 3):
            self.check_schema_ids("payments-avro", {id_v1, id_v2})
            return
        p1, p2 = fastavro.parse_schema(PAYMENT_V1), fastavro.parse_schema(PAYMENT_V2)
        records = []
        n = 120
        for i in range(n):
            rec = {
                "id": f"pay-{i + 1:05d}",
                "order_id": f"ord-{rng.randint(1, 300):05d}",
                "amount_cents": rng.randint(500, 250_000),
                "currency": rng.choice(["EUR", "USD", "GBP"]),
                "status": rng.choice(["authorized", "captured", "refunded", "failed"]),
                "created_at": NOW_MS - (n - i) * 90_000,
            }
            if i < n // 2:
                value = confluent_frame(id_v1, avro_bytes(p1, rec))
            else:
                rec["note"] = rng.choice([None, "manual review", "3-D Secure", None])
                value = confluent_frame(id_v2, avro_bytes(p2, rec))
            records.append({"key": rec["id"].encode(), "value": value, "timestamp": rec["created_at"]})
        self.produce("payments-avro", records)

    def users_proto(self) -> None:
        rng = random.Random("users_proto")  # deterministic data per topic
        subject = "users-proto-value"
        schema_id = self.registry.register(subject, USER_PROTO, "PROTOBUF")
        log(f"  schema {subject}: id {schema_id} (PROTOBUF)")
        if not self.ensure_topic("users-proto", 3):
            self.check_schema_ids("users-proto", {schema_id})
            return
        first = ["Ana", "Ben", "Chloe", "Dmitri", "Eva", "Farid", "Greta", "Hugo", "Ines", "Jonas"]
        last = ["Silva", "Meyer", "Dubois", "Novak", "Berg", "Haddad", "Rossi", "Lund"]
        cities = [("Main Street 1", "Berlin", "DE"), ("Rua Nova 7", "Porto", "PT"), ("Kungsgatan 3", "Oslo", "NO")]
        index = proto_message_index([1])  # User is the second message of the file
        records = []
        for i in range(60):
            name = f"{rng.choice(first)} {rng.choice(last)}"
            street, city, country = rng.choice(cities)
            user = {
                "id": f"user-{i + 1:04d}",
                "name": name,
                "email": f"{name.lower().replace(' ', '.')}@example.com",
                "age": rng.randint(18, 80),
                "roles": rng.sample(["reader", "writer", "admin", "auditor"], rng.randint(0, 2)),
                "address": {"street": street, "city": city, "country": country},
                "active": rng.random() < 0.8,
            }
            records.append({"key": user["id"].encode(), "value": confluent_frame(schema_id, encode_user(user), index),
                            "timestamp": NOW_MS - (60 - i) * 120_000})
        self.produce("users-proto", records)

    def shipments_json(self) -> None:
        rng = random.Random("shipments_json")  # deterministic data per topic
        subject = "shipments-json-value"
        schema_id = self.registry.register(subject, json.dumps(SHIPMENT_JSON_SCHEMA), "JSON")
        log(f"  schema {subject}: id {schema_id} (JSON)")
        if not self.ensure_topic("shipments-json", 2):
            self.check_schema_ids("shipments-json", {schema_id})
            return
        records = []
        for i in range(50):
            value = {
                "id": f"shp-{i + 1:05d}",
                "order_id": f"ord-{rng.randint(1, 300):05d}",
                "carrier": rng.choice(["DHL", "UPS", "PostNord", "CTT"]),
                "status": rng.choice(["label_created", "in_transit", "delivered", "returned"]),
                "weight_kg": round(rng.uniform(0.2, 25), 2),
            }
            records.append({"key": value["id"].encode(), "value": confluent_frame(schema_id, json.dumps(value).encode()),
                            "timestamp": NOW_MS - (50 - i) * 300_000})
        self.produce("shipments-json", records)

    def payments_cards(self) -> None:
        """Card payments as plain JSON: the demo configs mask the card number and the
        customer's email for everyone without UNMASK."""
        rng = random.Random("payments_cards")  # deterministic data per topic
        if not self.ensure_topic("payments-cards", 2):
            return
        records = []
        for i in range(40):
            number = "4" + "".join(str(rng.randint(0, 9)) for _ in range(15))
            value = {
                "id": f"cp-{i + 1:05d}",
                "amount_cents": rng.randint(500, 90_000),
                "card": {"number": number, "expiry": f"{rng.randint(1, 12):02d}/{rng.randint(27, 32)}"},
                "customer": {"id": f"cus-{rng.randint(1, 60):04d}", "email": f"customer{rng.randint(1, 60)}@example.com"},
            }
            records.append({"key": value["id"].encode(), "value": json.dumps(value).encode(),
                            "timestamp": NOW_MS - (40 - i) * 60_000})
        self.produce("payments-cards", records)

    def customers_compacted(self) -> None:
        rng = random.Random("customers_compacted")  # deterministic data per topic
        config = {"cleanup.policy": "compact", "min.cleanable.dirty.ratio": "0.1", "segment.ms": "60000",
                  "delete.retention.ms": "86400000"}
        if not self.ensure_topic("customers-compacted", 3, config):
            return
        records = []
        ts = NOW_MS - 200 * 30_000
        for version in range(1, 5):
            for c in range(1, 31):
                if rng.random() < 0.5 and version > 1:
                    continue
                key = f"customer-{c:03d}"
                value = {"customer_id": key, "name": f"Customer {c}", "tier": rng.choice(["bronze", "silver", "gold"]),
                         "version": version, "email": f"customer{c}@example.com"}
                ts += 30_000
                records.append({"key": key.encode(), "value": json.dumps(value).encode(), "timestamp": ts})
        # Tombstones: deleted customers (null values).
        for c in (7, 19):
            ts += 30_000
            records.append({"key": f"customer-{c:03d}".encode(), "value": None, "timestamp": ts})
        self.produce("customers-compacted", records)

    def clickstream(self) -> None:
        rng = random.Random("clickstream")  # deterministic data per topic
        if not self.ensure_topic("clickstream", 48):
            return
        pages = ["/", "/search", "/product/42", "/product/7", "/cart", "/checkout", "/help"]
        records = []
        n = 960
        for i in range(n):
            user = f"u{rng.randint(1, 200):04d}"
            value = {"user": user, "page": rng.choice(pages), "event": rng.choice(["view", "click", "scroll"]),
                     "ts": NOW_MS - (n - i) * 1_000, "session": f"s{rng.getrandbits(32):08x}"}
            records.append({"key": user.encode(), "value": json.dumps(value).encode(), "timestamp": value["ts"]})
        self.produce("clickstream", records)

    def binary_blobs(self) -> None:
        rng = random.Random("binary_blobs")  # deterministic data per topic
        if not self.ensure_topic("binary-blobs", 2):
            return
        records = []
        for i in range(30):
            size = rng.randint(1, 64)
            value = bytes([0xFF, 0xFE, 0x00]) + bytes(rng.getrandbits(8) for _ in range(size))
            key = bytes([0xC3, 0x28, i]) if i % 3 else None  # invalid UTF-8, or no key at all
            rec = {"key": key, "value": value, "partition": i % 2, "timestamp": NOW_MS - (30 - i) * 10_000}
            if i == 5:
                rec["value"] = b""  # an empty value (not null)
            if i == 6:
                rec["headers"] = [("blob-header", bytes([0x80, 0x81, 0xFE]))]
            records.append(rec)
        self.produce("binary-blobs", records)

    # consumer groups, ACLs, users ---------------------------------------------------------

    def commit(self, group: str, topic: str, fraction: float, skip_partitions=()) -> None:
        """Commits offsets at a fraction of each partition's records: lag = the rest."""
        start = self.offsets(topic, OffsetSpec.earliest())
        end = self.offsets(topic, OffsetSpec.latest())
        tps = [
            TopicPartition(topic, p, start[p] + int((end[p] - start[p]) * fraction))
            for p in sorted(end)
            if p not in skip_partitions
        ]
        # The first group operation may meet a coordinator that is still loading: retry.
        deadline = time.time() + TIMEOUT
        while True:
            fut = self.admin.alter_consumer_group_offsets([ConsumerGroupTopicPartitions(group, tps)])
            try:
                result = fut[group].result(timeout=TIMEOUT)
                errors = [tp.error for tp in result.topic_partitions if tp.error is not None]
            except KafkaException as e:
                errors = [e.args[0]]
            if not errors:
                break
            if time.time() > deadline or not all(isinstance(e, KafkaError) and e.code() in RETRY for e in errors):
                raise SystemExit(f"dev/seed: committing offsets for group {group}: {errors[0]}")
            time.sleep(0.5)
        lag = sum(end[tp.partition] - tp.offset for tp in tps)
        log(f"  group {group}: offsets on {topic} committed, lag {lag}")

    def groups(self) -> None:
        self.commit("billing-service", "orders", 0.6)
        self.commit("analytics", "clickstream", 0.8, skip_partitions=range(40, 48))
        self.commit("payments-processor", "payments-avro", 1.0)
        self.commit("customer-sync", "customers-compacted", 0.5)

    def acls(self) -> None:
        def allow(rtype, name, pattern, principal, op, host="*"):
            return AclBinding(rtype, name, pattern, principal, host, op, AclPermissionType.ALLOW)

        lit, pre = ResourcePatternType.LITERAL, ResourcePatternType.PREFIXED
        topic, group, cluster = ResourceType.TOPIC, ResourceType.GROUP, ResourceType.BROKER
        bindings = [
            # klens's own Kafka user may do everything (the demo connects as klens over SCRAM).
            allow(topic, "*", lit, "User:klens", AclOperation.ALL),
            allow(group, "*", lit, "User:klens", AclOperation.ALL),
            allow(cluster, "kafka-cluster", lit, "User:klens", AclOperation.ALL),
            allow(ResourceType.TRANSACTIONAL_ID, "*", lit, "User:klens", AclOperation.ALL),
            # The mutual-TLS client (certificate CN=klens-tls, port 19095); dev/stack up grants
            # these too.
            allow(topic, "*", lit, "User:klens-tls", AclOperation.ALL),
            allow(group, "*", lit, "User:klens-tls", AclOperation.ALL),
            allow(cluster, "kafka-cluster", lit, "User:klens-tls", AclOperation.ALL),
            allow(ResourceType.TRANSACTIONAL_ID, "*", lit, "User:klens-tls", AclOperation.ALL),
            # A few demo ACLs.
            allow(topic, "orders", lit, "User:alice", AclOperation.READ),
            allow(topic, "orders", lit, "User:alice", AclOperation.DESCRIBE),
            allow(group, "billing-service", lit, "User:alice", AclOperation.READ),
            allow(topic, "click", pre, "User:reporting", AclOperation.READ),
            allow(topic, "click", pre, "User:reporting", AclOperation.DESCRIBE),
            allow(group, "reporting-", pre, "User:reporting", AclOperation.READ),
            allow(topic, "payments-", pre, "User:billing", AclOperation.WRITE, host="127.0.0.1"),
            AclBinding(topic, "payments-avro", lit, "User:reporting", "*", AclOperation.READ, AclPermissionType.DENY),
            # A Kafka user for klens that may read topics and groups but holds nothing on the
            # cluster: the ACLs and Users pages must say what it lacks.
            allow(topic, "*", lit, "User:klens-limited", AclOperation.READ),
            allow(topic, "*", lit, "User:klens-limited", AclOperation.DESCRIBE),
            allow(group, "*", lit, "User:klens-limited", AclOperation.DESCRIBE),
        ]
        wait_all(self.admin.create_acls(bindings), "creating ACL")
        log(f"  {len(bindings)} ACL bindings in place")

    def scram_users(self) -> None:
        info = ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192)
        # The stack's own users (dev/stack formats Kafka with them) are set again too: after a
        # broker restart that follows a credential's deletion, this Kafka has been seen to reject
        # them until they are written anew.
        own = ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096)
        ups = [
            UserScramCredentialUpsertion("admin", own, b"admin-secret"),
            UserScramCredentialUpsertion("klens", own, b"klens-secret"),
            UserScramCredentialUpsertion("reporting", info, b"reporting-secret"),
            UserScramCredentialUpsertion("klens-limited", info, b"limited-secret"),
        ]
        wait_all(self.admin.alter_user_scram_credentials(ups), "SCRAM user")
        log("  SCRAM-SHA-512 users reporting / reporting-secret and klens-limited / limited-secret in place")

    # Kafka Connect --------------------------------------------------------------------------

    def connectors(self, connect: str) -> None:
        """A FileStream source that reads demo lines from a file into connect-lines, a sink that
        writes them out to another file, and a sink that archives orders' values to a file, on
        dev/stack's Connect worker. Skipped with a note when no worker answers (the three-broker
        layout runs none)."""
        files = Path(__file__).resolve().parent.parent / "target" / "dev-stack" / "connect" / "files"
        try:
            urllib.request.urlopen(connect + "/connectors", timeout=TIMEOUT).read()
        except (urllib.error.URLError, OSError) as e:
            log(f"  no Kafka Connect at {connect} ({e}): connectors not seeded")
            return
        files.mkdir(parents=True, exist_ok=True)
        lines = files / "demo-lines.txt"
        if not lines.exists():
            lines.write_text("".join(f"demo line {i}: the quick brown fox\n" for i in range(1, 21)))
        self.ensure_topic("connect-lines", 1)
        file_connector = "org.apache.kafka.connect.file.FileStream{}Connector"
        for name, config in [
            ("demo-lines-source", {"connector.class": file_connector.format("Source"), "tasks.max": "1",
                                   "file": str(lines), "topic": "connect-lines"}),
            ("demo-lines-sink", {"connector.class": file_connector.format("Sink"), "tasks.max": "1",
                                 "file": str(files / "demo-lines-out.txt"), "topics": "connect-lines"}),
            # Strings, so that any bytes orders holds are written out as they are.
            ("demo-archive-sink", {"connector.class": file_connector.format("Sink"), "tasks.max": "1",
                                   "file": str(files / "orders-archive.txt"), "topics": "orders",
                                   "key.converter": "org.apache.kafka.connect.storage.StringConverter",
                                   "value.converter": "org.apache.kafka.connect.storage.StringConverter"}),
        ]:
            req = urllib.request.Request(f"{connect}/connectors/{name}/config", data=json.dumps(config).encode(),
                                         method="PUT", headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
                resp.read()
        log("  FileStream connectors demo-lines-source and demo-lines-sink on connect-lines, demo-archive-sink on orders")

    # replication ----------------------------------------------------------------------------

    def replication(self, connect: str, remote: str, remote_sasl: str) -> None:
        """Invoices on the stack's second Kafka (`remote`), a group that has read half of them
        there, and the replication demo-eu copying eu-* into this Kafka as remote.<topic>, its
        group checkpointed: MirrorMaker's three connectors on the Connect worker, configured as
        klens's create_replication writes them (klens reads them back as one replication).
        Skipped with a note when the remote Kafka or the worker does not answer."""
        try:
            far = AdminClient({"bootstrap.servers": remote})
            md = far.list_topics(timeout=10)
            urllib.request.urlopen(connect + "/connectors", timeout=TIMEOUT).read()
        except (KafkaException, urllib.error.URLError, OSError) as e:
            log(f"  no remote Kafka at {remote} or Connect at {connect} ({e}): replication not seeded")
            return
        # MirrorMaker's own user there (dev/stack formats the remote Kafka with it; set again for
        # a remote formatted before it had one).
        own = ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096)
        wait_all(far.alter_user_scram_credentials([UserScramCredentialUpsertion("mirror", own, b"mirror-secret")]),
                 "SCRAM user on remote")
        topic = "eu-invoices"
        if topic not in md.topics:
            wait_all(far.create_topics([NewTopic(topic, 3, 1)]), "creating topic", ok_codes=(KafkaError.TOPIC_ALREADY_EXISTS,))
            producer = Producer({"bootstrap.servers": remote, "linger.ms": 20})
            for i in range(300):
                invoice = {"id": f"inv-{i:05d}", "customer": {"id": i % 37, "country": ["DE", "FR", "NL"][i % 3]},
                           "lines": [{"sku": f"sku-{(i * 7 + j) % 50}", "qty": j + 1} for j in range(i % 3 + 1)],
                           "total": round(19.5 + i * 3.25, 2)}
                producer.produce(topic, key=invoice["id"].encode(), value=json.dumps(invoice).encode(), partition=i % 3)
            producer.flush(TIMEOUT)
            log(f"  remote: topic {topic} (3 partitions) with 300 invoices")
            end = {p: 100 for p in range(3)}
            tps = [TopicPartition(topic, p, end[p] // 2) for p in range(3)]
            # A fresh Kafka may answer a first commit per partition with a retriable error (its
            # offsets topic, or the new topic, still loading): try again until each partition took it.
            deadline = time.time() + TIMEOUT
            while True:
                try:
                    fut = far.alter_consumer_group_offsets([ConsumerGroupTopicPartitions("eu-billing", tps)])
                    result = fut["eu-billing"].result(timeout=TIMEOUT)
                    errors = [tp.error for tp in result.topic_partitions if tp.error is not None]
                except KafkaException as e:
                    errors = [e.args[0]]
                if not errors:
                    break
                if time.time() > deadline:
                    raise SystemExit(f"dev/seed: committing offsets for group eu-billing on remote: {errors[0]}")
                time.sleep(0.5)
            log("  remote: group eu-billing has read half of eu-invoices")
        name = "demo-eu"
        # MirrorMaker logs in to the remote Kafka over SCRAM; the Connect workers read the JAAS
        # line from dev/stack's secrets file, so the config holds a reference, never the password.
        secrets = Path(__file__).resolve().parent.parent / "target" / "dev-stack" / "connect" / "secrets.properties"
        common = {
            "source.cluster.alias": "remote", "target.cluster.alias": "local",
            "source.cluster.bootstrap.servers": remote_sasl,
            "source.cluster.sasl.jaas.config": "${file:" + str(secrets) + ":remote.jaas}",
            "source.cluster.sasl.mechanism": "SCRAM-SHA-512",
            "source.cluster.security.protocol": "SASL_PLAINTEXT",
            "target.cluster.bootstrap.servers": self.bootstrap,
            "replication.policy.class": "org.apache.kafka.connect.mirror.DefaultReplicationPolicy",
            "key.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
            "value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
            "header.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
        }
        topics = {"topics": "eu-.*", "topics.exclude": "mm2.*\\.internal,.*\\.replica,__.*"}
        mirror = "org.apache.kafka.connect.mirror."
        connectors = [
            ("source", {**common, **topics, "connector.class": mirror + "MirrorSourceConnector",
                        "sync.topic.configs.enabled": "true", "sync.topic.acls.enabled": "false",
                        "replication.factor": "-1", "offset-syncs.topic.replication.factor": "-1",
                        "refresh.topics.interval.seconds": "60"}),
            ("checkpoint", {**common, **topics, "connector.class": mirror + "MirrorCheckpointConnector",
                            "groups": "eu-.*", "groups.exclude": "console-consumer-.*,connect-.*,__.*",
                            "checkpoints.topic.replication.factor": "-1", "emit.checkpoints.interval.seconds": "10",
                            "refresh.groups.interval.seconds": "60", "sync.group.offsets.enabled": "false"}),
            ("heartbeat", {**common, "connector.class": mirror + "MirrorHeartbeatConnector",
                           "heartbeats.topic.replication.factor": "-1"}),
        ]
        for role, config in connectors:
            req = urllib.request.Request(f"{connect}/connectors/{name}.mirror-{role}/config",
                                         data=json.dumps(config).encode(), method="PUT",
                                         headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
                resp.read()
        log(f"  replication {name}: remote eu-* into local as remote.<topic>, group eu-billing checkpointed")

    # summary --------------------------------------------------------------------------------

    def summary(self) -> None:
        md = self.admin.list_topics(timeout=TIMEOUT)
        log("\nSummary")
        for name in sorted(t for t in md.topics if not t.startswith("__")):
            log(f"  topic {name:<22} {len(md.topics[name].partitions):>3} partitions {self.record_count(name):>5} records")
        for group, topic in [("billing-service", "orders"), ("analytics", "clickstream"),
                             ("payments-processor", "payments-avro"), ("customer-sync", "customers-compacted")]:
            fut = self.admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])
            committed = fut[group].result(timeout=TIMEOUT).topic_partitions
            end = self.offsets(topic, OffsetSpec.latest())
            lag = sum(end[tp.partition] - tp.offset for tp in committed if tp.topic == topic and tp.offset >= 0)
            log(f"  group {group:<22} on {topic:<20} lag {lag}")
        for subject in sorted(self.registry.subjects()):
            log(f"  subject {subject:<20} versions {self.registry.versions(subject)}")
        acls = self.admin.describe_acls(
            AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, None, None, AclOperation.ANY,
                             AclPermissionType.ANY)
        ).result(timeout=TIMEOUT)
        log(f"  ACL bindings {len(acls)}")
        users = self.admin.describe_user_scram_credentials().result(timeout=TIMEOUT)
        log(f"  SCRAM users {', '.join(sorted(users))}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bootstrap", default="127.0.0.1:19092", help="PLAINTEXT bootstrap servers (admin port)")
    ap.add_argument("--registry", default="http://127.0.0.1:18081/apis/ccompat/v7",
                    help="Confluent-compatible Schema Registry URL")
    ap.add_argument("--connect", default="http://127.0.0.1:18083", help="Kafka Connect REST URL")
    ap.add_argument("--remote", default="127.0.0.1:28092", help="the second Kafka's bootstrap servers (replication source)")
    ap.add_argument("--remote-sasl", default="127.0.0.1:28094", help="the second Kafka's SCRAM listener, which MirrorMaker uses")
    args = ap.parse_args()

    s = Seeder(args.bootstrap, args.registry)
    log(f"Seeding {args.bootstrap} ({s.brokers} broker{'s' if s.brokers != 1 else ''}) and {args.registry}")
    s.scram_users()
    s.acls()
    s.orders()
    s.big_orders()
    s.payments_avro()
    s.users_proto()
    s.shipments_json()
    s.payments_cards()
    s.customers_compacted()
    s.clickstream()
    s.binary_blobs()
    s.groups()
    s.connectors(args.connect)
    s.replication(args.connect, args.remote, args.remote_sasl)
    s.summary()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
