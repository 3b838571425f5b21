import { test, expect } from '@playwright/test';
import { openHydrated } from './helpers';

// The Flow page against dev/seed's connect-lines: the FileStream source writes it, the sink reads
// it and commits under its own group. Connect's REST API is the independent word on the topics
// each connector uses; the page draws what the server laid out, each node a link.

const CONNECT = 'http://127.0.0.1:18083';
const SOURCE = '/c/local/connectors/dev-connect/demo-lines-source';
const SINK = '/c/local/connectors/dev-connect/demo-lines-sink';
const TOPIC = '/c/local/topics/connect-lines';

test('the flow around a topic draws its writer left of it and its readers right of it, each a link', async ({ page }) => {
  for (const name of ['demo-lines-source', 'demo-lines-sink']) {
    const said = await (await page.request.get(`${CONNECT}/connectors/${name}/topics`)).json();
    expect(said[name].topics).toContain('connect-lines');
  }
  const problems = await openHydrated(page, TOPIC);
  await page.locator('.page-head').getByRole('link', { name: 'Flow' }).click();
  await expect(page).toHaveURL(/\/c\/local\/flow\?kind=topic&name=connect-lines&hops=1$/);
  const drawing = page.locator('.flow-box svg');
  const node = (href: string) => drawing.locator(`a[href="${href}"]`);
  await expect(node(SOURCE)).toHaveCount(1);
  await expect(node(SINK)).toHaveCount(1);
  await expect(node(TOPIC)).toHaveClass(/flow-focus/);
  const x = async (href: string) => Number(await node(href).locator('rect').getAttribute('x'));
  expect(await x(SOURCE)).toBeLessThan(await x(TOPIC));
  expect(await x(TOPIC)).toBeLessThan(await x(SINK));
  await expect(page.locator('.flow-coverage')).toContainText(/Producers known for \d+ of \d+ topics? drawn/);

  // Two steps reach the group the sink commits under.
  await page.getByRole('group', { name: 'Steps up and down' }).getByRole('link', { name: '2', exact: true }).click();
  await expect(page).toHaveURL(/hops=2$/);
  await expect(node('/c/local/groups/connect-demo-lines-sink')).toHaveCount(1);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`flow-${scheme}.png`), fullPage: true });
  }

  // Keyboard: from the filter's Draw button, Tab reaches a node of the drawing, and Enter
  // opens its page.
  await page.getByRole('button', { name: 'Draw' }).focus();
  await page.keyboard.press('Tab');
  const focused = await page.evaluate(() => document.activeElement?.closest('svg') ? document.activeElement.getAttribute('href') : null);
  expect(focused).toMatch(/^\/c\/local\//);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`${focused!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  // Back to the flow: the router cannot draw it, so the page comes whole from the server again.
  await page.goBack();
  await expect(page).toHaveURL(/hops=2$/);
  await expect(node(SINK)).toHaveCount(1);
  expect(problems).toEqual([]);
});

test('a flow the caller may not draw says why, in the page', async ({ page }) => {
  const problems = await openHydrated(page, '/c/local/flow?kind=topic&name=connect-lines&hops=9');
  await expect(page.getByRole('alert')).toContainText('hops is from 1 to 5');
  const more = await openHydrated(page, '/c/local/flow?kind=group&name=no-such-group');
  await expect(page.getByRole('alert')).toContainText('There is no group "no-such-group"');
  expect([...problems, ...more]).toEqual([]);
});

test('the flow of a replication joins the clusters it copies between', async ({ page }) => {
  test.setTimeout(120_000);
  // dev/seed's demo-eu copies remote's eu-invoices into local as remote.eu-invoices; klens reads
  // Connect every few seconds, so the page is read again until the replication is there.
  const path = '/c/local/flow?kind=replication&name=demo-eu&hops=1';
  const problems = await openHydrated(page, path);
  const drawing = page.locator('.flow-box svg');
  const copy = drawing.locator('a[href="/c/local/topics/remote.eu-invoices"]');
  for (let i = 0; i < 90 && (await copy.count()) === 0; i++) {
    await page.waitForTimeout(1000);
    await page.reload();
  }
  await expect(drawing.locator('a[href="/c/remote/topics/eu-invoices"]')).toHaveCount(1);
  await expect(copy).toHaveCount(1);
  await expect(drawing.locator('a[href="/c/local/replications/demo-eu"]')).toHaveClass(/flow-focus/);
  await expect(drawing.locator('a[href="/c/remote/topics/eu-invoices"]')).toContainText('topic on remote');
  expect(problems).toEqual([]);
});

