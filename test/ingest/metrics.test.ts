// GET /metrics over real HTTP: who may read it, and what the ingest counters, histograms and gauges say after a
// known sequence of accepted, duplicate, consent-dropped, invalid and rate-limited requests. The exposition is
// parsed as Prometheus text, not grepped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEvent, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Family {
  type: string;
  help: string;
  samples: Sample[];
}

const sampleSuffixes: Record<string, string[]> = { counter: [''], gauge: [''], histogram: ['_bucket', '_sum', '_count'], untyped: [''] };

function parseValue(text: string): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  if (text === 'NaN') return Number.NaN;
  if (!/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(text)) throw new Error(`not a sample value: ${text}`);
  return Number(text);
}

/** `a="x",b="y\"z"` → { a: 'x', b: 'y"z' }, with the format's three escapes. */
function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  const pattern = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y;
  let at = 0;
  while (at < text.length) {
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (!match) throw new Error(`bad labels: {${text}}`);
    const [, name, raw] = match;
    if (name! in labels) throw new Error(`label ${name} repeated: {${text}}`);
    labels[name!] = raw!.replace(/\\(.)/g, (_, char: string) => (char === 'n' ? '\n' : char));
    at = pattern.lastIndex;
  }
  return labels;
}

/**
 * Prometheus text format 0.0.4: HELP and TYPE lines open a family, its samples follow; each sample name is the
 * family's (or, for a histogram, the family's _bucket/_sum/_count).
 */
function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  let current: { name: string; family: Family } | undefined;
  expect(text.endsWith('\n')).toBe(true);
  for (const line of text.slice(0, -1).split('\n')) {
    if (line.trim() === '') continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta;
      let family = families.get(name!);
      if (!family) {
        family = { type: 'untyped', help: '', samples: [] };
        families.set(name!, family);
      } else if (current?.name !== name) {
        throw new Error(`family ${name} declared twice`);
      }
      if (kind === 'HELP') family.help = rest!;
      else {
        expect(['counter', 'gauge', 'histogram', 'summary', 'untyped']).toContain(rest);
        family.type = rest!;
      }
      current = { name: name!, family };
      continue;
    }
    if (line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?$/.exec(line);
    if (!sample) throw new Error(`not a sample line: ${line}`);
    const [, name, labels, value] = sample;
    if (!current || !sampleSuffixes[current.family.type]!.some((suffix) => name === current!.name + suffix)) {
      throw new Error(`sample ${name} outside its family (current: ${current?.name})`);
    }
    current.family.samples.push({ name: name!, labels: labels ? parseLabels(labels) : {}, value: parseValue(value!) });
  }
  return families;
}

function family(families: Map<string, Family>, name: string, type: string): Family {
  const found = families.get(name);
  expect(found, `${name} is exposed`).toBeDefined();
  expect(found!.type).toBe(type);
  expect(found!.help.length).toBeGreaterThan(0);
  return found!;
}

/** Buckets by their le label, with _sum and _count, of a histogram's unlabelled series. */
function histogram(families: Map<string, Family>, name: string): { buckets: Map<string, number>; sum: number; count: number } {
  const { samples } = family(families, name, 'histogram');
  const buckets = new Map(samples.filter((sample) => sample.name === `${name}_bucket`).map((sample) => [sample.labels.le!, sample.value]));
  const sum = samples.filter((sample) => sample.name === `${name}_sum`);
  const count = samples.filter((sample) => sample.name === `${name}_count`);
  expect([sum.length, count.length]).toEqual([1, 1]);
  // Cumulative: never decreasing with le, and +Inf holds every observation.
  const ordered = [...buckets].sort(([a], [b]) => parseValue(a) - parseValue(b)).map(([, value]) => value);
  expect(ordered).toEqual([...ordered].sort((a, b) => a - b));
  expect(buckets.get('+Inf')).toBe(count[0]!.value);
  return { buckets, sum: sum[0]!.value, count: count[0]!.value };
}

function gauge(families: Map<string, Family>, name: string): number {
  const { samples } = family(families, name, 'gauge');
  expect(samples).toHaveLength(1);
  return samples[0]!.value;
}

const siteId = 'metrics-site';

