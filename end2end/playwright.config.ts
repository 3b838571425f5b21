import { defineConfig } from '@playwright/test';

// klens is started by end2end/run before Playwright; the browser is Debian's Chromium.
export default defineConfig({
  testDir: './tests',
  timeout: 30_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  // Two spec files at a time: the suite mostly waits (on Kafka, the engines, sign-in), and
  // two workers took it from 9.5 to 7.9 minutes on two cores; four starved each other.
  workers: 2,
  retries: 0,
  reporter: [['list']],
  outputDir: '../target/e2e/test-results',
  use: {
    baseURL: process.env.KLENS_URL ?? 'http://127.0.0.1:18080',
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
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
    },
  },
});
