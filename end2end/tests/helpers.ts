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

/** The records in a topic as Kafka counts them (latest − earliest offset per partition), read
 * with kcat over the open port. */
export function kafkaRecordCount(topic: string): number {
  const meta = kafkaMetadata().topics.find((t) => t.topic === topic);
  if (!meta) throw new Error(`no topic ${topic}`);
  const offsets = (ts: number) => {
    const args = ['-b', '127.0.0.1:19092', '-Q', '-J'];
    meta.partitions.forEach((_, p) => args.push('-t', `${topic}:${p}:${ts}`));
    const json = JSON.parse(execFileSync('kcat', args, { encoding: 'utf8' }))[topic];
    return meta.partitions.map((_, p) => json[String(p)].offset as number);
  };
  const high = offsets(-1);
  const low = offsets(-2);
  return high.reduce((sum, h, i) => sum + (h - low[i]), 0);
}
