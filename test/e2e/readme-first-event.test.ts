// The README's first event, as a newcomer runs it: the shell blocks of "Sending events", unchanged but for the
// server's address, through sh and the real curl against the shipped server on a fresh DATA_DIR (its admin token
// generated, as on a first start). The 202 must be the one the README shows, and the event must then be listed and
// counted: curl's own User-Agent is a bot's, and a bot's event is acknowledged but shows nowhere. The walk-through
// ends on the dashboard: the Admin UI address the server printed, signed in (in Debian's chromium) with the token the
// last block prints, shows the event as the README says.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnvironment, repositoryRoot } from '../cli/cli-helpers.ts';
import { poll } from '../events/_helpers.ts';
import { cellNames, launchBrowser, panel, watchProblems } from '../ui/_browser.ts';
import { useShippedServers } from './_server.ts';

const execFileAsync = promisify(execFile);
const readmeAddress = 'http://127.0.0.1:8787';
/** Printed between the blocks so each block's output can be told apart; not part of any block. */
const separator = '--- next README block ---';

/** The ```sh blocks of the README's "Sending events" section, in order. */
function sendingEventsBlocks(): string[] {
  const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8');
  const section = readme.split('\n## Sending events\n')[1]?.split('\n## ')[0];
  if (!section) throw new Error('README.md has no "Sending events" section');
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/** The JSON a block shows as its answer, in a `# <status> <json>` comment line. */
function shownAnswer(block: string, status: number): unknown {
  const line = block.split('\n').find((text) => text.startsWith(`# ${status} `));
  if (!line) throw new Error(`no "# ${status} …" line in the block:\n${block}`);
  return JSON.parse(line.slice(`# ${status} `.length));
}

const servers = useShippedServers({ testTimeout: 120_000 });
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => browser?.close());

describe("the README's first event", () => {
  it('is accepted as the README shows (not a bot), then listed by list-v2, counted in the pageviews report, and shown on the dashboard', async () => {
    const blocks = sendingEventsBlocks();
    // Creating the site, sending the event, reading it back, printing the admin token for the dashboard.
    expect(blocks).toHaveLength(4);
    expect(blocks[1]).toContain(`curl -X POST ${readmeAddress}/events`);
    expect(blocks[3]!.trim()).toBe('bin/sightline admin-token');
    const server = await servers.start({ ADMIN_TOKEN: undefined });
    const script = blocks.map((block) => block.replaceAll(readmeAddress, server.url)).join(`\nprintf '\\n%s\\n' '${separator}'\n`);
    // As typed into a shell in the repository's directory: bin/sightline finds node on the PATH.
    const env = childEnvironment({ DATA_DIR: server.dataDir, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` });
    const run = await execFileAsync('sh', ['-e', '-c', script], { cwd: repositoryRoot, env }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`the README's blocks failed:\n${error.stdout ?? ''}\n${error.stderr ?? ''}\n${server.output()}`);
    });
    const [, sent, read, printedToken] = run.stdout.split(`\n${separator}\n`);

    // Exactly the answer the README shows: accepted, and no bot among the accepted.
    expect(JSON.parse(sent!)).toEqual(shownAnswer(blocks[1]!, 202));
    const eventId = /"id":"([0-9a-f-]{36})"/.exec(blocks[1]!)![1]!;
    const today = new Date().toISOString().slice(0, 10);

    // The README's own read: the event is in the list, with the browser the User-Agent names.
    const listed = JSON.parse(read!) as { data: { events: Record<string, unknown>[] } };
    expect(listed.data.events).toEqual([expect.objectContaining({ id: eventId, type: 'pageview', path: '/pricing', source: 'newsletter', browser: 'Firefox' })]);

    // And in a report, once the projector has counted it (a report read right after the 202 may say it lags).
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const counted = await poll(async () => {
      const report = await server.request('GET', `/v1/sites/my-site/pageviews?from=${yesterday}&to=${today}`);
      expect(report.status, report.text).toBe(200);
      return report.body.count === 1 ? report.body : undefined;
    }, 30_000);
    expect(counted.count).toBe(1);

    // The dashboard, as the README's last step says: the address on the server's "Admin UI:" line (the README shows
    // it for the default port), signed in with the token the last block printed, the one the first start generated.
    const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8');
    expect(readme).toContain(`\`Admin UI: ${readmeAddress}/\``);
    const adminUi = /^Admin UI: (\S+)$/m.exec(server.output())?.[1];
    expect(adminUi).toBe(`${server.url}/`);
    expect(printedToken!.trim()).toBe(server.adminToken);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      const problems = watchProblems(page);
      await page.goto(adminUi!);
      await page.click('button:text("Use an admin token or API key")');
      await page.fill('#token', printedToken!.trim());
      await page.click('button:text("Sign in")');
      // "Demo's sites are listed: open My site."
      await page.click('a:text-is("My site")');
      await page.waitForURL(/\?site=my-site$/);
      // "one visitor and one pageview for today, with /pricing among the pages and newsletter among the sources"
      const card = (measure: string) => page.locator(`.card[data-measure="${measure}"] .card-value`);
      await expect.poll(() => card('visitors').textContent(), { timeout: 30_000 }).toBe('1');
      expect(await card('pageviews').textContent()).toBe('1');
      await expect.poll(() => panel(page, 'Pages').locator('tbody th').allTextContents()).toEqual(['/pricing']);
      // The source's name follows its letter avatar (aria-hidden): the name itself is the README's.
      await expect.poll(() => cellNames(panel(page, 'Sources').locator('tbody th'))).toEqual(['newsletter']);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
