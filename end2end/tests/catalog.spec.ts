import { test, expect, type Locator, type Page } from '@playwright/test';
import {
  kafkaBrokersForKlens,
  kafkaGroupLag,
  kafkaMetadata,
  kafkaRecordCount,
  openHydrated,
  runDevPython,
  segmentBytesOnDisk,
  showsBytes,
  thousands,
} from './helpers';
import { unique } from './authz-matrix';

// The catalog pages (topics, consumer groups, brokers, schemas) and search, each figure checked
// against Kafka or the schema registry read directly, never against another klens page.

const REGISTRY = 'http://127.0.0.1:18081/apis/ccompat/v7';
const PAGE_SIZE = 100;
/** klens reads metadata in the background every 15 s, and at ten thousand topics a read takes
 * up to about 25 s on the test machine: a figure that counts every topic may lag behind Kafka by
 * one cycle when other tests have just created or deleted topics. Such figures are compared
 * after reloading until they agree, for at most this long. */
const ONE_REFRESH_CYCLE = 60_000;

/** Waits until the page has hydrated again after a reload or a full navigation. */
async function hydrated(page: Page) {
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
}

/** Reloads the page until `read` gives what `truth` (read anew each time) says, for at most one
 * refresh cycle of klens. */
async function reloadUntilAgreed<T>(page: Page, read: () => Promise<T>, truth: () => T) {
  let first = true;
  await expect.poll(async () => {
    if (!first) {
      await page.reload();
      await hydrated(page);
    }
    first = false;
    const klens = JSON.stringify(await read());
    const kafka = JSON.stringify(truth());
    return klens === kafka ? 'agreed' : `klens shows ${klens}, Kafka says ${kafka}`;
  }, { timeout: ONE_REFRESH_CYCLE, intervals: [2_000, 5_000] }).toBe('agreed');
}

/** The text of every cell of a row (header cell first), trimmed. */
const cells = async (row: Locator) => (await row.locator('th, td').allInnerTexts()).map((t) => t.trim());

/** Kafka's group state (EMPTY, PREPARING_REBALANCE) in klens's spelling (Empty, PreparingRebalance). */
const stateName = (kafka: string) =>
  kafka.toLowerCase().split('_').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');

