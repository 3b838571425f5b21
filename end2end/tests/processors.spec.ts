import { test, expect, type Page } from '@playwright/test';
import { openHydrated, runDevPython } from './helpers';
import { unique } from './authz-matrix';

// The SQL processors pages against dev/stack's Kafka and Flink: a processor written in the page's
// editor (a topic's columns, a preview, then create), its output read by confluent-kafka, its job
// watched through Flink's own REST API while the processor page stops, resumes, scales,
// resumes after Flink lost its job, and deletes it.

const FLINK = 'http://127.0.0.1:18086';

/** Two topics on local: `input` with `count` JSON orders (`total` = 100 × id), `output` empty. */
function topics(input: string, output: string, count: number) {
  runDevPython(`
import json, sys
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
input, output, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
admin = AdminClient({"bootstrap.servers": "127.0.0.1:19092"})
for f in admin.create_topics([NewTopic(input, 1, 1), NewTopic(output, 1, 1)]).values():
    f.result(timeout=30)
p = Producer({"bootstrap.servers": "127.0.0.1:19092"})
for i in range(count):
    p.produce(input, key=f"k{i}".encode(), value=json.dumps({"id": i, "total": i * 100, "city": f"city-{i % 3}"}).encode())
p.flush(30)
`, [input, output, String(count)]);
}

/** The values of `topic` a consumer of its own reads in a few seconds, as JSON. */
function values(topic: string): Record<string, unknown>[] {
  const out = runDevPython(`
import json, sys, time, uuid
from confluent_kafka import Consumer
c = Consumer({"bootstrap.servers": "127.0.0.1:19092", "group.id": "e2e-reader-" + uuid.uuid4().hex,
              "auto.offset.reset": "earliest", "enable.auto.commit": False})
c.subscribe([sys.argv[1]])
seen, until = [], time.time() + 6
while time.time() < until:
    m = c.poll(0.2)
    if m is not None and m.error() is None:
        seen.append(json.loads(m.value()))
c.close()
print(json.dumps(seen))
`, [topic]);
  return JSON.parse(out);
}

/** The `doubled` of each value of the processor's output, in order of size. */
function doubled(topic: string): number[] {
  return values(topic).map((v) => Number(v.doubled)).sort((a, b) => a - b);
}

/** Flink's jobs named after the processor, newest first: id, state and the parallelism of each. */
async function jobs(page: Page, name: string): Promise<{ id: string; state: string; parallelism: number }[]> {
  const overview = await (await page.request.get(`${FLINK}/jobs/overview`)).json();
  const mine = overview.jobs
    .filter((j: { name: string }) => j.name === `klens-processor-${name}`)
    .sort((a: { 'start-time': number }, b: { 'start-time': number }) => b['start-time'] - a['start-time']);
  const out = [];
  for (const j of mine) {
    const detail = await (await page.request.get(`${FLINK}/jobs/${j.jid}`)).json();
    const parallelism = Math.max(...detail.vertices.map((v: { parallelism: number }) => v.parallelism));
    out.push({ id: j.jid, state: j.state, parallelism });
  }
  return out;
}

async function newestJob(page: Page, name: string, state: string, parallelism = 1) {
  await expect
    .poll(async () => {
      const [job] = await jobs(page, name);
      return job ? `${job.state} ×${job.parallelism}` : 'none';
    }, { timeout: 60_000 })
    .toBe(`${state} ×${parallelism}`);
}

/** Waits until klens's catalog lists a topic just made (it reads the cluster every few seconds). */
async function listed(page: Page, topic: string) {
  await expect
    .poll(async () => (await page.request.get(`/api/topic?cluster=local&topic=${topic}`)).status(), { timeout: 30_000 })
    .toBe(200);
}

