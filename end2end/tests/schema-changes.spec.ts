import { test, expect, type APIRequestContext } from '@playwright/test';
import { openHydrated } from './helpers';
import { unique } from './authz-matrix';

// The registry writes of the Subject and Schemas pages, each effect read back from the dev
// stack's registry over its own REST API, not through klens.
const REGISTRY = 'http://127.0.0.1:18081/apis/ccompat/v7';

const V1 = '{"type":"record","name":"Reading","fields":[{"name":"celsius","type":"int"}]}';
const NO_DEFAULT = '{"type":"record","name":"Reading","fields":[{"name":"celsius","type":"int"},{"name":"place","type":"string"}]}';
const WITH_DEFAULT = '{"type":"record","name":"Reading","fields":[{"name":"celsius","type":"int"},{"name":"place","type":"string","default":"unknown"}]}';

async function registry(request: APIRequestContext, path: string): Promise<{ status: number; body: any }> {
  const res = await request.get(`${REGISTRY}/${path}`);
  return { status: res.status(), body: await res.json().catch(() => null) };
}

/** A topic with three Avro records written with V1 under `<topic>-value`. */
async function topicWithRecords(request: APIRequestContext): Promise<string> {
  const topic = unique('e2e-schema');
  const created = await request.post('/api/create_topic', { data: { cluster: 'local', topic, partitions: 2 } });
  expect(created.status()).toBe(200);
  const registered = await request.post(`${REGISTRY}/subjects/${topic}-value/versions`, {
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
    data: { schema: V1 },
  });
  expect(registered.status()).toBe(200);
  for (const celsius of [12, 17, 21]) {
    const res = await request.post('/api/produce', {
      data: { cluster: 'local', topic, value: { encoding: 'avro', data: { celsius } } },
    });
    expect(res.status(), await res.text()).toBe(200);
  }
  return topic;
}