test('consumer group lag on the groups, group and topic pages is what Kafka says', async ({ page }) => {
  const truth = kafkaGroupLag('billing-service');
  expect(truth.partitions.length, 'the seeded group has committed offsets on orders').toBeGreaterThan(0);
  expect(truth.total, 'the seeded group lags behind').toBeGreaterThan(0);
  const onOrders = truth.partitions.filter((p) => p.topic === 'orders');
  const topics = new Set(truth.partitions.map((p) => p.topic));

  // The groups page: state, members, topics and total lag of the group's row.
  const problems = await openHydrated(page, '/c/local/groups');
  await page.getByRole('searchbox', { name: 'Filter groups by name' }).fill('billing-service');
  await expect(page).toHaveURL(/[?&]q=billing-service(&|$)/);
  const table = page.getByRole('table', { name: 'Consumer groups' });
  const row = table.locator('tr[data-group="billing-service"]');
  await expect(row).toBeVisible();
  const [name, state, members, topicCount] = await cells(row);
  expect(name).toBe('billing-service');
  expect(state).toBe(stateName(truth.group.state));
  expect(members).toBe(thousands(truth.group.members));
  expect(topicCount).toBe(thousands(topics.size));
  await expect(row.locator('.lag-figure')).toHaveText(thousands(truth.total));

  // The group page: total lag, members, and committed, end and lag per partition.
  await row.getByRole('link', { name: 'billing-service' }).click();
  await expect(page).toHaveURL(/\/c\/local\/groups\/billing-service$/);
  await expect(page.getByRole('heading', { level: 1, name: 'billing-service' })).toBeVisible();
  await expect(page.locator('dd[data-figure="lag"]')).toHaveText(thousands(truth.total));
  if (truth.group.members === 0) {
    await expect(page.getByText('No member is connected')).toBeVisible();
    await expect(page.getByRole('table', { name: 'Members' })).toHaveCount(0);
  } else {
    await expect(page.getByRole('table', { name: 'Members' }).locator('tbody tr')).toHaveCount(truth.group.members);
  }
  const offsets = page.getByRole('table', { name: 'Offsets' });
  await expect(offsets.locator('tbody tr')).toHaveCount(truth.partitions.length);
  for (const p of truth.partitions) {
    const r = offsets.locator(`tr[data-partition="${p.topic}-${p.partition}"]`);
    const [topic, partition, committed, end] = await cells(r);
    const where = `${p.topic}-${p.partition}`;
    expect(topic, where).toBe(p.topic);
    expect(partition, where).toBe(String(p.partition));
    expect(committed, where).toBe(thousands(p.committed));
    expect(end, where).toBe(thousands(p.end));
    await expect(r.locator('.lag-figure'), where).toHaveText(thousands(p.lag));
  }

  // The topic page: the topic's size on disk; its Consumers tab: the group's lag on this topic
  // alone, in all and per partition.
  await offsets.locator('tr[data-partition="orders-0"]').getByRole('link', { name: 'orders' }).click();
  await expect(page).toHaveURL(/\/c\/local\/topics\/orders$/);
  await expect(page.getByRole('heading', { level: 1, name: 'orders' })).toBeVisible();
  const onDisk = segmentBytesOnDisk('orders');
  if (onDisk !== undefined) {
    const size = (await page.locator('dd[data-figure="size"]').innerText()).trim();
    expect(showsBytes(size, onDisk), `Size "${size}" for ${onDisk} bytes of segments on disk`).toBe(true);
  }
  await page.getByRole('navigation', { name: 'Topic' }).getByRole('link', { name: 'Consumers' }).click();
  await expect(page).toHaveURL(/\/c\/local\/topics\/orders\/consumers$/);
  const consumer = page.getByRole('table', { name: 'Consumer groups' }).locator('tbody[data-group="billing-service"]');
  await expect(consumer.locator('.lag-total')).toHaveText(thousands(onOrders.reduce((n, p) => n + p.lag, 0)));
  for (const p of onOrders) {
    const r = consumer.locator(`tr[data-partition="${p.partition}"]`);
    await expect(r.locator('td').nth(3), `orders-${p.partition}`).toHaveText(String(p.committed));
    await expect(r.locator('.lag-figure'), `orders-${p.partition}`).toHaveText(thousands(p.lag));
  }
  expect(problems).toEqual([]);
});

test('the brokers page shows each broker at its address, and the controller', async ({ page }) => {
  test.setTimeout(30_000 + ONE_REFRESH_CYCLE);
  const truth = kafkaBrokersForKlens();
  const problems = await openHydrated(page, '/c/local');
  await page.getByRole('navigation', { name: 'Clusters' }).getByRole('link', { name: 'Brokers' }).first().click();
  await expect(page).toHaveURL(/\/c\/local\/brokers$/);
  const table = page.getByRole('table', { name: 'Brokers' });
  await expect(table.locator('tbody tr')).toHaveCount(truth.brokers.length);
  for (const b of truth.brokers) {
    const row = table.locator(`tr[data-broker="${b.id}"]`);
    const [id, address, , , , , , size] = await cells(row);
    expect(id).toBe(String(b.id));
    expect(address, `broker ${b.id}`).toBe(b.name);
    expect(size, `size of broker ${b.id}`).toMatch(/^\d+(\.\d)? ([KMGTPE]i)?B$/);
  }
  // Partition replicas and leaderships per broker, counted over every topic Kafka lists.
  const counted = () => {
    const partitions = kafkaMetadata().topics
      .flatMap((t) => t.partitions as { leader: number; replicas: { id: number }[] }[]);
    return truth.brokers.map((b) => [
      thousands(partitions.filter((p) => p.replicas.some((r) => r.id === b.id)).length),
      thousands(partitions.filter((p) => p.leader === b.id).length),
    ]);
  };
  const shown = async () => {
    const rows = [];
    for (const b of truth.brokers) {
      const [, , , , replicas, leaders] = await cells(table.locator(`tr[data-broker="${b.id}"]`));
      rows.push([replicas, leaders]);
    }
    return rows;
  };
  await reloadUntilAgreed(page, shown, counted);
  // One active controller; with the single-node stack it is broker 1.
  await expect(table.getByText('Controller', { exact: true })).toHaveCount(1);
  if (truth.brokers.length === 1) {
    await expect(table.locator('tr[data-broker="1"]').getByText('Controller', { exact: true })).toBeVisible();
  }
  expect(problems).toEqual([]);
});

