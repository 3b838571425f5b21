// Time for Chromium to show the topics page of the bench cluster, called by dev/bench-catalog:
//   node dev/bench-render.mjs PORT
// Uses the Playwright of end2end/ (installed there, browsers never downloaded) with Debian's
// Chromium and the launch options of end2end/playwright.config.ts. After one warm-up, opens
// /c/bench/topics 5 times, each in a new page of the same browser context (so with the browser's
// cache warm, like a returning visitor), and measures from the start of navigation (a) until the
// server-rendered table has rows in the DOM and (b) until the app has hydrated
// (.app[data-hydrated="true"]). Prints the medians.
import { createRequire } from 'node:module';

const require = createRequire(new URL('../end2end/package.json', import.meta.url));
const { chromium } = require('@playwright/test');

const port = process.argv[2];
if (!/^\d+$/.test(port ?? '')) {
  console.error('usage: node dev/bench-render.mjs PORT');
  process.exit(2);
}
const url = `http://127.0.0.1:${port}/c/bench/topics`;
const runs = 5;
const timeout = 120_000;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
try {
  const context = await browser.newContext();
  const open = async () => {
    const page = await context.newPage();
    try {
      const start = performance.now();
      await page.goto(url, { waitUntil: 'commit', timeout });
      await page.waitForSelector('table tbody tr', { state: 'attached', timeout });
      const rows = performance.now() - start;
      await page.waitForSelector('.app[data-hydrated="true"]', { state: 'attached', timeout });
      const hydrated = performance.now() - start;
      return { rows, hydrated };
    } finally {
      await page.close();
    }
  };
  await open();
  const rows = [];
  const hydrated = [];
  for (let i = 0; i < runs; i++) {
    const run = await open();
    rows.push(run.rows);
    hydrated.push(run.hydrated);
  }
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)];
  };
  console.log(
    `topics page in Chromium  first rows ${median(rows).toFixed(0)} ms, ` +
      `hydrated ${median(hydrated).toFixed(0)} ms (median of ${runs})`,
  );
} finally {
  await browser.close();
}
