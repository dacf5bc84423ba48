// Invitations over HTTP (CONTRACT section 9, docs/people.md "Invitations"): made by owners and admins, the token
// shown once and stored as a hash, listed without it, revoked, accepted once within exactly 7 days (a new account,
// or the membership of the signed-in account of that e-mail), the same 404 for every unusable token, failed
// attempts throttled per address, no hint whether an e-mail has an account. Real app, real SQLite file, manual clock.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.ts';
import { type ManualClock, manualClock } from '../admin/_helpers.ts';
import { seedWorkspace, type TestServer } from '../_setup.ts';
import { goodPassword, login, makeUser, startPeopleServer, type SignedIn } from './_users.ts';

const sevenDays = 7 * 24 * 60 * 60 * 1000;

describe('invitations', () => {
  let server: TestServer;
  let clock: ManualClock;
  let context: AppContext;
  let owner: SignedIn;

  beforeEach(async () => {
    clock = manualClock('2026-03-01T12:00:00.000Z');
    ({ server, context } = await startPeopleServer(clock, { TRUST_PROXY: '1', AUTH_FAILURE_BURST: '3', AUTH_FAILURES_PER_MINUTE: '1' }));
    await makeUser(context, 'own@example.com', { memberships: [['alpha', 'owner']] });
    owner = await login(server, { email: 'own@example.com', password: goodPassword });
  });
  afterEach(async () => server.close());

  const fromIp = (ip: string) => ({ 'x-forwarded-for': ip });
  const invite = (body: Record<string, unknown>, who: SignedIn = owner, slug = 'alpha') => server.request('POST', `/v1/workspaces/${slug}/invitations`, { ...who.as(), body });
  const tokenOf = (url: string) => new URL(url).hash.split('token=')[1]!;
  const accept = (body: Record<string, unknown>, headers: Record<string, string> = {}) => server.request('POST', '/v1/invitations/accept', { token: null, body, headers });
  const workspaceAudit = async (slug = 'alpha') =>
    ((await server.request('GET', `/v1/workspaces/${slug}/audit`)).body.entries as { action: string; actor_kind: string; target: string; metadata: Record<string, unknown> }[]).reverse();

  it('answers the link once; stores and lists the invitation without its token; accepting makes the account and the membership', async () => {
    const created = await invite({ email: '  New@Example.com ', role: 'viewer' });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), url: expect.stringMatching(/^http:\/\/[^/]+\/#\/invitations\/accept\?token=inv_[A-Za-z0-9_-]{43}$/), expires_at: '2026-03-08T12:00:00.000Z' });
    const token = tokenOf(created.body.url);
    expect(JSON.stringify(server.db.prepare('SELECT * FROM invitations').all())).not.toContain(token);
    const listed = await server.request('GET', '/v1/workspaces/alpha/invitations', owner.as());
    expect(listed.status).toBe(200);
    expect(listed.body.invitations).toEqual([
      { id: created.body.id, workspace: 'alpha', email: 'new@example.com', role: 'viewer', status: 'pending', created_at: '2026-03-01T12:00:00.000Z', expires_at: '2026-03-08T12:00:00.000Z', accepted_at: null, revoked_at: null },
    ]);
    expect(listed.text).not.toContain(token);

    const accepted = await accept({ token, name: 'Newcomer', password: 'a long enough passphrase' });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toMatchObject({ user: { email: 'new@example.com', name: 'Newcomer', operator: false }, workspace: { slug: 'alpha' }, role: 'viewer' });
    const newcomer = await login(server, { email: 'new@example.com', password: 'a long enough passphrase' });
    expect((await server.request('GET', '/v1/me', newcomer.as())).body.workspaces).toEqual([{ id: expect.any(String), slug: 'alpha', name: 'Workspace alpha', role: 'viewer' }]);
    expect((await server.request('GET', '/v1/sites/alpha-site/reports/summary-v2?from=2026-03-01&to=2026-03-01', newcomer.as())).status).toBe(200);
    // One use: the same token again is the 404 of an unknown one.
    const again = await accept({ token, password: 'another long passphrase' });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    expect((await server.request('GET', '/v1/workspaces/alpha/invitations', owner.as())).body.invitations[0]).toMatchObject({ status: 'accepted', accepted_at: '2026-03-01T12:00:00.000Z' });
    const audit = await workspaceAudit();
    expect(audit.filter((entry) => entry.action.startsWith('invitation.') || entry.action.startsWith('member.')).map((entry) => `${entry.action}/${entry.actor_kind}`)).toEqual([
      'invitation.create/user',
      'invitation.accept/user',
      'member.add/user',
    ]);
    expect(JSON.stringify(audit)).not.toContain(token);
    const accountAudit = server.db.prepare("SELECT action, user_id FROM account_audit_log WHERE action = 'user.create' AND user_id = ?").all(accepted.body.user.id);
    expect(accountAudit).toHaveLength(1);
  });

  it("answers an existing account's e-mail exactly as a new one (no enumeration)", async () => {
    await makeUser(context, 'known@example.com', { memberships: [['beta', 'owner']] });
    const known = await invite({ email: 'known@example.com', role: 'analyst' });
    const unknown = await invite({ email: 'unknown@example.com', role: 'analyst' });
    expect([known.status, unknown.status]).toEqual([201, 201]);
    const shape = (body: Record<string, string>) => ({ ...body, id: 'x', url: body.url!.replace(/token=.*/, 'token=x') });
    expect(shape(known.body)).toEqual(shape(unknown.body));
    expect([...known.headers.keys()].sort()).toEqual([...unknown.headers.keys()].sort());
    const listed = (await server.request('GET', '/v1/workspaces/alpha/invitations', owner.as())).body.invitations as Record<string, unknown>[];
    expect(listed.map((row) => Object.keys(row).sort())).toEqual([Object.keys(listed[1]!).sort(), Object.keys(listed[0]!).sort()]);
    // A current member is no secret to those who may invite (they list the members): 409.
    const member = await invite({ email: 'own@example.com', role: 'viewer' });
    expect(member.status).toBe(409);
    expect(member.body).toEqual({ error: 'already_member', message: expect.any(String) });
  });

  it('adds the membership to an existing account only when that account, signed in, accepts', async () => {
    const knownId = await makeUser(context, 'known@example.com', { memberships: [['beta', 'owner']] });
    await makeUser(context, 'other@example.com');
    const token = tokenOf((await invite({ email: 'KNOWN@example.com', role: 'admin' })).body.url);
    const anonymous = await accept({ token });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('sign_in_required');
    const other = await login(server, { email: 'other@example.com', password: goodPassword });
    const wrong = await server.request('POST', '/v1/invitations/accept', { ...other.as(), body: { token } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe('wrong_account');
    const known = await login(server, { email: 'known@example.com', password: goodPassword });
    const withPassword = await server.request('POST', '/v1/invitations/accept', { ...known.as(), body: { token, password: 'a long enough passphrase' } });
    expect(withPassword.status).toBe(400);
    expect(withPassword.body.error.details).toEqual([{ path: '/password', message: expect.any(String) }]);
    const accepted = await server.request('POST', '/v1/invitations/accept', { ...known.as(), body: { token } });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toMatchObject({ user: { id: knownId }, workspace: { slug: 'alpha' }, role: 'admin' });
    expect((await server.request('GET', '/v1/me', known.as())).body.workspaces.map((w: { slug: string; role: string }) => `${w.slug}/${w.role}`).sort()).toEqual(['alpha/admin', 'beta/owner']);
    // The password of the account is unchanged, and the refusals before did not use the invitation up.
    await login(server, { email: 'known@example.com', password: goodPassword });
    expect((await server.request('POST', '/v1/invitations/accept', { ...known.as(), body: { token } })).status).toBe(404);
  });

  it('works until the last millisecond of its 7 days and is refused from the first one after', async () => {
    const last = tokenOf((await invite({ email: 'last@example.com', role: 'viewer' })).body.url);
    const first = tokenOf((await invite({ email: 'first@example.com', role: 'viewer' })).body.url);
    clock.advance(sevenDays - 1);
    expect((await accept({ token: last, password: 'a long enough passphrase' }, fromIp('198.51.100.1'))).status).toBe(200);
    clock.advance(1);
    const expired = await accept({ token: first, password: 'a long enough passphrase' }, fromIp('198.51.100.2'));
    expect(expired.status).toBe(404);
    expect(expired.body.error.code).toBe('not_found');
    expect(server.db.prepare("SELECT count(*) AS n FROM users WHERE email = 'first@example.com'").get()).toEqual({ n: 0 });
    // The owner's session has ended meanwhile (7 days at most): the admin token lists.
    const statuses = (await server.request('GET', '/v1/workspaces/alpha/invitations')).body.invitations.map((row: { email: string; status: string }) => `${row.email}/${row.status}`);
    expect(statuses.sort()).toEqual(['first@example.com/expired', 'last@example.com/accepted']);
  });

  it('revokes a pending invitation (then 404 to accept and to revoke again), audited; another workspace cannot name it', async () => {
    await seedWorkspace(server, 'gamma');
    await makeUser(context, 'gam@example.com', { memberships: [['gamma', 'owner']] });
    const gamma = await login(server, { email: 'gam@example.com', password: goodPassword });
    const created = await invite({ email: 'gone@example.com', role: 'analyst' });
    expect((await server.request('DELETE', `/v1/workspaces/gamma/invitations/${created.body.id}`, gamma.as())).status).toBe(404);
    expect((await server.request('DELETE', `/v1/workspaces/alpha/invitations/${created.body.id}`, owner.as())).status).toBe(204);
    expect((await server.request('DELETE', `/v1/workspaces/alpha/invitations/${created.body.id}`, owner.as())).status).toBe(404);
    expect((await server.request('DELETE', '/v1/workspaces/alpha/invitations/no-such-id', owner.as())).status).toBe(404);
    expect((await accept({ token: tokenOf(created.body.url), password: 'a long enough passphrase' })).status).toBe(404);
    expect((await server.request('GET', '/v1/workspaces/alpha/invitations', owner.as())).body.invitations[0]).toMatchObject({ status: 'revoked', revoked_at: '2026-03-01T12:00:00.000Z' });
    expect((await server.request('GET', '/v1/workspaces/gamma/invitations', gamma.as())).body.invitations).toEqual([]);
    expect((await workspaceAudit()).filter((entry) => entry.action.startsWith('invitation.')).map((entry) => [entry.action, entry.target])).toEqual([
      ['invitation.create', created.body.id],
      ['invitation.revoke', created.body.id],
    ]);
  });

  it.each([
    { who: 'owner', role: 'owner', slug: 'alpha', status: 201 },
    { who: 'admin', role: 'analyst', slug: 'alpha', status: 201 },
    { who: 'admin', role: 'owner', slug: 'alpha', status: 403 },
    { who: 'analyst', role: 'viewer', slug: 'alpha', status: 403 },
    { who: 'viewer', role: 'viewer', slug: 'alpha', status: 403 },
    { who: 'owner', role: 'viewer', slug: 'beta', status: 404 },
    { who: 'admin', role: 'viewer', slug: 'missing', status: 404 },
  ])('a signed-in $who inviting a $role into $slug → $status', async ({ who, role, slug, status }) => {
    if (who !== 'owner') await makeUser(context, `${who}@example.com`, { memberships: [['alpha', who as 'admin']] });
    const caller = who === 'owner' ? owner : await login(server, { email: `${who}@example.com`, password: goodPassword });
    const response = await invite({ email: 'someone@example.com', role }, caller, slug);
    expect(response.status, response.text).toBe(status);
    if (status === 403) expect(response.body.error).toBe('forbidden_scope');
    if (status !== 201) expect(server.db.prepare('SELECT count(*) AS n FROM invitations').get()).toEqual({ n: 0 });
    // Listing and revoking need the same admin scope.
    const list = await server.request('GET', `/v1/workspaces/${slug}/invitations`, caller.as());
    expect(list.status).toBe(status === 201 || (status === 403 && who === 'admin') ? 200 : status);
  });

  it.each([
    { name: 'no e-mail', body: { role: 'viewer' }, path: '/email' },
    { name: 'not an e-mail', body: { email: 'nobody', role: 'viewer' }, path: '/email' },
    { name: 'an unknown role', body: { email: 'a@example.com', role: 'god' }, path: '/role' },
    { name: 'an unknown field', body: { email: 'a@example.com', role: 'viewer', token: 'mine' }, path: '/token' },
  ])('refuses an invitation with $name (flat 400, nothing written)', async ({ body, path }) => {
    const response = await invite(body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'invalid_payload', details: [{ path }] });
    expect(server.db.prepare('SELECT count(*) AS n FROM invitations').get()).toEqual({ n: 0 });
  });

  it.each([
    { length: 11, status: 400 },
    { length: 12, status: 200 },
    { length: 256, status: 200 },
    { length: 257, status: 400 },
  ])('accepting with a new password of $length characters → $status (a refusal keeps the invitation)', async ({ length, status }) => {
    const token = tokenOf((await invite({ email: 'pw@example.com', role: 'viewer' })).body.url);
    const response = await accept({ token, password: 'p'.repeat(length) });
    expect(response.status, response.text).toBe(status);
    if (status === 400) {
      expect(response.body.error.details).toEqual([{ path: '/password', message: expect.any(String) }]);
      expect((await accept({ token, password: goodPassword })).status).toBe(200);
    } else {
      await login(server, { email: 'pw@example.com', password: 'p'.repeat(length) });
    }
  });

  it('asks a new account for a password (400), without using the invitation up', async () => {
    const token = tokenOf((await invite({ email: 'nopw@example.com', role: 'viewer' })).body.url);
    const response = await accept({ token, name: 'No password' });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([{ path: '/password', message: 'is required to create the account' }]);
    expect((await accept({ token, password: goodPassword })).status).toBe(200);
  });

  it('throttles failed tokens per address: after the burst, 429 with Retry-After even for a good token; other addresses go on', async () => {
    const token = tokenOf((await invite({ email: 'late@example.com', role: 'viewer' })).body.url);
    // The last character changed (to A, or to B when it is A: a token ends in A one time in 64).
    const nearMiss = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const guess of ['inv_guess1', 'not-even-a-token', nearMiss]) {
      const response = await accept({ token: guess, password: goodPassword }, fromIp('203.0.113.9'));
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    }
    const throttled = await accept({ token, password: goodPassword }, fromIp('203.0.113.9'));
    expect(throttled.status).toBe(429);
    expect(throttled.body.error.code).toBe('rate_limited');
    expect(throttled.headers.get('retry-after')).toBe('60');
    expect(server.db.prepare("SELECT count(*) AS n FROM users WHERE email = 'late@example.com'").get()).toEqual({ n: 0 });
    // A successful accept is never counted: another address uses the token.
    expect((await accept({ token, password: goodPassword }, fromIp('203.0.113.10'))).status).toBe(200);
    clock.advance(60_000);
    expect((await accept({ token, password: goodPassword }, fromIp('203.0.113.9'))).status).toBe(404);
  });
});
