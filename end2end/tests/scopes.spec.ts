import { test, expect, type Page } from '@playwright/test';
import { unique } from './authz-matrix';
import { kafkaCommit, kafkaGroup, kafkaMetadata, kafkaProduceLines, kafkaRecordCount, signIn } from './helpers';

// erin (payments-team) holds a role scoped to the payments-* topics of `local`, whose catalog is
// scoped (dev/demo-config --auth). The open instance, without sign-in, sees everything and is the
// reference for what exists.
const AUTH = process.env.KLENS_AUTH_URL ?? 'http://127.0.0.1:18090';
const OPEN = process.env.KLENS_URL ?? 'http://127.0.0.1:18080';
const COVERED = /^payments-/;

async function open(path: string) {
  const res = await fetch(`${OPEN}${path}`);
  expect(res.status, path).toBe(200);
  return res.json();
}

async function post(page: Page, call: string, data: Record<string, unknown>) {
  const res = await page.request.post(`${AUTH}/api/${call}`, { data });
  return { status: res.status(), body: await res.json() };
}

/** Two lookups answer alike: the same status, and the same body once the names are swapped. */
async function sameAnswer(page: Page, path: (name: string) => string, hidden: string, madeUp: string) {
  const a = await page.request.get(`${AUTH}${path(hidden)}`);
  const b = await page.request.get(`${AUTH}${path(madeUp)}`);
  expect(a.status(), hidden).toBe(404);
  expect(b.status(), madeUp).toBe(404);
  expect((await a.text()).replaceAll(hidden, madeUp)).toBe(await b.text());
}

test('a scoped catalog shows erin her topics, their groups and subjects, and the rest answers as missing', async ({ page }) => {
  await signIn(page, AUTH, 'erin');
  const everything = await open('/api/topics?cluster=local');
  const outside = everything.topics.map((t: any) => t.name).filter((n: string) => !COVERED.test(n));
  expect(outside).toContain('orders');

  const topics = await (await page.request.get(`${AUTH}/api/topics?cluster=local`)).json();
  const names = topics.topics.map((t: any) => t.name);
  expect(names).toContain('payments-avro');
  expect(names.filter((n: string) => !COVERED.test(n))).toEqual([]);
  expect(topics.total).toBe(names.length);

  // Groups whose every topic is covered; subjects named after a covered topic.
  const groups = (await (await page.request.get(`${AUTH}/api/groups?cluster=local`)).json()).groups.map((g: any) => g.group);
  expect(groups).toContain('payments-processor');
  expect(groups).not.toContain('billing-service');
  const allSubjects = (await open('/api/subjects?cluster=local')).subjects.map((s: any) => s.subject);
  const subjects = (await (await page.request.get(`${AUTH}/api/subjects?cluster=local`)).json()).subjects.map((s: any) => s.subject);
  expect(subjects).toContain('payments-avro-value');
  expect(subjects).toEqual(allSubjects.filter((s: string) => COVERED.test(s.replace(/-(key|value)$/, ''))));
  const hiddenSubject = allSubjects.find((s: string) => !subjects.includes(s));
  expect(hiddenSubject).toBeTruthy();

  // Search finds nothing outside, even by its exact name.
  const hits = (await (await page.request.get(`${AUTH}/api/search?q=orders&cluster=local`)).json()).hits;
  expect(hits.filter((h: any) => !COVERED.test(h.name))).toEqual([]);

  // Lookups of what exists outside the scope answer exactly like names that do not exist.
  await sameAnswer(page, (n) => `/api/topic?cluster=local&topic=${n}`, 'orders', 'made-up-topic');
  await sameAnswer(page, (n) => `/api/group?cluster=local&group=${n}`, 'billing-service', 'made-up-group');
  await sameAnswer(page, (n) => `/api/subject?cluster=local&subject=${n}`, hiddenSubject, 'made-up-subject');

  // The pages show the same: the Topics table lists only payments-* topics.
  await page.goto(`${AUTH}/c/local/topics`);
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
  const rows = page.getByRole('table', { name: 'Topics' }).locator('tbody tr');
  await expect(rows.first()).toBeVisible();
  for (const text of await rows.locator('th').allTextContents()) expect(text).toMatch(COVERED);
  await expect(page.getByRole('button', { name: 'Create topic', exact: true })).toBeVisible();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`scoped-topics-${scheme}.png`), fullPage: true });
  }

  // Her access page says what the scope grants and where.
  await page.goto(`${AUTH}/account`);
  const row = page.getByRole('table', { name: 'Your access' }).locator('tr[data-cluster="local"]');
  await expect(row).toContainText('PRODUCE');
  await expect(row).toContainText('on topics payments-*');
  await expect(row).toContainText('The catalog shows you only what these scopes cover.');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`scoped-account-${scheme}.png`), fullPage: true });
  }
});

