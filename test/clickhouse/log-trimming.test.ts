// LOG_RETAIN_DAYS (docs/clickhouse.md, "Trimming the SQLite log"): with ClickHouse configured, events older than the
// retention that ClickHouse holds leave the SQLite log, and the answers stay what they were: a SQLite-only server
// given the same events answers every read below identically before and after the trim (reports, filtered reports,
// event lists, a funnel with its correlation and explanation, a user's timeline, GDPR exports). While ClickHouse is down trimming
// pauses (nothing leaves the log), and it resumes once ClickHouse answers again. Rounds are run by the test
// (app.logTrimming.trimNow), never by a timer; every wait is for a state, bounded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { dayOf } from '../../src/vocabulary/periods.ts';
import { startClickHouse, until, type ClickHouseTestServer } from './_server.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const now = '2026-03-20T12:00:00.000Z';
// LOG_RETAIN_DAYS 7 at 2026-03-20: days before 2026-03-13 may leave the log.
const site = 'trim-site';
let counter = 0;

function event(anonId: string, at: string, type: string, path: string, extra: Record<string, unknown> = {}) {
  counter++;
  return {
    id: `00000000-0000-4000-a000-${String(counter).padStart(12, '0')}`,
    site_id: site,
    anon_id: anonId,
    ts: at,
    type,
    url: `https://shop.example${path}`,
    context: { user_agent: anonId.endsWith('m') ? iphone : chrome },
    ...extra,
  };
}

/** Old days (to be trimmed) and a recent one (kept): two sources, a user on two devices, a funnel's steps. */
const traffic = [
  event('ann', '2026-03-02T09:00:00.000Z', 'pageview', '/', { referrer: 'https://www.google.com/search?q=x' }),
  event('ann', '2026-03-02T09:03:00.000Z', 'pageview', '/pricing'),
  event('ann', '2026-03-02T09:04:00.000Z', 'signup', '/pricing', { user_id: 'alice', props: { plan: 'pro' } }),
  event('annm', '2026-03-03T20:00:00.000Z', 'pageview', '/docs', { user_id: 'alice' }),
  event('ben', '2026-03-03T10:00:00.000Z', 'pageview', '/', { referrer: 'https://news.ycombinator.com/' }),
  event('ben', '2026-03-03T10:01:00.000Z', 'pageview', '/pricing'),
  event('cym', '2026-03-04T11:00:00.000Z', 'pageview', '/'),
  event('dee', '2026-03-04T12:00:00.000Z', 'pageview', '/', { internal: true }),
  event('ann', '2026-03-19T08:00:00.000Z', 'pageview', '/', { user_id: 'alice' }),
  event('ben', '2026-03-19T09:00:00.000Z', 'pageview', '/pricing', { referrer: 'https://www.google.com/' }),
  event('ben', '2026-03-19T09:02:00.000Z', 'signup', '/pricing'),
];

const range = 'from=2026-03-01&to=2026-03-20';
const reads: [string, string, unknown?][] = [
  ['summary', `/sites/${site}/reports/summary-v2?${range}`],
  ['pages', `/sites/${site}/reports/pages-v2?${range}`],
  ['sources', `/sites/${site}/reports/sources-v2?${range}`],
  ['grouped sources', `/sites/${site}/reports/sources-v2?${range}&grouped=true`],
  ['pages from google.com', `/sites/${site}/reports/pages-v2?${range}&source=google.com`],
  ['pages on mobile', `/sites/${site}/reports/pages-v2?${range}&device=mobile`],
  ['an old day', `/sites/${site}/reports/summary-v2?from=2026-03-02&to=2026-03-02`],
  ['event list', `/sites/${site}/events/list-v2?${range}`],
  ['event overview', `/sites/${site}/events/overview-v2?${range}`],
  ['timeline', `/sites/${site}/users/alice/timeline`],
];
const funnel = { site_id: site, from: '2026-03-01', to: '2026-03-20', steps: [{ type: 'pageview', path: '/' }, { type: 'pageview', path: '/pricing' }, { type: 'signup' }], window: { value: 1, unit: 'days' } };

/** What may differ between two servers: receive times, positions and execution ids. */
function comparable(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value) =>
    ['received_at', 'generated_at', 'execution', 'execution_id', 'watermark', 'projected_through', 'position', 'as_of', 'next_cursor', 'cursor'].includes(key) ? undefined : value,
  );
}