test('register a new version after its preview, change compatibility, delete a version', async ({ page }) => {
  const topic = await topicWithRecords(page.request);
  const subject = `${topic}-value`;
  const problems = await openHydrated(page, `/c/local/schemas/${subject}`);

  // The form starts from the newest text; a field without a default is judged on both counts.
  await page.getByRole('button', { name: 'Register a new version', exact: true }).click();
  const form = page.getByRole('form', { name: 'Register a new version' });
  const text = form.getByLabel('Schema', { exact: true });
  await expect(text).toHaveValue(/celsius/);
  await text.fill(NO_DEFAULT);
  await form.getByRole('button', { name: 'Preview' }).click();
  await expect(form.locator('[data-figure="verdict"]')).toContainText('not compatible');
  await expect(form.locator('[data-figure="records"]')).toContainText('Of the newest 3 records');
  await expect(form.locator('[data-figure="records"]')).toContainText('0 read with this schema, 3 do not');
  await expect(form.getByRole('link', { name: /partition \d, offset \d/ }).first()).toBeVisible();

  // With a default, every record still reads; the field change is named; then register.
  await text.fill(WITH_DEFAULT);
  await expect(form.getByRole('button', { name: 'Register version' })).toHaveCount(0);
  await form.getByRole('button', { name: 'Preview' }).click();
  await expect(form.locator('[data-figure="verdict"]')).toContainText('compatible with the subject under');
  await expect(form.locator('[data-figure="records"]')).toContainText('3 read with this schema, 0 do not');
  await expect(form.getByRole('list', { name: 'Field changes' })).toContainText('Reading.place: added');
  await page.screenshot({ path: test.info().outputPath('subject-register-light.png'), fullPage: true });
  await form.getByRole('button', { name: 'Register version' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Registered version 2' })).toBeVisible();
  const versions = await registry(page.request, `subjects/${subject}/versions`);
  expect(versions.body).toEqual([1, 2]);
  const second = await registry(page.request, `subjects/${subject}/versions/2`);
  expect(second.body.schema).toContain('"default":"unknown"');
  await expect(page.getByRole('table', { name: 'Versions' }).locator('tbody tr')).toHaveCount(2);
  // The page shows the new version's text, compared with the one before.
  await expect(page.getByLabel('Schema text').first()).toContainText('"place"');
  await expect(page.getByRole('list', { name: 'Field changes' }).first()).toContainText('Reading.place: added');

  // Change compatibility: preview, then set; the registry holds the subject's own level.
  await page.getByRole('button', { name: 'Change compatibility', exact: true }).click();
  const level = page.getByRole('form', { name: 'Change compatibility' });
  await level.getByLabel('Compatibility').selectOption('FULL_TRANSITIVE');
  await level.getByRole('button', { name: 'Preview' }).click();
  await expect(level.getByRole('status')).toContainText("the registry's global level) to FULL_TRANSITIVE.");
  await level.getByRole('button', { name: 'Set compatibility' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Compatibility is FULL_TRANSITIVE now.' })).toBeVisible();
  expect((await registry(page.request, `config/${subject}`)).body.compatibilityLevel).toBe('FULL_TRANSITIVE');
  await expect(page.locator('[data-figure="compatibility"]')).toContainText("the subject's own level");

  // Delete version 1: soft first, then permanently with the subject's name typed.
  await page.getByRole('button', { name: 'Delete this version (1)' }).click();
  const soft = page.getByRole('group', { name: 'Delete this version (1)' });
  await expect(soft).toContainText('Soft-deletes version 1');
  await soft.getByRole('button', { name: 'Delete this version' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Soft-deleted version 1' })).toBeVisible();
  expect((await registry(page.request, `subjects/${subject}/versions`)).body).toEqual([2]);
  expect((await registry(page.request, `subjects/${subject}/versions?deleted=true`)).body).toEqual([1, 2]);
  const held = page.getByRole('region', { name: 'Soft-deleted versions' });
  await held.getByRole('button', { name: 'Delete version 1 permanently' }).click();
  const hard = page.getByRole('group', { name: 'Delete version 1 permanently' });
  const go = hard.getByRole('button', { name: 'Delete version 1 permanently' });
  await expect(go).toBeDisabled();
  await hard.getByLabel('Subject name').fill(subject);
  await go.click();
  await expect(page.getByRole('status').filter({ hasText: /^Deleted version 1 of .* permanently\.$/ })).toBeVisible();
  expect((await registry(page.request, `subjects/${subject}/versions?deleted=true`)).body).toEqual([2]);
  await expect(page.getByRole('region', { name: 'Soft-deleted versions' })).toHaveCount(0);
  expect(problems).toEqual([]);
});

test('register a schema for a new subject on the Schemas page', async ({ page }) => {
  const subject = unique('e2e-new-subject');
  const problems = await openHydrated(page, '/c/local/schemas');
  await page.getByRole('button', { name: 'Register schema', exact: true }).click();
  const form = page.getByRole('form', { name: 'Register schema' });
  await form.getByLabel('Subject', { exact: true }).fill(subject);
  await form.getByLabel('Type').selectOption('JSON');
  await form.getByLabel('Schema', { exact: true }).fill('{"type":"object","properties":{"id":{"type":"string"}}}');
  await form.getByRole('button', { name: 'Preview' }).click();
  await expect(form.locator('[data-figure="verdict"]')).toContainText('no version yet');
  await expect(form).toContainText('names no topic of this cluster');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`schemas-register-${scheme}.png`) });
  }
  await form.getByRole('button', { name: 'Register', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: `Registered version 1 of ${subject}` })).toBeVisible();
  const held = await registry(page.request, `subjects/${subject}/versions/1`);
  expect(held.status).toBe(200);
  expect(held.body.schemaType).toBe('JSON');

  // A schema that does not parse is refused with where, and nothing is registered.
  const other = unique('e2e-bad-subject');
  await page.getByRole('button', { name: 'Register schema', exact: true }).click();
  await form.getByLabel('Subject', { exact: true }).fill(other);
  await form.getByLabel('Type').selectOption('AVRO');
  await form.getByLabel('Schema', { exact: true }).fill('{"type": "record",\n "name" "R"}');
  await form.getByRole('button', { name: 'Preview' }).click();
  await expect(form.getByRole('alert')).toContainText('line 2');
  expect((await registry(page.request, `subjects/${other}/versions`)).status).toBe(404);
  // The refusal itself is the one failed request the browser reports.
  expect(problems.filter((p) => !p.includes('status of 400'))).toEqual([]);
});

test('screenshots of the subject page with its changes open, dark', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await openHydrated(page, '/c/local/schemas/payments-avro-value');
  await page.getByRole('button', { name: 'Register a new version', exact: true }).click();
  const form = page.getByRole('form', { name: 'Register a new version' });
  await expect(form.getByLabel('Schema', { exact: true })).toHaveValue(/note/);
  await form.getByRole('button', { name: 'Preview' }).click();
  await expect(form.locator('[data-figure="verdict"]')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('subject-register-dark.png'), fullPage: true });
});
