import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openHydrated } from './helpers';

// The release build names the WASM bundle, its JavaScript and the stylesheet after their content,
// lays brotli and gzip copies beside them and builds them into the binary; klens (started by
// end2end/run from an empty folder, without KLENS_SITE_ROOT) serves those to browsers that accept
// them, to be kept for a year.
const site = join(__dirname, '..', '..', 'target', 'site', 'pkg');
const types: Record<string, string> = {
  wasm: 'application/wasm',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

test('assets are named by their hash, sent compressed, and kept for a year', async ({ page, request }) => {
  const problems = await openHydrated(page, '/');
  const html = await page.content();
  const names = ['wasm', 'js', 'css'].map((kind) => html.match(new RegExp(`/pkg/klens\\.[^."/]+\\.${kind}`))?.[0]);
  for (const name of names) {
    expect(name, html.slice(0, 2000)).toBeTruthy();
    for (const [accepts, encoding] of [['br', 'br'], ['gzip', 'gzip']]) {
      const res = await request.get(name!, { headers: { 'accept-encoding': accepts } });
      expect(res.status(), `${name} as ${accepts}`).toBe(200);
      expect(res.headers()['content-encoding']).toBe(encoding);
      expect(res.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    // Without compression: the very bytes `make site` wrote, served from the binary.
    const plain = await request.get(name!, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers()['content-encoding']).toBeUndefined();
    expect(plain.headers()['content-type']).toBe(types[name!.split('.').pop()!]);
    const file = readFileSync(join(site, name!.replace('/pkg/', '')));
    expect(Buffer.compare(await plain.body(), file), name).toBe(0);
  }
  // The unhashed names are gone: nothing can be cached under a name that changes meaning.
  expect((await request.get('/pkg/klens.wasm')).status()).toBe(404);
  expect(problems).toEqual([]);
});
