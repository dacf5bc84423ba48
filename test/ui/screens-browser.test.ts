// The admin UI's management screens in a real browser (playwright-core driving Debian's chromium) against the shipped
// server as a child process, each checked against the API: workspaces (list, create, rename), a site's tracker
// snippet (offered by its empty dashboard and pasted into a page of another origin, whose visit arrives live on the
// realtime page; copied on the site's Settings page), its cookieless and retention settings (the API's validation error shown), deleting a site after
// a confirmation, the consent-banner editor (a live preview as text, the API's refusal shown, the stale-version
// conflict explained and resolved), outbound webhook endpoints (the secret once, a test delivery received by a
// real local receiver and its history as text, edit, disable, delete), editing a spend entry and deleting a range's
// entries, and attribution's per-conversion journeys. Any console error or CSP violation fails the test. Screenshots (light, dark) go to test-artifacts/ui/.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { browserEvent, browserUserAgent, ingest, shippedServers, utcDate } from '../e2e/_server.ts';
import { artifacts, launchBrowser, panel, watchProblems } from './_browser.ts';

const servers = shippedServers();
const markup = '<b id="injected">Hi</b>';
let browser: Browser;
let receiver: Server | undefined;

vi.setConfig({ testTimeout: 120_000 });
beforeAll(async () => {
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => browser?.close());
afterEach(async () => {
  await servers.disposeAll();
  receiver?.close();
});

/**
 * Another origin on 127.0.0.1: a webhook receiver answering 200 with markup in its body (it keeps what it was sent),
 * and GET /page.html, a page holding `page.snippet` (the tracker snippet copied from the UI).
 */
async function startReceiver(): Promise<{ url: string; origin: string; page: { snippet: string }; received: { headers: IncomingMessage['headers']; body: string }[] }> {
  const received: { headers: IncomingMessage['headers']; body: string }[] = [];
  const page = { snippet: '' };
  receiver = createServer((request, response) => {
    if (request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>Pricing</title>${page.snippet}</head><body>Pricing</body></html>`);
      return;
    }
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.writeHead(200, { 'content-type': 'text/html' }).end('<b>received</b>');
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const origin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  return { url: `${origin}/hooks`, origin, page, received };
}

describe('the admin UI\'s management screens in a browser, against the shipped server', () => {
  it('manages workspaces, a site\'s snippet, settings and deletion, its consent banner, the webhook endpoints, spend entries, and shows journeys', async () => {
    const server = await servers.start({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' });
    const hooks = await startReceiver();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${server.url}/`);
    await page.click('button:text("Use an admin token or API key")');
    await page.fill('#token', server.adminToken);
    await page.click('button:text("Sign in")');

    // Workspaces: two created in the form, listed as the API lists them; one renamed.
    for (const [name, slug] of [['Acme', 'acme'], ['Beta', 'beta']]) {
      await page.fill('input[name=workspace-name]', name!);
      await page.fill('input[name=workspace-slug]', slug!);
      await page.click('button:text("Create workspace")');
      await expect.poll(() => page.locator(`section.workspace h2:text-is("${name}")`).count()).toBe(1);
    }
    await panel(page, 'Acme').locator('button:text("Rename")').click();
    // An empty name is refused by the API, in its words.
    const emptyName = await server.request('PATCH', '/v1/workspaces/acme', { body: { name: '' } });
    expect(emptyName.status).toBe(400);
    await panel(page, 'Acme').locator('input[name=workspace-rename]').fill('');
    await page.click('button:text("Save name")');
    await expect.poll(() => panel(page, 'Acme').locator('[role=alert]').textContent()).toBe(`${emptyName.body.message}: /name ${emptyName.body.details[0].message}`);
    await panel(page, 'Acme').locator('input[name=workspace-rename]').fill('Acme Corp');
    await page.click('button:text("Save name")');
    await expect.poll(() => page.locator('section.workspace h2').allTextContents()).toEqual(['Acme Corp', 'Beta']);
    const workspaces = await server.request('GET', '/v1/workspaces');
    expect(workspaces.body.workspaces.map((workspace: { name: string }) => workspace.name)).toEqual(['Acme Corp', 'Beta']);
    expect(workspaces.body.workspaces[0].slug).toBe('acme');

    // Sites: one created in the form (which opens its dashboard), one through the API to be deleted.
    await page.selectOption('select[name=site-workspace]', 'acme');
    await page.fill('input[name=site-id]', 'blog');
    await page.fill('input[name=site-name]', 'The blog');
    await page.click('button:text("Create site")');
    await page.waitForURL(/\?site=blog$/);
    // The new site's empty dashboard offers the snippet; pasted into a page of another origin, its visit arrives live.
    const offered = page.locator('.overview input[name=tracker-snippet]');
    await expect.poll(() => offered.inputValue()).toBe(`<script defer src="${server.url}/sdk.js" data-site="blog"></script>`);
    hooks.page.snippet = await offered.inputValue();
    await page.click('nav.site-nav a:text-is("Realtime")');
    await expect.poll(() => page.locator('.live-status').textContent()).toBe('live');
    // Headless chromium says so in its user agent, and bots are never counted: the visitor's browser says Firefox.
    const visitorContext = await browser.newContext({ userAgent: browserUserAgent });
    const visitorPage = await visitorContext.newPage();
    await visitorPage.goto(`${hooks.origin}/page.html`);
    await expect.poll(() => page.locator('.live-events li .live-path').allTextContents()).toEqual(['/page.html']);
    await expect.poll(() => page.getByTestId('visitors-5m').textContent()).toBe('1');
    await visitorContext.close();
    // The site is cookieless by default: the visitor's id was derived by the collector. The tracker also sends an
    // engagement event when the page is hidden or left (closing the visitor's browser may send it): one pageview, and
    // every event of the visit under the derived id.
    const visit = await server.request('GET', `/v1/sites/blog/events/list-v2?from=${utcDate(0)}&to=${utcDate(0)}`);
    const visitEvents = visit.body.data.events as { type: string; anon_id: string }[];
    expect(visitEvents.filter((event) => event.type === 'pageview')).toHaveLength(1);
    expect(visitEvents.filter((event) => event.type !== 'pageview').map((event) => event.type)).toEqual(visitEvents.length > 1 ? ['engagement'] : []);
    for (const event of visitEvents) expect(event.anon_id).toMatch(/^cl_/);
    expect((await server.request('POST', '/v1/workspaces/acme/sites', { body: { id: 'doomed', name: 'Doomed' } })).status).toBe(201);
    // A site's settings are its own page, opened from the sites overview.
    await page.click('a.brand');
    await page.getByRole('link', { name: 'Settings of The blog' }).click();
    await page.waitForURL(/\?site=blog&page=settings$/);
    const settings = panel(page, 'Settings of The blog');

    // The snippet: docs/tracker.md's line with this server's origin, copied by its button.
    const snippet = `<script defer src="${server.url}/sdk.js" data-site="blog"></script>`;
    expect(await settings.locator('input[name=tracker-snippet]').inputValue()).toBe(snippet);
    await settings.locator('.snippet button:text("Copy")').click();
    await expect.poll(() => settings.locator('.snippet button').textContent()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(snippet);
    expect((await server.request('GET', '/sdk.js', { token: null })).status).toBe(200);

    // Settings: 3651 days is refused with the API's own words; 3650 and cookieless off are saved.
    const refused = await server.request('PATCH', '/v1/workspaces/acme/sites/blog', { body: { cookieless: false, retention_days: 3651 } });
    expect(refused.status).toBe(400);
    await settings.locator('input[name=site-cookieless]').uncheck();
    await settings.locator('input[name=site-retention]').fill('3651');
    await settings.locator('button:text("Save settings")').click();
    await expect.poll(() => settings.locator('.site-settings [role=alert]').textContent()).toBe(`${refused.body.message}: /retention_days ${refused.body.details[0].message}`);
    await settings.locator('input[name=site-retention]').fill('3650');
    await settings.locator('button:text("Save settings")').click();
    await expect.poll(() => settings.locator('.site-settings [role=status]').textContent()).toBe('Settings saved.');
    const saved = await server.request('GET', '/v1/workspaces/acme/sites/blog');
    expect(saved.body).toMatchObject({ cookieless: false, retention_days: 3650 });
    expect(await settings.locator('input[name=tracker-snippet]').inputValue()).toBe(`<script defer src="${server.url}/sdk.js" data-site="blog" data-cookieless="false"></script>`);
    // Empty is forever again.
    await settings.locator('input[name=site-retention]').fill('');
    await settings.locator('button:text("Save settings")').click();
    await expect.poll(async () => (await server.request('GET', '/v1/workspaces/acme/sites/blog')).body.retention_days).toBeNull();

    // The consent banner: loaded as the API answers it (the admin token names the workspace).
    const consentPath = '/v1/v2/sites/blog/consent-banner/config';
    const workspaceHeader = { 'x-workspace-id': 'acme' };
    const initial = await server.request('GET', consentPath, { headers: workspaceHeader });
    expect(initial.body.config_version).toBe(0);
    const consent = settings.locator('.consent');
    await expect.poll(() => consent.locator('input[name=banner-title]').inputValue()).toBe(initial.body.config.title);
    const draftPreview = consent.getByLabel('Preview of the draft', { exact: true });
    expect(await draftPreview.locator('.banner-title').textContent()).toBe(initial.body.config.title);
    // The preview follows the draft as text: markup typed into the title is shown, never run.
    await consent.locator('input[name=banner-title]').fill(markup);
    await consent.locator('textarea[name=banner-body]').fill('We count visits.\nNothing else.');
    await expect.poll(() => draftPreview.locator('.banner-title').textContent()).toBe(markup);
    expect(await draftPreview.locator('.banner-body').textContent()).toBe('We count visits.\nNothing else.');
    expect(await page.locator('#injected').count()).toBe(0);
    // The API refuses markup; its detail is shown.
    await consent.locator('button:text("Save banner")').click();
    await expect.poll(() => consent.locator('.consent-form [role=alert]').textContent()).toMatch(/^The request body is invalid.*\/config\/title/);
    await consent.locator('input[name=banner-title]').fill('Cookies on the blog');
    await consent.locator('button:text("Add a category")').click();
    await consent.locator('input[name=category-2-key]').fill('marketing');
    await consent.locator('input[name=category-2-label]').fill('Marketing');
    await consent.locator('textarea[name=category-2-description]').fill('Which campaign brought you.');
    await consent.locator('button:text("Save banner")').click();
    await expect.poll(() => consent.locator('.consent-form [role=status]').textContent()).toBe('Saved as version 1 (consent revision 1).');
    const first = await server.request('GET', consentPath, { headers: workspaceHeader });
    expect(first.body.config.title).toBe('Cookies on the blog');
    expect(first.body.config.body).toBe('We count visits.\nNothing else.');
    expect(first.body.config.categories.map((category: { key: string }) => category.key)).toEqual([...initial.body.config.categories.map((category: { key: string }) => category.key), 'marketing']);
    // Someone else saves version 2 meanwhile: the UI's save is refused, theirs is shown, and the draft is saved over it.
    const theirs = await server.request('PUT', consentPath, { headers: workspaceHeader, body: { config_version: 1, idempotency_key: 'someone-else-1', request_reconsent: true, config: { ...first.body.config, title: 'Their title' } } });
    expect(theirs.status, theirs.text).toBe(200);
    await consent.locator('input[name=banner-title]').fill('Mine again');
    await consent.locator('button:text("Save banner")').click();
    const conflict = consent.locator('.conflict');
    await expect.poll(() => conflict.locator('.their-version').textContent()).toBe('2');
    expect(await conflict.getByLabel('Their banner').locator('.banner-title').textContent()).toBe('Their title');
    expect(await consent.locator('input[name=banner-title]').inputValue()).toBe('Mine again');
    await page.screenshot({ path: join(artifacts, 'site-settings-conflict-light.png'), fullPage: true });
    await conflict.locator('button:text("Save my draft over theirs")').click();
    await expect.poll(() => consent.locator('.consent-form [role=status]').textContent()).toBe('Saved as version 3 (consent revision 2).');
    const mine = await server.request('GET', consentPath, { headers: workspaceHeader });
    expect(mine.body).toMatchObject({ config_version: 3, consent_revision: 2 });
    expect(mine.body.config.title).toBe('Mine again');
    expect(await consent.locator('.conflict').count()).toBe(0);

    // An admin-scoped key (which cannot read the sites' settings) edits the banner on the dashboard, in its own browser.
    const adminKey = await server.request('POST', '/v1/workspaces/acme/keys', { body: { label: 'ops', scopes: ['admin'] } });
    const keyContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const keyPage = await keyContext.newPage();
    const keyProblems = watchProblems(keyPage);
    await keyPage.goto(`${server.url}/?site=blog&page=settings`);
    await keyPage.click('button:text("Use an admin token or API key")');
    await keyPage.fill('#token', adminKey.body.plaintext);
    await keyPage.click('button:text("Sign in")');
    const keyConsent = panel(keyPage, 'Consent banner');
    await expect.poll(() => keyConsent.locator('input[name=banner-title]').inputValue()).toBe('Mine again');
    await keyConsent.locator('input[name=banner-accept_label]').fill('OK');
    await keyConsent.locator('button:text("Save banner")').click();
    await expect.poll(() => keyConsent.locator('[role=status]').textContent()).toBe('Saved as version 4 (consent revision 2).');
    expect((await server.request('GET', consentPath, { headers: workspaceHeader })).body.config.accept_label).toBe('OK');
    expect(keyProblems).toEqual([]);
    await keyContext.close();
    // The admin's page still holds version 3: its next save meets the key's version 4, and "Load their version" takes it.
    await consent.locator('input[name=banner-title]').fill('Stale edit');
    await consent.locator('button:text("Save banner")').click();
    await expect.poll(() => conflict.locator('.their-version').textContent()).toBe('4');
    await conflict.locator('button:text("Load their version")').click();
    await expect.poll(() => consent.locator('input[name=banner-title]').inputValue()).toBe('Mine again');
    expect(await consent.locator('input[name=banner-accept_label]').inputValue()).toBe('OK');
    expect(await consent.locator('.hint').first().textContent()).toMatch(/^Version 4, consent revision 2, /);
    expect((await server.request('GET', consentPath, { headers: workspaceHeader })).body.config_version).toBe(4);

    // Webhook endpoints (the Webhooks section of the settings): the secret once, a test delivery received, its
    // history as text.
    await page.click('nav.tabs a:text-is("Webhooks")');
    const webhooks = panel(page, 'Webhooks of Acme Corp');
    // A URL the API refuses: its reason is shown.
    const badUrl = await server.request('POST', '/v1/workspaces/acme/integrations/endpoints', { body: { url: 'ftp://example.com/hooks', event_types: ['event.purchase'] } });
    expect(badUrl.status).toBe(400);
    await webhooks.locator('input[name=endpoint-url]').fill('ftp://example.com/hooks');
    await webhooks.locator('button:text("Add endpoint")').click();
    await expect.poll(() => webhooks.locator('[role=alert]').textContent()).toBe(`${badUrl.body.message}: /url ${badUrl.body.details[0].message}`);
    await webhooks.locator('input[name=endpoint-url]').fill(hooks.url);
    await webhooks.locator('input[name="endpoint-type-bridge.action_recorded"]').check();
    await webhooks.locator('button:text("Add endpoint")').click();
    const secret = await webhooks.locator('input[name=endpoint-secret]').inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(await webhooks.locator('.created-link p').textContent()).not.toBe('');
    const endpoints = await server.request('GET', '/v1/workspaces/acme/integrations/endpoints');
    expect(endpoints.body.endpoints).toHaveLength(1);
    expect(endpoints.text).not.toContain(secret);
    const endpoint = endpoints.body.endpoints[0];
    expect(endpoint.event_types).toEqual(['event.purchase', 'bridge.action_recorded']);
    expect(await webhooks.locator('tbody th').allTextContents()).toEqual([hooks.url]);
    await webhooks.locator('button:text("Send test")').click();
    await expect.poll(() => webhooks.locator('p[role=status]').textContent()).toBe('Test delivery delivered: delivered (200).');
    expect(hooks.received).toHaveLength(1);
    expect(JSON.parse(hooks.received[0]!.body)).toMatchObject({ type: 'webhook.test', data: { endpoint_id: endpoint.id } });
    const deliveries = await server.request('GET', `/v1/workspaces/acme/integrations/endpoints/${endpoint.id}/deliveries`);
    const attempt = deliveries.body.deliveries[0].history[0];
    const history = webhooks.locator('.deliveries');
    await expect.poll(() => history.locator('.live-type').allTextContents()).toEqual(['webhook.test']);
    expect(await history.locator('tbody .outcome').allTextContents()).toEqual([attempt.outcome]);
    expect(await history.locator('tbody .status-code').allTextContents()).toEqual([String(attempt.status_code)]);
    expect(await history.locator('tbody td:nth-child(4)').allTextContents()).toEqual([`${attempt.latency_ms} ms`]);
    expect(await history.locator('.excerpt').allTextContents()).toEqual(['<b>received</b>']);
    expect(await history.locator('.excerpt b').count()).toBe(0);
    await webhooks.screenshot({ path: join(artifacts, 'webhooks-light.png') });
    // Edit: another URL and one event type.
    await webhooks.locator('button:text("Edit")').click();
    await webhooks.locator('input[name=edit-endpoint-url]').fill(`${hooks.url}/v2`);
    await webhooks.locator('input[name="edit-type-bridge.action_recorded"]').uncheck();
    await webhooks.locator('button:text("Save endpoint")').click();
    await expect.poll(() => webhooks.locator('tbody td.types').allTextContents()).toEqual(['event.purchase']);
    expect((await server.request('GET', `/v1/workspaces/acme/integrations/endpoints/${endpoint.id}`)).body).toMatchObject({ url: `${hooks.url}/v2`, event_types: ['event.purchase'] });
    // Disable, then enable again.
    await webhooks.locator('button:text("Disable")').click();
    await expect.poll(() => webhooks.locator('tbody td.state-cell').textContent()).toBe('disabled (operator)');
    expect((await server.request('GET', `/v1/workspaces/acme/integrations/endpoints/${endpoint.id}`)).body).toMatchObject({ status: 'disabled', disabled_reason: 'operator' });
    await webhooks.locator('button:text("Enable")').click();
    await expect.poll(() => webhooks.locator('tbody td.state-cell').textContent()).toBe('active');
    // Delete after a confirmation; Cancel keeps it.
    await webhooks.locator('tbody button:text("Delete")').click();
    await webhooks.locator('.confirm button:text("Cancel")').click();
    expect((await server.request('GET', '/v1/workspaces/acme/integrations/endpoints')).body.endpoints).toHaveLength(1);
    await webhooks.locator('tbody button:text("Delete")').click();
    await webhooks.locator('button:text("Delete endpoint")').click();
    await expect.poll(() => webhooks.locator('.state').textContent()).toBe('No endpoints.');
    expect((await server.request('GET', '/v1/workspaces/acme/integrations/endpoints')).body.endpoints).toEqual([]);

    // Spend: an entry edited, then one source's entries of the range deleted after a confirmation.
    const today = utcDate(0);
    const posted = await server.request('POST', '/v1/workspaces/acme/spend', { body: [{ date: today, source: 'google', medium: 'cpc', campaign: 'spring', amount: '12.50', currency: 'EUR' }, { date: today, source: 'bing', amount: '4.00', currency: 'EUR' }] });
    expect(posted.status, posted.text).toBe(201);
    // Journeys: alice came from google two days ago and from Hacker News today, then bought; bob bought with no earlier visit.
    const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    await ingest(server, '/v1/s2s/events', 'blog', [
      browserEvent('blog', { anon_id: 'alice', ts: minutesAgo(48 * 60), url: 'https://blog.example/?utm_source=google&utm_medium=cpc&utm_campaign=spring' }),
      browserEvent('blog', { anon_id: 'alice', ts: minutesAgo(20), url: 'https://blog.example/', referrer: 'https://news.ycombinator.com/' }),
      browserEvent('blog', { anon_id: 'alice', ts: minutesAgo(19), type: 'purchase', url: 'https://blog.example/buy', revenue: { amount: '49.00', currency: 'EUR' } }),
      browserEvent('blog', { anon_id: 'bob', ts: minutesAgo(5), type: 'purchase', url: null, revenue: { amount: '10.00', currency: 'EUR' } }),
    ]);
    const resultsPath = `/v1/workspaces/acme/attribution/results?from=${utcDate(-29)}&to=${today}&model=linear&limit=20`;
    await expect.poll(async () => (await server.request('GET', resultsPath)).body.results.length).toBe(2);
    const results = (await server.request('GET', resultsPath)).body.results;
    await page.click('nav.tabs a:text-is("Spend")');
    const spend = panel(page, 'Spend of Acme Corp');
    await expect.poll(() => spend.locator('tbody th').count()).toBe(2);
    await spend.locator('tr', { hasText: 'google' }).locator('button:text("Edit")').click();
    await spend.locator('input[name=edit-spend-amount]').fill('9.99');
    await spend.locator('input[name=edit-spend-campaign]').fill('');
    await spend.locator('button:text("Save entry")').click();
    await expect.poll(() => spend.locator('[role=status]').textContent()).toBe('Entry saved.');
    const edited = (await server.request('GET', `/v1/workspaces/acme/spend?from=${today}&to=${today}&source=google`)).body.entries;
    expect(edited).toMatchObject([{ amount: '9.99', campaign: null, medium: 'cpc' }]);
    await expect.poll(() => spend.locator('tbody td.number').allTextContents()).toContain('9.99 EUR');
    await spend.locator('input[name=delete-spend-source]').fill('google');
    await spend.locator('button:text("Delete entries of this range…")').click();
    expect(await spend.locator('.confirm p').textContent()).toBe(`Delete every entry from ${utcDate(-29)} to ${today} of source google? This cannot be undone.`);
    await spend.locator('button:text("Delete these entries")').click();
    await expect.poll(() => spend.locator('[role=status]').textContent()).toBe('1 entry deleted.');
    const left = (await server.request('GET', `/v1/workspaces/acme/spend?from=${utcDate(-29)}&to=${today}`)).body.entries;
    expect(left.map((entry: { source: string }) => entry.source)).toEqual(['bing']);
    await expect.poll(() => spend.locator('tbody th').count()).toBe(1);
    await spend.screenshot({ path: join(artifacts, 'spend-light.png') });
    // The journeys under the linear model (the Attribution and ROI page) equal the API's results: people, revenue,
    // touchpoints and credits.
    await page.click('nav.site-nav a:text-is("Attribution and ROI")');
    const attribution = panel(page, 'Attribution and ROI of Acme Corp');
    await attribution.locator('select[name=attribution-model]').selectOption('linear');
    const journeys = attribution.locator('.journey-list > li');
    await expect.poll(() => attribution.locator('.journey-person').allTextContents()).toEqual(results.map((result: { person: string }) => result.person));
    for (const [index, result] of results.entries()) {
      expect(await journeys.nth(index).locator('.journey-revenue').textContent()).toBe(`${result.revenue.amount} ${result.revenue.currency}`);
      expect(await journeys.nth(index).locator('.touch-credit').allTextContents()).toEqual(result.touchpoints.map((touch: { credit: number }) => String(touch.credit)));
      expect(await journeys.nth(index).locator('.touch-source').allTextContents()).toEqual(result.touchpoints.map((touch: { source: string | null; medium: string | null; campaign: string | null }) => [touch.source, touch.medium, touch.campaign].map((value) => value ?? '–').join(' / ')));
    }
    expect(results[0].touchpoints.length).toBe(2);
    expect(results[1].touchpoints).toEqual([]);
    await attribution.screenshot({ path: join(artifacts, 'journeys-light.png') });

    // Dark: the same page.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${server.url}/?site=blog&page=settings`);
    await expect.poll(() => settings.locator('input[name=banner-title]').inputValue()).toBe('Mine again');
    await page.screenshot({ path: join(artifacts, 'site-settings-dark.png'), fullPage: true });

    // Deleting a site asks first; Cancel keeps it, the confirmation deletes it (the API then answers 404).
    await page.goto(`${server.url}/?site=doomed&page=settings`);
    const doomed = panel(page, 'Settings of Doomed');
    await doomed.locator('button:text("Delete site")').click();
    await doomed.locator('.confirm button:text("Cancel")').click();
    expect((await server.request('GET', '/v1/workspaces/acme/sites/doomed')).status).toBe(200);
    await doomed.locator('button:text("Delete site")').click();
    await doomed.locator('button:text("Delete doomed for good")').click();
    await expect.poll(() => page.locator('.site-list code').allTextContents()).toEqual(['blog']);
    expect((await server.request('GET', '/v1/workspaces/acme/sites/doomed')).status).toBe(404);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/?site=blog&page=settings`);
    await expect.poll(() => settings.locator('input[name=banner-title]').inputValue()).toBe('Mine again');
    await page.screenshot({ path: join(artifacts, 'site-settings-phone-dark.png'), fullPage: true });
    console.log(`screenshots: ${artifacts}/{site-settings-conflict-light,webhooks-light,spend-light,journeys-light,site-settings-dark,site-settings-phone-dark}.png`);

    // The refused saves (400, 409) are logged by the browser itself: expected, and nothing else.
    expect(problems.filter((problem) => !/status of (400|409)/.test(problem))).toEqual([]);
    await context.close();
  });
});
