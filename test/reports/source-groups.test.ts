// Grouped sources (docs/reports.md, "Grouped sources"; issue 29): sources-v2?grouped=true gives one row per group of
// Matomo's referrer list (google.com, google.de, google.co.uk, a gclid and utm_source=Google are "Google"; t.co,
// twitter.com and x.com are "Twitter") with EXACT visitors, the union of its members' visitor sets; source=<group>
// filters every report on exactly the group's stored sources; the raw sources stay the default and stay filterable.
// Checked against a naive recomputation from the raw events table, grouping with its own plain reading of the list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { chrome, iphone, poll, send } from '../events/_helpers.ts';
import { type NaiveFilters, type NaiveQuery, naivePages, naiveSources, naiveSummary } from './naive-reports.ts';
import list from '../../src/vocabulary/source-groups.json' with { type: 'json' };
import { sourceGroupOf } from '../../src/read-model/source-groups.ts';

const clock = manualClock('2026-03-12T12:00:00.000Z');
const siteId = 'groups';
let server: TestServer;

/** The list read plainly: a listed host, a name in lower case, or a pattern whose {} labels are country codes. */
function naiveGroup(source: string): string | null {
  const hosts = list.hosts as Record<string, string>;
  if (hosts[source] !== undefined) return hosts[source]!;
  const byName = [...list.names].find((name) => name.toLowerCase() === source);
  if (byName) return byName;
  const labels = source.split('.');
  for (const [pattern, name] of list.patterns as [string, string][]) {
    const wanted = pattern.split('.');
    const last = wanted.length - 1;
    const fits = (got: string[]) => got.length === wanted.length && wanted.every((label, index) => (label === '{}' ? /^[a-z]{2,3}$/.test(got[index]!) : label === got[index]));
    // A {} top-level domain may be a combined one: co.uk, com.au.
    const combined = wanted[last] === '{}' && labels.length === wanted.length + 1 && ['com', 'org', 'net', 'co', 'it', 'edu'].includes(labels[last]!) ? [...labels.slice(0, last), labels[last + 1]!] : null;
    if (fits(labels) || (combined && fits(combined))) return name;
  }
  return null;
}
const naiveKey = (source: string) => naiveGroup(source) ?? source;

/** Where a visit comes from: a referrer, or a landing URL's query (a click id, a campaign). */
const origins: { referrer?: string; query?: string }[] = [
  { referrer: 'https://www.google.com/search?q=a' },
  { referrer: 'https://www.google.de/' },
  { referrer: 'https://google.co.uk/' },
  { query: '?gclid=abc' },
  { query: '?utm_source=Google&utm_medium=cpc' },
  { referrer: 'https://t.co/xyz' },
  { referrer: 'https://twitter.com/someone' },
  { referrer: 'https://x.com/post' },
  { referrer: 'https://www.bing.com/search' },
  { referrer: 'https://news.ycombinator.com/item' },
  { referrer: 'https://blog.example/post' },
  {},
];

