// The admin UI's pages in a real browser against the shipped server, on a generated data set of 20,000 events over
// 60 days on two sites: the sites overview (each site's visitors today, as the API counts them), every page of a
// site opened from the navigation and by its URL, the back button, the Today chart's 24 hourly points and its
// legend, the time from a filter click to every panel settled (printed, never asserted), the realtime page showing
// an event within 2 s of its 202, one not-found state for an unknown site, a share link's site name and its
// embedding layout, and every page at phone width (390 px) without horizontal scrolling. Screenshots of every page,
// light and dark, go to test-artifacts/ui/. Any console error or CSP violation fails the test.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { browserEvent, ingest, shippedServers, type ShippedServer, utcDate } from '../e2e/_server.ts';
import { artifacts, launchBrowser, panel, watchProblems } from './_browser.ts';

const servers = shippedServers();
let browser: Browser;

vi.setConfig({ testTimeout: 300_000 });
beforeAll(async () => {
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => browser?.close());
afterEach(async () => {
  await servers.disposeAll();
});

const pages = [
  { id: 'dashboard', label: 'Dashboard', shows: 'section.overview' },
  { id: 'realtime', label: 'Realtime', shows: 'section.realtime-now' },
  { id: 'goals', label: 'Goals', shows: 'h2:text-is("Goals")' },
  { id: 'funnels', label: 'Funnels', shows: '.funnels-page' },
  { id: 'journeys', label: 'Journeys', shows: 'h2:text-is("Journeys")' },
  { id: 'retention', label: 'Retention', shows: 'h2:text-is("Retention")' },
  { id: 'attribution', label: 'Attribution and ROI', shows: '.attribution-page' },
  { id: 'events', label: 'Events', shows: 'h2:text-is("Event types")' },
  { id: 'settings', label: 'Settings', shows: '.settings-page' },
];

/** Every view screenshotted and checked at phone width: each page, each settings section, and the last 24 hours. */
const views = [
  ...pages.map((target) => ({ name: target.id, query: target.id === 'dashboard' ? '' : `&page=${target.id}`, shows: target.shows })),
  ...['sharing', 'webhooks', 'keys', 'spend', 'dlq', 'audit'].map((tab) => ({ name: `settings-${tab}`, query: `&page=settings&tab=${tab}`, shows: '.settings-page' })),
  { name: 'last-24-hours', query: '&period=24h', shows: 'section.overview' },
];

/** A small deterministic generator (the same data set on every run). */
function generator(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

/**
 * 20,000 events over the last 60 days (none after now) on two sites: visits of 1-6 pageviews a minute apart, some
 * with a signup, from a handful of sources, on 30 paths.
 */
function dataSet(now: number): Record<string, Record<string, unknown>[]> {
  const random = generator(42);
  const sources = ['https://www.google.com/', 'https://news.ycombinator.com/', 'https://twitter.com/', 'https://www.bing.com/', '', ''];
  const sets: Record<string, Record<string, unknown>[]> = { alpha: [], beta: [] };
  let total = 0;
  let visitor = 0;
  while (total < 20_000) {
    const site = random() < 0.7 ? 'alpha' : 'beta';
    const start = now - Math.floor(random() * 60 * 86_400_000) - 10 * 60_000;
    const anon = `v${visitor++ % 4_000}`;
    const views = 1 + Math.floor(random() * 6);
    const referrer = sources[Math.floor(random() * sources.length)]!;
    for (let view = 0; view < views && total < 20_000; view++, total++) {
      const path = `/${['docs', 'blog', 'pricing', 'about', 'guide'][Math.floor(random() * 5)]}/${Math.floor(random() * 6)}`;
      sets[site]!.push(browserEvent(site, { anon_id: anon, ts: new Date(start + view * 60_000).toISOString(), url: `https://${site}.example${path}`, ...(view === 0 && referrer ? { referrer } : {}) }));
    }
    if (random() < 0.1 && total < 20_000) {
      sets[site]!.push(browserEvent(site, { anon_id: anon, ts: new Date(start + views * 60_000).toISOString(), type: 'signup', url: `https://${site}.example/signup` }));
      total++;
    }
  }
  return sets;
}

async function seed(server: ShippedServer): Promise<void> {
  expect((await server.request('POST', '/v1/workspaces', { body: { name: 'Acme', slug: 'acme' } })).status).toBe(201);
  for (const [id, name] of [['alpha', 'Alpha shop'], ['beta', 'Beta blog']]) {
    expect((await server.request('POST', '/v1/workspaces/acme/sites', { body: { id, name } })).status).toBe(201);
  }
  for (const [site, events] of Object.entries(dataSet(Date.now()))) {
    for (let offset = 0; offset < events.length; offset += 500) await ingest(server, '/v1/s2s/events', site, events.slice(offset, offset + 500));
  }
  // Every event counted before the UI reads (a report's wait for the projector is bounded): the figures compared
  // below are then the same on both sides.
  for (const site of ['alpha', 'beta']) {
    await expect
      .poll(async () => {
        const { freshness } = (await server.request('GET', `/v1/sites/${site}/reports/summary-v2?from=${utcDate(-61)}&to=${utcDate(0)}`)).body.meta;
        return freshness.watermark !== null && freshness.watermark === freshness.projected_through;
      }, { timeout: 60_000 })
      .toBe(true);
  }
}

/** Every panel of the page has its answer: none busy, none saying Loading…. */
async function settled(page: Page): Promise<boolean> {
  return page.evaluate(() => document.querySelectorAll('[aria-busy="true"]').length === 0 && ![...document.querySelectorAll('.state')].some((element) => element.textContent === 'Loading…'));
}

async function noSidewaysScroll(page: Page): Promise<number> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  // Which elements reach past the screen's edge, to say so when the assertion fails.
  if (overflow > 0) {
    const offenders = await page.evaluate(() => {
      const clipped = (element: Element): boolean => {
        for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) if (getComputedStyle(parent).overflowX !== 'visible') return true;
        return false;
      };
      const width = document.documentElement.clientWidth;
      return [...document.querySelectorAll('body *')]
        .filter((element) => element.getBoundingClientRect().right > width + 1 && !clipped(element))
        .slice(0, 6)
        .map((element) => `${element.tagName.toLowerCase()}.${[...element.classList].join('.')} (${Math.round(element.getBoundingClientRect().right)}px): ${(element.textContent ?? '').slice(0, 30)}`);
    });
    console.log('wider than the screen:', offenders);
  }
  return overflow;
}

