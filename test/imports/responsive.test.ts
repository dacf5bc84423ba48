// An import runs on its own thread: while a large GA4 file is checked and stored, GET /healthz and an ingest POST
// are answered (their latencies are printed beside the same requests' latencies with no import running, a figure,
// never asserted), the live events are stored beside the imported ones, and the import finishes whole.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { ga4Ndjson, type Ga4Row } from './_fixtures.ts';

const rowCount = 20_000;
let server: TestServer;

vi.setConfig({ testTimeout: 300_000 });
beforeAll(async () => {
  server = await startTestServer();
  await seedWorkspace(server, 'rs-a', { sites: ['rs-site'] });
});
afterAll(async () => server.close());

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** One probe: /healthz, then a live event through ingest; their times in ms. */
async function probe(n: number): Promise<{ health: number; ingest: number }> {
  let started = performance.now();
  const health = await fetch(`${server.url}/healthz`);
  expect(health.status).toBe(200);
  const healthMs = performance.now() - started;
  started = performance.now();
  const event = { id: crypto.randomUUID(), site_id: 'rs-site', anon_id: `live-${n}`, ts: new Date().toISOString(), type: 'pageview', url: 'https://live.example/' };
  const ingest = await server.request('POST', '/s2s/events', { token: 'rs-site', body: event });
  expect(ingest.status, ingest.text).toBe(202);
  return { health: healthMs, ingest: performance.now() - started };
}

describe('an import off the HTTP thread', () => {
  it('answers /healthz and ingest while a large import runs, and the import completes', async () => {
    expect(server.app.imports.kind).toBe('thread');
    const base = Date.now() - 20 * 86_400_000;
    const rows: Ga4Row[] = Array.from({ length: rowCount }, (_, n) => ({
      name: 'page_view',
      micros: `${base + n * 1000}000`,
      visitor: `${Math.floor(n / 6)}.1700000000`,
      location: `https://shop.example/p/${n % 50}`,
    }));
    const idle: { health: number; ingest: number }[] = [];
    for (let n = 0; n < 20; n++) idle.push(await probe(n));
    const created = await server.request('POST', '/v1/sites/rs-site/imports', { rawBody: ga4Ndjson(rows), headers: { 'content-type': 'application/x-ndjson', 'x-import-format': 'ga4-bigquery' } });
    expect(created.status, created.text).toBe(202);
    const during: { health: number; ingest: number }[] = [];
    for (let n = 100; ; n++) {
      const status = await server.request('GET', `/v1/sites/rs-site/imports/${created.body.id}`);
      if (status.body.status !== 'queued' && status.body.status !== 'running') break;
      during.push(await probe(n));
      // A probe every 25 ms or so, as a monitor and a trickle of live traffic would.
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await server.app.imports.idle();
    const final = await server.request('GET', `/v1/sites/rs-site/imports/${created.body.id}`);
    expect(final.body).toMatchObject({ status: 'done', events_imported: rowCount, errors: [] });
    // The probes overlapped the import, and every live event they sent is stored beside the imported ones.
    expect(during.length).toBeGreaterThan(0);
    await server.projected();
    const live = server.db.prepare("SELECT count(*) FROM events WHERE site_id = 'rs-site' AND anon_id LIKE 'live-%'").pluck().get();
    expect(live).toBe(idle.length + during.length);
    const figure = (label: string, probes: typeof idle) =>
      `${label}: ${probes.length} probes, /healthz median ${median(probes.map((p) => p.health)).toFixed(1)} ms (max ${Math.max(...probes.map((p) => p.health)).toFixed(1)}), ` +
      `ingest POST median ${median(probes.map((p) => p.ingest)).toFixed(1)} ms (max ${Math.max(...probes.map((p) => p.ingest)).toFixed(1)})`;
    console.log(`${figure('no import', idle)}\n${figure(`during a ${rowCount}-row GA4 import`, during)}`);
  });
});
