import { test, expect, type Page } from '@playwright/test';
import { kafkaBrokerConfig, kafkaConfigs, kafkaDeleteBrokerConfig, openHydrated } from './helpers';

// A broker's Configuration tab and the cluster-wide broker default, each change checked by
// another client: confluent-kafka's DescribeConfigs for the broker, Kafka's own kafka-configs
// tool for the default. The config is one nothing else in the suites sets.
const CONFIG = 'log.cleaner.delete.retention.ms';

// A run that failed half-way may have left a value set.
test.beforeAll(() => {
  kafkaDeleteBrokerConfig(['--entity-name', '1'], CONFIG);
  kafkaDeleteBrokerConfig(['--entity-default'], CONFIG);
});

async function shoot(page: Page, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`${name}-${scheme}.png`), fullPage: true });
  }
}

/** Types `value` into the config's field (after Edit configuration), previews and applies. */
async function change(page: Page, edit: (row: ReturnType<Page['locator']>) => Promise<void>, after: RegExp) {
  await page.getByRole('button', { name: 'Edit configuration', exact: true }).click();
  await edit(page.locator(`tr[data-config="${CONFIG}"]`));
  const pending = page.getByRole('region', { name: 'Pending changes' });
  await pending.getByRole('button', { name: 'Preview changes' }).click();
  await expect(pending.getByRole('table', { name: 'Config changes' }).locator(`tr[data-config="${CONFIG}"] td`).nth(1)).toHaveText(after);
  await pending.getByRole('button', { name: 'Apply changes' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Applied 1 change.' })).toBeVisible();
}

test('a broker config set and removed on the Configuration tab is what confluent-kafka describes', async ({ page }) => {
  const original = kafkaBrokerConfig(1, CONFIG, '86400000 DEFAULT_CONFIG');
  expect(original).toMatch(/ (DEFAULT_CONFIG|STATIC_BROKER_CONFIG)$/);
  const problems = await openHydrated(page, '/c/local/brokers/1');
  await page.getByRole('navigation', { name: 'Broker' }).getByRole('link', { name: 'Configuration' }).click();
  await expect(page).toHaveURL(/\/c\/local\/brokers\/1\/configuration$/);
  const table = page.getByRole('table', { name: 'Configs' });
  await expect(table.locator('tr[data-config="log.dirs"]')).toContainText('read-only');
  await expect(table.locator('tr[data-config="listeners"]')).toContainText('per broker');
  // Three hundred rows make no picture: the cleaner's, and the listeners.
  await page.getByLabel('Filter configs by name').fill('log.cleaner');
  await shoot(page, 'broker-config');
  await page.getByLabel('Filter configs by name').fill('');

  await change(page, async (row) => {
    // A read-only config offers no field; a dynamic one does.
    await expect(table.locator('tr[data-config="log.dirs"] input')).toHaveCount(0);
    await row.getByLabel(`Value of ${CONFIG}`).fill('90000000');
  }, /^90000000 \(Broker \(dynamic\)\)$/);
  await expect(table.locator(`tr[data-config="${CONFIG}"]`)).toContainText('Broker (dynamic)');
  expect(kafkaBrokerConfig(1, CONFIG, '90000000 DYNAMIC_BROKER_CONFIG')).toBe('90000000 DYNAMIC_BROKER_CONFIG');

  await change(page, async (row) => {
    await row.getByLabel("Remove this broker's value").check();
  }, new RegExp(`^${original.split(' ')[0]} `));
  expect(kafkaBrokerConfig(1, CONFIG, original)).toBe(original);
  expect(problems).toEqual([]);
});

test('the cluster-wide default set on its page is what kafka-configs lists', async ({ page }) => {
  const problems = await openHydrated(page, '/c/local/brokers');
  await page.getByRole('link', { name: 'Cluster-wide configuration' }).click();
  await expect(page).toHaveURL(/\/c\/local\/brokers\/defaults$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Cluster-wide broker configuration');
  const table = page.getByRole('table', { name: 'Configs' });
  // dev/stack sets min.insync.replicas as the default; per-broker configs have no row here.
  await expect(table.locator('tr[data-config="min.insync.replicas"]')).toContainText('All brokers (dynamic)');
  await expect(table.locator('tr[data-config="listeners"]')).toHaveCount(0);
  await expect(page.getByText(/the value shown is broker 1's/)).toBeVisible();

  await change(page, async (row) => {
    await row.getByLabel(`Value of ${CONFIG}`).fill('95000000');
  }, /^95000000 \(All brokers \(dynamic\)\)$/);
  await expect.poll(() => kafkaConfigs(['--entity-type', 'brokers', '--entity-default'])).toContain(`${CONFIG}=95000000`);
  await page.getByLabel('Filter configs by name').fill('log.');
  await shoot(page, 'broker-defaults');
  await page.getByLabel('Filter configs by name').fill('');

  await change(page, async (row) => {
    await row.getByLabel('Remove the default').check();
  }, /.+/);
  await expect.poll(() => kafkaConfigs(['--entity-type', 'brokers', '--entity-default'])).not.toContain(CONFIG);
  expect(problems).toEqual([]);
});
