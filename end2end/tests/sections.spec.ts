import { test, expect, type Page } from '@playwright/test';

// The WASM comes in pieces: a shell every page loads, a piece per page outside it, and a piece
// per sheet fetched when the sheet is first opened (app/src/lazy.rs). Every section is opened
// by a deep link and by navigation, in both themes; the run fails on any console error, any
// piece or script that does not load, and a page whose own button does nothing once hydrated.
// The pages are dev/seed.py's, on the open instance (no sign-in, every privilege).

/** Collects what must not happen on a page: console errors, uncaught exceptions, and any
 * request under /pkg/ (the shell, the pieces, their scripts) that fails or is refused. */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('requestfailed', (req) => {
    if (req.url().includes('/pkg/')) problems.push(`failed: ${req.url()} (${req.failure()?.errorText})`);
  });
  page.on('response', (res) => {
    if (res.url().includes('/pkg/') && res.status() >= 400) problems.push(`${res.status()}: ${res.url()}`);
  });
  return problems;
}

/** The pieces of the WASM the page has fetched so far (the shell's and every piece's file). */
async function wasmFetched(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .map((e) => e.name)
      .filter((name) => name.endsWith('.wasm'))
      .map((name) => name.slice(name.lastIndexOf('/') + 1)),
  );
}

interface Section {
  path: string;
  /** The page's heading once it has loaded. */
  heading: string | RegExp;
  /** A button of the page's own that opens something: clicked after hydration, it must answer
   * with `opens` (a sheet from a piece of its own, for most). */
  button?: { name: string; opens: string };
}

const SECTIONS: Section[] = [
  { path: '/c/local/topics', heading: 'Topics', button: { name: 'Create topic', opens: 'Create topic' } },
  { path: '/c/local/topics/orders', heading: 'orders', button: { name: 'Produce record', opens: 'Produce record' } },
  { path: '/c/local/topics/orders/data', heading: 'orders', button: { name: 'Copy / redrive', opens: 'Copy or redrive records' } },
  { path: '/c/local/topics/orders/configuration', heading: 'orders' },
  { path: '/c/local/topics/orders/consumers', heading: 'orders' },
  { path: '/c/local/topics/orders/records/0/0', heading: /orders · partition 0 · offset 0/ },
  { path: '/c/local/groups', heading: 'Consumer groups' },
  { path: '/c/local/groups/billing-service', heading: 'billing-service' },
  { path: '/c/local/brokers', heading: 'Brokers' },
  { path: '/c/local/brokers/1', heading: 'Broker 1' },
  { path: '/c/local/brokers/defaults', heading: 'Cluster-wide broker configuration' },
  { path: '/c/local/schemas', heading: 'Schemas', button: { name: 'Register schema', opens: 'Register schema' } },
  {
    path: '/c/local/schemas/payments-avro-value',
    heading: 'payments-avro-value',
    button: { name: 'Register a new version', opens: 'Register a new version' },
  },
  { path: '/c/local/acls', heading: 'ACLs' },
  { path: '/c/local/users', heading: 'Users' },
  { path: '/c/local/quotas', heading: 'Quotas' },
  { path: '/c/local/audit', heading: 'Audit log' },
  { path: '/c/local/connectors', heading: 'Connectors', button: { name: 'Create connector', opens: 'Create connector' } },
  { path: '/c/local/replications', heading: 'Replications' },
  { path: '/c/local/processors', heading: 'SQL processors' },
];

/** The page shows its heading, hydrated; its button, when it has one, opens what it should. */
async function works(page: Page, section: Section) {
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
  await expect(page.locator('main h1').first()).toContainText(section.heading);
  if (section.button) {
    await page.getByRole('button', { name: section.button.name, exact: true }).first().click();
    await expect(page.getByRole('dialog', { name: section.button.opens }).or(
      page.getByRole('form', { name: section.button.opens }),
    ).first()).toBeVisible();
  }
}

for (const scheme of ['light', 'dark'] as const) {
  test(`every section opens by a deep link in the ${scheme} theme, its piece loaded and its button answering`, async ({ page }) => {
    test.setTimeout(120_000);
    await page.emulateMedia({ colorScheme: scheme });
    const problems = watch(page);
    for (const section of SECTIONS) {
      await page.goto(section.path);
      await works(page, section);
      // A deep link fetches the shell and the page's pieces, never every piece of the app.
      const fetched = await wasmFetched(page);
      expect(fetched, section.path).toContain('klens.wasm');
      expect(fetched.some((name) => name.startsWith('split_')), `${section.path}: ${fetched}`).toBe(true);
    }
    expect(problems).toEqual([]);
  });

  test(`every section is reached by navigation from one page load in the ${scheme} theme, Back and Forward included`, async ({ page }) => {
    test.setTimeout(120_000);
    await page.emulateMedia({ colorScheme: scheme });
    const problems = watch(page);
    await page.goto('/c/local');
    await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
    const navigated: Section[] = [];
    for (const section of SECTIONS.filter((s) => s.path.split('/').length === 4)) {
      // The sidebar's link to the section on the local cluster: a navigation in the page, no
      // new load of the shell.
      await page.locator(`nav a[href="${section.path}"]`).first().click();
      await expect(page).toHaveURL(section.path);
      await works(page, section);
      navigated.push(section);
    }
    // Into a topic, its Data tab and a record by their links, then back out and in again.
    await page.locator('nav a[href="/c/local/topics"]').first().click();
    // The seeded cluster has thousands of topics: the filter brings orders to the first page.
    await page.getByLabel('Filter topics by name').fill('orders');
    await page.locator('main a[href="/c/local/topics/orders"]').first().click();
    await expect(page.locator('main h1').first()).toContainText('orders');
    await page.locator('main a[href="/c/local/topics/orders/data"]').first().click();
    await expect(page).toHaveURL('/c/local/topics/orders/data');
    await works(page, SECTIONS[2]);
    await page.goBack();
    await expect(page).toHaveURL('/c/local/topics/orders');
    await expect(page.locator('main h1').first()).toContainText('orders');
    await page.goBack();
    await expect(page).toHaveURL(/\/c\/local\/topics(\?.*)?$/);
    await expect(page.locator('main h1').first()).toContainText('Topics');
    await page.goForward();
    await page.goForward();
    await expect(page).toHaveURL('/c/local/topics/orders/data');
    await works(page, SECTIONS[2]);
    // The whole walk was one load of the shell: navigation fetched pieces, not pages.
    const shells = (await wasmFetched(page)).filter((name) => name === 'klens.wasm');
    expect(shells).toHaveLength(1);
    expect(navigated.length).toBeGreaterThan(8);
    expect(problems).toEqual([]);
  });
}
