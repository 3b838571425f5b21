import * as fs from 'node:fs';
import * as path from 'node:path';
import { test, expect } from '@playwright/test';
import { unique } from './authz-matrix';
import { kafkaMetadata, signIn } from './helpers';

// The instance with sign-in keeps its audit file beside its config (end2end/run). alice holds
// AUDIT through the admin role; bob holds nothing.
const AUTH = process.env.KLENS_AUTH_URL ?? 'http://127.0.0.1:18090';
const FILE = path.resolve(__dirname, '..', '..', 'target', 'e2e', 'auth-audit.ndjson');

/** The lines of the audit file about `name`, read from disk (not through klens). */
function linesAbout(name: string): any[] {
  return fs
    .readFileSync(FILE, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line))
    .filter((e) => e.resource?.name === name);
}

/** Each attempt about `name` once: a change that reached Kafka is recorded as its attempt,
 * then its outcome under the same id, which takes the attempt's place here. */
function eventsAbout(name: string): any[] {
  const events: any[] = [];
  for (const e of linesAbout(name)) {
    const at = events.findIndex((a) => a.id === e.id && a.phase === 'attempt');
    if (e.phase === 'outcome' && at >= 0) events[at] = e;
    else events.push(e);
  }
  return events;
}

test('a change in the UI and a refused attempt by API are each one event, shown on the Audit page', async ({ browser }) => {
  const topic = unique('e2e-audited');

  // bob tries to create the topic through /api: refused, and recorded.
  const bob = await browser.newPage();
  await signIn(bob, AUTH, 'bob');
  const refused = await bob.request.post(`${AUTH}/api/create_topic`, { data: { cluster: 'local', topic, partitions: 1 } });
  expect(refused.status()).toBe(403);
  const denied = await bob.request.get(`${AUTH}/api/audit?cluster=local`);
  expect(denied.status()).toBe(403);
  expect(await denied.json()).toMatchObject({ code: 'MISSING_PRIVILEGE', privilege: 'AUDIT' });
  await bob.goto(`${AUTH}/c/local/audit`);
  await expect(bob.getByRole('note')).toContainText('AUDIT privilege');
  await expect(bob.locator('a[href="/c/local/audit"]')).toHaveCount(0);

  // alice creates it through the UI's form.
  const page = await browser.newPage();
  await signIn(page, AUTH, 'alice');
  await page.goto(`${AUTH}/c/local/topics`);
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
  await page.getByRole('button', { name: 'Create topic' }).click();
  const form = page.getByRole('dialog', { name: 'Create topic' });
  await form.getByLabel('Topic name').fill(topic);
  await form.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByRole('heading', { level: 1, name: topic })).toBeVisible();
  expect(kafkaMetadata().topics.map((t) => t.topic)).toContain(topic);

  // The file holds exactly those two attempts, with their fields.
  const events = eventsAbout(topic);
  expect(events.map((e) => [e.who.subject, e.door, e.privilege, e.decision, e.outcome.ok, e.outcome.code])).toEqual([
    ['bob', 'api', 'CREATE_TOPICS', 'refused', false, 'MISSING_PRIVILEGE'],
    ['alice', 'ui', 'CREATE_TOPICS', 'allowed', true, null],
  ]);
  expect(events[1].who.groups).toEqual(['kafka-admins']);
  // alice's change was on record before it reached Kafka: its attempt, then its outcome.
  expect(linesAbout(topic).filter((e) => e.id === events[1].id).map((e) => e.phase)).toEqual(['attempt', 'outcome']);

  // The Audit page shows them newest first, filtered by the resource.
  await page.getByRole('navigation', { name: 'Clusters' }).getByRole('link', { name: 'Audit log' }).first().click();
  await expect(page).toHaveURL(`${AUTH}/c/local/audit`);
  await page.getByLabel('Resource').fill(topic);
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page).toHaveURL(new RegExp(`resource=${topic}`));
  const rows = page.getByRole('table', { name: 'Audit events' }).locator('tbody tr');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText('Alice Admin');
  await expect(rows.nth(0)).toContainText('ui');
  await expect(rows.nth(0)).toContainText('done');
  await expect(rows.nth(1)).toContainText('Bob Viewer');
  await expect(rows.nth(1)).toContainText('MISSING_PRIVILEGE');
  await page.evaluate(() => window.scrollTo(0, 0));
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`audit-${scheme}.png`), fullPage: true });
  }

  // Filtering by user narrows it to bob's attempt.
  await page.goto(`${AUTH}/c/local/audit?resource=${topic}&user=bob`);
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('Bob Viewer');

  // Clean up through alice, whose deletion is recorded too.
  expect((await page.request.post(`${AUTH}/api/delete_topic`, { data: { cluster: 'local', topic } })).status()).toBe(200);
  expect(eventsAbout(topic).map((e) => e.privilege)).toEqual(['CREATE_TOPICS', 'CREATE_TOPICS', 'DELETE_TOPICS']);
});
