// The tracker in a real browser against the shipped server (a child process, test/e2e/_server.ts): a site created
// with the CLI (cookieless, the default), then a visitor loads a page with the snippet, moves to an SPA route, triggers a custom event with props, clicks a
// tagged button and an outbound link, submits a form (an invalid try first), and opens a page whose own code throws.
// The reports then count exactly those events, all of one derived visitor, and the browser holds no cookie and no
// storage. The gzipped size of the /sdk.js the shipped server serves is asserted too.
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser } from 'playwright-core';
import { ensureBuilt, parseJsonOutput, runCli } from '../cli/cli-helpers.ts';
import { shippedServers, utcDate } from '../e2e/_server.ts';
import { eventually, launchChromium, type PageServer, servePages, snippet, visitorContext } from './_browser.ts';

const siteId = 'tracker-e2e';
const servers = shippedServers();
let browser: Browser;
let pages: PageServer | undefined;

vi.setConfig({ testTimeout: 90_000 });
beforeAll(async () => {
  await ensureBuilt();
  browser = await launchChromium();
}, 120_000);
afterEach(async () => {
  await pages?.close();
  await servers.disposeAll();
});
afterAll(() => browser?.close());

describe('the tracker against the shipped server', () => {
  it('records pageviews, an SPA route, custom, tagged, outbound and form events, cookieless, and the reports count exactly those', async () => {
    const server = await servers.start();
    // As a user would: the CLI on the running server's data directory, then the snippet in a page.
    expect((await runCli(['workspace', 'create', '--name', 'Demo', '--slug', 'demo'], { DATA_DIR: server.dataDir })).code).toBe(0);
    const site = parseJsonOutput(await runCli(['site', 'create', '--workspace', 'demo', '--id', siteId, '--name', 'Demo site', '--json'], { DATA_DIR: server.dataDir }));
    expect(site.cookieless).toBe(true);

    const sdk = Buffer.from(await (await fetch(`${server.url}/sdk.js`)).arrayBuffer());
    const gzipped = gzipSync(sdk, { level: 9 }).length;
    console.log(`/sdk.js from the shipped server: ${sdk.length} bytes, ${gzipped} bytes gzipped (level 9)`);
    expect(gzipped).toBeLessThan(2048);

    const tag = snippet(server.url, siteId, 'data-auto-outbound="true" data-auto-forms="true"');
    pages = await servePages({
      '/': `<!doctype html><title>Home</title>${tag}
        <button id="cta" class="big sightline-event-cta_click">Try it</button>
        <a id="out" href="https://outbound.example/offer">Partner</a>
        <a id="inside" href="/form">Same site</a>`,
      '/form': `<!doctype html><title>Form</title>${tag}
        <form id="signup" action="/thanks" method="post"><input name="email" type="email" required><button id="send">Send</button></form>`,
      '/thanks': '<!doctype html><title>Thanks</title>',
      '/broken': `<!doctype html><title>Broken</title><script>window.hostBug()</script>${tag}<script>throw new Error('host bug')</script>`,
    });
    const context = await visitorContext(browser);
    await context.route('https://outbound.example/**', (route) => route.fulfill({ contentType: 'text/html', body: '<title>Partner</title>' }));
    const pageErrors: string[] = [];

    const home = await context.newPage();
    home.on('pageerror', (error) => pageErrors.push(error.message));
    await home.goto(`${pages.url}/`);
    await home.waitForFunction(() => 'sightline' in window);
    await home.evaluate(() => {
      history.pushState({}, '', '/spa/route');
      // The same URL again, by either method: not a second view.
      history.replaceState({ step: 2 }, '', '/spa/route');
      history.pushState({}, '', '/spa/route');
      (window as unknown as { sightline: { track(type: string, props: unknown): void } }).sightline.track('signup', { plan: 'pro', seats: 3 });
    });
    await home.click('#cta');
    await home.click('#out');
    await home.waitForURL('https://outbound.example/offer');

    const form = await context.newPage();
    form.on('pageerror', (error) => pageErrors.push(error.message));
    await form.goto(`${pages.url}/form`);
    await form.waitForFunction(() => 'sightline' in window);
    // Empty required field: the browser refuses the submission, no submit event, nothing tracked.
    await form.click('#send');
    expect(await form.evaluate(() => (document.querySelector('input') as HTMLInputElement).validity.valid)).toBe(false);
    await form.fill('input', 'ada@example.com');
    await form.click('#send');
    await form.waitForURL(`${pages.url}/thanks`);

    const broken = await context.newPage();
    broken.on('pageerror', (error) => pageErrors.push(error.message));
    await broken.goto(`${pages.url}/broken`);
    await broken.waitForFunction(() => 'sightline' in window);

    const day = utcDate();
    const range = `from=${day}&to=${day}`;
    const expectedTypes = [
      { type: 'pageview', count: 4 },
      { type: 'cta_click', count: 1 },
      { type: 'form_submit', count: 1 },
      { type: 'outbound_click', count: 1 },
      { type: 'signup', count: 1 },
    ];
    // The engagement events each page sends when it is left are not counted here: how many arrive depends on whether
    // a navigation's keepalive request lands (test/tracker/engagement-browser.test.ts has them, exactly).
    const withoutEngagement = (data: { total: number; types: { type: string; count: number }[] }) => {
      const engaged = data.types.find((row) => row.type === 'engagement')?.count ?? 0;
      return { total: data.total - engaged, types: data.types.filter((row) => row.type !== 'engagement') };
    };
    const overview = await eventually(
      () => server.request('GET', `/v1/sites/${siteId}/events/overview-v2?${range}`),
      (answer) => answer.body.data !== undefined && withoutEngagement(answer.body.data).total >= 8,
    );
    expect(overview.status, overview.text).toBe(200);
    expect(withoutEngagement(overview.body.data)).toEqual({ total: 8, types: expectedTypes });

    const list = await server.request('GET', `/v1/sites/${siteId}/events/list-v2?${range}&limit=200`);
    expect(list.status, list.text).toBe(200);
    const events = list.body.data.events as Record<string, any>[];
    const byType = (type: string) => events.filter((event) => event.type === type);
    expect(byType('pageview').map((event) => new URL(event.url).pathname).sort()).toEqual(['/', '/broken', '/form', '/spa/route']);
    expect(byType('signup')[0]).toMatchObject({ props: { plan: 'pro', seats: 3 } });
    expect(byType('outbound_click')[0]).toMatchObject({ props: { url: 'https://outbound.example/offer' } });
    expect(byType('form_submit')[0]).toMatchObject({ props: { form: 'signup' } });
    // Cookieless: one visitor, its id derived by the server, and nothing kept in the browser.
    expect(new Set(events.map((event) => event.anon_id))).toEqual(new Set([expect.stringMatching(/^cl_/)]));
    expect(await context.cookies()).toEqual([]);
    const stored = await context.storageState();
    expect(stored.origins.flatMap((origin) => origin.localStorage)).toEqual([]);

    const pageviews = await server.request('GET', `/v1/sites/${siteId}/pageviews?${range}`);
    expect(pageviews.status, pageviews.text).toBe(200);
    expect(pageviews.body).toEqual({ count: 4, by_day: [{ date: day, count: 4 }] });
    const summary = await server.request('GET', `/v1/sites/${siteId}/reports/summary-v2?${range}`);
    expect(summary.body.data).toMatchObject({ visitors: 1, pageviews: 4 });

    // Only the page's own errors: the tracker threw nothing into it.
    expect(pageErrors.sort()).toEqual(['host bug', 'window.hostBug is not a function']);
    await context.close();
  });
});