test('erin creates, writes, resets and deletes inside her scope, and is refused outside it', async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page, AUTH, 'erin');
  const topic = unique('payments-e2e');
  const outside = unique('e2e-outside');

  // Create: the pattern constrains the name.
  expect((await post(page, 'create_topic', { cluster: 'local', topic, partitions: 1 })).status).toBe(200);
  const refused = await post(page, 'create_topic', { cluster: 'local', topic: outside, partitions: 1 });
  expect(refused.status).toBe(403);
  expect(refused.body).toMatchObject({ code: 'MISSING_PRIVILEGE', privilege: 'CREATE_TOPICS' });
  expect(refused.body.message).toContain(`topic "${outside}"`);
  const listed = kafkaMetadata().topics.map((t) => t.topic);
  expect(listed).toContain(topic);
  expect(listed).not.toContain(outside);

  // Produce: into her topic (a consumer of Kafka's counts it), never into orders.
  const record = { key: { encoding: 'text', data: 'k' }, value: { encoding: 'text', data: 'v' } };
  expect((await post(page, 'produce', { cluster: 'local', topic, ...record })).status).toBe(200);
  expect(kafkaRecordCount(topic)).toBe(1);
  const before = kafkaRecordCount('orders');
  const intoOrders = await post(page, 'produce', { cluster: 'local', topic: 'orders', ...record });
  expect(intoOrders.status).toBe(403);
  expect(intoOrders.body).toMatchObject({ code: 'MISSING_PRIVILEGE', privilege: 'PRODUCE' });
  expect(kafkaRecordCount('orders')).toBe(before);

  // A group whose only topic is hers is hers to reset, whatever its name.
  kafkaProduceLines(topic, 0, ['a', 'b', 'c', 'd']);
  const group = unique('e2e-scoped-app');
  kafkaCommit(group, topic, { 0: 4 });
  await expect.poll(async () => (await page.request.get(`${AUTH}/api/group?cluster=local&group=${group}`)).status(), {
    timeout: 20_000,
  }).toBe(200);
  const plan = await post(page, 'reset_offsets', { cluster: 'local', group, to: 'earliest', dry_run: true });
  expect(plan.status).toBe(200);
  const applied = await post(page, 'reset_offsets', { cluster: 'local', group, to: 'earliest', plan: plan.body.partitions.map((m: any) => ({ topic: m.topic, partition: m.partition, from: m.from, to: m.to })) });
  expect(applied.status, JSON.stringify(applied.body)).toBe(200);
  expect(applied.body.applied).toBe(true);
  expect(kafkaGroup(group).committed).toEqual([{ topic, partition: 0, offset: 0 }]);
  const other = await post(page, 'reset_offsets', { cluster: 'local', group: 'billing-service', to: 'earliest', dry_run: true });
  expect(other.status).toBe(403);
  expect(other.body).toMatchObject({ code: 'MISSING_PRIVILEGE', privilege: 'RESET_OFFSETS' });

  // The topic page offers her writes on her topic; orders is not even there for her.
  await page.goto(`${AUTH}/c/local/topics/${topic}`);
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
  for (const button of ['Produce record', 'Delete topic']) {
    await expect(page.getByRole('button', { name: button, exact: true })).toBeVisible();
  }
  await expect(page.getByRole('button', { name: 'Add partitions', exact: true })).toHaveCount(0);
  await page.goto(`${AUTH}/c/local/groups/${group}`);
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Reset offsets', exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Delete group', exact: true })).toHaveCount(0);

  // Delete: her topic goes; Kafka no longer lists it. The group is cleaned up on the open instance.
  expect((await post(page, 'delete_topic', { cluster: 'local', topic })).status).toBe(200);
  expect(kafkaMetadata().topics.map((t) => t.topic)).not.toContain(topic);
  await fetch(`${OPEN}/api/delete_group`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ cluster: 'local', group }),
  });
});
