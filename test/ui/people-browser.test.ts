// The people pages in a real browser (playwright-core driving Debian's chromium) against the shipped server: an owner
// signs in with a password, turns two-factor authentication on through the account page (the secret read from the
// page, the code computed here with src/users/totp.ts), signs out and in again with password and code, invites a
// viewer from the members page; the viewer opens the link in another browser, chooses a name and a password, is
// signed in and sees only that workspace (the other one is in no list and its site's URL answers not found). Any
// console error or CSP violation fails the test. Screenshots (light, dark) go to test-artifacts/ui/.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { hotp, totpStepOf } from '../../src/users/totp.ts';
import { type ShippedServer, shippedServers } from '../e2e/_server.ts';
import { artifacts, launchBrowser, panel, watchProblems } from './_browser.ts';

const servers = shippedServers();
let browser: Browser;
const ownerPassword = 'correct horse battery staple';
const viewerPassword = 'viewer password 1234';

// The first scenario signs in six times and hashes a password at each step: minutes on a shared, loaded machine.
vi.setConfig({ testTimeout: 240_000 });
beforeAll(async () => {
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => browser?.close());
afterEach(async () => servers.disposeAll());

/**
 * expect.poll with room for a loaded machine: sign-in, accepting an invitation and changing the name each hash a
 * password (scrypt, 50-120 ms alone, more when other tests share the two cores), so a step may take seconds.
 */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000 });

