// `sightline webhook-secret set` of the real, bundled CLI: the secret read from stdin or --secret, sealed at rest
// (never in the database in the clear), the key file private, rotation, refusals, and an audit row without it.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openSecret } from '../../src/secrets/secret-box.ts';
import { childEnvironment, type CliResult, ensureBuilt, parseJsonOutput, readDatabase, repositoryRoot, runCli } from './cli-helpers.ts';

const scratch = mkdtempSync(join(tmpdir(), 'sightline-cli-webhook-'));
const dataDir = join(scratch, 'data');
const databaseFile = join(dataDir, 'sightline.db');
const keyFile = join(dataDir, 'secrets.key');
const secret = 'whsec_cliSecret0123456789abcdefghijklmnop';

const cli = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });

/** Runs the CLI with `input` written to its stdin, then closed. */
function cliWithStdin(input: string, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repositoryRoot, 'bin', 'sightline'), ...args], { cwd: repositoryRoot, env: childEnvironment({ DATA_DIR: dataDir }) });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}

vi.setConfig({ testTimeout: 120_000 });
beforeAll(async () => {
  await ensureBuilt();
  expect((await cli('workspace', 'create', '--name', 'Shop Inc', '--slug', 'shop-inc')).code).toBe(0);
  expect((await cli('site', 'create', '--workspace', 'shop-inc', '--id', 'shop', '--name', 'Shop')).code).toBe(0);
}, 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const secretRows = () =>
  readDatabase(databaseFile, (db) => db.prepare('SELECT * FROM webhook_secrets').all() as { site_id: string; adapter: string; sealed: Buffer; previous_sealed: Buffer | null; previous_expires_at: string | null }[]);

describe('webhook-secret set', () => {
  it('refuses an unknown site, adapter or a secret that is not a Stripe signing secret, creating nothing', async () => {
    const ghost = await cliWithStdin(`${secret}\n`, 'webhook-secret', 'set', '--site', 'ghost', '--adapter', 'stripe');
    expect(ghost.code).toBe(1);
    expect(ghost.stderr).toContain('No site ghost');
    const adapter = await cliWithStdin(`${secret}\n`, 'webhook-secret', 'set', '--site', 'shop', '--adapter', 'paypal');
    expect(adapter.code).toBe(1);
    expect(adapter.stderr).toContain('--adapter: must be one of: stripe');
    const notStripe = await cli('webhook-secret', 'set', '--site', 'shop', '--adapter', 'stripe', '--secret', 'hunter2');
    expect(notStripe.code).toBe(1);
    expect(notStripe.stderr).toContain('--secret: must be the endpoint');
    const tooLong = await cliWithStdin(`whsec_${'a'.repeat(5000)}`, 'webhook-secret', 'set', '--site', 'shop', '--adapter', 'stripe');
    expect(tooLong.code).toBe(1);
    expect(existsSync(keyFile)).toBe(false);
    expect(secretRows()).toEqual([]);
  });

  it('sets the secret read from stdin, sealed under a private key file', async () => {
    const set = await cliWithStdin(`${secret}\n`, 'webhook-secret', 'set', '--site', 'shop', '--adapter', 'stripe', '--json');
    expect(set.code, set.stderr).toBe(0);
    expect(parseJsonOutput(set)).toEqual({ site_id: 'shop', adapter: 'stripe', rotated: false, previous_valid_until: null, updated_at: expect.any(String) });
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const [row] = secretRows();
    expect(row).toMatchObject({ site_id: 'shop', adapter: 'stripe', previous_sealed: null, previous_expires_at: null });
    // Ciphertext only: neither the secret nor any long piece of it is in the row.
    expect(row!.sealed.includes(Buffer.from(secret.slice(6, 20)))).toBe(false);
    expect(row!.sealed.length).toBe(1 + 12 + 16 + Buffer.byteLength(secret));
  });

  it('rotates with --secret: the previous one stays accepted for one hour, and the audit row holds no secret', async () => {
    const before = Date.now();
    const rotated = await cli('webhook-secret', 'set', '--site', 'shop', '--adapter', 'stripe', '--secret', `${secret}-2`);
    expect(rotated.code, rotated.stderr).toBe(0);
    const until = /accepted until (\S+)$/m.exec(rotated.stdout)?.[1];
    expect(rotated.stdout).toMatch(/^Rotated the stripe webhook secret of site shop/);
    expect(Date.parse(until!) - before).toBeGreaterThanOrEqual(3_600_000);
    expect(Date.parse(until!) - Date.now()).toBeLessThanOrEqual(3_600_000);
    const [row] = secretRows();
    expect(row!.previous_expires_at).toBe(until);
    expect(row!.previous_sealed).not.toBeNull();

    const audit = readDatabase(databaseFile, (db) => db.prepare("SELECT action, actor_kind, target, metadata FROM audit_log WHERE action = 'webhook_secret.set' ORDER BY ts").all() as { metadata: string }[]);
    expect(audit).toEqual([
      { action: 'webhook_secret.set', actor_kind: 'system', target: 'shop', metadata: JSON.stringify({ adapter: 'stripe', rotated: false, previous_valid_until: null }) },
      { action: 'webhook_secret.set', actor_kind: 'system', target: 'shop', metadata: JSON.stringify({ adapter: 'stripe', rotated: true, previous_valid_until: until }) },
    ]);
  });
});

describe('one key for every sealed secret', () => {
  it('three commands racing on a data directory without a key all seal under the one key that stays', async () => {
    const raceDir = join(scratch, 'race');
    const raceCli = (...args: string[]) => runCli(args, { DATA_DIR: raceDir });
    expect((await raceCli('workspace', 'create', '--name', 'Race', '--slug', 'race')).code).toBe(0);
    for (const site of ['one', 'two']) expect((await raceCli('site', 'create', '--workspace', 'race', '--id', site, '--name', site)).code).toBe(0);
    expect(existsSync(join(raceDir, 'secrets.key'))).toBe(false);

    const results = await Promise.all([
      raceCli('webhook-secret', 'set', '--site', 'one', '--adapter', 'stripe', '--secret', `${secret}-one`),
      raceCli('webhook-secret', 'set', '--site', 'two', '--adapter', 'stripe', '--secret', `${secret}-two`),
      raceCli('endpoint', 'add', '--workspace', 'race', '--url', 'https://hooks.example/race', '--events', 'event.purchase', '--json'),
    ]);
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    // The key and nothing left over from the losers.
    expect(readdirSync(raceDir).filter((name) => name.includes('secrets'))).toEqual(['secrets.key']);

    // Read in this process, after the race: every secret opens with the key file that stayed.
    const database = join(raceDir, 'sightline.db');
    const secrets = readDatabase(database, (db) => db.prepare('SELECT site_id, sealed FROM webhook_secrets ORDER BY site_id').all()) as { site_id: string; sealed: Buffer }[];
    expect(secrets.map((row) => openSecret(raceDir, row.sealed, `${row.site_id}/stripe`).toString('utf8'))).toEqual([`${secret}-one`, `${secret}-two`]);
    const endpoint = parseJsonOutput(results[2]!);
    const sealed = readDatabase(database, (db) => db.prepare('SELECT secret_sealed FROM webhook_endpoints WHERE id = ?').pluck().get(endpoint.id)) as Buffer;
    expect(`whsec_${openSecret(raceDir, sealed, endpoint.id).toString('base64')}`).toBe(endpoint.secret);
  });
});
