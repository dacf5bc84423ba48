// People over HTTP (CONTRACT section 9): sign-in (same 401 for an unknown e-mail and a wrong password, a new session
// at each sign-in, throttled per account and per address), one's account and sessions, the second factor, members
// and the last owner, roles in the access resolver, and the audit rows. Real app, real SQLite file, manual clock.
import QRCode from 'qrcode';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.ts';
import { openSecret } from '../../src/secrets/secret-box.ts';
import { hotp, totpStepOf } from '../../src/users/totp.ts';
import { type ManualClock, manualClock } from '../admin/_helpers.ts';
import type { TestServer } from '../_setup.ts';
import { goodPassword, login, makeUser, renewedSession, startPeopleServer } from './_users.ts';

describe('people', () => {
  let server: TestServer;
  let clock: ManualClock;
  let context: AppContext;

  beforeEach(async () => {
    clock = manualClock('2026-03-01T12:00:00.000Z');
    ({ server, context } = await startPeopleServer(clock, { TRUST_PROXY: '1', AUTH_FAILURE_BURST: '3', AUTH_FAILURES_PER_MINUTE: '1' }));
  });
  afterEach(async () => server.close());

  const fromIp = (ip: string) => ({ 'x-forwarded-for': ip });
  const accountAudit = () => server.db.prepare('SELECT action, user_id, actor_kind, metadata FROM account_audit_log ORDER BY ts, rowid').all() as { action: string; user_id: string | null; metadata: string }[];

  it('signs in with a new session each time: the cookie sent along is never kept (no fixation)', async () => {
    const userId = await makeUser(context, 'Ann@Example.com', { memberships: [['alpha', 'owner']] });
    const first = await login(server, { email: 'ann@example.COM', password: goodPassword });
    expect(first.userId).toBe(userId);
    const second = await login(server, { email: 'ann@example.com', password: goodPassword }, { cookie: first.cookie });
    expect(second.cookie).not.toBe(first.cookie);
    expect(second.sessionId).not.toBe(first.sessionId);
    const me = await server.request('GET', '/v1/me', second.as());
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user: { id: userId, email: 'ann@example.com', totp_enabled: false, sso: false }, workspaces: [{ slug: 'alpha', role: 'owner' }] });
    // Only the cookie's digest is stored.
    expect(JSON.stringify(server.db.prepare('SELECT * FROM user_sessions').all())).not.toContain(second.cookie.split('=')[1]);
    expect((await server.request('GET', '/v1/me', { token: null })).status).toBe(401);
    // A session cookie of a user never passes for the admin token.
    expect((await server.request('GET', '/v1/workspaces', second.as())).status).toBe(403);
  });

  it('answers an unknown e-mail, a wrong password and a disabled account with the same 401, and audits them without the e-mail', async () => {
    const userId = await makeUser(context, 'bob@example.com');
    const unknown = await server.request('POST', '/v1/auth/login', { token: null, body: { email: 'nobody@example.com', password: goodPassword }, headers: fromIp('198.51.100.1') });
    const wrong = await server.request('POST', '/v1/auth/login', { token: null, body: { email: 'bob@example.com', password: 'wrong password!' }, headers: fromIp('198.51.100.2') });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.body).toEqual({ error: { code: 'invalid_credentials', message: expect.any(String) } });
    const rows = accountAudit().filter((row) => row.action === 'login.failure');
    expect(rows.map((row) => row.user_id)).toEqual([null, userId]);
    expect(JSON.stringify(rows)).not.toContain('nobody@example.com');
    expect(JSON.stringify(rows)).not.toContain('bob@example.com');
  });

  it('throttles failures per account across addresses, and per address across accounts, with Retry-After', async () => {
    await makeUser(context, 'carol@example.com');
    // Burst 3: three wrong passwords from three addresses spend the account's allowance.
    for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      const response = await server.request('POST', '/v1/auth/login', { token: null, body: { email: 'carol@example.com', password: 'wrong password!' }, headers: fromIp(ip) });
      expect(response.status).toBe(401);
    }
    const throttled = await server.request('POST', '/v1/auth/login', { token: null, body: { email: 'carol@example.com', password: goodPassword }, headers: fromIp('203.0.113.4') });
    expect(throttled.status).toBe(429);
    expect(throttled.body.error.code).toBe('rate_limited');
    expect(throttled.headers.get('retry-after')).toBe('60');
    // An unknown e-mail is throttled exactly alike (no enumeration through the 429).
    for (const ip of ['203.0.113.5', '203.0.113.6', '203.0.113.7']) {
      await server.request('POST', '/v1/auth/login', { token: null, body: { email: 'ghost@example.com', password: 'wrong password!' }, headers: fromIp(ip) });
    }
    expect((await server.request('POST', '/v1/auth/login', { token: null, body: { email: 'ghost@example.com', password: 'x' }, headers: fromIp('203.0.113.8') })).status).toBe(429);
    // Per address: three different accounts from one address, then the address is refused for any account.
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
      await server.request('POST', '/v1/auth/login', { token: null, body: { email, password: 'wrong password!' }, headers: fromIp('192.0.2.9') });
    }
    expect((await server.request('POST', '/v1/auth/login', { token: null, body: { email: 'd@example.com', password: 'x' }, headers: fromIp('192.0.2.9') })).status).toBe(429);
    // After Retry-After, one more attempt is allowed: the right password gets through.
    clock.advance(60_000);
    await login(server, { email: 'carol@example.com', password: goodPassword }, fromIp('203.0.113.4'));
  });

  it.each([
    { length: 11, status: 400 },
    { length: 12, status: 200 },
    { length: 256, status: 200 },
    { length: 257, status: 400 },
  ])('a new password of $length characters → $status', async ({ length, status }) => {
    await makeUser(context, 'dan@example.com');
    const session = await login(server, { email: 'dan@example.com', password: goodPassword });
    const password = 'p'.repeat(length);
    const response = await server.request('PATCH', '/v1/me', { ...session.as(), body: { password, current_password: goodPassword } });
    expect(response.status, response.text).toBe(status);
    if (status === 400) expect(response.body.error.details).toEqual([{ path: '/password', message: expect.any(String) }]);
    else await login(server, { email: 'dan@example.com', password });
  });

  it('counts an attempt before hashing: guesses sent side by side cannot all pass one check; a success is forgiven', async () => {
    await makeUser(context, 'iris@example.com');
    // Ten wrong passwords at once, from ten addresses (burst 3, the clock stands still): three are checked, seven refused.
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, n) => server.request('POST', '/v1/auth/login', { token: null, body: { email: 'iris@example.com', password: 'wrong password!' }, headers: fromIp(`203.0.113.${100 + n}`) })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([401, 401, 401, ...Array(7).fill(429)]);
    // A right password spends nothing: with one attempt left, it succeeds, and one wrong guess still remains.
    await makeUser(context, 'jon@example.com');
    for (const n of [1, 2]) {
      expect((await server.request('POST', '/v1/auth/login', { token: null, body: { email: 'jon@example.com', password: 'wrong password!' }, headers: fromIp(`198.51.100.${n}`) })).status).toBe(401);
    }
    await login(server, { email: 'jon@example.com', password: goodPassword }, fromIp('198.51.100.3'));
    await login(server, { email: 'jon@example.com', password: goodPassword }, fromIp('198.51.100.4'));
    expect((await server.request('POST', '/v1/auth/login', { token: null, body: { email: 'jon@example.com', password: 'wrong password!' }, headers: fromIp('198.51.100.5') })).status).toBe(401);
    expect((await server.request('POST', '/v1/auth/login', { token: null, body: { email: 'jon@example.com', password: goodPassword }, headers: fromIp('198.51.100.6') })).status).toBe(429);
  });

  it('a password change needs the current password, ends the other sessions and replaces this one (a new id)', async () => {
    const userId = await makeUser(context, 'eve@example.com');
    const laptop = await login(server, { email: 'eve@example.com', password: goodPassword }, { 'user-agent': 'laptop' });
    const phone = await login(server, { email: 'eve@example.com', password: goodPassword }, { 'user-agent': 'phone' });
    const sessions = await server.request('GET', '/v1/me/sessions', phone.as());
    expect(sessions.body.sessions.map((s: { user_agent: string; current: boolean }) => [s.user_agent, s.current]).sort()).toEqual([['laptop', false], ['phone', true]]);
    const wrong = await server.request('PATCH', '/v1/me', { ...phone.as(), body: { name: 'Eve', current_password: 'not my password' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('invalid_credentials');
    // A mutation without the CSRF header is not authenticated by the cookie.
    expect((await server.request('PATCH', '/v1/me', { token: null, headers: { cookie: phone.cookie }, body: { name: 'Eve', current_password: goodPassword } })).status).toBe(401);
    const changed = await server.request('PATCH', '/v1/me', { ...phone.as(), body: { name: 'Eve', password: 'a brand new passphrase', current_password: goodPassword } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: userId, name: 'Eve' });
    expect((await server.request('GET', '/v1/me', laptop.as())).status).toBe(401);
    // A privilege change: the session it was made in gives way to a new one (no fixation across it).
    expect((await server.request('GET', '/v1/me', phone.as())).status).toBe(401);
    const renewed = await renewedSession(server, phone, changed);
    expect(renewed.sessionId).not.toBe(phone.sessionId);
    expect((await server.request('GET', '/v1/me/sessions', renewed.as())).body.sessions).toEqual([expect.objectContaining({ id: renewed.sessionId, user_agent: 'phone', current: true })]);
    expect(accountAudit().filter((row) => row.action === 'user.update').map((row) => JSON.parse(row.metadata))).toEqual([{ fields: ['name', 'password'], sessions_ended: 1, session_id: renewed.sessionId }]);
    // A change of name alone is no privilege change: the session stays.
    const renamed = await server.request('PATCH', '/v1/me', { ...renewed.as(), body: { name: 'Eve E.', current_password: 'a brand new passphrase' } });
    expect(renamed.headers.get('set-cookie')).toBeNull();
    expect((await server.request('GET', '/v1/me', renewed.as())).status).toBe(200);
  });

  it('revokes one of its own sessions by id; another user\'s session id is a 404', async () => {
    await makeUser(context, 'fay@example.com');
    await makeUser(context, 'gus@example.com');
    const one = await login(server, { email: 'fay@example.com', password: goodPassword });
    const two = await login(server, { email: 'fay@example.com', password: goodPassword });
    const other = await login(server, { email: 'gus@example.com', password: goodPassword });
    expect((await server.request('DELETE', `/v1/me/sessions/${other.sessionId}`, one.as())).status).toBe(404);
    expect((await server.request('DELETE', `/v1/me/sessions/${two.sessionId}`, one.as())).status).toBe(204);
    expect((await server.request('GET', '/v1/me', two.as())).status).toBe(401);
    expect((await server.request('GET', '/v1/me', other.as())).status).toBe(200);
    expect(accountAudit().filter((row) => row.action === 'session.revoke')).toHaveLength(1);
    // Sign-out ends the session of the cookie.
    expect((await server.request('POST', '/v1/auth/logout', one.as())).status).toBe(204);
    expect((await server.request('GET', '/v1/me', one.as())).status).toBe(401);
  });

  it('sets up a second factor, then asks for it at sign-in: a code once, a recovery code once', async () => {
    const userId = await makeUser(context, 'hal@example.com');
    const session = await login(server, { email: 'hal@example.com', password: goodPassword });
    const started = await server.request('POST', '/v1/me/totp', session.as());
    expect(started.status).toBe(201);
    expect(started.body.otpauth_uri).toMatch(/^otpauth:\/\/totp\/Sightline%3Ahal%40example\.com\?secret=[A-Z2-7]{32}&issuer=Sightline/);
    // The URI's QR code, drawn on the server: exactly what the qrcode package draws for that URI.
    expect(started.body.qr_svg).toBe(await QRCode.toString(started.body.otpauth_uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 }));
    expect(started.body.qr_svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const sealed = (server.db.prepare('SELECT totp_secret FROM users WHERE id = ?').get(userId) as { totp_secret: Buffer }).totp_secret;
    expect(sealed.toString('latin1')).not.toContain(started.body.secret);
    const secret = openSecret(server.dataDir, sealed, `user-totp/${userId}`);
    const codeAt = (offsetSteps = 0) => hotp(secret, totpStepOf(clock.now()) + offsetSteps);
    expect((await server.request('POST', '/v1/me/totp/confirm', { ...session.as(), body: { code: '000000' === codeAt() ? '111111' : '000000' } })).status).toBe(400);
    const confirmed = await server.request('POST', '/v1/me/totp/confirm', { ...session.as(), body: { code: codeAt() } });
    expect(confirmed.status).toBe(200);
    // Turning a second factor on is a privilege change: a new session replaces the one it was done in.
    expect((await server.request('GET', '/v1/me', session.as())).status).toBe(401);
    const renewed = await renewedSession(server, session, confirmed);
    expect(renewed.sessionId).not.toBe(session.sessionId);
    const codes = confirmed.body.recovery_codes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect(JSON.stringify(server.db.prepare('SELECT * FROM user_recovery_codes').all())).not.toContain(codes[0]!.replace(/-/g, ''));

    const noCode = await server.request('POST', '/v1/auth/login', { token: null, body: { email: 'hal@example.com', password: goodPassword } });
    expect(noCode.status).toBe(401);
    expect(noCode.body.error.code).toBe('totp_required');
    clock.advance(30_000);
    const wrongCode = await server.request('POST', '/v1/auth/login', { token: null, body: { email: 'hal@example.com', password: goodPassword, totp: codeAt(5) } });
    expect(wrongCode.body.error.code).toBe('invalid_credentials');
    const code = codeAt();
    await login(server, { email: 'hal@example.com', password: goodPassword, totp: code });
    // The same code a second time is refused (replay), a recovery code works once.
    expect((await server.request('POST', '/v1/auth/login', { token: null, body: { email: 'hal@example.com', password: goodPassword, totp: code } })).status).toBe(401);
    await login(server, { email: 'hal@example.com', password: goodPassword, totp: codes[3]!.toLowerCase() });
    const reused = () => server.request('POST', '/v1/auth/login', { token: null, body: { email: 'hal@example.com', password: goodPassword, totp: codes[3]! } });
    expect((await reused()).status).toBe(401);
    // That was the third failed code (burst 3): a wrong code counts against the account like a wrong password.
    expect((await reused()).status).toBe(429);
    // Off with a recovery code; then a password alone signs in again.
    expect((await server.request('DELETE', '/v1/me/totp', { ...renewed.as(), body: { code: codes[3]! } })).status).toBe(400);
    expect((await server.request('DELETE', '/v1/me/totp', { ...renewed.as(), body: { code: codes[4]! } })).status).toBe(204);
    clock.advance(120_000);
    await login(server, { email: 'hal@example.com', password: goodPassword });
    expect(accountAudit().map((row) => row.action).filter((action) => action.startsWith('totp.'))).toEqual(['totp.enable', 'totp.disable']);
  });

  it('manages members: owners only, the last owner stays, each change audited in the workspace', async () => {
    const ownerId = await makeUser(context, 'own@example.com', { memberships: [['alpha', 'owner']] });
    await makeUser(context, 'adm@example.com', { memberships: [['alpha', 'admin']] });
    const newcomerId = await makeUser(context, 'new@example.com');
    const owner = await login(server, { email: 'own@example.com', password: goodPassword });
    const admin = await login(server, { email: 'adm@example.com', password: goodPassword });
    const add = { email: 'NEW@example.com', role: 'viewer' };
    expect((await server.request('POST', '/v1/workspaces/alpha/members', { ...admin.as(), body: add })).status).toBe(403);
    expect((await server.request('POST', '/v1/workspaces/beta/members', { ...owner.as(), body: add })).status).toBe(404);
    const added = await server.request('POST', '/v1/workspaces/alpha/members', { ...owner.as(), body: add });
    expect(added.status, added.text).toBe(201);
    expect(added.body).toMatchObject({ workspace: 'alpha', user_id: newcomerId, role: 'viewer' });
    expect((await server.request('POST', '/v1/workspaces/alpha/members', { ...owner.as(), body: add })).body).toEqual({ error: 'already_member', message: expect.any(String) });
    expect((await server.request('POST', '/v1/workspaces/alpha/members', { ...owner.as(), body: { email: 'none@example.com', role: 'viewer' } })).status).toBe(404);
    expect((await server.request('POST', '/v1/workspaces/alpha/members', { ...owner.as(), body: { user_id: newcomerId, email: 'x@example.com', role: 'viewer' } })).status).toBe(400);
    expect((await server.request('GET', '/v1/workspaces/alpha/members', admin.as())).body.members).toHaveLength(3);
    const demote = await server.request('PATCH', `/v1/workspaces/alpha/members/${ownerId}`, { ...owner.as(), body: { role: 'admin' } });
    expect(demote.status).toBe(409);
    expect(demote.body).toEqual({ error: 'last_owner', message: expect.any(String) });
    expect((await server.request('DELETE', `/v1/workspaces/alpha/members/${ownerId}`, owner.as())).status).toBe(409);
    expect((await server.request('PATCH', `/v1/workspaces/alpha/members/${newcomerId}`, { ...owner.as(), body: { role: 'owner' } })).status).toBe(200);
    expect((await server.request('DELETE', `/v1/workspaces/alpha/members/${ownerId}`, owner.as())).status).toBe(204);
    // No longer a member: alpha is a 404 for the former owner, like a foreign workspace.
    expect((await server.request('GET', '/v1/workspaces/alpha/members', owner.as())).status).toBe(404);
    const audit = await server.request('GET', '/v1/workspaces/alpha/audit');
    expect(audit.body.entries.map((entry: { action: string; actor_kind: string }) => `${entry.action}/${entry.actor_kind}`).filter((a: string) => a.startsWith('member.'))).toEqual([
      'member.remove/user',
      'member.update/user',
      'member.add/user',
    ]);
  });

  it('roles reach what docs/people.md says: viewer the reports, analyst the events too, operators every workspace', async () => {
    await makeUser(context, 'view@example.com', { memberships: [['alpha', 'viewer']] });
    await makeUser(context, 'ana@example.com', { memberships: [['alpha', 'analyst']] });
    await makeUser(context, 'op@example.com', { operator: true });
    const viewer = await login(server, { email: 'view@example.com', password: goodPassword });
    const analyst = await login(server, { email: 'ana@example.com', password: goodPassword });
    const operator = await login(server, { email: 'op@example.com', password: goodPassword });
    const report = (site: string) => `/v1/sites/${site}/reports/summary-v2?from=2026-03-01&to=2026-03-01`;
    const events = (site: string) => `/v1/sites/${site}/events/list-v2?from=2026-03-01&to=2026-03-01`;
    const cases: [string, typeof viewer, string, number][] = [
      ['viewer reads its reports', viewer, report('alpha-site'), 200],
      ['viewer does not read events', viewer, events('alpha-site'), 403],
      ['viewer, foreign site', viewer, report('beta-site'), 404],
      ['analyst reads reports', analyst, report('alpha-site'), 200],
      ['analyst reads events', analyst, events('alpha-site'), 200],
      ['analyst, no keys', analyst, '/v1/workspaces/alpha/keys', 403],
      ['analyst, foreign workspace', analyst, '/v1/workspaces/beta/keys', 404],
      ['operator, any workspace', operator, '/v1/workspaces/beta/keys', 200],
      ['operator, the list of workspaces', operator, '/v1/workspaces', 200],
    ];
    for (const [name, who, url, status] of cases) {
      const response = await server.request('GET', url, who.as());
      expect(response.status, `${name}: ${response.text}`).toBe(status);
    }
  });
});
