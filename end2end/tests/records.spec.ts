import * as fs from 'node:fs';
import { test, expect, type Locator, type Page } from '@playwright/test';
import { unique } from './authz-matrix';
import { openHydrated, runDevPython } from './helpers';

// The Data tab, the record page and the record streams, on topics this file writes itself with
// confluent-kafka (so every key, value, header and timestamp is known byte for byte) and on the
// schema topics of dev/seed.py, decoded here independently of klens (fastavro, json, and a
// reading of the Protobuf wire format against the registry's schema text).

const OPEN = process.env.KLENS_URL ?? 'http://127.0.0.1:18080';
const AUTH = process.env.KLENS_AUTH_URL ?? 'http://127.0.0.1:18090';
const PROVIDER = 'http://127.0.0.1:19000';
/** klens reads the topic list in the background; a topic made outside it shows up at the next
 * cycle, which may take this long while other tests load the cluster. */
const ONE_REFRESH_CYCLE = 60_000;

// --------------------------------------------------------------------------------------------
// Kafka, read and written without klens

const KAFKA = String.raw`
import base64, io, json, re, struct, sys, time, urllib.request
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition, OFFSET_BEGINNING
from confluent_kafka.admin import AdminClient, NewTopic
import fastavro

BOOTSTRAP = "127.0.0.1:19092"
REGISTRY = "http://127.0.0.1:18081/apis/ccompat/v7"


def b64(data):
    return None if data is None else base64.b64encode(data).decode()


def unb64(text):
    return None if text is None else base64.b64decode(text)


def create(topics):
    admin = AdminClient({"bootstrap.servers": BOOTSTRAP})
    futures = admin.create_topics([NewTopic(t["name"], t["partitions"]) for t in topics], operation_timeout=30)
    for f in futures.values():
        f.result(timeout=30)
    deadline = time.time() + 30
    for t in topics:
        while True:
            md = admin.list_topics(topic=t["name"], timeout=10).topics.get(t["name"])
            if md and not md.error and len(md.partitions) == t["partitions"] \
                    and all(p.leader >= 0 for p in md.partitions.values()):
                break
            if time.time() > deadline:
                raise SystemExit("topic %s got no leaders" % t["name"])
            time.sleep(0.2)
    return None


def delete(names):
    admin = AdminClient({"bootstrap.servers": BOOTSTRAP})
    for f in admin.delete_topics(names, operation_timeout=30).values():
        try:
            f.result(timeout=30)
        except KafkaException:
            pass
    return None


def produce(spec):
    producer = Producer({"bootstrap.servers": BOOTSTRAP, "enable.idempotence": True, "linger.ms": 5})
    placed = [None] * len(spec["records"])
    errors = []
    for i, r in enumerate(spec["records"]):
        def report(err, msg, i=i):
            if err is not None:
                errors.append(str(err))
            else:
                placed[i] = {"partition": msg.partition(), "offset": msg.offset(), "timestamp": msg.timestamp()[1]}
        kwargs = {"key": unb64(r.get("key")), "value": unb64(r.get("value")), "on_delivery": report}
        if r.get("partition") is not None:
            kwargs["partition"] = r["partition"]
        if r.get("timestamp") is not None:
            kwargs["timestamp"] = r["timestamp"]
        if r.get("headers"):
            kwargs["headers"] = [(k, unb64(v)) for k, v in r["headers"]]
        producer.produce(spec["topic"], **kwargs)
        producer.poll(0)
    left = producer.flush(30)
    if left or errors:
        raise SystemExit("producing failed: %s" % (errors[:3] or "%d undelivered" % left))
    return placed


def read(topic):
    c = Consumer({"bootstrap.servers": BOOTSTRAP, "group.id": "e2e-records-reader", "enable.auto.commit": False})
    try:
        parts = c.list_topics(topic, timeout=10).topics[topic].partitions
        ends = {}
        for p in parts:
            low, high = c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
            if high > low:
                ends[p] = high
        c.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in ends])
        out, left, deadline = [], set(ends), time.time() + 30
        while left and time.time() < deadline:
            m = c.poll(1)
            if m is None or m.error():
                continue
            out.append({"partition": m.partition(), "offset": m.offset(), "timestamp": m.timestamp()[1],
                        "key": b64(m.key()), "value": b64(m.value()),
                        "headers": [[k, b64(v)] for k, v in (m.headers() or [])]})
            if m.offset() + 1 >= ends[m.partition()]:
                left.discard(m.partition())
        if left:
            raise SystemExit("partitions %s of %s not read to their end" % (sorted(left), topic))
        return sorted(out, key=lambda r: (r["partition"], r["offset"]))
    finally:
        c.close()


schemas = {}


def schema(schema_id):
    if schema_id not in schemas:
        with urllib.request.urlopen("%s/schemas/ids/%d" % (REGISTRY, schema_id), timeout=10) as resp:
            schemas[schema_id] = json.loads(resp.read())
    return schemas[schema_id]


def without_logical_types(node):
    # Avro timestamps stay the longs they are on the wire.
    if isinstance(node, dict):
        return {k: without_logical_types(v) for k, v in node.items() if k != "logicalType"}
    if isinstance(node, list):
        return [without_logical_types(v) for v in node]
    return node


def varint(buf, i):
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, i
        shift += 7


def zigzag(n):
    return (n >> 1) ^ -(n & 1)


def proto_messages(text):
    # The top-level messages of a schema and their fields: number -> (name, type, repeated).
    messages = {}
    for name, body in re.findall(r"message\s+(\w+)\s*\{([^}]*)\}", text):
        fields = {}
        for rep, ftype, fname, num in re.findall(r"(repeated\s+)?(\w+)\s+(\w+)\s*=\s*(\d+)\s*;", body):
            fields[int(num)] = (fname, ftype, bool(rep))
        messages[name] = fields
    return messages


def camel(name):
    first, *rest = name.split("_")
    return first + "".join(p.title() for p in rest)


def proto(messages, name, buf):
    fields, out, i = messages[name], {}, 0
    while i < len(buf):
        tag, i = varint(buf, i)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            raw, i = varint(buf, i)
        elif wire == 2:
            n, i = varint(buf, i)
            raw, i = buf[i:i + n], i + n
        elif wire == 1:
            raw, i = buf[i:i + 8], i + 8
        elif wire == 5:
            raw, i = buf[i:i + 4], i + 4
        else:
            raise SystemExit("wire type %d" % wire)
        if number not in fields:
            continue
        fname, ftype, repeated = fields[number]
        if ftype == "string":
            value = raw.decode()
        elif ftype == "bool":
            value = raw != 0
        elif ftype == "int32":
            value = raw - (1 << 64) if raw >= 1 << 63 else raw
        elif ftype in messages:
            value = proto(messages, ftype, raw)
        else:
            raise SystemExit("field type %s" % ftype)
        if repeated:
            out.setdefault(camel(fname), []).append(value)
        else:
            out[camel(fname)] = value
    # Proto3's JSON mapping leaves fields at their default out.
    return {k: v for k, v in out.items() if not (v == "" or v == [] or (v is not True and v == 0))}


def decoded(topic):
    out = []
    for r in read(topic):
        value = unb64(r["value"])
        assert value[0] == 0, "not Confluent-framed"
        schema_id = struct.unpack(">i", value[1:5])[0]
        s = schema(schema_id)
        kind = s.get("schemaType", "AVRO")
        payload = value[5:]
        if kind == "AVRO":
            parsed = fastavro.parse_schema(without_logical_types(json.loads(s["schema"])))
            data = fastavro.schemaless_reader(io.BytesIO(payload), parsed)
        elif kind == "JSON":
            data = json.loads(payload)
        elif kind == "PROTOBUF":
            count, i = varint(payload, 0)
            count = zigzag(count)
            indexes = [0]
            if count:
                indexes = []
                for _ in range(count):
                    n, i = varint(payload, i)
                    indexes.append(zigzag(n))
            assert len(indexes) == 1, "nested message"
            messages = proto_messages(s["schema"])
            data = proto(messages, list(messages)[indexes[0]], payload[i:])
        else:
            raise SystemExit("schema type %s" % kind)
        out.append({"partition": r["partition"], "offset": r["offset"], "key": unb64(r["key"]).decode(),
                    "schemaId": schema_id, "type": kind, "data": data, "value": r["value"]})
    return out


print(json.dumps(globals()[sys.argv[1]](json.loads(sys.stdin.read()))))
`;

