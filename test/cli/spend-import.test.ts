// `sightline spend import --workspace S FILE.csv` of the real, bundled CLI: the same all-or-nothing rules as the
// endpoint (every bad line named, nothing stored), the same size cap, and an audit row with actor system.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { maxCsvBytes } from '../../src/spend/import-spend-csv.ts';
import { csvHeader, csvOfSize } from '../spend/_helpers.ts';
import { ensureBuilt, parseJsonOutput, readDatabase, runCli } from './cli-helpers.ts';

const scratch = mkdtempSync(join(tmpdir(), 'sightline-cli-spend-'));
const dataDir = join(scratch, 'data');
const databaseFile = join(dataDir, 'sightline.db');
const cli = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });

function csvFile(name: string, text: string): string {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

const spendRows = () =>
  readDatabase(databaseFile, (db) => db.prepare('SELECT day, source, medium, campaign, amount_minor, currency FROM spend ORDER BY day').all());

// Several node processes per test; nothing here asserts a duration.
vi.setConfig({ testTimeout: 120_000 });
beforeAll(async () => {
  await ensureBuilt();
  expect((await cli('workspace', 'create', '--name', 'Acme', '--slug', 'acme')).code).toBe(0);
}, 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('spend import', () => {
  it('imports a spreadsheet export (BOM, CRLF, quoted commas) and audits it as the system', async () => {
    const file = csvFile('ok.csv', `\uFEFF${csvHeader}\r\n2026-01-01,google,cpc,"Spring, 2026",12.50,USD\r\n2026-01-02,bing,,,1000,JPY\r\n`);
    const result = await cli('spend', 'import', '--workspace', 'acme', file);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Imported 2 spend entries into acme/);
    expect(spendRows()).toEqual([
      { day: '2026-01-01', source: 'google', medium: 'cpc', campaign: 'Spring, 2026', amount_minor: 1250, currency: 'USD' },
      { day: '2026-01-02', source: 'bing', medium: null, campaign: null, amount_minor: 1000, currency: 'JPY' },
    ]);
    const audit = readDatabase(databaseFile, (db) => db.prepare("SELECT actor_kind, actor_id, metadata FROM audit_log WHERE action = 'spend.import'").all());
    expect(audit).toEqual([{ actor_kind: 'system', actor_id: null, metadata: '{"imported":2}' }]);
  });

  it('--json prints { imported }', async () => {
    const file = csvFile('one.csv', `${csvHeader}\n2026-02-01,google,cpc,x,0.125,KWD\n`);
    const result = await cli('spend', 'import', '--workspace', 'acme', file, '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(parseJsonOutput(result)).toEqual({ imported: 1 });
  });

  it('a bad line in the middle refuses the whole file, exit 1, every bad line named', async () => {
    const before = spendRows().length;
    const file = csvFile('bad.csv', [csvHeader, '2026-03-01,google,cpc,a,1.00,USD', '2026-03-02,google,cpc,b,1.001,USD', '2026-03-03,google,cpc,c,1.00,USD', ''].join('\n'));
    const human = await cli('spend', 'import', '--workspace', 'acme', file);
    expect(human.code).toBe(1);
    expect(human.stderr).toMatch(/1 of 3 lines are invalid; nothing was imported \(invalid_payload\)/);
    expect(human.stderr).toMatch(/line 3: amount: must have at most 2 decimals for USD/);
    const json = await cli('spend', 'import', '--workspace', 'acme', file, '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: 'invalid_payload', message: expect.any(String), rows: [{ line: 3, message: expect.stringContaining('amount') }] } });
    expect(spendRows().length).toBe(before);
  });

  it(`takes a file of exactly ${maxCsvBytes} bytes and refuses one byte more`, async () => {
    const before = spendRows().length;
    const exact = csvOfSize(maxCsvBytes);
    const accepted = await cli('spend', 'import', '--workspace', 'acme', csvFile('exact.csv', exact.text), '--json');
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(parseJsonOutput(accepted)).toEqual({ imported: exact.rows });
    const over = await cli('spend', 'import', '--workspace', 'acme', csvFile('over.csv', csvOfSize(maxCsvBytes + 1).text), '--json');
    expect(over.code).toBe(1);
    expect(JSON.parse(over.stderr).error.code).toBe('payload_too_large');
    expect(spendRows().length).toBe(before + exact.rows);
  });

  it('refuses an unknown workspace and a missing file', async () => {
    const file = csvFile('ok2.csv', `${csvHeader}\n2026-01-01,g,,,1,USD\n`);
    const unknown = await cli('spend', 'import', '--workspace', 'nope', file);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No workspace with slug nope \(not_found\)/);
    const missing = await cli('spend', 'import', '--workspace', 'acme', join(scratch, 'absent.csv'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/Cannot read/);
  });
});
