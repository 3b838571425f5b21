import { test, expect } from '@playwright/test';
import { openHydrated, runDevPython } from './helpers';
import { unique } from './authz-matrix';

// The Users page against dev/seed.py's SCRAM users (admin, klens, reporting). A credential's
// effect is checked by signing in to the SASL listener with confluent-kafka.

/** Whether `user` signs in over SCRAM-SHA-512 (the mechanism the listener offers) with `password`, waiting up to ten seconds for
 * the answer to be `want`. */
function signsIn(user: string, password: string, want: boolean): boolean {
  const script = `
import sys, time
from confluent_kafka.admin import AdminClient
user, password, want = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
deadline = time.time() + 10
while True:
    admin = AdminClient({"bootstrap.servers": "127.0.0.1:19094", "security.protocol": "SASL_PLAINTEXT",
                         "sasl.mechanism": "SCRAM-SHA-512", "sasl.username": user, "sasl.password": password,
                         "log_level": 0})
    try:
        admin.list_topics(timeout=4)
        ok = True
    except Exception:
        ok = False
    if ok == want or time.time() > deadline:
        print("1" if ok else "0")
        break
    time.sleep(0.3)
`;
  return runDevPython(script, [user, password, want ? '1' : '0']).trim() === '1';
}

test('add a SCRAM user, who then signs in; delete the credential, and they cannot', async ({ page }) => {
  const user = unique('e2e-user');
  const password = 'correct horse battery staple';
  const problems = await openHydrated(page, '/c/local/users');
  await expect(page.getByRole('table', { name: 'Users' })).toContainText('reporting');
  await expect(page.locator('tr[data-user="reporting"]')).toContainText('SCRAM-SHA-512 (8,192 iterations)');

  await page.getByRole('button', { name: 'Add user', exact: true }).click();
  const form = page.getByRole('form', { name: 'Add user' });
  await form.getByLabel('User').fill(user);
  await form.getByLabel('Iterations').fill('4096');
  await form.getByLabel('Password', { exact: true }).fill(password);
  await form.getByLabel('Password again').fill('something else');
  await expect(form.getByRole('button', { name: 'Set password' })).toBeDisabled();
  await expect(form).toContainText('The two passwords differ.');
  await form.getByLabel('Password again').fill(password);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`users-add-${scheme}.png`) });
  }
  await form.getByRole('button', { name: 'Set password' }).click();
  await expect(page.getByRole('status').filter({ hasText: `The SCRAM-SHA-512 credential of ${user} is set.` })).toBeVisible();
  await expect(page.locator(`tr[data-user="${user}"]`)).toContainText('SCRAM-SHA-512 (4,096 iterations)');
  expect(await page.content()).not.toContain(password);
  expect(signsIn(user, password, true)).toBe(true);
  expect(signsIn(user, 'wrong', false)).toBe(false);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`users-${scheme}.png`), fullPage: true });
  }

  await page.getByRole('button', { name: `Delete the SCRAM-SHA-512 credential of ${user}` }).click();
  const confirm = page.getByRole('group', { name: 'Delete this credential' });
  await expect(confirm).toContainText('can no longer sign in');
  // The delete waits for the user's name, typed exactly.
  const remove = confirm.getByRole('button', { name: 'Delete this credential' });
  await expect(remove).toBeDisabled();
  await confirm.getByLabel('User name').fill(user.slice(0, -1));
  await expect(remove).toBeDisabled();
  await confirm.getByLabel('User name').fill(`${user} `);
  await expect(remove).toBeDisabled();
  await confirm.getByLabel('User name').fill(user);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await confirm.screenshot({ path: test.info().outputPath(`users-delete-${scheme}.png`) });
  }
  await remove.click();
  await expect(page.getByRole('status').filter({ hasText: 'is deleted.' })).toBeVisible();
  await expect(page.locator(`tr[data-user="${user}"]`)).toHaveCount(0);
  expect(signsIn(user, password, false)).toBe(false);
  expect(problems).toEqual([]);
});
