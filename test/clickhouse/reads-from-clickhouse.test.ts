// The bundled server as a user starts it with CLICKHOUSE_URL set reads its reports and event lists from ClickHouse:
// each read right after a 202 counts the event (the read waits for the projector, then the shipper), its answers
// equal a SQLite-only server's for the same events field for field, and with ClickHouse killed those reads answer
// 503 backend_unavailable with Retry-After while ingest goes on acknowledging; after a restart they are whole again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserEvent, createSite, ingest, shippedServers, timesOn, utcDate, type ShippedServer } from '../e2e/_server.ts';
import { ensureBuilt } from '../cli/cli-helpers.ts';
import { startClickHouse, type ClickHouseTestServer } from './_server.ts';

const siteId = 'ch-reads';
const warmSiteId = 'ch-warm';
const day = utcDate(-1);
const at = timesOn(day);
const servers = shippedServers();

/** A day of traffic: three visitors, two sources, a campaign, a custom event with a prop, a bounce. */
const traffic = [
  browserEvent(siteId, { anon_id: 'ann', ts: at('09:00:00'), url: 'https://shop.example/?utm_source=news&utm_medium=email&utm_campaign=fall' }),
  browserEvent(siteId, { anon_id: 'ann', ts: at('09:03:00'), url: 'https://shop.example/pricing?plan=pro' }),
  browserEvent(siteId, { anon_id: 'ann', ts: at('09:04:00'), type: 'signup', url: 'https://shop.example/pricing', props: { plan: 'pro' } }),
  browserEvent(siteId, { anon_id: 'ben', ts: at('10:00:00'), url: 'https://shop.example/', referrer: 'https://www.google.com/search?q=x' }),
  browserEvent(siteId, { anon_id: 'cy', ts: at('11:00:00'), url: 'https://shop.example/docs', referrer: 'https://news.ycombinator.com/' }),
  browserEvent(siteId, { anon_id: 'cy', ts: at('11:02:00'), url: 'https://shop.example/docs/setup' }),
];

const reads = [
  `reports/summary-v2?from=${day}&to=${day}`,
  `reports/pages-v2?from=${day}&to=${day}`,
  `reports/pages-v2?from=${day}&to=${day}&include_params=true`,
  `reports/sources-v2?from=${day}&to=${day}`,
  `reports/campaigns-v2?from=${day}&to=${day}`,
  `reports/pages-v2?from=${day}&to=${day}&source=google.com`,
  `events/list-v2?from=${day}&to=${day}`,
  `events/overview-v2?from=${day}&to=${day}`,
];

/** What may differ between two servers: when each received the events and its own execution details. */
function comparable(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value) => (['received_at', 'generated_at', 'execution', 'watermark', 'projected_through', 'position', 'as_of'].includes(key) ? undefined : value));
}

describe('reads from ClickHouse (CLICKHOUSE_URL set), against the bundled server', () => {
  let clickhouseServer: ClickHouseTestServer;
  let plain: ShippedServer;
  let withClickHouse: ShippedServer;

  beforeAll(async () => {
    await ensureBuilt();
    clickhouseServer = await startClickHouse();
    [plain, withClickHouse] = await Promise.all([servers.start(), servers.start({ CLICKHOUSE_URL: clickhouseServer.url, CLICKHOUSE_DATABASE: 'reads' })]);
    await Promise.all([createSite(plain, siteId), createSite(withClickHouse, siteId)]);
    // The shipping thread is under way (started, tables created) before the first timed read: one event of another
    // site, read until its answer is complete (a wait for a state, bounded). On a loaded machine the thread's start
    // alone can outlast a read's ~2 s wait, which is not what the reads below test.
    await createSite(withClickHouse, warmSiteId);
    await ingest(withClickHouse, '/v1/s2s/events', warmSiteId, [browserEvent(warmSiteId, { anon_id: 'warm', ts: at('08:00:00'), url: 'https://shop.example/' })]);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const warm = await withClickHouse.request('GET', `/v1/sites/${warmSiteId}/reports/summary-v2?from=${day}&to=${day}`);
      if (warm.status === 200 && warm.body.meta.completeness.complete && warm.body.data.events === 1) break;
      if (Date.now() > deadline) throw new Error(`the shipping thread did not ship within 60 s: ${warm.status} ${warm.text}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }, 180_000);
  afterAll(async () => {
    await servers.disposeAll();
    await clickhouseServer?.close();
  });

  it('counts each event in the read right after its 202, and answers as the SQLite-only server does', async () => {
    for (const [index, event] of traffic.entries()) {
      await ingest(plain, '/v1/s2s/events', siteId, [event]);
      await ingest(withClickHouse, '/v1/s2s/events', siteId, [event]);
      const summary = await withClickHouse.request('GET', `/v1/sites/${siteId}/reports/summary-v2?from=${day}&to=${day}`);
      expect(summary.status, summary.text).toBe(200);
      expect(summary.body.data.events, `after event ${index + 1}`).toBe(index + 1);
      expect(summary.body.meta.completeness.complete).toBe(true);
    }
    for (const read of reads) {
      const [expected, actual] = await Promise.all([plain.request('GET', `/v1/sites/${siteId}/${read}`), withClickHouse.request('GET', `/v1/sites/${siteId}/${read}`)]);
      expect(expected.status, `${read}: ${expected.text}`).toBe(200);
      expect(actual.status, `${read}: ${actual.text}`).toBe(200);
      expect(comparable(actual.body), read).toEqual(comparable(expected.body));
    }
  });

  it('answers 503 backend_unavailable with Retry-After while ClickHouse is down, keeps acknowledging, and is whole after a restart', async () => {
    await clickhouseServer.kill();
    const late = browserEvent(siteId, { anon_id: 'dee', ts: at('15:00:00'), url: 'https://shop.example/late' });
    await ingest(withClickHouse, '/v1/s2s/events', siteId, [late]);
    for (const read of [`reports/summary-v2?from=${day}&to=${day}`, `events/list-v2?from=${day}&to=${day}`]) {
      const answer = await withClickHouse.request('GET', `/v1/sites/${siteId}/${read}`);
      expect(answer.status, `${read}: ${answer.text}`).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('5');
      expect(JSON.stringify(answer.body)).toContain('backend_unavailable');
    }
    await clickhouseServer.restart();
    // The shipper retries with backoff (at most 30 s); a read waits about 2 s for it, so ask until it is complete.
    const deadline = Date.now() + 90_000;
    for (;;) {
      const summary = await withClickHouse.request('GET', `/v1/sites/${siteId}/reports/summary-v2?from=${day}&to=${day}`);
      if (summary.status === 200 && summary.body.meta.completeness.complete) {
        expect(summary.body.data.events).toBe(traffic.length + 1);
        break;
      }
      if (Date.now() > deadline) throw new Error(`not whole again within 90 s: ${summary.status} ${summary.text}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }, 150_000);
});
