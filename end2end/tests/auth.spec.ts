import { test, expect, type Page } from '@playwright/test';
import { writes } from './authz-matrix';
import { PROVIDER, signIn } from './helpers';

// A klens with sign-in through the dev/stack OIDC provider and the demo roles
// (dev/demo-config --auth), and one whose sessions last four seconds.
const AUTH = process.env.KLENS_AUTH_URL ?? 'http://127.0.0.1:18090';
const SHORT = process.env.KLENS_SHORT_URL ?? 'http://127.0.0.1:18091';

const ALL = [
  'RECORDS', 'TOPIC_CONFIGS', 'BROKER_CONFIGS', 'SCHEMA_TEXT', 'ACLS', 'AUDIT', 'UNMASK', 'CONNECTORS', 'CREATE_TOPICS', 'DELETE_TOPICS',
  'ALTER_TOPIC_CONFIGS', 'ADD_PARTITIONS', 'DELETE_RECORDS', 'PRODUCE', 'RESET_OFFSETS', 'DELETE_OFFSETS',
  'DELETE_GROUPS', 'REGISTER_SCHEMAS', 'SET_COMPATIBILITY', 'DELETE_SCHEMAS', 'CREATE_ACLS', 'DELETE_ACLS',
  'ALTER_QUOTAS', 'SET_SCRAM_CREDENTIALS', 'DELETE_SCRAM_CREDENTIALS', 'ALTER_BROKER_CONFIGS', 'MANAGE_CONNECTORS',
  'REPLICATIONS', 'REPLICATE_FROM', 'MANAGE_REPLICATIONS', 'REPLICATION_OFFSETS',
  'SQL_PROCESSORS', 'MANAGE_SQL_PROCESSORS', 'TOPOLOGY',
];
const CLUSTERS = [
  { name: 'local', writable: true },
  { name: 'local-ro', writable: false },
];

// What the demo bindings give each fixed user, written out from the config by hand: the
// privileges on each whole cluster, and for erin those her scoped binding grants on local's
// payments-* topics (and their groups and -key/-value subjects).
type Want = {
  groups: string[];
  clusters: Record<string, string[]>;
  scoped?: { cluster: string; privileges: string[]; topic: RegExp };
};
const users: Record<string, Want> = {
  alice: { groups: ['kafka-admins'], clusters: { local: ALL, 'local-ro': ALL } },
  bob: { groups: ['kafka-viewers'], clusters: { local: [], 'local-ro': [] } },
  dave: {
    groups: ['kafka-operators', 'kafka-viewers'],
    clusters: { local: ['RECORDS', 'TOPIC_CONFIGS', 'CREATE_TOPICS', 'PRODUCE', 'RESET_OFFSETS'], 'local-ro': [] },
  },
  carol: { groups: [], clusters: {} },
  erin: {
    groups: ['payments-team'],
    clusters: { local: [] },
    scoped: {
      cluster: 'local',
      privileges: ['RECORDS', 'TOPIC_CONFIGS', 'CREATE_TOPICS', 'DELETE_TOPICS', 'PRODUCE', 'RESET_OFFSETS', 'SCHEMA_TEXT', 'TOPOLOGY'],
      topic: /^payments-/,
    },
  },
};

/** Whether `want` holds `privilege` on the subject `subject` of `cluster` (through its topic). */
const holdsOnSubject = (want: Want, cluster: string, privilege: string, subject: string) =>
  want.clusters[cluster]?.includes(privilege) ||
  (want.scoped?.cluster === cluster &&
    want.scoped.privileges.includes(privilege) &&
    want.scoped.topic.test(subject.replace(/-(key|value)$/, '')));

test('without a session the API answers 401 and pages send the browser to sign in', async ({ page, request }) => {
  const res = await request.get(`${AUTH}/api/whoami`);
  expect(res.status()).toBe(401);
  expect((await res.json()).code).toBe('UNAUTHENTICATED');
  expect((await request.get(`${AUTH}/health`)).status()).toBe(200);
  await page.goto(`${AUTH}/c/local/topics`);
  await expect(page).toHaveURL(new RegExp(`^${PROVIDER}/interaction/`));
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
});

