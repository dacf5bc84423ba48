// The upgrade to schema 19 repairs what the previous release projected (CONTRACT section 10: a page's visitors are
// the people with a pageview of it). The release of schema 18, taken from git and built by its own script as
// test/upgrade/ does, ingests visitors whose signup fires on /signup with and without a view of it, and counts them
// all as visitors of /signup (issue 24, defect 7). This release then starts on the same DATA_DIR: before its projector
// runs it takes those visitors out of the path and page sets, so every page report equals what a fresh database fed
// the same events answers, and events after the upgrade are counted by the same rule.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { latestSchemaVersion, parseSchemaSections } from '../../src/db/schema.ts';
import { ensureBuilt, readDatabase, repositoryRoot } from '../cli/cli-helpers.ts';
import { browserEvent, createSite, ingest, type ShippedServer, shippedServers, utcDate } from '../e2e/_server.ts';

const siteId = 'paths-shop';
const day = utcDate(-1);
const at = (time: string) => `${day}T${time}Z`;
const range = `from=${day}&to=${day}`;

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: repositoryRoot, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
}

/**
 * The commit that added schema 18 (the newest commit changing schema.sql that stops at 18 sections): code from before
 * the repair and before the projector's fix, which the test checks it still shows. Undefined without git history.
 */
function releaseOfSchema18(): string | undefined {
  try {
    for (const commit of git('log', '--format=%H', '--', 'schema.sql').trim().split('\n').filter(Boolean)) {
      if (parseSchemaSections(git('show', `${commit}:schema.sql`)).length === 18) return commit;
    }
  } catch {
    // no git history (a shallow or exported tree)
  }
  return undefined;
}

const page = (path: string, fields: Record<string, unknown>) => browserEvent(siteId, { url: `https://shop.example${path}`, ...fields });
const before = [
  // viewer: views the form, then signs up on it.
  page('/signup?ref=nav', { anon_id: 'viewer', ts: at('10:00:00') }),
  page('/signup', { anon_id: 'viewer', ts: at('10:01:00'), type: 'signup' }),
  // elsewhere: views the home page; its signup fires on /signup (a modal) without a view of it.
  page('/', { anon_id: 'elsewhere', ts: at('11:00:00') }),
  page('/signup', { anon_id: 'elsewhere', ts: at('11:02:00'), type: 'signup' }),
  // silent: a custom event only, internal traffic too.
  page('/signup', { anon_id: 'silent', ts: at('12:00:00'), type: 'signup' }),
  page('/signup', { anon_id: 'silent', ts: at('13:00:00'), type: 'signup', internal: true }),
];
// After the upgrade: a late custom event on a page the visitor never viewed, and a view by someone new.
const after = [page('/pricing', { anon_id: 'viewer', ts: at('10:02:00'), type: 'click' }), page('/signup', { anon_id: 'late', ts: at('14:00:00') })];

const reads = [
  `/v1/sites/${siteId}/reports/pages-v2?${range}`,
  `/v1/sites/${siteId}/reports/pages-v2?${range}&include_params=true`,
  `/v1/sites/${siteId}/reports/pages-v2?${range}&internal=include`,
  `/v1/sites/${siteId}/reports/summary-v2?${range}&path=/signup`,
  `/v1/sites/${siteId}/reports/summary-v2?${range}&path=/signup&internal=include`,
  `/v1/sites/${siteId}/reports/summary-v2?${range}`,
];

async function readAll(server: ShippedServer): Promise<unknown[]> {
  const answers: unknown[] = [];
  for (const path of reads) {
    const answer = await server.request('GET', path);
    expect(answer.status, answer.text).toBe(200);
    answers.push(answer.body.data);
  }
  return answers;
}

const previous = releaseOfSchema18();
let release: string;
const servers = shippedServers();
let oldServers: ReturnType<typeof shippedServers> | undefined;

vi.setConfig({ testTimeout: 120_000 });
beforeAll(async () => {
  await ensureBuilt();
  if (!previous) return;
  release = mkdtempSync(join(tmpdir(), 'sightline-before-19-'));
  execFileSync('sh', ['-c', `git archive ${previous} | tar -x -C "${release}"`], { cwd: repositoryRoot });
  symlinkSync(join(repositoryRoot, 'node_modules'), join(release, 'node_modules'));
  execFileSync(process.execPath, [join(release, 'build', 'build.mjs')], { cwd: release });
  oldServers = shippedServers({ script: join(release, 'bin', 'sightline'), cwd: release });
}, 300_000);
afterEach(async () => {
  await oldServers?.disposeAll();
  await servers.disposeAll();
});
afterAll(() => {
  if (release) rmSync(release, { recursive: true, force: true });
});

describe('the upgrade to schema 19', () => {
  it.skipIf(!previous)('takes the visitors of custom events out of the pages a previous release projected', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sightline-paths-'));
    try {
      const old = await oldServers!.start({ DATA_DIR: dataDir });
      await createSite(old, siteId);
      await ingest(old, '/v1/s2s/events', siteId, before);
      const wrong = await old.request('GET', `/v1/sites/${siteId}/reports/pages-v2?${range}`);
      // The defect, as the previous release shows it: three visitors of /signup, one view.
      expect(wrong.body.data.rows.find((row: { path: string }) => row.path === '/signup')).toMatchObject({ visitors: 3, pageviews: 1 });
      await old.stop();
      expect(readDatabase(join(dataDir, 'sightline.db'), (db) => db.pragma('user_version', { simple: true }))).toBe(18);

      const upgraded = await servers.start({ DATA_DIR: dataDir });
      // /signup loses elsewhere and silent (and silent's internal visit); the page /signup (no ref) loses viewer too,
      // whose view was of /signup?ref=nav: 3 + 4.
      expect(upgraded.output()).toContain('Schema 19: done, 7 visitor(s) taken out of path and page day sets');
      const pages = await upgraded.request('GET', `/v1/sites/${siteId}/reports/pages-v2?${range}`);
      expect(pages.body.data.rows).toEqual([
        { path: '/', visitors: 1, pageviews: 1, entries: 1, exits: 1 },
        { path: '/signup', visitors: 1, pageviews: 1, entries: 2, exits: 1 },
      ]);
      const fresh = await servers.start();
      await createSite(fresh, siteId);
      await ingest(fresh, '/v1/s2s/events', siteId, before);
      expect(await readAll(upgraded)).toEqual(await readAll(fresh));

      // Events after the upgrade follow the same rule, on both.
      await ingest(upgraded, '/v1/s2s/events', siteId, after);
      await ingest(fresh, '/v1/s2s/events', siteId, after);
      expect(await readAll(upgraded)).toEqual(await readAll(fresh));
      expect(readDatabase(join(dataDir, 'sightline.db'), (db) => db.prepare('SELECT count(*) AS n FROM projector_repairs').get())).toEqual({ n: 0 });

      // The repair ran once: a restart finds nothing to do and answers the same.
      const answers = await readAll(upgraded);
      await upgraded.restart();
      expect(upgraded.output()).not.toContain('Schema 19');
      expect(await readAll(upgraded)).toEqual(answers);
      expect(latestSchemaVersion).toBeGreaterThanOrEqual(19);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
