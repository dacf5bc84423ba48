// Tracking-plan validation at ingest (reject and quarantine) and the dead-letter queue: list, cursor, replay.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractBundle } from '../plan/fixtures.ts';
import { makeEvent, makeTempDir, seedWorkspace, startTestServer, settledTableCounts, type TestServer } from '../_setup.ts';

// The CONTRACT section 3 example without its wildcard, and with it.
const withWildcard = contractBundle();
const { '*': _wildcard, ...withoutWildcard } = withWildcard.events;
const bundle = { ...withWildcard, events: withoutWildcard };

function writeBundle(content: unknown): string {
  const path = join(makeTempDir('sightline-plan-'), 'plan.json');
  writeFileSync(path, JSON.stringify(content));
  return path;
}

const signup = (plan: unknown) => makeEvent('shop', { type: 'signup', url: null, props: { plan } });

describe('reject mode', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { SCHEMA_BUNDLE_PATH: writeBundle(bundle), SCHEMA_MODE: 'reject' } });
    await seedWorkspace(server, 'plans', { sites: ['shop'] });
  });
  afterAll(() => server.close());

  it('stores events that match the plan', async () => {
    const response = await server.request('POST', '/events', { token: 'shop', body: [signup('pro'), makeEvent('shop')] });
    expect(response.status).toBe(202);
    expect(response.body.accepted).toBe(2);
  });

  it('refuses the whole batch with 400 schema_validation_failed and pointers into the event as sent', async () => {
    const before = await settledTableCounts(server);
    const response = await server.request('POST', '/events', { token: 'shop', body: [makeEvent('shop'), signup('gold')] });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('schema_validation_failed');
    expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toEqual(['/1/props/plan']);
    expect(await settledTableCounts(server)).toEqual(before);
  });

  it('refuses an unknown event type without a wildcard with exactly the unknown-event detail', async () => {
    const response = await server.request('POST', '/events', { token: 'shop', body: makeEvent('shop', { type: 'refund', url: null }) });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'schema_validation_failed', details: [{ path: '/type', message: 'unknown event' }] });
  });
});