for (const [user, want] of Object.entries(users)) {
  test(`${user} signs in and sees exactly their clusters and actions`, async ({ page }) => {
    // Every read check and the whole matrix, through the API and the pages, in one session.
    test.setTimeout(120_000);
    await signIn(page, AUTH, user);
    const visible = Object.keys(want.clusters);

    // Identity, from the same browser session.
    const who = await (await page.request.get(`${AUTH}/api/whoami`)).json();
    expect(who.auth).toBe(true);
    expect(who.user.subject).toBe(user);
    expect(who.user.groups).toEqual(want.groups);
    expect(who.clusters.map((c: any) => c.name)).toEqual(visible);
    for (const c of who.clusters) {
      expect([...c.privileges].sort()).toEqual([...want.clusters[c.name]].sort());
      const scoped = want.scoped?.cluster === c.name ? want.scoped : undefined;
      expect(c.scopes.map((s: any) => [...s.privileges].sort())).toEqual(scoped ? [[...scoped.privileges].sort()] : []);
      expect(c.scoped_catalog).toBe(scoped !== undefined);
    }

    // The header names them; the clusters page lists exactly their clusters.
    const banner = page.getByRole('banner');
    await expect(banner).toContainText(who.user.name);
    expect(who.user.name.toLowerCase()).toContain(user);
    await expect(banner).toContainText(want.groups.length ? want.groups.join(', ') : 'no groups');
    const rows = page.locator('table[aria-label="Clusters"] tbody tr');
    if (visible.length === 0) {
      await expect(page.getByText('No cluster is open to you')).toBeVisible();
    } else {
      await expect(rows).toHaveCount(visible.length);
    }

    // The access page lists the same clusters.
    await page.goto(`${AUTH}/account`);
    const access = page.getByRole('table', { name: 'Your access' });
    await expect(access.locator('tbody tr')).toHaveCount(visible.length);
    for (const name of visible) {
      const scoped = want.scoped?.cluster === name ? want.scoped.privileges : [];
      const text = want.clusters[name][0] ?? (scoped.length ? `${[...scoped].sort()[0]}` : 'catalog only');
      await expect(access.locator(`tr[data-cluster="${name}"]`)).toContainText(text);
      // Write privileges held on the read-only cluster are listed apart, as unusable there.
      const unusable = access.locator(`tr[data-cluster="${name}"] .unusable`);
      if (name === 'local-ro' && want.clusters[name].includes('CREATE_TOPICS')) {
        await expect(unusable).toContainText('CREATE_TOPICS');
      } else {
        await expect(unusable).toHaveCount(0);
      }
    }

    // A cluster outside their bindings answers exactly like a made-up name.
    for (const hidden of CLUSTERS.map((c) => c.name).filter((n) => !visible.includes(n))) {
      const res = await page.request.get(`${AUTH}/api/cluster?cluster=${hidden}`);
      const made = await page.request.get(`${AUTH}/api/cluster?cluster=made-up`);
      expect(res.status()).toBe(404);
      expect(made.status()).toBe(404);
      expect((await res.text()).replace(`"${hidden}\\"`, '"made-up\\"')).toBe(await made.text());
    }

    // The configs of a topic: the tab shows them exactly when the API answers them, and
    // otherwise names the privilege.
    for (const name of visible) {
      const label = `${user} topic_configs on ${name}`;
      const holds = want.clusters[name].includes('TOPIC_CONFIGS');
      const res = await page.request.get(`${AUTH}/api/topic_configs?cluster=${name}&topic=orders`);
      expect(res.status(), label).toBe(holds ? 200 : 403);
      if (!holds) expect(await res.json(), label).toMatchObject({ code: 'MISSING_PRIVILEGE', privilege: 'TOPIC_CONFIGS' });
      await page.goto(`${AUTH}/c/${name}/topics/orders/configuration`);
      await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
      if (holds) {
        await expect(page.getByRole('table', { name: 'Configs' }), label).toContainText('cleanup.policy');
      } else {
        await expect(page.getByRole('note'), label).toContainText('TOPIC_CONFIGS privilege');
        await expect(page.getByRole('table', { name: 'Configs' }), label).toHaveCount(0);
      }
    }

    // A schema's text: the Subject page shows it exactly when the API answers it; the versions
    // are catalog and shown to everyone who sees the cluster.
    for (const name of visible) {
      const label = `${user} schema on ${name}`;
      const holds = holdsOnSubject(want, name, 'SCHEMA_TEXT', 'payments-avro-value');
      const res = await page.request.get(`${AUTH}/api/schema?cluster=${name}&subject=payments-avro-value&version=1`);
      expect(res.status(), label).toBe(holds ? 200 : 403);
      if (!holds) expect(await res.json(), label).toMatchObject({ code: 'MISSING_PRIVILEGE', privilege: 'SCHEMA_TEXT' });
      await page.goto(`${AUTH}/c/${name}/schemas/payments-avro-value`);
      await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
      await expect(page.getByRole('table', { name: 'Versions' }), label).toContainText('AVRO');
      if (holds) {
        await expect(page.getByLabel('Schema text'), label).toContainText('amount_cents');
      } else {
        await expect(page.getByRole('note'), label).toContainText('SCHEMA_TEXT privilege');
        await expect(page.getByLabel('Schema text'), label).toHaveCount(0);
      }
    }

    // The ACL list: the ACLs page and its link show it exactly when the API answers it.
    for (const name of visible) {
      const label = `${user} acls on ${name}`;
      const holds = want.clusters[name].includes('ACLS');
      const res = await page.request.get(`${AUTH}/api/acls?cluster=${name}`);
      expect(res.status(), label).toBe(holds ? 200 : 403);
      if (!holds) expect(await res.json(), label).toMatchObject({ code: 'MISSING_PRIVILEGE', privilege: 'ACLS' });
      await page.goto(`${AUTH}/c/${name}/acls`);
      await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
      const link = page.getByRole('navigation', { name: 'Clusters' }).getByRole('link', { name: 'ACLs' });
      if (holds) {
        await expect(page.getByRole('table', { name: 'ACLs' }), label).toContainText('User:alice');
        await expect(link.first(), label).toBeVisible();
      } else {
        await expect(page.getByRole('note'), label).toContainText('ACLS privilege');
        await expect(page.getByRole('table', { name: 'ACLs' }), label).toHaveCount(0);
        await expect(page.locator(`a[href="/c/${name}/acls"]`), label).toHaveCount(0);
      }
    }

    // The SCRAM users, under the same privilege.
    for (const name of visible) {
      const label = `${user} scram_users on ${name}`;
      const holds = want.clusters[name].includes('ACLS');
      const res = await page.request.get(`${AUTH}/api/scram_users?cluster=${name}`);
      expect(res.status(), label).toBe(holds ? 200 : 403);
      await page.goto(`${AUTH}/c/${name}/users`);
      await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
      if (holds) {
        await expect(page.getByRole('table', { name: 'Users' }), label).toContainText('reporting');
      } else {
        await expect(page.getByRole('note'), label).toContainText('ACLS privilege');
        await expect(page.locator(`a[href="/c/${name}/users"]`), label).toHaveCount(0);
      }
    }

    // Broker configs and quotas, under BROKER_CONFIGS.
    for (const name of visible) {
      const label = `${user} broker configs and quotas on ${name}`;
      const holds = want.clusters[name].includes('BROKER_CONFIGS');
      for (const call of ['quotas', 'broker_configs']) {
        const res = await page.request.get(`${AUTH}/api/${call}?cluster=${name}`);
        expect(res.status(), `${label}: ${call}`).toBe(holds ? 200 : 403);
      }
      await page.goto(`${AUTH}/c/${name}/quotas`);
      await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
      const link = page.getByRole('navigation', { name: 'Clusters' }).getByRole('link', { name: 'Quotas' });
      if (holds) {
        await expect(page.getByLabel('Filter quotas by entity'), label).toBeVisible();
        await expect(link.first(), label).toBeVisible();
      } else {
        await expect(page.getByRole('note'), label).toContainText('BROKER_CONFIGS privilege');
        await expect(page.locator(`a[href="/c/${name}/quotas"]`), label).toHaveCount(0);
      }
      await page.goto(`${AUTH}/c/${name}/brokers/1/configuration`);
      await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
      if (holds) {
        await expect(page.getByRole('table', { name: 'Configs' }), label).toContainText('log.dirs');
      } else {
        await expect(page.getByRole('note'), label).toContainText('BROKER_CONFIGS privilege');
      }
    }

    // The authorization matrix, through the API and the UI with this session.
    for (const row of writes) {
      for (const cluster of CLUSTERS) {
        const held = want.clusters[cluster.name];
        const body = row.body(cluster.name);
        const res = await page.request.post(`${AUTH}/api/${row.api}`, { data: body });
        const label = `${user} ${row.api} on ${cluster.name}`;
        if (held === undefined) {
          expect(res.status(), label).toBe(404);
          expect((await res.json()).code, label).toBe('UNKNOWN_CLUSTER');
          continue;
        }
        const allowed = cluster.writable && held.includes(row.privilege);
        if (allowed) {
          expect(res.status(), label).toBe(row.allowedStatus);
          await row.cleanUp?.(body);
        } else {
          expect(res.status(), label).toBe(403);
          const error = await res.json();
          if (cluster.writable) {
            expect(error, label).toMatchObject({ code: 'MISSING_PRIVILEGE', privilege: row.privilege });
          } else {
            expect(error.code, label).toBe('READ_ONLY_CLUSTER');
          }
        }
        await page.goto(`${AUTH}${row.page(cluster.name)}`);
        await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
        await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
        const scoped = want.scoped?.cluster === cluster.name && want.scoped.privileges.includes(row.privilege);
        const elsewhere = row.offeredFromAnyCluster === true && held.includes('RECORDS')
          && CLUSTERS.some((c) => c.writable && (want.clusters[c.name] ?? []).includes(row.privilege));
        const offered = allowed || elsewhere || (row.chosenInForm === true && cluster.writable && scoped);
        await expect(page.getByRole('button', { name: row.button, exact: true }), label).toHaveCount(offered ? 1 : 0);
      }
    }
  });
}

