// Journeys, page flow and retention in the admin UI (a real browser against the shipped server): the numbers on
// screen equal the API's (journeys-v2 at two step counts, page-flow-v2 from a Pages row, retention-v2 by week), a
// click on a node of the Sankey-style picture filters the whole dashboard by its page (and the URL), and no console
// error or CSP violation happens. Screenshots (light and dark) go to test-artifacts/ui/.
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { browserEvent, createSite, ingest, shippedServers, utcDate } from '../e2e/_server.ts';
import { artifacts, launchBrowser, panel, watchProblems } from './_browser.ts';

const siteId = 'paths';
const servers = shippedServers();
let browser: Browser;

vi.setConfig({ testTimeout: 120_000 });
beforeAll(async () => {
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => browser?.close());
afterEach(() => servers.disposeAll());

describe('journeys and retention in the admin UI', () => {
  it('shows the API\'s journeys, page flow and cohorts, and a node click filters the dashboard by its page', async () => {
    const server = await servers.start();
    await createSite(server, siteId);
    const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    const view = (anonId: string, minutes: number, path: string) => browserEvent(siteId, { anon_id: anonId, ts: minutesAgo(minutes), url: `https://paths.example${path}` });
    await ingest(server, '/v1/s2s/events', siteId, [
      view('alice', 30, '/'),
      view('alice', 29, '/pricing'),
      view('alice', 28, '/signup'),
      view('bob', 25, '/'),
      view('bob', 24, '/pricing'),
      view('carol', 20, '/about'),
      // Dave came first 15 days ago and is back: a returning person of an earlier weekly cohort.
      view('dave', 15 * 24 * 60, '/'),
      view('dave', 10, '/'),
      view('dave', 9, '/pricing'),
    ]);
    const range = `from=${utcDate(-6)}&to=${utcDate(0)}`;
    const journeysOf = async (steps: number) => {
      const answer = await server.request('GET', `/v1/sites/${siteId}/reports/journeys-v2?${range}&steps=${steps}&limit=10`);
      expect(answer.status, answer.text).toBe(200);
      return answer.body.data.paths as { steps: string[]; visitors: number; visits: number }[];
    };
    const threeSteps = await journeysOf(3);
    expect(threeSteps.length).toBeGreaterThan(0);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${server.url}/`);
    await page.click('button:text("Use an admin token or API key")');
    await page.fill('#token', server.adminToken);
    await page.click('button:text("Sign in")');
    await page.goto(`${server.url}/?site=${siteId}`);

    // Journeys are a page of their own, opened by the site navigation.
    await page.click('nav.site-nav a:text-is("Journeys")');
    await page.waitForURL(/page=journeys/);
    const journeys = panel(page, 'Journeys');
    const shownRows = () => journeys.locator('table.journeys-table tbody tr').evaluateAll((rows) => rows.map((row) => Array.from(row.children, (cell) => cell.textContent)));
    const expectedRows = (paths: typeof threeSteps) => paths.map((path) => [path.steps.join(' → '), String(path.visitors), String(path.visits)]);
    await expect.poll(shownRows).toEqual(expectedRows(threeSteps));
    await journeys.locator('select[name=journey-steps]').selectOption('2');
    await expect.poll(shownRows).toEqual(expectedRows(await journeysOf(2)));
    // The picture: one node per page and step, each showing its page.
    const firstStepNodes = await journeys.locator('.sankey-node[data-step="1"]').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-path')).sort());
    expect(firstStepNodes).toEqual([...new Set((await journeysOf(2)).map((path) => path.steps[0]!))].sort());
    await journeys.screenshot({ path: join(artifacts, 'behaviour-journeys-light.png') });

    // From a page: the picker offers the period's pages.
    await journeys.locator('select[name=journey-mode]').selectOption('start');
    await journeys.locator('select[name=journey-page]').selectOption('/pricing');
    const fromPricing = await server.request('GET', `/v1/sites/${siteId}/reports/journeys-v2?${range}&steps=2&limit=10&start_path=%2Fpricing`);
    await expect.poll(shownRows).toEqual(expectedRows(fromPricing.body.data.paths));

    // Page flow from the Pages row of /pricing (on the dashboard).
    await page.click('nav.site-nav a:text-is("Dashboard")');
    await page.waitForURL(new RegExp(`\\?site=${siteId}$`));
    const pages = panel(page, 'Pages');
    await pages.locator('button[aria-label="Flow of /pricing"]').click();
    const flow = await server.request('GET', `/v1/sites/${siteId}/reports/page-flow-v2?${range}&path=%2Fpricing&limit=10`);
    expect(flow.status, flow.text).toBe(200);
    const popover = page.locator('.page-flow');
    const sideRows = (title: string) =>
      popover.locator('.flow-side', { has: page.locator(`h3:text-is("${title}")`) }).locator('li').evaluateAll((items) => items.map((item) => item.textContent));
    await expect.poll(() => sideRows('Before')).toEqual(flow.body.data.previous.map((row: { path: string; visits: number }) => `${row.path} ${row.visits}`));
    expect(await sideRows('After')).toEqual(flow.body.data.next.map((row: { path: string; visits: number }) => `${row.path} ${row.visits}`));
    expect(await popover.getByTestId('flow-exits').textContent()).toBe(String(flow.body.data.exits));
    await popover.screenshot({ path: join(artifacts, 'behaviour-page-flow-light.png') });
    // The flow button does not filter; Escape closes the popover.
    expect(page.url()).not.toContain('path=');
    await page.keyboard.press('Escape');
    await expect.poll(() => popover.count()).toBe(0);

    // Retention by week (its own page): sizes and returning counts equal the API's.
    const goal = await server.request('POST', `/v1/sites/${siteId}/goals`, { body: { name: 'Pricing', kind: 'pageview', path: '/pricing' } });
    expect(goal.status, goal.text).toBe(201);
    await page.click('nav.site-nav a:text-is("Retention")');
    await page.waitForURL(/page=retention/);
    const retention = panel(page, 'Retention');
    const cohortsShown = () =>
      retention.locator('tbody tr').evaluateAll((rows) =>
        rows.map((row) => [row.querySelector('th')?.textContent, row.querySelector('[data-testid=cohort-size]')?.textContent, Array.from(row.querySelectorAll('.retention-cell'), (cell) => Number(cell.getAttribute('data-count')))]),
      );
    await expect.poll(async () => (await cohortsShown()).length).toBeGreaterThan(0);
    const shown = await cohortsShown();
    const from = shown[0]![0]!;
    const api = await server.request('GET', `/v1/sites/${siteId}/reports/retention-v2?from=${from}&to=${utcDate(0)}&period=week`);
    expect(api.status, api.text).toBe(200);
    expect(shown).toEqual(api.body.data.cohorts.map((cohort: { start: string; size: number; returning: number[] }) => [cohort.start, String(cohort.size), cohort.returning]));
    expect(api.body.data.cohorts.some((cohort: { returning: number[] }) => cohort.returning.some((count) => count > 0))).toBe(true);
    await retention.screenshot({ path: join(artifacts, 'behaviour-retention-light.png') });
    // Started on the goal: the cohorts of the first conversions on /pricing, as the API counts them.
    await retention.locator('select[name=retention-goal]').selectOption({ label: 'the first conversion on Pricing' });
    const onGoal = await server.request('GET', `/v1/sites/${siteId}/reports/retention-v2?from=${from}&to=${utcDate(0)}&period=week&goal=${goal.body.id}`);
    expect(onGoal.status, onGoal.text).toBe(200);
    expect(onGoal.body.data.cohorts).not.toEqual(api.body.data.cohorts);
    const goalCohorts = onGoal.body.data.cohorts.map((cohort: { start: string; size: number; returning: number[] }) => [cohort.start, String(cohort.size), cohort.returning]);
    await expect.poll(cohortsShown).toEqual(goalCohorts);
    await retention.locator('select[name=retention-goal]').selectOption({ label: 'the first visit' });

    // A node click (back on the Journeys page, at two steps from the entry) filters by its page: the URL and the
    // journeys follow, and so does the dashboard's Pages table.
    await page.click('nav.site-nav a:text-is("Journeys")');
    await page.waitForURL(/page=journeys/);
    await journeys.locator('select[name=journey-steps]').selectOption('2');
    await journeys.locator('select[name=journey-mode]').selectOption('entry');
    await expect.poll(shownRows).toEqual(expectedRows(await journeysOf(2)));
    await journeys.locator('.sankey-node[data-path="/pricing"] text').first().click();
    await page.waitForURL(/path=%2Fpricing/);
    const filtered = await server.request('GET', `/v1/sites/${siteId}/reports/journeys-v2?${range}&steps=2&limit=10&path=%2Fpricing`);
    await expect.poll(shownRows).toEqual(expectedRows(filtered.body.data.paths));

    await page.emulateMedia({ colorScheme: 'dark' });
    await journeys.screenshot({ path: join(artifacts, 'behaviour-journeys-dark.png') });
    await page.click('nav.site-nav a:text-is("Dashboard")');
    await page.waitForURL((url) => (url.searchParams.get('page') ?? 'dashboard') === 'dashboard');
    expect(page.url()).toContain('path=%2Fpricing');
    await expect.poll(() => pages.locator('tbody th').allTextContents()).toEqual(['/pricing']);
    await page.click('nav.site-nav a:text-is("Retention")');
    await page.waitForURL(/page=retention/);
    await expect.poll(async () => (await cohortsShown()).length).toBeGreaterThan(0);
    await retention.screenshot({ path: join(artifacts, 'behaviour-retention-dark.png') });
    expect(problems).toEqual([]);
    await context.close();
  });
});
