import { test, expect } from '@playwright/test';
import { openHydrated, runDevPython } from './helpers';
import { unique } from './authz-matrix';

// The ACLs page against dev/seed.py's bindings (User:klens, User:alice on orders, User:reporting
// on topics prefixed click, a DENY). Effects are read back with confluent-kafka's admin client.

/** The bindings whose resource name is `name`, as Kafka's admin client lists them. */
function kafkaBindings(name: string): string[] {
  const script = `
import sys
from confluent_kafka.admin import AdminClient, AclBindingFilter, ResourceType, ResourcePatternType, AclOperation, AclPermissionType
admin = AdminClient({"bootstrap.servers": "127.0.0.1:19092"})
f = AclBindingFilter(ResourceType.ANY, sys.argv[1], ResourcePatternType.ANY, None, None, AclOperation.ANY, AclPermissionType.ANY)
for b in admin.describe_acls(f).result(timeout=15):
    print(b.principal, b.host, b.restype.name, b.resource_pattern_type.name, b.operation.name, b.permission_type.name)
`;
  return runDevPython(script, [name]).split('\n').filter((l) => l.length > 0).sort();
}

test('the ACLs page lists, filters, creates after a preview, and deletes exactly one binding', async ({ page }) => {
  const problems = await openHydrated(page, '/c/local/acls');
  const rows = page.getByRole('table', { name: 'ACLs' }).locator('tbody tr');
  await expect(rows.filter({ hasText: 'User:alice' }).first()).toBeVisible();
  await page.getByRole('searchbox', { name: 'Principal' }).fill('reporting');
  await expect(rows.first()).toContainText('User:reporting');
  for (const text of await rows.allInnerTexts()) expect(text).toContain('User:reporting');
  await expect(rows.filter({ hasText: 'deny' })).toHaveCount(1);
  await page.getByRole('searchbox', { name: 'Principal' }).fill('');

  const prefix = `${unique('e2e-acl')}-`;
  await page.getByRole('button', { name: 'Create ACL', exact: true }).click();
  const form = page.getByRole('form', { name: 'Create ACL' });
  await form.getByLabel('Principal').fill('User:reporting');
  await form.getByLabel('Resource name').fill(prefix);
  await form.getByLabel('Pattern').selectOption('prefixed');
  await form.getByLabel('Operation').selectOption('write');
  await form.getByRole('button', { name: 'Preview' }).click();
  await expect(form.locator('[data-figure="acl-words"]')).toHaveText(
    `User:reporting may WRITE topics whose names start with ${prefix} from any host.`,
  );
  expect(kafkaBindings(prefix)).toEqual([]);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`acls-create-${scheme}.png`) });
  }
  await form.getByRole('button', { name: 'Create this ACL' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Created: User:reporting may WRITE' })).toBeVisible();
  expect(kafkaBindings(prefix)).toEqual(['User:reporting * TOPIC PREFIXED WRITE ALLOW']);

  // A second binding on the same prefix; Delete on one row removes that one only.
  await page.getByRole('button', { name: 'Create ACL', exact: true }).click();
  await form.getByLabel('Operation').selectOption('describe');
  await form.getByRole('button', { name: 'Preview' }).click();
  await form.getByRole('button', { name: 'Create this ACL' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'may DESCRIBE' })).toBeVisible();
  expect(kafkaBindings(prefix)).toHaveLength(2);
  await page.getByRole('searchbox', { name: 'Resource' }).fill(prefix);
  await expect(rows).toHaveCount(2);
  await page.getByRole('button', { name: `Delete ACL: User:reporting may WRITE topics whose names start with ${prefix} from any host` }).click();
  const confirm = page.getByRole('group', { name: 'Delete this ACL' });
  await expect(confirm).toContainText('Removes exactly this binding');
  // The delete waits for the principal, typed exactly.
  const remove = confirm.getByRole('button', { name: 'Delete this ACL' });
  await expect(remove).toBeDisabled();
  await confirm.getByLabel('Principal').fill('User:reportin');
  await expect(remove).toBeDisabled();
  await confirm.getByLabel('Principal').fill('user:reporting');
  await expect(remove).toBeDisabled();
  await confirm.getByLabel('Principal').fill('User:reporting');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await confirm.screenshot({ path: test.info().outputPath(`acls-delete-${scheme}.png`) });
  }
  await remove.click();
  await expect(page.getByRole('status').filter({ hasText: 'Deleted: User:reporting may WRITE' })).toBeVisible();
  expect(kafkaBindings(prefix)).toEqual(['User:reporting * TOPIC PREFIXED DESCRIBE ALLOW']);
  await expect(rows).toHaveCount(1);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.getByRole('searchbox', { name: 'Resource' }).fill('');
    await page.screenshot({ path: test.info().outputPath(`acls-${scheme}.png`), fullPage: true });
  }
  // Clean up through the API, checked by Kafka.
  const res = await page.request.post('/api/delete_acl', {
    data: { cluster: 'local', principal: 'User:reporting', resource_type: 'topic', resource_name: prefix, pattern_type: 'prefixed', operation: 'describe' },
  });
  expect(res.status()).toBe(200);
  expect(kafkaBindings(prefix)).toEqual([]);
  expect(problems).toEqual([]);
});

test('on a read-only cluster the ACLs page lists the bindings and offers no change', async ({ page }) => {
  // Without sign-in every privilege is held; the read-only cluster still lists, and offers no change.
  await openHydrated(page, '/c/local-ro/acls');
  await expect(page.getByRole('table', { name: 'ACLs' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Create ACL' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /^Delete ACL/ })).toHaveCount(0);
});