describe('quarantine mode and the dead-letter queue', () => {
  let server: TestServer;
  let adminKey: string;
  let readKey: string;
  beforeAll(async () => {
    server = await startTestServer({ env: { SCHEMA_BUNDLE_PATH: writeBundle(bundle), SCHEMA_MODE: 'quarantine' } });
    adminKey = (await seedWorkspace(server, 'plans', { sites: ['shop'], scopes: ['admin'] })).key!;
    readKey = (await server.request('POST', '/workspaces/plans/keys', { body: { label: 'r', scopes: ['query:read'] } })).body.plaintext;
    await seedWorkspace(server, 'other', { sites: ['elsewhere'] });
  });
  afterAll(() => server.close());

  it('answers 202, stores the good events and quarantines the bad ones with their errors', async () => {
    const bad = signup('gold');
    const unknown = makeEvent('shop', { type: 'refund', url: null });
    const good = signup('free');
    const response = await server.request('POST', '/events', { token: 'shop', body: [bad, good, unknown] });
    expect(response.status).toBe(202);
    // bots: Node's fetch sends `User-Agent: node`, a bot's on /events.
    expect(response.body).toEqual({ accepted: 1, bots: 1, duplicates: 0, quarantined: 2, dropped: 0 });
    const list = await server.request('GET', '/sites/shop/dlq');
    expect(list.status).toBe(200);
    expect(list.body.events).toHaveLength(2);
    const byId = Object.fromEntries(list.body.events.map((row: { payload: { id: string } }) => [row.payload.id, row]));
    expect(byId[bad.id as string]).toMatchObject({ site_id: 'shop', payload: bad, error: [{ path: '/props/plan' }] });
    expect(byId[unknown.id as string].error).toEqual([{ path: '/type', message: 'unknown event' }]);
    expect(list.body.next_cursor).toBeNull();
  });

  it('pages newest first with a received_at cursor, limit 1-500', async () => {
    await server.request('POST', '/events', { token: 'shop', body: Array.from({ length: 5 }, () => signup('x')) });
    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { events: { id: string; received_at: string }[]; next_cursor: string | null } } = await server.request('GET', `/sites/shop/dlq?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      all.push(...page.body.events.map((row) => row.received_at));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(all).toHaveLength(7);
    expect([...all].sort().reverse()).toEqual(all);
    expect(new Set(all).size).toBe(7);
    for (const [limit, status] of [['1', 200], ['500', 200], ['0', 400], ['501', 400], ['x', 400]] as const) {
      expect((await server.request('GET', `/sites/shop/dlq?limit=${limit}`)).status).toBe(status);
    }
    expect((await server.request('GET', '/sites/shop/dlq?cursor=yesterday')).body.error.code).toBe('invalid_param');
  });

  it('needs admin or an admin-scoped key; other workspaces see 404', async () => {
    expect((await server.request('GET', '/sites/shop/dlq', { token: adminKey })).status).toBe(200);
    expect((await server.request('GET', '/sites/shop/dlq', { token: readKey })).status).toBe(403);
    expect((await server.request('GET', '/sites/elsewhere/dlq', { token: adminKey })).status).toBe(404);
    expect((await server.request('GET', '/sites/nowhere/dlq', { token: adminKey })).status).toBe(404);
  });

  it('replay of a still-invalid row answers 502 ingest_rejected with the reasons and keeps the row', async () => {
    const list = await server.request('GET', '/sites/shop/dlq?limit=500');
    const row = list.body.events.find((entry: { payload: { type: string } }) => entry.payload.type === 'signup');
    const response = await server.request('POST', `/sites/shop/dlq/${row.id}/replay`, { token: adminKey });
    expect(response.status).toBe(502);
    expect(response.body.error.code).toBe('ingest_rejected');
    expect(response.body.error.details.some((detail: { message: string }) => detail.message.includes('schema_validation_failed'))).toBe(true);
    expect(server.db.prepare('SELECT count(*) AS n FROM dlq WHERE id = ?').get(row.id)).toEqual({ n: 1 });
  });

  it('unknown rows and rows of other sites are 404', async () => {
    expect((await server.request('POST', `/sites/shop/dlq/${crypto.randomUUID()}/replay`)).status).toBe(404);
  });
});

describe('replay success and an unavailable pipeline', () => {
  it('replays a row that the current plan accepts, deletes it and audits dlq.replay', async () => {
    const dataDir = makeTempDir();
    const strict = await startTestServer({ dataDir, env: { SCHEMA_BUNDLE_PATH: writeBundle(bundle), SCHEMA_MODE: 'quarantine' } });
    await seedWorkspace(strict, 'plans', { sites: ['shop'] });
    const quarantined = makeEvent('shop', { type: 'refund', url: null, context: { user_agent: 'ignored on /events' } });
    await strict.request('POST', '/events', { token: 'shop', body: quarantined, headers: { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1' } });
    await strict.close();

    // The plan gained a wildcard: the quarantined event is now valid.
    const relaxed = await startTestServer({ dataDir, env: { SCHEMA_BUNDLE_PATH: writeBundle(withWildcard), SCHEMA_MODE: 'quarantine' } });
    try {
      const [row] = (await relaxed.request('GET', '/sites/shop/dlq')).body.events;
      const response = await relaxed.request('POST', `/v1/sites/shop/dlq/${row.id}/replay`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ id: row.id, replayed_at: expect.any(String) });
      const stored = relaxed.db.prepare('SELECT raw, browser, device_type FROM events WHERE id = ?').get(quarantined.id);
      // Enriched as the original request was (its user agent was kept with the row; the IP never is).
      expect(stored).toEqual({ raw: JSON.stringify(quarantined), browser: 'Mobile Safari', device_type: 'mobile' });
      expect(relaxed.db.prepare('SELECT count(*) AS n FROM dlq').get()).toEqual({ n: 0 });
      const audit = await relaxed.request('GET', '/workspaces/plans/audit');
      expect(audit.body.entries[0]).toMatchObject({ action: 'dlq.replay', target: row.id, actor_kind: 'admin' });
      expect((await relaxed.request('POST', `/sites/shop/dlq/${row.id}/replay`)).status).toBe(404);
    } finally {
      await relaxed.close();
    }
  });

  it('answers 502 ingest_unreachable when the pipeline cannot take events, and keeps the row', async () => {
    const dataDir = makeTempDir();
    const strict = await startTestServer({ dataDir, env: { SCHEMA_BUNDLE_PATH: writeBundle(bundle), SCHEMA_MODE: 'quarantine' } });
    await seedWorkspace(strict, 'plans', { sites: ['shop'] });
    await strict.request('POST', '/events', { token: 'shop', body: makeEvent('shop', { type: 'refund', url: null }) });
    await strict.close();
    const server = await startTestServer({ dataDir, env: { SCHEMA_BUNDLE_PATH: writeBundle(withWildcard), SCHEMA_MODE: 'quarantine' } });
    try {
      const [row] = (await server.request('GET', '/sites/shop/dlq')).body.events;
      // Draining closes the write queue, as during shutdown: the (now valid) event cannot be written.
      await server.app.ingest.writeQueue.drain();
      const response = await server.request('POST', `/sites/shop/dlq/${row.id}/replay`);
      expect(response.status).toBe(502);
      expect(response.body.error.code).toBe('ingest_unreachable');
      expect(server.db.prepare('SELECT count(*) AS n FROM dlq').get()).toEqual({ n: 1 });
    } finally {
      await server.close();
    }
  });
});

describe('received_at ahead of the clock', () => {
  it('lists every row without a cursor even when received_at runs ahead of a frozen clock', async () => {
    const frozen = Date.now();
    const server = await startTestServer({ clock: { now: () => frozen }, env: { SCHEMA_BUNDLE_PATH: writeBundle(bundle), SCHEMA_MODE: 'quarantine' } });
    try {
      await seedWorkspace(server, 'plans', { sites: ['shop'] });
      const events = Array.from({ length: 3 }, () => makeEvent('shop', { type: 'refund', url: null, ts: new Date(frozen).toISOString() }));
      expect((await server.request('POST', '/events', { token: 'shop', body: events })).body.quarantined).toBe(3);
      const list = await server.request('GET', '/sites/shop/dlq');
      expect(list.body.events.map((row: { received_at: string }) => row.received_at)).toEqual([2, 1, 0].map((offset) => new Date(frozen + offset).toISOString()));
    } finally {
      await server.close();
    }
  });
});

describe('a broken bundle', () => {
  it('stops the app at start with a message naming the file', async () => {
    const path = writeBundle({ plan: 'x', version: '1.0.0', events: { signup: { type: 'objekt' } } });
    await expect(startTestServer({ env: { SCHEMA_BUNDLE_PATH: path } })).rejects.toThrow(path.split('/').pop()!);
  });
});
