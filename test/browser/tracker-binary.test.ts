// Issue 16's "done when", end to end: the single executable copied alone into an empty directory, run as a user
// runs it, a site created with its own CLI, the snippet pasted into a page, a visit in a real browser (Debian's
// chromium), and the visit counted in the reports the executable answers.
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureBinaryBuilt, type Launch, parseJsonOutput, repositoryRoot, runCli } from '../cli/cli-helpers.ts';
import { cleanExit, shippedServers, utcDate } from '../e2e/_server.ts';
import { eventually, launchChromium, type PageServer, servePages, snippet, visitorContext } from './_browser.ts';

const siteId = 'binary-site';
let directory: string;
let scratch: string;
let launch: Launch;
let servers: ReturnType<typeof shippedServers>;
let browser: Browser;
let pages: PageServer | undefined;

// A cold build compiles better-sqlite3 for Node 24; nothing here asserts a duration.
vi.setConfig({ testTimeout: 120_000 });
beforeAll(async () => {
  await ensureBinaryBuilt();
  directory = mkdtempSync(join(tmpdir(), 'sightline-download-'));
  copyFileSync(join(repositoryRoot, 'dist', 'sightline'), join(directory, 'sightline'));
  scratch = mkdtempSync(join(tmpdir(), 'sightline-download-tmp-'));
  launch = { executable: join(directory, 'sightline'), cwd: directory };
  servers = shippedServers(launch);
  browser = await launchChromium();
}, 900_000);
afterEach(async () => {
  await pages?.close();
  await servers.disposeAll();
});
afterAll(async () => {
  await browser?.close();
  for (const path of [directory, scratch]) rmSync(path, { recursive: true, force: true });
});

describe('the downloaded executable', () => {
  it('runs alone, creates a site with its own CLI, serves the snippet, and counts a browser visit', async () => {
    expect(readdirSync(directory)).toEqual(['sightline']);
    const server = await servers.start({ TMPDIR: scratch });
    const cli = (args: string[]) => runCli(args, { DATA_DIR: server.dataDir, TMPDIR: scratch }, launch);
    expect((await cli(['workspace', 'create', '--name', 'Blog', '--slug', 'blog'])).code).toBe(0);
    const site = parseJsonOutput(await cli(['site', 'create', '--workspace', 'blog', '--id', siteId, '--name', 'My blog', '--json']));
    expect(site).toMatchObject({ id: siteId, cookieless: true });

    pages = await servePages({
      '/': `<!doctype html><title>Hello</title>${snippet(server.url, siteId)}<a id="next" href="/about">About</a>`,
      '/about': `<!doctype html><title>About</title>${snippet(server.url, siteId)}`,
    });
    const context = await visitorContext(browser);
    const page = await context.newPage();
    await page.goto(`${pages.url}/`);
    await page.waitForFunction(() => 'sightline' in window);
    await page.click('#next');
    await page.waitForURL(`${pages.url}/about`);
    await page.waitForFunction(() => 'sightline' in window);

    const day = utcDate();
    const summary = await eventually(
      () => server.request('GET', `/v1/sites/${siteId}/reports/summary-v2?from=${day}&to=${day}`),
      (answer) => answer.body.data?.pageviews >= 2,
    );
    expect(summary.status, summary.text).toBe(200);
    expect(summary.body.data).toMatchObject({ visitors: 1, visits: 1, pageviews: 2 });
    const pageviews = await server.request('GET', `/v1/sites/${siteId}/pageviews?from=${day}&to=${day}`);
    expect(pageviews.body).toEqual({ count: 2, by_day: [{ date: day, count: 2 }] });
    await context.close();
    expect(await server.stop(), server.output()).toEqual(cleanExit);
  });
});
