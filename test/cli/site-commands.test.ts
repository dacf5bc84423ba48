// The site and workspace commands that name a site by --workspace W --id ID: site update (name, cookieless,
// retention), site retention in that form and its older --site form, site delete (confirmed, removing what the
// API's deletion removes, seen by a running server), and workspace rename. Each mutation is audited as the system.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { browserEvent, browserUserAgent, e2eAdminToken, ingest, type ShippedServer, shippedServers, utcDate } from '../e2e/_server.ts';
import { poll } from '../events/_helpers.ts';
import { ensureBuilt, parseJsonOutput, readDatabase, runCli } from './cli-helpers.ts';

const scratch = mkdtempSync(join(tmpdir(), 'sightline-cli-sites-'));
let dataDir: string;
let counter = 0;
const cli = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });
const servers = shippedServers();

vi.setConfig({ testTimeout: 120_000 });
beforeAll(ensureBuilt, 120_000);
beforeEach(async () => {
  counter += 1;
  dataDir = join(scratch, `data-${counter}`);
});
afterEach(() => servers.disposeAll());
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface AuditRow {
  action: string;
  actor_kind: string;
  target: string;
  metadata: Record<string, unknown>;
}
const auditRows = (): AuditRow[] =>
  readDatabase(join(dataDir, 'sightline.db'), (db) => db.prepare('SELECT action, actor_kind, target, metadata FROM audit_log ORDER BY ts').all() as (AuditRow & { metadata: string })[]).map(
    (row) => ({ ...row, metadata: JSON.parse(row.metadata) as Record<string, unknown> }),
  );
const siteRow = (id: string) => readDatabase(join(dataDir, 'sightline.db'), (db) => db.prepare('SELECT id, name, cookieless, retention_days FROM sites WHERE id = ?').get(id));

/** Workspaces acme and other, and site blog in acme: made once by the CLI, then copied for each test that wants them. */
let template: string | undefined;
async function twoWorkspaces(): Promise<void> {
  if (!template) {
    const made = join(scratch, 'template');
    const make = (...args: string[]) => runCli(args, { DATA_DIR: made });
    expect((await make('workspace', 'create', '--name', 'Acme', '--slug', 'acme')).code).toBe(0);
    expect((await make('workspace', 'create', '--name', 'Other', '--slug', 'other')).code).toBe(0);
    expect((await make('site', 'create', '--workspace', 'acme', '--id', 'blog', '--name', 'Blog')).code).toBe(0);
    template = made;
  }
  // Each CLI call closed its databases (WAL folded in), so the files are whole.
  cpSync(template, dataDir, { recursive: true });
}

