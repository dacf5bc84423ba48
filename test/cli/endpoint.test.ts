// `sightline endpoint add|list|remove` of the real, bundled CLI: the secret printed once and sealed under a 0600
// key file, the same refusals as the API, and audit rows with actor system that never hold the secret.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureBuilt, parseJsonOutput, readDatabase, runCli } from './cli-helpers.ts';

const scratch = mkdtempSync(join(tmpdir(), 'sightline-cli-endpoint-'));
const dataDir = join(scratch, 'data');
const cli = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });

vi.setConfig({ testTimeout: 120_000 });
beforeAll(async () => {
  await ensureBuilt();
  expect((await cli('workspace', 'create', '--name', 'Acme', '--slug', 'acme')).code).toBe(0);
}, 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('endpoint', () => {
  it('adds (printing the secret once), lists without secrets, removes, and audits as the system', async () => {
    const added = await cli('endpoint', 'add', '--workspace', 'acme', '--url', 'https://hooks.example/catch', '--events', 'bridge.action_recorded,event.purchase', '--json');
    expect(added.code, added.stderr).toBe(0);
    const endpoint = parseJsonOutput(added);
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(statSync(join(dataDir, 'secrets.key')).mode & 0o777).toBe(0o600);
    // The shared sealed format: format byte 1, nonce, tag, then the 24 secret bytes.
    const [sealed] = readDatabase(join(dataDir, 'sightline.db'), (db) => db.prepare('SELECT secret_sealed FROM webhook_endpoints').pluck().all()) as Buffer[];
    expect(sealed![0]).toBe(1);
    expect(sealed).toHaveLength(1 + 12 + 16 + 24);
    const listed = await cli('endpoint', 'list', '--workspace', 'acme');
    expect(listed.stdout).toContain(endpoint.id);
    expect(listed.stdout).not.toContain(endpoint.secret);
    expect(parseJsonOutput(await cli('endpoint', 'list', '--workspace', 'acme', '--json')).endpoints).toEqual([expect.objectContaining({ id: endpoint.id, status: 'active' })]);
    expect((await cli('endpoint', 'remove', '--workspace', 'acme', '--id', endpoint.id)).code).toBe(0);
    const audit = readDatabase(join(dataDir, 'sightline.db'), (db) => db.prepare("SELECT action, actor_kind, metadata FROM audit_log WHERE action LIKE 'endpoint.%' ORDER BY ts").all()) as { action: string; actor_kind: string; metadata: string }[];
    expect(audit.map((row) => [row.action, row.actor_kind])).toEqual([['endpoint.create', 'system'], ['endpoint.delete', 'system']]);
    expect(JSON.stringify(audit)).not.toContain(endpoint.secret.slice(6));
  });

  it('refuses what the API refuses: an unknown event type, a private address, an unknown endpoint', async () => {
    const unknownType = await cli('endpoint', 'add', '--workspace', 'acme', '--url', 'https://hooks.example/', '--events', 'event.pageview');
    expect(unknownType.code).toBe(1);
    expect(unknownType.stderr).toContain('--events (item 1): ');
    const metadata = await cli('endpoint', 'add', '--workspace', 'acme', '--url', 'http://169.254.169.254/latest', '--events', 'event.purchase');
    expect(metadata.code).toBe(1);
    expect(metadata.stderr).toContain('private');
    expect((await cli('endpoint', 'remove', '--workspace', 'acme', '--id', 'nope')).code).toBe(1);
  });
});
