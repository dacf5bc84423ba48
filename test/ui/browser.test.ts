// The admin UI in a real browser (playwright-core driving Debian's chromium) against the shipped server as a child
// process: sign in, create a workspace and a site, ingest events over HTTP, the dashboard's numbers equal the API's,
// a click on a row filters the whole dashboard (and the URL), a live event arrives on the realtime page, a share
// link (created in Settings) works without a session until it is revoked in the UI, a key's plaintext is shown once
// and works until it is revoked. The events explorer, funnels, realtime, settings and attribution are each on their
// own page, reached through the site's navigation. Any console error or CSP violation fails the test. Screenshots (light, dark, phone) go to
// test-artifacts/ui/.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { browserEvent, createSite, ingest, type ShippedServer, shippedServers, utcDate } from '../e2e/_server.ts';
import { contractBundle } from '../plan/fixtures.ts';
import { makeTempDir } from '../_setup.ts';
import { artifacts, launchBrowser, panel, watchProblems } from './_browser.ts';

const siteId = 'blog';
const markup = '<img src=x onerror="window.injected=1">';
const servers = shippedServers();
let browser: Browser;

vi.setConfig({ testTimeout: 240_000 });
beforeAll(async () => {
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => browser?.close());
afterEach(() => servers.disposeAll());

const cardValue = (page: Page, measure: string) => page.locator(`.card[data-measure="${measure}"] .card-value`);

async function expectCardsToMatch(page: Page, server: ShippedServer, query: string): Promise<void> {
  const answer = await server.request('GET', `/v1/sites/${siteId}/reports/summary-v2?from=${utcDate(-6)}&to=${utcDate(0)}${query}`);
  expect(answer.status, answer.text).toBe(200);
  const data = answer.body.data;
  await expect.poll(() => cardValue(page, 'visitors').textContent()).toBe(String(data.visitors));
  expect(await cardValue(page, 'visits').textContent()).toBe(String(data.visits));
  expect(await cardValue(page, 'pageviews').textContent()).toBe(String(data.pageviews));
  expect(await cardValue(page, 'views_per_visit').textContent()).toBe(data.views_per_visit.toFixed(2));
  expect(await cardValue(page, 'bounce_rate').textContent()).toBe(`${(data.bounce_rate * 100).toFixed(1)}%`);
}

describe('the admin UI in a browser, against the shipped server', () => {
  it('signs in, creates a site, shows the API\'s numbers, filters by a row, shows a live event, shares and revokes a link, creates and revokes a key', async () => {
    const server = await servers.start();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
    const page = await context.newPage();
    const problems = watchProblems(page);

    await page.goto(`${server.url}/`);
    await page.screenshot({ path: join(artifacts, 'sign-in-light.png') });
    await page.click('button:text("Use an admin token or API key")');
    await page.fill('#token', 'not-the-token');
    await page.click('button:text("Sign in")');
    await expect.poll(() => page.locator('[role=alert]').textContent()).toBe('That token is not valid.');
    // A failed sign-in is a 401 the browser logs itself: the only console error allowed.
    problems.splice(0);
    await page.fill('#token', server.adminToken);
    await page.click('button:text("Sign in")');

    await page.fill('input[name=workspace-name]', 'Acme');
    await page.fill('input[name=workspace-slug]', 'acme');
    await page.click('button:text("Create workspace")');
    await page.fill('input[name=site-id]', siteId);
    await page.fill('input[name=site-name]', 'The blog');
    await page.click('button:text("Create site")');
    await page.waitForURL(/\?site=blog$/);
    const sites = await server.request('GET', '/v1/workspaces/acme/sites');
    expect(sites.body.sites.map((site: { id: string }) => site.id)).toEqual([siteId]);
    await expect.poll(() => page.locator('.overview .state').first().textContent()).toBe('No visits in this period yet.');

    const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    await ingest(server, '/v1/s2s/events', siteId, [
      browserEvent(siteId, { anon_id: 'alice', ts: minutesAgo(20), url: 'https://blog.example/', referrer: 'https://www.google.com/' }),
      browserEvent(siteId, { anon_id: 'alice', ts: minutesAgo(19), url: 'https://blog.example/pricing' }),
      browserEvent(siteId, { anon_id: 'alice', ts: minutesAgo(18), type: 'signup', url: 'https://blog.example/pricing', user_id: 'user-alice', props: { plan: 'pro' } }),
      browserEvent(siteId, { anon_id: 'alice', ts: minutesAgo(17), type: 'purchase', url: 'https://blog.example/pricing', revenue: { amount: '49.00', currency: 'EUR' } }),
      browserEvent(siteId, { anon_id: 'bob', ts: minutesAgo(15), url: 'https://blog.example/pricing' }),
      browserEvent(siteId, { anon_id: 'carol', ts: minutesAgo(10), url: 'https://blog.example/about', referrer: 'https://news.ycombinator.com/' }),
      browserEvent(siteId, { anon_id: 'dave', ts: minutesAgo(5), type: 'signup', url: 'https://blog.example/about', props: { plan: markup } }),
      // In the previous 7 days: the comparison.
      browserEvent(siteId, { anon_id: 'old', ts: minutesAgo(8 * 24 * 60), url: 'https://blog.example/' }),
    ]);
    await page.reload();
    await expectCardsToMatch(page, server, '');
    // The comparison with the previous 7 days, as a delta on the card.
    const before = await server.request('GET', `/v1/sites/${siteId}/reports/summary-v2?from=${utcDate(-13)}&to=${utcDate(-7)}`);
    const now = await server.request('GET', `/v1/sites/${siteId}/reports/summary-v2?from=${utcDate(-6)}&to=${utcDate(0)}`);
    expect(before.body.data.visitors).toBe(1);
    const change = (now.body.data.visitors - before.body.data.visitors) / before.body.data.visitors;
    await expect.poll(() => page.locator('.card[data-measure="visitors"] .delta').textContent()).toBe(`+${(change * 100).toFixed(0)}%`);
    // Keyboard: d is the last 30 days, x moves the comparison on (to the same weekdays a year earlier), w back to 7 days.
    await page.keyboard.press('d');
    await page.waitForURL(/period=30d/);
    await page.keyboard.press('x');
    await page.waitForURL(/compare=year/);
    await expect.poll(() => page.locator('.card[data-measure="visitors"] .delta').textContent()).toBe('—');
    await page.keyboard.press('x');
    await page.keyboard.press('x');
    await page.keyboard.press('w');
    await page.waitForURL(/\?site=blog$/);
    await expectCardsToMatch(page, server, '');
    const pages = await server.request('GET', `/v1/sites/${siteId}/reports/pages-v2?from=${utcDate(-6)}&to=${utcDate(0)}`);
    const shownPaths = await panel(page, 'Pages').locator('tbody th').allTextContents();
    expect(shownPaths).toEqual(pages.body.data.rows.map((row: { path: string }) => row.path));
    // The events explorer (the Events page): the types and the list equal overview-v2 and list-v2; the heat strip
    // shows the last hour.
    await page.click('nav.site-nav a:text-is("Events")');
    const overview = await server.request('GET', `/v1/sites/${siteId}/events/overview-v2?from=${utcDate(-6)}&to=${utcDate(0)}`);
    await expect.poll(() => panel(page, 'Event types').locator('tbody th').allTextContents()).toEqual(overview.body.data.types.map((row: { type: string }) => row.type));
    await expect.poll(() => panel(page, 'Events of the period').locator('tbody tr').count()).toBe(overview.body.data.total);
    await expect.poll(() => panel(page, 'Last hour by path').locator('tbody th').count()).toBeGreaterThan(0);
    // The per-user timeline equals the API's (once the projector has bound the user id: the API is asked first).
    await expect.poll(async () => (await server.request('GET', `/v1/sites/${siteId}/users/user-alice/timeline`)).status).toBe(200);
    const timeline = await server.request('GET', `/v1/sites/${siteId}/users/user-alice/timeline`);
    await panel(page, 'User timeline').locator('input[name=timeline-user]').fill('user-alice');
    await panel(page, 'User timeline').locator('button:text("Show")').click();
    await expect.poll(() => panel(page, 'User timeline').locator('li .live-type').allTextContents()).toEqual(timeline.body.events.map((event: { type: string }) => event.type));
    // The funnel builder: pageview → signup within a day over the same 7 days; its steps and the transition's
    // explanation equal the API's.
    const funnelQuery = { site_id: siteId, from: utcDate(-6), to: utcDate(0), steps: [{ type: 'pageview' }, { type: 'signup' }], window: { value: 1, unit: 'days' } };
    const funnel = await server.request('POST', '/v1/workspaces/acme/analysis/funnels-v2', { body: funnelQuery });
    expect(funnel.status, funnel.text).toBe(200);
    await page.click('nav.site-nav a:text-is("Funnels")');
    const funnelPanel = panel(page, 'Funnel');
    await funnelPanel.locator('button:text("Run")').click();
    await expect.poll(() => funnelPanel.locator('table.funnel-result tbody td:nth-child(2)').allTextContents()).toEqual(funnel.body.data.steps.map((step: { count: number }) => String(step.count)));
    const explanation = await server.request('POST', '/v1/workspaces/acme/analysis/funnels-v2/explanation', {
      body: { query: funnelQuery, transition: { from_step: 1, to_step: 2 }, execution_id: funnel.body.data.execution_id },
    });
    expect(explanation.status, explanation.text).toBe(200);
    await funnelPanel.locator('button:text("Why 1 → 2?")').click();
    await expect.poll(() => funnelPanel.getByTestId('converted').textContent()).toBe(String(explanation.body.data.converted));
    expect(await funnelPanel.getByTestId('dropped').textContent()).toBe(String(explanation.body.data.dropped));
    // By browser: the breakdown's values and counts equal the API's.
    const byBrowser = await server.request('POST', '/v1/workspaces/acme/analysis/funnels-v2', { body: { ...funnelQuery, date_mode: 'first_step', breakdown: 'browser' } });
    expect(byBrowser.status, byBrowser.text).toBe(200);
    await funnelPanel.locator('select[name=breakdown]').selectOption('browser');
    await funnelPanel.locator('button:text("Run")').click();
    await expect.poll(() => funnelPanel.locator('table.funnel-breakdown tbody th').allTextContents()).toEqual(byBrowser.body.data.breakdown.map((group: { value: string }) => group.value));
    expect(await funnelPanel.locator('table.funnel-breakdown tbody tr').first().locator('td').first().textContent()).toBe(String(byBrowser.body.data.breakdown[0].steps[0].count));
    // Custom properties (on the dashboard): a value with markup in it is shown as text, never run as markup.
    await page.click('nav.site-nav a:text-is("Dashboard")');
    await panel(page, 'Custom properties').locator('input').nth(0).fill('signup');
    await panel(page, 'Custom properties').locator('input').nth(1).fill('plan');
    await panel(page, 'Custom properties').locator('button:text("Break down")').click();
    const props = await server.request('GET', `/v1/sites/${siteId}/reports/props-v2?from=${utcDate(-6)}&to=${utcDate(0)}&type=signup&property=plan`);
    const propCells = panel(page, 'signup by plan').locator('tbody th');
    await expect.poll(() => propCells.allTextContents()).toEqual(props.body.data.rows.map((row: { value: string }) => row.value));
    expect(await propCells.allTextContents()).toContain(markup);
    expect(await page.locator('tbody img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { injected?: number }).injected)).toBeUndefined();
    await page.screenshot({ path: join(artifacts, 'dashboard-light.png'), fullPage: true });

    await panel(page, 'Pages').locator('tr.clickable', { hasText: '/pricing' }).click();
    await page.waitForURL(/f\.path=%2Fpricing/);
    await expect.poll(() => page.locator('.chip span').textContent()).toBe('path is /pricing');
    await expectCardsToMatch(page, server, '&path=%2Fpricing');
    expect(await panel(page, 'Pages').locator('tbody th').allTextContents()).toEqual(['/pricing']);

    // The realtime page hears a new event through stream-v2, authenticated by the cookie; its visitors of the last
    // 5 minutes are realtime-v2's (stored events by event time), and the filter stays in the URL.
    await page.click('nav.site-nav a:text-is("Realtime")');
    await expect.poll(() => page.locator('.live-status').textContent()).toBe('live');
    await ingest(server, '/v1/s2s/events', siteId, [browserEvent(siteId, { anon_id: 'erin', url: 'https://blog.example/live-check' })]);
    await expect.poll(() => page.locator('.live-events li .live-path').allTextContents()).toContain('/live-check');
    const realtime = await server.request('GET', `/v1/sites/${siteId}/reports/realtime-v2`);
    await expect.poll(() => page.getByTestId('visitors-5m').textContent()).toBe(String(realtime.body.visitors_last_5m));
    await page.click('nav.site-nav a:text-is("Dashboard")');
    await page.waitForURL(/\?site=blog&f\.path=%2Fpricing$/);

    // Bookmarkable: the same URL in the dark scheme keeps the filter.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.reload();
    await expect.poll(() => page.locator('.chip span').textContent()).toBe('path is /pricing');
    await expectCardsToMatch(page, server, '&path=%2Fpricing');
    await page.screenshot({ path: join(artifacts, 'dashboard-dark.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('.chip button').click();
    await expectCardsToMatch(page, server, '');
    await page.screenshot({ path: join(artifacts, 'dashboard-phone-dark.png'), fullPage: true });
    console.log(`screenshots: ${artifacts}/{sign-in-light,dashboard-light,dashboard-dark,dashboard-phone-dark,sites-phone-dark}.png`);

    // A share link: created in the UI (Settings, Share links), opened without a session (its own browser context),
    // revoked, refused.
    await page.click('nav.site-nav a:text-is("Settings")');
    await page.click('nav.tabs a:text-is("Share links")');
    await page.fill('input[name=share-label]', 'For the team');
    await page.click('button:text("Create link")');
    const shareUrl = await page.locator('.share-url').inputValue();
    expect(shareUrl).toMatch(new RegExp(`^${server.url}/\\?site=blog#share=shr_[A-Za-z0-9_-]{43}$`));
    const visitor = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const shared = await visitor.newPage();
    const sharedProblems = watchProblems(shared);
    await shared.goto(shareUrl);
    await expectCardsToMatch(shared, server, '');
    // The site's name, not its id (issue: a share link showed the id).
    expect(await shared.locator('.shared-note').textContent()).toBe('Shared dashboard of The blog (read-only)');
    expect(await panel(shared, 'Realtime').count()).toBe(0);
    expect(await panel(shared, 'Share links').count()).toBe(0);
    expect(sharedProblems).toEqual([]);
    await panel(page, 'Share links').locator('button:text("Revoke")').click();
    await expect.poll(() => panel(page, 'Share links').locator('tbody td.number').textContent()).toBe('revoked');
    await shared.reload();
    // One clear state instead of each panel's refusal.
    await expect.poll(() => shared.locator('.not-found h1').textContent()).toBe('This link does not open a dashboard');
    expect(await shared.locator('[role=alert]').count()).toBe(1);
    // After revocation the browser logs the refused reads itself (401s): expected, and nothing else.
    expect(sharedProblems.filter((problem) => !/status of 401/.test(problem))).toEqual([]);
    await visitor.close();

    // Keys: created in the site's Settings (API keys), the plaintext shown once; it works until it is revoked there.
    await page.click('nav.tabs a:text-is("API keys")');
    await page.fill('input[name=key-label]', 'reader');
    await page.click('button:text("Create key")');
    const plaintext = await page.locator('input[name=key-plaintext]').inputValue();
    expect(plaintext).toMatch(/^sk_acme_[A-Za-z0-9_-]{32}$/);
    const summaryPath = `/v1/sites/${siteId}/reports/summary-v2?from=${utcDate(0)}&to=${utcDate(0)}`;
    expect((await server.request('GET', summaryPath, { token: plaintext })).status).toBe(200);
    expect((await server.request('GET', '/v1/workspaces/acme/keys')).text).not.toContain(plaintext);
    // Signed in with that read-only key (its own browser): a site is opened by id, the dashboard reads with the key's
    // scope, and what needs more (keys, audit, share links, the DLQ) is not offered.
    const reader = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const readerPage = await reader.newPage();
    const readerProblems = watchProblems(readerPage);
    await readerPage.goto(`${server.url}/`);
    await readerPage.click('button:text("Use an admin token or API key")');
    await readerPage.fill('#token', plaintext);
    await readerPage.click('button:text("Sign in")');
    await readerPage.fill('input[name=open-site]', siteId);
    await readerPage.click('button:text("Open")');
    await expectCardsToMatch(readerPage, server, '');
    await readerPage.click('nav.site-nav a:text-is("Settings")');
    expect(await readerPage.locator('nav.tabs a').allTextContents()).toEqual(['Tracking and privacy', 'Spend']);
    await readerPage.click('nav.tabs a:text-is("Spend")');
    await expect.poll(() => panel(readerPage, 'Spend of Acme').count()).toBe(1);
    expect(await panel(readerPage, 'Share links').count()).toBe(0);
    expect(await panel(readerPage, 'Dead-letter queue').count()).toBe(0);
    expect(await panel(readerPage, 'API keys of Acme').count()).toBe(0);
    expect(await panel(readerPage, 'Audit log of Acme').count()).toBe(0);
    expect(await readerPage.locator('input[name=spend-source]').count()).toBe(0);
    expect(readerProblems).toEqual([]);
    await reader.close();
    await page.goto(`${server.url}/?site=${siteId}&page=settings&tab=keys`);
    await expect.poll(() => panel(page, 'API keys of Acme').locator('tbody th').allTextContents()).toEqual(['reader']);
    expect(await page.locator('input[name=key-plaintext]').count()).toBe(0);
    await panel(page, 'API keys of Acme').locator('button:text("Revoke")').click();
    await expect.poll(() => panel(page, 'API keys of Acme').locator('tbody td.number').textContent()).toBe('revoked');
    expect((await server.request('GET', summaryPath, { token: plaintext })).status).toBe(401);
    // The audit log shows what was done, newest first, as the API does.
    const audit = await server.request('GET', '/v1/workspaces/acme/audit?limit=20');
    await page.click('nav.tabs a:text-is("Audit log")');
    await expect.poll(() => panel(page, 'Audit log of Acme').locator('tbody .action').allTextContents()).toEqual(audit.body.entries.map((entry: { action: string }) => entry.action));
    expect(audit.body.entries.map((entry: { action: string }) => entry.action).slice(0, 4)).toEqual(['key.revoke', 'key.create', 'share_link.revoke', 'share_link.create']);
    await page.screenshot({ path: join(artifacts, 'sites-phone-dark.png'), fullPage: true });

    // Spend: a CSV with a bad line is refused whole, every bad line shown as the API lists it; a good one imports.
    await page.click('nav.tabs a:text-is("Spend")');
    const spend = panel(page, 'Spend of Acme');
    const today = utcDate(0);
    const badCsv = `date,source,medium,campaign,amount,currency\n${today},google,cpc,spring,12.50,EUR\n${today},bing,cpc,,12.505,EUR\n`;
    const refusedCsv = await server.request('POST', '/v1/workspaces/acme/spend/csv', { rawBody: badCsv, headers: { 'content-type': 'text/csv' } });
    expect(refusedCsv.status).toBe(400);
    await spend.locator('input[name=spend-csv]').setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from(badCsv) });
    await expect.poll(() => spend.locator('.csv-errors li').allTextContents()).toEqual(refusedCsv.body.rows.map((row: { line: number; message: string }) => `line ${row.line}: ${row.message}`));
    const goodCsv = badCsv.replace('12.505', '7.25');
    await spend.locator('input[name=spend-csv]').setInputFiles({ name: 'good.csv', mimeType: 'text/csv', buffer: Buffer.from(goodCsv) });
    await expect.poll(() => spend.locator('[role=status]').textContent()).toBe('2 entries imported from good.csv.');
    await spend.locator('input[name=spend-source]').fill('newsletter');
    await spend.locator('input[name=spend-amount]').fill('3');
    await spend.locator('button:text("Add")').click();
    await expect.poll(() => spend.locator('[role=status]').textContent()).toBe('Entry added.');
    const listed = await server.request('GET', `/v1/workspaces/acme/spend?from=${utcDate(-29)}&to=${today}`);
    expect(listed.body.entries).toHaveLength(3);
    await expect.poll(() => spend.locator('tbody td.number').allTextContents()).toEqual(listed.body.entries.map((entry: { amount: string; currency: string }) => `${entry.amount} ${entry.currency}`));
    // Attribution and ROI: the credited conversions under two models and ROI per currency equal the API's.
    await page.click('nav.site-nav a:text-is("Attribution and ROI")');
    const attribution = panel(page, 'Attribution and ROI of Acme');
    const range = `from=${utcDate(-29)}&to=${today}`;
    for (const model of ['last_touch', 'first_touch']) {
      await attribution.locator('select[name=attribution-model]').selectOption(model);
      const results = await server.request('GET', `/v1/workspaces/acme/attribution/results?${range}&model=${model}&limit=1`);
      expect(results.status, results.text).toBe(200);
      const expected = results.body.totals.map((row: { source: string | null }) => row.source ?? '–');
      await expect.poll(() => attribution.locator('section.panel tbody th').allTextContents()).toEqual(expected);
    }
    const roi = await server.request('GET', `/v1/workspaces/acme/roi?${range}&model=first_touch`);
    expect(roi.body.currencies).toHaveLength(1);
    await expect.poll(async () => (await attribution.locator('table.roi tbody th').allTextContents())).toEqual(['EUR']);
    expect(await attribution.locator('table.roi tbody td').first().textContent()).toMatch(new RegExp(`^${roi.body.currencies[0].spend.replace('.', '\\.')}`));
    // The refused upload's 400 is logged by the browser itself: expected, and nothing else.
    problems.splice(0, problems.length, ...problems.filter((problem) => !/status of 400/.test(problem)));

    await page.click('button:text("Sign out")');
    await expect.poll(() => page.locator('#token').count()).toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('lists a quarantined event in the dead-letter queue and replays it once the plan accepts it', async () => {
    // A plan without its wildcard quarantines a `refund`; the same plan with it accepts one.
    const withWildcard = contractBundle();
    const { '*': _wildcard, ...withoutWildcard } = withWildcard.events;
    const planPath = join(makeTempDir('sightline-ui-plan-'), 'plan.json');
    writeFileSync(planPath, JSON.stringify({ ...withWildcard, events: withoutWildcard }));
    const server = await servers.start({ SCHEMA_BUNDLE_PATH: planPath, SCHEMA_MODE: 'quarantine' });
    const site = 'dlq-site';
    await createSite(server, site);
    const refund = browserEvent(site, { type: 'refund', url: null });
    const sent = await server.request('POST', '/v1/s2s/events', { token: site, body: [refund], headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' } });
    expect(sent.status, sent.text).toBe(202);
    const quarantined = (await server.request('GET', `/v1/sites/${site}/dlq`)).body.events;
    expect(quarantined).toHaveLength(1);
    expect(await server.stop()).toEqual({ code: 0, signal: null });
    writeFileSync(planPath, JSON.stringify(withWildcard));
    await server.restart();

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${server.url}/?site=${site}&page=settings&tab=dlq`);
    await page.click('button:text("Use an admin token or API key")');
    await page.fill('#token', server.adminToken);
    await page.click('button:text("Sign in")');
    const dlq = panel(page, 'Dead-letter queue');
    await expect.poll(() => dlq.locator('.dlq-rows .live-type').allTextContents()).toEqual(['refund']);
    expect(await dlq.locator('.dlq-errors li').count()).toBeGreaterThan(0);
    await dlq.locator('summary').click();
    expect(JSON.parse((await dlq.locator('pre').textContent())!)).toEqual(refund);
    await dlq.locator('button:text("Replay")').click();
    await expect.poll(() => dlq.locator('[role=status]').textContent()).toBe(`Event ${quarantined[0].id} replayed: it is stored and counted now.`);
    expect(await dlq.locator('.dlq-rows').count()).toBe(0);
    expect((await server.request('GET', `/v1/sites/${site}/dlq`)).body.events).toEqual([]);
    const types = await server.request('GET', `/v1/sites/${site}/events/overview-v2?from=${utcDate(-1)}&to=${utcDate(1)}`);
    expect(types.body.data.types).toEqual([{ type: 'refund', count: 1 }]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
