import { test, expect } from '@playwright/test';
import { openHydrated } from './helpers';

// The frame every page shares: where the page sits (and whether its cluster is read-only), the
// navigation folded behind a Menu button on a phone, forms that open as a sheet over the page
// and close on Escape, and configs with known values chosen rather than typed.

test('the trail names the cluster and the object, and marks a read-only cluster', async ({ page }) => {
  const problems = await openHydrated(page, '/c/local-ro/topics/orders/data');
  const trail = page.getByRole('navigation', { name: 'Breadcrumb' });
  await expect(trail.getByRole('listitem')).toHaveText(['Clusters', 'local-ro', 'Topics', 'orders', 'Data']);
  await expect(trail.getByRole('link', { name: 'local-ro' })).toHaveAttribute('href', '/c/local-ro');
  await expect(trail.getByText('read-only', { exact: true })).toBeVisible();

  await openHydrated(page, '/c/local/topics/orders');
  await expect(trail.getByRole('listitem')).toHaveText(['Clusters', 'local', 'Topics', 'orders']);
  await expect(trail.getByText('read-only', { exact: true })).toHaveCount(0);
  expect(problems).toEqual([]);
});

test('on a phone the navigation opens from the Menu button and folds again on a move', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const problems = await openHydrated(page, '/c/local/topics');
  const nav = page.getByRole('navigation', { name: 'Clusters' });
  await expect(nav).toBeHidden();
  await page.getByText('Menu', { exact: true }).click();
  await expect(nav).toBeVisible();
  await nav.getByRole('link', { name: 'Consumer groups' }).first().click();
  await expect(page).toHaveURL(/\/c\/local\/groups$/);
  await expect(nav).toBeHidden();
  expect(problems).toEqual([]);
});

test('a form opens as a sheet with the focus held in it, and Escape closes it leaving the list', async ({ page }) => {
  const problems = await openHydrated(page, '/c/local/topics');
  const table = page.getByRole('table', { name: 'Topics' });
  await expect(table).toBeVisible();
  const tableTop = (await table.boundingBox())!.y;
  await page.getByRole('button', { name: 'Create topic' }).click();
  const form = page.getByRole('dialog', { name: 'Create topic' });
  await expect(form).toBeVisible();
  // Over the page, at its right edge; the list behind has not moved.
  const box = (await form.boundingBox())!;
  const viewport = page.viewportSize()!;
  expect(Math.round(box.x + box.width)).toBe(viewport.width);
  expect((await table.boundingBox())!.y).toBe(tableTop);
  await expect.poll(() => form.evaluate((f) => f.contains(document.activeElement))).toBe(true);
  // The focus is held: Tab past the last button and Shift+Tab before the first field go round
  // the sheet, never to the page behind it.
  const inside = () => form.evaluate((f) => f.contains(document.activeElement));
  for (let i = 0; i < 14; i++) {
    await page.keyboard.press('Tab');
    expect(await inside()).toBe(true);
  }
  await form.getByLabel('Topic name').focus();
  await page.keyboard.press('Shift+Tab');
  expect(await inside()).toBe(true);
  await expect(form.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(form).toHaveCount(0);
  await expect(table).toBeVisible();
  expect(problems).toEqual([]);
});

test('a config with known values is chosen from a list, and Kafka\'s help reads as text', async ({ page }) => {
  const problems = await openHydrated(page, '/c/local/topics/orders/configuration');
  const configs = page.getByRole('table', { name: 'Configs' });
  const help = configs.locator('tr[data-config="cleanup.policy"] details.doc');
  await help.locator('summary').click();
  await expect(help.locator('p').first()).not.toContainText('<a');
  await page.getByRole('button', { name: 'Edit configuration' }).click();
  const policy = configs.getByLabel('Value of cleanup.policy');
  await expect(policy).toHaveJSProperty('tagName', 'SELECT');
  await expect(policy.locator('option')).toHaveText(['delete', 'compact', 'compact,delete']);
  const compression = configs.getByLabel('Value of compression.type');
  await expect(compression.locator('option')).toContainText(['producer', 'zstd']);
  expect(problems).toEqual([]);
});
