// `sightline import` and `sightline export` of the real, bundled CLI: an import stored and projected (the reports
// of a server started on the directory count it), a bad file refused with its line numbers and exit 1, re-import a
// no-op, and the export written to a file equal to the API's.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureBuilt, parseJsonOutput, readDatabase, runCli } from '../cli/cli-helpers.ts';
import { startTestServer } from '../_setup.ts';
import { strToU8, zipSync } from 'fflate';
import { gzip, umamiCsv, umamiEventDataCsv, type UmamiRow } from './_fixtures.ts';

const scratch = mkdtempSync(join(tmpdir(), 'sightline-cli-import-'));
const dataDir = join(scratch, 'data');
const cli = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });

const rows: UmamiRow[] = [
  { session: 's-1', event: 'e3000000-0000-4000-8000-000000000001', path: '/', at: '2026-03-02 10:00:00' },
  { session: 's-1', event: 'e3000000-0000-4000-8000-000000000002', path: '/pricing', at: '2026-03-02 10:01:00' },
  { session: 's-2', event: 'e3000000-0000-4000-8000-000000000003', path: '/', at: '2026-03-03 10:00:00', country: 'DE' },
];

vi.setConfig({ testTimeout: 120_000 });
beforeAll(async () => {
  await ensureBuilt();
  expect((await cli('workspace', 'create', '--name', 'Acme', '--slug', 'acme')).code).toBe(0);
  expect((await cli('site', 'create', '--workspace', 'acme', '--id', 'cli-site', '--name', 'Shop')).code).toBe(0);
}, 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('sightline import and export', () => {
  it('imports a gzip file, projects it, and audits it as the system', async () => {
    const file = join(scratch, 'website_event.csv.gz');
    writeFileSync(file, gzip(umamiCsv(rows)));
    const result = await cli('import', 'umami-csv', '--site', 'cli-site', file, '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(parseJsonOutput(result)).toMatchObject({ status: 'done', rows_read: 3, events_imported: 3, duplicates: 0, days_imported: 2, errors: [] });
    const audit = readDatabase(join(dataDir, 'sightline.db'), (db) => db.prepare("SELECT actor_kind, action FROM audit_log WHERE action LIKE 'import.%'").all());
    expect(audit).toEqual([{ actor_kind: 'system', action: 'import.create' }]);
    // Projected by the command itself: no server needs to start for the reports to count it.
    const projected = readDatabase(join(dataDir, 'sightline.db'), (db) => db.prepare('SELECT (SELECT position FROM projector_state) >= (SELECT max(seq) FROM events)').pluck().get());
    expect(projected).toBe(1);
    const again = await cli('import', 'umami-csv', '--site', 'cli-site', file, '--json');
    expect(parseJsonOutput(again)).toMatchObject({ status: 'done', events_imported: 0, duplicates: 3 });
  });

  it("imports a zip of website_event and event_data: each event with its properties", async () => {
    const event = 'e3200000-0000-4000-8000-000000000001';
    const file = join(scratch, 'umami.zip');
    const data = umamiEventDataCsv([{ event, key: 'plan', type: '1', string: 'pro' }, { event, key: 'seats', type: '2', number: '3.0000' }]);
    writeFileSync(file, zipSync({ 'website_event.csv': strToU8(umamiCsv([{ session: 's-9', event, path: '/', at: '2026-03-04 10:00:00' }])), 'event_data.csv': strToU8(data) }));
    const result = await cli('import', 'umami-csv', '--site', 'cli-site', file, '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(parseJsonOutput(result)).toMatchObject({ status: 'done', rows_read: 3, events_imported: 1, errors: [] });
    const props = readDatabase(join(dataDir, 'sightline.db'), (db) => db.prepare("SELECT json_extract(raw, '$.props') FROM events WHERE anon_id = 's-9'").pluck().get());
    expect(JSON.parse(props as string)).toEqual({ plan: 'pro', seats: 3 });
  });

  it('refuses a bad file with its line numbers, exit 1, nothing stored', async () => {
    const file = join(scratch, 'bad.csv');
    writeFileSync(file, umamiCsv([{ ...rows[0]!, event: 'e3100000-0000-4000-8000-000000000001' }, { ...rows[1]!, event: 'e3100000-0000-4000-8000-000000000002', at: 'never' }]));
    const result = await cli('import', 'umami-csv', '--site', 'cli-site', file);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Import failed: nothing was imported');
    expect(result.stderr).toContain('line 3: created_at must be a date and time, not "never"');
    const count = readDatabase(join(dataDir, 'sightline.db'), (db) => db.prepare("SELECT count(*) FROM events WHERE site_id = 'cli-site'").pluck().get());
    expect(count).toBe(4);
    expect((await cli('import', 'matomo', '--site', 'cli-site', file)).code).toBe(1);
    expect((await cli('import', 'umami-csv', '--site', 'nope', file)).code).toBe(1);
  });

  it('the reports count the import; the export file equals the API export', async () => {
    const output = join(scratch, 'export.ndjson');
    const exported = await cli('export', '--site', 'cli-site', '--from', '2026-03-01', '--to', '2026-03-31', '--output', output);
    expect(exported.code, exported.stderr).toBe(0);
    const server = await startTestServer({ dataDir });
    try {
      const summary = await server.request('GET', '/v1/sites/cli-site/reports/summary-v2?from=2026-03-02&to=2026-03-03');
      expect(summary.body.data).toMatchObject({ visitors: 2, visits: 2, pageviews: 3 });
      expect((await server.request('GET', '/v1/sites/cli-site/reports/summary-v2?from=2026-03-02&to=2026-03-04')).body.data).toMatchObject({ visitors: 3, pageviews: 4 });
      const api = await server.request('GET', '/v1/sites/cli-site/export?from=2026-03-01&to=2026-03-31');
      expect(readFileSync(output, 'utf8')).toBe(api.text);
      expect(api.text.trimEnd().split('\n')).toHaveLength(4);
    } finally {
      await server.close();
    }
  });
});
