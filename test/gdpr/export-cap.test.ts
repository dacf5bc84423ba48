// The export's bound at its edge: a subject with exactly 50,000 events is exported whole; with one more, 413
// payload_too_large (its deletion still works). The events stay in the log's tail (no projection): the export reads it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { manualClock } from '../admin/_helpers.ts';
import { gdprExportMaxEvents } from '../../src/gdpr/gdpr-actions.ts';
import { seedWorkspace, startTestServer, testAdminToken, type TestServer } from '../_setup.ts';

vi.setConfig({ testTimeout: 120_000 });

async function sendMany(server: TestServer, count: number, offset: number): Promise<void> {
  const perRequest = 500;
  for (let start = 0; start < count; start += perRequest) {
    const body = Array.from({ length: Math.min(perRequest, count - start) }, (_, index) => ({
      id: crypto.randomUUID(),
      site_id: 'cap',
      anon_id: 'busy',
      ts: new Date(Date.parse('2026-03-01T00:00:00Z') + (offset + start + index) * 1000).toISOString(),
      type: 'tick',
    }));
    const response = await fetch(`${server.url}/s2s/events`, { method: 'POST', headers: { authorization: 'Bearer cap', 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(response.status, await response.text()).toBe(202);
  }
}

describe('the export bound', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock: manualClock('2026-03-10T00:00:00.000Z'), projector: 'manual', projectionWaitMs: 20, env: { RATE_LIMIT_SITE: '10000000', RATE_LIMIT_IP: '10000000' } });
    await seedWorkspace(server, 'cap', { sites: ['cap'] });
  });
  afterAll(() => server.close());

  it(`exports exactly ${gdprExportMaxEvents} events, refuses one more with 413, and still deletes them all`, async () => {
    expect(gdprExportMaxEvents).toBe(50_000);
    await sendMany(server, gdprExportMaxEvents, 0);
    const whole = await fetch(`${server.url}/sites/cap/gdpr/export`, { method: 'POST', headers: { authorization: `Bearer ${testAdminToken}`, 'content-type': 'application/json' }, body: '{"anon_id":"busy"}' });
    expect(whole.status).toBe(200);
    const answer = (await whole.json()) as { events: { ts: string }[] };
    expect(answer.events).toHaveLength(gdprExportMaxEvents);
    expect(answer.events[0]!.ts).toBe('2026-03-01T00:00:00.000Z');

    await sendMany(server, 1, gdprExportMaxEvents);
    const refused = await server.request('POST', '/sites/cap/gdpr/export', { body: { anon_id: 'busy' } });
    expect(refused.status).toBe(413);
    expect(refused.body.error.code).toBe('payload_too_large');

    const deleted = await server.request('POST', '/sites/cap/gdpr/delete', { body: { anon_id: 'busy' } });
    expect(deleted.body).toEqual({ deleted_events: gdprExportMaxEvents + 1, deleted_identities: 0 });
  });
});