describe('trimming the SQLite log of what ClickHouse holds (LOG_RETAIN_DAYS)', () => {
  let clickhouseServer: ClickHouseTestServer;
  let plain: TestServer;
  let trimmed: TestServer;
  let plainWorkspace: string;
  let trimmedWorkspace: string;

  beforeAll(async () => {
    clickhouseServer = await startClickHouse();
    [plain, trimmed] = await Promise.all([
      startTestServer({ clock: manualClock(now) }),
      startTestServer({
        clock: manualClock(now),
        env: { CLICKHOUSE_URL: clickhouseServer.url, CLICKHOUSE_DATABASE: 'trimming', LOG_RETAIN_DAYS: '7' },
        clickhouseShipping: { intervalMs: 200, backoffMs: 50, maxBackoffMs: 400 },
      }),
    ]);
    const [plainSeeded, trimmedSeeded] = await Promise.all([seedWorkspace(plain, 'trim', { sites: [site] }), seedWorkspace(trimmed, 'trim', { sites: [site] })]);
    plainWorkspace = plainSeeded.id;
    trimmedWorkspace = trimmedSeeded.id;
  }, 120_000);
  afterAll(async () => {
    await Promise.all([plain?.close(), trimmed?.close()]);
    await clickhouseServer?.close();
  });

  async function post(events: Record<string, unknown>[]) {
    for (const server of [plain, trimmed]) {
      const response = await server.request('POST', '/s2s/events', { token: site, body: events });
      expect(response.status, response.text).toBe(202);
    }
  }

  const logSeqs = (server: TestServer) => server.db.prepare('SELECT seq FROM events ORDER BY seq').pluck().all() as number[];
  const newestSeq = (server: TestServer) => (server.db.prepare('SELECT coalesce(max(seq), 0) FROM events').pluck().get() as number) ?? 0;

  /** ClickHouse holds every stored event, and the loop knows it (what trimming goes by). */
  async function shipped() {
    await trimmed.projected();
    const loop = trimmed.app.clickhouseShipping!;
    // Asked again while it fails: a wait answers false at once until a batch goes through after the backoff.
    await until('the loop shipped the log', async () => ((await loop.waitForShipped(newestSeq(trimmed), 10_000)) ? true : undefined), 60_000);
    await until('the loop knows ClickHouse holds the log', async () => ((loop.heldPosition() ?? -1) >= newestSeq(trimmed) ? true : undefined));
  }

  /** Every read, the funnel and its panels, on both servers: the trimmed one must answer as the SQLite-only one. */
  async function expectSameAnswers(when: string) {
    for (const [name, path] of reads) {
      const [expected, actual] = await Promise.all([plain.request('GET', path), trimmed.request('GET', path)]);
      expect(expected.status, `${when}, ${name}: ${expected.text}`).toBe(200);
      expect(actual.status, `${when}, ${name}: ${actual.text}`).toBe(200);
      expect(comparable(actual.body), `${when}, ${name}`).toEqual(comparable(expected.body));
    }
    // GDPR exports: the subject's events the log lost come from ClickHouse.
    for (const subject of [{ user_id: 'alice' }, { anon_id: 'ben' }]) {
      const [expected, actual] = await Promise.all([plain, trimmed].map((server) => server.request('POST', `/sites/${site}/gdpr/export`, { body: subject })));
      expect(expected!.status, expected!.text).toBe(200);
      expect(actual!.status, actual!.text).toBe(200);
      expect(expected!.body.events.length, JSON.stringify(subject)).toBeGreaterThan(1);
      expect(comparable(actual!.body), `${when}, GDPR export of ${JSON.stringify(subject)}`).toEqual(comparable(expected!.body));
    }
    const [expectedRun, actualRun] = await Promise.all([plain, trimmed].map((server) => server.request('POST', '/workspaces/trim/analysis/funnels-v2', { body: funnel })));
    expect(expectedRun!.status, expectedRun!.text).toBe(200);
    expect(actualRun!.status, actualRun!.text).toBe(200);
    expect(comparable(actualRun!.body), `${when}, funnel`).toEqual(comparable(expectedRun!.body));
    // / → /pricing → signup: alice (two devices) converts, ben drops after /pricing, cym after /: both panels compare.
    expect(expectedRun!.body.data.steps.map((step: { count: number }) => step.count)).toEqual([3, 2, 1]);
    for (const panel of ['correlation', 'explanation']) {
      const [expected, actual] = await Promise.all(
        [
          [plain, expectedRun!],
          [trimmed, actualRun!],
        ].map(([server, run]) =>
          (server as TestServer).request('POST', `/workspaces/trim/analysis/funnels-v2/${panel}`, {
            body: { query: funnel, transition: { from_step: 1, to_step: 2 }, execution_id: (run as { body: { data: { execution_id: string } } }).body.data.execution_id },
          }),
        ),
      );
      expect(expected!.status, expected!.text).toBe(200);
      expect(actual!.status, actual!.text).toBe(200);
      expect(comparable(actual!.body), `${when}, ${panel}`).toEqual(comparable(expected!.body));
    }
  }

  it('removes the shipped events older than the retention, and every answer stays the SQLite-only one', async () => {
    await post(traffic);
    await plain.projected();
    await shipped();
    await expectSameAnswers('before the trim');
    const before = logSeqs(trimmed);
    expect(before).toHaveLength(traffic.length);

    const round = await trimmed.app.logTrimming!.trimNow();
    // The 8 events of March 2-4 left; the 3 of March 19 stay (within 7 days of March 20).
    expect(round).toEqual({ trimmed: 8, paused: false });
    expect(logSeqs(trimmed)).toEqual(before.slice(-3));
    expect(logSeqs(plain)).toHaveLength(traffic.length);
    // A second round finds nothing more to remove.
    expect(await trimmed.app.logTrimming!.trimNow()).toEqual({ trimmed: 0, paused: false });
    await expectSameAnswers('after the trim');
    const metrics = await trimmed.request('GET', '/metrics');
    expect(metrics.text).toMatch(/^sightline_log_trimmed_total 8$/m);
  }, 180_000);

  it('refuses what the embedded log would answer from trimmed days (a series cut at a moment, a goal filter), from the first kept day on answers it', async () => {
    const day = (iso: string) => dayOf(Date.parse(`${iso}T00:00:00.000Z`));
    const question = (fromDay: number) => ({ scope: { siteIds: [site], workspaceId: trimmedWorkspace }, range: { fromDay, toDay: day('2026-03-20') }, filters: {}, withInternal: false });
    // LOG_RETAIN_DAYS 7 at 2026-03-20: March 13 is the first day kept whole, but a visit crossing into it may have lost
    // its first event, so it is refused too; March 14 is the first day answered.
    const cutAt = (fromDay: number) => trimmed.app.readModel.series({ ...question(fromDay), interval: 'day', untilMs: Date.parse(now) });
    await expect(cutAt(day('2026-03-13'))).rejects.toMatchObject({ status: 400, code: 'range_too_large', message: expect.stringContaining('2026-03-14') });
    const answered = await cutAt(day('2026-03-14'));
    const expected = await plain.app.readModel.series({ ...question(day('2026-03-14')), scope: { siteIds: [site], workspaceId: plainWorkspace }, interval: 'day', untilMs: Date.parse(now) });
    expect(answered.total).toEqual(expected.total);
    const goal = { goal: { id: 'signup', rule: { kind: 'event' as const, eventType: 'signup' } } };
    await expect(trimmed.app.readModel.summary({ ...question(day('2026-03-01')), filters: goal, visitors: true })).rejects.toMatchObject({ code: 'range_too_large' });
    // The same questions without the cut at a moment or the goal are answered by ClickHouse over every day.
    const whole = await trimmed.app.readModel.series({ ...question(day('2026-03-01')), interval: 'day' });
    expect(whole.total.events).toBe(expected.total.events + 7);
  });

  it('pauses while ClickHouse is down (the old event stays in the log) and trims it once ClickHouse holds it', async () => {
    await clickhouseServer.kill();
    const late = event('eve', '2026-03-05T10:00:00.000Z', 'pageview', '/late');
    await post([late]);
    const lateSeq = newestSeq(trimmed);
    await trimmed.projected();
    const loop = trimmed.app.clickhouseShipping!;
    await until('the loop saw ClickHouse fail', async () => (loop.heldPosition() === undefined ? true : undefined));
    expect(await trimmed.app.logTrimming!.trimNow()).toEqual({ trimmed: 0, paused: true });
    expect(logSeqs(trimmed)).toContain(lateSeq);

    await clickhouseServer.restart();
    await shipped();
    expect(await trimmed.app.logTrimming!.trimNow()).toEqual({ trimmed: 1, paused: false });
    expect(logSeqs(trimmed)).not.toContain(lateSeq);
    await plain.projected();
    await expectSameAnswers('after ClickHouse came back');
  }, 240_000);
});
