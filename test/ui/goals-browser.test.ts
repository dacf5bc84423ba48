// Goals, segments and annotations in the admin UI (real chromium against the shipped server), each checked against
// the API: a goal created in the goal settings shows the conversion rate goals-v2 answers, and "make this a goal"
// on a custom event's row adds an event goal; filters saved as a segment and applied again give the same figures
// as those filters; a day of the chart clicked takes an annotation, which summary-v2's meta then lists; the funnel
// builder flags an event type the site never sent. Any console
// error or CSP violation fails the test. Screenshots (light, dark) go to test-artifacts/ui/.
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { browserEvent, createSite, ingest, shippedServers, utcDate } from '../e2e/_server.ts';
import { artifacts, launchBrowser, panel, watchProblems } from './_browser.ts';

const servers = shippedServers();
let browser: Browser;

vi.setConfig({ testTimeout: 120_000 });
beforeAll(async () => {
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => browser?.close());
afterEach(() => servers.disposeAll());

describe('goals, segments and annotations in the admin UI', () => {
  it('shows a goal\'s conversion rate as the API does, reapplies a segment\'s filters, and draws an annotation', async () => {
    const server = await servers.start();
    await createSite(server, 'shop');
    const today = utcDate(0);
    const at = (minutes: number) => new Date(Date.parse(`${today}T00:00:00.000Z`) + minutes * 60_000).toISOString();
    // Four visitors today: a and b view /pricing; a buys for 502.00 EUR, b for 319.00 USD; c and d read / only.
    await ingest(server, '/v1/s2s/events', 'shop', [
      browserEvent('shop', { anon_id: 'a', ts: at(1), url: 'https://shop.example/' }),
      browserEvent('shop', { anon_id: 'a', ts: at(2), url: 'https://shop.example/pricing' }),
      browserEvent('shop', { anon_id: 'a', ts: at(3), type: 'purchase', url: 'https://shop.example/thanks', revenue: { amount: '502.00', currency: 'EUR' } }),
      browserEvent('shop', { anon_id: 'b', ts: at(1), url: 'https://shop.example/pricing' }),
      browserEvent('shop', { anon_id: 'b', ts: at(2), type: 'purchase', url: 'https://shop.example/thanks', revenue: { amount: '319.00', currency: 'USD' } }),
      browserEvent('shop', { anon_id: 'c', ts: at(1), url: 'https://shop.example/' }),
      browserEvent('shop', { anon_id: 'd', ts: at(1), url: 'https://shop.example/' }),
    ]);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light', locale: 'en-US' });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${server.url}/`);
    await page.click('button:text("Use an admin token or API key")');
    await page.fill('#token', server.adminToken);
    await page.click('button:text("Sign in")');
    await page.goto(`${server.url}/?site=shop`);
    const range = `from=${utcDate(-6)}&to=${today}`;

    // A goal made in the settings (on the site's Goals page, opened by the site navigation), its path offered from
    // the site's pages.
    await page.click('nav.site-nav a:text-is("Goals")');
    await page.waitForURL(/\?site=shop&page=goals$/);
    const settings = panel(page, 'Goal settings');
    await settings.locator('input[name=goal-target]').fill('/pricing');
    await settings.locator('input[name=goal-name]').fill('Saw pricing');
    await settings.locator('button:text("Add goal")').click();
    const goals = panel(page, 'Goals');
    await expect.poll(() => goals.locator('tbody th').allTextContents()).toEqual(['Saw pricing']);
    const answer = await server.request('GET', `/v1/sites/shop/reports/goals-v2?${range}`);
    expect(answer.body.data.rows).toHaveLength(1);
    const rate = answer.body.data.rows[0].conversion_rate;
    expect(rate).toBe(0.5);
    expect(await goals.locator('td.conversion-rate').getAttribute('data-rate')).toBe(String(rate));
    expect(await goals.locator('td.conversion-rate').textContent()).toBe('50.0%');

    // "Make this a goal" on the purchase row: an event goal, whose revenue shows one currency a line.
    await settings.locator('tr', { hasText: 'purchase' }).locator('button:text("Make this a goal")').click();
    await expect.poll(() => goals.locator('tbody th').allTextContents()).toEqual(['Saw pricing', 'purchase']);
    const both = await server.request('GET', `/v1/sites/shop/reports/goals-v2?${range}`);
    expect(both.body.data.rows[1]).toMatchObject({ name: 'purchase', visitors: 2, conversions: 2, conversion_rate: 0.5 });
    expect(await goals.locator('tbody tr').nth(1).locator('.money').allTextContents()).toEqual(['€502.00', '$319.00']);

    // The dashboard's Goals panel shows the same two goals.
    await page.click('nav.site-nav a:text-is("Dashboard")');
    await page.waitForURL(/\?site=shop$/);
    await expect.poll(() => panel(page, 'Goals').locator('tbody th').allTextContents()).toEqual(['Saw pricing', 'purchase']);
    expect(await panel(page, 'Goals').locator('td.conversion-rate').first().textContent()).toBe('50.0%');

    // A filter (a click on /pricing in Pages) saved as a segment, cleared, and applied again.
    await panel(page, 'Pages').locator('tbody tr', { hasText: '/pricing' }).first().click();
    await page.waitForURL(/f\.path=%2Fpricing/);
    const visitorsCard = page.locator('.card[data-measure=visitors] .card-value');
    const filteredVisitors = await visitorsCard.textContent();
    await page.fill('input[name=segment-name]', 'Pricing readers');
    await page.click('button:text("Save segment")');
    await expect.poll(async () => (await server.request('GET', '/v1/sites/shop/segments')).body.segments.length).toBe(1);
    const segment = (await server.request('GET', '/v1/sites/shop/segments')).body.segments[0];
    expect(segment.filters).toEqual({ path: '/pricing' });
    await page.getByRole('button', { name: 'Remove filter path' }).click();
    await expect.poll(() => page.locator('.chip').count()).toBe(0);
    await page.selectOption('select[name=segment]', segment.id);
    await page.waitForURL(/f\.path=%2Fpricing/);
    await expect.poll(() => visitorsCard.textContent()).toBe(filteredVisitors);
    const bySegment = await server.request('GET', `/v1/sites/shop/reports/summary-v2?${range}&segment=${segment.id}`);
    const byFilters = await server.request('GET', `/v1/sites/shop/reports/summary-v2?${range}&path=%2Fpricing`);
    expect(bySegment.body.data).toEqual(byFilters.body.data);
    expect(filteredVisitors).toBe(String(byFilters.body.data.visitors));

    // Today's mark on the chart's strip, clicked, takes a note; the mark and the API show it.
    await page.locator(`button.day-mark[data-date="${today}"]`).click();
    await page.fill('input[name=annotation-text]', 'Launch day');
    await page.click('button:text("Add note")');
    await expect.poll(() => page.locator('.annotation-strip li.annotated button').getAttribute('data-date')).toBe(today);
    expect(await page.locator('.annotation-list li').allTextContents()).toEqual([`${today} Launch day`]);
    const summary = await server.request('GET', `/v1/sites/shop/reports/summary-v2?${range}`);
    expect(summary.body.meta.annotations.map((note: { date: string; text: string }) => [note.date, note.text])).toEqual([[today, 'Launch day']]);

    // Details: the whole list of pages, searched.
    await panel(page, 'Pages').locator('button:text("Details")').click();
    const details = page.getByRole('dialog', { name: 'Pages: details' });
    await expect.poll(() => details.locator('tbody th').allTextContents()).toEqual(['/pricing']);
    await details.locator('button:text("Close")').click();

    // The world map: Natural Earth's countries, each named by its ISO code (abbreviated names included).
    const map = panel(page, 'Map');
    expect(await map.locator('path.country-shape').count()).toBeGreaterThan(170);
    for (const code of ['DE', 'US', 'CD', 'BR']) expect(await map.locator(`path[data-code="${code}"]`).count(), code).toBe(1);

    await page.screenshot({ path: join(artifacts, 'goals-segments-annotations-light.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: join(artifacts, 'goals-segments-annotations-dark.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });

    // The funnel builder (the Funnels page) offers the site's event types and pages, and flags a typo before it runs.
    await page.click('nav.site-nav a:text-is("Funnels")');
    await page.waitForURL(/page=funnels/);
    const funnel = panel(page, 'Funnel');
    await expect.poll(() => funnel.locator('input[name=step-type-2]').count()).toBe(1);
    await expect.poll(() => page.locator('#funnel-types option').evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value))).toEqual(['pageview', 'purchase']);
    await funnel.locator('input[name=step-type-2]').fill('purchse');
    await expect.poll(() => funnel.locator('.step-problem').allTextContents()).toEqual(['No “purchse” event in this period']);
    await funnel.locator('input[name=step-type-2]').fill('purchase');
    await expect.poll(() => funnel.locator('.step-problem').count()).toBe(0);
    await page.screenshot({ path: join(artifacts, 'goals-funnel-light.png'), fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  });
});
