import { test, expect, type Page } from '@playwright/test';
import { unique } from './authz-matrix';
import { kafkaEndOffsets, kafkaProduceLines, openHydrated, runDevPython } from './helpers';

/** A record as confluent-kafka reads it: key, value and headers as base64 (null for none). */
function readBack(topic: string, partition: number, offset: number): { key: string | null; value: string | null; headers: [string, string | null][] } {
  const out = runDevPython(`
import base64, json, sys
from confluent_kafka import Consumer, TopicPartition
c = Consumer({"bootstrap.servers": "127.0.0.1:19092", "group.id": "e2e-reader", "enable.auto.commit": False})
c.assign([TopicPartition(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))])
m = None
for _ in range(50):
    m = c.poll(0.2)
    if m is not None and m.error() is None:
        break
b = lambda x: None if x is None else base64.b64encode(x).decode()
print(json.dumps({"key": b(m.key()), "value": b(m.value()), "headers": [[k, b(v)] for k, v in (m.headers() or [])]}))
c.close()
`, [topic, String(partition), String(offset)]);
  return JSON.parse(out);
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

async function newTopic(page: Page, partitions: number): Promise<string> {
  const topic = unique('e2e-produce');
  const res = await page.request.post('/api/create_topic', { data: { cluster: 'local', topic, partitions } });
  expect(res.status()).toBe(200);
  return topic;
}

test('produce a JSON record with a key and headers, previewing where it goes', async ({ page }) => {
  const topic = await newTopic(page, 3);
  const problems = await openHydrated(page, `/c/local/topics/${topic}`);
  await page.getByRole('button', { name: 'Produce record' }).click();
  const form = page.getByRole('form', { name: 'Produce record' });
  await form.getByLabel('Key encoding').selectOption('text');
  await form.getByRole('textbox', { name: 'Key', exact: true }).fill('customer-7');
  await form.getByRole('textbox', { name: 'Value', exact: true }).fill('{ "id": 7, "paid": true }');
  await form.getByRole('button', { name: 'Add header' }).click();
  await form.getByLabel('Header 1 name').fill('trace');
  await form.getByRole('textbox', { name: 'Header value' }).fill('t-1');
  await form.getByRole('button', { name: 'Preview' }).click();
  const preview = form.getByRole('status');
  await expect(preview).toContainText('key 10 bytes');
  await expect(preview).toContainText('1 header');
  const predicted = Number((await preview.innerText()).match(/in partition (\d+)/)![1]);
  expect([...kafkaEndOffsets(topic).values()]).toEqual([0, 0, 0]);

  await form.getByRole('button', { name: 'Produce', exact: true }).click();
  await expect(form.locator('.note')).toContainText(`Written to partition ${predicted} at offset 0.`);
  const got = readBack(topic, predicted, 0);
  expect(got).toEqual({ key: b64('customer-7'), value: b64('{"id":7,"paid":true}'), headers: [['trace', b64('t-1')]] });
  await form.getByRole('link', { name: 'Open the record' }).click();
  await expect(page).toHaveURL(new RegExp(`/topics/${topic}/records/${predicted}/0$`));
  expect(problems).toEqual([]);
});

test('produce an Avro record from JSON: the preview names the schema, a bad field is named', async ({ page }, testInfo) => {
  const topic = await newTopic(page, 1);
  const schema = {
    type: 'record', name: 'Payment', namespace: 'e2e', fields: [
      { name: 'id', type: 'string' },
      { name: 'cents', type: 'long' },
      { name: 'note', type: ['null', 'string'], default: null },
    ],
  };
  const registered = await page.request.post(`http://127.0.0.1:18081/apis/ccompat/v7/subjects/${topic}-value/versions`, {
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
    data: { schema: JSON.stringify(schema) },
  });
  expect(registered.ok()).toBe(true);
  const id: number = (await registered.json()).id;
  const problems = await openHydrated(page, `/c/local/topics/${topic}`);
  await page.getByRole('button', { name: 'Produce record' }).click();
  const form = page.getByRole('form', { name: 'Produce record' });
  await form.getByLabel('Value encoding').selectOption('avro');
  await expect(form.getByLabel('Value subject')).toHaveAttribute('placeholder', `${topic}-value`);
  const value = form.getByRole('textbox', { name: 'Value', exact: true });
  await value.fill('{"id": "p-1", "cents": "lots"}');
  await form.getByRole('button', { name: 'Preview' }).click();
  await expect(form.getByRole('alert')).toContainText('value.data/cents');
  await value.fill('{"id": "p-1", "cents": 250}');
  await form.getByRole('button', { name: 'Preview' }).click();
  await expect(form.getByRole('status')).toContainText(`The value is AVRO with schema ${id} (${topic}-value version 1).`);
  await page.screenshot({ path: testInfo.outputPath('produce-avro-light.png'), fullPage: true });
  expect([...kafkaEndOffsets(topic).values()]).toEqual([0]);
  await form.getByRole('button', { name: 'Produce', exact: true }).click();
  await expect(form.locator('.note')).toContainText('Written to partition 0 at offset 0.');
  // fastavro reads what Kafka holds, with the schema the frame's id names.
  const decoded = runDevPython(`
import base64, io, json, struct, sys, fastavro
data = base64.b64decode(sys.argv[1])
schema = fastavro.parse_schema(json.loads(sys.argv[2]))
print(json.dumps([data[0], struct.unpack(">i", data[1:5])[0], fastavro.schemaless_reader(io.BytesIO(data[5:]), schema)]))
`, [readBack(topic, 0, 0).value!, JSON.stringify(schema)]);
  expect(JSON.parse(decoded)).toEqual([0, id, { id: 'p-1', cents: 250, note: null }]);
  // The record page shows it decoded through the registry.
  await form.getByRole('link', { name: 'Open the record' }).click();
  await expect(page.locator('main')).toContainText('p-1');
  // The refused preview is the one failed request the browser reports.
  expect(problems).toEqual(['console: Failed to load resource: the server responded with a status of 400 (Bad Request)']);
});

test('duplicate a record to another topic: the same bytes, headers included', async ({ page }) => {
  const from = await newTopic(page, 1);
  const to = await newTopic(page, 1);
  // A record with a binary key, a value that is not compact JSON, and a repeated header.
  runDevPython(`
import sys
from confluent_kafka import Producer
p = Producer({"bootstrap.servers": "127.0.0.1:19092"})
p.produce(sys.argv[1], key=b"\\xff\\x00k", value=b'{ "a" : 1 }', headers=[("h", b"1"), ("h", b"2"), ("empty", None)], partition=0)
p.flush(10)
`, [from]);
  await openHydrated(page, `/c/local/topics/${from}/records/0/0`);
  await page.getByRole('button', { name: 'Duplicate this record' }).click();
  const form = page.getByRole('form', { name: 'Produce record' });
  await form.getByLabel('Topic').fill(to);
  await form.getByRole('button', { name: 'Produce', exact: true }).click();
  await expect(form.locator('.note')).toContainText('Written to partition 0 at offset 0.');
  expect(readBack(to, 0, 0)).toEqual(readBack(from, 0, 0));
});

test('a record of an internal topic offers no Duplicate', async ({ page }) => {
  // Kafka's own __consumer_offsets: the newest record of a partition that has one (the active
  // segment is never compacted, so it is there).
  const [partition, end] = [...kafkaEndOffsets('__consumer_offsets')].find(([, end]) => end > 0)!;
  const problems = await openHydrated(page, `/c/local/topics/__consumer_offsets/records/${partition}/${end - 1}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`__consumer_offsets · partition ${partition} · offset ${end - 1}`);
  await expect(page.locator('pre.payload[data-part="key"]')).toBeVisible();
  await page.waitForLoadState('networkidle');
  await expect(page.getByRole('button', { name: 'Duplicate this record' })).toHaveCount(0);
  // The API refuses a write there too, whatever the page offers.
  const res = await page.request.post('/api/produce', {
    data: { cluster: 'local', topic: '__consumer_offsets', value: { encoding: 'text', data: 'x' }, dry_run: true },
  });
  expect(res.status()).toBe(403);
  expect((await res.json()).code).toBe('INTERNAL_TOPIC');
  expect(problems).toEqual([]);
});

test('find records by key on the Data tab, reading only the key\'s partitions', async ({ page }) => {
  const topic = await newTopic(page, 6);
  for (let p = 0; p < 6; p++) kafkaProduceLines(topic, p, Array.from({ length: 20 }, (_, i) => `noise ${p}-${i}`));
  for (const v of ['first', 'second']) {
    const res = await page.request.post('/api/produce', {
      data: { cluster: 'local', topic, key: { encoding: 'text', data: 'order-42' }, value: { encoding: 'text', data: v } },
    });
    expect(res.status()).toBe(200);
  }
  const problems = await openHydrated(page, `/c/local/topics/${topic}/data`);
  await page.getByRole('searchbox', { name: 'Key' }).fill('order-42');
  await page.getByRole('button', { name: 'Show', exact: true }).click();
  await expect(page).toHaveURL(/[?&]key=order-42/);
  const rows = page.getByRole('table', { name: 'Records' }).locator('tbody tr');
  await expect(rows).toHaveCount(2);
  await expect(page.locator('[data-figure="scanned"]')).toContainText('Only partition');
  await page.getByLabel('Latest only').check();
  await page.getByRole('button', { name: 'Show', exact: true }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('second');
  expect(problems).toEqual([]);
});

test('screenshots of the produce form, light and dark', async ({ page }, testInfo) => {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await openHydrated(page, '/c/local/topics/orders');
    await page.getByRole('button', { name: 'Produce record' }).click();
    const form = page.getByRole('form', { name: 'Produce record' });
    await form.getByLabel('Key encoding').selectOption('text');
    await form.getByRole('textbox', { name: 'Key', exact: true }).fill('order-1');
    await form.getByRole('textbox', { name: 'Value', exact: true }).fill('{"id": 1}');
    await form.getByRole('button', { name: 'Preview' }).click();
    await expect(form.getByRole('status')).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath(`produce-${scheme}.png`), fullPage: true });
  }
});