test('the schemas page lists the registry\'s subjects with their latest version and id', async ({ page, request }) => {
  const subjects: string[] = await (await request.get(`${REGISTRY}/subjects`)).json();
  expect(subjects).toEqual(expect.arrayContaining(['payments-avro-value', 'users-proto-value', 'shipments-json-value']));
  const global = (await (await request.get(`${REGISTRY}/config`)).json()).compatibilityLevel;

  const problems = await openHydrated(page, '/c/local/schemas');
  const table = page.getByRole('table', { name: 'Subjects' });
  await expect(table.locator('tbody tr')).toHaveCount(subjects.length);
  await expect(page.locator('[data-figure="global"]')).toHaveText(global);
  for (const subject of subjects) {
    const path = `${REGISTRY}/subjects/${encodeURIComponent(subject)}`;
    const versions: number[] = await (await request.get(`${path}/versions`)).json();
    const latest = await (await request.get(`${path}/versions/latest`)).json();
    // Confluent's registry answers 404 for a subject without a level of its own; Apicurio
    // answers NONE, and the level that applies only when asked to fall back to the global one.
    const config = `${REGISTRY}/config/${encodeURIComponent(subject)}`;
    const own = await request.get(config);
    const level = own.ok() ? (await own.json()).compatibilityLevel : null;
    const applies = (await (await request.get(`${config}?defaultToGlobal=true`)).json()).compatibilityLevel;
    const compatibility = level !== null && level === applies ? level : `${global} global`;
    const row = table.locator(`tr[data-subject="${subject}"]`);
    expect(await cells(row), subject).toEqual([
      subject,
      String(versions.length),
      String(latest.version),
      String(latest.id),
      latest.schemaType ?? 'AVRO',
      compatibility,
    ]);
  }
  expect(problems).toEqual([]);
});

