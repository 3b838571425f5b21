import { test, expect } from '@playwright/test';
import { unique } from './authz-matrix';
import { kafkaCommit as commit, kafkaProduceLines, openHydrated, runDevPython } from './helpers';

/** The group's committed offsets on a topic's partitions, as confluent-kafka's admin client lists them. */
function committedOffsets(group: string, topic: string): Record<number, number> {
  const out = runDevPython(`
import json, sys
from confluent_kafka import ConsumerGroupTopicPartitions
from confluent_kafka.admin import AdminClient
admin = AdminClient({"bootstrap.servers": "127.0.0.1:19092"})
f = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(sys.argv[1])])
tps = f[sys.argv[1]].result(timeout=20).topic_partitions
print(json.dumps({tp.partition: tp.offset for tp in tps if tp.topic == sys.argv[2] and tp.offset >= 0}))
`, [group, topic]);
  return JSON.parse(out);
}

async function setUp(page: any, committed: Record<number, number>) {
  const topic = unique('e2e-group-topic');
  const res = await page.request.post('/api/create_topic', { data: { cluster: 'local', topic, partitions: 2 } });
  expect(res.status()).toBe(200);
  kafkaProduceLines(topic, 0, Array.from({ length: 8 }, (_, i) => `a${i}`));
  kafkaProduceLines(topic, 1, Array.from({ length: 6 }, (_, i) => `b${i}`));
  const group = unique('e2e-group');
  commit(group, topic, committed);
  // The catalog lists groups every ten seconds.
  await expect.poll(async () => (await page.request.get(`/api/group?cluster=local&group=${group}`)).status(), {
    timeout: 20_000,
  }).toBe(200);
  return { topic, group };
}

test('reset a group\'s offsets: the plan first, then exactly that plan', async ({ page }) => {
  test.setTimeout(60_000);
  const { topic, group } = await setUp(page, { 0: 5, 1: 2 });
  const problems = await openHydrated(page, `/c/local/groups/${group}`);
  await page.getByRole('button', { name: 'Reset offsets' }).click();
  const form = page.getByRole('form', { name: 'Reset offsets' });
  // The topic is chosen among those the group has offsets on, not typed.
  const topicChoice = form.getByRole('combobox', { name: /^Topic/ });
  await expect(topicChoice.locator('option')).toHaveText(['Every topic the group has offsets on', topic]);
  await topicChoice.selectOption(topic);
  await form.getByLabel('Move each offset to').selectOption('shift');
  await form.getByLabel(/Records to shift by/).fill('-2');
  await form.getByRole('button', { name: 'Show plan' }).click();
  const plan = form.getByRole('table', { name: 'Plan' });
  await expect(plan.locator(`tr[data-partition="${topic}-0"] td`).nth(2)).toHaveText('3');
  await expect(plan.locator(`tr[data-partition="${topic}-1"] td`).nth(2)).toHaveText('0');
  await expect(plan.locator('tfoot')).toContainText('4');
  expect(committedOffsets(group, topic)).toEqual({ 0: 5, 1: 2 });

  // Someone commits meanwhile: the plan is stale, nothing changes, the new plan is shown.
  commit(group, topic, { 0: 6 });
  await form.getByRole('button', { name: 'Apply this plan' }).click();
  await expect(form.getByRole('alert')).toContainText('moved since that plan was made');
  await expect(plan.locator(`tr[data-partition="${topic}-0"] td`).nth(1)).toHaveText('6');
  expect(committedOffsets(group, topic)).toEqual({ 0: 6, 1: 2 });

  await form.getByRole('button', { name: 'Apply this plan' }).click();
  await expect(page.getByRole('status')).toContainText('Reset 2 partitions');
  expect(committedOffsets(group, topic)).toEqual({ 0: 4, 1: 0 });
  await expect(page.getByRole('table', { name: 'Offsets' }).locator(`tr[data-partition="${topic}-0"] td`).nth(1)).toHaveText('4');
  expect(problems).toEqual([]);
});

test('delete a group\'s offsets on a topic, then the group, each after typing its name', async ({ page }) => {
  test.setTimeout(60_000);
  const { topic, group } = await setUp(page, { 0: 1, 1: 1 });
  await openHydrated(page, `/c/local/groups/${group}`);
  await page.getByRole('button', { name: 'Delete offsets' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete offsets' });
  const confirm = dialog.getByRole('button', { name: 'Delete offsets' });
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel('Group name').fill(group);
  await confirm.click();
  await expect(page.getByRole('status')).toContainText(`Deleted the offsets of the group on ${topic}`);
  expect(committedOffsets(group, topic)).toEqual({});

  await page.getByRole('button', { name: 'Delete group' }).click();
  const last = page.getByRole('dialog', { name: 'Delete group' });
  await last.getByLabel('Group name').fill(group);
  await last.getByRole('button', { name: 'Delete group' }).click();
  await expect(page).toHaveURL(/\/c\/local\/groups$/);
  expect((await page.request.get(`/api/group?cluster=local&group=${group}`)).status()).toBe(404);
});

test('screenshots of a group page with its reset plan, light and dark', async ({ page }, testInfo) => {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await openHydrated(page, '/c/local/groups/billing-service');
    await page.screenshot({ path: testInfo.outputPath(`group-${scheme}.png`), fullPage: true });
    await page.getByRole('button', { name: 'Reset offsets' }).click();
    await page.getByRole('form', { name: 'Reset offsets' }).getByRole('button', { name: 'Show plan' }).click();
    await expect(page.getByRole('table', { name: 'Plan' })).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath(`group-reset-plan-${scheme}.png`), fullPage: true });
  }
});
