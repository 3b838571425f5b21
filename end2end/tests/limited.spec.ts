import { test, expect } from '@playwright/test';

// klens signed in to Kafka as a user with no permission on the cluster (dev/seed's
// klens-limited, served by its own instance): each cluster administration page says which
// Kafka permission that user lacks, instead of an empty list.
const LIMITED = process.env.KLENS_LIMITED_URL ?? 'http://127.0.0.1:18092';

for (const [path, needs] of [
  ['/c/limited/acls', 'needs DESCRIBE on the cluster'],
  ['/c/limited/users', 'needs DESCRIBE on the cluster'],
  ['/c/limited/quotas', 'needs DESCRIBE_CONFIGS on the cluster'],
  ['/c/limited/brokers/1/configuration', 'needs DESCRIBE_CONFIGS on the cluster'],
] as const) {
  test(`${path} says what klens's Kafka user lacks`, async ({ page }) => {
    await page.goto(`${LIMITED}${path}`);
    await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
    await expect(page.getByRole('alert')).toContainText(needs);
    await expect(page.getByRole('alert')).toContainText("klens's own Kafka user");
  });
}

test('the Quotas page with a user that lacks DESCRIBE_CONFIGS, light and dark', async ({ page }) => {
  await page.goto(`${LIMITED}/c/limited/quotas`);
  await expect(page.getByRole('alert')).toContainText('DESCRIBE_CONFIGS');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: test.info().outputPath(`quotas-refused-${scheme}.png`) });
  }
});
