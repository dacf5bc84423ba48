// Cookieless visitors over HTTP on a real SQLite file: the site setting (create default, PATCH, 404 across
// workspaces), the anon_id the collector derives for a cookieless site's browser events (stable per site, IP and
// user agent within a day; new at midnight UTC; late events keyed with yesterday's salt; salts older than yesterday
// deleted), payloads that carry their own anon_id unchanged, and every refusal of before kept.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { createKey, expectFlatError, manualClock, type ManualClock } from '../admin/_helpers.ts';

const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const dayMs = 24 * 60 * 60 * 1000;

function browserEvent(clock: ManualClock, siteId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: crypto.randomUUID(), site_id: siteId, ts: clock.iso(), type: 'pageview', url: 'https://example.com/', ...overrides };
}

describe('cookieless visitors', () => {
  let server: TestServer;
  const clock = manualClock('2026-03-01T12:00:00.000Z');

  /** Sends `event` from a browser at `ip` (X-Forwarded-For, TRUST_PROXY=1) and answers the stored anon_id. */
  async function send(event: Record<string, unknown>, options: { ip?: string; agent?: string; path?: string } = {}) {
    const response = await server.request('POST', options.path ?? '/events', {
      token: event.site_id as string,
      body: event,
      headers: { 'user-agent': options.agent ?? firefox, 'x-forwarded-for': options.ip ?? '203.0.113.9' },
    });
    const row = server.db.prepare('SELECT anon_id, raw FROM events WHERE id = ?').get(String(event.id).toLowerCase()) as { anon_id: string; raw: string } | undefined;
    return { response, anonId: row?.anon_id, raw: row?.raw };
  }

  beforeAll(async () => {
    // No projector thread: its batches would take sightline.db's write lock when this test looks at the salts' writes
    // (what happens then is cookieless-lock.test.ts).
    server = await startTestServer({ clock, env: { TRUST_PROXY: '1' }, projector: 'manual' });
    await seedWorkspace(server, 'acme', { sites: ['fresh'] });
    await seedWorkspace(server, 'other', { sites: ['foreign'] });
    const classic = await server.request('POST', '/workspaces/acme/sites', { body: { id: 'classic', name: 'Classic', cookieless: false } });
    expect(classic.status).toBe(201);
    expect(classic.body.cookieless).toBe(false);
  });
  afterAll(() => server.close());

  describe('the site setting', () => {
    it('is on for a new site unless told otherwise, and listed', async () => {
      const list = await server.request('GET', '/workspaces/acme/sites');
      expect(list.body.sites.map((site: { id: string; cookieless: boolean }) => [site.id, site.cookieless])).toEqual([
        ['classic', false],
        ['fresh', true],
      ]);
    });

    it.each(['', '/v1'])('%s PATCH changes it, audited as site.update, and answers the site', async (prefix) => {
      const off = await server.request('PATCH', `${prefix}/workspaces/acme/sites/fresh`, { body: { cookieless: false } });
      expect(off.status).toBe(200);
      expect(off.body).toMatchObject({ id: 'fresh', cookieless: false });
      const audit = server.db.prepare("SELECT metadata FROM audit_log WHERE action = 'site.update' ORDER BY ts DESC LIMIT 1").get() as { metadata: string };
      expect(JSON.parse(audit.metadata)).toEqual({ cookieless: { from: true, to: false } });
      const on = await server.request('PATCH', `${prefix}/workspaces/acme/sites/fresh`, { body: { cookieless: true } });
      expect(on.body).toMatchObject({ id: 'fresh', cookieless: true });
      // An empty body is refused (nothing to change), and changes nothing.
      const empty = await server.request('PATCH', `${prefix}/workspaces/acme/sites/fresh`, { body: {} });
      expectFlatError(empty, 400, 'invalid_payload', ['']);
      expect((await server.request('GET', `${prefix}/workspaces/acme/sites/fresh`)).body).toMatchObject({ id: 'fresh', cookieless: true });
    });

    it('refuses a non-boolean with 400, and a site of another workspace or a missing one with the same 404', async () => {
      const bad = await server.request('PATCH', '/workspaces/acme/sites/fresh', { body: { cookieless: 'yes' } });
      expectFlatError(bad, 400, 'invalid_payload', ['/cookieless']);
      const foreign = await server.request('PATCH', '/workspaces/acme/sites/foreign', { body: { cookieless: false } });
      const missing = await server.request('PATCH', '/workspaces/acme/sites/missing', { body: { cookieless: false } });
      expect(foreign.status).toBe(404);
      expect(foreign.text).toBe(missing.text);
      expect(server.db.prepare("SELECT cookieless FROM sites WHERE id = 'foreign'").get()).toEqual({ cookieless: 1 });
    });

    it('takes the admin token only: an admin key of the workspace is 403, of another workspace 404', async () => {
      const own = await createKey(server, 'acme', ['admin']);
      const other = await createKey(server, 'other', ['admin']);
      expectFlatError(await server.request('PATCH', '/workspaces/acme/sites/fresh', { token: own.plaintext, body: { cookieless: false } }), 403, 'forbidden_scope');
      expectFlatError(await server.request('PATCH', '/workspaces/acme/sites/fresh', { token: other.plaintext, body: { cookieless: false } }), 404, 'not_found');
      expect(server.db.prepare("SELECT cookieless FROM sites WHERE id = 'fresh'").get()).toEqual({ cookieless: 1 });
    });
  });

  describe('derived visitor ids', () => {
    it('gives a browser event without anon_id a keyed hash, the same for the same site, IP and user agent', async () => {
      const first = await send(browserEvent(clock, 'fresh'));
      expect(first.response.status).toBe(202);
      expect(first.anonId).toMatch(/^cl_[A-Za-z0-9_-]{22}$/);
      // raw stays exactly as received: no anon_id in it.
      expect(JSON.parse(first.raw!)).not.toHaveProperty('anon_id');
      const again = await send(browserEvent(clock, 'fresh', { type: 'signup', url: null }), { path: '/v1/events' });
      expect(again.anonId).toBe(first.anonId);
      const otherIp = await send(browserEvent(clock, 'fresh'), { ip: '198.51.100.7' });
      const otherAgent = await send(browserEvent(clock, 'fresh'), { agent: chrome });
      expect(new Set([first.anonId, otherIp.anonId, otherAgent.anonId]).size).toBe(3);
    });

    it('stores the derived id when props hold a key named anon_id (raw does not hold the event’s own)', async () => {
      const plain = await send(browserEvent(clock, 'fresh'));
      const withProp = await send(browserEvent(clock, 'fresh', { type: 'signup', props: { anon_id: 'from-the-page' } }));
      expect(withProp.response.status).toBe(202);
      expect(withProp.anonId).toBe(plain.anonId);
      expect(JSON.parse(withProp.raw!).props).toEqual({ anon_id: 'from-the-page' });
    });

    it('derives per site: the same browser on two sites has two ids', async () => {
      const there = await server.request('POST', '/workspaces/other/sites', { body: { id: 'other-fresh', name: 'Other' } });
      expect(there.status).toBe(201);
      const a = await send(browserEvent(clock, 'fresh'));
      const b = await send(browserEvent(clock, 'other-fresh'));
      expect(a.anonId).not.toBe(b.anonId);
    });

    it('derives for every event of an array body, and a visit counts one visitor', async () => {
      const events = [browserEvent(clock, 'fresh', { url: 'https://example.com/a' }), browserEvent(clock, 'fresh', { url: 'https://example.com/b' })];
      const response = await server.request('POST', '/events', { token: 'fresh', body: events, headers: { 'user-agent': firefox, 'x-forwarded-for': '192.0.2.44' } });
      expect(response.status).toBe(202);
      const rows = server.db.prepare('SELECT DISTINCT anon_id FROM events WHERE id IN (?, ?)').all(events[0]!.id, events[1]!.id);
      expect(rows).toHaveLength(1);
    });

    it('keeps an anon_id the event carries, on a cookieless site too', async () => {
      const own = await send(browserEvent(clock, 'fresh', { anon_id: 'my-own-id' }));
      expect(own.response.status).toBe(202);
      expect(own.anonId).toBe('my-own-id');
      const classic = await send(browserEvent(clock, 'classic', { anon_id: 'classic-id' }));
      expect(classic.anonId).toBe('classic-id');
    });

    it('refuses what it refused before: no anon_id off cookieless sites and on /s2s/events; an empty or null anon_id anywhere', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [browserEvent(clock, 'classic'), '/events'],
        [browserEvent(clock, 'fresh'), '/s2s/events'],
        [browserEvent(clock, 'fresh', { anon_id: '' }), '/events'],
        [browserEvent(clock, 'fresh', { anon_id: null }), '/events'],
      ];
      for (const [event, path] of cases) {
        const { response, anonId } = await send(event, { path });
        expect(response.status, JSON.stringify(event)).toBe(400);
        expect(response.body.error.code).toBe('invalid_payload');
        expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toEqual(['/anon_id']);
        expect(anonId).toBeUndefined();
      }
    });

    it('applies a changed setting to the next event', async () => {
      await server.request('PATCH', '/workspaces/acme/sites/classic', { body: { cookieless: true } });
      const now = await send(browserEvent(clock, 'classic'));
      expect(now.response.status).toBe(202);
      await server.request('PATCH', '/workspaces/acme/sites/classic', { body: { cookieless: false } });
      expect((await send(browserEvent(clock, 'classic'))).response.status).toBe(400);
    });

    it('never stores the IP', async () => {
      await send(browserEvent(clock, 'fresh'), { ip: '192.0.2.231' });
      for (const schema of ['main', 'eventlog']) {
        const tables = server.db.prepare(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'table'`).all() as { name: string }[];
        for (const { name } of tables) {
          const text = JSON.stringify(server.db.prepare(`SELECT * FROM ${schema}."${name}"`).all(), (_key, value) => (Buffer.isBuffer(value) ? value.toString('latin1') : value));
          expect(text.includes('192.0.2.231'), `${schema}.${name}`).toBe(false);
        }
      }
    });
  });

  describe('the daily salt', () => {
    const salts = () => (server.db.prepare('SELECT day FROM visitor_salts ORDER BY day').all() as { day: string }[]).map((row) => row.day);
    /** The id docs/tracker.md gives the default browser (send's IP and agent) with the stored salt of `day`. */
    const idWithSaltOf = (day: string) => {
      const { salt } = server.db.prepare('SELECT salt FROM visitor_salts WHERE day = ?').get(day) as { salt: Buffer };
      return 'cl_' + createHmac('sha256', salt).update(`fresh\n203.0.113.9\n${firefox}`).digest('base64url').slice(0, 22);
    };

    it('rotates at midnight UTC, keys late events with yesterday’s salt, and keeps yesterday’s, today’s and tomorrow’s only', async () => {
      clock.advance(Date.parse('2026-03-01T23:59:59.999Z') - clock.now());
      const before = await send(browserEvent(clock, 'fresh'));
      expect(before.anonId).toBe(idWithSaltOf('2026-03-01'));
      // The start stored today's salt and tomorrow's: midnight needs no write.
      expect(salts()).toEqual(['2026-03-01', '2026-03-02']);
      clock.advance(1);
      expect(clock.iso()).toBe('2026-03-02T00:00:00.000Z');
      const after = await send(browserEvent(clock, 'fresh'));
      expect(after.anonId).toBe(idWithSaltOf('2026-03-02'));
      expect(after.anonId).not.toBe(before.anonId);
      // Sent yesterday, arriving today (a retry): yesterday's salt, so yesterday's visitor.
      const late = await send(browserEvent(clock, 'fresh', { ts: '2026-03-01T23:50:00.000Z' }));
      expect(late.anonId).toBe(before.anonId);
      // The maintenance (every second) makes the next day's salt; nothing is deleted yet.
      server.app.ingest.cookieless.rotate();
      expect(salts()).toEqual(['2026-03-01', '2026-03-02', '2026-03-03']);

      clock.advance(dayMs);
      const third = await send(browserEvent(clock, 'fresh'));
      expect(third.anonId).toBe(idWithSaltOf('2026-03-03'));
      server.app.ingest.cookieless.rotate();
      expect(salts()).toEqual(['2026-03-02', '2026-03-03', '2026-03-04']);
      // Two days back: that salt is gone, so today's keys it (never the deleted one, never an error).
      const older = await send(browserEvent(clock, 'fresh', { ts: '2026-03-01T23:50:00.000Z' }));
      expect(older.response.status).toBe(202);
      expect(older.anonId).toBe(third.anonId);
      expect(new Set([before.anonId, after.anonId, third.anonId]).size).toBe(3);
    });

    it('deletes old salts without traffic too (rotate, as the timer does every second)', async () => {
      clock.advance(3 * dayMs);
      expect(clock.iso().slice(0, 10)).toBe('2026-03-06');
      server.app.ingest.cookieless.rotate();
      expect(salts()).toEqual(['2026-03-06', '2026-03-07']);
    });

    it('keeps the day’s ids across a restart on the same database', async () => {
      const first = await send(browserEvent(clock, 'fresh'));
      const restarted = await startTestServer({ clock, env: { TRUST_PROXY: '1' }, dataDir: server.dataDir });
      try {
        const event = browserEvent(clock, 'fresh');
        const response = await restarted.request('POST', '/events', { token: 'fresh', body: event, headers: { 'user-agent': firefox, 'x-forwarded-for': '203.0.113.9' } });
        expect(response.status).toBe(202);
        expect(restarted.db.prepare('SELECT anon_id FROM events WHERE id = ?').get(event.id)).toEqual({ anon_id: first.anonId });
      } finally {
        await restarted.close();
      }
    });
  });
});

describe('cookieless visitors without TRUST_PROXY', () => {
  let server: TestServer;
  const clock = manualClock('2026-03-01T12:00:00.000Z');
  beforeAll(async () => {
    server = await startTestServer({ clock });
    await seedWorkspace(server, 'acme', { sites: ['fresh'] });
  });
  afterAll(() => server.close());

  it('takes the socket address: a forged X-Forwarded-For does not change the visitor', async () => {
    const ids = [];
    for (const ip of ['203.0.113.1', '203.0.113.2']) {
      const event = browserEvent(clock, 'fresh');
      const response = await server.request('POST', '/events', { token: 'fresh', body: event, headers: { 'user-agent': firefox, 'x-forwarded-for': ip } });
      expect(response.status).toBe(202);
      ids.push((server.db.prepare('SELECT anon_id FROM events WHERE id = ?').get(event.id) as { anon_id: string }).anon_id);
    }
    expect(ids[0]).toBe(ids[1]);
  });
});