async function shots(page: Page, name: string) {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`${name}-${scheme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

test('write a processor in the editor, see it run, then stop, resume, scale and delete it', async ({ page }) => {
  test.setTimeout(240_000);
  const name = unique('e2e-proc');
  const input = `${name}-in`;
  const output = `${name}-out`;
  topics(input, output, 6);
  await listed(page, input);
  await listed(page, output);

  const problems = await openHydrated(page, '/c/local/processors');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('SQL processors');
  // Offered where the cluster has a Flink, not on the read-only cluster that has none.
  const nav = page.getByRole('navigation', { name: 'Clusters' });
  await expect(nav.locator('a[href="/c/local/processors"]')).toHaveCount(1);
  await expect(nav.locator('a[href="/c/local-ro/processors"]')).toHaveCount(0);

  await page.getByRole('button', { name: 'New processor' }).click();
  const sheet = page.getByRole('dialog', { name: 'New processor' });
  await sheet.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
  // The columns of a topic, as a statement would read it.
  await sheet.getByLabel('Columns of topic').fill(input);
  await sheet.getByRole('button', { name: 'Show columns' }).click();
  const columns = sheet.locator(`ul[data-columns="${input}"]`);
  await expect(columns).toContainText('total BIGINT');
  await expect(columns).toContainText('city STRING');
  await expect(columns).toContainText('kafka_key BYTES');
  await sheet.getByLabel(/^Statement/).fill(`INSERT INTO \`${output}\`\nSELECT id, total * 2 AS doubled\nFROM \`${input}\` WHERE total >= 300`);
  // Create is offered only after a preview of this very statement.
  await expect(sheet.getByRole('button', { name: 'Create', exact: true })).toBeDisabled();
  await sheet.getByRole('button', { name: 'Preview' }).click();
  await expect(sheet.locator('[data-figure="preview"]')).toContainText(`Reads ${input}; writes ${output}. 3 rows`, { timeout: 60_000 });
  await expect(sheet.getByRole('table', { name: 'Preview rows' }).locator('tbody tr')).toHaveCount(3);
  // Drawn with its rows, not squeezed to nothing by the sheet's other contents.
  const rowsBox = sheet.locator('.table-box').filter({ has: page.getByRole('table', { name: 'Preview rows' }) });
  expect(await rowsBox.evaluate((e) => e.getBoundingClientRect().height)).toBeGreaterThan(60);
  await expect(sheet.getByRole('table', { name: 'Preview rows' })).toContainText('1000');
  // The input's columns as the processor will declare them, confirmed before Create.
  await expect(sheet.locator(`ul[data-columns="${input}"]`).last()).toContainText('total BIGINT');
  await expect(sheet.getByRole('button', { name: 'Create', exact: true })).toBeDisabled();
  await sheet.getByLabel('These columns are right').check();
  // A preview runs nothing on and writes nothing.
  expect((await jobs(page, name)).filter((j) => j.state === 'RUNNING')).toEqual([]);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await sheet.screenshot({ path: test.info().outputPath(`processor-new-${scheme}.png`) });
  }
  await sheet.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page.getByRole('status')).toContainText(`Created processor ${name}; Flink runs it as job`, { timeout: 60_000 });
  await newestJob(page, name, 'RUNNING');

  // Its output, read by a consumer of its own.
  await expect.poll(() => doubled(output), { timeout: 60_000 }).toEqual([600, 800, 1000]);

  const row = page.getByRole('table', { name: 'SQL processors' }).locator(`tr[data-processor="${name}"]`);
  await expect(row.locator('[data-figure="state"]')).toHaveText('RUNNING');
  await expect(row).toContainText(input);
  await expect(row).toContainText(output);
  await shots(page, 'processors');

  await row.locator('th a').click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText(name);
  await expect(page.locator('pre.sql .sql-kw').first()).toHaveText('INSERT');
  await expect(page.locator('dl.facts')).toContainText(`klens-processor-${name}`);
  // Its throughput by Flink's meters (read a few seconds after the job starts).
  await expect
    .poll(async () => {
      await page.reload();
      return page.locator('dl.facts [data-figure="throughput"]').textContent();
    }, { timeout: 30_000 })
    .toMatch(/rec\/s in · .* rec\/s out/);
  await shots(page, 'processor');

  // Stop: Flink ends the job with a savepoint, which the page then names.
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await expect(page.getByRole('status')).toContainText(`Stopped ${name}; its state is in`, { timeout: 60_000 });
  await newestJob(page, name, 'FINISHED');
  // The page read again: Stop is no longer offered, Resume is.
  await expect(page.getByRole('button', { name: 'Stop', exact: true })).toBeDisabled();
  await expect(page.locator('[data-figure="savepoint"]')).not.toHaveText('—');
  // Resume from it: a new job.
  await page.getByRole('button', { name: 'Resume', exact: true }).click();
  await expect(page.getByRole('status')).toContainText(`${name}: resume done; Flink runs it as job`, { timeout: 60_000 });
  await newestJob(page, name, 'RUNNING');
  // Once the page has read it again (a sheet opened before that would be drawn anew).
  await expect(page.getByRole('button', { name: 'Resume', exact: true })).toBeDisabled();
  // Scale to two.
  await page.getByRole('button', { name: 'Scale', exact: true }).click();
  const scale = page.getByRole('dialog', { name: 'Scale processor' });
  await scale.getByLabel('Parallelism').fill('2');
  await scale.getByRole('button', { name: 'Scale', exact: true }).click();
  await expect(page.getByRole('status')).toContainText(`${name}: scale done`, { timeout: 60_000 });
  await newestJob(page, name, 'RUNNING', 2);
  await expect(page.locator('[data-figure="parallelism"]')).toHaveText('2');
  // Nothing was lost or doubled on the way.
  expect(doubled(output)).toEqual([600, 800, 1000]);
  // Its job cancelled behind klens's back, as a Flink restart loses it: the page says so and
  // offers Resume, which starts a job again.
  await expect(page.locator('[data-figure="processor-lost"]')).toHaveCount(0);
  const [running] = await jobs(page, name);
  expect((await page.request.patch(`${FLINK}/jobs/${running.id}?mode=cancel`)).ok()).toBe(true);
  await newestJob(page, name, 'CANCELED', 2);
  // Flink's page of one job may lag its overview by a few seconds (its cache of the job).
  await expect
    .poll(async () => {
      await page.reload();
      return page.locator('[data-figure="processor-lost"]').count();
    }, { timeout: 30_000 })
    .toBe(1);
  await expect(page.locator('[data-figure="processor-lost"]')).toContainText('Flink runs no job for it');
  await shots(page, 'processor-lost');
  await expect(page.getByRole('button', { name: 'Stop', exact: true })).toBeEnabled();
  await page.getByRole('button', { name: 'Resume', exact: true }).click();
  await expect(page.getByRole('status')).toContainText(`${name}: resume done; Flink runs it as job`, { timeout: 60_000 });
  await newestJob(page, name, 'RUNNING', 2);
  await expect(page.locator('[data-figure="processor-lost"]')).toHaveCount(0);

  // Delete, once its name is typed: Flink cancels the job and the list no longer has it.
  await page.getByRole('button', { name: 'Delete processor' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete processor' });
  await confirm.getByLabel('Processor name').fill(name);
  await confirm.getByRole('button', { name: 'Delete processor' }).click();
  await expect(page).toHaveURL('/c/local/processors');
  await newestJob(page, name, 'CANCELED', 2);
  await expect(page.locator(`tr[data-processor="${name}"]`)).toHaveCount(0);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: test.info().outputPath('processors-phone.png'), fullPage: true });
  expect(problems).toEqual([]);
});

test('a statement Flink refuses says where, and nothing runs', async ({ page }) => {
  const name = unique('e2e-proc-bad');
  const input = `${name}-in`;
  topics(input, `${name}-out`, 1);
  await listed(page, input);
  await listed(page, `${name}-out`);
  const problems = await openHydrated(page, '/c/local/processors');
  await page.getByRole('button', { name: 'New processor' }).click();
  const sheet = page.getByRole('dialog', { name: 'New processor' });
  await sheet.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
  await sheet.getByLabel(/^Statement/).fill(`INSERT INTO \`${name}-out\` SELECT nope FROM \`${input}\``);
  await sheet.getByRole('button', { name: 'Preview' }).click();
  await expect(sheet.getByRole('alert')).toContainText('line 1, column', { timeout: 60_000 });
  await expect(sheet.getByRole('button', { name: 'Create', exact: true })).toBeDisabled();
  // Escape closes the sheet as Cancel does.
  await page.keyboard.press('Escape');
  await expect(sheet).toHaveCount(0);
  expect(await jobs(page, name)).toEqual([]);
  expect(problems).toEqual(['console: Failed to load resource: the server responded with a status of 400 (Bad Request)']);
});
