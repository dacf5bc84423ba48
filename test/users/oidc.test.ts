// Single sign-on end to end (CONTRACT 9, docs/people.md "Single sign-on"): our server (openid-client) against a real
// OpenID provider (oidc-provider) started in the test, driven by redirects and cookies as a browser drives them. The
// happy paths (a first sign-in placed in OIDC_WORKSPACE, an invited e-mail, an existing account linked), every
// refusal (wrong state, replayed code, unverified e-mail, foreign domain, disabled account, not invited, expired or
// missing sign-in), a new session at each sign-in, and the bundled server as a user starts it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.ts';
import { disableUser } from '../../src/users/accounts.ts';
import { type ManualClock, manualClock } from '../admin/_helpers.ts';
import { ensureBuilt } from '../cli/cli-helpers.ts';
import { shippedServers } from '../e2e/_server.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { signInAtProvider, startTestProvider, TestBrowser, type TestProvider } from './_oidc.ts';
import { goodPassword, login, makeUser, startPeopleServer } from './_users.ts';

const callbackPath = '/v1/auth/oidc/callback';

interface Started {
  browser: TestBrowser;
  authorizationUrl: string;
  /** The value of the sightline_oidc cookie the start set. */
  oidcCookie: string;
}

async function startSignIn(server: { url: string }, browser = new TestBrowser()): Promise<Started> {
  const response = await browser.get(`${server.url}/v1/auth/oidc/start`);
  expect(response.status, await response.text()).toBe(303);
  const oidcCookie = browser.cookies.get(new URL(server.url).host)!.get('sightline_oidc')!;
  expect(oidcCookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return { browser, authorizationUrl: response.headers.get('location')!, oidcCookie };
}

/** The whole flow as `sub`; answers where the callback sent the browser, and the session cookie it set, if any. */
async function signInWithSso(server: { url: string }, sub: string, browser = new TestBrowser()) {
  const started = await startSignIn(server, browser);
  const callbackUrl = await signInAtProvider(browser, started.authorizationUrl, sub, `${server.url}${callbackPath}`);
  const response = await browser.get(callbackUrl);
  expect(response.status).toBe(303);
  return { ...started, callbackUrl, location: response.headers.get('location')!, session: browser.cookies.get(new URL(server.url).host)?.get('sightline_session') };
}

describe('single sign-on against a real OpenID provider', () => {
  let provider: TestProvider;
  let clock: ManualClock;
  /** First sign-ins of example.com are placed in alpha as analysts. */
  let jit: { server: TestServer; context: AppContext };
  /** No OIDC_WORKSPACE: invited e-mails and existing accounts only. */
  let invitedOnly: { server: TestServer; context: AppContext };
  let unconfigured: TestServer;

  beforeAll(async () => {
    provider = await startTestProvider();
    clock = manualClock('2026-03-01T12:00:00.000Z');
    const oidcEnv = { OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret };
    jit = await startPeopleServer(clock, { ...oidcEnv, OIDC_WORKSPACE: 'alpha', OIDC_DEFAULT_ROLE: 'analyst', OIDC_ALLOWED_DOMAINS: 'example.com, @Example.org' });
    invitedOnly = await startPeopleServer(clock, oidcEnv);
    unconfigured = await startTestServer();
    provider.setRedirectUris([`${jit.server.url}${callbackPath}`, `${invitedOnly.server.url}${callbackPath}`]);
  });
  afterAll(async () => {
    await Promise.all([jit.server.close(), invitedOnly.server.close(), unconfigured.close()]);
    await provider.close();
  });

  const me = (server: TestServer, session: string) => server.request('GET', '/v1/me', { token: null, headers: { cookie: `sightline_session=${session}` } });
  const accountAudit = (server: TestServer) =>
    server.db.prepare("SELECT action, user_id, metadata FROM account_audit_log WHERE action LIKE 'login.%' ORDER BY ts, rowid").all() as { action: string; user_id: string | null; metadata: string }[];

  it('tells the UI whether to offer single sign-on (GET /v1/auth/options, public), and 404s the routes when it is off', async () => {
    expect((await jit.server.request('GET', '/v1/auth/options', { token: null })).body).toEqual({ password: true, sso: true });
    expect((await unconfigured.request('GET', '/v1/auth/options', { token: null })).body).toEqual({ password: true, sso: false });
    for (const path of ['/v1/auth/oidc/start', `${callbackPath}?code=x&state=y`]) {
      const response = await unconfigured.request('GET', path, { token: null });
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    }
  });

  it('starts with PKCE S256, a state and a nonce, remembered under a short-lived HttpOnly SameSite=Lax cookie', async () => {
    const browser = new TestBrowser();
    const response = await browser.get(`${jit.server.url}/v1/auth/oidc/start`);
    const location = new URL(response.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(`${provider.issuer}/auth`);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: provider.clientId,
      redirect_uri: `${jit.server.url}${callbackPath}`,
      scope: 'openid email profile',
      code_challenge_method: 'S256',
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    const cookie = response.headers.getSetCookie().find((line) => line.startsWith('sightline_oidc='))!;
    expect(cookie).toMatch(/^sightline_oidc=[A-Za-z0-9_-]{43}; Max-Age=600; Path=\/v1\/auth\/oidc; HttpOnly; SameSite=Lax$/);
    // Stored server-side under the cookie's digest only; the verifier never leaves the server.
    const stored = jit.server.db.prepare('SELECT * FROM oidc_sign_ins').all() as { code_verifier: string; id_hash: Buffer }[];
    expect(JSON.stringify(stored)).not.toContain(cookie.split(';')[0]!.split('=')[1]);
    expect(stored.some((row) => location.href.includes(row.code_verifier))).toBe(false);
  });

  it('builds the redirect URI and invitation links on PUBLIC_URL when it is set', async () => {
    const behindProxy = await startPeopleServer(clock, {
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      PUBLIC_URL: 'https://analytics.example.com/',
    });
    try {
      const response = await new TestBrowser().get(`${behindProxy.server.url}/v1/auth/oidc/start`);
      expect(new URL(response.headers.get('location')!).searchParams.get('redirect_uri')).toBe('https://analytics.example.com/v1/auth/oidc/callback');
      const invited = await behindProxy.server.request('POST', '/v1/workspaces/alpha/invitations', { body: { email: 'far@example.com', role: 'viewer' } });
      expect(invited.body.url).toMatch(/^https:\/\/analytics\.example\.com\/#\/invitations\/accept\?token=inv_/);
    } finally {
      await behindProxy.server.close();
    }
  });

  it('caps sign-ins under way: 100 per address, 10,000 on the server, each for its 10 minutes', async () => {
    const capped = await startPeopleServer(clock, { OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret, TRUST_PROXY: '1' });
    try {
      const start = (address: string) => fetch(`${capped.server.url}/v1/auth/oidc/start`, { redirect: 'manual', headers: { 'x-forwarded-for': address } });
      for (let n = 1; n <= 100; n++) expect((await start('192.0.2.1')).status, `start ${n}`).toBe(303);
      const refused = await start('192.0.2.1');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('600');
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
      expect((await start('192.0.2.2')).status).toBe(303);
      // Once they expire, the address may start again.
      clock.advance(10 * 60 * 1000);
      expect((await start('192.0.2.1')).status).toBe(303);
      // On the server: 10,000 at most (rows of other addresses, written as starts write them).
      const { db } = capped.server;
      const now = clock.now();
      const insert = db.prepare('INSERT INTO oidc_sign_ins (id_hash, state, nonce, code_verifier, redirect_uri, client_key, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
      db.transaction(() => {
        for (let n = 0; n < 9_998; n++) insert.run(Buffer.from(`row-${n}`), 's', 'n', 'v', 'r', `ip:10.0.${n >> 8}.${n & 255}`, new Date(now).toISOString(), new Date(now + 600_000).toISOString());
      })();
      expect((db.prepare('SELECT count(*) AS count FROM oidc_sign_ins').get() as { count: number }).count).toBe(9_999);
      expect((await start('192.0.2.3')).status).toBe(303);
      expect((await start('192.0.2.4')).status).toBe(429);
    } finally {
      await capped.server.close();
    }
  });

  it('places a first sign-in in OIDC_WORKSPACE with OIDC_DEFAULT_ROLE, in a new session (the cookie sent before is not kept)', async () => {
    provider.people.set('pat-sub', { email: 'Pat@Example.com', email_verified: true, name: 'Pat' });
    const browser = new TestBrowser();
    // The browser already holds a session cookie (someone else's, or planted): the sign-in must not keep it.
    const earlier = await login(jit.server, { email: await makeUser(jit.context, 'planted@example.com').then(() => 'planted@example.com'), password: goodPassword });
    browser.cookies.set(new URL(jit.server.url).host, new Map([['sightline_session', earlier.cookie.split('=')[1]!]]));
    const userInfoBefore = provider.userInfoRequests();
    const result = await signInWithSso(jit.server, 'pat-sub', browser);
    expect(result.location).toBe(`${jit.server.url}/#/signed-in`);
    // This provider keeps the e-mail to UserInfo (OpenID Connect Core 5.4): asked once.
    expect(provider.userInfoRequests()).toBe(userInfoBefore + 1);
    expect(result.session).toBeDefined();
    expect(result.session).not.toBe(earlier.cookie.split('=')[1]);
    expect(result.session).not.toBe(result.oidcCookie);
    expect(browser.cookies.get(new URL(jit.server.url).host)!.has('sightline_oidc')).toBe(false);
    const answer = await me(jit.server, result.session!);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ user: { email: 'pat@example.com', name: 'Pat', sso: true }, workspaces: [{ slug: 'alpha', role: 'analyst' }] });
    expect(answer.body.session_id).not.toBe(earlier.sessionId);
    expect(accountAudit(jit.server).at(-1)).toMatchObject({ action: 'login.success', user_id: answer.body.user.id });
    expect(JSON.parse(accountAudit(jit.server).at(-1)!.metadata)).toMatchObject({ method: 'sso', session_id: answer.body.session_id });
    // The account has no password: the password sign-in refuses it as any wrong password.
    const byPassword = await jit.server.request('POST', '/v1/auth/login', { token: null, body: { email: 'pat@example.com', password: goodPassword } });
    expect(byPassword.status).toBe(401);
    // A second sign-in is the same account, in another new session.
    const again = await signInWithSso(jit.server, 'pat-sub');
    expect(again.session).not.toBe(result.session);
    expect((await me(jit.server, again.session!)).body.user.id).toBe(answer.body.user.id);
  });

  it('links an existing account of the same e-mail (the same person) and keeps its password and roles', async () => {
    const userId = await makeUser(jit.context, 'lee@example.org', { memberships: [['beta', 'admin']] });
    provider.people.set('lee-sub', { email: 'lee@example.org', email_verified: true });
    const result = await signInWithSso(jit.server, 'lee-sub');
    const answer = await me(jit.server, result.session!);
    expect(answer.body).toMatchObject({ user: { id: userId, sso: true }, workspaces: [{ slug: 'beta', role: 'admin' }] });
    await login(jit.server, { email: 'lee@example.org', password: goodPassword });
    // Another account of the provider with that e-mail is not the same person.
    provider.people.set('lee-impostor', { email: 'lee@example.org', email_verified: true });
    expect((await signInWithSso(jit.server, 'lee-impostor')).location).toBe(`${jit.server.url}/#/sign-in?sso_error=account_conflict`);
  });

  it('lets an invited e-mail in when no workspace takes first sign-ins, and accepts its invitation', async () => {
    const invited = await invitedOnly.server.request('POST', '/v1/workspaces/beta/invitations', { body: { email: 'ivy@elsewhere.net', role: 'viewer' } });
    expect(invited.status).toBe(201);
    provider.people.set('ivy-sub', { email: 'ivy@elsewhere.net', email_verified: true });
    const result = await signInWithSso(invitedOnly.server, 'ivy-sub');
    expect(result.location).toBe(`${invitedOnly.server.url}/#/signed-in`);
    expect((await me(invitedOnly.server, result.session!)).body).toMatchObject({ user: { email: 'ivy@elsewhere.net', sso: true }, workspaces: [{ slug: 'beta', role: 'viewer' }] });
    const listed = await invitedOnly.server.request('GET', '/v1/workspaces/beta/invitations');
    expect(listed.body.invitations.find((row: { id: string }) => row.id === invited.body.id).status).toBe('accepted');
  });

  type Refusal = {
    name: string;
    target: () => { server: TestServer; context: AppContext };
    sub: string;
    person: { email: string; email_verified: boolean };
    before?: (context: AppContext) => Promise<unknown>;
    /** Changes the callback URL the provider sent the browser to, or the browser that follows it. */
    tamper?: (callbackUrl: string, browser: TestBrowser, server: TestServer) => Promise<{ url: string; browser: TestBrowser }>;
    error: string;
    /** Whether the refused sign-in names an account (login.failure with its id). */
    knownAccount?: boolean;
  };
  const refusals: Refusal[] = [
    { name: 'an unverified e-mail', target: () => jit, sub: 'unverified-sub', person: { email: 'una@example.com', email_verified: false }, error: 'email_unverified' },
    { name: 'a foreign domain', target: () => jit, sub: 'foreign-sub', person: { email: 'fred@example.net', email_verified: true }, error: 'domain_not_allowed' },
    { name: 'a look-alike domain', target: () => jit, sub: 'lookalike-sub', person: { email: 'fay@notexample.com', email_verified: true }, error: 'domain_not_allowed' },
    {
      name: 'a disabled account',
      target: () => jit,
      sub: 'disabled-sub',
      person: { email: 'dora@example.com', email_verified: true },
      before: async (context) => disableUser(context, { kind: 'system' }, await makeUser(context, 'dora@example.com', { memberships: [['alpha', 'owner']] })),
      error: 'account_disabled',
      knownAccount: true,
    },
    { name: 'an uninvited e-mail without OIDC_WORKSPACE', target: () => invitedOnly, sub: 'uninvited-sub', person: { email: 'ursula@example.com', email_verified: true }, error: 'not_invited' },
    {
      name: 'a wrong state',
      target: () => jit,
      sub: 'state-sub',
      person: { email: 'stan@example.com', email_verified: true },
      tamper: async (url, browser) => {
        const changed = new URL(url);
        const state = changed.searchParams.get('state')!;
        // The last character changed to one it does not have (a state ends in A one time in 64).
        changed.searchParams.set('state', `${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`);
        return { url: changed.href, browser };
      },
      error: 'invalid_state',
    },
    {
      name: 'a callback in another browser (no sign-in under way there)',
      target: () => jit,
      sub: 'other-browser-sub',
      person: { email: 'otto@example.com', email_verified: true },
      tamper: async (url) => ({ url, browser: new TestBrowser() }),
      error: 'sso_expired',
    },
    {
      name: 'a code replayed with the state of a new sign-in (another browser)',
      target: () => jit,
      sub: 'replay-sub',
      person: { email: 'rex@example.com', email_verified: true },
      tamper: async (url, browser, server) => {
        // The victim's browser uses the code first...
        expect((await browser.get(url)).headers.get('location')).toBe(`${server.url}/#/signed-in`);
        // ...then an attacker starts a sign-in of its own and sends the code with its own state and cookie.
        const attacker = await startSignIn(server);
        const replayed = new URL(url);
        replayed.searchParams.set('state', new URL(attacker.authorizationUrl).searchParams.get('state')!);
        return { url: replayed.href, browser: attacker.browser };
      },
      error: 'sso_failed',
      knownAccount: false,
    },
    {
      name: 'the same callback replayed',
      target: () => jit,
      sub: 'same-callback-sub',
      person: { email: 'sam@example.com', email_verified: true },
      tamper: async (url, browser, server) => {
        const jar = browser.cookies.get(new URL(server.url).host)!;
        const oidcCookie = jar.get('sightline_oidc')!;
        expect((await browser.get(url)).headers.get('location')).toBe(`${server.url}/#/signed-in`);
        // The sign-in under way was used up; its cookie is sent again, as an attacker who copied it would.
        jar.delete('sightline_session');
        jar.set('sightline_oidc', oidcCookie);
        return { url, browser };
      },
      error: 'sso_expired',
    },
    {
      name: 'the provider\'s refusal (error=access_denied)',
      target: () => jit,
      sub: 'denied-sub',
      person: { email: 'dee@example.com', email_verified: true },
      tamper: async (url, browser) => {
        const refused = new URL(url);
        const state = refused.searchParams.get('state')!;
        refused.search = new URLSearchParams({ error: 'access_denied', state }).toString();
        return { url: refused.href, browser };
      },
      error: 'sso_refused',
    },
  ];

  it.each(refusals)('refuses $name: to the sign-in page with sso_error, no session, no account made', async (row) => {
    const { server, context } = row.target();
    await row.before?.(context);
    provider.people.set(row.sub, row.person);
    const usersBefore = server.db.prepare('SELECT count(*) AS count FROM users').get() as { count: number };
    const started = await startSignIn(server);
    const callbackUrl = await signInAtProvider(started.browser, started.authorizationUrl, row.sub, `${server.url}${callbackPath}`);
    const { url, browser } = row.tamper ? await row.tamper(callbackUrl, started.browser, server) : { url: callbackUrl, browser: started.browser };
    const usersBeforeCallback = server.db.prepare('SELECT count(*) AS count FROM users').get() as { count: number };
    const response = await browser.get(url);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(`${server.url}/#/sign-in?sso_error=${row.error}`);
    expect(response.headers.getSetCookie().some((line) => line.startsWith('sightline_session='))).toBe(false);
    expect((server.db.prepare('SELECT count(*) AS count FROM users').get() as { count: number }).count).toBe(usersBeforeCallback.count);
    if (!row.tamper) expect(usersBeforeCallback.count).toBe(usersBefore.count);
    const failure = accountAudit(server).at(-1)!;
    expect(failure.action).toBe('login.failure');
    expect(JSON.parse(failure.metadata)).toEqual({ method: 'sso', reason: row.error });
    expect(failure.user_id === null).toBe(!row.knownAccount);
    expect(failure.metadata).not.toContain(row.person.email);
  });

  it('takes a sign-in back until 10 minutes after its start, and refuses it from that millisecond on', async () => {
    for (const [elapsed, expected] of [
      [10 * 60 * 1000 - 1, `${jit.server.url}/#/signed-in`],
      [10 * 60 * 1000, `${jit.server.url}/#/sign-in?sso_error=sso_expired`],
    ] as const) {
      provider.people.set(`late-${elapsed}`, { email: `late-${elapsed}@example.com`, email_verified: true });
      const started = await startSignIn(jit.server);
      const callbackUrl = await signInAtProvider(started.browser, started.authorizationUrl, `late-${elapsed}`, `${jit.server.url}${callbackPath}`);
      clock.advance(elapsed);
      const response = await started.browser.get(callbackUrl);
      expect(response.headers.get('location')).toBe(expected);
    }
  });
});

describe('single sign-on on the bundled server, started as a user starts it', () => {
  const servers = shippedServers();
  let provider: TestProvider;
  beforeAll(ensureBuilt, 180_000);
  beforeAll(async () => {
    provider = await startTestProvider({ emailInIdToken: true });
  });
  afterEach(() => servers.disposeAll());
  afterAll(() => provider.close());

  it('signs a first-time person in, placed in OIDC_WORKSPACE with OIDC_DEFAULT_ROLE (the e-mail in the ID token, as Google sends it)', async () => {
    const server = await servers.start({
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_ALLOWED_DOMAINS: 'example.com',
      OIDC_WORKSPACE: 'shipped',
      OIDC_DEFAULT_ROLE: 'viewer',
    });
    expect((await server.request('POST', '/workspaces', { body: { name: 'Shipped', slug: 'shipped' } })).status).toBe(201);
    provider.setRedirectUris([`${server.url}${callbackPath}`]);
    provider.people.set('shipped-sub', { email: 'sia@example.com', email_verified: true });
    expect((await server.request('GET', '/v1/auth/options', { token: null })).body).toEqual({ password: true, sso: true });
    const result = await signInWithSso(server, 'shipped-sub');
    expect(result.location).toBe(`${server.url}/#/signed-in`);
    const answer = await server.request('GET', '/v1/me', { token: null, headers: { cookie: `sightline_session=${result.session}` } });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ user: { email: 'sia@example.com', sso: true }, workspaces: [{ slug: 'shipped', role: 'viewer' }] });
    expect(provider.userInfoRequests()).toBe(0);
  });
});