const kafka = <T>(fn: string, arg: unknown): T => JSON.parse(runDevPython(KAFKA, [fn], JSON.stringify(arg)));

interface Produced {
  partition?: number;
  key: Buffer | null;
  value: Buffer | null;
  headers?: [string, Buffer | null][];
  timestamp?: number;
}
interface Placed {
  partition: number;
  offset: number;
  timestamp: number;
}
interface KafkaRecord {
  partition: number;
  offset: number;
  timestamp: number;
  key: string | null;
  value: string | null;
  headers: [string, string | null][];
}
interface Decoded {
  partition: number;
  offset: number;
  key: string;
  schemaId: number;
  type: 'AVRO' | 'PROTOBUF' | 'JSON';
  data: unknown;
  value: string;
}

const b64 = (b: Buffer | null) => (b === null ? null : b.toString('base64'));
const createTopics = (topics: { name: string; partitions: number }[]) => kafka<null>('create', topics);
const deleteTopics = (names: string[]) => kafka<null>('delete', names);
const readTopic = (topic: string) => kafka<KafkaRecord[]>('read', topic);
const decodedTopic = (topic: string) => kafka<Decoded[]>('decoded', topic);
function produce(topic: string, records: Produced[]): Placed[] {
  return kafka<Placed[]>('produce', {
    topic,
    records: records.map((r) => ({
      partition: r.partition,
      key: b64(r.key),
      value: b64(r.value),
      headers: r.headers?.map(([k, v]) => [k, b64(v)]),
      timestamp: r.timestamp,
    })),
  });
}

// --------------------------------------------------------------------------------------------
// What klens should show, worked out here

/** A timestamp as klens writes it in UTC: `2026-11-30 08:57:00.123 UTC`. */
const utc = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', ' UTC');

/** The bytes of a hex dump (`00000000  ff fe 00 41 …  ..A`), each line's offset checked. */
function bytesOfHexDump(dump: string): Buffer {
  const out: number[] = [];
  dump.split('\n').forEach((line, i) => {
    const m = /^([0-9a-f]{8}) {2}((?:[0-9a-f]{2} )*[0-9a-f]{2})/.exec(line);
    if (!m) throw new Error(`not a hex dump line: ${JSON.stringify(line)}`);
    expect(parseInt(m[1], 16), `offset column of line ${i}`).toBe(out.length);
    for (const h of m[2].split(' ')) out.push(parseInt(h, 16));
  });
  return Buffer.from(out);
}

/** The bytes a key or value of the API stands for: `raw` when present, else from `data`. */
function bytesOf(e: { encoding: string; data: unknown; raw?: string }): Buffer | null {
  if (e.raw !== undefined) return Buffer.from(e.raw, 'base64');
  switch (e.encoding) {
    case 'null':
      return null;
    case 'base64':
      return Buffer.from(e.data as string, 'base64');
    case 'text':
      return Buffer.from(e.data as string, 'utf8');
    case 'json':
      return Buffer.from(JSON.stringify(e.data), 'utf8');
    default:
      throw new Error(`${e.encoding} without raw bytes`);
  }
}

/** Waits until the page has hydrated again after a reload or a full navigation. */
async function hydrated(page: Page) {
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
}

/** The records table of the Data tab (not the live tail's). */
const dataTable = (page: Page) => page.locator('p[data-figure="scanned"] ~ .table-box table.records');
const tailSection = (page: Page) => page.getByRole('region', { name: 'Live tail' });

/** The `P-O` of every row of a records table, top to bottom. */
const rowIds = (table: Locator) =>
  table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-offset')));

const cells = async (row: Locator) => (await row.locator('td').allInnerTexts()).map((t) => t.trim());

/** The Data tab's form: fills what is given, clears the filter otherwise, and submits. */
async function show(page: Page, opts: { from?: string; q?: string; exact?: boolean; expr?: string }) {
  if (opts.from) await page.getByLabel('Start').selectOption(opts.from);
  await page.getByLabel('Filter').fill(opts.q ?? '');
  await page.getByLabel('Exact match').setChecked(opts.exact ?? false);
  await page.getByLabel('Expression (CEL)').fill(opts.expr ?? '');
  await page.getByRole('button', { name: 'Show', exact: true }).click();
}

// --------------------------------------------------------------------------------------------
// The topics this file writes

const MAIN = unique('e2e-records');
const PAGED = unique('e2e-records-paged');
const TAILED = unique('e2e-records-tail');
/** Enough bytes that a download slowed by the browser's network throttling takes seconds. */
const BULK = unique('e2e-records-bulk');
const BULK_COUNT = 3000;
/** A dead-letter topic as Kafka Connect writes one, and the topic its headers name. */
const DLQ = unique('e2e-records-dlq');
const REDRIVEN = unique('e2e-records-redriven');
/** A minute in the past, with milliseconds that show. */
const BASE = Math.floor(Date.now() / 60_000) * 60_000 - 86_400_000 + 123;
/** Not UTF-8: invalid lead and continuation bytes, a NUL, a DEL, and more than one hex line. */
const BINARY = Buffer.from([
  0xff, 0xfe, 0x00, 0x41, 0x42, 0x43, 0x0a, 0x7f, 0x80, 0xc3, 0x28, 0x20, 0x7e, 0x21, 0xe2, 0x82,
  0xac, 0xf0, 0x9f, 0x98, 0x80, 0xed, 0xa0, 0x80, 0x01, 0x02, 0x03, 0x10, 0x1f, 0xfe, 0xfd, 0xfc,
  0x5c, 0x22, 0x3c, 0x3e, 0x26, 0x00, 0x00, 0xff,
]);
const BIN_HEADER = Buffer.from([0x80, 0x81, 0xfe]);
const text = (s: string) => Buffer.from(s, 'utf8');