describe('site update', () => {
  it('renames, turns cookieless off and sets the retention period in one audited change; forever clears it', async () => {
    await twoWorkspaces();
    const updated = await cli('site', 'update', '--workspace', 'acme', '--id', 'blog', '--name', 'The blog', '--cookieless', 'off', '--retention-days', '90');
    expect(updated).toEqual({ code: 0, stdout: 'Updated site blog: name "The blog", cookieless off, keeps 90 days of events\n', stderr: '' });
    expect(siteRow('blog')).toEqual({ id: 'blog', name: 'The blog', cookieless: 0, retention_days: 90 });
    expect(auditRows().at(-1)).toEqual({
      action: 'site.update',
      actor_kind: 'system',
      target: 'blog',
      metadata: { name: { from: 'Blog', to: 'The blog' }, cookieless: { from: true, to: false }, retention_days: { from: null, to: 90 } },
    });
    const forever = parseJsonOutput(await cli('site', 'update', '--workspace', 'acme', '--id', 'blog', '--retention-days', 'forever', '--json'));
    expect(forever).toEqual({ id: 'blog', name: 'The blog', created_at: expect.any(String), cookieless: false, retention_days: null });
  });

  const refusals: { name: string; args: string[]; stderr: string }[] = [
    { name: 'nothing to change', args: [], stderr: 'Error: Invalid arguments (invalid_payload)\n  (arguments): give --name, --cookieless or --retention-days\n' },
    { name: 'the first period too long', args: ['--retention-days', '3651'], stderr: 'Error: Invalid arguments (invalid_payload)\n  --retention-days: must be at most 3650\n' },
    { name: 'a period of no days', args: ['--retention-days', '0'], stderr: 'Error: Invalid arguments (invalid_payload)\n  --retention-days: must be at least 1\n' },
    { name: 'a period that is not a number', args: ['--retention-days', 'never'], stderr: 'Error: Invalid arguments (invalid_payload)\n  --retention-days: must be an integer or null\n' },
    { name: 'a blank name', args: ['--name', '  '], stderr: 'Error: Invalid arguments (invalid_payload)\n  --name: must not be empty\n' },
  ];
  it('refuses, with exit 1 and changing nothing: ' + refusals.map((refusal) => refusal.name).join(', '), async () => {
    await twoWorkspaces();
    const before = auditRows();
    const results = await Promise.all(refusals.map(async ({ name, args }) => ({ name, ...(await cli('site', 'update', '--workspace', 'acme', '--id', 'blog', ...args)) })));
    expect(results).toEqual(refusals.map(({ name, stderr }) => ({ name, code: 1, stdout: '', stderr })));
    expect(siteRow('blog')).toEqual({ id: 'blog', name: 'Blog', cookieless: 1, retention_days: null });
    expect(auditRows()).toEqual(before);
  });

  it('takes the last accepted period, 3650 days', async () => {
    await twoWorkspaces();
    expect((await cli('site', 'update', '--workspace', 'acme', '--id', 'blog', '--retention-days', '3650')).code).toBe(0);
    expect(siteRow('blog')).toMatchObject({ retention_days: 3650 });
  });
});

describe('site retention', () => {
  it('names the site as every site command does (--workspace W --id ID), and still by --site alone', async () => {
    await twoWorkspaces();
    const byId = await cli('site', 'retention', '--workspace', 'acme', '--id', 'blog', '--days', '30');
    expect(byId).toEqual({ code: 0, stdout: 'Site blog keeps 30 days of events\n', stderr: '' });
    const bySite = await cli('site', 'retention', '--site', 'blog', '--days', 'forever');
    expect(bySite).toEqual({ code: 0, stdout: 'Site blog keeps its events forever\n', stderr: '' });
    expect(auditRows().filter((row) => row.action === 'site.update').map((row) => [row.actor_kind, row.metadata.retention_days])).toEqual([
      ['system', { from: null, to: 30 }],
      ['system', { from: 30, to: null }],
    ]);
  });

  const refusals: { name: string; args: string[]; stderr: string }[] = [
    { name: 'both forms at once', args: ['--site', 'blog', '--workspace', 'acme', '--id', 'blog', '--days', '30'], stderr: '  --site: give either --workspace and --id, or --site alone\n' },
    { name: '--id without --workspace', args: ['--id', 'blog', '--days', '30'], stderr: '  --workspace: is required (site retention --workspace W --id ID --days N)\n' },
    { name: '--workspace without --id', args: ['--workspace', 'acme', '--days', '30'], stderr: '  --id: is required (site retention --workspace W --id ID --days N)\n' },
    { name: 'a site of another workspace', args: ['--workspace', 'other', '--id', 'blog', '--days', '30'], stderr: 'Error: No site blog in workspace other (not_found)\n' },
    { name: 'an unknown site by --site', args: ['--site', 'nope', '--days', '30'], stderr: 'Error: No site nope (not_found)\n' },
    { name: 'the first period too long, naming --days', args: ['--workspace', 'acme', '--id', 'blog', '--days', '3651'], stderr: '  --days: must be at most 3650\n' },
  ];
  it('refuses, with exit 1 and changing nothing: ' + refusals.map((refusal) => refusal.name).join(', '), async () => {
    await twoWorkspaces();
    const results = await Promise.all(refusals.map(async ({ name, args }) => ({ name, ...(await cli('site', 'retention', ...args)) })));
    for (const [index, { name, stderr }] of refusals.entries()) expect(results[index]).toMatchObject({ name, code: 1, stdout: '', stderr: expect.stringContaining(stderr) });
    expect(siteRow('blog')).toMatchObject({ retention_days: null });
  });
});

