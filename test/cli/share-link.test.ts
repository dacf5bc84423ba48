// `sightline share-link create|list|revoke` on the data directory of a running server: the link the CLI prints
// opens the site's reports over HTTP until the CLI revokes it, only the token's hash is stored, refusals name what
// is wrong, and each change is audited as the system.
import { createHash } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ShippedServer, shippedServers, utcDate } from '../e2e/_server.ts';
import { ensureBuilt, parseJsonOutput, readDatabase, runCli } from './cli-helpers.ts';

const servers = shippedServers();
let server: ShippedServer;
const cli = (...args: string[]) => runCli(args, { DATA_DIR: server.dataDir });

vi.setConfig({ testTimeout: 120_000 });
beforeAll(ensureBuilt, 120_000);
afterEach(() => servers.disposeAll());

/** The site's summary report read with a share token, as the dashboard opened from the link reads it. */
async function readWithShareToken(siteId: string, token: string): Promise<number> {
  const answer = await fetch(`${server.url}/v1/sites/${siteId}/reports/summary-v2?from=${utcDate(-6)}&to=${utcDate(0)}`, { headers: { authorization: `Share ${token}` } });
  await answer.arrayBuffer();
  return answer.status;
}

const auditRows = () =>
  readDatabase(`${server.dataDir}/sightline.db`, (db) =>
    db.prepare("SELECT action, actor_kind, target, metadata FROM audit_log WHERE action LIKE 'share_link.%' ORDER BY ts").all() as { action: string; actor_kind: string; target: string; metadata: string }[],
  ).map((row) => ({ ...row, metadata: JSON.parse(row.metadata) as unknown }));

async function acmeWithBlog(): Promise<void> {
  server = await servers.start();
  expect((await cli('workspace', 'create', '--name', 'Acme', '--slug', 'acme')).code).toBe(0);
  expect((await cli('workspace', 'create', '--name', 'Other', '--slug', 'other')).code).toBe(0);
  expect((await cli('site', 'create', '--workspace', 'acme', '--id', 'blog', '--name', 'Blog')).code).toBe(0);
}

