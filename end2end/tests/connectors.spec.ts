import { test, expect, type Page } from '@playwright/test';
import { openHydrated } from './helpers';
import { unique } from './authz-matrix';

// The Connectors pages against dev/stack's Connect worker: dev/seed's FileStream source and sink
// on connect-lines, and a sink made here through Connect's own REST API that fails for real
// (its file cannot be created) and carries a password in its config. Connect's status is the
// independent word on each state.

const CONNECT = 'http://127.0.0.1:18083';

async function connectStatus(page: Page, name: string): Promise<any> {
  return (await page.request.get(`${CONNECT}/connectors/${name}/status`)).json();
}

/** Reloads until `row` shows (klens reads Connect every ten seconds). */
async function reloadUntilVisible(page: Page, row: ReturnType<Page['locator']>) {
  for (let i = 0; i < 30 && !(await row.isVisible()); i++) {
    await page.waitForTimeout(1000);
    await page.reload();
  }
  await expect(row).toBeVisible();
}

test('connectors are listed with their states and a failed task says why, secrets masked', async ({ page }) => {
  test.setTimeout(120_000);
  const failing = unique('e2e-failing-sink');
  const made = await page.request.put(`${CONNECT}/connectors/${failing}/config`, {
    data: {
      'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector',
      'tasks.max': '1',
      file: '/proc/forbidden/x',
      topics: 'connect-lines',
      'connection.password': 'e2e-hunter2',
    },
  });
  expect(made.ok()).toBe(true);
  await expect.poll(async () => (await connectStatus(page, failing)).tasks?.[0]?.state, { timeout: 30_000 }).toBe('FAILED');

  const problems = await openHydrated(page, '/c/local/connectors');
  const table = page.getByRole('table', { name: 'Connectors' });
  const row = table.locator(`tr[data-connector="${failing}"]`);
  await reloadUntilVisible(page, row);
  await expect(row).toContainText('NoSuchFileException');
  await expect(row).toContainText('1 failed');
  for (const name of ['demo-lines-source', 'demo-lines-sink']) {
    const seeded = table.locator(`tr[data-connector="${name}"]`);
    await expect(seeded).toContainText((await connectStatus(page, name)).connector.state);
  }
  // Filtering by state keeps only what has a task or connector in it.
  await page.getByRole('combobox', { name: 'State' }).selectOption('FAILED');
  await expect(row).toBeVisible();
  await expect(table.locator('tr[data-connector="demo-lines-source"]')).toHaveCount(0);
  await page.getByRole('combobox', { name: 'State' }).selectOption('');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`connectors-${scheme}.png`), fullPage: true });
  }

  await row.getByRole('link', { name: failing }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText(failing);
  const tasks = page.getByRole('table', { name: 'Tasks' });
  await expect(tasks.locator('tr[data-task="0"]')).toContainText('FAILED');
  await tasks.getByText('Whole trace').click();
  await expect(tasks.locator('pre.trace')).toContainText('Caused by: java.nio.file.NoSuchFileException');
  const password = page.locator('tr[data-config="connection.password"]');
  await expect(password).toContainText('********');
  await expect(password).toContainText('masked');
  expect(await page.content()).not.toContain('e2e-hunter2');
  await expect(page.getByRole('link', { name: `connect-${failing}` })).toHaveAttribute('href', `/c/local/groups/connect-${failing}`);
  await expect(page.getByRole('link', { name: 'connect-lines' }).first()).toHaveAttribute('href', '/c/local/topics/connect-lines');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`connector-${scheme}.png`), fullPage: true });
  }
  // The failed task restarted from its page: Connect restarts it (and it fails again).
  await page.getByRole('button', { name: 'Restart failed tasks', exact: true }).click();
  await expect(page.getByRole('status')).toContainText(`${failing}: restart sent`);
  expect(problems).toEqual([]);
  await page.request.delete(`${CONNECT}/connectors/${failing}`);
});