interface Expected {
  produced: Produced;
  keyBadge: string;
  keyPreview: string;
  valueBadge: string;
  valuePreview: string;
}
// In timestamp order, which is the order of the Data tab.
const MAIN_RECORDS: Expected[] = [
  {
    produced: { partition: 0, key: text('alpha'), value: text('hello world'), timestamp: BASE },
    keyBadge: 'text', keyPreview: 'alpha', valueBadge: 'text', valuePreview: 'hello world',
  },
  {
    produced: {
      partition: 1, key: text('order-1'), value: text('{"id":1,"item":"lamp","price":12.5}'),
      headers: [['content-type', text('application/json')]], timestamp: BASE + 1000,
    },
    keyBadge: 'text', keyPreview: 'order-1', valueBadge: 'json', valuePreview: '{"id":1,"item":"lamp","price":12.5}',
  },
  {
    produced: {
      partition: 0, key: text('blob'), value: BINARY, timestamp: BASE + 2000,
      headers: [['dup', text('first')], ['dup', text('second')], ['bin', BIN_HEADER], ['empty', null]],
    },
    keyBadge: 'text', keyPreview: 'blob', valueBadge: 'base64', valuePreview: BINARY.toString('base64'),
  },
  {
    produced: { partition: 1, key: text('gone'), value: null, timestamp: BASE + 3000 },
    keyBadge: 'text', keyPreview: 'gone', valueBadge: 'null', valuePreview: 'null',
  },
  {
    produced: { partition: 0, key: null, value: text('the needle is here'), timestamp: BASE + 4000 },
    keyBadge: 'null', keyPreview: 'null', valueBadge: 'text', valuePreview: 'the needle is here',
  },
  {
    produced: { partition: 1, key: text('spaced'), value: text('{ "b" : [1, 2] }'), timestamp: BASE + 5000 },
    keyBadge: 'text', keyPreview: 'spaced', valueBadge: 'json', valuePreview: '{"b":[1,2]}',
  },
];
let placed: Placed[] = [];
const idOf = (i: number) => `${placed[i].partition}-${placed[i].offset}`;
const sizeOf = (p: Produced) =>
  (p.key?.length ?? 0) + (p.value?.length ?? 0) +
  (p.headers ?? []).reduce((n, [k, v]) => n + Buffer.byteLength(k) + (v?.length ?? 0), 0);

test.beforeAll(async ({ playwright }) => {
  test.setTimeout(30_000 + 2 * ONE_REFRESH_CYCLE);
  createTopics([
    { name: MAIN, partitions: 2 },
    { name: PAGED, partitions: 1 },
    { name: TAILED, partitions: 1 },
    { name: BULK, partitions: 2 },
    { name: DLQ, partitions: 1 },
    { name: REDRIVEN, partitions: 1 },
  ]);
  produce(DLQ, [0, 1, 2].map((i) => ({
    key: text(`k${i}`),
    value: text(`not json {${i}`),
    headers: [
      ['trace', text(`t${i}`)],
      ['__connect.errors.topic', text(REDRIVEN)],
      ['__connect.errors.partition', text('0')],
      ['__connect.errors.offset', text(String(i))],
      ['__connect.errors.exception.message', text('Converting byte[] to Kafka Connect data failed')],
    ] as [string, Buffer | null][],
  })));
  produce(BULK, Array.from({ length: BULK_COUNT }, (_, i) => ({
    partition: i % 2, key: text(`bulk-${i}`), value: text(`${i} `.padEnd(1000, 'x')),
  })));
  placed = produce(MAIN, MAIN_RECORDS.map((r) => r.produced));
  const paged = produce(PAGED, Array.from({ length: 60 }, (_, i) => ({
    key: text(`k-${String(i).padStart(2, '0')}`), value: text(`v-${i}`), timestamp: BASE + i * 1000,
  })));
  expect(paged.map((p) => p.offset)).toEqual(Array.from({ length: 60 }, (_, i) => i));
  // klens learns of topics made outside it at its next metadata read.
  const request = await playwright.request.newContext({ baseURL: OPEN });
  for (const topic of [MAIN, PAGED, TAILED, BULK, DLQ, REDRIVEN]) {
    await expect.poll(
      async () => (await request.get(`/api/records?cluster=local&topic=${topic}&limit=1`)).status(),
      { timeout: 2 * ONE_REFRESH_CYCLE, intervals: [1_000, 2_000] },
    ).toBe(200);
  }
  await request.dispose();
});

test.afterAll(() => {
  deleteTopics([MAIN, PAGED, TAILED, BULK, DLQ, REDRIVEN]);
});

// --------------------------------------------------------------------------------------------

