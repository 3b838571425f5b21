import { execFileSync } from 'node:child_process';
import { expect, type Page } from '@playwright/test';

/** Opens a page, fails the test on any console error or uncaught exception, waits for hydration. */
export async function openHydrated(page: Page, path: string): Promise<string[]> {
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  await page.goto(path);
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
  return problems;
}

/** What Kafka itself says, read with kcat over the open dev/stack port (independent of klens). */
export function kafkaMetadata(): { brokers: unknown[]; topics: { topic: string; partitions: unknown[] }[] } {
  const out = execFileSync('kcat', ['-b', '127.0.0.1:19092', '-L', '-J'], { encoding: 'utf8' });
  return JSON.parse(out);
}
