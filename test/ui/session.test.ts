// The admin UI's session: the cookie stands for the credential it was exchanged for, only where a bearer is asked
// for, never cross-site, never for a mutation without the CSRF header; it expires (idle and absolute) and sign-out
// revokes it. Over HTTP against the real app and a real SQLite file.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ManualClock, manualClock } from '../admin/_helpers.ts';
import { makeEvent, seedWorkspace, startTestServer, type TestServer, testAdminToken } from '../_setup.ts';
import { signIn } from './_ui.ts';

const hourMs = 3_600_000;
const report = (site: string) => `/v1/sites/${site}/reports/summary-v2?from=2026-03-01&to=2026-03-01`;

describe('UI sessions', () => {
  let server: TestServer;
  let clock: ManualClock;

  beforeEach(async () => {
    clock = manualClock('2026-03-01T12:00:00.000Z');
    server = await startTestServer({ clock, env: { TRUST_PROXY: '1' } });
  });
  afterEach(async () => server.close());

  const withCookie = (cookie: string, headers: Record<string, string> = {}) => ({ token: null, headers: { cookie, ...headers } });

  it('exchanges the admin token for an HttpOnly, SameSite=Strict cookie; only the digest is stored', async () => {
    const session = await signIn(server.url, testAdminToken);
    expect(session.setCookie).toMatch(/HttpOnly/);
    expect(session.setCookie).toMatch(/SameSite=Strict/);
    expect(session.setCookie).toMatch(/Path=\//);
    expect(session.setCookie).not.toMatch(/Secure/);
    expect(session.body).toMatchObject({ signed_in: true, kind: 'admin', workspace: null });
    const value = session.cookie.split('=')[1]!;
    const rows = server.db.prepare('SELECT token_hash, kind FROM ui_sessions').all() as { token_hash: Buffer; kind: string }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toHaveLength(32);
    expect(rows[0]!.token_hash.toString('base64url')).not.toBe(value);
    expect(JSON.stringify(server.db.prepare('SELECT * FROM ui_sessions').all())).not.toContain(value);
    // The page asks on every load: the same session and CSRF token, never the credential; without a cookie, signed out.
    const current = await fetch(`${server.url}/v1/ui/session`, { headers: { cookie: session.cookie } });
    expect(current.headers.get('cache-control')).toBe('no-store');
    expect(await current.json()).toEqual(session.body);
    expect(JSON.stringify(session.body)).not.toContain(testAdminToken);
    expect(await (await fetch(`${server.url}/v1/ui/session`)).json()).toEqual({ signed_in: false });
  });

  it('marks the cookie Secure when a trusted proxy says the request came over TLS, and not otherwise', async () => {
    const secure = await signIn(server.url, testAdminToken, { 'x-forwarded-proto': 'https' });
    expect(secure.setCookie).toMatch(/; Secure/);
    const untrusted = await startTestServer({ clock });
    try {
      const plain = await signIn(untrusted.url, testAdminToken, { 'x-forwarded-proto': 'https' });
      expect(plain.setCookie).not.toMatch(/Secure/);
      // Nor is X-Forwarded-Host believed without TRUST_PROXY.
      const forged = await fetch(`${untrusted.url}/v1/ui/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'https://evil.example', 'x-forwarded-host': 'evil.example' },
        body: JSON.stringify({ token: testAdminToken }),
      });
      expect(forged.status).toBe(401);
    } finally {
      await untrusted.close();
    }
  });

  it('refuses a wrong token (401) and a token past 512 characters (400), and a cross-site sign-in', async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/v1/ui/session`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    expect((await post(JSON.stringify({ token: 'x'.repeat(512) }))).status).toBe(401);
    expect((await post(JSON.stringify({ token: 'x'.repeat(513) }))).status).toBe(400);
    expect((await post(JSON.stringify({ token: '' }))).status).toBe(400);
    expect((await post('{')).status).toBe(400);
    expect((await post(JSON.stringify({ token: testAdminToken }), { 'sec-fetch-site': 'cross-site' })).status).toBe(401);
    expect((await post(JSON.stringify({ token: testAdminToken }), { origin: 'https://evil.example' })).status).toBe(401);
    expect(server.db.prepare('SELECT count(*) AS n FROM ui_sessions').get()).toEqual({ n: 0 });
  });

  it('authenticates reads and the stream with the cookie, as the credential it stands for', async () => {
    await seedWorkspace(server, 'acme', { sites: ['blog'] });
    const session = await signIn(server.url, testAdminToken);
    expect((await server.request('GET', report('blog'), withCookie(session.cookie))).status).toBe(200);
    expect((await server.request('GET', '/v1/workspaces', withCookie(session.cookie))).status).toBe(200);
    expect((await server.request('GET', report('blog'), { token: null })).status).toBe(401);
    expect((await server.request('GET', report('blog'), withCookie('sightline_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'))).status).toBe(401);
    const stream = new AbortController();
    const opened = await fetch(`${server.url}/v1/sites/blog/events/stream-v2`, { headers: { cookie: session.cookie }, signal: stream.signal });
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toMatch(/text\/event-stream/);
    stream.abort();
  });

  it('never authenticates a cross-site request, whatever the method', async () => {
    await seedWorkspace(server, 'acme', { sites: ['blog'] });
    const session = await signIn(server.url, testAdminToken);
    expect((await server.request('GET', report('blog'), withCookie(session.cookie, { 'sec-fetch-site': 'cross-site' }))).status).toBe(401);
    expect((await server.request('GET', report('blog'), withCookie(session.cookie, { 'sec-fetch-site': 'same-site' }))).status).toBe(401);
    expect((await server.request('GET', report('blog'), withCookie(session.cookie, { origin: 'https://evil.example' }))).status).toBe(401);
    expect((await server.request('GET', report('blog'), withCookie(session.cookie, { 'sec-fetch-site': 'same-origin' }))).status).toBe(200);
    expect((await server.request('GET', report('blog'), withCookie(session.cookie, { 'sec-fetch-site': 'none' }))).status).toBe(200);
    // Sec-Fetch-Site decides when a browser sends it (a proxy may have rewritten Host, so Origin would not match it).
    expect((await server.request('GET', report('blog'), withCookie(session.cookie, { 'sec-fetch-site': 'same-origin', origin: 'https://dash.example' }))).status).toBe(200);
    // Without it, Origin must be the request's own origin: X-Forwarded-Host and -Proto behind a trusted proxy
    // (TRUST_PROXY=1 here); the edges of that comparison are the next test's.
    const proxied = { 'x-forwarded-host': 'dash.example', 'x-forwarded-proto': 'https' };
    expect((await server.request('GET', report('blog'), withCookie(session.cookie, { origin: 'https://dash.example', ...proxied }))).status).toBe(200);
    expect((await server.request('GET', report('blog'), withCookie(session.cookie, { origin: 'https://evil.example', ...proxied }))).status).toBe(401);
    const created = await server.request('POST', '/v1/workspaces', {
      ...withCookie(session.cookie, { 'x-sightline-csrf': session.csrf, 'sec-fetch-site': 'cross-site' }),
      body: { name: 'Evil', slug: 'evil' },
    });
    expect(created.status).toBe(401);
  });

  describe('without Sec-Fetch-Site, Origin must be exactly the request\'s own origin: scheme, host and port', () => {
    const own = () => server.url;
    const port = () => Number(new URL(server.url).port);
    const proxied = { 'x-forwarded-host': 'dash.example', 'x-forwarded-proto': 'https' };
    const cases: { name: string; origin: () => string; headers?: Record<string, string>; accepted: boolean }[] = [
      { name: 'the exact origin', origin: own, accepted: true },
      { name: 'the same host over https while the server is plain http', origin: () => own().replace('http:', 'https:'), accepted: false },
      { name: 'the same host on the next port', origin: () => `http://127.0.0.1:${port() + 1}`, accepted: false },
      { name: 'the same host without the port (80)', origin: () => 'http://127.0.0.1', accepted: false },
      { name: 'another name of the same address', origin: () => `http://localhost:${port()}`, accepted: false },
      { name: 'an opaque origin (null)', origin: () => 'null', accepted: false },
      { name: 'behind a trusted TLS proxy: its public origin', origin: () => 'https://dash.example', headers: proxied, accepted: true },
      { name: 'behind a trusted TLS proxy: its default port written out', origin: () => 'https://dash.example:443', headers: proxied, accepted: true },
      { name: 'behind a trusted TLS proxy: the public host over http', origin: () => 'http://dash.example', headers: proxied, accepted: false },
      { name: 'behind a trusted TLS proxy: the public host on another port', origin: () => 'https://dash.example:8443', headers: proxied, accepted: false },
      { name: 'behind a trusted proxy without X-Forwarded-Proto: https is not the scheme', origin: () => 'https://dash.example', headers: { 'x-forwarded-host': 'dash.example' }, accepted: false },
      { name: 'behind a trusted proxy that sends its port in X-Forwarded-Host', origin: () => 'https://dash.example:8443', headers: { 'x-forwarded-host': 'dash.example:8443', 'x-forwarded-proto': 'https' }, accepted: true },
    ];

    it.each(cases)('$name: sign-in accepted $accepted', async ({ origin, headers, accepted }) => {
      const response = await fetch(`${server.url}/v1/ui/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: origin(), ...headers },
        body: JSON.stringify({ token: testAdminToken }),
      });
      expect(response.status).toBe(accepted ? 201 : 401);
    });

    it.each(cases)('$name: a cookie-authenticated mutation accepted $accepted', async ({ name, origin, headers, accepted }) => {
      const session = await signIn(server.url, testAdminToken);
      const slug = `w${cases.findIndex((item) => item.name === name)}`;
      const created = await server.request('POST', '/v1/workspaces', {
        ...withCookie(session.cookie, { 'x-sightline-csrf': session.csrf, origin: origin(), ...headers }),
        body: { name: slug, slug },
      });
      expect(created.status, created.text).toBe(accepted ? 201 : 401);
    });

    it('believes X-Forwarded-Proto and -Host only from trusted proxies', async () => {
      const direct = await startTestServer({ clock });
      try {
        const signInFrom = (origin: string, headers: Record<string, string>) =>
          fetch(`${direct.url}/v1/ui/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin, ...headers }, body: JSON.stringify({ token: testAdminToken }) });
        expect((await signInFrom(direct.url.replace('http:', 'https:'), { 'x-forwarded-proto': 'https' })).status).toBe(401);
        expect((await signInFrom('https://dash.example', proxied)).status).toBe(401);
        expect((await signInFrom(direct.url, proxied)).status).toBe(201);
      } finally {
        await direct.close();
      }
    });
  });

  it('refuses a mutation without the CSRF header or with a wrong one, and accepts it with the session\'s', async () => {
    const session = await signIn(server.url, testAdminToken);
    const create = (slug: string, headers: Record<string, string>) => server.request('POST', '/v1/workspaces', { ...withCookie(session.cookie, headers), body: { name: slug, slug } });
    expect((await create('one', {})).status).toBe(401);
    expect((await create('two', { 'x-sightline-csrf': 'wrong' })).status).toBe(401);
    expect((await create('three', { 'x-sightline-csrf': `${session.csrf}x` })).status).toBe(401);
    const other = await signIn(server.url, testAdminToken);
    expect((await create('four', { 'x-sightline-csrf': other.csrf })).status).toBe(401);
    expect((await create('five', { 'x-sightline-csrf': session.csrf })).status).toBe(201);
    const slugs = (await server.request('GET', '/v1/workspaces')).body.workspaces.map((workspace: { slug: string }) => workspace.slug);
    expect(slugs).toEqual(['five']);
  });

  it('is never a credential for ingest: the server-to-server endpoint still asks for a bearer key', async () => {
    await seedWorkspace(server, 'acme', { sites: ['blog'] });
    const session = await signIn(server.url, testAdminToken);
    const response = await server.request('POST', '/v1/s2s/events', {
      ...withCookie(session.cookie, { 'x-sightline-csrf': session.csrf }),
      body: makeEvent('blog', { ts: clock.iso() }),
    });
    expect(response.status).toBe(401);
  });

  it('stands for an API key: its scopes, its workspace only, and it ends when the key is revoked', async () => {
    const acme = await seedWorkspace(server, 'acme', { sites: ['blog'], scopes: ['query:read'] });
    await seedWorkspace(server, 'other', { sites: ['shop'] });
    const session = await signIn(server.url, acme.key!);
    expect(session.body).toMatchObject({ kind: 'api_key', scopes: ['query:read'], workspace: { slug: 'acme' } });
    expect((await server.request('GET', report('blog'), withCookie(session.cookie))).status).toBe(200);
    expect((await server.request('GET', report('shop'), withCookie(session.cookie))).status).toBe(404);
    expect((await server.request('GET', report('missing'), withCookie(session.cookie))).status).toBe(404);
    expect((await server.request('GET', '/v1/workspaces', withCookie(session.cookie))).status).toBe(403);
    const created = await server.request('POST', '/v1/workspaces/acme/sites', { ...withCookie(session.cookie, { 'x-sightline-csrf': session.csrf }), body: { id: 'new', name: 'New' } });
    expect(created.status).toBe(403);
    expect((await server.request('DELETE', `/v1/workspaces/acme/keys/${acme.keyId}`)).status).toBe(200);
    expect((await server.request('GET', report('blog'), withCookie(session.cookie))).status).toBe(401);
  });

  it('expires after 12 hours idle (the last accepted millisecond and the first refused one)', async () => {
    await seedWorkspace(server, 'acme', { sites: ['blog'] });
    const session = await signIn(server.url, testAdminToken);
    clock.advance(12 * hourMs - 1);
    expect((await server.request('GET', report('blog'), withCookie(session.cookie))).status).toBe(200);
    // That use moved last_used_at: 12 hours after it, the session is gone.
    clock.advance(12 * hourMs - 1);
    expect((await server.request('GET', report('blog'), withCookie(session.cookie))).status).toBe(200);
    clock.advance(12 * hourMs);
    expect((await server.request('GET', report('blog'), withCookie(session.cookie))).status).toBe(401);
    const answer = await fetch(`${server.url}/v1/ui/session`, { headers: { cookie: session.cookie } });
    expect(await answer.json()).toEqual({ signed_in: false });
  });

  it('expires 7 days after sign-in however often it is used', async () => {
    await seedWorkspace(server, 'acme', { sites: ['blog'] });
    const session = await signIn(server.url, testAdminToken);
    const sevenDays = 7 * 24 * hourMs;
    let elapsed = 0;
    while (elapsed + 11 * hourMs < sevenDays - 1) {
      clock.advance(11 * hourMs);
      elapsed += 11 * hourMs;
      expect((await server.request('GET', report('blog'), withCookie(session.cookie))).status).toBe(200);
    }
    clock.advance(sevenDays - 1 - elapsed);
    expect((await server.request('GET', report('blog'), withCookie(session.cookie))).status).toBe(200);
    clock.advance(1);
    expect((await server.request('GET', report('blog'), withCookie(session.cookie))).status).toBe(401);
  });

  it('signs out: DELETE with the CSRF header revokes the session and clears the cookie; without it nothing happens', async () => {
    await seedWorkspace(server, 'acme', { sites: ['blog'] });
    const session = await signIn(server.url, testAdminToken);
    const signOut = (headers: Record<string, string>) => fetch(`${server.url}/v1/ui/session`, { method: 'DELETE', headers: { cookie: session.cookie, ...headers } });
    expect((await signOut({})).status).toBe(401);
    expect((await server.request('GET', report('blog'), withCookie(session.cookie))).status).toBe(200);
    const out = await signOut({ 'x-sightline-csrf': session.csrf });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^sightline_session=; Max-Age=0;.*HttpOnly; SameSite=Strict/);
    expect((await server.request('GET', report('blog'), withCookie(session.cookie))).status).toBe(401);
    expect(server.db.prepare('SELECT count(*) AS n FROM ui_sessions').get()).toEqual({ n: 0 });
  });

  it('ends admin sessions when the admin token changes', async () => {
    await seedWorkspace(server, 'acme', { sites: ['blog'] });
    const session = await signIn(server.url, testAdminToken);
    server.app.context.adminToken = 'another-admin-token-0123456789';
    expect((await server.request('GET', report('blog'), withCookie(session.cookie))).status).toBe(401);
  });
});
