// The bridge's inbound action over HTTP: only an integrations:write key (or the admin wildcard) records, the lead
// must be a user_id seen on one of the workspace's sites, the same idempotency_key replays, and nothing but the
// spec's five fields is accepted.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { expectFlatError, manualClock } from '../admin/_helpers.ts';

const schema = 'sightline.integration.action@1';
const action = (fields: Record<string, unknown> = {}) => ({ schema, action: 'lead.signal', lead_id: 'lead-1', signal: 'qualified', idempotency_key: 'k-1', ...fields });
const path = (slug: string) => `/workspaces/${slug}/integrations/bridge/actions`;

let server: TestServer;
let keys: Record<string, string>;
const clock = manualClock();

async function keyOf(slug: string, scopes: string[]): Promise<string> {
  const response = await server.request('POST', `/workspaces/${slug}/keys`, { body: { label: scopes.join('+'), scopes } });
  expect(response.status, response.text).toBe(201);
  return response.body.plaintext;
}

async function seeUser(siteId: string, userId: string): Promise<void> {
  const response = await server.request('POST', '/events', { token: siteId, body: { id: crypto.randomUUID(), site_id: siteId, anon_id: `anon-${userId.length}-${userId.slice(0, 20)}`, user_id: userId, ts: clock.iso(), type: 'pageview', url: 'https://acme.example/' } });
  expect(response.status, response.text).toBe(202);
}

beforeEach(async () => {
  server = await startTestServer({ clock });
  await seedWorkspace(server, 'acme', { sites: ['acme-site'] });
  await seedWorkspace(server, 'other', { sites: ['other-site'] });
  keys = {
    integrations: await keyOf('acme', ['integrations:write']),
    ingest: await keyOf('acme', ['ingest:write']),
    read: await keyOf('acme', ['query:read']),
    ingestAndRead: await keyOf('acme', ['ingest:write', 'query:read']),
    admin: await keyOf('acme', ['admin']),
    otherIntegrations: await keyOf('other', ['integrations:write']),
  };
  await seeUser('acme-site', 'lead-1');
  await seeUser('other-site', 'lead-of-other');
});
afterEach(() => server.close());

describe('who may record a bridge action', () => {
  it.each([
    ['no credential', null],
    ['a wrong key', 'sk_acme_notakey'],
    ['an ingest:write key', 'ingest'],
    ['a query:read key', 'read'],
    ['an ingest:write + query:read key', 'ingestAndRead'],
  ])('refuses %s with 401', async (_, name) => {
    const token = name === null ? null : (keys[name] ?? name);
    const response = await server.request('POST', path('acme'), { token, body: action() });
    expectFlatError(response, 401, 'unauthorized');
    expect(server.db.prepare('SELECT count(*) AS n FROM bridge_actions').get()).toEqual({ n: 0 });
  });

  it('records with an integrations:write key, and with the admin wildcard (an admin key, the admin token)', async () => {
    const recorded = await server.request('POST', `/v1${path('acme')}`, { token: keys.integrations!, body: action() });
    expect(recorded.status, recorded.text).toBe(200);
    expect(recorded.body).toEqual({ id: expect.any(String), lead_id: 'lead-1', action: 'lead.signal', signal: 'qualified', recorded_at: clock.iso(), replayed: false });
    const byAdminKey = await server.request('POST', path('acme'), { token: keys.admin!, body: action({ idempotency_key: 'k-2' }) });
    expect(byAdminKey.status, byAdminKey.text).toBe(200);
    const byAdminToken = await server.request('POST', path('acme'), { body: action({ idempotency_key: 'k-3' }) });
    expect(byAdminToken.status, byAdminToken.text).toBe(200);
  });

  it('answers 404 to a key of another workspace, and for a workspace that does not exist', async () => {
    expectFlatError(await server.request('POST', path('acme'), { token: keys.otherIntegrations!, body: action() }), 404, 'not_found');
    expectFlatError(await server.request('POST', path('nope'), { token: keys.integrations!, body: action() }), 404, 'not_found');
  });
});

