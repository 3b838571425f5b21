import { test, expect } from '@playwright/test';
import { openHydrated, runDevPython, signIn } from './helpers';

// The demo configs mask the card number (last four) and the customer's email (HMAC) of the
// payments-* topics for everyone without UNMASK. dave (operator) reads local's records without
// it; alice (admin) holds it. The seeded payments-cards topic holds JSON card payments, which
// confluent-kafka reads here as the witness of what Kafka holds.
const AUTH = process.env.KLENS_AUTH_URL ?? 'http://127.0.0.1:18090';
const TOPIC = 'payments-cards';

type Held = { partition: number; offset: number; card: string; email: string };

function heldInKafka(): Held[] {
  const out = runDevPython(`
import json, sys
from confluent_kafka import Consumer, TopicPartition
c = Consumer({"bootstrap.servers": "127.0.0.1:19092", "group.id": "klens-e2e-witness", "enable.auto.commit": False})
md = c.list_topics(sys.argv[1], timeout=10).topics[sys.argv[1]]
found = []
for p in md.partitions:
    low, high = c.get_watermark_offsets(TopicPartition(sys.argv[1], p), timeout=10)
    if high <= low:
        continue
    c.assign([TopicPartition(sys.argv[1], p, low)])
    while True:
        m = c.poll(10)
        if m is None or m.error():
            break
        v = json.loads(m.value())
        found.append({"partition": p, "offset": m.offset(), "card": v["card"]["number"], "email": v["customer"]["email"]})
        if m.offset() >= high - 1:
            break
print(json.dumps(found))
`, [TOPIC]);
  return JSON.parse(out);
}

const hidden = (text: string, held: Held[]) => {
  for (const h of held) {
    expect(text, `card of ${h.partition}/${h.offset}`).not.toContain(h.card);
    expect(text, `email of ${h.partition}/${h.offset}`).not.toContain(h.email);
  }
};

test('dave reads the payments masked on every form, and a filter cannot find a real value', async ({ page }) => {
  const held = heldInKafka();
  expect(held.length).toBeGreaterThan(10);
  await signIn(page, AUTH, 'dave');

  const res = await page.request.get(`${AUTH}/api/records?cluster=local&topic=${TOPIC}&from=earliest&limit=100`);
  expect(res.status()).toBe(200);
  const text = await res.text();
  hidden(text, held);
  const records = JSON.parse(text).records;
  expect(records.length).toBe(held.length);
  for (const r of records) {
    const truth = held.find((h) => h.partition === r.partition && h.offset === r.offset)!;
    expect(r.value.masked).toBe(true);
    expect(r.value.raw).toBeUndefined();
    expect(r.value.data.card.number).toBe('*'.repeat(truth.card.length - 4) + truth.card.slice(-4));
    expect(r.value.data.customer.email).toMatch(/^[0-9a-f]{64}$/);
  }
  // Equal emails hash alike, different ones apart.
  const byEmail = new Map<string, Set<string>>();
  for (const r of records) {
    const truth = held.find((h) => h.partition === r.partition && h.offset === r.offset)!;
    byEmail.set(truth.email, (byEmail.get(truth.email) ?? new Set()).add(r.value.data.customer.email));
  }
  expect([...byEmail.values()].every((s) => s.size === 1)).toBe(true);
  expect(new Set([...byEmail.values()].map((s) => [...s][0])).size).toBe(byEmail.size);

  // A filter on a real value finds nothing; on what dave sees, it finds.
  const real = held[0];
  for (const q of [real.card, real.email]) {
    const found = await (await page.request.get(`${AUTH}/api/records?cluster=local&topic=${TOPIC}&from=earliest&q=${encodeURIComponent(q)}`)).json();
    expect(found.records, q).toEqual([]);
  }
  const tail4 = '*'.repeat(real.card.length - 4) + real.card.slice(-4);
  const seen = await (await page.request.get(`${AUTH}/api/records?cluster=local&topic=${TOPIC}&from=earliest&q=${encodeURIComponent(tail4)}`)).json();
  expect(seen.records.length).toBeGreaterThan(0);

  // The export and one record.
  const exported = await page.request.get(`${AUTH}/api/export?cluster=local&topic=${TOPIC}`);
  expect(exported.status()).toBe(200);
  const lines = (await exported.text()).trim().split('\n');
  expect(lines.length).toBe(held.length);
  hidden(lines.join('\n'), held);
  const one = await page.request.get(`${AUTH}/api/record?cluster=local&topic=${TOPIC}&partition=${real.partition}&offset=${real.offset}`);
  hidden(await one.text(), held);

  // The Data tab and the record page show the masked values, marked as such.
  const problems = await openHydrated(page, `${AUTH}/c/local/topics/${TOPIC}/data?from=earliest`);
  hidden(await page.content(), held);
  await openHydrated(page, `${AUTH}/c/local/topics/${TOPIC}/records/${real.partition}/${real.offset}`);
  await expect(page.locator('pre[data-part="value"]')).toContainText(tail4);
  await expect(page.locator('.badge.masked')).toHaveCount(1);
  hidden(await page.content(), held);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`record-masked-${scheme}.png`), fullPage: true });
  }

  // Duplicate this record copies no masked value: the value is left to be typed anew.
  await page.getByRole('button', { name: 'Duplicate this record' }).click();
  await expect(page.locator('.masked-note')).toBeVisible();
  const form = page.getByRole('form', { name: 'Produce record' });
  await expect(form.getByRole('textbox', { name: 'Value', exact: true })).toHaveValue('');
  hidden(await page.content(), held);
  expect(problems).toEqual([]);
});