describe('share-link', () => {
  it('create prints the token once and the link; the link reads the reports until revoke; list shows it without the token', async () => {
    await acmeWithBlog();
    const created = await cli('share-link', 'create', '--workspace', 'acme', '--site', 'blog', '--label', 'Board meeting', '--origin', 'https://analytics.example.com');
    expect(created.code, created.stderr).toBe(0);
    const [heading, token, link, warning] = created.stdout.trimEnd().split('\n');
    const id = /^Created share link ([0-9a-f-]{36}) \(Board meeting\) for site blog$/.exec(heading!)?.[1];
    expect(id).toBeDefined();
    expect(token).toMatch(/^shr_[A-Za-z0-9_-]{43}$/);
    expect(link).toBe(`Link: https://analytics.example.com/?site=blog#share=${token}`);
    expect(warning).toContain('The token is shown once');
    // Only its hash is kept.
    const stored = readDatabase(`${server.dataDir}/sightline.db`, (db) => db.prepare('SELECT * FROM ui_share_links WHERE id = ?').get(id)) as Record<string, unknown>;
    expect(stored.token_hash).toEqual(createHash('sha256').update(token!).digest());
    expect(JSON.stringify(Object.values(stored).map(String))).not.toContain(token!.slice(4));

    expect(await readWithShareToken('blog', token!)).toBe(200);

    const listed = await cli('share-link', 'list', '--workspace', 'acme', '--site', 'blog');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^ID\\s+LABEL\\s+CREATED\\s+REVOKED\\n${id}\\s+Board meeting\\s+\\S+Z\\s+-\\n$`));
    expect(listed.stdout).not.toContain(token!);

    const revoked = await cli('share-link', 'revoke', '--workspace', 'acme', '--site', 'blog', '--id', id!);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`^Revoked share link ${id} at \\S+Z\\n$`));
    // At once: the server reads the link from the database on every request.
    expect(await readWithShareToken('blog', token!)).toBe(401);
    const again = await cli('share-link', 'revoke', '--workspace', 'acme', '--site', 'blog', '--id', id!);
    expect(again).toEqual({ code: 1, stdout: '', stderr: `Error: No live share link ${id} on site blog (unknown, or already revoked) (not_found)\n` });

    const listedJson = parseJsonOutput(await cli('share-link', 'list', '--workspace', 'acme', '--site', 'blog', '--json'));
    expect(listedJson).toEqual({ share_links: [{ id, site_id: 'blog', label: 'Board meeting', created_at: expect.any(String), revoked_at: expect.any(String), embed_origins: [] }] });
    expect(auditRows()).toEqual([
      { action: 'share_link.create', actor_kind: 'system', target: id, metadata: { site_id: 'blog', label: 'Board meeting' } },
      { action: 'share_link.revoke', actor_kind: 'system', target: id, metadata: { site_id: 'blog' } },
    ]);
  });

  it('--json prints the created link with its token (and the whole link when --origin is given)', async () => {
    await acmeWithBlog();
    const plain = parseJsonOutput(await cli('share-link', 'create', '--workspace', 'acme', '--site', 'blog', '--label', 'Team', '--json'));
    expect(plain).toEqual({
      id: expect.any(String),
      site_id: 'blog',
      label: 'Team',
      created_at: expect.any(String),
      revoked_at: null,
      embed_origins: [],
      token: expect.stringMatching(/^shr_[A-Za-z0-9_-]{43}$/),
      warning: expect.any(String),
    });
    expect(await readWithShareToken('blog', plain.token)).toBe(200);
    const withOrigin = parseJsonOutput(await cli('share-link', 'create', '--workspace', 'acme', '--site', 'blog', '--label', 'Team', '--origin', 'http://127.0.0.1:8787', '--json'));
    expect(withOrigin.url).toBe(`http://127.0.0.1:8787/?site=blog#share=${withOrigin.token}`);
    // Without --origin the human output still says where the link goes.
    const human = await cli('share-link', 'create', '--workspace', 'acme', '--site', 'blog', '--label', 'Team');
    expect(human.stdout).toMatch(/\nLink: <server address>\/\?site=blog#share=shr_[A-Za-z0-9_-]{43}\n/);
  });

  const refusals: { name: string; args: string[]; stderr: string }[] = [
    { name: 'a site of another workspace', args: ['create', '--workspace', 'other', '--site', 'blog', '--label', 'x'], stderr: 'Error: No site blog in workspace other (not_found)\n' },
    { name: 'an unknown site', args: ['list', '--workspace', 'acme', '--site', 'nope'], stderr: 'Error: No site nope in workspace acme (not_found)\n' },
    { name: 'an unknown workspace', args: ['list', '--workspace', 'nope', '--site', 'blog'], stderr: 'Error: No workspace with slug nope (not_found)\n' },
    { name: 'a blank label', args: ['create', '--workspace', 'acme', '--site', 'blog', '--label', ' '], stderr: 'Error: Invalid arguments (invalid_payload)\n  --label: must not be empty\n' },
    {
      name: 'an origin with a path',
      args: ['create', '--workspace', 'acme', '--site', 'blog', '--label', 'x', '--origin', 'https://analytics.example.com/dashboard'],
      stderr: 'Error: Invalid arguments (invalid_payload)\n  --origin: must be an http(s) address without a path, such as https://analytics.example.com\n',
    },
    {
      name: 'an origin that is not http(s)',
      args: ['create', '--workspace', 'acme', '--site', 'blog', '--label', 'x', '--origin', 'ftp://analytics.example.com'],
      stderr: 'Error: Invalid arguments (invalid_payload)\n  --origin: must be an http(s) address without a path, such as https://analytics.example.com\n',
    },
    { name: 'an unknown link', args: ['revoke', '--workspace', 'acme', '--site', 'blog', '--id', 'nope'], stderr: 'Error: No live share link nope on site blog (unknown, or already revoked) (not_found)\n' },
  ];
  it('refuses with exit 1, creating nothing: ' + refusals.map((refusal) => refusal.name).join(', '), async () => {
    await acmeWithBlog();
    for (const { name, args, stderr } of refusals) expect({ name, ...(await cli('share-link', ...args)) }).toEqual({ name, code: 1, stdout: '', stderr });
    expect(readDatabase(`${server.dataDir}/sightline.db`, (db) => db.prepare('SELECT count(*) AS n FROM ui_share_links').get())).toEqual({ n: 0 });
    expect(auditRows()).toEqual([]);
  });
});