test('sign-out ends the klens session', async ({ page }) => {
  await signIn(page, AUTH, 'bob');
  expect((await page.request.get(`${AUTH}/api/whoami`)).status()).toBe(200);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(new RegExp(`^${PROVIDER}/`));
  expect((await page.request.get(`${AUTH}/api/whoami`)).status()).toBe(401);
});

test('signing out ends a tail that is still open, within a couple of seconds', async ({ page }) => {
  await signIn(page, AUTH, 'alice');
  await page.evaluate(() => {
    const w = window as unknown as { tail: { open: boolean; end: string | null } };
    w.tail = { open: false, end: null };
    const source = new EventSource('/api/tail?cluster=local&topic=orders');
    source.onopen = () => { w.tail.open = true; };
    source.addEventListener('end', (e) => { w.tail.end = (e as MessageEvent).data; source.close(); });
  });
  const state = () => page.evaluate(() => (window as unknown as { tail: { open: boolean; end: string | null } }).tail);
  await expect.poll(async () => (await state()).open).toBe(true);
  // Sign out from the same browser session, as the Sign out button would.
  const out = await page.request.post(`${AUTH}/auth/logout`, { maxRedirects: 0 });
  expect(out.status()).toBeLessThan(400);
  await expect.poll(async () => (await state()).end, { timeout: 3000 }).toBe('You signed out.');
});