test('the Data tab shows the records as written, from the oldest; the filter narrows them and stays in the URL', async ({ page }) => {
  // Offsets and partitions as Kafka placed them.
  expect(placed.map((p) => p.partition)).toEqual(MAIN_RECORDS.map((r) => r.produced.partition));
  expect(placed.map((p) => p.timestamp)).toEqual(MAIN_RECORDS.map((r) => r.produced.timestamp));

  // The tabs lead from the topic's overview to its data and back.
  const problems = await openHydrated(page, `/c/local/topics/${MAIN}`);
  const tabs = page.locator('nav.tabs');
  await expect(tabs.getByRole('link', { name: 'Overview' })).toHaveAttribute('aria-current', 'page');
  await tabs.getByRole('link', { name: 'Data' }).click();
  await expect(page).toHaveURL(new RegExp(`/c/local/topics/${MAIN}/data$`));
  await expect(tabs.getByRole('link', { name: 'Data' })).toHaveAttribute('aria-current', 'page');
  await expect(tabs.getByRole('link', { name: 'Overview' })).not.toHaveAttribute('aria-current', 'page');
  // With no start chosen, the newest page: all six here.
  await expect(dataTable(page).locator('tbody tr')).toHaveCount(MAIN_RECORDS.length);

  await show(page, { from: 'earliest' });
  await expect(page).toHaveURL(/[?&]from=earliest(&|$)/);
  const table = dataTable(page);
  await expect(table).toHaveAttribute('aria-label', 'Records');
  await expect.poll(() => rowIds(table)).toEqual(MAIN_RECORDS.map((_, i) => idOf(i)));
  await expect(page.locator('p[data-figure="scanned"]')).toHaveText(`Scanned ${MAIN_RECORDS.length} records.`);
  await expect(page.locator('nav.pager a')).toHaveCount(0);
  for (const [i, r] of MAIN_RECORDS.entries()) {
    const row = table.locator(`tr[data-offset="${idOf(i)}"]`);
    const [partition, offset, timestamp, key, value, headers, size] = await cells(row);
    const where = `row ${idOf(i)}`;
    expect(partition, where).toBe(String(placed[i].partition));
    expect(offset, where).toBe(String(placed[i].offset));
    await expect(row.locator('td').nth(1).getByRole('link'), where)
      .toHaveAttribute('href', `/c/local/topics/${MAIN}/records/${placed[i].partition}/${placed[i].offset}`);
    expect(timestamp, where).toBe(utc(r.produced.timestamp!));
    await expect(row.locator('td').nth(3).locator('.badge'), where).toHaveText(r.keyBadge);
    await expect(row.locator('td').nth(4).locator('.badge'), where).toHaveText(r.valueBadge);
    expect(key, where).toBe(`${r.keyBadge} ${r.keyPreview}`);
    expect(value, where).toBe(`${r.valueBadge} ${r.valuePreview}`);
    expect(headers, where).toBe(String(r.produced.headers?.length ?? 0));
    expect(size, where).toBe(`${sizeOf(r.produced)} B`);
  }

  // A filter, ignoring case, in key, value or header; kept in the URL, so a reload keeps it.
  const needle = MAIN_RECORDS.findIndex((r) => r.valuePreview === 'the needle is here');
  await show(page, { q: 'NEEDLE' });
  await expect(page).toHaveURL(/[?&]q=NEEDLE(&|$)/);
  await expect(page).toHaveURL(/[?&]from=earliest(&|$)/);
  await expect.poll(() => rowIds(dataTable(page))).toEqual([idOf(needle)]);
  await page.reload();
  await hydrated(page);
  await expect.poll(() => rowIds(dataTable(page))).toEqual([idOf(needle)]);
  await expect(page.getByLabel('Filter')).toHaveValue('NEEDLE');
  await expect(page.getByLabel('Start')).toHaveValue('earliest');

  // A header value matches too (the record with the repeated header).
  const blob = MAIN_RECORDS.findIndex((r) => r.keyPreview === 'blob');
  await show(page, { q: 'second' });
  await expect(page).toHaveURL(/[?&]q=second(&|$)/);
  await expect.poll(() => rowIds(dataTable(page))).toEqual([idOf(blob)]);

  // Exact: the whole value, not a part of it.
  await show(page, { q: 'needle', exact: true });
  await expect(page).toHaveURL(/[?&]exact=true(&|$)/);
  await expect(page.getByText('No records here.')).toBeVisible();
  await expect(dataTable(page)).toHaveCount(0);
  await show(page, { q: 'the needle is here', exact: true });
  await expect.poll(() => rowIds(dataTable(page))).toEqual([idOf(needle)]);
  await expect(page.getByLabel('Exact match')).toBeChecked();
  expect(problems).toEqual([]);
});