describe('workspace rename', () => {
  it('renames (the slug stays), audited as workspace.update by the system; refuses a bad name or an unknown slug', async () => {
    await twoWorkspaces();
    const renamed = await cli('workspace', 'rename', '--slug', 'acme', '--name', '  Acme Corp  ');
    expect(renamed).toEqual({ code: 0, stdout: 'Renamed workspace acme: "Acme" → "Acme Corp"\n', stderr: '' });
    const listed = parseJsonOutput(await cli('workspace', 'list', '--json'));
    expect(listed.workspaces.map((workspace: { slug: string; name: string }) => [workspace.slug, workspace.name])).toEqual([
      ['acme', 'Acme Corp'],
      ['other', 'Other'],
    ]);
    expect(auditRows().at(-1)).toEqual({ action: 'workspace.update', actor_kind: 'system', target: 'acme', metadata: { name: { from: 'Acme', to: 'Acme Corp' } } });

    const before = auditRows();
    expect(await cli('workspace', 'rename', '--slug', 'acme', '--name', 'x'.repeat(129))).toMatchObject({ code: 1, stderr: expect.stringContaining('--name: ') });
    expect(await cli('workspace', 'rename', '--slug', 'nope', '--name', 'Nope')).toEqual({ code: 1, stdout: '', stderr: 'Error: No workspace with slug nope (not_found)\n' });
    expect(auditRows()).toEqual(before);
    const json = parseJsonOutput(await cli('workspace', 'rename', '--slug', 'other', '--name', 'x'.repeat(128), '--json'));
    expect(json).toMatchObject({ slug: 'other', name: 'x'.repeat(128) });
  });
});

