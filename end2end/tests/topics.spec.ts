import { test, expect } from '@playwright/test';
import { unique } from './authz-matrix';
import { kafkaMetadata, kafkaRecordCount, kafkaTopicOverrides, openHydrated } from './helpers';

const partitionsInKafka = (topic: string) =>
  kafkaMetadata().topics.find((t: any) => t.topic === topic)?.partitions.length;

test('create a topic from the topics page, then delete it by typing its name', async ({ page }) => {
  const topic = unique('e2e-journey');
  const problems = await openHydrated(page, '/c/local/topics');
  // The first page of a long list need not hold the seeded topics; it holds some topic.
  await expect(page.getByRole('table', { name: 'Topics' }).locator('tr[data-topic]').first()).toBeVisible();

  await page.getByRole('button', { name: 'Create topic' }).click();
  const form = page.getByRole('dialog', { name: 'Create topic' });
  await form.getByLabel('Topic name').fill(topic);
  await form.getByLabel('Partitions').fill('4');
  await form.getByLabel('Cleanup policy').selectOption('compact');
  await form.getByLabel(/^Retention time/).fill('3600000');
  await form.getByLabel(/^Other configs/).fill('max.message.bytes=2000000');
  await form.getByRole('button', { name: 'Create' }).click();

  await expect(page).toHaveURL(new RegExp(`/c/local/topics/${topic}$`));
  await expect(page.getByRole('heading', { level: 1, name: topic })).toBeVisible();
  await expect(page.getByRole('table', { name: 'Partitions' }).getByRole('row')).toHaveCount(1 + 4);
  expect(partitionsInKafka(topic)).toBe(4);
  // The configs asked for are the topic's overrides in Kafka, and nothing else is.
  expect(kafkaTopicOverrides(topic)).toEqual({
    'cleanup.policy': 'compact',
    'retention.ms': '3600000',
    'max.message.bytes': '2000000',
  });

  await page.getByRole('button', { name: 'Delete topic' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete topic' });
  const confirm = dialog.getByRole('button', { name: 'Delete topic', exact: true });
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel('Topic name').fill(topic.slice(0, -1));
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel('Topic name').fill(topic);
  await confirm.click();

  await expect(page).toHaveURL(/\/c\/local\/topics$/);
  await page.getByRole('searchbox', { name: 'Filter topics by name' }).fill(topic);
  await expect(page.locator('.pager-summary')).toHaveText(/^No matches among /);
  await expect(page.locator(`tr[data-topic="${topic}"]`)).toHaveCount(0);
  await expect.poll(() => partitionsInKafka(topic)).toBeUndefined();
  expect(problems).toEqual([]);
});

test('a refused create shows Kafka\'s message in the form', async ({ page }) => {
  await openHydrated(page, '/c/local/topics');
  await page.getByRole('button', { name: 'Create topic' }).click();
  const form = page.getByRole('dialog', { name: 'Create topic' });
  await form.getByLabel('Topic name').fill('orders');
  await form.getByRole('button', { name: 'Create' }).click();
  await expect(form.getByRole('alert')).toContainText('Topic already exists');
});

test('internal topics offer no Delete, even on a writable cluster', async ({ page }) => {
  await openHydrated(page, '/c/local/topics/__consumer_offsets');
  await expect(page.getByRole('heading', { level: 1, name: '__consumer_offsets' })).toBeVisible();
  await expect(page.getByText('Internal')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Delete topic' })).toHaveCount(0);
});

test('the read-only cluster lists topics but offers no change', async ({ page }) => {
  await openHydrated(page, '/c/local-ro/topics?q=orders');
  await expect(page.getByRole('table', { name: 'Topics' })).toContainText('orders');
  await expect(page.getByRole('button', { name: 'Create topic' })).toHaveCount(0);
});

test('record counts on the topics page are what Kafka counts', async ({ page }) => {
  await openHydrated(page, '/c/local/topics?q=orders');
  const row = page.locator('tr[data-topic="orders"]');
  const records = kafkaRecordCount('orders');
  expect(records).toBeGreaterThan(0);
  await expect(row.locator('td').nth(2)).toHaveText(records.toLocaleString('en-US'));
});