test('Older and Newer page through a partition, fifty records at a time, from the newest', async ({ page }) => {
  test.setTimeout(60_000);
  const problems = await openHydrated(page, `/c/local/topics/${PAGED}/data`);
  // From the newest, the newest record comes first.
  const ids = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `0-${to - 1 - i}`);
  const pager = page.locator('nav.pager');
  await expect.poll(() => rowIds(dataTable(page))).toEqual(ids(10, 60));
  await expect(page.locator('p[data-figure="scanned"]')).toHaveText('Scanned 50 records.');
  await expect(pager.locator('a[rel="next"]')).toHaveCount(0);
  const row = dataTable(page).locator('tr[data-offset="0-59"]');
  expect(await cells(row)).toEqual(['0', '59', utc(BASE + 59_000), 'text k-59', 'text v-59', '0', '8 B', '▸']);

  // A row opens in place: its value and the way to its page.
  await row.getByRole('button', { name: 'Details of 0-59' }).click();
  const opened = dataTable(page).locator('tr.expanded');
  await expect(opened.locator('pre[data-part="value"]')).toHaveText('v-59');
  await expect(opened.getByRole('link', { name: 'Open the record' })).toHaveAttribute('href', new RegExp(`/records/0/59$`));
  await row.getByRole('button', { name: 'Details of 0-59' }).click();
  await expect(opened).toHaveCount(0);

  await pager.getByRole('link', { name: 'Older' }).click();
  await expect(page).toHaveURL(/[?&]cursor=[^&]+/);
  await expect.poll(() => rowIds(dataTable(page))).toEqual(ids(0, 10));
  await expect(pager.locator('a[rel="prev"]')).toHaveCount(0);
  // The cursor is in the URL: a reload shows the same page.
  await page.reload();
  await hydrated(page);
  await expect.poll(() => rowIds(dataTable(page))).toEqual(ids(0, 10));

  await pager.getByRole('link', { name: 'Newer' }).click();
  await expect.poll(() => rowIds(dataTable(page))).toEqual(ids(10, 60));
  await expect(pager.locator('a[rel="next"]')).toHaveCount(0);
  await expect(pager.getByRole('link', { name: 'Older' })).toBeVisible();

  // A record page leads to the offsets beside it, within the partition.
  const neighbours = page.getByRole('navigation', { name: 'Neighbouring records' });
  await page.goto(`/c/local/topics/${PAGED}/records/0/0`);
  await hydrated(page);
  // The links follow the catalog's watermarks, which its next refresh brings up to date.
  await expect(async () => {
    await page.reload();
    await hydrated(page);
    await expect(neighbours.getByRole('link', { name: 'Next offset' })).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await expect(neighbours.getByRole('link', { name: 'Previous offset' })).toHaveCount(0);
  await neighbours.getByRole('link', { name: 'Next offset' }).click();
  await expect(page).toHaveURL(new RegExp(`/records/0/1$`));
  await expect(page.locator('pre.payload[data-part="value"]')).toHaveText('v-1');
  await page.goto(`/c/local/topics/${PAGED}/records/0/59`);
  await hydrated(page);
  await expect(neighbours.getByRole('link', { name: 'Previous offset' })).toHaveAttribute('href', new RegExp(`/records/0/58$`));
  await expect(neighbours.getByRole('link', { name: 'Next offset' })).toHaveCount(0);
  expect(problems).toEqual([]);
});

test.describe('in a time zone other than UTC', () => {
  test.use({ timezoneId: 'Asia/Kathmandu' });

  test('the record page shows the exact bytes as hex and text, repeated headers in order, and either time', async ({ page, request }) => {
    const blob = MAIN_RECORDS.findIndex((r) => r.keyPreview === 'blob');
    const { partition, offset } = placed[blob];
    const ts = MAIN_RECORDS[blob].produced.timestamp!;
    const problems = await openHydrated(page, `/c/local/topics/${MAIN}/data?from=earliest`);
    await dataTable(page).locator(`tr[data-offset="${idOf(blob)}"]`).getByRole('link', { name: String(offset) }).click();
    await expect(page).toHaveURL(new RegExp(`/c/local/topics/${MAIN}/records/${partition}/${offset}$`));
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(`${MAIN} · partition ${partition} · offset ${offset}`);

    const key = page.locator('pre.payload[data-part="key"]');
    const value = page.locator('pre.payload[data-part="value"]');
    const views = page.getByRole('group', { name: 'View' });
    const pressed = async () =>
      Object.fromEntries(await Promise.all(['Pretty', 'Text', 'Hex'].map(async (n) =>
        [n, await views.getByRole('button', { name: n }).getAttribute('aria-pressed')])));
    await expect(page.locator('h2', { hasText: 'Value' }).locator('.badge')).toHaveText('base64');
    await expect(page.locator('h2', { hasText: 'Key' }).locator('.badge')).toHaveText('text');
    expect(await pressed()).toEqual({ Pretty: 'true', Text: 'false', Hex: 'false' });
    expect(await value.textContent()).toBe(BINARY.toString('base64'));
    expect(await key.textContent()).toBe('blob');

    await views.getByRole('button', { name: 'Hex' }).click();
    expect(await pressed()).toEqual({ Pretty: 'false', Text: 'false', Hex: 'true' });
    await expect(value).toContainText('00000010');
    expect(bytesOfHexDump((await value.textContent())!).equals(BINARY)).toBe(true);
    expect(bytesOfHexDump((await key.textContent())!).equals(text('blob'))).toBe(true);

    await views.getByRole('button', { name: 'Text' }).click();
    expect(await pressed()).toEqual({ Pretty: 'false', Text: 'true', Hex: 'false' });
    // Invalid UTF-8 becomes U+FFFD, the rest is the text itself.
    await expect.poll(() => value.textContent()).toBe(new TextDecoder('utf-8').decode(BINARY));
    expect(await key.textContent()).toBe('blob');

    // The headers, in the order written, a repeated key twice.
    const headers = page.getByRole('table', { name: 'Headers' }).locator('tbody tr');
    await expect(headers).toHaveCount(4);
    expect(await Promise.all((await headers.all()).map(cells))).toEqual([
      ['dup', 'first'],
      ['dup', 'second'],
      ['bin', BIN_HEADER.toString('base64')],
      ['empty', 'null'],
    ]);

    // The time, in UTC, then in the browser's zone, then in UTC again.
    const when = page.locator('dd[data-figure="timestamp"]');
    await expect(when).toHaveText(utc(ts));
    await page.getByRole('button', { name: 'Show in my time zone' }).click();
    const local = await page.evaluate((ms) => new Date(ms).toString(), ts);
    expect(local).toContain('GMT+0545');
    await expect(when).toHaveText(local);
    await page.getByRole('button', { name: 'Show in UTC' }).click();
    await expect(when).toHaveText(utc(ts));
    await expect(page.getByRole('button', { name: 'Show in my time zone' })).toBeVisible();
    // And how long ago, from the browser's clock: the record's timestamp is about a day back.
    const hours = Math.floor((Date.now() - ts) / 3_600_000);
    await expect(page.locator('dd[data-figure="age"]')).toHaveText(new RegExp(`^(${hours}|${hours + 1}) h ago$`));

    // The same record through the API: every byte, and raw exactly where data cannot give them.
    for (const [i, r] of MAIN_RECORDS.entries()) {
      const res = await request.get(
        `/api/record?cluster=local&topic=${MAIN}&partition=${placed[i].partition}&offset=${placed[i].offset}`);
      expect(res.status()).toBe(200);
      const got = await res.json();
      const where = `record ${idOf(i)}`;
      expect(got, where).toMatchObject({
        topic: MAIN, partition: placed[i].partition, offset: placed[i].offset, timestamp: r.produced.timestamp,
        timestamp_type: 'create_time', size: sizeOf(r.produced),
      });
      expect(got.key.encoding, where).toBe(r.keyBadge);
      expect(got.value.encoding, where).toBe(r.valueBadge);
      expect(bytesOf(got.key), where).toEqual(r.produced.key);
      expect(bytesOf(got.value), where).toEqual(r.produced.value);
      expect(got.headers.map((h: any) => [h.key, bytesOf(h.value)]), where).toEqual(r.produced.headers ?? []);
    }
    const spaced = MAIN_RECORDS.findIndex((r) => r.keyPreview === 'spaced');
    const compact = MAIN_RECORDS.findIndex((r) => r.keyPreview === 'order-1');
    const valueOf = async (i: number) => (await (await request.get(
      `/api/record?cluster=local&topic=${MAIN}&partition=${placed[i].partition}&offset=${placed[i].offset}`)).json()).value;
    expect((await valueOf(spaced)).raw, 'JSON whose text is not compact keeps its bytes').toBe(
      MAIN_RECORDS[spaced].produced.value!.toString('base64'));
    expect((await valueOf(compact)).raw, 'compact JSON needs no raw').toBeUndefined();
    expect(problems).toEqual([]);
  });
});

test.describe("in Newfoundland's time zone", () => {
  test.use({ timezoneId: 'America/St_Johns' });

  test('a start time can be typed as shown, with a zone or in ms; the table follows the time zone choice, which the record page shares', async ({ page }) => {
    const problems = await openHydrated(page, `/c/local/topics/${MAIN}/data?from=earliest`);
    const table = dataTable(page);
    const stampOf = async (i: number) => (await cells(table.locator(`tr[data-offset="${idOf(i)}"]`)))[2];
    const start = page.getByLabel('Timestamp', { exact: true });
    const fromTime = async (typed: string) => {
      await page.getByLabel('Start').selectOption('timestamp');
      await start.fill(typed);
      await page.getByRole('button', { name: 'Show', exact: true }).click();
    };
    const fourth = MAIN_RECORDS[3].produced.timestamp!;
    // As the table prints it: the fourth record is the first shown.
    await fromTime(utc(fourth));
    await expect.poll(() => rowIds(table)).toEqual([3, 4, 5].map(idOf));
    await expect(start).toHaveValue(utc(fourth));
    // The fifth record's second in another zone, without its milliseconds: it and the sixth.
    const fifth = MAIN_RECORDS[4].produced.timestamp!;
    const inKolkata = new Date(fifth + 5.5 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ') + '+05:30';
    await fromTime(inKolkata);
    await expect.poll(() => rowIds(table)).toEqual([4, 5].map(idOf));
    await fromTime(String(fourth));
    await expect.poll(() => rowIds(table)).toEqual([3, 4, 5].map(idOf));
    // Not a time: said so, in the page.
    await fromTime('last tuesday');
    await expect(page.getByRole('alert')).toContainText('"last tuesday" is not a time');
    await expect(table).toHaveCount(0);

    // UTC, then the browser's zone (Newfoundland, half an hour off), in every row.
    await show(page, { from: 'earliest' });
    await expect.poll(() => stampOf(0)).toBe(utc(MAIN_RECORDS[0].produced.timestamp!));
    await page.getByRole('button', { name: 'Show in my time zone' }).click();
    for (const i of [0, 5]) {
      const local = await page.evaluate((ms) => new Date(ms).toString(), MAIN_RECORDS[i].produced.timestamp!);
      expect(local).toMatch(/GMT-0[23]30/);
      await expect.poll(() => stampOf(i)).toBe(local);
    }
    // The choice is kept: the record page opens in the browser's zone too.
    await table.locator(`tr[data-offset="${idOf(0)}"]`).getByRole('link', { name: String(placed[0].offset) }).click();
    await hydrated(page);
    const local0 = await page.evaluate((ms) => new Date(ms).toString(), MAIN_RECORDS[0].produced.timestamp!);
    await expect(page.locator('dd[data-figure="timestamp"]')).toHaveText(local0);
    await page.getByRole('button', { name: 'Show in UTC' }).click();
    await expect(page.locator('dd[data-figure="timestamp"]')).toHaveText(utc(MAIN_RECORDS[0].produced.timestamp!));
    await page.goBack();
    await hydrated(page);
    await expect.poll(() => stampOf(0)).toBe(utc(MAIN_RECORDS[0].produced.timestamp!));
    expect(problems).toEqual([]);
  });
});

test('Avro, Protobuf and JSON Schema values are decoded as the registry says', async ({ page, request }) => {
  test.setTimeout(90_000);
  const topics = [
    { topic: 'payments-avro', badge: 'avro', encoding: 'avro' },
    { topic: 'users-proto', badge: 'protobuf', encoding: 'protobuf' },
    { topic: 'shipments-json', badge: 'json schema', encoding: 'json_schema' },
  ];
  let problems: string[] | undefined;
  for (const { topic, badge, encoding } of topics) {
    const truth = decodedTopic(topic);
    expect(truth.length, `${topic} is seeded`).toBeGreaterThan(0);
    // dev/seed.py keys each record by the id inside its value.
    for (const t of truth) expect((t.data as { id: string }).id, `${topic} ${t.partition}-${t.offset}`).toBe(t.key);
    const byId = new Map(truth.map((t) => [`${t.partition}-${t.offset}`, t]));

    // Every record through the API: decoded as the registry's schema says, with its exact bytes.
    const res = await request.get(`/api/records?cluster=local&topic=${topic}&from=earliest&limit=500`);
    expect(res.status(), topic).toBe(200);
    const api = (await res.json()).records as any[];
    expect(api.length, topic).toBe(truth.length);
    for (const r of api) {
      const t = byId.get(`${r.partition}-${r.offset}`)!;
      const where = `${topic} ${r.partition}-${r.offset}`;
      expect(t, where).toBeDefined();
      expect(r.value.encoding, where).toBe(encoding);
      expect(r.value.error, where).toBeUndefined();
      expect(r.value.schema_id, where).toBe(t.schemaId);
      expect(r.value.data, where).toEqual(t.data);
      expect(r.value.raw, where).toBe(t.value);
      expect(r.key, where).toEqual({ encoding: 'text', data: t.key });
    }

    // The Data tab: the newest page, each value badged with its format.
    const path = `/c/local/topics/${topic}/data`;
    if (!problems) problems = await openHydrated(page, path);
    else {
      await page.goto(path);
      await hydrated(page);
    }
    const rows = dataTable(page).locator('tbody tr');
    await expect(rows).toHaveCount(Math.min(50, truth.length));
    const badges = await rows.evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll('td')[4].querySelector('.badge')?.textContent));
    expect(new Set(badges), topic).toEqual(new Set([badge]));

    // The newest record's page: its value, pretty, is the decoded document.
    const ids = await rowIds(dataTable(page));
    // Newest first.
    const last = ids[0]!;
    const t = byId.get(last)!;
    const row = dataTable(page).locator(`tr[data-offset="${last}"]`);
    await expect(row.locator('td').nth(3)).toHaveText(`text ${t.key}`);
    await row.locator('td').nth(1).getByRole('link').click();
    await expect(page).toHaveURL(new RegExp(`/c/local/topics/${topic}/records/${t.partition}/${t.offset}$`));
    await expect(page.locator('h2', { hasText: 'Value' }).locator('.badge')).toHaveText(badge);
    await expect(page.locator('dt', { hasText: 'Schema id' }).locator('xpath=following-sibling::dd')).toHaveText(String(t.schemaId));
    const pretty = page.locator('pre.payload[data-part="value"]');
    expect(JSON.parse((await pretty.textContent())!), `${topic} ${last}`).toEqual(t.data);
    await expect(page.locator('pre.payload[data-part="key"]')).toHaveText(t.key);
    // Hex shows the framed bytes as they are in Kafka.
    await page.getByRole('group', { name: 'View' }).getByRole('button', { name: 'Hex' }).click();
    await expect(pretty).toContainText('00000000  00 ');
    expect(bytesOfHexDump((await pretty.textContent())!).toString('base64'), `${topic} ${last}`).toBe(t.value);
  }
  // Both versions of the Avro schema were met.
  expect(new Set(decodedTopic('payments-avro').map((t) => t.schemaId)).size).toBe(2);
  expect(problems).toEqual([]);
});

