import { test, expect, type Page } from '@playwright/test';
import { kafkaGroup, openHydrated, runDevPython } from './helpers';
import { unique } from './authz-matrix';

// The Replications pages against dev/stack: dev/seed's demo-eu (remote's eu-* into local), and a
// replication made here through the page, of records written to the remote Kafka with
// confluent-kafka, watched until its lag is zero, a group failed over from its checkpoint (the
// group's commits read back by confluent-kafka on the target), and deleted. Connect's REST API is
// the independent word on the connectors.

const CONNECT = 'http://127.0.0.1:18083';
const REMOTE = '127.0.0.1:28092';

/** `count` records into a new topic on the remote Kafka, and `group` committed at `read` there. */
function remoteTopicWithGroup(topic: string, count: number, group: string, read: number) {
  runDevPython(`
import sys
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
bootstrap, topic, count, group, read = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
admin = AdminClient({"bootstrap.servers": bootstrap})
admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(timeout=30)
p = Producer({"bootstrap.servers": bootstrap})
for i in range(count):
    p.produce(topic, key=f"k{i}".encode(), value=f'{{"n": {i}}}'.encode(), partition=0)
p.flush(30)
c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
c.commit(offsets=[TopicPartition(topic, 0, read)], asynchronous=False)
c.close()
`, [REMOTE, topic, String(count), group, String(read)]);
}

async function connectState(page: Page, name: string): Promise<string | undefined> {
  const res = await page.request.get(`${CONNECT}/connectors/${name}/status`);
  return res.ok() ? (await res.json()).connector?.state : undefined;
}

/** Reloads the page until `ready` holds (klens reads Connect and the offsets every few seconds). */
async function reloadUntil(page: Page, ready: () => Promise<boolean>, seconds = 90) {
  for (let i = 0; i < seconds && !(await ready()); i++) {
    await page.waitForTimeout(1000);
    await page.reload();
  }
  expect(await ready()).toBe(true);
}

test('the seeded replication shows on both clusters with its partitions, checkpoints and connectors', async ({ page }) => {
  test.setTimeout(120_000);
  const problems = await openHydrated(page, '/c/local/replications');
  const row = page.getByRole('table', { name: 'Replications' }).locator('tr[data-replication="demo-eu"]');
  await reloadUntil(page, () => row.isVisible());
  await expect(row).toContainText('remote');
  await expect(row).toContainText('eu-*');
  // The link is where MirrorMaker can reach the cluster (its mirror settings), not elsewhere.
  const nav = page.getByRole('navigation', { name: 'Clusters' });
  await expect(nav.locator('a[href="/c/local/replications"]')).toHaveCount(1);
  await expect(nav.locator('a[href="/c/remote/replications"]')).toHaveCount(1);
  await expect(nav.locator('a[href="/c/local-ro/replications"]')).toHaveCount(0);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`replications-${scheme}.png`), fullPage: true });
  }
  await row.getByRole('link', { name: 'demo-eu' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('demo-eu');
  const partitions = page.getByRole('table', { name: 'Partitions' });
  await expect(partitions.locator('tbody tr')).toHaveCount(3);
  await expect(partitions.getByRole('link', { name: 'remote.eu-invoices' }).first()).toHaveAttribute('href', '/c/local/topics/remote.eu-invoices');
  await reloadUntil(page, () => page.getByRole('table', { name: 'Checkpoints' }).isVisible());
  await expect(page.getByRole('table', { name: 'Checkpoints' })).toContainText('eu-billing');
  const connectors = page.getByRole('table', { name: 'Connectors' });
  for (const role of ['source', 'checkpoint', 'heartbeat']) {
    const name = `demo-eu.mirror-${role}`;
    await expect(connectors.locator(`tr[data-connector="${name}"]`)).toContainText((await connectState(page, name)) ?? 'none');
  }
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`replication-${scheme}.png`), fullPage: true });
  }
  // At a phone's width the page keeps to the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: test.info().outputPath('replication-phone.png'), fullPage: true });
  // The copy says where it comes from, its source where it goes.
  await page.goto('/c/local/topics/remote.eu-invoices');
  await expect(page.locator('[data-figure="replications"]')).toContainText('a copy of eu-invoices on remote by demo-eu');
  await page.goto('/c/remote/topics/eu-invoices');
  await expect(page.locator('[data-figure="replications"]')).toContainText('copied to remote.eu-invoices on local by demo-eu');
  // Its source lists it too; the read-only view of the target does not take part in it.
  await page.goto('/c/remote/replications');
  await expect(page.locator('tr[data-replication="demo-eu"]')).toBeVisible();
  await page.goto('/c/local-ro/replications/demo-eu');
  await expect(page.getByRole('alert')).toContainText('There is no replication "demo-eu"');
  expect(problems).toEqual([]);
});