test('a session ends at max_age: the API answers 401 and pages ask to sign in again', async ({ page }) => {
  await signIn(page, SHORT, 'alice');
  expect((await page.request.get(`${SHORT}/api/whoami`)).status()).toBe(200);
  await page.waitForTimeout(4500);
  const res = await page.request.get(`${SHORT}/api/whoami`);
  expect(res.status()).toBe(401);
  expect((await res.json()).code).toBe('UNAUTHENTICATED');
  await page.goto(`${SHORT}/`);
  // The provider still knows alice, so it may sign her straight back in; either way the
  // browser went through the provider, which is what a new session needs.
  await page.waitForURL((url) => url.href.startsWith(PROVIDER) || url.href.startsWith(`${SHORT}/`));
  expect((await page.request.get(`${SHORT}/api/whoami`)).status()).toBe(200);
});

test('a forged or failed callback ends on a clear page with a way to try again', async ({ page }) => {
  const cases = [
    { url: `${AUTH}/auth/callback?code=abc&state=forged`, text: 'expired or was already used' },
    { url: `${AUTH}/auth/callback?error=access_denied&error_description=nope`, text: 'did not sign you in' },
  ];
  for (const c of cases) {
    const res = await page.goto(c.url);
    expect(res?.status()).toBe(400);
    await expect(page.getByRole('heading', { name: 'Sign-in failed' })).toBeVisible();
    await expect(page.getByRole('alert')).toContainText(c.text);
    await expect(page.getByRole('link', { name: 'Try again' })).toHaveAttribute('href', '/auth/login');
  }
  // A pending sign-in, answered with someone else's state.
  await page.goto(`${AUTH}/`);
  await expect(page).toHaveURL(new RegExp(`^${PROVIDER}/`));
  const res = await page.goto(`${AUTH}/auth/callback?code=abc&state=not-the-one-sent`);
  expect(res?.status()).toBe(400);
  await expect(page.getByRole('alert')).toContainText('does not belong to this browser session');
});
