// Helpers of the browser tests: Debian's chromium driven by playwright-core (never a downloaded browser), and a
// small HTTP server for the test pages, on another origin than Sightline's (so the tracker's requests are
// cross-origin, preflight included). Not a test file itself.
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

export const chromiumPath = '/usr/bin/chromium';
/**
 * A desktop Chrome's user agent: headless chromium says "HeadlessChrome", which the collector takes for a bot (stored,
 * never counted), as it should.
 */
export const desktopChrome = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36';

/** Fails (never skips) when chromium is missing: npm test installs it with apt-get (build/prepare-test-machine.mjs). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: npm test installs it (build/prepare-test-machine.mjs), or apt-get install -y chromium`);
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox'] });
}

/** A browser context as a visitor's: a desktop user agent, and nothing stored from any earlier test. */
export function visitorContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({ userAgent: desktopChrome });
}

export interface PageServer {
  url: string;
  close(): Promise<void>;
}

/** Serves `pages` (path → HTML) on 127.0.0.1, port 0; any other path is a 404. POSTs are answered as GETs. */
export async function servePages(pages: Record<string, string>): Promise<PageServer> {
  const server: Server = createServer((request, response) => {
    request.resume();
    const path = (request.url ?? '/').split('?')[0]!;
    const page = pages[path];
    response.writeHead(page === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(page ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The snippet of docs/tracker.md with `attributes` added (e.g. `data-auto-forms="true"`). */
export function snippet(sightlineUrl: string, siteId: string, attributes = ''): string {
  return `<script defer src="${sightlineUrl}/sdk.js" data-site="${siteId}" ${attributes}></script>`;
}

/** Polls `read` until `done` holds for its answer or `timeoutMs` passes; answers the last value read either way. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}