describe('GET /metrics with METRICS_PUBLIC=false (the default)', () => {
  let server: TestServer;
  let apiKey: string;
  beforeAll(async () => {
    // 40 events/s per site bursts to 400: a batch of 450 is refused whatever the timing, the rest always fits.
    server = await startTestServer({ env: { RATE_LIMIT_SITE: '40', RATE_LIMIT_IP: '100000' } });
    apiKey = (await seedWorkspace(server, 'metrics', { sites: [siteId], scopes: ['ingest:write'] })).key!;
  });
  afterAll(() => server.close());

  it.each(['/metrics', '/v1/metrics'])('%s needs the admin token: 401 without it, 403 for an API key', async (path) => {
    for (const token of [null, 'not-the-admin-token']) {
      const refused = await server.request('GET', path, { token });
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({ error: { code: 'unauthorized', message: 'Missing or invalid credentials' } });
    }
    const byKey = await server.request('GET', path, { token: apiKey });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.code).toBe('forbidden_scope');
    const allowed = await server.request('GET', path);
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    parseExposition(allowed.text);
  });

  it('counts every ingest outcome, latency, commits, queue depth and database size', async () => {
    const json = { 'content-type': 'application/json' };
    let answered = 0;
    const post = async (path: string, body: unknown, status: number, options: { token?: string | null; headers?: Record<string, string>; raw?: boolean } = {}) => {
      const response = await server.request('POST', path, {
        token: options.token === undefined ? siteId : options.token,
        ...(options.raw ? { rawBody: body as string } : { body }),
        headers: { ...json, ...options.headers },
      });
      answered++;
      expect(response.status, response.text).toBe(status);
      return response.body;
    };

    const first = Array.from({ length: 5 }, () => makeEvent(siteId));
    // Node's fetch sends `User-Agent: node`, a bot's on /events: every accepted event is counted in bots too.
    expect(await post('/events', first, 202)).toEqual({ accepted: 5, bots: 5, duplicates: 0, quarantined: 0, dropped: 0 });
    await post('/s2s/events', Array.from({ length: 3 }, () => makeEvent(siteId)), 202, { token: apiKey, headers: { 'x-site-id': siteId } });
    await post('/v1/events', makeEvent(siteId), 202);
    // Duplicates across requests (they reach the writer) and inside one request (they do not).
    expect(await post('/events', first, 202)).toEqual({ accepted: 0, bots: 0, duplicates: 5, quarantined: 0, dropped: 0 });
    const twice = makeEvent(siteId);
    expect(await post('/events', [twice, twice], 202)).toEqual({ accepted: 1, bots: 1, duplicates: 1, quarantined: 0, dropped: 0 });
    const denied = () => makeEvent(siteId, { consent: { analytics: false } });
    expect(await post('/events', [denied(), denied(), makeEvent(siteId, { consent: { analytics: true } })], 202)).toEqual({ accepted: 1, bots: 1, duplicates: 0, quarantined: 0, dropped: 2 });
    // Invalid: malformed JSON (no events: counts once), a batch of three with one bad event, one bad s2s event.
    expect((await post('/events', '[{"id": ', 400, { raw: true })).error.code).toBe('invalid_json');
    expect((await post('/events', [makeEvent(siteId), makeEvent(siteId), makeEvent(siteId, { ts: 'yesterday' })], 400)).error.code).toBe('invalid_payload');
    expect((await post('/s2s/events', makeEvent(siteId, { type: '1bad' }), 400, { token: apiKey, headers: { 'x-site-id': siteId } })).error.code).toBe('invalid_payload');
    // More than the site's whole burst in one request: refused, every event counted.
    expect((await post('/events', Array.from({ length: 450 }, () => makeEvent(siteId)), 429)).error.code).toBe('rate_limited');
    // Refused before the pipeline: answered (so timed) but no ingest outcome.
    await post('/events', makeEvent(siteId), 401, { token: null });
    await post('/events', JSON.stringify(makeEvent(siteId)), 415, { raw: true, headers: { 'content-type': 'text/html' } });
    await post('/events', 'x'.repeat(1024 * 1024 + 1), 413, { raw: true });

    const response = await server.request('GET', '/metrics');
    expect(response.status).toBe(200);
    const families = parseExposition(response.text);

    const outcomes = family(families, 'sightline_ingest_events_total', 'counter').samples;
    expect(outcomes.every((sample) => sample.name === 'sightline_ingest_events_total' && Object.keys(sample.labels).join() === 'outcome')).toBe(true);
    expect(Object.fromEntries(outcomes.map((sample) => [sample.labels.outcome, sample.value]))).toEqual({
      accepted: 11,
      duplicate: 6,
      dropped_consent: 2,
      rejected_invalid: 5,
      rejected_rate_limit: 450,
    });

    const latency = histogram(families, 'sightline_ingest_latency_ms');
    for (const le of ['0.25', '0.5', '1', '2', '5', '10', '25']) expect(latency.buckets.has(le), `le="${le}"`).toBe(true);
    expect(latency.count).toBe(answered);
    expect(latency.sum).toBeGreaterThan(0);

    // Six requests reached the writer, one commit each (each waited for its 202 before the next was sent):
    // 5 + 3 + 1 new, 5 repeats, 1 after in-request dedup, 1 with consent.
    const commits = histogram(families, 'sightline_ingest_commit_batch_events');
    expect(commits.sum).toBe(16);
    expect(commits.count).toBe(6);
    expect([commits.buckets.get('1'), commits.buckets.get('2'), commits.buckets.get('5')]).toEqual([3, 3, 6]);

    // Every answered request has committed: nothing waits.
    expect(gauge(families, 'sightline_ingest_queue_depth')).toBe(0);
    const size = gauge(families, 'sightline_database_size_bytes');
    expect(Number.isSafeInteger(size) && size > 0).toBe(true);
  });
});

describe('GET /metrics with METRICS_PUBLIC=true', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { METRICS_PUBLIC: 'true' } });
  });
  afterAll(() => server.close());

  it.each(['/metrics', '/v1/metrics'])('%s is open without a token', async (path) => {
    const response = await server.request('GET', path, { token: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const families = parseExposition(response.text);
    for (const name of ['sightline_ingest_queue_depth', 'sightline_database_size_bytes']) gauge(families, name);
  });
});
