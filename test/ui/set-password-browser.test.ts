// The one-time set-password link of `sightline user create`, in a browser against the shipped server: the operator
// makes the account with the CLI, the person opens the printed link, sets a password (a too-short one is refused in
// the form), signs in with it, and the used link then says it is not valid any more. No console error, no CSP
// violation beyond the refusal the test causes on purpose.
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureBuilt, parseJsonOutput, runCli } from '../cli/cli-helpers.ts';
import { shippedServers } from '../e2e/_server.ts';
import { artifacts, launchBrowser, watchProblems } from './_browser.ts';

const servers = shippedServers();
let browser: Browser;

vi.setConfig({ testTimeout: 240_000 });
beforeAll(async () => {
  await ensureBuilt();
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => browser?.close());
afterEach(async () => servers.disposeAll());

describe('a set-password link in a browser', () => {
  it('sets the password once, and the person signs in with it', async () => {
    const server = await servers.start();
    expect((await server.request('POST', '/v1/workspaces', { body: { name: 'Acme', slug: 'acme' } })).status).toBe(201);
    expect((await server.request('POST', '/v1/workspaces/acme/sites', { body: { id: 'blog', name: 'The blog' } })).status).toBe(201);
    const made = await runCli(['user', 'create', '--email', 'pat@example.com', '--workspace', 'acme', '--role', 'viewer', '--json'], { DATA_DIR: server.dataDir, PUBLIC_URL: server.url });
    expect(made.code, made.stderr).toBe(0);
    const link: string = parseJsonOutput(made).set_password_url;
    expect(link.startsWith(`${server.url}/#/set-password?token=pwl_`)).toBe(true);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(link);
    await page.fill('#new-password', 'too short');
    await page.fill('#repeat-password', 'too short');
    await page.click('button:text("Set the password")');
    await expect.poll(() => page.locator('[role=alert]').textContent()).toBe('The password must be at least 12 characters (it has 9).');
    await page.fill('#new-password', 'a passphrase of my own');
    await page.fill('#repeat-password', 'a passphrase of my own');
    await page.screenshot({ path: join(artifacts, 'people-set-password-light.png') });
    await page.click('button:text("Set the password")');
    await expect.poll(() => page.locator('h1').textContent(), { timeout: 20_000 }).toBe('Password set');
    await page.click('button:text("Sign in")');
    // The sign-in page by e-mail and password, with the password just set.
    const signIn = page.locator('form[aria-label="Sign in with e-mail"]');
    await signIn.locator('#email').fill('pat@example.com');
    await signIn.locator('input[type=password]').fill('a passphrase of my own');
    await signIn.locator('button[type=submit]').click();
    await expect.poll(() => page.locator('header.top a:text("Account")').count(), { timeout: 20_000 }).toBe(1);

    // The used link: one clear state.
    const again = await context.newPage();
    watchProblems(again);
    await again.goto(link);
    await again.fill('#new-password', 'another passphrase 1');
    await again.fill('#repeat-password', 'another passphrase 1');
    await again.click('button:text("Set the password")');
    await expect.poll(() => again.locator('[role=alert]').textContent(), { timeout: 20_000 }).toBe('This link is not valid any more: it was used or has expired. Ask your operator for a new one.');
    expect(problems.filter((problem) => !/status of 404/.test(problem))).toEqual([]);
    await context.close();
  });
});