describe('the lead', () => {
  it('is a user_id seen on one of the workspace sites: another workspace lead and an unknown one are 404', async () => {
    expectFlatError(await server.request('POST', path('acme'), { token: keys.integrations!, body: action({ lead_id: 'lead-of-other' }) }), 404, 'not_found');
    expectFlatError(await server.request('POST', path('acme'), { token: keys.integrations!, body: action({ lead_id: 'nobody' }) }), 404, 'not_found');
    // The other workspace's own key finds its lead.
    const theirs = await server.request('POST', path('other'), { token: keys.otherIntegrations!, body: action({ lead_id: 'lead-of-other' }) });
    expect(theirs.status, theirs.text).toBe(200);
  });

  it('counts as seen as soon as its event is acknowledged, before the projector passed it', async () => {
    const manual = await startTestServer({ clock, projector: 'manual' });
    try {
      await seedWorkspace(manual, 'late', { sites: ['late-site'] });
      const key = (await manual.request('POST', '/workspaces/late/keys', { body: { label: 'i', scopes: ['integrations:write'] } })).body.plaintext;
      const event = { id: crypto.randomUUID(), site_id: 'late-site', anon_id: 'a', user_id: 'fresh-lead', ts: clock.iso(), type: 'pageview', url: 'https://late.example/' };
      expect((await manual.request('POST', '/events', { token: 'late-site', body: event })).status).toBe(202);
      const response = await manual.request('POST', path('late'), { token: key, body: action({ lead_id: 'fresh-lead' }) });
      expect(response.status, response.text).toBe(200);
    } finally {
      await manual.close();
    }
  });
});

describe('idempotency', () => {
  it('replays the original answer for the same idempotency_key and records nothing twice', async () => {
    const first = await server.request('POST', path('acme'), { token: keys.integrations!, body: action() });
    clock.advance(60_000);
    const again = await server.request('POST', path('acme'), { token: keys.integrations!, body: action() });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual({ ...first.body, replayed: true });
    // Even with another signal, the key answers what it recorded first.
    const changed = await server.request('POST', path('acme'), { token: keys.integrations!, body: action({ signal: 'contacted' }) });
    expect(changed.body).toEqual({ ...first.body, replayed: true });
    expect(server.db.prepare('SELECT count(*) AS n FROM bridge_actions').get()).toEqual({ n: 1 });
  });

  it('keeps idempotency keys per workspace', async () => {
    await server.request('POST', path('acme'), { token: keys.integrations!, body: action() });
    const theirs = await server.request('POST', path('other'), { token: keys.otherIntegrations!, body: action({ lead_id: 'lead-of-other' }) });
    expect(theirs.body.replayed).toBe(false);
  });
});

describe('the request', () => {
  it.each([
    ['an unknown field (contact details)', { email: 'a@b.example' }, '/email'],
    ['a price', { price: 10 }, '/price'],
    ['a note', { note: 'call back' }, '/note'],
    ['another schema', { schema: 'sightline.integration.action@2' }, '/schema'],
    ['another action', { action: 'lead.update' }, '/action'],
    ['an unknown signal', { signal: 'won' }, '/signal'],
    ['an empty lead_id', { lead_id: '' }, '/lead_id'],
    ['a lead_id of 129 characters', { lead_id: 'l'.repeat(129) }, '/lead_id'],
    ['an idempotency_key of 129 characters', { idempotency_key: 'k'.repeat(129) }, '/idempotency_key'],
    ['an idempotency_key with a space', { idempotency_key: 'a b' }, '/idempotency_key'],
    ['a missing idempotency_key', { idempotency_key: undefined }, '/idempotency_key'],
  ])('refuses %s with 400 invalid_payload', async (_, fields, pointer) => {
    const response = await server.request('POST', path('acme'), { token: keys.integrations!, body: action(fields) });
    expectFlatError(response, 400, 'invalid_payload', [pointer]);
  });

  it('accepts a lead_id of 128 (the longest user_id) and an idempotency_key of 128 characters (the last accepted lengths)', async () => {
    await seeUser('acme-site', 'l'.repeat(128));
    const response = await server.request('POST', path('acme'), { token: keys.integrations!, body: action({ lead_id: 'l'.repeat(128), idempotency_key: 'k'.repeat(128) }) });
    expect(response.status, response.text).toBe(200);
  });

  it.each(['qualified', 'contacted', 'meeting_booked', 'follow_up_required'])('accepts the signal %s', async (signal) => {
    const response = await server.request('POST', path('acme'), { token: keys.integrations!, body: action({ signal, idempotency_key: signal }) });
    expect(response.body).toMatchObject({ signal, replayed: false });
  });

  it('refuses a body that is not JSON', async () => {
    const response = await server.request('POST', path('acme'), { token: keys.integrations!, rawBody: 'lead', headers: { 'content-type': 'application/json' } });
    expectFlatError(response, 400, 'invalid_json');
  });
});
