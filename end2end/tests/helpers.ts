import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
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

/** The dev/stack OIDC provider. */
export const PROVIDER = 'http://127.0.0.1:19000';

const sessionCookie = async (page: Page, base: string) =>
  (await page.context().cookies(base)).find((c) => c.name === 'klens_session');

/** Signs `user` in to the klens at `base` through the dev/stack OIDC provider's form (password
 * `<user>-pw`), checking the cookies it leaves. */
export async function signIn(page: Page, base: string, user: string) {
  await page.goto(`${base}/`);
  await expect(page).toHaveURL(new RegExp(`^${PROVIDER}/`));
  // A sign-in under way is the browser's own cookie, sent back to /auth only; klens keeps no
  // session for it.
  const before = await sessionCookie(page, base);
  const signInCookie = async () =>
    (await page.context().cookies(`${base}/auth/callback`)).find((c) => c.name === 'klens_sign_in');
  expect(await signInCookie()).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false, path: '/auth' });
  await page.getByLabel('Username').fill(user);
  await page.getByLabel('Password').fill(`${user}-pw`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(`${base}/`);
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
  // The session cookie: HttpOnly, SameSite=Lax, not Secure over http, and a new id at sign-in;
  // the sign-in cookie is gone.
  const after = await sessionCookie(page, base);
  expect(after).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false });
  expect(after?.value).toBeTruthy();
  expect(after?.value).not.toBe(before?.value);
  expect(await signInCookie()).toBeUndefined();
}

/** Commits offsets for a group (topic, partition → offset) with confluent-kafka, as a tool would. */
export function kafkaCommit(group: string, topic: string, offsets: Record<number, number>) {
  runDevPython(`
import json, sys
from confluent_kafka import Consumer, TopicPartition
c = Consumer({"bootstrap.servers": "127.0.0.1:19092", "group.id": sys.argv[1], "enable.auto.commit": False})
c.commit(offsets=[TopicPartition(sys.argv[2], int(p), o) for p, o in json.loads(sys.argv[3]).items()], asynchronous=False)
c.close()
`, [group, topic, JSON.stringify(offsets)]);
}