/** A small deterministic generator (the same data on every run). */
function generator(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

function dataSet(): Record<string, unknown>[] {
  const random = generator(7);
  const events: Record<string, unknown>[] = [];
  for (let person = 0; person < 120; person++) {
    const agent = random() < 0.4 ? iphone : chrome;
    // Each person comes back on several days, often from another member of the same group: the group's visitors
    // are then fewer than its members' visitors added up.
    const visits = 1 + Math.floor(random() * 4);
    for (let visit = 0; visit < visits; visit++) {
      const origin = origins[Math.floor(random() * origins.length)]!;
      const start = Date.parse('2026-03-01T08:00:00Z') + Math.floor(random() * 10) * 86_400_000 + visit * 3_600_000 + Math.floor(random() * 600) * 1000;
      const views = 1 + Math.floor(random() * 3);
      for (let view = 0; view < views; view++) {
        const path = ['/', '/a', '/b'][Math.floor(random() * 3)]!;
        events.push({
          id: crypto.randomUUID(),
          site_id: siteId,
          anon_id: `p${person}`,
          ts: new Date(start + view * 60_000).toISOString(),
          type: 'pageview',
          url: `https://groups.example${path}${view === 0 ? (origin.query ?? '') : ''}`,
          ...(view === 0 && origin.referrer ? { referrer: origin.referrer } : {}),
          context: { user_agent: agent },
        });
      }
    }
  }
  return events;
}

beforeAll(async () => {
  server = await startTestServer({ clock });
  await seedWorkspace(server, 'groups', { sites: [siteId] });
  await send(server, siteId, dataSet());
  await projected('2026-03-01', '2026-03-10');
}, 180_000);
afterAll(() => server?.close());

/**
 * Every stored event counted before anything is compared: a report's wait for the projector is bounded, and on a
 * loaded machine it can run out, answering as of an earlier position than the naive side reads.
 */
async function projected(from: string, to: string): Promise<void> {
  await poll(async () => {
    const { freshness } = (await server.request('GET', `/v1/sites/${siteId}/reports/summary-v2?from=${from}&to=${to}`)).body.meta;
    return freshness.watermark !== null && freshness.watermark === freshness.projected_through ? true : undefined;
  }, 120_000);
}

async function get(path: string): Promise<any> {
  const response = await server.request('GET', path);
  expect(response.status, `${path}: ${response.text}`).toBe(200);
  return response.body;
}

function queryString(from: string, to: string, filters: NaiveFilters, extra: Record<string, string> = {}): string {
  const parts: Record<string, string> = { from, to, ...extra };
  for (const [name, values] of Object.entries(filters)) parts[name] = (values as string[]).join(',');
  return new URLSearchParams(parts).toString();
}

/** The stored sources of the site (the naive side's own read of the events table). */
function storedSources(): string[] {
  return (server.db.prepare('SELECT DISTINCT source FROM events WHERE site_id = ?').all(siteId) as { source: string }[]).map((row) => row.source);
}

describe('the referrer list groups stored sources', () => {
  it.each([
    ['google.com', 'Google'],
    ['google.de', 'Google'],
    ['google.co.uk', 'Google'],
    ['google', 'Google'],
    ['t.co', 'Twitter'],
    ['twitter.com', 'Twitter'],
    ['x.com', 'Twitter'],
    ['bing.com', 'Bing'],
    ['news.ycombinator.com', 'Hacker News'],
    ['facebook', 'Facebook'],
    ['blog.example', null],
    ['googleexample.com', null],
    ['direct', null],
  ])('%s is in %s', (source, group) => {
    expect(sourceGroupOf(source)).toBe(group);
    expect(naiveGroup(source)).toBe(group);
  });

  it('the data set stores every member kind (hosts without www., the gclid and the lowered utm_source)', () => {
    expect(storedSources().sort()).toEqual(['bing.com', 'blog.example', 'direct', 'google', 'google.co.uk', 'google.com', 'google.de', 'news.ycombinator.com', 't.co', 'twitter.com', 'x.com']);
  });
});

const ranges: [string, string][] = [
  ['2026-03-01', '2026-03-10'],
  ['2026-03-04', '2026-03-04'],
  ['2026-03-02', '2026-03-06'],
];
const filterChoices: NaiveFilters[] = [{}, { device: ['mobile'] }, { path: ['/a'] }];

describe('sources-v2?grouped=true equals a naive recomputation', () => {
  const cases = ranges.flatMap(([from, to]) => filterChoices.map((filters) => [from, to, filters] as const));
  it.each(cases)('%s – %s %j', async (from, to, filters) => {
    const query: NaiveQuery = { siteIds: [siteId], from, to, filters };
    const grouped = await get(`/v1/sites/${siteId}/reports/sources-v2?${queryString(from, to, filters, { grouped: 'true', limit: '200' })}`);
    expect(grouped.data.rows).toEqual(naiveSources(server.db, query, naiveKey));
    // The default stays one row per stored source.
    const raw = await get(`/v1/sites/${siteId}/reports/sources-v2?${queryString(from, to, filters, { limit: '200' })}`);
    expect(raw.data.rows).toEqual(naiveSources(server.db, query));
  });

  it('counts a group\'s visitors once: the union of its members\' visitors, fewer than their sum here', async () => {
    const range = queryString('2026-03-01', '2026-03-10', {}, { limit: '200' });
    const grouped = (await get(`/v1/sites/${siteId}/reports/sources-v2?${range}&grouped=true`)).data.rows;
    const raw = (await get(`/v1/sites/${siteId}/reports/sources-v2?${range}`)).data.rows;
    for (const name of ['Google', 'Twitter']) {
      const members = raw.filter((row: any) => naiveGroup(row.source) === name);
      const row = grouped.find((candidate: any) => candidate.source === name);
      expect(row.visits).toBe(members.reduce((sum: number, member: any) => sum + member.visits, 0));
      expect(row.visitors).toBeLessThan(members.reduce((sum: number, member: any) => sum + member.visitors, 0));
    }
  });
});

describe('source=<group> filters on exactly its stored sources', () => {
  const cases = ranges.flatMap(([from, to]) => ['Google', 'Twitter'].flatMap((group) => [{}, { device: ['mobile'] }].map((filters) => [from, to, group, filters] as const)));
  it.each(cases)('%s – %s source=%s %j', async (from, to, group, filters) => {
    const members = storedSources().filter((source) => naiveGroup(source) === group);
    expect(members.length).toBeGreaterThan(1);
    const naive: NaiveQuery = { siteIds: [siteId], from, to, filters: { ...filters, source: members } };
    const asked = queryString(from, to, filters, { source: group });
    const summary = await get(`/v1/sites/${siteId}/reports/summary-v2?${asked}`);
    expect(summary.data).toEqual(naiveSummary(server.db, naive));
    expect(summary.meta.filters.source).toBe(group);
    expect((await get(`/v1/sites/${siteId}/reports/pages-v2?${asked}&limit=200`)).data.rows).toEqual(naivePages(server.db, naive));
    // Filtered by its group, the raw sources are the group's members: the drill-down into a group.
    expect((await get(`/v1/sites/${siteId}/reports/sources-v2?${asked}&limit=200`)).data.rows).toEqual(naiveSources(server.db, naive));
    expect((await get(`/v1/sites/${siteId}/reports/sources-v2?${asked}&limit=200&grouped=true`)).data.rows).toEqual(naiveSources(server.db, naive, naiveKey));
  });

  it('a raw source stays a filter of that source only (google is not google.com)', async () => {
    const naive: NaiveQuery = { siteIds: [siteId], from: '2026-03-01', to: '2026-03-10', filters: { source: ['google'] } };
    const summary = await get(`/v1/sites/${siteId}/reports/summary-v2?${queryString('2026-03-01', '2026-03-10', {}, { source: 'google' })}`);
    expect(summary.data).toEqual(naiveSummary(server.db, naive));
    const whole = await get(`/v1/sites/${siteId}/reports/summary-v2?${queryString('2026-03-01', '2026-03-10', {}, { source: 'Google' })}`);
    expect(whole.data.visits).toBeGreaterThan(summary.data.visits);
  });

  it('a group with no stored member selects nothing', async () => {
    const summary = await get(`/v1/sites/${siteId}/reports/summary-v2?${queryString('2026-03-01', '2026-03-10', {}, { source: 'Facebook' })}`);
    expect(summary.data).toMatchObject({ visitors: 0, visits: 0, pageviews: 0 });
  });

  it('grouped takes true or false only', async () => {
    const response = await server.request('GET', `/v1/sites/${siteId}/reports/sources-v2?from=2026-03-01&to=2026-03-10&grouped=yes`);
    expect(response.status).toBe(400);
    expect(response.body.error.code ?? response.body.error).toMatch(/invalid_param/);
  });
});
