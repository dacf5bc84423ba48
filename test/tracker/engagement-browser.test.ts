// The real tracker in chromium sends one `engagement` event per page when the page is hidden (visibilitychange) or
// left for another SPA page: its scroll depth (the deepest point seen, in percent) and its engaged time (visible, with
// input in the last 15 s). The page's clock is playwright's fake one, so the time is exact, not a timing.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser } from 'playwright-core';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { eventually, launchChromium, servePages, snippet, visitorContext } from '../browser/_browser.ts';

let server: TestServer;
let browser: Browser;

vi.setConfig({ testTimeout: 60_000 });
beforeAll(async () => {
  server = await startTestServer();
  await seedWorkspace(server, 'acme', { sites: ['engaged'] });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

interface Stored {
  type: string;
  path: string;
  props: { scroll_depth: number; engaged_ms: number } | null;
}

const stored = () =>
  (server.db.prepare('SELECT type, path, raw FROM events WHERE site_id = ? ORDER BY ts, seq').all('engaged') as { type: string; path: string; raw: string }[]).map(
    (row): Stored => ({ type: row.type, path: row.path, props: JSON.parse(row.raw).props ?? null }),
  );

describe('engagement in chromium', () => {
  it('sends one engagement per page on visibilitychange and SPA navigation, with exact engaged time and depth', async () => {
    // A 4,000-pixel page in a 1,280 × 800 viewport, no body margin: scrolled to 2,000 it shows (2,000 + 800) / 4,000.
    const pages = await servePages({
      '/': `<title>Long</title><style>body{margin:0}</style><div style="height:4000px">Long read</div>${snippet(server.url, 'engaged')}`,
    });
    const context = await visitorContext(browser);
    // The page's time stands still but when the test moves it (runFor).
    await context.clock.install({ time: new Date('2026-05-01T10:00:00.000Z') });
    await context.clock.pauseAt(new Date('2026-05-01T10:00:01.000Z'));
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(pages.url + '/');
    await eventually(() => page.evaluate(() => 'sightline' in window), Boolean);
    await eventually(async () => stored(), (rows) => rows.length === 1);

    // 5 s of reading, a scroll to 2,000 (input: 15 s more count), then 30 s idle: 5 + 15 = 20 s engaged.
    await page.clock.runFor(5_000);
    // The browser fires scroll at its next animation frame, which the paused clock holds: the test fires it.
    const scrollTo = (y: number) =>
      page.evaluate((top) => {
        window.scrollTo(0, top);
        document.dispatchEvent(new Event('scroll'));
      }, y);
    await scrollTo(2000);
    await page.clock.runFor(30_000);
    // Back to the top: the deepest point seen stays.
    await scrollTo(0);
    // Then another page of the SPA: the first page's engagement goes with its own URL.
    await page.evaluate(() => history.pushState({}, '', '/next'));
    await page.clock.runFor(3_000);
    // Hidden: the second page's engagement, 3 s; hidden twice more, nothing more.
    const hide = () =>
      page.evaluate(() => {
        Object.defineProperty(document, 'hidden', { value: true, configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      });
    await hide();
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { value: false, configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await hide();
    await page.evaluate(() => (window as unknown as { sightline: { track(type: string): void } }).sightline.track('marker'));
    const rows = await eventually(async () => stored(), (found) => found.some((row) => row.type === 'marker') && found.length >= 5);
    const engagements = rows.filter((row) => row.type === 'engagement').map(({ path, props }) => ({ path, props }));
    expect(engagements).toEqual([
      // The first scroll event came at 5 s: the time until then counts (the first 15 s are a window of their own).
      { path: '/', props: { scroll_depth: 70, engaged_ms: 20_000 } },
      { path: '/next', props: { scroll_depth: 20, engaged_ms: 3_000 } },
    ]);
    expect(rows.filter((row) => row.type === 'pageview').map((row) => row.path)).toEqual(['/', '/next']);
    await context.close();
    await pages.close();
  });
});
