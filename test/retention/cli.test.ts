// `sightline site retention` on the real bundled CLI: sets and clears a site's period, refuses values outside
// 1-3650 naming --days, a missing site is a refusal, and the change is audited site.update (actor system).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureBuilt, parseJsonOutput, readDatabase, runCli } from '../cli/cli-helpers.ts';

const dataDir = join(mkdtempSync(join(tmpdir(), 'sightline-cli-retention-')), 'data');
const cli = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });

vi.setConfig({ testTimeout: 120_000 });
beforeAll(async () => {
  await ensureBuilt();
  expect((await cli('workspace', 'create', '--name', 'Shop', '--slug', 'shop')).code).toBe(0);
  expect((await cli('site', 'create', '--workspace', 'shop', '--id', 'shop-web', '--name', 'Web')).code).toBe(0);
}, 120_000);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('sightline site retention', () => {
  it('sets a period in days and back to forever', async () => {
    const set = await cli('site', 'retention', '--site', 'shop-web', '--days', '90');
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('Site shop-web keeps 90 days of events');
    const json = parseJsonOutput(await cli('site', 'retention', '--site', 'shop-web', '--days', '3650', '--json'));
    expect(json).toEqual({ id: 'shop-web', name: 'Web', created_at: expect.any(String), cookieless: true, retention_days: 3650 });
    const forever = await cli('site', 'retention', '--site', 'shop-web', '--days', 'forever');
    expect(forever.stdout).toContain('keeps its events forever');
    const rows = readDatabase(join(dataDir, 'sightline.db'), (db) => db.prepare("SELECT actor_kind, metadata FROM audit_log WHERE action = 'site.update' ORDER BY ts").all());
    expect(rows.map((row: any) => [row.actor_kind, JSON.parse(row.metadata).retention_days])).toEqual([
      ['system', { from: null, to: 90 }],
      ['system', { from: 90, to: 3650 }],
      ['system', { from: 3650, to: null }],
    ]);
  });

  it.each(['0', '3651', '1.5', 'never', '-3'])('refuses --days %s naming the flag', async (days) => {
    const refused = await cli('site', 'retention', '--site', 'shop-web', '--days', days);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--days');
  });

  it('refuses a missing site', async () => {
    const refused = await cli('site', 'retention', '--site', 'nope', '--days', '30', '--json');
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr).error.code).toBe('not_found');
  });
});