test('create a replication, watch its lag fall to zero, fail a group over and delete it', async ({ page }) => {
  test.setTimeout(240_000);
  const topic = unique('e2e-repl');
  const group = `${topic}-app`;
  remoteTopicWithGroup(topic, 40, group, 15);

  const problems = await openHydrated(page, '/c/local/replications');
  await page.getByRole('button', { name: 'Create replication', exact: true }).click();
  const sheet = page.getByRole('dialog', { name: 'Create replication' });
  await sheet.getByRole('textbox', { name: 'Name', exact: true }).fill(topic);
  await sheet.getByRole('combobox', { name: 'From cluster' }).selectOption('remote');
  await sheet.getByLabel(/^Topics/).fill(`${topic}, heartbeats`);
  await sheet.getByLabel('Groups to checkpoint for failover').fill(`${topic}-*`);
  // A selection of MirrorMaker's own topics is refused after the checks, with nothing made.
  await sheet.getByRole('button', { name: 'Validate' }).click();
  await expect(sheet.getByRole('alert')).toContainText("MirrorMaker's own topic heartbeats");
  await sheet.getByLabel(/^Topics/).fill(topic);
  await sheet.getByRole('button', { name: 'Validate' }).click();
  await expect(sheet.locator('[data-figure="validation"]')).toContainText('Connect finds no error');
  expect(await connectState(page, `${topic}.mirror-source`)).toBeUndefined();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await sheet.screenshot({ path: test.info().outputPath(`replication-create-${scheme}.png`) });
  }
  await sheet.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page.getByRole('status')).toContainText(`Created replication ${topic}.`);
  for (const role of ['source', 'checkpoint', 'heartbeat']) {
    await expect.poll(() => connectState(page, `${topic}.mirror-${role}`), { timeout: 30_000 }).toBe('RUNNING');
  }

  // Its page: the lag falls to zero and the group's checkpoint arrives.
  await page.goto(`/c/local/replications/${topic}`);
  const lag = page.locator('dd[data-figure="lag"]');
  await reloadUntil(page, async () => (await lag.textContent())?.startsWith('0 ') ?? false, 120);
  const partition = page.getByRole('table', { name: 'Partitions' }).locator('tbody tr').first();
  await expect(partition).toContainText('40');
  await reloadUntil(page, () => page.getByRole('table', { name: 'Checkpoints' }).isVisible(), 120);
  const checkpoint = page.getByRole('table', { name: 'Checkpoints' }).locator('tbody tr').first();
  await expect(checkpoint).toContainText(group);
  const translated = Number(await checkpoint.locator('td').nth(3).textContent());

  // Fail the group over: the plan from its checkpoint, applied; Kafka has the commit.
  await page.getByRole('button', { name: `Fail over ${group}`, exact: true }).click();
  const failover = page.getByRole('dialog', { name: `Fail over ${group}` });
  const plan = failover.getByRole('table', { name: 'Plan' });
  await expect(plan).toContainText(`remote.${topic}`);
  await expect(plan.locator('tbody tr').first().locator('td').nth(2)).toHaveText(String(translated));
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await failover.screenshot({ path: test.info().outputPath(`replication-failover-${scheme}.png`) });
  }
  await failover.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByRole('status')).toContainText(`Failed group ${group} over`);
  expect(kafkaGroup(group).committed).toEqual([{ topic: `remote.${topic}`, partition: 0, offset: translated }]);

  // Deleted by typing its name: Connect has none of its connectors.
  await page.getByRole('button', { name: 'Delete replication', exact: true }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete replication' });
  await confirm.getByLabel('Replication name').fill(topic);
  await confirm.getByRole('button', { name: 'Delete replication' }).click();
  await expect(page).toHaveURL(/\/c\/local\/replications$/);
  for (const role of ['source', 'checkpoint', 'heartbeat']) {
    await expect.poll(() => connectState(page, `${topic}.mirror-${role}`)).toBeUndefined();
  }
  // The one refusal asked for above, and nothing else.
  expect(problems).toEqual(['console: Failed to load resource: the server responded with a status of 400 (Bad Request)']);
});