test('the topics filter narrows the list, lives in the URL and survives a reload', async ({ page }) => {
  test.setTimeout(30_000 + ONE_REFRESH_CYCLE);
  const problems = await openHydrated(page, '/c/local');
  await page.getByRole('navigation', { name: 'Clusters' }).getByRole('link', { name: 'Topics' }).first().click();
  await expect(page).toHaveURL(/\/c\/local\/topics$/);
  await expect(page.locator('p.fresh[data-part="Metadata"]')).toHaveText(/^Metadata read (just now|\d+ s ago|\d+ min ago)$/);

  const topicNames = () => kafkaMetadata().topics.map((t) => t.topic);
  const names = topicNames();
  const query = 'ers';
  const expected = names.filter((n) => n.toLowerCase().includes(query)).sort();
  expect(expected).toContain('orders');
  expect(expected.length, 'few enough to fit one page').toBeLessThanOrEqual(PAGE_SIZE);

  const filter = page.locator('input.filter');
  await expect(filter).toHaveAttribute('aria-label', 'Filter topics by name');
  await filter.pressSequentially(query, { delay: 80 });
  await expect(page).toHaveURL(new RegExp(`/c/local/topics\\?q=${query}$`));
  const rows = page.getByRole('table', { name: 'Topics' }).locator('tbody tr');
  const shown = async () => (await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-topic')))).sort();
  await expect.poll(shown).toEqual(expected);
  const n = thousands(expected.length);
  await expect(page.locator('.pager-summary')).toHaveText(new RegExp(`^1–${n} of ${n} matching \\([\\d,]+ in all\\)$`));

  // The filter replaced the history entry rather than adding one per keystroke.
  await page.goBack();
  await expect(page).toHaveURL(/\/c\/local$/);
  await page.goForward();
  await expect(page).toHaveURL(new RegExp(`\\?q=${query}$`));

  await page.reload();
  await hydrated(page);
  await expect(filter).toHaveValue(query);
  await expect.poll(shown).toEqual(expected);
  // "in all" counts every topic of the cluster.
  await reloadUntilAgreed(
    page,
    async () => /\(([\d,]+) in all\)/.exec(await page.locator('.pager-summary').innerText())?.[1],
    () => thousands(topicNames().length),
  );
  await expect(filter).toHaveValue(query);

  // Typing the whole name of one topic narrows to that topic.
  await filter.fill('orders');
  await expect(page).toHaveURL(/\?q=orders$/);
  const exact = names.filter((n) => n.toLowerCase().includes('orders')).sort();
  await expect.poll(shown).toEqual(exact);
  await expect(page.locator('tr[data-topic="orders"] td').nth(2)).toHaveText(thousands(kafkaRecordCount('orders')));
  expect(problems).toEqual([]);
});

test('sorting topics by records, descending, orders the rows by their record count', async ({ page }) => {
  const problems = await openHydrated(page, '/c/local/topics');
  const header = page.locator('th[aria-sort]', { has: page.locator('a.sort', { hasText: 'Records' }) });
  await expect(header).toHaveAttribute('aria-sort', 'none');
  await header.locator('a.sort').click();
  await expect(page).toHaveURL(/\/c\/local\/topics\?sort=records$/);
  await expect(header).toHaveAttribute('aria-sort', 'ascending');
  await header.locator('a.sort').click();
  await expect(page).toHaveURL(/\/c\/local\/topics\?sort=records&desc=1$/);
  await expect(header).toHaveAttribute('aria-sort', 'descending');

  const table = page.getByRole('table', { name: 'Topics' });
  const records = async () =>
    (await table.locator('tbody tr td:nth-of-type(3)').allInnerTexts()).map((t) => t.trim());
  await expect.poll(async () => (await records()).length).toBeGreaterThan(0);
  const texts = await records();
  // Known figures in non-increasing order; unknown ones (—) only after them.
  const known = texts.filter((t) => t !== '—').map((t) => Number(t.replace(/,/g, '')));
  expect(texts.slice(0, known.length).every((t) => t !== '—'), `unknown figures last: ${texts}`).toBe(true);
  for (let i = 1; i < known.length; i++) {
    expect(known[i], `row ${i + 1} after ${known[i - 1]}`).toBeLessThanOrEqual(known[i - 1]);
  }
  // The top row's figure is what Kafka counts for that topic.
  const top = await table.locator('tbody tr').first().getAttribute('data-topic');
  expect(texts[0]).toBe(thousands(kafkaRecordCount(top!)));
  expect(problems).toEqual([]);
});

/** Creates (or deletes) single-partition topics with Kafka's admin client, and waits for it. */
const FILL = String.raw`
import json, sys
from confluent_kafka.admin import AdminClient, NewTopic
admin = AdminClient({"bootstrap.servers": "127.0.0.1:19092"})
names = json.load(sys.stdin)
if sys.argv[1] == "create":
    done = admin.create_topics([NewTopic(n, 1, 1) for n in names], operation_timeout=60)
else:
    done = admin.delete_topics(names, operation_timeout=60)
for f in done.values():
    f.result(timeout=60)
`;
let pagerFill: string[] = [];

test.afterAll(() => {
  if (pagerFill.length) runDevPython(FILL, ['delete'], JSON.stringify(pagerFill));
});

test('the topics pager moves to the next hundred topics', async ({ page }) => {
  test.setTimeout(60_000 + 2 * ONE_REFRESH_CYCLE);
  const topicNames = () => kafkaMetadata().topics.map((t) => t.topic);
  // The seeded stack holds fewer topics than a page: add enough for a second page.
  const missing = PAGE_SIZE + 20 - topicNames().length;
  if (missing > 0) {
    const prefix = unique('e2e-pager');
    pagerFill = Array.from({ length: missing }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
    runDevPython(FILL, ['create'], JSON.stringify(pagerFill));
  }
  const byName = (names: string[]) => [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const problems = await openHydrated(page, '/c/local/topics');
  const pager = page.locator('nav.pager');
  const rows = page.getByRole('table', { name: 'Topics' }).locator('tbody tr');
  const shown = () => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-topic')));
  // The first page: the first hundred names, of all topics (once klens has read the new ones).
  await reloadUntilAgreed(
    page,
    async () => [await pager.locator('.pager-summary').innerText(), await shown()],
    () => {
      const names = topicNames();
      return [`1–${PAGE_SIZE} of ${thousands(names.length)}`, byName(names).slice(0, PAGE_SIZE)];
    },
  );
  await expect(rows).toHaveCount(PAGE_SIZE);
  await expect(pager.locator('a[rel="prev"]')).toHaveCount(0);

  // By name, the second page carries on where the first ended, with none repeated.
  await pager.locator('a[rel="next"]').click();
  await expect(page).toHaveURL(/\/c\/local\/topics\?page=2$/);
  await expect(pager.locator('.pager-summary')).toHaveText(new RegExp(`^${PAGE_SIZE + 1}–`));
  await reloadUntilAgreed(
    page,
    async () => [await pager.locator('.pager-summary').innerText(), await shown()],
    () => {
      const names = topicNames();
      const to = Math.min(2 * PAGE_SIZE, names.length);
      return [`${PAGE_SIZE + 1}–${thousands(to)} of ${thousands(names.length)}`, byName(names).slice(PAGE_SIZE, to)];
    },
  );

  await pager.locator('a[rel="prev"]').click();
  await expect(page).toHaveURL(/\/c\/local\/topics$/);
  await expect(pager.locator('.pager-summary')).toHaveText(new RegExp(`^1–${PAGE_SIZE} of `));
  await expect(pager.locator('a[rel="prev"]')).toHaveCount(0);
  expect(problems).toEqual([]);
});

test('search finds a topic despite a typo; keys choose and open a hit, Escape closes', async ({ page }) => {
  const problems = await openHydrated(page, '/c/local/brokers');
  const palette = page.locator('div.palette[role="dialog"]');
  const box = palette.locator('input[role="combobox"]');
  const hits = page.locator('ul#search-hits li[role="option"]');
  await expect(palette).toHaveCount(0);

  await page.keyboard.press('Control+K');
  await expect(palette).toBeVisible();
  await expect(box).toBeFocused();
  await box.fill('ordres');
  await expect(hits.first()).toBeVisible();
  const first = hits.first();
  await expect(first.locator('.badge')).toHaveText('topic');
  await expect(first.locator('.mono')).toHaveText('orders');
  const cluster = (await first.locator('.hit-cluster').innerText()).trim();
  expect(['local', 'local-ro']).toContain(cluster);
  await expect(first).toHaveAttribute('aria-selected', 'true');

  // The arrows move the selection, and come back.
  if ((await hits.count()) > 1) {
    await box.press('ArrowDown');
    await expect(first).toHaveAttribute('aria-selected', 'false');
    await expect(hits.nth(1)).toHaveAttribute('aria-selected', 'true');
    await box.press('ArrowUp');
  }
  await expect(first).toHaveAttribute('aria-selected', 'true');
  await expect(page.locator('ul#search-hits li[aria-selected="true"]')).toHaveCount(1);

  await box.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/c/${cluster}/topics/orders$`));
  await expect(page.getByRole('heading', { level: 1, name: 'orders' })).toBeVisible();
  await expect(palette).toHaveCount(0);

  // Escape closes; the header button and Meta+K open it as well.
  await page.keyboard.press('Control+K');
  await expect(palette).toBeVisible();
  await box.press('Escape');
  await expect(palette).toHaveCount(0);
  await page.locator('header button.search').click();
  await expect(palette).toBeVisible();
  await expect(box).toBeFocused();
  await box.press('Escape');
  await expect(palette).toHaveCount(0);
  await page.keyboard.press('Meta+K');
  await expect(palette).toBeVisible();
  await box.press('Escape');
  await expect(palette).toHaveCount(0);
  expect(problems).toEqual([]);
});