/** RFC 4648 base32 (no padding), as the account page shows the secret. */
function base32Decode(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const bytes: number[] = [];
  for (const char of text) {
    const index = alphabet.indexOf(char);
    if (index < 0) throw new Error(`not base32: ${char}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

/**
 * A code of the authenticator app, `ahead` steps after the current one: the server accepts one step either side of
 * its own and never a step at or before the last one it accepted, so the sign-in right after the set-up uses the
 * next step's code (accepted whichever side of a step boundary the two requests fall).
 */
const codeOf = (secret: string, ahead = 0) => hotp(base32Decode(secret), totpStepOf(Date.now()) + ahead);

/** Light and dark screenshots of the page as it is, and at a phone's width (390 px), where nothing scrolls sideways. */
async function screenshots(page: Page, name: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: join(artifacts, `${name}-light.png`), fullPage: true });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(artifacts, `${name}-dark.png`), fullPage: true });
  const size = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), `${name} at a phone's width`).toBe(0);
  await page.screenshot({ path: join(artifacts, `${name}-phone-dark.png`), fullPage: true });
  if (size) await page.setViewportSize(size);
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Two workspaces with a site each, and the owner of the first, who accepted an invitation made with the admin token. */
async function setUp(server: ShippedServer): Promise<void> {
  for (const [slug, name, site] of [['acme', 'Acme', 'acme-blog'], ['beta', 'Beta', 'beta-shop']] as const) {
    expect((await server.request('POST', '/v1/workspaces', { body: { slug, name } })).status).toBe(201);
    expect((await server.request('POST', `/v1/workspaces/${slug}/sites`, { body: { id: site, name: `${name} site` } })).status).toBe(201);
  }
  const invited = await server.request('POST', '/v1/workspaces/acme/invitations', { body: { email: 'olive@example.com', role: 'owner' } });
  expect(invited.status, invited.text).toBe(201);
  const token = new URL(invited.body.url).hash.split('token=')[1];
  const accepted = await server.request('POST', '/v1/invitations/accept', { token: null, body: { token, name: 'Olive Owner', password: ownerPassword } });
  expect(accepted.status, accepted.text).toBe(200);
}

describe('the people pages in a browser, against the shipped server', () => {
  it('signs in with a password, turns 2FA on, signs in with a code, invites a viewer who sees only that workspace', async () => {
    const server = await servers.start();
    await setUp(server);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const page = await context.newPage();
    const problems = watchProblems(page);

    // Sign-in: e-mail and password by default (no SSO on this server: no link), the token form behind a toggle.
    await page.goto(`${server.url}/`);
    await poll(() => page.locator('#email').count()).toBe(1);
    expect(await page.locator('#token').count()).toBe(0);
    expect(await page.locator('a:text("Sign in with SSO")').count()).toBe(0);
    await screenshots(page, 'people-sign-in');
    await page.fill('#email', 'olive@example.com');
    await page.fill('#password', 'not the password at all');
    await page.click('form button[type=submit]');
    await poll(() => page.locator('[role=alert]').textContent()).toBe('That e-mail and password do not match an account.');
    // The refused sign-in is a 401 the browser logs itself: expected, and nothing else.
    expect(problems.every((problem) => /status of 401/.test(problem))).toBe(true);
    problems.splice(0);
    await page.fill('#password', ownerPassword);
    await page.click('form button[type=submit]');
    await poll(() => page.locator('section.workspace h2').allTextContents()).toEqual(['Acme']);

    // Account: the second factor set up from the secret shown (the QR code is an image the CSP lets load).
    await page.click('header a:text-is("Account")');
    await page.waitForURL(/\?page=account$/);
    await poll(() => page.locator('input[name=account-name]').inputValue()).toBe('Olive Owner');
    // The name: a wrong current password is refused in words (and does not sign out), the right one saves it.
    await page.fill('input[name=account-name]', 'Olive O.');
    await page.fill('input[name=name-current-password]', 'not the password at all');
    await page.click('button:text("Save name")');
    await poll(() => panel(page, 'Profile').locator('[role=alert]').textContent()).toBe('The current password is wrong.');
    await page.fill('input[name=name-current-password]', ownerPassword);
    await page.click('button:text("Save name")');
    await poll(() => panel(page, 'Profile').locator('[role=status]').textContent()).toBe('Name saved.');
    expect(await page.evaluate(async () => (await (await fetch('/v1/me')).json()).user.name)).toBe('Olive O.');
    expect(problems.every((problem) => /status of 401/.test(problem))).toBe(true);
    problems.splice(0);
    // A new password outside 12 to 256 characters is refused by the form at both edges, before anything is sent.
    const passwordPanel = panel(page, 'Password');
    await passwordPanel.locator('input[name=current-password]').fill(ownerPassword);
    for (const [length, message] of [[11, 'at least 12 characters (it has 11)'], [257, 'at most 256 characters (it has 257)']] as const) {
      await passwordPanel.locator('input[name=new-password]').fill('p'.repeat(length));
      await passwordPanel.locator('input[name=repeat-password]').fill('p'.repeat(length));
      await passwordPanel.locator('button:text("Change password")').click();
      await poll(() => passwordPanel.locator('[role=alert]').textContent()).toBe(`The password must be ${message}.`);
    }
    // The sessions: this one (marked) and another, signed in elsewhere, revoked here.
    const elsewhere = await server.request('POST', '/v1/auth/login', { token: null, body: { email: 'olive@example.com', password: ownerPassword } });
    expect(elsewhere.status).toBe(200);
    await page.reload();
    const sessions = panel(page, 'Sessions');
    await poll(() => sessions.locator('tbody tr').count()).toBe(2);
    expect(await sessions.locator('tbody tr.current .badge').textContent()).toBe('this session');
    await sessions.locator('tbody tr:not(.current) button:text("Revoke")').click();
    await poll(() => sessions.locator('tbody tr').count()).toBe(1);
    expect(await sessions.locator('tbody tr.current').count()).toBe(1);
    await page.click('button:text("Set up two-factor authentication")');
    const secretField = page.locator('input[name=totp-secret]');
    await poll(() => secretField.count()).toBe(1);
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await poll(() => page.locator('img.qr').evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0)).toBe(true);
    await screenshots(page, 'people-totp-setup');
    await page.fill('input[name=totp-code]', codeOf(secret));
    await page.click('button:text("Turn on")');
    const codesField = page.locator('textarea[name=recovery-codes]');
    await poll(() => codesField.count()).toBe(1);
    const recoveryCodes = (await codesField.inputValue()).split('\n');
    expect(recoveryCodes).toHaveLength(10);
    await page.click('.recovery button:text("Copy")');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(recoveryCodes.join('\n'));
    await screenshots(page, 'people-account');
    await page.click('button:text("I have saved them")');
    await poll(() => panel(page, 'Two-factor authentication').locator('p').first().textContent()).toBe('Two-factor authentication is on.');
    const me = await page.evaluate(async () => (await fetch('/v1/me')).json());
    expect(me.user.totp_enabled).toBe(true);

    // Signed out, then in again: the password, then the code step.
    await page.click('button:text("Sign out")');
    await poll(() => page.locator('#email').count()).toBe(1);
    await page.fill('#email', 'olive@example.com');
    await page.fill('#password', ownerPassword);
    await page.click('form button[type=submit]');
    await poll(() => page.locator('#totp').count()).toBe(1);
    await screenshots(page, 'people-totp-step');
    // totp_required is a 401 the browser logs: expected.
    expect(problems.every((problem) => /status of 401/.test(problem))).toBe(true);
    problems.splice(0);
    await page.fill('#totp', codeOf(secret, 1));
    await page.click('form button[type=submit]');
    // Back where the URL says: the account page.
    await poll(() => page.locator('input[name=account-name]').inputValue()).toBe('Olive O.');

    // Members: the owner alone; a viewer invited, the link shown once.
    await page.click('header a:text-is("Members")');
    await page.waitForURL(/\?page=members%2Facme$/);
    const members = panel(page, 'Members');
    await poll(() => members.locator('tbody td:nth-child(2)').allTextContents()).toEqual(['olive@example.com']);
    // The last owner cannot step down: the API's 409 last_owner, in the page's words; the role stays.
    await members.locator('select[name="role-olive@example.com"]').selectOption('viewer');
    await poll(() => members.locator('[role=alert]').textContent()).toBe('A workspace keeps at least one owner: make another member owner first.');
    await poll(() => members.locator('select[name="role-olive@example.com"]').inputValue()).toBe('owner');
    expect((await server.request('GET', '/v1/workspaces/acme/members')).body.members.map((member: { role: string }) => member.role)).toEqual(['owner']);
    expect(problems.every((problem) => /status of 409/.test(problem))).toBe(true);
    problems.splice(0);
    const invitations = panel(page, 'Invitations');
    await invitations.locator('input[name=invite-email]').fill('vera@example.com');
    await invitations.locator('select[name=invite-role]').selectOption('viewer');
    await invitations.locator('button:text("Invite")').click();
    const urlField = invitations.locator('input[name=invitation-url]');
    await poll(() => urlField.count()).toBe(1);
    const invitationUrl = await urlField.inputValue();
    expect(invitationUrl).toMatch(new RegExp(`^${server.url.replace(/[.]/g, '\\.')}/#/invitations/accept\\?token=inv_[A-Za-z0-9_-]{43}$`));
    // Newest first: Vera's, pending; the owner's own, accepted.
    await poll(() => invitations.locator('tbody th').allTextContents()).toEqual(['vera@example.com', 'olive@example.com']);
    expect(await invitations.locator('tbody td:nth-child(3)').allTextContents()).toEqual([expect.stringMatching(/^pending until /), 'accepted']);
    await screenshots(page, 'people-members');

    // The viewer, in another browser: the link, a name and a password, then signed in to Acme alone.
    const viewerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const viewerPage = await viewerContext.newPage();
    const viewerProblems = watchProblems(viewerPage);
    await viewerPage.goto(invitationUrl);
    await viewerPage.fill('#invite-name', 'Vera Viewer');
    // A short password is refused in the form, before anything is sent.
    await viewerPage.fill('#new-password', 'short');
    await viewerPage.fill('#repeat-password', 'short');
    await viewerPage.click('button:text("Accept the invitation")');
    await poll(() => viewerPage.locator('[role=alert]').textContent()).toBe('The password must be at least 12 characters (it has 5).');
    await viewerPage.fill('#new-password', viewerPassword);
    await viewerPage.fill('#repeat-password', viewerPassword);
    await viewerPage.click('button:text("Accept the invitation")');
    await poll(() => viewerPage.locator('section.workspace h2').allTextContents()).toEqual(['Acme']);
    // The token has left the address bar; no members link for a viewer (neither owner nor admin), an account link.
    expect(viewerPage.url()).toBe(`${server.url}/`);
    expect(await viewerPage.locator('header a:text-is("Members")').count()).toBe(0);
    expect(await viewerPage.locator('header a:text-is("Account")').count()).toBe(1);
    // The site switcher offers no site of Beta (a viewer opens a site by its id).
    expect(await viewerPage.locator('header select option').allTextContents()).not.toContain('Beta site');
    // Acme's site opens; Beta's answers not found, as for a site that does not exist.
    await viewerPage.fill('input[name=open-site]', 'acme-blog');
    await viewerPage.click('button:text("Open")');
    await viewerPage.waitForURL(/\?site=acme-blog$/);
    await poll(() => viewerPage.locator('.overview .state').first().textContent()).toBe('No visits in this period yet.');
    expect(viewerProblems).toEqual([]);
    // The merged UI shows one not-found state for the site (no dashboard panels): Beta's is the same as that of a
    // site that does not exist, and the viewer's read of Beta is the API's 404 for a missing site.
    const notFound = viewerPage.locator('.not-found[role=alert]');
    await viewerPage.goto(`${server.url}/?site=beta-shop`);
    await poll(() => notFound.locator('h1').textContent()).toBe('No site “beta-shop”');
    expect(await notFound.textContent()).toMatch(/no such site/i);
    expect(await viewerPage.locator('.overview').count()).toBe(0);
    const betaState = await notFound.textContent();
    await viewerPage.goto(`${server.url}/?site=no-such-site`);
    await poll(() => notFound.locator('h1').textContent()).toBe('No site “no-such-site”');
    expect((await notFound.textContent())?.replace('no-such-site', 'beta-shop')).toBe(betaState);
    const missing = await server.request('GET', `/v1/sites/no-such-site/reports/summary-v2?from=2026-01-01&to=2026-01-01`);
    expect(missing.status).toBe(404);
    const betaRead = await viewerPage.evaluate(async () => {
      const answer = await fetch('/v1/sites/beta-shop/reports/summary-v2?from=2026-01-01&to=2026-01-01');
      return { status: answer.status, body: await answer.json() };
    });
    expect(betaRead.status).toBe(404);
    expect(betaRead.body.message ?? betaRead.body.error?.message).toBe(missing.body.message ?? missing.body.error?.message);
    // The 404s of Beta's reports are logged by the browser itself: expected, and nothing else.
    expect(viewerProblems.filter((problem) => !/status of 404/.test(problem))).toEqual([]);
    expect(viewerProblems.length).toBeGreaterThan(0);
    viewerProblems.splice(0);

    // Back at the owner's: the viewer is a member, the invitation accepted; then Acme requires a second factor.
    await page.reload();
    await poll(() => panel(page, 'Members').locator('tbody td:nth-child(2)').allTextContents()).toEqual(['olive@example.com', 'vera@example.com']);
    await poll(() => panel(page, 'Invitations').locator('tbody td:nth-child(3)').allTextContents()).toEqual(['accepted', 'accepted']);
    const rule = page.locator('input[name=require-2fa]');
    await poll(() => rule.count()).toBe(1);
    expect(await rule.isChecked()).toBe(false);
    await rule.check();
    await poll(async () => (await server.request('GET', '/v1/workspaces/acme')).body.require_2fa).toBe(true);

    // The viewer, without a second factor, is led to set one up and reaches nothing else until then.
    await viewerPage.goto(`${server.url}/?site=acme-blog`);
    await poll(() => viewerPage.locator('section.two-factor [role=alert]').textContent()).toBe('A workspace of yours requires two-factor authentication: set it up to reach your workspaces.');
    expect(await viewerPage.locator('.overview').count()).toBe(0);
    expect(await viewerPage.locator('header a:text-is("Account")').count()).toBe(0);
    await viewerPage.click('button:text("Set up two-factor authentication")');
    const viewerSecret = viewerPage.locator('input[name=totp-secret]');
    await poll(() => viewerSecret.count()).toBe(1);
    await viewerPage.fill('input[name=totp-code]', codeOf(await viewerSecret.inputValue()));
    await viewerPage.click('button:text("Turn on")');
    await viewerPage.click('button:text("I have saved them")');
    // Set up: the site's dashboard answers again, in the same session.
    await poll(() => viewerPage.locator('.overview .state').first().textContent()).toBe('No visits in this period yet.');
    expect(viewerProblems).toEqual([]);
    await viewerContext.close();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('lets an existing account accept an invitation once signed in to it', async () => {
    const server = await servers.start();
    await setUp(server);
    const invited = await server.request('POST', '/v1/workspaces/beta/invitations', { body: { email: 'olive@example.com', role: 'analyst' } });
    expect(invited.status, invited.text).toBe(201);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(invited.body.url);
    await page.fill('#invite-name', 'Olive');
    await page.fill('#new-password', ownerPassword);
    await page.fill('#repeat-password', ownerPassword);
    await page.click('button:text("Accept the invitation")');
    // The server's 401 sign_in_required: the page asks to sign in to the account first (the link is not used up).
    await poll(() => page.locator('.sign-in .hint').first().textContent()).toBe('This e-mail already has an account: sign in to it, then accept the invitation.');
    expect(problems.every((problem) => /status of 401/.test(problem))).toBe(true);
    problems.splice(0);
    await page.fill('#email', 'olive@example.com');
    await page.fill('#password', ownerPassword);
    await page.click('form button[type=submit]');
    await poll(() => page.locator('form[aria-label="Accept the invitation"] .hint').textContent()).toBe('You are signed in as olive@example.com: accepting adds the workspace to this account.');
    await page.click('button:text("Accept the invitation")');
    await poll(() => page.locator('section.workspace h2').allTextContents()).toEqual(['Acme', 'Beta']);
    expect(page.url()).toBe(`${server.url}/`);
    const members = await server.request('GET', '/v1/workspaces/beta/members');
    expect(members.body.members.map((member: { email: string; role: string }) => [member.email, member.role])).toEqual([['olive@example.com', 'analyst']]);
    // The link is used: opened again, it says so.
    await page.goto(invited.body.url);
    await page.click('button:text("Accept the invitation")');
    await poll(() => page.locator('[role=alert]').textContent()).toBe('This invitation is not valid any more: it was used, revoked or has expired. Ask for a new one.');
    expect(problems.filter((problem) => !/status of 404/.test(problem))).toEqual([]);
    await context.close();
  });

  it('says when to try again once sign-in failures are throttled, on the password and the token forms', async () => {
    const server = await servers.start({ AUTH_FAILURE_BURST: '1', AUTH_FAILURES_PER_MINUTE: '1' });
    await setUp(server);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${server.url}/`);
    await page.fill('#email', 'olive@example.com');
    await page.fill('#password', 'not the password at all');
    const wrong = page.waitForResponse('**/v1/auth/login');
    await page.click('form button[type=submit]');
    expect((await wrong).status()).toBe(401);
    await poll(() => page.locator('[role=alert]').textContent()).toBe('That e-mail and password do not match an account.');
    // The burst is spent: even the right password waits, and the page says for how long (the answer's Retry-After).
    await page.fill('#password', ownerPassword);
    const throttled = page.waitForResponse('**/v1/auth/login');
    await page.click('form button[type=submit]');
    const answer = await throttled;
    expect(answer.status()).toBe(429);
    const seconds = Number(await answer.headerValue('retry-after'));
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(60);
    await poll(() => page.locator('[role=alert]').textContent()).toBe(`Too many failed attempts: try again in ${seconds} second${seconds === 1 ? '' : 's'}.`);
    // The address is throttled too, for every secret: the token form says the same.
    await page.click('button:text("Use an admin token or API key")');
    await page.fill('#token', server.adminToken);
    const tokenThrottled = page.waitForResponse('**/v1/ui/session');
    await page.click('form button[type=submit]');
    const tokenSeconds = Number(await (await tokenThrottled).headerValue('retry-after'));
    await poll(() => page.locator('[role=alert]').textContent()).toBe(`Too many failed attempts: try again in ${tokenSeconds} second${tokenSeconds === 1 ? '' : 's'}.`);
    expect(problems.filter((problem) => !/status of (401|429)/.test(problem))).toEqual([]);
    await context.close();
  });

  it('keeps the token sign-in one click away (remembered), and shows the admin token every workspace\'s members', async () => {
    const server = await servers.start();
    await setUp(server);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${server.url}/`);
    await page.click('button:text("Use an admin token or API key")');
    await page.fill('#token', server.adminToken);
    await page.click('form button[type=submit]');
    await poll(() => page.locator('section.workspace h2').allTextContents()).toEqual(['Acme', 'Beta']);
    // The admin token has no account: no account link; the members of the workspaces are one click away.
    expect(await page.locator('header a:text-is("Account")').count()).toBe(0);
    await page.click('header a:text-is("Members")');
    await poll(() => panel(page, 'Members').locator('tbody td:nth-child(2)').allTextContents()).toEqual(['olive@example.com']);
    await page.locator('select[name=members-workspace]').selectOption('beta');
    await page.waitForURL(/\?page=members%2Fbeta$/);
    await poll(() => page.locator('h1').textContent()).toBe('Members of Beta');
    await page.click('button:text("Sign out")');
    await poll(() => page.locator('#token').count()).toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  });
});
