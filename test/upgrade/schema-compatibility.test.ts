// A database made by the previous release, upgraded by this one. The previous release is the code just before the
// newest schema.sql section was added, taken from git (git archive of that commit, built with its own build script,
// run as a child process on the repository's node_modules): it creates a workspace and site and ingests visits, a
// custom event, a purchase with revenue and a user id, then answers its reports. This release then opens the same
// DATA_DIR: it backs the database up (the log names the files), upgrades it, finds every row of every table the
// previous release wrote unchanged, and answers every report the previous release answered with the same data.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { latestSchemaVersion, parseSchemaSections } from '../../src/db/schema.ts';
import { ensureBuilt, readDatabase, repositoryRoot } from '../cli/cli-helpers.ts';
import { browserEvent, cleanExit, createSite, ingest, type ShippedServer, shippedServers, utcDate } from '../e2e/_server.ts';

const siteId = 'compat-shop';
const day = utcDate(-1);
const at = (time: string) => `${day}T${time}Z`;

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: repositoryRoot, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
}

/**
 * The newest commit whose schema.sql stops one section short of the working tree's: the parent of the commit that
 * added the newest section, or the newest commit itself while that section is not committed yet. Undefined without
 * git history (a shallow or exported tree).
 */
function previousReleaseCommit(): string | undefined {
  let commits: string[];
  try {
    commits = git('log', '--format=%H', '--', 'schema.sql').trim().split('\n').filter(Boolean);
  } catch {
    return undefined;
  }
  let introducing: string | undefined;
  for (const commit of commits) {
    let sections: number;
    try {
      sections = parseSchemaSections(git('show', `${commit}:schema.sql`)).length;
    } catch {
      return undefined;
    }
    if (sections >= latestSchemaVersion) introducing = commit;
    else return introducing ? git('rev-parse', `${introducing}^`).trim() : sections === latestSchemaVersion - 1 ? commit : undefined;
  }
  return undefined;
}

/**
 * Every table of both files with its columns and rows (ordered by every column), as an operator's sqlite3 reads them.
 * table_xinfo, not table_info: it lists generated columns too, so a column that became virtual (events.raw, type and
 * received_at in version 30) must still read the same values after the upgrade.
 */
function tableContents(dataDir: string): Map<string, { columns: string[]; rows: unknown[] }> {
  return readDatabase(join(dataDir, 'sightline.db'), (db) => {
    const contents = new Map<string, { columns: string[]; rows: unknown[] }>();
    for (const schema of ['main', 'eventlog']) {
      const tables = db.prepare(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).pluck().all() as string[];
      for (const table of tables) {
        const columns = (db.pragma(`${schema}.table_xinfo("${table}")`) as { name: string }[]).map((column) => column.name);
        const list = columns.map((column) => `"${column}"`).join(', ');
        contents.set(`${schema}.${table}`, { columns, rows: db.prepare(`SELECT ${list} FROM ${schema}."${table}" ORDER BY ${list}`).all() });
      }
    }
    return contents;
  });
}

/** Columns a running server rewrites by itself whatever the release: when the projector last ran. */
const bookkeeping: Record<string, string[]> = { 'main.projector_state': ['updated_at'] };
/** Tables a starting server adds rows to by itself: the day's and the next day's cookieless salts (docs/tracker.md). */
const madeAtStart = new Set(['main.visitor_salts']);

/** The reads compared across the upgrade: V2 and legacy reports, the event list, a user's timeline, a funnel, attribution. */
const reads: { name: string; method: 'GET' | 'POST'; path: string; body?: unknown }[] = [
  ...['summary-v2', 'pages-v2', 'sources-v2', 'campaigns-v2'].map((report) => ({ name: report, method: 'GET' as const, path: `/v1/sites/${siteId}/reports/${report}?from=${day}&to=${day}` })),
  ...['pageviews', 'events', 'sessions'].map((report) => ({ name: `legacy ${report}`, method: 'GET' as const, path: `/sites/${siteId}/${report}?from=${day}&to=${day}` })),
  { name: 'list-v2', method: 'GET', path: `/v1/sites/${siteId}/events/list-v2?from=${day}&to=${day}&limit=100` },
  { name: 'overview-v2', method: 'GET', path: `/v1/sites/${siteId}/events/overview-v2?from=${day}&to=${day}` },
  { name: 'timeline', method: 'GET', path: `/v1/sites/${siteId}/users/u-alice/timeline` },
  {
    name: 'funnel',
    method: 'POST',
    path: `/v1/workspaces/ws-${siteId}/analysis/funnels-v2`,
    body: { site_id: siteId, from: day, to: day, steps: [{ type: 'pageview' }, { type: 'signup' }, { type: 'purchase' }], window: { value: 1, unit: 'days' } },
  },
  { name: 'attribution', method: 'GET', path: `/v1/workspaces/ws-${siteId}/attribution/results?model=last_touch&from=${day}&to=${day}` },
];

/** What must not change: the data of an answer, without what describes the read itself (freshness, execution ids). */
function comparable(body: any): unknown {
  if (body && typeof body === 'object' && 'data' in body) {
    const { execution_id: _executionId, ...data } = body.data ?? {};
    return Array.isArray(body.data) ? body.data : data;
  }
  if (body && typeof body === 'object') {
    const { meta: _meta, ...rest } = body;
    return rest;
  }
  return body;
}

