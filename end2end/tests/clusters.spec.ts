import { test, expect } from '@playwright/test';
import { kafkaMetadata, openHydrated } from './helpers';

test('the server-rendered clusters page is complete before any script runs', async ({ request }) => {
  const page = async () => {
    const res = await request.get('/');
    expect(res.status()).toBe(200);
    const html = await res.text();
    return { html, row: html.slice(html.indexOf('data-cluster="local"'), html.indexOf('data-cluster="local-ro"')) };
  };
  const { html, row } = await page();
  // Every configured cluster has a row, with the figures already in the HTML.
  for (const name of ['local', 'local-ro', 'offline']) {
    expect(html).toContain(`data-cluster="${name}"`);
  }
  expect(row).toContain('Healthy');
  expect(row).toContain('Writable');
  // The counts are Kafka's, once klens has read the topics that earlier tests made or deleted
  // (its metadata refresh runs every 15 s).
  const missing = (row: string) => {
    const truth = kafkaMetadata();
    const partitions = truth.topics.reduce((n, t) => n + t.partitions.length, 0);
    return [`${truth.topics.length} topics`, `${partitions} partitions`]
      .filter((figure) => !row.includes(`>${Number(figure.split(' ')[0]).toLocaleString('en-US')}<`));
  };
  await expect.poll(async () => missing((await page()).row), { timeout: 60_000, intervals: [2_000] }).toEqual([]);
});

test('the clusters page hydrates without console errors and shows health as text', async ({ page }) => {
  const problems = await openHydrated(page, '/');
  const table = page.getByRole('table', { name: 'Clusters' });
  await expect(table.getByRole('row')).toHaveCount(5); // header + 4 clusters
  const local = table.locator('tr[data-cluster="local"]');
  await expect(local.getByText('Healthy')).toBeVisible();
  await expect(local.getByText('Writable')).toBeVisible();
  const readOnly = table.locator('tr[data-cluster="local-ro"]');
  await expect(readOnly.getByText('Read-only')).toBeVisible();
  const offline = table.locator('tr[data-cluster="offline"]');
  await expect(offline.getByText('Unreachable')).toBeVisible();
  expect(problems).toEqual([]);
});

test('navigation leads to a cluster and its brokers', async ({ page }) => {
  const problems = await openHydrated(page, '/');
  await page.getByRole('navigation', { name: 'Clusters' }).getByRole('link', { name: 'local', exact: true }).click();
  await expect(page).toHaveURL(/\/c\/local$/);
  await expect(page.getByRole('heading', { level: 1, name: 'local' })).toBeVisible();
  const brokers = page.getByRole('table', { name: 'Brokers' });
  await expect(brokers.getByRole('row')).toHaveCount(1 + kafkaMetadata().brokers.length);
  await expect(brokers).toContainText('19094');
  expect(problems).toEqual([]);
});

test('an unknown cluster says so instead of failing', async ({ page }) => {
  await openHydrated(page, '/c/no-such-cluster');
  await expect(page.getByRole('alert')).toHaveText('There is no cluster named "no-such-cluster".');
});

test('the theme switch cycles light and dark and remembers the choice', async ({ page }) => {
  await openHydrated(page, '/');
  const html = page.locator('html');
  const button = page.getByRole('button', { name: 'Switch theme' });
  await expect(html).not.toHaveAttribute('data-theme', /.+/);
  await button.click();
  await expect(html).toHaveAttribute('data-theme', 'light');
  await button.click();
  await expect(html).toHaveAttribute('data-theme', 'dark');
  await page.reload();
  await expect(html).toHaveAttribute('data-theme', 'dark');
  await button.click();
  await expect(html).not.toHaveAttribute('data-theme', /.+/);
});

test('screenshots of the clusters page, light and dark', async ({ page }, testInfo) => {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await openHydrated(page, '/');
    await page.screenshot({ path: testInfo.outputPath(`clusters-${scheme}.png`), fullPage: true });
  }
});
