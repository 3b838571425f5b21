import { test, expect, type Page } from '@playwright/test';
import { unique } from './authz-matrix';
import { kafkaMetadata, kafkaProduceLines, kafkaStartOffsets, kafkaTopicOverrides, openHydrated } from './helpers';

const partitionsInKafka = (topic: string) =>
  kafkaMetadata().topics.find((t: any) => t.topic === topic)?.partitions.length;

/** Creates a topic through the API (this instance has no sign-in) and waits for the page. */
async function newTopic(page: Page, partitions: number, configs: Record<string, string> = {}): Promise<string> {
  const topic = unique('e2e-change');
  const res = await page.request.post('/api/create_topic', {
    data: { cluster: 'local', topic, partitions, configs },
  });
  expect(res.status(), await res.text()).toBe(200);
  return topic;
}

async function dropTopic(page: Page, topic: string) {
  await page.request.post('/api/delete_topic', { data: { cluster: 'local', topic } });
}

test('edit configs on the Configuration tab: preview, then apply, and the other overrides stay', async ({ page }) => {
  const topic = await newTopic(page, 1, { 'retention.ms': '3600000', 'cleanup.policy': 'delete' });
  const problems = await openHydrated(page, `/c/local/topics/${topic}/configuration`);
  const table = page.getByRole('table', { name: 'Configs' });
  // Overrides come first, with their source.
  const first = table.locator('tbody tr').first();
  await expect(first).toHaveClass(/overridden/);
  const retention = table.locator('tr[data-config="retention.ms"]');
  await expect(retention).toContainText('3600000');
  await expect(retention).toContainText('Topic override');
  // Kafka's own description opens under the name.
  await retention.locator('summary').click();
  await expect(retention.locator('details p').first()).toContainText('retain');

  await page.getByRole('button', { name: 'Edit configuration' }).click();
  await table.getByLabel('Value of max.message.bytes').fill('2000000');
  await retention.getByLabel('Remove override').check();
  const pending = page.getByRole('region', { name: 'Pending changes' });
  await expect(pending).toContainText('2 configs to change');
  const apply = pending.getByRole('button', { name: 'Apply changes' });
  await expect(apply).toBeDisabled();
  await pending.getByRole('button', { name: 'Preview changes' }).click();
  const preview = pending.getByRole('table', { name: 'Config changes' });
  await expect(preview.locator('tr[data-config="max.message.bytes"]')).toContainText('2000000 (Topic override)');
  await expect(preview.locator('tr[data-config="retention.ms"]')).toContainText('3600000 (Topic override)');
  // The preview changed nothing in Kafka.
  expect(kafkaTopicOverrides(topic)).toEqual({ 'retention.ms': '3600000', 'cleanup.policy': 'delete' });

  await apply.click();
  await expect(page.getByRole('status')).toContainText('Applied 2 changes.');
  await expect.poll(() => kafkaTopicOverrides(topic)).toEqual({
    'max.message.bytes': '2000000',
    'cleanup.policy': 'delete',
  });
  await expect(table.locator('tr[data-config="max.message.bytes"]')).toContainText('Topic override');
  await expect(table.locator('tr[data-config="retention.ms"]')).not.toContainText('Topic override');
  expect(problems).toEqual([]);
  await dropTopic(page, topic);
});

test('a value Kafka refuses shows Kafka\'s message in the preview', async ({ page }) => {
  const topic = await newTopic(page, 1);
  await openHydrated(page, `/c/local/topics/${topic}/configuration`);
  await page.getByRole('button', { name: 'Edit configuration' }).click();
  await page.getByRole('table', { name: 'Configs' }).getByLabel('Value of retention.ms').fill('soon');
  const pending = page.getByRole('region', { name: 'Pending changes' });
  await pending.getByRole('button', { name: 'Preview changes' }).click();
  await expect(pending.getByRole('alert')).toContainText('retention.ms');
  await expect(pending.getByRole('button', { name: 'Apply changes' })).toBeDisabled();
  expect(kafkaTopicOverrides(topic)).toEqual({});
  await dropTopic(page, topic);
});

test('add partitions: a count that is not higher is refused, a higher one is previewed and made', async ({ page }) => {
  const topic = await newTopic(page, 2);
  const problems = await openHydrated(page, `/c/local/topics/${topic}`);
  await page.getByRole('button', { name: 'Add partitions' }).click();
  const form = page.getByRole('form', { name: 'Add partitions' });
  await expect(form).toContainText('map to another partition');
  const count = form.getByLabel(/New partition count/);
  await count.fill('2');
  await expect(form.getByRole('button', { name: 'Preview' })).toBeDisabled();
  await expect(form).toContainText('give a higher count');
  await count.fill('5');
  await form.getByRole('button', { name: 'Preview' }).click();
  await expect(form.getByRole('status')).toContainText('2 → 5 partitions');
  expect(partitionsInKafka(topic)).toBe(2);
  await form.getByRole('button', { name: 'Add 3 partitions' }).click();
  await expect(page.getByRole('status')).toContainText('The topic has 5 partitions now (it had 2).');
  await expect(page.getByRole('table', { name: 'Partitions' }).locator('tbody tr')).toHaveCount(5);
  expect(partitionsInKafka(topic)).toBe(5);
  expect(problems).toEqual([]);
  await dropTopic(page, topic);
});