test('create a connector after Connect validates it, then delete it by typing its name', async ({ page }) => {
  test.setTimeout(90_000);
  const name = unique('e2e-created-sink');
  const problems = await openHydrated(page, '/c/local/connectors');
  await page.getByRole('button', { name: 'Create connector', exact: true }).click();
  const sheet = page.getByRole('dialog', { name: 'Create connector' });
  // The plugins offered are those the operator allows (dev/demo-config: the stack's dev
  // connectors); FileStream and MirrorMaker are never among them.
  const plugins = sheet.getByRole('combobox', { name: 'Plugin' });
  await expect(plugins.locator('option', { hasText: 'FileStream' })).toHaveCount(0);
  await expect(plugins.locator('option', { hasText: 'Mirror' })).toHaveCount(0);
  await plugins.selectOption('dev.klens.connect.DiscardSinkConnector');
  await sheet.getByLabel('Name').fill(name);
  const config = sheet.getByRole('textbox', { name: /^Config/ });
  await expect(config).toHaveValue(/connector.class=dev.klens.connect.DiscardSinkConnector/);
  await config.fill(`connector.class=dev.klens.connect.DiscardSinkConnector\ntasks.max=many\ntopics=connect-lines\n`);
  await sheet.getByRole('button', { name: 'Validate' }).click();
  // Each key in error is a field of its own with Connect's words beside it.
  const field = sheet.locator('label[data-key="tasks.max"]');
  await expect(field.locator('.error-text')).toContainText(/tasks.max|integer|number/i);
  await expect(field.getByRole('textbox')).toHaveValue('many');
  await expect(sheet.getByRole('button', { name: 'Create', exact: true })).toBeDisabled();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await sheet.screenshot({ path: test.info().outputPath(`connector-create-${scheme}.png`) });
  }
  // Mended in its field: the config's own line changes with it.
  await field.getByRole('textbox').fill('1');
  await field.getByRole('textbox').press('Tab');
  await expect(config).toHaveValue(/\ntasks.max=1\n/);
  await sheet.getByRole('button', { name: 'Validate' }).click();
  await expect(sheet.locator('[data-figure="validation"]')).toHaveText('Connect finds no error in this config.');
  await expect.poll(async () => (await page.request.get(`${CONNECT}/connectors/${name}`)).status()).toBe(404);
  await sheet.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page.getByRole('status')).toContainText(`Created connector ${name}.`);
  expect((await (await page.request.get(`${CONNECT}/connectors/${name}/config`)).json()).topics).toBe('connect-lines');

  await page.goto(`/c/local/connectors/dev-connect/${name}`);
  await page.getByRole('button', { name: 'Delete connector', exact: true }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete connector' });
  await confirm.getByLabel('Connector name').fill(name);
  await confirm.getByRole('button', { name: 'Delete connector' }).click();
  await expect(page).toHaveURL(/\/c\/local\/connectors$/);
  await expect.poll(async () => (await page.request.get(`${CONNECT}/connectors/${name}`)).status()).toBe(404);
  expect(problems).toEqual([]);
});

test('a connector that does not exist says so on its page', async ({ page }) => {
  const problems = await openHydrated(page, '/c/local/connectors/dev-connect/e2e-no-such-connector');
  await expect(page.getByRole('alert')).toContainText('There is no connector "e2e-no-such-connector"');
  // The Connectors link is where a Connect cluster is configured (local), not elsewhere.
  const nav = page.getByRole('navigation', { name: 'Clusters' });
  await expect(nav.locator('a[href="/c/local/connectors"]')).toHaveCount(1);
  await expect(nav.locator('a[href="/c/local-ro/connectors"]')).toHaveCount(0);
  await expect(nav.locator('a[href="/c/local-ro/topics"]')).toHaveCount(1);
  expect(problems).toEqual([]);
});

test('a topic and a sink group link to their connectors', async ({ page }) => {
  const problems = await openHydrated(page, '/c/local/topics/connect-lines');
  const linked = page.locator('[data-figure="connectors"]');
  await expect(linked.getByRole('link', { name: 'demo-lines-sink' })).toHaveAttribute('href', '/c/local/connectors/dev-connect/demo-lines-sink');
  await expect(linked.getByRole('link', { name: 'demo-lines-source' })).toHaveAttribute('href', '/c/local/connectors/dev-connect/demo-lines-source');
  await page.goto('/c/local/groups/connect-demo-lines-sink');
  await expect(page.getByRole('link', { name: 'demo-lines-sink' })).toHaveAttribute('href', '/c/local/connectors/dev-connect/demo-lines-sink');
  expect(problems).toEqual([]);
});

