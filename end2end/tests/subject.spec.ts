import { test, expect } from '@playwright/test';
import { openHydrated } from './helpers';

// The Subject page against the seeded subjects of dev/seed.py: payments-avro-value has two
// versions (the second adds an optional `note`), users-proto-value and shipments-json-value one.

test('a subject page: versions, the text, and what changed between two versions', async ({ page }) => {
  const problems = await openHydrated(page, '/c/local/schemas');
  await page.getByRole('link', { name: 'payments-avro-value' }).click();
  await expect(page).toHaveURL(/\/c\/local\/schemas\/payments-avro-value$/);
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
  const versions = page.getByRole('table', { name: 'Versions' }).locator('tbody tr');
  await expect(versions).toHaveCount(2);
  await expect(page.locator('[data-figure="topics"]')).toContainText('the value of payments-avro');
  await expect(page.locator('[data-figure="compatibility"]')).toContainText('level');
  // The newest version is shown, compared with the one before.
  const text = page.getByLabel('Schema text').first();
  await expect(text).toContainText('"note"');
  await expect(text.locator('.tok-key').first()).toBeVisible();
  const fields = page.getByRole('list', { name: 'Field changes' });
  await expect(fields).toHaveText(/Payment\.note: added, with default null/);
  await expect(page.getByLabel('Text changes').locator('.diff-added', { hasText: '"note"' })).toHaveCount(1);
  // Another version shown: the URL says which.
  await page.getByLabel('Version shown').selectOption('1');
  await expect(page).toHaveURL(/version=1/);
  await expect(page.getByLabel('Schema text').first()).not.toContainText('"note"');
  await page.getByLabel('Compared version').selectOption('2');
  await expect(page).toHaveURL(/version=1&compare=2/);
  await expect(fields).toHaveText(/Payment\.note: removed/);
  expect(problems).toEqual([]);
});

test('a subject that does not exist, and a version that does not', async ({ page }) => {
  await openHydrated(page, '/c/local/schemas/no-such-subject-value');
  await expect(page.getByRole('alert')).toContainText('no subject "no-such-subject-value"');
  const res = await page.request.get('/api/schema?cluster=local&subject=payments-avro-value&version=99');
  expect(res.status()).toBe(404);
  expect(await res.json()).toMatchObject({ code: 'NOT_FOUND' });
});

test('screenshots of the subject page, light and dark', async ({ page }, testInfo) => {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await openHydrated(page, '/c/local/schemas/payments-avro-value');
    await expect(page.getByRole('list', { name: 'Field changes' })).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath(`subject-${scheme}.png`), fullPage: true });
    await openHydrated(page, '/c/local/schemas/users-proto-value');
    await expect(page.getByLabel('Schema text')).toContainText('message');
    await page.screenshot({ path: testInfo.outputPath(`subject-proto-${scheme}.png`), fullPage: true });
  }
});
