// Time to interactive of a klens page, as a benchmark that prints figures (not a test):
// each run opens the page in a fresh browser context (nothing cached), and measures from the
// start of navigation until the app has hydrated (`.app[data-hydrated="true"]`, set by an effect
// that runs only in the browser). Prints every run, the median, and what /pkg transferred.
//
//   node end2end/bench/interactive.mjs [URL] [RUNS]
// URL defaults to $KLENS_URL/c/local/topics (klens from `make demo`: 127.0.0.1:8080).
// KLENS_BENCH_NETWORK=LATENCY_MS:MBIT has Chromium hold every request for that round trip and
// that bandwidth down (40:20 is an office link to a cluster's console in another building);
// unset, the page loads at loopback speed, where only processor time counts.
import { chromium } from '@playwright/test';

const base = process.env.KLENS_URL ?? 'http://127.0.0.1:8080';
const url = process.argv[2] ?? `${base}/c/local/topics`;
const runs = Number(process.argv[3] ?? 5);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
const times = [];
let transferred = 0;
for (let i = 0; i < runs; i++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const network = process.env.KLENS_BENCH_NETWORK;
  if (network) {
    const [latency, mbit] = network.split(':').map(Number);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency,
      downloadThroughput: (mbit * 1_000_000) / 8,
      uploadThroughput: (mbit * 1_000_000) / 8,
    });
  }
  let bytes = 0;
  page.on('response', async (response) => {
    if (!response.url().includes('/pkg/')) return;
    const sizes = await response.request().sizes().catch(() => null);
    if (sizes) bytes += sizes.responseBodySize;
  });
  const response = await page.goto(url, { waitUntil: 'commit' });
  if (response?.status() !== 200) {
    throw new Error(`${url} answered ${response?.status()}: not a page to measure`);
  }
  await page.locator('.app[data-hydrated="true"]').waitFor({ timeout: 30_000 });
  const ms = await page.evaluate(() => performance.now());
  times.push(ms);
  transferred = bytes;
  console.log(`run ${i + 1}: interactive after ${ms.toFixed(0)} ms`);
  await context.close();
}
await browser.close();
times.sort((a, b) => a - b);
console.log(`${url}: median of ${runs} ${times[Math.floor(times.length / 2)].toFixed(0)} ms ` +
  `(min ${times[0].toFixed(0)}, max ${times[times.length - 1].toFixed(0)}); ` +
  `/pkg sent ${transferred} bytes compressed on the last run`);
