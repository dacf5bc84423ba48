// INGEST_WRITER=thread: group commits on the writer thread (dist/writer-thread.mjs) store, dedup and answer exactly
// as the default inline writer does, and the projector counts what they stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEvent, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';

describe('the writer thread', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { INGEST_WRITER: 'thread', SYNCHRONOUS: 'full' } });
    await seedWorkspace(server, 'threaded', { sites: ['t'] });
  });
  afterAll(() => server.close());

  it('commits on its own thread, with the event log synchronous=FULL', async () => {
    expect(server.config).toMatchObject({ ingestWriter: 'thread', synchronous: 'FULL' });
    const events = [makeEvent('t', { anon_id: 'a' }), makeEvent('t', { anon_id: 'b' })];
    const stored = await server.request('POST', '/events', { token: 't', body: events, headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' } });
    expect(stored.body).toEqual({ accepted: 2, bots: 0, duplicates: 0, quarantined: 0, dropped: 0 });
    const again = await server.request('POST', '/events', { token: 't', body: events });
    expect(again.body).toEqual({ accepted: 0, bots: 0, duplicates: 2, quarantined: 0, dropped: 0 });
    // The bot count crosses the thread boundary with the other counts (Node's fetch sends a bot's agent).
    const crawled = await server.request('POST', '/events', { token: 't', body: [makeEvent('t', { anon_id: 'c' })] });
    expect(crawled.body).toEqual({ accepted: 1, bots: 1, duplicates: 0, quarantined: 0, dropped: 0 });
    const today = new Date().toISOString().slice(0, 10);
    const summary = await server.request('GET', `/v1/sites/t/reports/summary-v2?from=${today}&to=${today}`);
    expect(summary.body.data).toMatchObject({ visitors: 2, visits: 2, pageviews: 2 });
  });
});