describe('the admin UI\'s pages in a browser, on 20,000 events over 60 days', () => {
  it('navigates every page by link and URL, plots today by hour, settles a filter, shows realtime, fits a phone', async () => {
    const server = await servers.start();
    await seed(server);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${server.url}/`);
    // E-mail and password first: the admin token is one click away.
    await page.click('button:text("Use an admin token or API key")');
    await page.fill('#token', server.adminToken);
    await page.click('button:text("Sign in")');

    // The sites overview: each site's visitors today as summary-v2 counts them.
    for (const site of ['alpha', 'beta']) {
      const today = await server.request('GET', `/v1/sites/${site}/reports/summary-v2?from=${utcDate(0)}&to=${utcDate(0)}`);
      const card = page.locator('.site-card', { has: page.locator(`code:text-is("${site}")`) });
      await expect.poll(() => card.locator('.site-today strong').textContent(), { timeout: 30_000 }).toBe(String(today.body.data.visitors));
      expect(await card.locator('svg.spark rect').count()).toBe(24);
    }
    await page.screenshot({ path: join(artifacts, 'pages-sites-light.png'), fullPage: true });

    // Open a site from the overview; Today plots 24 hourly points, and the legend shows the newest one (never "--").
    await page.click('.site-card a.site-name:text("Alpha shop")');
    await page.waitForURL(/\?site=alpha$/);
    // The period keys listen once the dashboard is shown (a key pressed while the site is still being checked is lost).
    await page.locator('#period').waitFor();
    await page.keyboard.press('t');
    await page.waitForURL(/period=today/);
    await expect.poll(() => page.locator('.chart').getAttribute('data-points'), { timeout: 30_000 }).toBe('24');
    await expect.poll(() => page.locator('.u-legend').textContent(), { timeout: 30_000 }).not.toContain('--');
    expect(await page.locator('.u-legend').textContent()).toContain('Hour (UTC)');
    expect(await page.locator('.comparison-note').textContent()).toMatch(/^Compared with \d{4}-\d{2}-\d{2} until \d{2}:\d{2} UTC/);

    // Last 24 hours, beside Today: 24 hourly points ending with this hour, and the cards as summary-v2 since= counts them.
    await page.keyboard.press('h');
    await page.waitForURL(/period=24h/);
    const hour = 3_600_000;
    const since = `${new Date(Math.floor(Date.now() / hour) * hour - 23 * hour).toISOString().slice(0, 13)}:00:00Z`;
    await expect.poll(() => page.locator('.range-text').textContent(), { timeout: 30_000 }).toBe(`Since ${since.slice(0, 10)} ${since.slice(11, 16)} UTC`);
    await expect.poll(() => page.locator('.chart').getAttribute('data-points'), { timeout: 30_000 }).toBe('24');
    const window = await server.request('GET', `/v1/sites/alpha/reports/summary-v2?from=${since.slice(0, 10)}&to=${utcDate(0)}&since=${since}`);
    expect(window.status, window.text).toBe(200);
    for (const measure of ['visitors', 'visits', 'pageviews'] as const) {
      await expect.poll(async () => Number((await page.locator(`.card[data-measure="${measure}"] .card-value`).textContent())?.replace(/\D/g, '')), { timeout: 30_000 }).toBe(window.body.data[measure]);
    }
    // The tables count the same 24 hours (since= on the ranked reports): no caveat about two UTC days any more.
    const windowPages = await server.request('GET', `/v1/sites/alpha/reports/pages-v2?from=${since.slice(0, 10)}&to=${utcDate(0)}&since=${since}&limit=10`);
    const pageRows = panel(page, 'Pages').locator('tr.clickable');
    await expect.poll(() => pageRows.count(), { timeout: 30_000 }).toBe(windowPages.body.data.rows.length);
    for (const [index, row] of windowPages.body.data.rows.entries()) {
      const cells = await pageRows.nth(index).locator('td').allTextContents();
      expect(`${await pageRows.nth(index).locator('th[scope=row]').textContent()} ${cells[1]}`, `Pages row ${index}`).toBe(`${row.path} ${row.pageviews.toLocaleString('en-US')}`);
    }
    expect(await page.locator('.window-note').count()).toBe(0);
    await page.screenshot({ path: join(artifacts, 'pages-last-24-hours-light.png'), fullPage: true });

    // A filter click over 30 days: the time until every panel has its answer is printed, never asserted.
    await page.keyboard.press('d');
    await page.waitForURL(/period=30d/);
    await expect.poll(() => settled(page), { timeout: 60_000 }).toBe(true);
    const requests: { path: string; start: number; end: number }[] = [];
    const onFinished = (request: Request) => {
      const timing = request.timing();
      requests.push({ path: new URL(request.url()).pathname.replace('/v1/sites/alpha/', ''), start: timing.startTime, end: timing.startTime + timing.responseEnd });
    };
    page.on('requestfinished', onFinished);
    // Sources grouped by Matomo's list (www.google.com is Google, twitter.com Twitter), as sources-v2?grouped=true ranks them.
    const grouped = (await server.request('GET', `/v1/sites/alpha/reports/sources-v2?from=${utcDate(-29)}&to=${utcDate(0)}&grouped=true&limit=10`)).body.data.rows;
    expect(grouped.map((row: { source: string }) => row.source)).toEqual(expect.arrayContaining(['Google', 'Twitter', 'Bing', 'Hacker News', 'direct']));
    const sourceRows = panel(page, 'Sources').locator('tr.clickable');
    await expect.poll(() => sourceRows.count(), { timeout: 30_000 }).toBe(grouped.length);
    for (const [index, row] of grouped.entries()) expect(await sourceRows.nth(index).locator('th[scope=row]').textContent()).toContain(row.source);
    const clickedAt = Date.now();
    await sourceRows.first().click();
    await page.waitForURL(/f\.source=/);
    await expect.poll(() => settled(page), { timeout: 60_000, interval: 20 }).toBe(true);
    console.log(`[pages-browser] filter click to all panels settled (20,000 events, 30 days, Sources row): ${Date.now() - clickedAt} ms (load average ${loadavg().map((value) => value.toFixed(2)).join(' ')})`);
    page.off('requestfinished', onFinished);
    // The panels came from one batched request (dashboard-v2), not one request per panel.
    const reports = requests.map((request) => request.path).filter((path) => path.startsWith('reports/') && path !== 'reports/realtime-v2');
    expect(reports).toEqual(['reports/dashboard-v2']);
    // Filtered by a group, Sources lists the group's own sources (google.com for Google).
    const clicked = new URL(page.url()).searchParams.get('f.source')!;
    expect(clicked).toBe(grouped[0].source);
    const members = (await server.request('GET', `/v1/sites/alpha/reports/sources-v2?from=${utcDate(-29)}&to=${utcDate(0)}&source=${encodeURIComponent(clicked)}&limit=10`)).body.data.rows;
    await expect.poll(() => sourceRows.count(), { timeout: 30_000 }).toBe(members.length);
    expect(await sourceRows.first().locator('th[scope=row]').textContent()).toContain(members[0].source);
    // Each report's request, from the click: when it was sent and when its answer ended (ms).
    const first = Math.min(...requests.map((request) => request.start));
    // A reference measured now on this machine: one summary-v2 of the same view alone, over HTTP from here.
    const floorStart = Date.now();
    await server.request('GET', `/v1/sites/alpha/reports/summary-v2?from=${utcDate(-29)}&to=${utcDate(0)}&source=${encodeURIComponent(grouped[0].source)}&compare=previous`);
    console.log(`[pages-browser] reference: one summary-v2 of that view alone ${Date.now() - floorStart} ms`);
    console.log(`[pages-browser] its requests (sent → answered, ms after the first): ${requests.map((request) => `${request.path} ${Math.round(request.start - first)}→${Math.round(request.end - first)}`).join(', ')}`);
    await page.locator('.chip button').click();
    await expect.poll(() => settled(page), { timeout: 60_000 }).toBe(true);

    // Every page from the navigation, then by its URL; the back button returns to the page before.
    let previous = page.url();
    for (const target of pages) {
      await page.click(`nav.site-nav a:text-is("${target.label}")`);
      if (target.id !== 'dashboard') await page.waitForURL(new RegExp(`page=${target.id}`));
      await expect.poll(() => page.locator(target.shows).count(), { timeout: 30_000 }).toBeGreaterThan(0);
      expect(await page.locator('nav.site-nav a[aria-current="page"]').textContent()).toBe(target.label);
      const address = page.url();
      if (target.id !== 'dashboard') {
        await page.goBack();
        await page.waitForURL(previous);
        await page.goForward();
        await page.waitForURL(address);
        await expect.poll(() => page.locator(target.shows).count(), { timeout: 30_000 }).toBeGreaterThan(0);
      }
      previous = address;
    }
    for (const target of pages) {
      await page.goto(`${server.url}/?site=alpha${target.id === 'dashboard' ? '' : `&page=${target.id}`}`);
      await expect.poll(() => page.locator(target.shows).count(), { timeout: 30_000 }).toBeGreaterThan(0);
    }

    // Realtime: an event sent now shows in the last 5 minutes within 2 s of its 202 (the live stream asks again).
    await page.goto(`${server.url}/?site=alpha&page=realtime`);
    const before = await server.request('GET', '/v1/sites/alpha/reports/realtime-v2');
    await expect.poll(() => page.getByTestId('visitors-5m').textContent(), { timeout: 30_000 }).toBe(String(before.body.visitors_last_5m));
    await expect.poll(() => page.locator('.live-status').textContent(), { timeout: 30_000 }).toBe('live');
    await ingest(server, '/v1/s2s/events', 'alpha', [browserEvent('alpha', { anon_id: 'just-now', url: 'https://alpha.example/now' })]);
    await expect.poll(() => page.getByTestId('visitors-5m').textContent(), { timeout: 2_000, interval: 50 }).toBe(String(before.body.visitors_last_5m + 1));
    await expect.poll(() => page.getByTestId('live-visitors').textContent(), { timeout: 30_000 }).not.toBeNull();

    // An unknown site: one clear state, not one per panel.
    await page.goto(`${server.url}/?site=no-such-site`);
    await expect.poll(() => page.locator('.not-found').count(), { timeout: 30_000 }).toBe(1);
    expect(await page.locator('[role=alert]').count()).toBe(1);
    expect(await page.locator('nav.site-nav').count()).toBe(0);

    // Every page at phone width, light and dark: nothing wider than the screen.
    for (const scheme of ['light', 'dark'] as const) {
      const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: scheme });
      const small = await phone.newPage();
      const smallProblems = watchProblems(small);
      await small.goto(`${server.url}/`);
      await small.locator('button:text("Use an admin token or API key")').waitFor();
      expect(await noSidewaysScroll(small), 'sign-in').toBe(0);
      await small.screenshot({ path: join(artifacts, `pages-phone-sign-in-${scheme}.png`), fullPage: true });
      await page.goto(`${server.url}/`);
      await page.emulateMedia({ colorScheme: scheme });
      await expect.poll(() => page.locator('.site-card').count(), { timeout: 30_000 }).toBe(2);
      await page.screenshot({ path: join(artifacts, `pages-sites-${scheme}.png`), fullPage: true });
      await small.click('button:text("Use an admin token or API key")');
      await small.fill('#token', server.adminToken);
      await small.click('button:text("Sign in")');
      await expect.poll(() => small.locator('.site-card').count(), { timeout: 30_000 }).toBe(2);
      expect(await noSidewaysScroll(small), 'sites').toBe(0);
      await small.screenshot({ path: join(artifacts, `pages-phone-sites-${scheme}.png`), fullPage: true });
      for (const target of views) {
        await small.goto(`${server.url}/?site=alpha${target.query}`);
        await expect.poll(() => small.locator(target.shows).count(), { timeout: 30_000 }).toBeGreaterThan(0);
        await expect.poll(() => settled(small), { timeout: 60_000 }).toBe(true);
        expect(await noSidewaysScroll(small), target.name).toBe(0);
        await small.screenshot({ path: join(artifacts, `pages-phone-${target.name}-${scheme}.png`), fullPage: true });
        // The desktop's too, on the first context's size.
        await page.goto(small.url());
        await page.emulateMedia({ colorScheme: scheme });
        await expect.poll(() => page.locator(target.shows).count(), { timeout: 30_000 }).toBeGreaterThan(0);
        await expect.poll(() => settled(page), { timeout: 60_000 }).toBe(true);
        await page.screenshot({ path: join(artifacts, `pages-${target.name}-${scheme}.png`), fullPage: true });
      }
      // A panel's Details: the whole list, searched and paged, on both sizes.
      for (const [shown, prefix] of [[page, 'pages'], [small, 'pages-phone']] as const) {
        await shown.goto(`${server.url}/?site=alpha&period=30d`);
        await panel(shown, 'Pages').locator('button:text("Details")').click();
        const details = shown.getByRole('dialog', { name: 'Pages: details' });
        await expect.poll(() => details.locator('tbody tr').count(), { timeout: 30_000 }).toBeGreaterThan(0);
        if (shown === small) expect(await noSidewaysScroll(small), 'details').toBe(0);
        await shown.screenshot({ path: join(artifacts, `${prefix}-details-${scheme}.png`) });
      }
      // Signed out, the sign-in page at the desktop's size.
      const fresh = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: scheme });
      const signIn = await fresh.newPage();
      await signIn.goto(`${server.url}/`);
      await signIn.locator('button:text("Use an admin token or API key")').waitFor();
      await signIn.screenshot({ path: join(artifacts, `pages-sign-in-${scheme}.png`), fullPage: true });
      await fresh.close();
      expect(smallProblems).toEqual([]);
      await phone.close();
    }
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a share link\'s site by name, and its embedding layout without the header', async () => {
    const server = await servers.start();
    expect((await server.request('POST', '/v1/workspaces', { body: { name: 'Acme', slug: 'acme' } })).status).toBe(201);
    expect((await server.request('POST', '/v1/workspaces/acme/sites', { body: { id: 'alpha', name: 'Alpha shop' } })).status).toBe(201);
    await ingest(server, '/v1/s2s/events', 'alpha', [browserEvent('alpha', { url: 'https://alpha.example/' })]);
    const link = await server.request('POST', '/v1/sites/alpha/share-links', { body: { label: 'Board', embed_origins: ['https://intranet.example'] } });
    expect(link.status, link.text).toBe(201);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${server.url}/?site=alpha#share=${link.body.token}`);
    // Polls with room for a loaded machine (the default second is not enough when the full suite shares two cores).
    await expect.poll(() => page.locator('.shared-note').textContent(), { timeout: 30_000 }).toBe('Shared dashboard of Alpha shop (read-only)');
    await expect.poll(() => page.locator('.card[data-measure="visitors"] .card-value').textContent(), { timeout: 30_000 }).toBe('1');
    await page.goto(`${server.url}/?site=alpha&embed=${link.body.id}#share=${link.body.token}`);
    await expect.poll(() => page.locator('.shell.embedded .card[data-measure="visitors"] .card-value').textContent(), { timeout: 30_000 }).toBe('1');
    expect(await page.locator('header.top').count()).toBe(0);
    await page.screenshot({ path: join(artifacts, 'pages-embedded-light.png'), fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  });
});