test('delete records before a record, from the record page, after typing the topic name', async ({ page }) => {
  const topic = await newTopic(page, 1);
  kafkaProduceLines(topic, 0, Array.from({ length: 10 }, (_, i) => `line ${i}`));
  await expect.poll(() => kafkaStartOffsets(topic).get(0)).toBe(0);
  const problems = await openHydrated(page, `/c/local/topics/${topic}/records/0/6`);
  await expect(page.getByText('line 6')).toBeVisible();
  await page.getByRole('button', { name: 'Delete records before this' }).click();
  const form = page.getByRole('form', { name: 'Delete records' });
  await form.getByRole('button', { name: 'Preview' }).click();
  const preview = form.getByRole('table', { name: 'Records to delete' });
  await expect(preview.locator('tbody tr')).toHaveCount(1);
  await expect(preview.locator('tbody tr').first()).toContainText('6');
  const confirm = form.getByRole('button', { name: 'Delete 6 records' });
  await expect(confirm).toBeDisabled();
  await form.getByLabel('Topic name').fill(topic.slice(1));
  await expect(confirm).toBeDisabled();
  await form.getByLabel('Topic name').fill(topic);
  expect(kafkaStartOffsets(topic).get(0)).toBe(0);
  await confirm.click();
  await expect(page.getByRole('status')).toContainText('Deleted 6 records.');
  expect(kafkaStartOffsets(topic).get(0)).toBe(6);
  // The record cut at is kept.
  await page.reload();
  await expect(page.getByText('line 6')).toBeVisible();
  expect(problems).toEqual([]);
  await dropTopic(page, topic);
});

test('delete every record of a topic from its Overview', async ({ page }) => {
  const topic = await newTopic(page, 2);
  kafkaProduceLines(topic, 0, ['a', 'b', 'c']);
  kafkaProduceLines(topic, 1, ['d', 'e']);
  await openHydrated(page, `/c/local/topics/${topic}`);
  await page.getByRole('button', { name: 'Delete records' }).click();
  const form = page.getByRole('form', { name: 'Delete records' });
  await form.getByRole('button', { name: 'Preview' }).click();
  await expect(form.getByRole('table', { name: 'Records to delete' }).locator('tfoot')).toContainText('5');
  await form.getByLabel('Topic name').fill(topic);
  await form.getByRole('button', { name: 'Delete 5 records' }).click();
  await expect(page.getByRole('status')).toContainText('Deleted 5 records.');
  const starts = kafkaStartOffsets(topic);
  expect([starts.get(0), starts.get(1)]).toEqual([3, 2]);
  await dropTopic(page, topic);
});

test('internal and read-only topics offer no change on the Configuration tab or the Overview', async ({ page }) => {
  await openHydrated(page, '/c/local/topics/__consumer_offsets/configuration');
  await expect(page.getByRole('table', { name: 'Configs' })).toContainText('cleanup.policy');
  await expect(page.getByRole('button', { name: 'Edit configuration' })).toHaveCount(0);
  await openHydrated(page, '/c/local/topics/__consumer_offsets');
  for (const name of ['Add partitions', 'Delete records', 'Delete topic']) {
    await expect(page.getByRole('button', { name, exact: true })).toHaveCount(0);
  }
  await openHydrated(page, '/c/local-ro/topics/orders/configuration');
  await expect(page.getByRole('table', { name: 'Configs' })).toContainText('cleanup.policy');
  await expect(page.getByRole('button', { name: 'Edit configuration' })).toHaveCount(0);
});

test('the Overview pictures how records spread over partitions; Consumers is a tab of its own', async ({ page }) => {
  const problems = await openHydrated(page, '/c/local/topics/orders');
  const skew = page.getByRole('figure', { name: 'Records per partition' });
  await expect(skew.locator('.skew-bar')).toHaveCount(partitionsInKafka('orders')!);
  await expect(skew.locator('figcaption')).toContainText('× the mean');
  await page.getByRole('navigation', { name: 'Topic' }).getByRole('link', { name: 'Consumers' }).click();
  await expect(page).toHaveURL(/\/c\/local\/topics\/orders\/consumers$/);
  await expect(page.getByRole('table', { name: 'Consumer groups' })).toContainText('billing-service');
  expect(problems).toEqual([]);
});

test('screenshots of the topic pages, light and dark', async ({ page }, testInfo) => {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [name, path] of [
      ['topic-overview', '/c/local/topics/orders'],
      ['topic-configuration', '/c/local/topics/orders/configuration'],
      ['topic-consumers', '/c/local/topics/orders/consumers'],
    ]) {
      await openHydrated(page, path);
      await page.screenshot({ path: testInfo.outputPath(`${name}-${scheme}.png`), fullPage: true });
    }
    // The configuration editor with a pending change and its preview.
    await openHydrated(page, '/c/local/topics/orders/configuration');
    await page.getByRole('button', { name: 'Edit configuration' }).click();
    await page.getByRole('table', { name: 'Configs' }).getByLabel('Value of retention.ms').fill('86400000');
    await page.getByRole('button', { name: 'Preview changes' }).click();
    await expect(page.getByRole('table', { name: 'Config changes' })).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath(`topic-configuration-edit-${scheme}.png`) });
  }
});
