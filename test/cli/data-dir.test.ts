// Commands on a directory without Sightline's data: every command that reads or changes data refuses (exit 1, the
// directory named with where it came from, and how to name the right one), and creates nothing, neither the
// directory nor a database in it. Only `workspace create` (and `serve`, test/cli/serve.test.ts) start a new one.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureBuilt, parseJsonOutput, runCli } from './cli-helpers.ts';

const scratch = mkdtempSync(join(tmpdir(), 'sightline-cli-datadir-'));
const csvFile = join(scratch, 'spend.csv');

vi.setConfig({ testTimeout: 120_000 });
beforeAll(async () => {
  writeFileSync(csvFile, 'date,source,medium,campaign,amount,currency\n2026-11-01,google,cpc,brand,10.00,EUR\n');
  await ensureBuilt();
}, 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Every command that needs a data directory's data, with arguments it would otherwise accept. */
const dataCommands: string[][] = [
  ['workspace', 'list'],
  ['workspace', 'rename', '--slug', 'acme', '--name', 'Acme'],
  ['site', 'create', '--workspace', 'acme', '--id', 'blog', '--name', 'Blog'],
  ['site', 'list', '--workspace', 'acme'],
  ['site', 'update', '--workspace', 'acme', '--id', 'blog', '--cookieless', 'off'],
  ['site', 'retention', '--workspace', 'acme', '--id', 'blog', '--days', '30'],
  ['site', 'retention', '--site', 'blog', '--days', '30'],
  ['site', 'delete', '--workspace', 'acme', '--id', 'blog', '--yes'],
  ['share-link', 'create', '--workspace', 'acme', '--site', 'blog', '--label', 'Board'],
  ['share-link', 'list', '--workspace', 'acme', '--site', 'blog'],
  ['share-link', 'revoke', '--workspace', 'acme', '--site', 'blog', '--id', 'x'],
  ['key', 'create', '--workspace', 'acme', '--label', 'CI', '--scopes', 'admin'],
  ['key', 'list', '--workspace', 'acme'],
  ['key', 'revoke', '--workspace', 'acme', '--id', 'x'],
  ['spend', 'import', '--workspace', 'acme', csvFile],
  ['endpoint', 'add', '--workspace', 'acme', '--url', 'https://hooks.example/', '--events', 'event.purchase'],
  ['endpoint', 'list', '--workspace', 'acme'],
  ['endpoint', 'remove', '--workspace', 'acme', '--id', 'x'],
  ['webhook-secret', 'set', '--site', 'blog', '--adapter', 'stripe', '--secret', 'whsec_0123456789abcdef0123'],
  ['admin-token'],
  ['backup', '--to', join(scratch, 'backup.db')],
];

const hint = "Pass --data-dir DIR or set DATA_DIR to the server's data directory, or start a new one there with sightline workspace create or sightline serve";

async function inBatches<T, R>(items: T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += width) results.push(...(await Promise.all(items.slice(start, start + width).map(work))));
  return results;
}

describe('a data directory that does not exist', () => {
  it('every data command refuses with exit 1 and the hint, and the directory is not created', async () => {
    const dataDir = join(scratch, 'missing', 'data');
    const results = await inBatches(dataCommands, 4, async (args) => ({ args, result: await runCli(args, { DATA_DIR: dataDir }) }));
    for (const { args, result } of results) {
      expect({ args, ...result }).toEqual({ args, code: 1, stdout: '', stderr: `Error: No Sightline data in ${dataDir} (from DATA_DIR). ${hint} (no_data)\n` });
    }
    expect(existsSync(join(scratch, 'missing'))).toBe(false);
    expect(existsSync(join(scratch, 'backup.db'))).toBe(false);
  });

  it('--json: the refusal as { error } on stderr', async () => {
    const dataDir = join(scratch, 'missing-json');
    const result = await runCli(['workspace', 'list', '--json'], { DATA_DIR: dataDir });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({ error: { code: 'no_data', message: `No Sightline data in ${dataDir} (from DATA_DIR). ${hint}` } });
  });

  it('neither --data-dir nor DATA_DIR: names the default ./data under the working directory, and does not create it', async () => {
    const cwd = join(scratch, 'somewhere-else');
    mkdirSync(cwd);
    const result = await runCli(['workspace', 'list'], { DATA_DIR: undefined }, { cwd });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `Error: No Sightline data in ${join(cwd, 'data')} (the default ./data: neither --data-dir nor DATA_DIR was given). ${hint} (no_data)\n`,
    });
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('--data-dir: named as where the directory came from', async () => {
    const dataDir = join(scratch, 'from-flag');
    const result = await runCli(['site', 'list', '--workspace', 'acme', '--data-dir', dataDir], { DATA_DIR: join(scratch, 'ignored') });
    expect(result.stderr).toBe(`Error: No Sightline data in ${dataDir} (from --data-dir). ${hint} (no_data)\n`);
  });
});

describe('a data directory that exists but holds no Sightline data', () => {
  // One command of each way in: withContext (most), the token file, a destination checked first, a secret read first,
  // a file argument.
  const oneOfEach = [['workspace', 'list'], ['admin-token'], ['backup', '--to', join(scratch, 'backup.db')], ['webhook-secret', 'set', '--site', 'blog', '--adapter', 'stripe', '--secret', 'whsec_0123456789abcdef0123'], ['spend', 'import', '--workspace', 'acme', csvFile]];
  it('the data commands refuse, and nothing is written into it', async () => {
    const dataDir = join(scratch, 'empty');
    mkdirSync(dataDir, { mode: 0o700 });
    const results = await inBatches(oneOfEach, 5, async (args) => ({ args, result: await runCli(args, { DATA_DIR: dataDir }) }));
    for (const { args, result } of results) expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 1, stderr: expect.stringContaining(`No Sightline data in ${dataDir}`) });
    expect(readdirSync(dataDir)).toEqual([]);
  });
});

describe('starting a new data directory', () => {
  it('workspace create makes it; then the other commands work on it', async () => {
    const dataDir = join(scratch, 'new', 'data');
    const created = await runCli(['workspace', 'create', '--name', 'Acme', '--slug', 'acme'], { DATA_DIR: dataDir });
    expect(created.code, created.stderr).toBe(0);
    expect(existsSync(join(dataDir, 'sightline.db'))).toBe(true);
    const listed = parseJsonOutput(await runCli(['workspace', 'list', '--json'], { DATA_DIR: dataDir }));
    expect(listed.workspaces.map((workspace: { slug: string }) => workspace.slug)).toEqual(['acme']);
    expect((await runCli(['site', 'create', '--workspace', 'acme', '--id', 'blog', '--name', 'Blog'], { DATA_DIR: dataDir })).code).toBe(0);
  });
});