test("a sink's offsets shown, previewed and removed once it is stopped", async ({ page }) => {
  test.setTimeout(120_000);
  const name = unique('e2e-offsets-sink');
  const made = await page.request.put(`${CONNECT}/connectors/${name}/config`, {
    data: {
      'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector',
      'tasks.max': '1',
      file: `/tmp/${name}.txt`,
      topics: 'connect-lines',
    },
  });
  expect(made.ok()).toBe(true);
  // Connect's own word on the offsets; null while it cannot answer (a rebalance).
  const offsets = async () => {
    const res = await page.request.get(`${CONNECT}/connectors/${name}/offsets`);
    return res.ok() ? (await res.json()).offsets : null;
  };
  await expect.poll(async () => (await offsets())?.[0]?.offset?.kafka_offset ?? 0, { timeout: 30_000 }).toBeGreaterThan(0);
  const held = (await offsets())[0].offset.kafka_offset;

  const problems = await openHydrated(page, `/c/local/connectors/dev-connect/${name}`);
  // Its page answers once klens's catalog has read the new connector (every ten seconds).
  const table = page.getByRole('table', { name: 'Offsets', exact: true });
  await reloadUntilVisible(page, table);
  await expect(table).toContainText('connect-lines · partition 0');
  await expect(table).toContainText(String(held));

  // Running: the preview shows the plan and says to stop it first; Apply stays off.
  await page.getByRole('button', { name: 'Reset offsets', exact: true }).click();
  let sheet = page.getByRole('dialog', { name: 'Reset offsets' });
  await sheet.getByRole('button', { name: 'Preview' }).click();
  await expect(sheet.locator('[data-figure="not-stopped"]')).toContainText('stop it before applying');
  await expect(sheet.getByRole('button', { name: 'Apply' })).toBeDisabled();
  await sheet.getByRole('button', { name: 'Cancel' }).click();

  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await expect.poll(async () => (await connectStatus(page, name)).connector?.state, { timeout: 30_000 }).toBe('STOPPED');
  await expect(page.getByRole('status')).toContainText('stop sent');
  // The page reads the connector again after the stop; the sheet opens on that page.
  await page.waitForLoadState('networkidle');
  await page.getByRole('button', { name: 'Reset offsets', exact: true }).click();
  sheet = page.getByRole('dialog', { name: 'Reset offsets' });
  await expect(sheet.getByRole('table', { name: 'Offsets before' })).toHaveCount(0);
  await sheet.getByRole('button', { name: 'Preview' }).click();
  await expect(sheet.getByRole('button', { name: 'Apply' })).toBeEnabled();
  await expect(sheet.getByRole('table', { name: 'Offsets before' })).toContainText(String(held));
  await expect(sheet.getByText('No offsets.')).toBeVisible();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await sheet.screenshot({ path: test.info().outputPath(`connector-offsets-${scheme}.png`) });
  }
  await sheet.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByRole('status')).toContainText(`Changed the offsets of connector ${name}.`);
  await expect.poll(offsets).toEqual([]);
  expect(problems).toEqual([]);
  await page.request.delete(`${CONNECT}/connectors/${name}`);
});

test('a config that reaches past what klens decides is refused in the sheet with its key named', async ({ page }) => {
  test.setTimeout(90_000);
  const name = unique('e2e-side-door');
  const problems = await openHydrated(page, '/c/local/connectors');
  await page.getByRole('button', { name: 'Create connector', exact: true }).click();
  const sheet = page.getByRole('dialog', { name: 'Create connector' });
  await sheet.getByRole('combobox', { name: 'Plugin' }).selectOption('dev.klens.connect.DiscardSinkConnector');
  await sheet.getByLabel('Name').fill(name);
  const config = sheet.getByRole('textbox', { name: /^Config/ });
  // The worker's own Kafka login, through a client override no operator allowed.
  await config.fill('connector.class=dev.klens.connect.DiscardSinkConnector\ntopics=connect-lines\nconsumer.override.sasl.jaas.config=x\n');
  await sheet.getByRole('button', { name: 'Validate' }).click();
  await expect(sheet).toContainText('consumer.override.sasl.jaas.config: overrides a setting of the worker');
  // The worker's files, by FileStream's short name typed into the config.
  await config.fill('connector.class=FileStreamSource\ntopic=connect-lines\nfile=/etc/hostname\n');
  await sheet.getByRole('button', { name: 'Validate' }).click();
  await expect(sheet).toContainText('connector.class: FileStreamSource is a FileStream connector');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await sheet.screenshot({ path: test.info().outputPath(`connector-refused-${scheme}.png`) });
  }
  await expect(sheet.getByRole('button', { name: 'Create', exact: true })).toBeDisabled();
  // Connect's own REST API: no such connector.
  expect((await page.request.get(`${CONNECT}/connectors/${name}`)).status()).toBe(404);
  // The browser logs each refused validation (400), nothing else.
  const refused = 'console: Failed to load resource: the server responded with a status of 400 (Bad Request)';
  expect(problems).toEqual([refused, refused]);
});
