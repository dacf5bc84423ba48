// GDPR export and delete over HTTP: what goes (queried in the SQLite tables directly), what stays (another subject,
// the same anon_id on another site and in another workspace), every report equal to a server that never saw the
// subject, repeat safety, the unprojected tail, audit rows without the id, scopes and tenant isolation.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../admin/_helpers.ts';
import { contractBundle } from '../plan/fixtures.ts';
import { makeTempDir, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { projectAll, readReports, reportUrls } from './_reports.ts';

const day = (n: number, time = '10:00:00') => `2026-03-0${n}T${time}Z`;
let counter = 0;
function event(site: string, anon: string, ts: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  counter++;
  return { id: crypto.randomUUID(), site_id: site, anon_id: anon, ts, type: 'pageview', url: `https://shop.example/p${counter % 3}?utm_source=google.com&utm_campaign=spring`, ...extra };
}
const purchase = (site: string, anon: string, ts: string, extra: Record<string, unknown> = {}) =>
  event(site, anon, ts, { type: 'purchase', url: 'https://shop.example/pricing?utm_source=google.com&utm_campaign=spring', revenue: { amount: '12.50', currency: 'EUR' }, ...extra });

/** The subject u-1: device a-1 (events before and after its login), device a-2, bot-free. */
const subjectEvents = [
  event('gd-a', 'a-1', day(1)),
  event('gd-a', 'a-1', day(1, '10:05:00'), { url: 'https://shop.example/pricing' }),
  event('gd-a', 'a-1', day(1, '10:07:00'), { user_id: 'u-1', type: 'login', url: null }),
  event('gd-a', 'a-2', day(2), { user_id: 'u-1' }),
  purchase('gd-a', 'a-2', day(2, '10:03:00'), { user_id: 'u-1' }),
  event('gd-a', 'a-1', day(3), { internal: true }),
  // Values only the subject has: its own page with its address in the query, its own campaign.
  event('gd-a', 'a-2', day(2, '10:04:00'), { user_id: 'u-1', url: 'https://shop.example/account?email=u1%40example.com&utm_campaign=u1-only' }),
];
/** Everybody else: another user on the same pages, and a-1 on another site and in another workspace. */
const otherEvents = [
  event('gd-a', 'b-1', day(1)),
  event('gd-a', 'b-1', day(1, '10:06:00'), { url: 'https://shop.example/pricing', user_id: 'u-2' }),
  purchase('gd-a', 'b-1', day(2), { user_id: 'u-2' }),
  event('gd-a', 'c-1', day(2, '11:00:00'), { url: 'https://shop.example/pricing?utm_source=bing.com' }),
  event('gd-b', 'a-1', day(1), { user_id: 'u-1' }),
  event('gd-x', 'a-1', day(1), { user_id: 'u-1' }),
];
/** Arrives after the projector's last batch: a new device of u-1 bound only in the log's tail. */
const tailEvents = [event('gd-a', 'a-3', day(3, '12:00:00'), { user_id: 'u-1' }), event('gd-a', 'a-1', day(3, '12:30:00'))];
/** Quarantined (the plan refuses plan "gold"): one of a-1, one naming u-1 from a device never bound, one of b-1. */
const quarantined = [
  event('gd-a', 'a-1', day(2), { type: 'signup', url: null, props: { plan: 'gold' } }),
  event('gd-a', 'q-9', day(2), { type: 'signup', url: null, user_id: 'u-1', props: { plan: 'gold' } }),
  event('gd-a', 'b-1', day(2), { type: 'signup', url: null, props: { plan: 'gold' } }),
];

const digest = (id: string) => createHash('sha256').update(id).digest('hex').slice(0, 12);

async function newServer(): Promise<{ server: TestServer; adminKey: string; readKey: string; foreignKey: string }> {
  const plan = join(makeTempDir('sightline-plan-'), 'plan.json');
  writeFileSync(plan, JSON.stringify(contractBundle()));
  const server = await startTestServer({ clock: manualClock('2026-03-10T12:00:00.000Z'), projector: 'manual', projectionWaitMs: 20, env: { SCHEMA_BUNDLE_PATH: plan, SCHEMA_MODE: 'quarantine' } });
  const adminKey = (await seedWorkspace(server, 'gdpr-a', { sites: ['gd-a', 'gd-b'], scopes: ['admin'] })).key!;
  const readKey = (await server.request('POST', '/workspaces/gdpr-a/keys', { body: { label: 'r', scopes: ['query:read', 'ingest:write'] } })).body.plaintext;
  const foreignKey = (await seedWorkspace(server, 'gdpr-x', { sites: ['gd-x'], scopes: ['admin'] })).key!;
  return { server, adminKey, readKey, foreignKey };
}

async function send(server: TestServer, events: Record<string, unknown>[]): Promise<void> {
  for (const site of ['gd-a', 'gd-b', 'gd-x']) {
    const mine = events.filter((item) => item.site_id === site);
    if (mine.length === 0) continue;
    const response = await server.request('POST', '/s2s/events', { token: site, body: mine });
    expect(response.status, response.text).toBe(202);
  }
}

const count = (server: TestServer, sql: string, ...params: unknown[]) => (server.db.prepare(sql).get(...params) as { n: number }).n;

/** Rows anywhere that belong to (site, anon_id), the DLQ rows naming it or u-1 included. */
function leftovers(server: TestServer, site: string, anon: string): Record<string, number> {
  return {
    events: count(server, 'SELECT count(*) AS n FROM events WHERE site_id = ? AND anon_id = ?', site, anon),
    identities: count(server, 'SELECT count(*) AS n FROM identities WHERE site_id = ? AND anon_id = ?', site, anon),
    sessions: count(server, 'SELECT count(*) AS n FROM sessions WHERE site_id = ? AND anon_id = ?', site, anon),
    report_visitors: count(server, 'SELECT count(*) AS n FROM report_visitors WHERE site_id = ? AND anon_id = ?', site, anon),
    visitor_events: count(server, 'SELECT count(*) AS n FROM visitor_events ve JOIN events e ON e.seq = ve.seq WHERE e.site_id = ? AND e.anon_id = ?', site, anon),
    dlq: count(server, "SELECT count(*) AS n FROM dlq WHERE site_id = ? AND (json_extract(payload, '$.anon_id') = ? OR json_extract(payload, '$.user_id') = 'u-1')", site, anon),
  };
}
const nothing = { events: 0, identities: 0, sessions: 0, report_visitors: 0, visitor_events: 0, dlq: 0 };

describe('GDPR delete of a user', () => {
  let subject: Awaited<ReturnType<typeof newServer>>;
  let fresh: Awaited<ReturnType<typeof newServer>>;
  const urls = ['gd-a', 'gd-b', 'gd-x'].flatMap((site) => reportUrls(site, '2026-03-01', '2026-03-10'));
  let visitorEventsBefore = 0;

  beforeAll(async () => {
    subject = await newServer();
    fresh = await newServer();
    await send(subject.server, [...otherEvents, ...subjectEvents, ...quarantined]);
    projectAll(subject.server);
    await send(subject.server, tailEvents);
    // The server that never saw the subject: the same events, the subject's left out.
    await send(fresh.server, [...otherEvents, quarantined[2]!]);
    projectAll(fresh.server);
    visitorEventsBefore = count(subject.server, 'SELECT count(*) AS n FROM visitor_events');
  });
  afterAll(async () => {
    await subject.server.close();
    await fresh.server.close();
  });

  it('before the deletion, the reports count the subject', async () => {
    const before = await readReports(subject.server, urls);
    const without = await readReports(fresh.server, urls);
    const differing = urls.filter((url) => JSON.stringify(before[url]) !== JSON.stringify(without[url]));
    // Every gd-a report without a filter, or filtered on a value the subject has, differs (gd-b's do not).
    const counting = urls.filter((url) => url.includes('/gd-a/') && !/country|device/.test(url));
    expect(counting.length).toBeGreaterThan(15);
    expect(differing.filter((url) => url.includes('/gd-a/'))).toEqual(expect.arrayContaining(counting));
    expect(differing.filter((url) => !url.includes('/gd-a/') && !url.includes('all-sites'))).toEqual([]);
  });

  it('exports the anon_ids bound to the user (the tail included), every event of them and its quarantined events', async () => {
    const response = await subject.server.request('POST', '/sites/gd-a/gdpr/export', { token: subject.adminKey, body: { user_id: 'u-1' } });
    expect(response.status, response.text).toBe(200);
    expect(response.body.subject).toEqual({ user_id: 'u-1' });
    expect(response.body.identities).toEqual(['a-1', 'a-2', 'a-3']);
    const ids = [...subjectEvents, ...tailEvents].map((item) => item.id);
    expect(response.body.events.map((item: { id: string }) => item.id).sort()).toEqual([...ids].sort());
    // Oldest first; the exact JSON received as raw.
    const first = response.body.events[0];
    expect(first).toMatchObject({ id: subjectEvents[0]!.id, anon_id: 'a-1', user_id: null, ts: '2026-03-01T10:00:00.000Z', is_bot: false, raw: subjectEvents[0] });
    expect(response.body.quarantined.map((row: { payload: { id: string } }) => row.payload.id).sort()).toEqual([quarantined[0]!.id, quarantined[1]!.id].sort());
  });

  it('exports an anon_id: itself and its events only; an unknown subject: nothing', async () => {
    const anon = await subject.server.request('POST', '/v1/sites/gd-a/gdpr/export', { body: { anon_id: 'a-2' } });
    expect(anon.status).toBe(200);
    expect(anon.body.identities).toEqual(['a-2']);
    expect(anon.body.events.map((item: { id: string }) => item.id)).toEqual([subjectEvents[3]!.id, subjectEvents[4]!.id, subjectEvents[6]!.id]);
    const unknown = await subject.server.request('POST', '/sites/gd-a/gdpr/export', { body: { anon_id: 'nobody' } });
    expect(unknown.body).toEqual({ subject: { anon_id: 'nobody' }, identities: [], events: [], quarantined: [] });
  });

  it('deletes the events (the tail too), bindings and DLQ rows; leaves nothing of the subject in any table', async () => {
    const response = await subject.server.request('POST', '/sites/gd-a/gdpr/delete', { token: subject.adminKey, body: { user_id: 'u-1' } });
    expect(response.status, response.text).toBe(200);
    // 6 projected + 2 in the tail; bindings a-1→u-1, a-2→u-1 (projected) and a-3→u-1 (tail).
    expect(response.body).toEqual({ deleted_events: 9, deleted_identities: 3 });
    for (const anon of ['a-1', 'a-2', 'a-3', 'q-9']) expect(leftovers(subject.server, 'gd-a', anon), anon).toEqual(nothing);
    expect(count(subject.server, "SELECT count(*) AS n FROM identities WHERE user_id = 'u-1' AND site_id = 'gd-a'")).toBe(0);
    // The visitor index lost exactly the subject's 7 projected rows.
    expect(count(subject.server, 'SELECT count(*) AS n FROM visitor_events')).toBe(visitorEventsBefore - 7);
    // Its reverse (seq -> visitor number, the funnels' read) loses exactly the same rows.
    expect(count(subject.server, 'SELECT count(*) AS n FROM event_visitors')).toBe(visitorEventsBefore - 7);
    expect(count(subject.server, 'SELECT count(*) AS n FROM event_visitors WHERE seq NOT IN (SELECT seq FROM events)')).toBe(0);
    // The dictionary of dimension values forgot what only the subject had; shared values stay.
    expect(subject.server.db.prepare("SELECT value FROM report_values WHERE value LIKE '%u1%' OR value LIKE '%account%'").all()).toEqual([]);
    expect(count(subject.server, "SELECT count(*) AS n FROM report_values WHERE site_id = 'gd-a' AND value = '/pricing'")).toBeGreaterThan(0);
  });

  it('keeps everything of the other subject and of a-1 on the other site and in the other workspace', () => {
    expect(leftovers(subject.server, 'gd-a', 'b-1')).toEqual({ events: 3, identities: 1, sessions: 2, report_visitors: 1, visitor_events: 3, dlq: 1 });
    expect(leftovers(subject.server, 'gd-b', 'a-1')).toMatchObject({ events: 1, identities: 1, sessions: 1, report_visitors: 1, visitor_events: 1 });
    expect(leftovers(subject.server, 'gd-x', 'a-1')).toMatchObject({ events: 1, identities: 1, sessions: 1, report_visitors: 1, visitor_events: 1 });
  });

  it('every report then equals the one of a server that never saw the subject, without a rebuild', async () => {
    projectAll(subject.server);
    expect(await readReports(subject.server, urls)).toEqual(await readReports(fresh.server, urls));
  });

  it('a second delete answers zeros and changes nothing', async () => {
    const again = await subject.server.request('POST', '/sites/gd-a/gdpr/delete', { token: subject.adminKey, body: { user_id: 'u-1' } });
    expect(again.body).toEqual({ deleted_events: 0, deleted_identities: 0 });
    expect(await readReports(subject.server, urls)).toEqual(await readReports(fresh.server, urls));
  });

  it('audits gdpr.export and gdpr.delete with the 12-hex SHA-256 prefix, never the id', async () => {
    const audit = await subject.server.request('GET', '/workspaces/gdpr-a/audit');
    const gdpr = audit.body.entries.filter((entry: { action: string }) => entry.action.startsWith('gdpr.'));
    expect(gdpr.map((entry: { action: string; target: string }) => [entry.action, entry.target]).reverse()).toEqual([
      ['gdpr.export', digest('u-1')],
      ['gdpr.export', digest('a-2')],
      ['gdpr.export', digest('nobody')],
      ['gdpr.delete', digest('u-1')],
      ['gdpr.delete', digest('u-1')],
    ]);
    expect(gdpr[gdpr.length - 1]).toMatchObject({ actor_kind: 'apiKey', metadata: { site_id: 'gd-a', subject_kind: 'user_id', events: 9 } });
    const stored = subject.server.db.prepare("SELECT target, metadata FROM audit_log WHERE action LIKE 'gdpr.%'").all();
    for (const text of ['u-1', 'a-2', 'nobody']) expect(JSON.stringify(stored)).not.toContain(`"${text}"`);
  });
});

describe('GDPR delete of an anon_id', () => {
  let server: TestServer;
  beforeAll(async () => {
    ({ server } = await newServer());
    await send(server, [...otherEvents, ...subjectEvents]);
    projectAll(server);
  });
  afterAll(() => server.close());

  it('takes the device out, its bindings with it, and keeps the user’s other device', async () => {
    const response = await server.request('POST', '/sites/gd-a/gdpr/delete', { body: { anon_id: 'a-1' } });
    expect(response.body).toEqual({ deleted_events: 4, deleted_identities: 1 });
    expect(leftovers(server, 'gd-a', 'a-1')).toEqual(nothing);
    expect(count(server, "SELECT count(*) AS n FROM events WHERE site_id = 'gd-a' AND anon_id = 'a-2'")).toBe(3);
    expect(count(server, "SELECT count(*) AS n FROM identities WHERE site_id = 'gd-a' AND anon_id = 'a-2'")).toBe(1);
  });
});

describe('GDPR access', () => {
  let world: Awaited<ReturnType<typeof newServer>>;
  beforeAll(async () => {
    world = await newServer();
  });
  afterAll(() => world.server.close());

  const body = { user_id: 'u-1' };
  it.each(['export', 'delete'])('%s: no or an unknown credential 401, a read key 403, a foreign site the same 404 as a missing one', async (action) => {
    const { server, readKey, foreignKey } = world;
    const path = `/sites/gd-a/gdpr/${action}`;
    expect((await server.request('POST', path, { token: null, body })).status).toBe(401);
    expect((await server.request('POST', path, { token: 'sk_gdpr-a_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', body })).status).toBe(401);
    const forbidden = await server.request('POST', path, { token: readKey, body });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('forbidden_scope');
    const foreign = await server.request('POST', path, { token: foreignKey, body });
    const missing = await server.request('POST', `/sites/nope/gdpr/${action}`, { token: foreignKey, body });
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(missing.text);
    // The admin token reaches every site.
    expect((await server.request('POST', path, { body })).status).toBe(200);
  });

  it.each([
    [{}, ''],
    [{ user_id: 'u', anon_id: 'a' }, ''],
    [{ user_id: '' }, '/user_id'],
    [{ anon_id: 'x'.repeat(129) }, '/anon_id'],
    [{ user_id: 'u', extra: 1 }, ''],
    [{ user_id: 7 }, '/user_id'],
  ])('refuses %j with 400 invalid_payload', async (refused, path) => {
    const response = await world.server.request('POST', '/sites/gd-a/gdpr/delete', { body: refused });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.code).toBe('invalid_payload');
    if (path) expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
  });

  it('accepts identifiers at their edges: 1 and 128 characters', async () => {
    for (const id of ['x', 'y'.repeat(128)]) {
      const response = await world.server.request('POST', '/sites/gd-a/gdpr/delete', { body: { anon_id: id } });
      expect(response.status, response.text).toBe(200);
    }
  });
});
