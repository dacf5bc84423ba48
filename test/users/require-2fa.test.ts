// The workspace setting require_2fa (CONTRACT section 9, docs/people.md "Second factor required"): set by an owner;
// a member without a second factor still signs in, but reaches only /v1/me (and /v1/auth) until they set one up:
// every other route answers 403 totp_setup_required. Real app, real SQLite file, manual clock.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.ts';
import { openSecret } from '../../src/secrets/secret-box.ts';
import { hotp, totpStepOf } from '../../src/users/totp.ts';
import { type ManualClock, manualClock } from '../admin/_helpers.ts';
import { seedWorkspace, type TestServer } from '../_setup.ts';
import { goodPassword, login, makeUser, renewedSession, startPeopleServer, type SignedIn } from './_users.ts';

describe('require_2fa', () => {
  let server: TestServer;
  let clock: ManualClock;
  let context: AppContext;

  beforeEach(async () => {
    clock = manualClock('2026-03-01T12:00:00.000Z');
    ({ server, context } = await startPeopleServer(clock));
  });
  afterEach(async () => server.close());

  const setRule = (who: SignedIn | undefined, body: Record<string, unknown>, slug = 'alpha') =>
    server.request('PATCH', `/v1/workspaces/${slug}`, { ...(who ? who.as() : {}), body });

  /** Turns the second factor on; answers the session that replaced `session` (a privilege change). */
  async function enableTotp(session: SignedIn): Promise<SignedIn> {
    expect((await server.request('POST', '/v1/me/totp', session.as())).status).toBe(201);
    const sealed = (server.db.prepare('SELECT totp_secret FROM users WHERE id = ?').get(session.userId) as { totp_secret: Buffer }).totp_secret;
    const secret = openSecret(server.dataDir, sealed, `user-totp/${session.userId}`);
    const confirmed = await server.request('POST', '/v1/me/totp/confirm', { ...session.as(), body: { code: hotp(secret, totpStepOf(clock.now())) } });
    expect(confirmed.status, confirmed.text).toBe(200);
    return renewedSession(server, session, confirmed);
  }

  it.each([
    { who: 'owner', slug: 'alpha', status: 200 },
    { who: 'admin', slug: 'alpha', status: 403 },
    { who: 'viewer', slug: 'alpha', status: 403 },
    { who: 'owner', slug: 'beta', status: 404 },
  ])('a signed-in $who setting require_2fa on $slug → $status', async ({ who, slug, status }) => {
    await makeUser(context, `${who}@example.com`, { memberships: [['alpha', who as 'owner']] });
    const session = await login(server, { email: `${who}@example.com`, password: goodPassword });
    const response = await setRule(session, { require_2fa: true }, slug);
    expect(response.status, response.text).toBe(status);
    if (status === 200) expect(response.body).toMatchObject({ slug: 'alpha', name: 'Workspace alpha', require_2fa: true });
    expect((await server.request('GET', '/v1/workspaces/alpha')).body.require_2fa).toBe(status === 200);
  });

  it.each([
    { name: 'a string', body: { require_2fa: 'yes' }, path: '/require_2fa' },
    { name: 'null', body: { require_2fa: null }, path: '/require_2fa' },
    { name: 'nothing to change', body: {}, path: '/name' },
  ])('refuses require_2fa as $name (flat 400, unchanged)', async ({ body, path }) => {
    const response = await setRule(undefined, body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'invalid_payload', details: [{ path }] });
    expect((await server.request('GET', '/v1/workspaces/alpha')).body.require_2fa).toBe(false);
  });

  it('audits the change with from and to, once; setting the same value again writes nothing', async () => {
    expect((await setRule(undefined, { require_2fa: true, name: 'Alpha' })).status).toBe(200);
    expect((await setRule(undefined, { require_2fa: true })).status).toBe(200);
    const entries = (await server.request('GET', '/v1/workspaces/alpha/audit')).body.entries as { action: string; metadata: Record<string, unknown> }[];
    expect(entries.filter((entry) => entry.action === 'workspace.update').map((entry) => entry.metadata)).toEqual([
      { name: { from: 'Workspace alpha', to: 'Alpha' }, require_2fa: { from: false, to: true } },
    ]);
  });

  it('lets a member without a second factor sign in and reach only /v1/me and the TOTP set-up until they enable it', async () => {
    await makeUser(context, 'ann@example.com', { memberships: [['alpha', 'admin'], ['beta', 'analyst']] });
    await makeUser(context, 'bob@example.com', { memberships: [['beta', 'owner']] });
    expect((await setRule(undefined, { require_2fa: true })).status).toBe(200);
    const signIn = await server.request('POST', '/v1/auth/login', { token: null, body: { email: 'ann@example.com', password: goodPassword } });
    expect(signIn.status).toBe(200);
    expect(signIn.body.totp_setup_required).toBe(true);
    const ann = await login(server, { email: 'ann@example.com', password: goodPassword });
    const bob = await login(server, { email: 'bob@example.com', password: goodPassword });
    expect((await server.request('GET', '/v1/me', ann.as())).body).toMatchObject({ totp_setup_required: true });
    expect((await server.request('GET', '/v1/me', bob.as())).body).toMatchObject({ totp_setup_required: false });
    const blocked: [string, string][] = [
      ['GET', '/v1/workspaces/alpha/members'],
      ['GET', '/v1/workspaces/alpha/invitations'],
      ['GET', '/v1/sites/alpha-site/reports/summary-v2?from=2026-03-01&to=2026-03-01'],
      // Every workspace of theirs, not only the one that requires it: nothing else until it is set up.
      ['GET', '/v1/sites/beta-site/reports/summary-v2?from=2026-03-01&to=2026-03-01'],
      ['GET', '/workspaces/alpha/keys'],
    ];
    for (const [method, url] of blocked) {
      const response = await server.request(method, url, ann.as());
      expect(response.status, `${url}: ${response.text}`).toBe(403);
      expect(JSON.stringify(response.body)).toContain('totp_setup_required');
    }
    // One's own account stays reachable: sessions, and setting up the second factor.
    expect((await server.request('GET', '/v1/me/sessions', ann.as())).status).toBe(200);
    // A member of only other workspaces is not concerned.
    expect((await server.request('GET', '/v1/sites/beta-site/reports/summary-v2?from=2026-03-01&to=2026-03-01', bob.as())).status).toBe(200);

    const renewed = await enableTotp(ann);
    expect((await server.request('GET', '/v1/me', renewed.as())).body).toMatchObject({ totp_setup_required: false });
    // Admin of alpha and analyst of beta again: each of those routes answers.
    for (const [method, url] of blocked) expect((await server.request(method, url, renewed.as())).status, url).toBe(200);
  });

  it('asks an account made by an invitation into such a workspace to set up its second factor too', async () => {
    expect((await setRule(undefined, { require_2fa: true })).status).toBe(200);
    const created = await server.request('POST', '/v1/workspaces/alpha/invitations', { body: { email: 'inv@example.com', role: 'viewer' } });
    const token = new URL(created.body.url).hash.split('token=')[1]!;
    expect((await server.request('POST', '/v1/invitations/accept', { token: null, body: { token, password: goodPassword } })).status).toBe(200);
    const invited = await login(server, { email: 'inv@example.com', password: goodPassword });
    expect((await server.request('GET', '/v1/me', invited.as())).body.totp_setup_required).toBe(true);
    expect((await server.request('GET', '/v1/sites/alpha-site/reports/summary-v2?from=2026-03-01&to=2026-03-01', invited.as())).status).toBe(403);
    const renewed = await enableTotp(invited);
    expect((await server.request('GET', '/v1/sites/alpha-site/reports/summary-v2?from=2026-03-01&to=2026-03-01', renewed.as())).status).toBe(200);
  });

  it('lifts the rule when the owner turns it off, and never concerns API keys or the admin token', async () => {
    const seeded = await seedWorkspace(server, 'gamma', { sites: ['gamma-site'], scopes: ['query:read'] });
    await makeUser(context, 'own@example.com', { memberships: [['gamma', 'owner']] });
    const owner = await login(server, { email: 'own@example.com', password: goodPassword });
    expect((await setRule(owner, { require_2fa: true }, 'gamma')).status).toBe(200);
    // The owner has no second factor either: from now on they too must set one up (or the operator turns it off).
    const refused = await setRule(owner, { require_2fa: false }, 'gamma');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('totp_setup_required');
    const report = '/v1/sites/gamma-site/reports/summary-v2?from=2026-03-01&to=2026-03-01';
    expect((await server.request('GET', report, { token: seeded.key! })).status).toBe(200);
    expect((await server.request('GET', report)).status).toBe(200);
    expect((await setRule(undefined, { require_2fa: false }, 'gamma')).status).toBe(200);
    expect((await server.request('GET', report, owner.as())).status).toBe(200);
  });
});