/** What Kafka itself says, read with kcat over the open dev/stack port (independent of klens). */
export function kafkaMetadata(): { brokers: unknown[]; topics: { topic: string; partitions: unknown[] }[] } {
  // With ten thousand topics the listing is over a megabyte, execFileSync's default buffer.
  const out = execFileSync('kcat', ['-b', '127.0.0.1:19092', '-L', '-J'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  return JSON.parse(out);
}

/** The repository's root, where dev/ lives. */
const ROOT = path.resolve(__dirname, '..', '..');

/** The partitions of one topic as Kafka lists them, read with kcat over the open port. */
function kafkaPartitions(topic: string): number[] {
  const out = execFileSync('kcat', ['-b', '127.0.0.1:19092', '-L', '-J', '-t', topic], { encoding: 'utf8' });
  const meta = (JSON.parse(out).topics as { topic: string; error?: string; partitions: { partition: number }[] }[])
    .find((t) => t.topic === topic);
  if (!meta || meta.error || meta.partitions.length === 0) throw new Error(`no topic ${topic}`);
  return meta.partitions.map((p) => p.partition).sort((a, b) => a - b);
}

/** One offset per partition of a topic, read with kcat -Q: -1 is the end (high watermark), -2
 * the start (low watermark). */
function kafkaOffsets(topic: string, ts: -1 | -2): Map<number, number> {
  const partitions = kafkaPartitions(topic);
  const args = ['-b', '127.0.0.1:19092', '-Q', '-J'];
  partitions.forEach((p) => args.push('-t', `${topic}:${p}:${ts}`));
  const json = JSON.parse(execFileSync('kcat', args, { encoding: 'utf8' }))[topic];
  return new Map(partitions.map((p) => [p, json[String(p)].offset as number]));
}

/** The end offset (high watermark) of each partition of a topic, read with kcat. */
export function kafkaEndOffsets(topic: string): Map<number, number> {
  return kafkaOffsets(topic, -1);
}

/** The records in a topic as Kafka counts them (latest − earliest offset per partition), read
 * with kcat over the open port. */
export function kafkaRecordCount(topic: string): number {
  const high = kafkaOffsets(topic, -1);
  const low = kafkaOffsets(topic, -2);
  let sum = 0;
  for (const [p, h] of high) sum += h - (low.get(p) ?? 0);
  return sum;
}

/** The Python of the dev tools' environment (dev/lib/venv.sh), which has confluent-kafka. */
let devPython: string | undefined;
function python(): string {
  devPython ??= path.join(
    execFileSync('bash', ['-c', 'source dev/lib/venv.sh && klens_dev_venv'], { cwd: ROOT, encoding: 'utf8' }).trim(),
    'bin',
    'python',
  );
  return devPython;
}

/** Runs a Python script in the dev tools' environment (confluent-kafka, fastavro), with `input`
 * on its standard input, and gives back what it prints. */
export function runDevPython(script: string, args: string[] = [], input?: string): string {
  return execFileSync(python(), ['-c', script, ...args], { encoding: 'utf8', input, maxBuffer: 1 << 28 });
}

export interface KafkaGroup {
  /** As Kafka's admin client names it: EMPTY, STABLE, … */
  state: string;
  members: number;
  /** The committed offset of each partition the group has one for. */
  committed: { topic: string; partition: number; offset: number }[];
}

/** A consumer group as Kafka describes it, and its committed offsets, read with confluent-kafka's
 * AdminClient over the open port. */
export function kafkaGroup(group: string): KafkaGroup {
  const script = `
import json, sys
from confluent_kafka import ConsumerGroupTopicPartitions
from confluent_kafka.admin import AdminClient
group = sys.argv[1]
admin = AdminClient({"bootstrap.servers": "127.0.0.1:19092"})
described = admin.describe_consumer_groups([group])[group].result(timeout=30)
listed = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[group].result(timeout=30)
print(json.dumps({
    "state": described.state.name,
    "members": len(described.members),
    "committed": [{"topic": tp.topic, "partition": tp.partition, "offset": tp.offset}
                  for tp in listed.topic_partitions if tp.offset >= 0],
}))
`;
  const out = execFileSync(python(), ['-c', script, group], { encoding: 'utf8' });
  const parsed = JSON.parse(out) as KafkaGroup;
  parsed.committed.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
  return parsed;
}

/** Per committed partition of a group: committed, end and lag (end − committed, never below 0),
 * from Kafka alone (kafkaGroup and kafkaEndOffsets). */
export function kafkaGroupLag(group: string): {
  group: KafkaGroup;
  partitions: { topic: string; partition: number; committed: number; end: number; lag: number }[];
  total: number;
} {
  const g = kafkaGroup(group);
  const ends = new Map<string, Map<number, number>>();
  const partitions = g.committed.map((c) => {
    if (!ends.has(c.topic)) ends.set(c.topic, kafkaEndOffsets(c.topic));
    const end = ends.get(c.topic)!.get(c.partition);
    if (end === undefined) throw new Error(`no end offset for ${c.topic}-${c.partition}`);
    return { ...c, committed: c.offset, end, lag: Math.max(0, end - c.offset) };
  });
  return { group: g, partitions, total: partitions.reduce((n, p) => n + p.lag, 0) };
}

/** Broker metadata as Kafka answers it on the SASL listener klens connects to (dev/demo-config),
 * read with dev/kcat (kcat with a librdkafka that speaks SCRAM to Kafka 4). */
export function kafkaBrokersForKlens(): { controllerid: number; brokers: { id: number; name: string }[] } {
  const out = execFileSync(
    path.join(ROOT, 'dev', 'kcat'),
    ['-b', '127.0.0.1:19094', '-X', 'security.protocol=SASL_PLAINTEXT', '-X', 'sasl.mechanisms=SCRAM-SHA-512',
      '-X', 'sasl.username=klens', '-X', 'sasl.password=klens-secret', '-L', '-J', '-t', 'orders'],
    { encoding: 'utf8' },
  );
  return JSON.parse(out);
}

/** Bytes of a topic's log segments on disk, when dev/stack runs its single-node layout (where that
 * node leads every partition); undefined otherwise. */
export function segmentBytesOnDisk(topic: string): number | undefined {
  const stack = path.join(ROOT, 'target', 'dev-stack');
  const layout = fs.existsSync(path.join(stack, 'layout')) ? fs.readFileSync(path.join(stack, 'layout'), 'utf8').trim() : '';
  if (layout !== '1') return undefined;
  const data = path.join(stack, 'kafka', 'node-1', 'data');
  let sum = 0;
  for (const p of kafkaPartitions(topic)) {
    const dir = path.join(data, `${topic}-${p}`);
    for (const f of fs.readdirSync(dir)) if (f.endsWith('.log')) sum += fs.statSync(path.join(dir, f)).size;
  }
  return sum;
}

/** A figure as klens writes it: thousands separators. */
export const thousands = (n: number) => n.toLocaleString('en-US');

/** Whether `text` is how klens writes `n` bytes: binary units with one decimal (`999 B`,
 * `1.2 KiB`, `3.4 MiB`), so the figure may differ from `n` by half its last digit. */
export function showsBytes(text: string, n: number): boolean {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let unit = 0;
  if (n >= 1024) {
    let value = n / 1024;
    unit = 1;
    while (value >= 1023.95 && unit + 1 < units.length) {
      value /= 1024;
      unit += 1;
    }
  }
  const m = /^(\d+(?:\.\d)?) ([KMGTPE]?i?B)$/.exec(text.trim());
  if (!m || m[2] !== units[unit]) return false;
  const scale = 1024 ** unit;
  return unit === 0 ? Number(m[1]) === n : Math.abs(Number(m[1]) * scale - n) <= scale * 0.0500001;
}

/** The start offset (low watermark) of each partition of a topic, read with kcat. */
export function kafkaStartOffsets(topic: string): Map<number, number> {
  return kafkaOffsets(topic, -2);
}

/** Writes one record per line of `lines` to partition `partition` of `topic`, with kcat. */
export function kafkaProduceLines(topic: string, partition: number, lines: string[]): void {
  execFileSync('kcat', ['-b', '127.0.0.1:19092', '-P', '-t', topic, '-p', String(partition)], {
    input: lines.join('\n') + '\n',
  });
}

/** The config overrides of a topic (name → value), as confluent-kafka's admin client reads them. */
export function kafkaTopicOverrides(topic: string): Record<string, string> {
  const script = `
import json, sys
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource
admin = AdminClient({"bootstrap.servers": "127.0.0.1:19092"})
resource = ConfigResource("TOPIC", sys.argv[1])
configs = admin.describe_configs([resource])[resource].result(timeout=20)
print(json.dumps({k: v.value for k, v in configs.items() if v.source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value}))
`;
  return JSON.parse(runDevPython(script, [topic]));
}

/** What Kafka's own kafka-configs tool describes for an entity (its own arguments, such as
 * `--entity-type brokers --entity-default`), over the open port. */
export function kafkaConfigs(entity: string[]): string {
  return execFileSync(
    path.join(ROOT, 'dev/stack'),
    ['kafka', 'kafka.admin.ConfigCommand', '--bootstrap-server', '127.0.0.1:19092', '--describe', ...entity],
    { encoding: 'utf8' },
  );
}

/** `value SOURCE` of one config of broker `id`, as confluent-kafka's admin client describes it,
 * once it reads `want` (a change reaches the broker a moment after Kafka answers) or after ten
 * seconds. */
export function kafkaBrokerConfig(id: number, name: string, want: string): string {
  const script = `
import sys, time
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource
admin = AdminClient({"bootstrap.servers": "127.0.0.1:19092"})
deadline = time.time() + 10
while True:
    r = ConfigResource("BROKER", sys.argv[1])
    c = admin.describe_configs([r])[r].result(timeout=15)[sys.argv[2]]
    got = f"{c.value} {ConfigSource(c.source).name}"
    if got == sys.argv[3] or time.time() > deadline:
        print(got)
        break
    time.sleep(0.3)
`;
  return runDevPython(script, [String(id), name, want]).trim();
}

/** Removes a dynamic broker config with Kafka's own tool (for clean-up: finding nothing to remove
 * is fine). `entity` is `['--entity-name', '1']` or `['--entity-default']`. */
export function kafkaDeleteBrokerConfig(entity: string[], name: string): void {
  try {
    execFileSync(path.join(ROOT, 'dev/stack'), ['kafka', 'kafka.admin.ConfigCommand', '--bootstrap-server',
      '127.0.0.1:19092', '--alter', '--entity-type', 'brokers', ...entity, '--delete-config', name], { stdio: 'ignore' });
  } catch {
    // Nothing was set.
  }
}
