import { test, expect, type Page } from '@playwright/test';
import { kafkaConfigs, openHydrated } from './helpers';
import { unique } from './authz-matrix';

// The Quotas page, each change checked by what Kafka's own kafka-configs tool lists.

async function shoot(page: Page, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`${name}-${scheme}.png`), fullPage: true });
  }
}

const ofUser = (user: string) => kafkaConfigs(['--entity-type', 'users', '--entity-name', user]);

test('set, edit and remove a user quota; Kafka lists each change', async ({ page }) => {
  const user = unique('e2e-quota');
  const problems = await openHydrated(page, '/c/local/quotas');
  await page.getByRole('button', { name: 'Set quota', exact: true }).click();
  const form = page.getByRole('form', { name: 'Set quota' });
  await form.getByLabel('User', { exact: true }).fill(user);
  await form.getByLabel('Produce (producer_byte_rate)').fill('1');
  await form.getByLabel('Unit of Produce').selectOption('MiB/s');
  await expect(form).toContainText('1048576 bytes/s');
  await form.getByRole('button', { name: 'Preview' }).click();
  const changes = form.getByRole('table', { name: 'Quota changes' });
  await expect(changes.locator('tr[data-quota="producer_byte_rate"] td').nth(1)).toHaveText('1 MiB/s');
  expect(ofUser(user)).not.toContain('producer_byte_rate');
  await shoot(page, 'quotas-set');
  await form.getByRole('button', { name: 'Set quota' }).click();
  await expect(page.getByRole('status').filter({ hasText: `The quotas of user ${user} are changed.` })).toBeVisible();
  const row = page.locator(`tr[data-entity="user ${user}"]`);
  await expect(row).toContainText('1 MiB/s');
  await expect.poll(() => ofUser(user)).toContain('producer_byte_rate=1048576.0');

  // Edit: the produce rate doubles and a fetch rate is added.
  await row.getByRole('button', { name: `Edit quota of user ${user}` }).click();
  const edit = page.getByRole('form', { name: `Edit quota of user ${user}` });
  await expect(edit.getByLabel('Produce (producer_byte_rate)')).toHaveValue('1');
  await edit.getByLabel('Produce (producer_byte_rate)').fill('2');
  await edit.getByLabel('Fetch (consumer_byte_rate)').fill('512');
  await edit.getByLabel('Unit of Fetch').selectOption('KiB/s');
  await edit.getByRole('button', { name: 'Preview' }).click();
  await expect(edit.getByRole('table', { name: 'Quota changes' }).locator('tr[data-quota="consumer_byte_rate"] td').nth(1)).toHaveText('512 KiB/s');
  await edit.getByRole('button', { name: 'Save quota' }).click();
  await expect(page.locator(`tr[data-entity="user ${user}"]`)).toContainText('2 MiB/s');
  await expect.poll(() => ofUser(user)).toContain('consumer_byte_rate=524288.0');
  expect(ofUser(user)).toContain('producer_byte_rate=2097152.0');
  await page.getByLabel('Filter quotas by entity').fill(user);
  await shoot(page, 'quotas');

  await page.getByRole('button', { name: `Remove quota of user ${user}` }).click();
  const confirm = page.getByRole('group', { name: 'Remove this quota' });
  // The removal waits for the entity in words, typed exactly.
  const remove = confirm.getByRole('button', { name: 'Remove this quota' });
  await expect(remove).toBeDisabled();
  await confirm.getByLabel('Entity').fill(user);
  await expect(remove).toBeDisabled();
  await confirm.getByLabel('Entity').fill(`user ${user}`);
  await shoot(page, 'quotas-remove');
  await remove.click();
  await expect(page.getByRole('status').filter({ hasText: 'are removed.' })).toBeVisible();
  await expect(page.locator(`tr[data-entity="user ${user}"]`)).toHaveCount(0);
  await expect.poll(() => ofUser(user)).not.toContain('byte_rate');
  expect(problems).toEqual([]);
});

test('an IP quota takes only the connection rate', async ({ page }) => {
  const ip = '10.9.8.7';
  const problems = await openHydrated(page, '/c/local/quotas');
  await page.getByRole('button', { name: 'Set quota', exact: true }).click();
  const form = page.getByRole('form', { name: 'Set quota' });
  await form.getByLabel('Entity').selectOption('IP address');
  await expect(form.getByLabel('Produce (producer_byte_rate)')).toHaveCount(0);
  await form.getByLabel('IP address', { exact: true }).fill(ip);
  await form.getByLabel('New connections (connection_creation_rate)').fill('2.5');
  await expect(form).toContainText('whole number');
  await form.getByLabel('New connections (connection_creation_rate)').fill('5');
  await form.getByRole('button', { name: 'Preview' }).click();
  await form.getByRole('button', { name: 'Set quota' }).click();
  await expect(page.locator(`tr[data-entity="IP ${ip}"]`)).toContainText('5 /s');
  const ofIp = () => kafkaConfigs(['--entity-type', 'ips', '--entity-name', ip]);
  await expect.poll(ofIp).toContain('connection_creation_rate=5.0');
  await page.getByRole('button', { name: `Remove quota of IP ${ip}` }).click();
  const confirm = page.getByRole('group', { name: 'Remove this quota' });
  await confirm.getByLabel('Entity').fill(`IP ${ip}`);
  await confirm.getByRole('button', { name: 'Remove this quota' }).click();
  await expect.poll(ofIp).not.toContain('connection_creation_rate');
  expect(problems).toEqual([]);
});
