import { test, expect } from '@playwright/test';

test('/health answers 200 and /ready counts the clusters by health, naming none', async ({ request }) => {
  expect((await request.get('/health')).status()).toBe(200);
  const ready = await request.get('/ready');
  expect(ready.status()).toBe(200);
  const text = await ready.text();
  expect(JSON.parse(text)).toEqual({
    status: 'ready',
    clusters: { total: 4, ok: 3, degraded: 0, unreachable: 1 },
  });
  for (const name of ['local', 'offline']) expect(text).not.toContain(name);
});

test('/api/clusters answers the contract shape', async ({ request }) => {
  const res = await request.get('/api/clusters');
  expect(res.status()).toBe(200);
  const clusters = await res.json();
  expect(clusters.map((c: any) => c.name)).toEqual(['local', 'local-ro', 'remote', 'offline']);
  for (const c of clusters) {
    expect(Object.keys(c)).toEqual(expect.arrayContaining(
      ['name', 'writable', 'health', 'brokers', 'topics', 'partitions', 'under_replicated', 'size_bytes']));
  }
  const offline = clusters.find((c: any) => c.name === 'offline');
  expect(offline.health.status).toBe('unreachable');
  expect(offline.topics).toBeNull();
});

test('an unknown cluster answers 404 UNKNOWN_CLUSTER', async ({ request }) => {
  const res = await request.get('/api/cluster?cluster=nope');
  expect(res.status()).toBe(404);
  expect(await res.json()).toEqual({ code: 'UNKNOWN_CLUSTER', message: 'There is no cluster named "nope".' });
});

test('a page allows only its own scripts and those with its nonce, and still hydrates', async ({ page }) => {
  const res = await page.goto('/');
  const policy = res?.headers()['content-security-policy'] ?? '';
  const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
  expect(nonce, policy).toBeTruthy();
  expect(policy).toContain("frame-ancestors 'none'");
  expect(policy).not.toContain("script-src 'self' 'unsafe-inline'");
  expect(res?.headers()['x-frame-options']).toBe('DENY');
  // Every inline script of the page carries this response's nonce.
  const html = await res!.text();
  const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)([^>]*)>/g)].map((m) => m[1]);
  expect(inline.length).toBeGreaterThan(0);
  for (const attrs of inline) expect(attrs).toContain(`nonce="${nonce}"`);
  // Hydration runs under the policy.
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
  // A nonce is new for every page.
  const again = (await page.request.get('/')).headers()['content-security-policy'];
  expect(again).not.toBe(policy);
});
