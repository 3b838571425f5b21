import { test, expect } from '@playwright/test';
import { writes } from './authz-matrix';
import { openHydrated } from './helpers';

// Without sign-in everyone holds every privilege, so the cluster's writable flag decides; with
// sign-in (later) the same rows run once per user.
const clusters = [
  { name: 'local', writable: true },
  { name: 'local-ro', writable: false },
];

for (const row of writes) {
  for (const cluster of clusters) {
    test(`${row.api} on ${cluster.name}: the UI offers it exactly when the API allows it`, async ({ page, request }) => {
      const who = await (await request.get('/api/whoami')).json();
      const access = who.clusters.find((c: any) => c.name === cluster.name);
      const allowed = access.writable && access.privileges.includes(row.privilege);
      expect(allowed).toBe(cluster.writable);

      const body = row.body(cluster.name);
      const res = await request.post(`/api/${row.api}`, { data: body });
      if (allowed) {
        expect(res.status()).toBe(row.allowedStatus);
        await row.cleanUp?.(body);
      } else {
        expect(res.status()).toBe(403);
        expect((await res.json()).code).toBe(access.writable ? 'MISSING_PRIVILEGE' : 'READ_ONLY_CLUSTER');
      }

      const problems = await openHydrated(page, row.page(cluster.name));
      const button = page.getByRole('button', { name: row.button, exact: true });
      const elsewhere = row.offeredFromAnyCluster === true
        && who.clusters.some((c: any) => c.writable && c.privileges.includes(row.privilege));
      if (allowed || elsewhere) {
        await expect(button).toBeVisible();
      } else {
        await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
        await expect(button).toHaveCount(0);
      }
      expect(problems).toEqual([]);
    });
  }
}
