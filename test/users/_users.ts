// Shared pieces of the people tests: making accounts through the same action the CLI runs, and signing in over HTTP.
// Not a test file itself.
import { expect } from 'vitest';
import type { Role } from '../../src/access/caller.ts';
import type { AppContext } from '../../src/context.ts';
import { createUser } from '../../src/users/accounts.ts';
import { insertMembership } from '../../src/users/queries/membership-rows.ts';
import { findWorkspaceBySlug } from '../../src/tenants/queries/find-workspace.ts';
import type { ManualClock } from '../admin/_helpers.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';

export const goodPassword = 'correct horse battery staple';

export interface SignedIn {
  cookie: string;
  csrf: string;
  sessionId: string;
  userId: string;
  /** Request options that send the session (and its CSRF header) instead of a bearer. */
  as: (headers?: Record<string, string>) => { token: null; headers: Record<string, string> };
}

export async function makeUser(context: AppContext, email: string, options: { operator?: boolean; memberships?: [string, Role][] } = {}): Promise<string> {
  const { user } = await createUser(context, { kind: 'system' }, { email, password: goodPassword, operator: options.operator });
  for (const [slug, role] of options.memberships ?? []) {
    insertMembership(context.db, { workspace_id: findWorkspaceBySlug(context.db, slug)!.id, user_id: user.id, role, created_at: '2026-01-01T00:00:00.000Z' });
  }
  return user.id;
}

export async function login(server: TestServer, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<SignedIn> {
  const response = await server.request('POST', '/v1/auth/login', { token: null, body, headers });
  expect(response.status, response.text).toBe(200);
  const cookie = response.headers.get('set-cookie')!.split(';')[0]!;
  return signedInOf(cookie, response.body.csrf as string, response.body.session_id, response.body.user.id);
}

function signedInOf(cookie: string, csrf: string, sessionId: string, userId: string): SignedIn {
  return { cookie, csrf, sessionId, userId, as: (extra = {}) => ({ token: null, headers: { cookie, 'x-sightline-csrf': csrf, ...extra } }) };
}

/**
 * The session that replaced `previous` at a privilege change (a new password, a second factor turned on): the cookie
 * the answer set and the CSRF token in its X-Sightline-CSRF. Fails when the answer set no new session.
 */
export async function renewedSession(server: TestServer, previous: SignedIn, response: { headers: Headers }): Promise<SignedIn> {
  const cookie = response.headers.get('set-cookie')?.split(';')[0];
  expect(cookie, 'a new session cookie').toMatch(/^sightline_session=[A-Za-z0-9_-]{43}$/);
  expect(cookie).not.toBe(previous.cookie);
  const csrf = response.headers.get('x-sightline-csrf')!;
  const me = await server.request('GET', '/v1/me', { token: null, headers: { cookie: cookie! } });
  expect(me.status).toBe(200);
  expect(me.body.csrf).toBe(csrf);
  return signedInOf(cookie!, csrf, me.body.session_id, previous.userId);
}

/**
 * A server on an injected clock with two workspaces (alpha and beta, one site each) and the app context the
 * accounts are made through. `env` adds settings (the throttle's, TRUST_PROXY).
 */
export async function startPeopleServer(clock: ManualClock, env: Record<string, string> = {}): Promise<{ server: TestServer; context: AppContext }> {
  let context: AppContext | undefined;
  const server = await startTestServer({ clock, env, extend: (_app, appContext) => (context = appContext) });
  await seedWorkspace(server, 'alpha', { sites: ['alpha-site'] });
  await seedWorkspace(server, 'beta', { sites: ['beta-site'] });
  return { server, context: context! };
}