test('alice holds UNMASK and reads the payments as Kafka holds them', async ({ page }) => {
  const held = heldInKafka();
  await signIn(page, AUTH, 'alice');
  const real = held[held.length - 1];
  const res = await page.request.get(`${AUTH}/api/record?cluster=local&topic=${TOPIC}&partition=${real.partition}&offset=${real.offset}`);
  const record = await res.json();
  expect(record.value.masked).toBeUndefined();
  expect(record.value.data.card.number).toBe(real.card);
  expect(record.value.data.customer.email).toBe(real.email);
  await openHydrated(page, `${AUTH}/c/local/topics/${TOPIC}/records/${real.partition}/${real.offset}`);
  await expect(page.locator('pre[data-part="value"]')).toContainText(real.card);
  await expect(page.locator('.badge.masked')).toHaveCount(0);
});

// Every fixed user on both clusters, written out by hand from the demo roles: who reads the
// payments, and whether masked (UNMASK only through alice's admin role).
const expected: Record<string, Record<string, number | 'masked' | 'real'>> = {
  alice: { local: 'real', 'local-ro': 'real' },
  bob: { local: 403, 'local-ro': 403 },
  dave: { local: 'masked', 'local-ro': 403 },
  carol: { local: 404, 'local-ro': 404 },
  erin: { local: 'masked', 'local-ro': 404 },
};

for (const [user, clusters] of Object.entries(expected)) {
  test(`${user} reads payments-cards as the roles say, on both clusters`, async ({ page }) => {
    const held = heldInKafka();
    const real = held[0];
    await signIn(page, AUTH, user);
    for (const [cluster, want] of Object.entries(clusters)) {
      const res = await page.request.get(
        `${AUTH}/api/record?cluster=${cluster}&topic=${TOPIC}&partition=${real.partition}&offset=${real.offset}`,
      );
      const text = await res.text();
      if (typeof want === 'number') {
        expect(res.status(), `${user} on ${cluster}`).toBe(want);
        hidden(text, held);
      } else {
        expect(res.status(), `${user} on ${cluster}`).toBe(200);
        const record = JSON.parse(text);
        if (want === 'masked') {
          hidden(text, held);
          expect(record.value.masked).toBe(true);
        } else {
          expect(record.value.data.card.number).toBe(real.card);
        }
      }
    }
  });
}
