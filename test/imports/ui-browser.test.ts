// Settings → Imports and export in a real browser (playwright-core driving Debian's chromium) against the shipped
// server: a Umami file uploaded from the file picker is imported (its status shown as the API answers it), a bad
// file's errors shown by line, an import deleted, and the export link downloads what the API exports.
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureBuilt } from '../cli/cli-helpers.ts';
import { createSite, shippedServers } from '../e2e/_server.ts';
import { launchBrowser, panel, watchProblems } from '../ui/_browser.ts';
import { umamiCsv } from './_fixtures.ts';

const servers = shippedServers();
let browser: Browser;

vi.setConfig({ testTimeout: 120_000 });
beforeAll(async () => {
  await ensureBuilt();
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => browser?.close());
afterEach(async () => servers.disposeAll());

const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
const rows = [
  { session: 's-1', event: 'e4000000-0000-4000-8000-000000000001', path: '/', at: `${day} 10:00:00` },
  { session: 's-2', event: 'e4000000-0000-4000-8000-000000000002', path: '/pricing', at: `${day} 11:00:00` },
];

describe('Settings → Imports and export', () => {
  it('imports a file, shows a bad file\'s lines, deletes an import and links the export', async () => {
    const server = await servers.start();
    await createSite(server, 'ui-imports');
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    const problems = watchProblems(page);
    // The site's Settings page (its own URL), signed in with the admin token.
    await page.goto(`${server.url}/?site=ui-imports&page=settings`);
    await page.click('button:text("Use an admin token or API key")');
    await page.fill('#token', server.adminToken);
    await page.click('button:text("Sign in")');
    const settings = panel(page, 'Settings of Site ui-imports');
    await expect.poll(() => settings.locator('.imports .state').textContent()).toBe('No imports yet.');

    await settings.locator('select[name=import-format]').selectOption('umami-csv');
    await settings.locator('input[name=import-file]').setInputFiles({ name: 'website_event.csv', mimeType: 'text/csv', buffer: Buffer.from(umamiCsv(rows)) });
    await expect.poll(() => settings.locator('.import-row .import-done').count(), { timeout: 30_000 }).toBe(1);
    const [imported] = (await server.request('GET', '/v1/sites/ui-imports/imports')).body.imports;
    expect(imported).toMatchObject({ status: 'done', events_imported: 2 });
    expect(await settings.locator('.import-row').first().textContent()).toContain('2 events imported (0 already there), 1 days');

    const bad = umamiCsv([{ ...rows[0]!, event: 'e4100000-0000-4000-8000-000000000001', at: 'never' }]);
    await settings.locator('input[name=import-file]').setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from(bad) });
    await expect.poll(() => settings.locator('.import-row .import-failed').count(), { timeout: 30_000 }).toBe(1);
    expect(await settings.locator('.import-row .csv-errors li').allTextContents()).toEqual(['line 2: created_at must be a date and time, not "never"']);

    await settings.locator('input[name=export-from]').fill(day);
    await settings.locator('input[name=export-to]').fill(day);
    const [download] = await Promise.all([page.waitForEvent('download'), settings.locator('a:text("Export")').click()]);
    const exported = await download.createReadStream().then(async (stream) => {
      let text = '';
      for await (const chunk of stream) text += chunk;
      return text;
    });
    expect(exported).toBe((await server.request('GET', `/v1/sites/ui-imports/export?from=${day}&to=${day}`)).text);
    expect(exported.trimEnd().split('\n')).toHaveLength(2);

    await page.getByRole('button', { name: `Delete import ${imported.id}` }).click();
    await expect.poll(() => settings.locator('.imports [role=status]').textContent()).toBe('Import deleted: 2 events removed.');
    expect((await server.request('GET', '/v1/sites/ui-imports/imports')).body.imports.map((item: { id: string }) => item.id)).not.toContain(imported.id);
    expect(problems).toEqual([]);
    await context.close();
  });
});