test('an expression filters an Avro topic by its decoded fields, and a fault shows under its field', async ({ page }) => {
  // What Python's own Avro reader finds: payments in euros over 1,000.00.
  const truth = decodedTopic('payments-avro');
  type Payment = { currency: string; amount_cents: number };
  const wanted = truth
    .filter((t) => (t.data as Payment).currency === 'EUR' && (t.data as Payment).amount_cents > 100_000)
    .map((t) => `${t.partition}-${t.offset}`)
    .sort();
  expect(wanted.length).toBeGreaterThan(0);
  expect(wanted.length).toBeLessThan(50);

  const problems = await openHydrated(page, '/c/local/topics/payments-avro/data');
  const expression = "value.currency == 'EUR' && value.amount_cents > 100000";
  await show(page, { from: 'earliest', expr: expression });
  await expect(page).toHaveURL(/[?&]expr=/);
  await expect.poll(async () => (await rowIds(dataTable(page))).sort()).toEqual(wanted);
  await expect(page.locator('p[data-figure="scanned"]')).toHaveText(`Scanned ${truth.length} records.`);
  // Kept in the URL: a reload keeps the expression and its rows.
  await page.reload();
  await hydrated(page);
  await expect(page.getByLabel('Expression (CEL)')).toHaveValue(expression);
  await expect.poll(async () => (await rowIds(dataTable(page))).sort()).toEqual(wanted);

  // A fault is said under the field, where it is; no table, no alert of the page's.
  await show(page, { from: 'earliest', expr: 'value.amount_cents >' });
  const fault = page.locator('#expr-fault');
  await expect(fault).toHaveText(/^Column \d+: /);
  await expect(page.getByLabel('Expression (CEL)')).toHaveAttribute('aria-describedby', 'expr-fault');
  await expect(dataTable(page)).toHaveCount(0);
  await expect(page.locator('p.error')).toHaveCount(0);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`records-expression-fault-${scheme}.png`) });
  }
  // The one the browser logs for the refused expression.
  expect(problems).toEqual(['console: Failed to load resource: the server responded with a status of 400 (Bad Request)']);
});