test('the flow of orders runs through the demo processor into big-orders, and the processor page links to it', async ({ page }) => {
  // end2end/run has the open instance create dev/demo-processor's big-orders; Flink's REST API
  // says it runs.
  const jobs = (await (await page.request.get('http://127.0.0.1:18086/jobs/overview')).json()).jobs;
  expect(jobs.some((j: { name: string; state: string }) => j.name === 'klens-processor-big-orders' && j.state === 'RUNNING')).toBe(true);
  const problems = await openHydrated(page, '/c/local/processors/big-orders');
  await page.locator('.page-head').getByRole('link', { name: 'Flow' }).click();
  await expect(page).toHaveURL(/\/c\/local\/flow\?kind=processor&name=big-orders&hops=1$/);
  const drawing = page.locator('.flow-box svg');
  const node = (href: string) => drawing.locator(`a[href="${href}"]`);
  const processor = '/c/local/processors/big-orders';
  await expect(node(processor)).toHaveClass(/flow-focus/);
  const x = async (href: string) => Number(await node(href).locator('rect').getAttribute('x'));
  // orders → big-orders (the processor) → big-orders (the topic), left to right.
  expect(await x('/c/local/topics/orders')).toBeLessThan(await x(processor));
  expect(await x(processor)).toBeLessThan(await x('/c/local/topics/big-orders'));
  await expect(node('/c/local/groups/klens-processor-big-orders')).toHaveCount(1);
  // The same from the topic's side, two steps out.
  await page.goto('/c/local/flow?kind=topic&name=orders&hops=2');
  await expect(node(processor)).toHaveCount(1);
  await expect(node('/c/local/topics/big-orders')).toHaveCount(1);
  // dev/seed writes orders with an idempotent producer: Kafka keeps its state, so it is drawn
  // left of orders, its edge dashed (inferred), its link the flow around it.
  const producers = drawing.locator('a.flow-producer');
  await expect(producers.first()).toBeVisible();
  const writer = await producers.first().getAttribute('href');
  expect(writer).toMatch(/^\/c\/local\/flow\?kind=producer&name=\d+&hops=1$/);
  expect(Number(await producers.first().locator('rect').getAttribute('x'))).toBeLessThan(await x('/c/local/topics/orders'));
  // (A level curve has no height, which Playwright takes for hidden: counted instead.)
  expect(await drawing.locator('path.flow-inferred').count()).toBeGreaterThan(0);
  // dev/seed's demo-archive-sink reads orders into a file: orders → the sink → its group.
  const archive = '/c/local/connectors/dev-connect/demo-archive-sink';
  expect(await x('/c/local/topics/orders')).toBeLessThan(await x(archive));
  await expect(node('/c/local/groups/connect-demo-archive-sink')).toHaveCount(1);
  // The processor's group has no members (Flink assigns itself its partitions) and nothing
  // left to read, but it is the running job's: not removable from the flow.
  await expect(drawing.locator('a.flow-remove')).toHaveCount(0);
  await page.setViewportSize({ width: 1440, height: 900 });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`flow-orders-${scheme}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 390, height: 844 });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`flow-orders-phone-${scheme}.png`), fullPage: true });
  }
  expect(problems).toEqual([]);
});

test('the whole cluster is drawn through a filter, from the cluster page', async ({ page }) => {
  const problems = await openHydrated(page, '/c/local');
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Flow' }).click();
  await expect(page).toHaveURL(/\/c\/local\/flow\?kind=cluster$/);
  await expect(page.locator('.flow-box')).toHaveCount(0);
  await page.getByLabel('Whole cluster, names holding').fill('orders');
  await page.getByRole('button', { name: 'Draw' }).click();
  await expect(page).toHaveURL(/kind=cluster&hops=1&name=orders$/);
  const drawing = page.locator('.flow-box svg');
  // Every node holding the filter, and what each reads and writes: none is the focus.
  for (const href of ['/c/local/topics/orders', '/c/local/topics/big-orders', '/c/local/processors/big-orders']) {
    await expect(drawing.locator(`a[href="${href}"]`)).toHaveCount(1);
  }
  await expect(drawing.locator('a[href="/c/local/groups/billing-service"]')).toHaveCount(1);
  await expect(drawing.locator('.flow-focus')).toHaveCount(0);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`flow-cluster-${scheme}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: test.info().outputPath('flow-cluster-phone.png'), fullPage: true });
  // A filter nothing matches says so.
  await page.goto('/c/local/flow?kind=cluster&name=no-such-name-anywhere');
  await expect(page.getByRole('alert')).toContainText('has "no-such-name-anywhere" in its name');
  expect(problems).toEqual([]);
});

test('a dead group is removable from its node: the link opens its Delete sheet', async ({ page }) => {
  // dev/seed's payments-processor has committed every record of payments-avro and has no
  // members: nothing left to read.
  const problems = await openHydrated(page, '/c/local/flow?kind=topic&name=payments-avro&hops=1');
  const remove = page.locator('.flow-box svg a.flow-remove');
  await expect(remove).toHaveCount(1);
  await expect(remove).toHaveAttribute('href', '/c/local/groups/payments-processor?delete');
  await remove.click();
  await expect(page).toHaveURL(/\/c\/local\/groups\/payments-processor\?delete$/);
  const sheet = page.getByRole('dialog', { name: 'Delete group' });
  await expect(sheet).toBeVisible();
  await expect(sheet.getByRole('button', { name: 'Delete group' })).toBeDisabled();
  // Left as it is: the seed's group stays.
  await sheet.getByRole('button', { name: 'Cancel' }).click();
  await expect(sheet).toHaveCount(0);
  expect(problems).toEqual([]);
});
