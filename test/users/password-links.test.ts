// One-time set-password links (`sightline user create` prints one, CONTRACT 9): the link sets the password once and
// ends the account's sessions; a used, unknown or expired link is one 404 (7 days from creation, refused from that
// millisecond on); the password rules are the account's (12 to 256 characters); the token is stored only as a hash.
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.ts';
import { createPasswordLink, passwordLinkLifetimeMs } from '../../src/users/password-links.ts';
import type { TestServer } from '../_setup.ts';
import { type ManualClock, manualClock } from '../admin/_helpers.ts';
import { goodPassword, login, makeUser, startPeopleServer } from './_users.ts';

describe('set-password links', () => {
  let server: TestServer;
  let context: AppContext;
  let clock: ManualClock;
  beforeEach(async () => {
    clock = manualClock('2026-03-01T12:00:00.000Z');
    ({ server, context } = await startPeopleServer(clock));
  });
  afterEach(async () => {
    await server.close();
  });

  const tokenOf = (url: string) => /#\/set-password\?token=(pwl_[A-Za-z0-9_-]{43})$/.exec(url)![1]!;
  const setPassword = (body: Record<string, unknown>) => server.request('POST', '/v1/auth/set-password', { token: null, body });

  it('sets the password once, ends the account\'s sessions, and stores only the token\'s hash', async () => {
    const userId = await makeUser(context, 'new@example.com', { memberships: [['alpha', 'viewer']] });
    const before = await login(server, { email: 'new@example.com', password: goodPassword });
    const link = createPasswordLink(context, userId, 'https://stats.example.com');
    expect(link.url).toMatch(/^https:\/\/stats\.example\.com\/#\/set-password\?token=pwl_[A-Za-z0-9_-]{43}$/);
    const token = tokenOf(link.url);
    const stored = server.db.prepare('SELECT token_hash FROM password_links').pluck().get() as Buffer;
    expect(stored.equals(createHash('sha256').update(token).digest())).toBe(true);

    expect((await setPassword({ token, password: 'a brand new passphrase' })).status).toBe(204);
    expect((await server.request('GET', '/v1/me', before.as())).status).toBe(401);
    await login(server, { email: 'new@example.com', password: 'a brand new passphrase' });
    const again = await setPassword({ token, password: 'another new passphrase' });
    expect([again.status, again.body.error.code]).toEqual([404, 'not_found']);
    const audit = server.db.prepare("SELECT metadata FROM account_audit_log WHERE action = 'user.update'").pluck().all() as string[];
    expect(audit.map((text) => JSON.parse(text))).toEqual([expect.objectContaining({ fields: ['password'], via: 'set_password_link' })]);
  });

  it.each([
    ['7 days less 1 ms after its creation', passwordLinkLifetimeMs - 1, 204],
    ['7 days after its creation', passwordLinkLifetimeMs, 404],
  ])('works until it expires: %s answers %i', async (_name, elapsed, status) => {
    const userId = await makeUser(context, 'late@example.com');
    const token = tokenOf(createPasswordLink(context, userId, 'http://127.0.0.1:8080').url);
    clock.advance(elapsed);
    expect((await setPassword({ token, password: 'a brand new passphrase' })).status).toBe(status);
  });

  it.each([
    ['an unknown token', { token: 'pwl_nope', password: 'a brand new passphrase' }, 404, 'not_found'],
    ['a password of 11 characters', { password: 'x'.repeat(11) }, 400, 'invalid_payload'],
    ['a password of 257 characters', { password: 'x'.repeat(257) }, 400, 'invalid_payload'],
    ['no token', { token: undefined, password: 'a brand new passphrase' }, 400, 'invalid_payload'],
  ])('refuses %s', async (_name, body, status, code) => {
    const userId = await makeUser(context, 'edge@example.com');
    const token = tokenOf(createPasswordLink(context, userId, 'http://127.0.0.1:8080').url);
    const answer = await setPassword({ token, ...body });
    expect([answer.status, answer.body.error.code]).toEqual([status, code]);
  });

  it.each([
    ['12', 12],
    ['256', 256],
  ])('accepts a password of %s characters', async (_name, length) => {
    const userId = await makeUser(context, `len${length}@example.com`);
    const token = tokenOf(createPasswordLink(context, userId, 'http://127.0.0.1:8080').url);
    expect((await setPassword({ token, password: 'p'.repeat(length) })).status).toBe(204);
    await login(server, { email: `len${length}@example.com`, password: 'p'.repeat(length) });
  });
});