test('a dead-letter topic is redriven from its Data tab: the dry run first, then the job, seen by another consumer', async ({ page }) => {
  test.setTimeout(90_000);
  const problems = await openHydrated(page, `/c/local/topics/${DLQ}/data`);
  await page.getByRole('button', { name: 'Copy / redrive', exact: true }).click();
  const sheet = page.getByRole('dialog', { name: 'Copy or redrive records' });
  await expect(sheet).toBeVisible();
  await expect(sheet.getByLabel('back to the topic each record\'s dead-letter headers name')).toBeChecked();
  await sheet.getByRole('button', { name: 'Dry run', exact: true }).click();
  await expect(sheet.locator('p[data-figure="copy-read"]')).toHaveText('Read 3 records; 3 passed the filters.');
  const target = sheet.locator(`tr[data-target="local/${REDRIVEN}"]`);
  await expect(target.locator('td').nth(1)).toHaveText('3');
  await expect(target.locator('td').nth(2)).toHaveText('kept');
  await expect(sheet.locator('[data-figure="stripped"]')).toHaveText(
    '__connect.errors.topic, __connect.errors.partition, __connect.errors.offset, __connect.errors.exception.message');
  expect(readTopic(REDRIVEN)).toEqual([]);
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: test.info().outputPath(`records-redrive-${width}-${scheme}.png`) });
    }
  }
  await page.setViewportSize({ width: 1280, height: 720 });

  await sheet.getByRole('button', { name: 'Copy 3 records', exact: true }).click();
  // Jobs of every replica are listed (another klens on this Kafka may have copied too): this one.
  const job = sheet.locator('li[data-state="done"]', { hasText: `${DLQ} →` });
  await expect(job).toBeVisible({ timeout: 30_000 });
  await expect(job).toContainText('3 copied, 0 skipped, 0 failed of 3 read');
  // Another consumer finds each record where its headers said it came from, as it was, with
  // Connect's context taken off and the lineage added.
  const back = readTopic(REDRIVEN);
  expect(back.map((r) => Buffer.from(r.value!, 'base64').toString())).toEqual(['not json {0', 'not json {1', 'not json {2']);
  for (const [i, r] of back.entries()) {
    const headers = r.headers.map(([k, v]) => [k, v === null ? null : Buffer.from(v, 'base64').toString()]);
    expect(Buffer.from(r.key!, 'base64').toString()).toBe(`k${i}`);
    expect(headers).toEqual([['trace', `t${i}`], ['klens-copied-from', `local/${DLQ}/0/${i}`]]);
  }
  expect(problems).toEqual([]);
});

test('Download NDJSON gives every record of the selection, byte for byte', async ({ page }) => {
  const truth = readTopic(MAIN);
  expect(truth.length).toBe(MAIN_RECORDS.length);
  const problems = await openHydrated(page, `/c/local/topics/${MAIN}/data?from=earliest`);
  const link = page.getByRole('link', { name: 'Download NDJSON' });
  await expect(link).toHaveAttribute('href', `/api/export?cluster=local&topic=${MAIN}&from=earliest`);

  const download = async () => {
    const [file] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(file.suggestedFilename()).toBe(`${MAIN}.ndjson`);
    const body = fs.readFileSync((await file.path())!, 'utf8');
    expect(body.endsWith('\n')).toBe(true);
    return body.trimEnd().split('\n').map((l) => JSON.parse(l));
  };
  const lines = await download();
  expect(lines.length).toBe(truth.length);
  await expect(page.locator('[data-figure="download"]')).toHaveText(
    new RegExp(`^Saved ${truth.length} records \\([\\d.]+ (B|KiB)\\) as ${MAIN}\\.ndjson\\.$`));
  const got = lines
    .map((l) => ({
      partition: l.partition,
      offset: l.offset,
      timestamp: l.timestamp,
      key: b64(bytesOf(l.key)),
      value: b64(bytesOf(l.value)),
      headers: l.headers.map((h: any) => [h.key, b64(bytesOf(h.value))]),
    }))
    .sort((a, b) => a.partition - b.partition || a.offset - b.offset);
  expect(got).toEqual(truth);
  expect(lines.every((l) => l.topic === MAIN)).toBe(true);

  // With a filter, only what it keeps.
  await show(page, { q: 'needle' });
  await expect(link).toHaveAttribute('href', `/api/export?cluster=local&topic=${MAIN}&from=earliest&q=needle`);
  const filtered = await download();
  expect(filtered.map((l) => [l.partition, l.offset, l.value.data])).toEqual([
    [placed[4].partition, placed[4].offset, 'the needle is here'],
  ]);
  expect(problems).toEqual([]);
});

test('a long download shows how far it has got, can be cancelled, and then runs to the end', async ({ page }) => {
  const problems = await openHydrated(page, `/c/local/topics/${BULK}/data?from=earliest`);
  // The browser's own throttling (as in its developer tools) slows the body to 256 kB/s, so the
  // 3 MB export takes seconds; klens and Kafka are untouched.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  const throttle = (bytesPerSecond: number) => cdp.send('Network.emulateNetworkConditions',
    { offline: false, latency: 0, downloadThroughput: bytesPerSecond, uploadThroughput: -1 });
  await throttle(256 * 1024);
  const saved: string[] = [];
  page.on('download', (d) => saved.push(d.suggestedFilename()));

  const link = page.getByRole('link', { name: 'Download NDJSON' });
  const status = page.locator('[data-figure="download"]');
  const bar = page.getByRole('progressbar', { name: 'Download progress' });
  await link.click();
  await expect(page.getByRole('button', { name: 'Cancel download' })).toBeVisible();
  await expect.poll(async () => Number((await bar.getAttribute('value')) ?? 0), { timeout: 15_000 }).toBeGreaterThan(0);
  const running = (await status.textContent())!.trim();
  const m = /^([\d,]+) records, ([\d.]+) (KiB|MiB) \((\d+)%\)$/.exec(running);
  expect(m, running).not.toBeNull();
  const sofar = Number(m![1].replace(/,/g, ''));
  expect(sofar).toBeGreaterThan(0);
  expect(sofar).toBeLessThan(BULK_COUNT);
  // Both partitions are read together, so the share of offsets follows the records.
  expect(Math.abs(Number(m![4]) - (100 * sofar) / BULK_COUNT)).toBeLessThan(10);

  await page.getByRole('button', { name: 'Cancel download' }).click();
  await expect(status).toHaveText('Download cancelled.');
  await expect(link).toBeVisible();
  await page.waitForTimeout(500);
  expect(saved, 'a cancelled download saves nothing').toEqual([]);

  await throttle(-1);
  const [file] = await Promise.all([page.waitForEvent('download'), link.click()]);
  expect(file.suggestedFilename()).toBe(`${BULK}.ndjson`);
  const body = fs.readFileSync((await file.path())!, 'utf8');
  const lines = body.trimEnd().split('\n').map((l) => JSON.parse(l));
  expect(lines.length).toBe(BULK_COUNT);
  expect(new Set(lines.map((l) => l.key.data)).size).toBe(BULK_COUNT);
  const done = (await status.textContent())!.trim();
  const d = /^Saved ([\d,]+) records \(([\d.]+) MiB\) as (.+)\.$/.exec(done);
  expect(d, done).not.toBeNull();
  expect(Number(d![1].replace(/,/g, ''))).toBe(BULK_COUNT);
  expect(Math.abs(Number(d![2]) - Buffer.byteLength(body) / 1048576)).toBeLessThanOrEqual(0.05);
  expect(d![3]).toBe(`${BULK}.ndjson`);
  expect(saved).toEqual([`${BULK}.ndjson`]);
  expect(problems).toEqual([]);
});