/** Rows that name `siteId` in every table of both files that has a site_id column. */
function rowsOfSite(databaseFile: string, siteId: string): Record<string, number> {
  return readDatabase(databaseFile, (db) => {
    const counts: Record<string, number> = {};
    for (const schema of ['main', 'eventlog']) {
      const tables = db.prepare(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'table'`).all() as { name: string }[];
      for (const { name } of tables) {
        const columns = db.prepare(`SELECT name FROM pragma_table_info(?, ?)`).all(name, schema) as { name: string }[];
        if (!columns.some((column) => column.name === 'site_id')) continue;
        counts[`${schema}.${name}`] = (db.prepare(`SELECT count(*) AS n FROM ${schema}."${name}" WHERE site_id = ?`).get(siteId) as { n: number }).n;
      }
    }
    return counts;
  });
}

describe('site delete', () => {
  it('refuses without --yes, and an unknown or foreign site', async () => {
    await twoWorkspaces();
    expect(await cli('site', 'delete', '--workspace', 'acme', '--id', 'blog')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error: Deleting site blog removes all of its events, visits, reports, share links and secrets, and cannot be undone: add --yes to confirm (confirmation_required)\n',
    });
    expect(await cli('site', 'delete', '--workspace', 'other', '--id', 'blog', '--yes')).toEqual({ code: 1, stdout: '', stderr: 'Error: No site blog in workspace other (not_found)\n' });
    expect(await cli('site', 'delete', '--workspace', 'acme', '--id', 'nope', '--yes')).toMatchObject({ code: 1, stderr: 'Error: No site nope in workspace acme (not_found)\n' });
    expect(siteRow('blog')).toMatchObject({ id: 'blog' });
  });

  it("removes every row of the site that the API's deletion removes, while the server runs, which stops taking its events", async () => {
    const server: ShippedServer = await servers.start();
    dataDir = server.dataDir;
    expect((await cli('workspace', 'create', '--name', 'Acme', '--slug', 'acme')).code).toBe(0);
    const siteIds = ['by-api', 'by-cli'];
    for (const siteId of siteIds) {
      expect((await cli('site', 'create', '--workspace', 'acme', '--id', siteId, '--name', siteId)).code).toBe(0);
      expect((await cli('share-link', 'create', '--workspace', 'acme', '--site', siteId, '--label', 'Board')).code).toBe(0);
      expect((await cli('webhook-secret', 'set', '--site', siteId, '--adapter', 'stripe', '--secret', 'whsec_0123456789abcdefghijklmn')).code).toBe(0);
      await ingest(server, '/v1/events', siteId, [
        browserEvent(siteId, { anon_id: 'alice', user_id: 'user-alice', url: 'https://shop.example/' }),
        browserEvent(siteId, { anon_id: 'bob', url: 'https://shop.example/pricing', type: 'purchase', revenue: { amount: '9.99', currency: 'EUR' } }),
      ]);
      // Counted by the projector, so that its rows exist too.
      await poll(async () => {
        const report = await server.request('GET', `/v1/sites/${siteId}/pageviews?from=${utcDate(-1)}&to=${utcDate(0)}`);
        return report.body.count === 1 ? report.body : undefined;
      }, 30_000);
    }
    const before = rowsOfSite(join(dataDir, 'sightline.db'), 'by-cli');
    expect(rowsOfSite(join(dataDir, 'sightline.db'), 'by-api')).toEqual(before);
    const populated = Object.keys(before).filter((table) => before[table]! > 0);
    expect(populated).toEqual(expect.arrayContaining(['eventlog.events', 'main.sessions', 'main.ui_share_links', 'main.webhook_secrets', 'main.identities']));

    const byApi = await server.request('DELETE', '/v1/workspaces/acme/sites/by-api');
    expect(byApi.status, byApi.text).toBe(204);

    // The server has just seen by-cli: for a second it takes the site's events from its cache, while the CLI deletes.
    await ingest(server, '/v1/events', 'by-cli', [browserEvent('by-cli')]);
    const deletion = cli('site', 'delete', '--workspace', 'acme', '--id', 'by-cli', '--yes');
    let acceptedMeanwhile = 0;
    const refused = await poll(async () => {
      const answer = await fetch(`${server.url}/v1/events`, {
        method: 'POST',
        headers: { authorization: 'Bearer by-cli', 'content-type': 'application/json', 'user-agent': browserUserAgent },
        body: JSON.stringify(browserEvent('by-cli')),
      });
      if (answer.status !== 202) return answer.status;
      acceptedMeanwhile += 1;
      return undefined;
    }, 30_000);
    // Once its cached answer has expired, the server refuses the deleted site.
    expect(refused).toBe(401);
    expect(await deletion).toEqual({ code: 0, stdout: 'Deleted site by-cli of acme and all of its data\n', stderr: '' });
    console.log(`site delete: the server accepted ${acceptedMeanwhile} events of the site while the CLI deleted it`);

    // Nothing is left of either site, not even the events the server stored from its cache (the CLI sweeps again).
    const none = Object.fromEntries(Object.keys(before).map((table) => [table, 0]));
    expect(rowsOfSite(join(dataDir, 'sightline.db'), 'by-api')).toEqual(none);
    expect(rowsOfSite(join(dataDir, 'sightline.db'), 'by-cli')).toEqual(none);
    expect(siteRow('by-cli')).toBeUndefined();
    expect(auditRows().filter((row) => row.action === 'site.delete')).toEqual([
      { action: 'site.delete', actor_kind: 'admin', target: 'by-api', metadata: { name: 'by-api' } },
      { action: 'site.delete', actor_kind: 'system', target: 'by-cli', metadata: { name: 'by-cli' } },
    ]);
    expect(server.adminToken).toBe(e2eAdminToken);
  });
});