async function readAll(server: ShippedServer): Promise<Map<string, { status: number; body: unknown }>> {
  const answers = new Map<string, { status: number; body: unknown }>();
  for (const read of reads) {
    const answer = await server.request(read.method, read.path, read.body === undefined ? {} : { body: read.body });
    answers.set(read.name, { status: answer.status, body: answer.status === 200 ? comparable(answer.body) : answer.body });
  }
  return answers;
}

const previous = previousReleaseCommit();
let release: string;
const servers = shippedServers();
const previousServers = () => shippedServers({ script: join(release, 'bin', 'sightline'), cwd: release });
let oldServers: ReturnType<typeof shippedServers> | undefined;

vi.setConfig({ testTimeout: 120_000 });
beforeAll(async () => {
  await ensureBuilt();
  if (!previous) return;
  // The previous release's tree, on this checkout's node_modules, built by its own build script.
  release = mkdtempSync(join(tmpdir(), 'sightline-previous-release-'));
  execFileSync('sh', ['-c', `git archive ${previous} | tar -x -C "${release}"`], { cwd: repositoryRoot });
  symlinkSync(join(repositoryRoot, 'node_modules'), join(release, 'node_modules'));
  execFileSync(process.execPath, [join(release, 'build', 'build.mjs')], { cwd: release });
  oldServers = previousServers();
}, 300_000);
afterEach(async () => {
  await oldServers?.disposeAll();
  await servers.disposeAll();
});
afterAll(() => {
  if (release) rmSync(release, { recursive: true, force: true });
});

describe('a database of the previous schema version, upgraded', () => {
  it.skipIf(!previous)(`made by the previous release (schema ${latestSchemaVersion - 1}, from git), keeps every row and every report`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sightline-compat-'));
    try {
      const old = await oldServers!.start({ DATA_DIR: dataDir });
      await createSite(old, siteId);
      await ingest(old, '/v1/events', siteId, [
        browserEvent(siteId, { anon_id: 'alice', ts: at('12:00:00'), url: 'https://shop.example/?utm_source=newsletter&utm_medium=email&utm_campaign=autumn' }),
        browserEvent(siteId, { anon_id: 'alice', ts: at('12:04:00'), url: 'https://shop.example/pricing' }),
        browserEvent(siteId, { anon_id: 'alice', ts: at('12:05:00'), type: 'signup', url: 'https://shop.example/pricing', props: { plan: 'pro' } }),
        browserEvent(siteId, { anon_id: 'bob', ts: at('13:00:00'), url: 'https://shop.example/', referrer: 'https://www.google.com/search' }),
      ]);
      await ingest(old, '/v1/s2s/events', siteId, [
        { ...browserEvent(siteId, { anon_id: 'alice', ts: at('12:10:00'), type: 'purchase', user_id: 'u-alice', revenue: { amount: '45.00', currency: 'EUR' } }), url: undefined },
      ]);
      const before = await readAll(old);
      // The previous release answered these reads: the comparison is not empty.
      expect(before.get('summary-v2')).toMatchObject({ status: 200, body: { visitors: 2, pageviews: 3, events: 5 } });
      expect(await old.stop(), old.output()).toEqual(cleanExit);
      const rowsBefore = tableContents(dataDir);
      expect(readDatabase(join(dataDir, 'sightline.db'), (db) => db.pragma('user_version', { simple: true }))).toBe(latestSchemaVersion - 1);

      const current = await servers.start({ DATA_DIR: dataDir });
      // The backup came first, its files named in the log.
      const backups = readdirSync(join(dataDir, 'backups')).sort();
      expect(backups).toHaveLength(2);
      for (const file of backups) expect(current.output()).toContain(join(dataDir, 'backups', file));
      const after = await readAll(current);
      expect(await current.stop(), current.output()).toEqual(cleanExit);

      const compared: string[] = [];
      for (const read of reads) {
        const old = before.get(read.name)!;
        // A read the previous release did not have yet (no such route) has nothing to compare.
        if (old.status === 404 && JSON.stringify(old.body).includes('No such route')) continue;
        expect(after.get(read.name), read.name).toEqual(old);
        compared.push(read.name);
      }
      console.log(`previous release ${previous!.slice(0, 7)} (schema ${latestSchemaVersion - 1}) → schema ${latestSchemaVersion}: ${compared.length} reads unchanged (${compared.join(', ')}), ${rowsBefore.size} tables`);
      const rowsAfter = tableContents(dataDir);
      expect(readDatabase(join(dataDir, 'sightline.db'), (db) => db.pragma('user_version', { simple: true }))).toBe(latestSchemaVersion);
      for (const [table, { columns, rows }] of rowsBefore) {
        const upgraded = rowsAfter.get(table);
        expect(upgraded, `${table} is gone after the upgrade`).toBeDefined();
        // The columns the previous release wrote, row by row; new columns may be added beside them.
        const compared = columns.filter((column) => !bookkeeping[table]?.includes(column));
        const pick = (row: unknown) => Object.fromEntries(compared.map((column) => [column, (row as Record<string, unknown>)[column]]));
        if (madeAtStart.has(table)) expect(upgraded!.rows.map(pick), table).toEqual(expect.arrayContaining(rows.map(pick)));
        else expect(upgraded!.rows.map(pick), table).toEqual(rows.map(pick));
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