test('the live tail shows new records as they come, holds them while paused, and stops', async ({ page }) => {
  const problems = await openHydrated(page, `/c/local/topics/${TAILED}/data`);
  await expect(page.getByText('No records here.')).toBeVisible();
  const tail = tailSection(page);
  const rows = tail.locator('table.records tbody tr');
  await expect(tail.getByText('Follow to see records as they are written.')).toBeVisible();

  const [connected] = await Promise.all([
    page.waitForResponse((r) => r.url().includes('/api/tail?')),
    tail.getByRole('button', { name: 'Follow new records' }).click(),
  ]);
  expect(connected.status()).toBe(200);
  expect(connected.headers()['content-type']).toContain('text/event-stream');
  await expect(tail.getByText('Waiting for new records…')).toBeVisible();
  await expect(tail.getByRole('button', { name: 'Stop' })).toBeVisible();

  const first = produce(TAILED, [{ key: text('tail-1'), value: text('{"n":1}') }])[0];
  await expect(rows).toHaveCount(1, { timeout: 5_000 });
  await expect(rows.first()).toHaveAttribute('data-offset', `0-${first.offset}`);
  expect(await cells(rows.first())).toEqual(
    ['0', String(first.offset), utc(first.timestamp), 'text tail-1', 'json {"n":1}', '0', '13 B', '▸']);

  await tail.getByRole('button', { name: 'Pause' }).click();
  await expect(tail.getByRole('button', { name: 'Resume (0 waiting)' })).toBeVisible();
  const second = produce(TAILED, [{ key: text('tail-2'), value: text('two') }])[0];
  await expect(tail.getByRole('button', { name: 'Resume (1 waiting)' })).toBeVisible({ timeout: 5_000 });
  await expect(rows).toHaveCount(1);
  await tail.getByRole('button', { name: 'Resume (1 waiting)' }).click();
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toHaveAttribute('data-offset', `0-${second.offset}`);
  await expect(rows.first().locator('td').nth(3)).toHaveText('text tail-2');
  await expect(tail.getByRole('button', { name: 'Pause' })).toBeVisible();

  // Stopped: no more records arrive, and Follow is offered again.
  await tail.getByRole('button', { name: 'Stop' }).click();
  await expect(tail.getByRole('button', { name: 'Follow new records' })).toBeVisible();
  await expect(tail.getByRole('button', { name: 'Pause' })).toHaveCount(0);
  produce(TAILED, [{ key: text('tail-3'), value: text('three') }]);
  await page.waitForTimeout(2_000);
  await expect(rows).toHaveCount(2);
  expect(problems).toEqual([]);
});

// --------------------------------------------------------------------------------------------
// With sign-in

async function signIn(page: Page, user: string): Promise<string[]> {
  await page.goto(`${AUTH}/`);
  await expect(page).toHaveURL(new RegExp(`^${PROVIDER}/`));
  await page.getByLabel('Username').fill(user);
  await page.getByLabel('Password').fill(`${user}-pw`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(`${AUTH}/`);
  await hydrated(page);
  // From here on, every klens page must be free of errors.
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  return problems;
}

test('without RECORDS, bob is told so on the Data tab and the record page, and the API refuses him', async ({ page }) => {
  const problems = await signIn(page, 'bob');
  const dataPage = await page.goto(`${AUTH}/c/local/topics/orders/data`);
  expect(dataPage?.status()).toBe(200);
  await hydrated(page);
  await expect(page.locator('nav.tabs').getByRole('link', { name: 'Data' })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('note')).toHaveText('Reading records needs the RECORDS privilege on this cluster.');
  await expect(page.locator('table.records')).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Download NDJSON' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Follow new records' })).toHaveCount(0);

  const recordPage = await page.goto(`${AUTH}/c/local/topics/orders/records/0/0`);
  // A page that says what is missing, like the Data tab: nothing on it was refused.
  expect.soft(recordPage?.status(), 'the record page answers as the Data tab does').toBe(200);
  await hydrated(page);
  await expect(page.getByRole('note')).toHaveText('Reading records needs the RECORDS privilege on this cluster.');
  await expect(page.locator('pre.payload')).toHaveCount(0);

  for (const call of [
    'records?cluster=local&topic=orders',
    'record?cluster=local&topic=orders&partition=0&offset=0',
    'export?cluster=local&topic=orders',
    'tail?cluster=local&topic=orders',
  ]) {
    const res = await page.request.get(`${AUTH}/api/${call}`);
    expect(res.status(), call).toBe(403);
    expect(await res.json(), call).toMatchObject({ code: 'MISSING_PRIVILEGE', privilege: 'RECORDS' });
  }
  expect(problems).toEqual([]);
});

test('with RECORDS, alice reads the records', async ({ page }) => {
  const problems = await signIn(page, 'alice');
  await page.goto(`${AUTH}/c/local/topics/${MAIN}/data?from=earliest`);
  await hydrated(page);
  await expect.poll(() => rowIds(dataTable(page))).toEqual(MAIN_RECORDS.map((_, i) => idOf(i)));
  await expect(page.getByRole('note')).toHaveCount(0);
  const res = await page.request.get(`${AUTH}/api/records?cluster=local&topic=${MAIN}&from=earliest`);
  expect(res.status()).toBe(200);
  expect((await res.json()).records.map((r: any) => `${r.partition}-${r.offset}`))
    .toEqual(MAIN_RECORDS.map((_, i) => idOf(i)));
  expect(problems).toEqual([]);
});
