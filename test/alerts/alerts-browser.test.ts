// The site settings' alerts and e-mail report panels in a real browser (playwright-core, Debian's chromium) against
// the shipped server: an alert added through the form as the API lists it, the API's refusal shown as it comes,
// deleted again; the e-mail reports panel tells the admin token it has no inbox instead of asking the API. Any
// console error (but the refusal's 400) or CSP violation fails the test.
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { shippedServers } from '../e2e/_server.ts';
import { launchBrowser, panel, watchProblems } from '../ui/_browser.ts';

const servers = shippedServers();
let browser: Browser;

vi.setConfig({ testTimeout: 120_000 });
beforeAll(async () => {
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => browser?.close());
afterEach(() => servers.disposeAll());

describe('alerts in the site settings', () => {
  it('adds a webhook alert through the form, shows a refusal, deletes it; the e-mail reports panel explains itself', async () => {
    const server = await servers.start({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' });
    expect((await server.request('POST', '/v1/workspaces', { body: { name: 'Acme', slug: 'acme' } })).status).toBe(201);
    expect((await server.request('POST', '/v1/workspaces/acme/sites', { body: { id: 'blog', name: 'The blog' } })).status).toBe(201);
    const endpoint = await server.request('POST', '/v1/workspaces/acme/integrations/endpoints', { body: { url: 'http://127.0.0.1:9/hooks', event_types: ['event.purchase'] } });
    expect(endpoint.status).toBe(201);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    // The site's Settings page (its own URL), signed in with the admin token.
    await page.goto(`${server.url}/?site=blog&page=settings`);
    await page.click('button:text("Use an admin token or API key")');
    await page.fill('#token', server.adminToken);
    await page.click('button:text("Sign in")');
    const settings = panel(page, 'Settings of The blog');
    const alerts = settings.locator('.alerts');
    await expect.poll(() => alerts.locator('.state').textContent()).toBe('No alerts yet.');
    expect(await settings.locator('.email-reports, p.hint:text("E-mail reports go to a person")').count()).toBe(1);

    await alerts.locator('input[name=alert-threshold]').fill('0');
    await alerts.locator('input[name=alert-endpoint]').fill(endpoint.body.id);
    await alerts.locator('button:text("Add alert")').click();
    const refused = await server.request('POST', '/v1/sites/blog/alerts', { body: { kind: 'traffic_spike', threshold: 0, recipients: [], endpoint_id: endpoint.body.id } });
    await expect.poll(() => alerts.locator('[role=alert]').textContent()).toBe(`${refused.body.error.message}: /threshold ${refused.body.error.details[0].message}`);

    await alerts.locator('input[name=alert-threshold]').fill('5');
    await alerts.locator('button:text("Add alert")').click();
    await expect.poll(() => alerts.locator('li').count()).toBe(1);
    expect(await alerts.locator('li').textContent()).toContain('Spike: 5+ visitors in an hour; 0 recipient(s), and a webhook;');
    const listed = (await server.request('GET', '/v1/sites/blog/alerts')).body.alerts;
    expect(listed).toEqual([expect.objectContaining({ kind: 'traffic_spike', threshold: 5, recipients: [], endpoint_id: endpoint.body.id, last_fired_at: null })]);

    await alerts.locator('li button:text("Delete")').click();
    await expect.poll(() => alerts.locator('li').count()).toBe(0);
    expect((await server.request('GET', '/v1/sites/blog/alerts')).body.alerts).toEqual([]);
    expect(problems.filter((problem) => !/status of 400/.test(problem))).toEqual([]);
    await context.close();
  });
});
