// GET /metrics of the shipped server, parsed whole by an independent Prometheus text parser
// (parse-prometheus-text-format, a port of the Python client's): every family has a type and help, requests and
// their latency are counted per route, method and status class (the ingest fast path's included), and the database
// files are sized one by one, WALs included.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { browserEvent, cleanExit, createSite, ingest, useShippedServers } from './_server.ts';

const siteId = 'metrics-e2e';
const servers = useShippedServers();

describe('the shipped server’s /metrics', () => {
  it('parses whole, with HTTP latency by route and the size of each database file', async () => {
    const server = await servers.start();
    await createSite(server, siteId);
    await ingest(server, '/v1/events', siteId, [browserEvent(siteId)]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await server.request('GET', `/v1/sites/${siteId}/events/overview-v2?from=${today}&to=${today}`)).status).toBe(200);
    expect((await server.request('GET', `/v1/sites/missing-site/events/overview-v2?from=${today}&to=${today}`)).status).toBe(404);

    const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${server.adminToken}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = parsePrometheusTextFormat(await response.text());
    const byName = new Map(families.map((family) => [family.name, family]));
    for (const family of families) {
      expect(family.type, family.name).toMatch(/^(COUNTER|GAUGE|HISTOGRAM)$/);
      expect(family.help, family.name).not.toBe('');
    }

    // Requests by route, method and status class: the fast path's ingest, a report answered and one refused.
    const requests = byName.get('sightline_http_requests_total');
    expect(requests?.type).toBe('COUNTER');
    const answered = Object.fromEntries(requests!.metrics.map((metric) => [`${metric.labels?.method} ${metric.labels?.route} ${metric.labels?.status}`, Number(metric.value)]));
    expect(answered).toMatchObject({
      'POST /events 2xx': 1,
      'POST /workspaces/:slug/sites 2xx': 1,
      'GET /sites/:siteId/events/overview-v2 2xx': 1,
      'GET /sites/:siteId/events/overview-v2 4xx': 1,
    });
    // Their latencies: a histogram with the same labels (this parser folds a labelled histogram's series into one
    // set of buckets, so only their shape is checked here: ascending bounds, cumulative counts, +Inf last).
    const latency = byName.get('sightline_http_request_duration_ms');
    expect(latency?.type).toBe('HISTOGRAM');
    const buckets = latency!.metrics[0]!.buckets!;
    expect(buckets['+Inf']).toBeDefined();
    const counts = Object.keys(buckets)
      .filter((bound) => bound !== '+Inf')
      .sort((a, b) => Number(a) - Number(b))
      .map((bound) => Number(buckets[bound]));
    expect(counts.length).toBeGreaterThan(5);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(Number(buckets['+Inf'])).toBeGreaterThanOrEqual(counts.at(-1)!);

    // The HTTP thread's event-loop delay, sampled by a timer due every 10 ms: a histogram of its own (no labels).
    const loopDelay = byName.get('sightline_event_loop_delay_ms');
    expect(loopDelay?.type).toBe('HISTOGRAM');
    expect(loopDelay!.metrics).toHaveLength(1);
    const delay = loopDelay!.metrics[0]!;
    const delayBounds = Object.keys(delay.buckets!).filter((bound) => bound !== '+Inf').map(Number);
    expect(delayBounds).toEqual(expect.arrayContaining([1, 10, 100, 1000]));
    const delayCounts = delayBounds.sort((a, b) => a - b).map((bound) => Number(delay.buckets![String(bound)]));
    expect(delayCounts).toEqual([...delayCounts].sort((a, b) => a - b));
    expect(Number(delay.buckets!['+Inf'])).toBe(Number(delay.count));
    expect(Number(delay.count)).toBeGreaterThanOrEqual(delayCounts.at(-1)!);
    expect(Number(delay.sum)).toBeGreaterThanOrEqual(0);

    const files = byName.get('sightline_database_file_bytes');
    expect(files?.type).toBe('GAUGE');
    const sized = Object.fromEntries(files!.metrics.map((metric) => [metric.labels?.file, Number(metric.value)]));
    expect(Object.keys(sized)).toEqual(expect.arrayContaining(['sightline.db', 'sightline.db-wal', 'events.db', 'events.db-wal']));
    for (const size of Object.values(sized)) expect(size).toBeGreaterThanOrEqual(0);
    expect(sized['sightline.db']).toBeGreaterThan(0);
    const total = Number(byName.get('sightline_database_size_bytes')?.metrics[0]?.value);
    expect(total).toBe(Object.values(sized).reduce((sum: number, size) => sum + Number(size), 0));
    expect(await server.stop(), server.output()).toEqual(cleanExit);
  });
});
