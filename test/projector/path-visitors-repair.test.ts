// The repair of schema 19 (src/projector/repair-path-visitors.ts) only takes out of the path and page visitor sets the
// members no pageview supports: run over sets this release projected (already right), on a site whose oldest days the
// retention purge emptied and one it did not, it changes no report, finds nothing to take out and finishes. That is
// what makes a repair cut short by a crash safe to run again at the next start. (The repair of a previous release's
// sets is test/projector/path-visitors-upgrade.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.ts';
import { databasePath } from '../../src/server.ts';
import { makeTempDir, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { send } from '../events/_helpers.ts';

const clock = manualClock('2026-03-20T12:00:00.000Z');
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const dataDir = makeTempDir();
let server: TestServer;

function event(siteId: string, anon: string, at: string, type: string, page: string): Record<string, unknown> {
  return { id: crypto.randomUUID(), site_id: siteId, anon_id: anon, ts: `${at}Z`, type, url: `https://s.example${page}`, context: { user_agent: chrome } };
}

function visitsOf(siteId: string): Record<string, unknown>[] {
  return ['2026-03-02', '2026-03-15'].flatMap((day) => [
    event(siteId, 'viewer', `${day}T10:00:00`, 'pageview', '/signup?ref=nav'),
    event(siteId, 'viewer', `${day}T10:01:00`, 'signup', '/signup'),
    event(siteId, 'elsewhere', `${day}T11:00:00`, 'pageview', '/'),
    event(siteId, 'elsewhere', `${day}T11:02:00`, 'signup', '/signup'),
  ]);
}

const reads = ['rp-a', 'rp-b'].flatMap((siteId) =>
  ['from=2026-03-01&to=2026-03-20', 'from=2026-03-02&to=2026-03-02', 'from=2026-03-15&to=2026-03-15'].flatMap((range) => [
    `/v1/sites/${siteId}/reports/pages-v2?${range}`,
    `/v1/sites/${siteId}/reports/pages-v2?${range}&include_params=true`,
    `/v1/sites/${siteId}/reports/summary-v2?${range}&path=/signup`,
  ]),
);

async function readAll(): Promise<unknown[]> {
  const answers: unknown[] = [];
  for (const path of reads) {
    const answer = await server.request('GET', path);
    expect(answer.status, answer.text).toBe(200);
    answers.push(answer.body.data);
  }
  return answers;
}

beforeAll(async () => {
  server = await startTestServer({ clock, dataDir, retentionPurge: { firstAfterMs: 3_600_000 } });
  await seedWorkspace(server, 'rp', { sites: ['rp-a', 'rp-b'] });
  await send(server, 'rp-a', visitsOf('rp-a'));
  await send(server, 'rp-b', visitsOf('rp-b'));
  await server.projected();
  expect((await server.request('PATCH', '/workspaces/rp/sites/rp-a', { body: { retention_days: 10 } })).status).toBe(200);
  expect(await server.app.retention.runNow()).toMatchObject([{ site_id: 'rp-a', kept_from: '2026-03-10' }]);
});
afterAll(() => server.close());

describe('the schema 19 repair over sets that are already right', () => {
  it('changes nothing, on a purged site and another, and finishes', async () => {
    const before = await readAll();
    // The pages count the visitors who viewed them, purged days included.
    expect(before[0]).toEqual({
      rows: [
        { path: '/', visitors: 1, pageviews: 2, entries: 2, exits: 2 },
        { path: '/signup', visitors: 1, pageviews: 2, entries: 2, exits: 2 },
      ],
    });
    await server.close();
    const db = openDatabase(databasePath(dataDir));
    db.prepare("INSERT INTO projector_repairs (name) VALUES ('path_visitors')").run();
    db.close();

    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      written.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof process.stderr.write;
    try {
      server = await startTestServer({ clock, dataDir });
    } finally {
      process.stderr.write = write;
    }
    expect(written.join('')).toContain('Schema 19: done, 0 visitor(s) taken out of path and page day sets');
    expect(server.db.prepare('SELECT count(*) AS n FROM projector_repairs').get()).toEqual({ n: 0 });
    expect(await readAll()).toEqual(before);
  });
});
