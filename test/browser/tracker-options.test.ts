// The tracker's options and edges in chromium against an in-process server (one site per scenario, events read from
// the event log): SPA navigation by popstate and hash changes, consent and identify, Do Not Track / Global Privacy
// Control, the retry of a failed delivery with the same event id, calls queued before the script loaded, a
// persistent id for sites with cookieless off, downloads and tagged elements, and calls that must not throw.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { eventually, launchChromium, type PageServer, servePages, snippet, visitorContext } from './_browser.ts';

interface StoredRow {
  type: string;
  path: string | null;
  anon_id: string;
  user_id: string | null;
  raw: string;
}

let server: TestServer;
let browser: Browser;
let pages: PageServer | undefined;
let context: BrowserContext | undefined;

vi.setConfig({ testTimeout: 60_000 });
beforeAll(async () => {
  server = await startTestServer();
  await seedWorkspace(server, 'acme', { sites: ['spa', 'hash', 'consent', 'dnt', 'control', 'retry', 'auto', 'calls', 'long'] });
  const classic = await server.request('POST', '/workspaces/acme/sites', { body: { id: 'classic', name: 'Cookies allowed', cookieless: false } });
  expect(classic.status).toBe(201);
  browser = await launchChromium();
}, 120_000);
afterEach(async () => {
  await context?.close();
  await pages?.close();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** The site's events but the engagement ones a page sends when it is left (test/browser/tracker-engagement.test.ts has those). */
function rows(siteId: string): StoredRow[] {
  return server.db.prepare("SELECT type, path, anon_id, user_id, raw FROM events WHERE site_id = ? AND type != 'engagement' ORDER BY seq").all(siteId) as StoredRow[];
}

function untilStored(siteId: string, count: number): Promise<StoredRow[]> {
  return eventually(async () => rows(siteId), (found) => found.length >= count);
}

async function open(html: Record<string, string>, path = '/'): Promise<Page> {
  pages = await servePages(html);
  context = await visitorContext(browser);
  const page = await context.newPage();
  page.on('pageerror', (error) => {
    throw error;
  });
  await page.goto(pages.url + path);
  await page.waitForFunction(() => 'sightline' in window);
  return page;
}

type Api = { track(...args: unknown[]): void; identify(id: unknown): void; consent(choice: unknown): void };
const api = (page: Page, call: (sightline: Api) => void) => page.evaluate(`(${call.toString()})(window.sightline)`);

describe('the tracker in chromium', () => {
  it('counts popstate navigations, and hash changes only with data-hash', async () => {
    const page = await open({ '/': `<title>SPA</title>${snippet(server.url, 'spa')}` });
    await page.evaluate(() => history.pushState({}, '', '/a'));
    await page.evaluate(() => history.back());
    await page.waitForURL(/\/$/);
    await page.evaluate(() => (location.hash = 'section'));
    await page.waitForURL(/#section$/);
    // A last pageview proves everything before it was handled.
    await page.evaluate(() => history.pushState({}, '', '/end'));
    const spa = await untilStored('spa', 4);
    // Each event is its own request: they may commit in another order than sent.
    expect(spa.map((row) => row.path).sort()).toEqual(['/', '/', '/a', '/end']);

    await context!.close();
    await pages!.close();
    const hashPage = await open({ '/': `<title>Hash</title>${snippet(server.url, 'hash', 'data-hash="true"')}` });
    await hashPage.evaluate(() => (location.hash = '/inbox'));
    const hash = await untilStored('hash', 2);
    expect(hash.map((row) => JSON.parse(row.raw).url.replace(pages!.url, '')).sort()).toEqual(['/', '/#/inbox']);
  });

  it('waits for consent when asked to, sends it with the events, binds the user, and sends nothing once refused', async () => {
    const page = await open({ '/': `<title>Consent</title>${snippet(server.url, 'consent', 'data-require-consent="true"')}` });
    await api(page, (sightline) => sightline.track('early'));
    expect(rows('consent')).toEqual([]);
    await api(page, (sightline) => {
      sightline.consent({ analytics: true, marketing: false });
      sightline.identify('user-42');
      sightline.track('after', { step: 1 });
      sightline.consent({ analytics: false });
      sightline.track('refused');
      sightline.consent({ analytics: true, marketing: true });
      sightline.track('last');
    });
    const stored = await untilStored('consent', 4);
    expect(stored.map((row) => row.type).sort()).toEqual(['after', 'early', 'last', 'pageview']);
    const byType = Object.fromEntries(stored.map((row) => [row.type, { ...row, raw: JSON.parse(row.raw) }]));
    expect(byType.early!.raw.consent).toEqual({ analytics: true, marketing: false });
    expect(byType.after!.user_id).toBe('user-42');
    expect(byType.after!.raw.props).toEqual({ step: 1 });
    expect(byType.last!.raw.consent).toEqual({ analytics: true, marketing: true });
  });

  it('honours Global Privacy Control and Do Not Track with data-respect-dnt, and only then', async () => {
    pages = await servePages({
      '/dnt': `<title>DNT</title>${snippet(server.url, 'dnt', 'data-respect-dnt="true"')}`,
      '/control': `<title>Control</title>${snippet(server.url, 'control')}`,
    });
    context = await visitorContext(browser);
    await context.addInitScript(() => {
      Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true });
      Object.defineProperty(Navigator.prototype, 'doNotTrack', { get: () => '1' });
    });
    const sent: string[] = [];
    context.on('request', (request) => {
      if (request.url() === `${server.url}/events` && request.method() === 'POST') sent.push(request.frame().url());
    });
    const dnt = await context.newPage();
    await dnt.goto(`${pages.url}/dnt`);
    await dnt.waitForFunction(() => 'sightline' in window);
    await api(dnt, (sightline) => sightline.track('ignored'));
    const control = await context.newPage();
    await control.goto(`${pages.url}/control`);
    await untilStored('control', 1);
    expect(rows('dnt')).toEqual([]);
    expect(sent).toEqual([`${pages.url}/control`]);
  });

  it('retries a delivery that failed on the network, with the same event id, stored once', async () => {
    pages = await servePages({ '/': `<title>Retry</title>${snippet(server.url, 'retry')}` });
    context = await visitorContext(browser);
    const attempts: string[] = [];
    await context.route(`${server.url}/events`, async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      attempts.push(JSON.parse(route.request().postData()!).id);
      if (attempts.length === 1) return route.abort('internetdisconnected');
      return route.continue();
    });
    const page = await context.newPage();
    await page.goto(pages.url);
    const stored = await untilStored('retry', 1);
    expect(attempts).toHaveLength(2);
    expect(attempts[1]).toBe(attempts[0]);
    expect(stored).toHaveLength(1);
    expect(JSON.parse(stored[0]!.raw).id).toBe(attempts[0]);
  });

  it('replays calls queued before it loaded, and keeps a persistent id on a site with cookieless off', async () => {
    const html = `<title>Classic</title><script>window.sightline = { q: [['track', 'queued', { early: true }]] };</script>${snippet(server.url, 'classic', 'data-cookieless="false"')}`;
    const page = await open({ '/': html, '/next': html });
    await page.goto(`${pages!.url}/next`);
    const stored = await untilStored('classic', 4);
    expect(stored.map((row) => row.type).sort()).toEqual(['pageview', 'pageview', 'queued', 'queued']);
    const kept = await page.evaluate(() => localStorage.getItem('sl_id'));
    expect(kept).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(stored.map((row) => row.anon_id))).toEqual(new Set([kept]));
  });

  it('tracks downloads by extension, middle-clicked outbound links, tagged elements with their props, and forms whose inputs shadow their id; a page handler cancelling a submit blocks nothing', async () => {
    const page = await open({
      '/': `<title>Auto</title>${snippet(server.url, 'auto', 'data-auto-downloads="true" data-auto-outbound="true" data-auto-forms="true"')}
        <a id="pdf" href="/files/report.PDF" onclick="event.preventDefault()">Report</a>
        <a id="page" href="/about.html" onclick="event.preventDefault()">About</a>
        <a id="ext" href="https://partner.example/" onauxclick="event.preventDefault()">Partner</a>
        <button id="menu" data-sightline-event="nav_open" data-sightline-prop-menu="main"><span id="inner">Menu</span></button>
        <form id="news" class="sightline-event-newsletter" onsubmit="event.preventDefault(); window.handled = true">
          <input name="id" value="shadows form.id"><input name="action" value="shadows form.action"><button id="join">Join</button>
        </form>`,
    });
    await page.click('#pdf');
    await page.click('#page');
    // A middle click fires auxclick, not click.
    await page.click('#ext', { button: 'middle' });
    await page.click('#inner');
    await page.click('#join');
    expect(await page.evaluate(() => (window as unknown as { handled: boolean }).handled)).toBe(true);
    await api(page, (sightline) => sightline.track('done'));
    const stored = await untilStored('auto', 7);
    const byType = Object.fromEntries(stored.map((row) => [row.type, JSON.parse(row.raw).props ?? null]));
    expect(byType).toEqual({
      pageview: null,
      file_download: { url: `${pages!.url}/files/report.PDF` },
      outbound_click: { url: 'https://partner.example/' },
      nav_open: { menu: 'main' },
      newsletter: {},
      form_submit: { form: 'news' },
      done: null,
    });
    expect(stored).toHaveLength(7);
  });

  it('never throws into the page, whatever it is called with', async () => {
    const page = await open({ '/': `<title>Calls</title>${snippet(server.url, 'calls')}` });
    const outcome = await page.evaluate(() => {
      const sightline = (window as unknown as { sightline: Api }).sightline;
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      const calls: (() => void)[] = [
        () => sightline.track(123),
        () => sightline.track('has spaces'),
        () => sightline.track('x'.repeat(65)),
        () => sightline.track('y'.repeat(64)),
        () => sightline.track('cyclic', circular),
        () => sightline.track('bad_props', 'not an object'),
        () => sightline.identify({ toString: () => { throw new Error('no'); } }),
        () => sightline.consent(null),
        () => sightline.consent({ analytics: true }),
        () => sightline.track('fine', { ok: true }, { revenue: { amount: '9.90', currency: 'EUR' } }),
      ];
      return calls.map((call) => {
        try {
          call();
          return 'ok';
        } catch (error) {
          return String(error);
        }
      });
    });
    expect(outcome.every((result) => result === 'ok')).toBe(true);
    const stored = await untilStored('calls', 4);
    // The longest valid name is sent; one character more is not.
    expect(stored.map((row) => row.type).sort()).toEqual(['bad_props', 'fine', 'pageview', 'y'.repeat(64)]);
    expect(JSON.parse(stored.find((row) => row.type === 'fine')!.raw).revenue).toEqual({ amount: '9.90', currency: 'EUR' });
  });

  it('cuts a URL and a title to the collector’s limits (2,048 and 1,024 characters), so the event is accepted', async () => {
    const longTitle = 't'.repeat(1500);
    const page = await open({ '/': `<title>${longTitle}</title>${snippet(server.url, 'long')}` }, `/?q=${'a'.repeat(3000)}`);
    await api(page, (sightline) => sightline.track('short_page'));
    await page.evaluate(() => history.pushState({}, '', '/?q=short'));
    const stored = await untilStored('long', 3);
    const raws = stored.map((row) => JSON.parse(row.raw));
    const first = raws.find((raw) => raw.type === 'pageview' && raw.url.length > 100)!;
    expect(first.url).toHaveLength(2048);
    expect(first.context.title).toHaveLength(1024);
    // The SPA pageview's referrer is the previous URL, cut the same way.
    const next = raws.find((raw) => raw.type === 'pageview' && raw.url.endsWith('/?q=short'))!;
    expect(next.referrer).toBe(first.url);
  });
});
