import { test, expect } from '@playwright/test';
import { openHydrated } from './helpers';

// The release build names the WASM bundle, its JavaScript and the stylesheet after their content,
// lays brotli and gzip copies beside them, and klens serves those to browsers that accept them,
// to be kept for a year.
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
  }
  // The unhashed names are gone: nothing can be cached under a name that changes meaning.
  expect((await request.get('/pkg/klens.wasm')).status()).toBe(404);
  expect(problems).toEqual([]);
});
