import { test, expect, type Page } from '@playwright/test';
import { openHydrated } from './helpers';

// Every page fits its viewport: at a phone's width and at three desktop widths, no page is wider
// than the window (no horizontal scrolling of the document; a wide table scrolls in its own box),
// and none logs a console error. Screenshots of each, light and dark, are kept for review.
// The pages are dev/seed.py's: the topic orders (records from offset 0 on each partition), the
// group billing-service, broker 1, the subject payments-avro-value.

interface Shown {
  /** Names the page in messages and in screenshot file names. */
  slug: string;
  path: string;
  /** Among the main pages, screenshotted at every width that takes screenshots, not only at 1440. */
  main?: boolean;
}

const PAGES: Shown[] = [
  { slug: 'clusters', path: '/', main: true },
  { slug: 'account', path: '/account' },
  { slug: 'cluster', path: '/c/local' },
  { slug: 'topics', path: '/c/local/topics', main: true },
  { slug: 'topic', path: '/c/local/topics/orders', main: true },
  { slug: 'topic-data', path: '/c/local/topics/orders/data', main: true },
  { slug: 'topic-configuration', path: '/c/local/topics/orders/configuration' },
  { slug: 'topic-consumers', path: '/c/local/topics/orders/consumers' },
  { slug: 'record', path: '/c/local/topics/orders/records/0/0' },
  { slug: 'groups', path: '/c/local/groups', main: true },
  { slug: 'group', path: '/c/local/groups/billing-service', main: true },
  { slug: 'brokers', path: '/c/local/brokers' },
  { slug: 'broker-defaults', path: '/c/local/brokers/defaults' },
  { slug: 'broker', path: '/c/local/brokers/1' },
  { slug: 'broker-configuration', path: '/c/local/brokers/1/configuration' },
  { slug: 'schemas', path: '/c/local/schemas', main: true },
  { slug: 'subject', path: '/c/local/schemas/payments-avro-value' },
  { slug: 'acls', path: '/c/local/acls', main: true },
  { slug: 'users', path: '/c/local/users' },
  { slug: 'quotas', path: '/c/local/quotas' },
  { slug: 'audit', path: '/c/local/audit', main: true },
  { slug: 'connectors', path: '/c/local/connectors', main: true },
  { slug: 'connector', path: '/c/local/connectors/dev-connect/demo-lines-sink' },
  { slug: 'flow', path: '/c/local/flow?kind=topic&name=connect-lines&hops=2', main: true },
  { slug: 'processors', path: '/c/local/processors', main: true },
  // The read-only cluster: its pages offer no change, and must fit all the same.
  { slug: 'ro-topics', path: '/c/local-ro/topics' },
];

interface Width {
  width: number;
  height: number;
  /** Which pages get screenshots at this width. */
  shots: 'all' | 'main' | 'none';
}

const WIDTHS: Width[] = [
  { width: 390, height: 844, shots: 'main' }, // a phone
  { width: 1024, height: 900, shots: 'none' },
  { width: 1280, height: 900, shots: 'main' },
  { width: 1440, height: 900, shots: 'all' },
];

/** A layout rounds sub-pixel widths: one pixel over is not an overflow. */
const ROUNDING = 1;

/** The document's width against the window's and, when it is wider, the innermost elements that
 * reach past the window's right edge outside any box of their own that clips or scrolls them
 * (the likely culprits), at most five, as `tag#id.class (right edge)`. */
async function measure(page: Page): Promise<{ scrollWidth: number; innerWidth: number; culprits: string[] }> {
  return page.evaluate((rounding) => {
    const scrollWidth = document.documentElement.scrollWidth;
    const innerWidth = window.innerWidth;
    if (scrollWidth <= innerWidth + rounding) return { scrollWidth, innerWidth, culprits: [] };
    // The body's overflow belongs to the viewport: only boxes inside it count as clipping.
    const clipped = (el: Element) => {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        if (getComputedStyle(a).overflowX !== 'visible') return true;
      }
      return false;
    };
    const wide = Array.from(document.body.querySelectorAll('*'))
      .filter((el) => el.getBoundingClientRect().right > innerWidth + rounding && !clipped(el));
    const innermost = wide.filter((el) => !wide.some((other) => other !== el && el.contains(other)));
    const culprits = innermost.slice(0, 5).map((el) => {
      const id = el.id ? `#${el.id}` : '';
      const classes = Array.from(el.classList).map((c) => `.${c}`).join('');
      return `${el.tagName.toLowerCase()}${id}${classes} (right edge ${Math.round(el.getBoundingClientRect().right)})`;
    });
    return { scrollWidth, innerWidth, culprits };
  }, ROUNDING);
}

for (const { width, height, shots } of WIDTHS) {
  test(`every page fits a ${width} px wide window, without console errors`, async ({ page }, testInfo) => {
    // About half a second a page, and two full-page screenshots of each page at most: three
    // minutes is ample, a little more where every page is screenshotted.
    test.setTimeout(shots === 'all' ? 240_000 : 180_000);
    await page.setViewportSize({ width, height });

    // Every offender of the run, asserted at the end so that one run names them all.
    const overflows: string[] = [];
    const consoleErrors: string[] = [];
    for (const shown of PAGES) {
      const where = `${shown.slug} (${shown.path}) at ${width} px`;
      // Each page is opened light (Playwright's default); the screenshots below switch to dark.
      await page.emulateMedia({ colorScheme: 'light' });
      const problems = await openHydrated(page, shown.path);
      // Data a page loads after hydration, and web fonts, may still widen it.
      await page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => {
        // A page that keeps a request open is measured as it stands.
      });
      await page.evaluate(async () => {
        await document.fonts.ready;
      });

      const { scrollWidth, innerWidth, culprits } = await measure(page);
      if (scrollWidth > innerWidth + ROUNDING) {
        const reaching = culprits.length > 0 ? `; reaching past it: ${culprits.join(', ')}` : '';
        overflows.push(`${where}: document ${scrollWidth} px wide, window ${innerWidth} px${reaching}`);
      }

      if (shots === 'all' || (shots === 'main' && shown.main)) {
        await page.evaluate(() => window.scrollTo(0, 0));
        for (const scheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          await page.screenshot({
            path: testInfo.outputPath(`layout-${width}-${shown.slug}-${scheme}.png`),
            fullPage: true,
          });
        }
      }

      // openHydrated's listeners stay on the page, so this page's list would also hear every later
      // page: take its errors now, before the next page is opened.
      consoleErrors.push(...problems.map((p) => `${where}: ${p}`));
    }

    expect.soft(overflows, `pages wider than a ${width} px window`).toEqual([]);
    expect(consoleErrors, `console errors at ${width} px`).toEqual([]);
  });
}
