// The audit log over HTTP: one row per mutation with the right action and actor, newest first, the ISO cursor
// (strictly before), paging without duplicates or gaps, parameter bounds, append-only storage, and rollback of the
// mutation when its audit row cannot be written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, settledTableCounts, type TestServer } from '../_setup.ts';
import { expectFlatError, isoPattern, manualClock, prefixes, uuidPattern } from './_helpers.ts';

interface Entry {
  id: string;
  workspace_id: string;
  actor_kind: string;
  actor_id: string | null;
  action: string;
  target: string | null;
  metadata: Record<string, unknown>;
  ts: string;
}

const entryFields = ['action', 'actor_id', 'actor_kind', 'id', 'metadata', 'target', 'ts', 'workspace_id'];

/** A mutation and the one audit row it must write. `vars` carries ids learnt from earlier steps. */
interface AuditedMutation {
  name: string;
  method: string;
  url: (vars: Record<string, string>) => string;
  token: 'admin' | 'key';
  body?: unknown;
  status: number;
  action: string;
  actor: 'admin' | 'apiKey';
  target: (vars: Record<string, string>, body: Record<string, unknown>) => string;
  remember?: (vars: Record<string, string>, body: Record<string, unknown>) => void;
}

const mutations: AuditedMutation[] = [
  {
    name: 'POST /workspaces writes workspace.create',
    method: 'POST',
    url: () => '/workspaces',
    token: 'admin',
    body: { name: 'Audited', slug: 'audited' },
    status: 201,
    action: 'workspace.create',
    actor: 'admin',
    target: () => 'audited',
  },
  {
    name: 'PATCH /workspaces/:slug writes workspace.update',
    method: 'PATCH',
    url: () => '/workspaces/audited',
    token: 'admin',
    body: { name: 'Audited, renamed' },
    status: 200,
    action: 'workspace.update',
    actor: 'admin',
    target: () => 'audited',
  },
  {
    name: 'POST /workspaces/:slug/sites writes site.create',
    method: 'POST',
    url: () => '/workspaces/audited/sites',
    token: 'admin',
    body: { id: 'audited-site', name: 'Site' },
    status: 201,
    action: 'site.create',
    actor: 'admin',
    target: () => 'audited-site',
  },
  {
    name: 'DELETE /workspaces/:slug/sites/:id writes site.delete',
    method: 'DELETE',
    url: () => '/workspaces/audited/sites/audited-site',
    token: 'admin',
    status: 204,
    action: 'site.delete',
    actor: 'admin',
    target: () => 'audited-site',
  },
  {
    name: 'POST /workspaces/:slug/keys with the admin token writes key.create by admin',
    method: 'POST',
    url: () => '/workspaces/audited/keys',
    token: 'admin',
    body: { label: 'Operator key', scopes: ['admin'] },
    status: 201,
    action: 'key.create',
    actor: 'admin',
    target: (_vars, body) => body.id as string,
    remember: (vars, body) => {
      vars.keyId = body.id as string;
      vars.key = body.plaintext as string;
    },
  },
  {
    name: 'POST /workspaces/:slug/keys with an admin-scoped key writes key.create by apiKey',
    method: 'POST',
    url: () => '/workspaces/audited/keys',
    token: 'key',
    body: { label: 'Made by a key', scopes: ['query:read'] },
    status: 201,
    action: 'key.create',
    actor: 'apiKey',
    target: (_vars, body) => body.id as string,
    remember: (vars, body) => {
      vars.childId = body.id as string;
    },
  },
  {
    name: 'DELETE /workspaces/:slug/keys/:keyId with an admin-scoped key writes key.revoke by apiKey',
    method: 'DELETE',
    url: (vars) => `/workspaces/audited/keys/${vars.childId}`,
    token: 'key',
    status: 200,
    action: 'key.revoke',
    actor: 'apiKey',
    target: (vars) => vars.childId!,
  },
  {
    name: 'DELETE /workspaces/:slug/keys/:keyId with the admin token writes key.revoke by admin',
    method: 'DELETE',
    url: (vars) => `/workspaces/audited/keys/${vars.keyId}`,
    token: 'admin',
    status: 200,
    action: 'key.revoke',
    actor: 'admin',
    target: (vars) => vars.keyId!,
  },
];

async function readAll(server: TestServer, path: string): Promise<Entry[]> {
  const response = await server.request('GET', `${path}?limit=1000`);
  expect(response.status).toBe(200);
  expect(response.body.next_cursor).toBeNull();
  return response.body.entries as Entry[];
}

describe.each(prefixes)('audit under "%s"', (prefix) => {
  const clock = manualClock('2026-06-01T00:00:00.000Z');
  let server: TestServer;
  const vars: Record<string, string> = {};
  const auditPath = `${prefix}/workspaces/audited/audit`;

  beforeAll(async () => {
    server = await startTestServer({ clock });
  });
  afterAll(() => server.close());

  describe('every mutation writes exactly one row', () => {
    it.each(mutations)('$name', async (mutation) => {
      clock.advance(60_000);
      const before = (await settledTableCounts(server)).audit_log!;
      const response = await server.request(mutation.method, prefix + mutation.url(vars), {
        token: mutation.token === 'key' ? vars.key! : undefined,
        body: mutation.body,
      });
      expect(response.status, response.text).toBe(mutation.status);
      const body = (response.body ?? {}) as Record<string, unknown>;
      mutation.remember?.(vars, body);
      vars.workspaceId ??= body.id as string;
      expect((await settledTableCounts(server)).audit_log).toBe(before + 1);

      const newest = await server.request('GET', `${auditPath}?limit=1`);
      expect(newest.status).toBe(200);
      expect(newest.body.entries).toHaveLength(1);
      const entry = newest.body.entries[0] as Entry;
      expect(Object.keys(entry).sort()).toEqual(entryFields);
      expect(entry).toEqual({
        id: expect.stringMatching(uuidPattern),
        workspace_id: vars.workspaceId,
        actor_kind: mutation.actor,
        actor_id: mutation.actor === 'apiKey' ? vars.keyId : null,
        action: mutation.action,
        target: mutation.target(vars, body),
        metadata: expect.any(Object),
        ts: clock.iso(),
      });
      expect(Array.isArray(entry.metadata)).toBe(false);
    });

    it('reads write no audit rows', async () => {
      const before = await settledTableCounts(server);
      for (const path of ['/workspaces', '/workspaces/audited', '/workspaces/audited/sites', '/workspaces/audited/keys', '/workspaces/audited/audit']) {
        expect((await server.request('GET', prefix + path)).status).toBe(200);
      }
      expect(await settledTableCounts(server)).toEqual(before);
    });

    it('refused mutations write no audit rows', async () => {
      const before = await settledTableCounts(server);
      expect((await server.request('POST', `${prefix}/workspaces`, { body: { name: 'Again', slug: 'audited' } })).status).toBe(409);
      expect((await server.request('POST', `${prefix}/workspaces/audited/sites`, { body: { id: 'bad id', name: 'x' } })).status).toBe(400);
      expect((await server.request('DELETE', `${prefix}/workspaces/audited/sites/audited-site`)).status).toBe(404);
      expect((await server.request('DELETE', `${prefix}/workspaces/audited/keys/${vars.keyId}`)).status).toBe(404);
      expect((await server.request('PATCH', `${prefix}/workspaces/audited`, { body: { name: 'x', slug: 'y' } })).status).toBe(400);
      expect(await settledTableCounts(server)).toEqual(before);
    });
  });

  describe('ordering and the cursor', () => {
    let all: Entry[];
    beforeAll(async () => {
      all = await readAll(server, auditPath);
    });

    it('holds every mutation, newest first, with strictly decreasing timestamps', () => {
      expect(all.map((entry) => entry.action)).toEqual(mutations.map((mutation) => mutation.action).reverse());
      for (let index = 1; index < all.length; index += 1) expect(all[index - 1]!.ts > all[index]!.ts).toBe(true);
      for (const entry of all) expect(entry.ts).toMatch(isoPattern);
    });

    it('the default page (no cursor, no limit) is the same list', async () => {
      const response = await server.request('GET', auditPath);
      expect(response.body).toEqual({ entries: all, next_cursor: null });
    });

    it('a cursor equal to a row timestamp returns only rows strictly before it', async () => {
      for (let index = 0; index < all.length; index += 1) {
        const response = await server.request('GET', `${auditPath}?cursor=${encodeURIComponent(all[index]!.ts)}`);
        expect(response.status).toBe(200);
        expect(response.body).toEqual({ entries: all.slice(index + 1), next_cursor: null });
      }
    });

    it('a cursor one millisecond after a row includes it', async () => {
      const after = new Date(Date.parse(all[2]!.ts) + 1).toISOString();
      const response = await server.request('GET', `${auditPath}?cursor=${encodeURIComponent(after)}`);
      expect(response.body.entries).toEqual(all.slice(2));
    });

    it('a cursor with an offset names the same instant', async () => {
      const instant = Date.parse(all[3]!.ts);
      const local = new Date(instant + 2 * 3600_000).toISOString().replace('Z', '+02:00');
      const response = await server.request('GET', `${auditPath}?cursor=${encodeURIComponent(local)}`);
      expect(response.status).toBe(200);
      expect(response.body.entries).toEqual(all.slice(4));
    });

    it('a cursor before the oldest row gives an empty page and a null next_cursor', async () => {
      const response = await server.request('GET', `${auditPath}?cursor=2026-01-01T00:00:00Z`);
      expect(response.body).toEqual({ entries: [], next_cursor: null });
    });

    it('a cursor far in the future gives every row', async () => {
      const response = await server.request('GET', `${auditPath}?cursor=9999-12-31T23:59:59.999Z`);
      expect(response.body).toEqual({ entries: all, next_cursor: null });
    });

    it('next_cursor is the last row shown while older rows exist, and null once none do', async () => {
      const first = await server.request('GET', `${auditPath}?limit=${all.length - 1}`);
      expect(first.body).toEqual({ entries: all.slice(0, -1), next_cursor: all[all.length - 2]!.ts });
      const second = await server.request('GET', `${auditPath}?limit=${all.length - 1}&cursor=${encodeURIComponent(first.body.next_cursor)}`);
      expect(second.body).toEqual({ entries: all.slice(-1), next_cursor: null });
      // Exactly `limit` rows left: no older row exists, so no cursor.
      const exact = await server.request('GET', `${auditPath}?limit=${all.length}`);
      expect(exact.body).toEqual({ entries: all, next_cursor: null });
    });

    it('paging with limit=1 walks every row once, in order', async () => {
      expect(await walk(server, auditPath)).toEqual(all);
    });

    it('each workspace sees only its own rows', async () => {
      await seedWorkspace(server, 'neighbour', { sites: ['neighbour-site'] });
      const neighbour = await readAll(server, `${prefix}/workspaces/neighbour/audit`);
      expect(neighbour.map((entry) => entry.action)).toEqual(['site.create', 'workspace.create']);
      const neighbourId = neighbour[0]!.workspace_id;
      for (const entry of neighbour) expect(entry.workspace_id).toBe(neighbourId);
      expect(await readAll(server, auditPath)).toEqual(all);
    });
  });

  describe('rows written within one millisecond', () => {
    it('get distinct timestamps, all show on the default page, and paging neither skips nor repeats', async () => {
      clock.advance(60_000);
      // The clock does not move during this burst: every row is written "now".
      await seedWorkspace(server, 'burst', { sites: ['b1', 'b2', 'b3', 'b4'], scopes: ['admin'] });
      await server.request('PATCH', `${prefix}/workspaces/burst`, { body: { name: 'Burst renamed' } });
      const path = `${prefix}/workspaces/burst/audit`;
      const page = await server.request('GET', path);
      expect(page.status).toBe(200);
      const entries = page.body.entries as Entry[];
      expect(entries.map((entry) => entry.action)).toEqual([
        'workspace.update',
        'key.create',
        'site.create',
        'site.create',
        'site.create',
        'site.create',
        'workspace.create',
      ]);
      expect(new Set(entries.map((entry) => entry.ts)).size).toBe(entries.length);
      expect(entries[entries.length - 1]!.ts).toBe(clock.iso());
      expect(await walk(server, path)).toEqual(entries);
    });
  });

  describe('parameters', () => {
    it.each(['1', '1000', '01', '100'])('limit=%s is accepted', async (limit) => {
      const response = await server.request('GET', `${auditPath}?limit=${limit}`);
      expect(response.status).toBe(200);
      expect(response.body.entries.length).toBeLessThanOrEqual(Number(limit));
    });

    it.each(['0', '1001', '-1', 'abc', '1.5', '', ' 5', '1e2', '99999999999'])('limit=%j is 400 invalid_param', async (limit) => {
      const response = await server.request('GET', `${auditPath}?limit=${encodeURIComponent(limit)}`);
      expectFlatError(response, 400, 'invalid_param', ['/limit']);
      expect(Object.keys(response.body).sort()).toEqual(['details', 'error', 'message']);
    });

    it.each(['yesterday', '2026-02-30T00:00:00Z', '2026-13-01T00:00:00Z', '2026-03-01', '2026-03-01T00:00:00', '1772323200000', ''])(
      'cursor=%j is 400 invalid_param',
      async (cursor) => {
        const response = await server.request('GET', `${auditPath}?cursor=${encodeURIComponent(cursor)}`);
        expectFlatError(response, 400, 'invalid_param', ['/cursor']);
      },
    );

    it('without a limit, a page holds 100 rows', async () => {
      clock.advance(60_000);
      await seedWorkspace(server, 'many');
      for (let index = 0; index < 104; index += 1) {
        clock.advance(1);
        const response = await server.request('PATCH', `${prefix}/workspaces/many`, { body: { name: `Name ${index}` } });
        expect(response.status).toBe(200);
      }
      const path = `${prefix}/workspaces/many/audit`;
      const first = await server.request('GET', path);
      expect(first.body.entries).toHaveLength(100);
      expect(first.body.next_cursor).toBe(first.body.entries[99].ts);
      const rest = await server.request('GET', `${path}?cursor=${encodeURIComponent(first.body.next_cursor)}`);
      expect(rest.body.entries).toHaveLength(5);
      expect(rest.body.next_cursor).toBeNull();
      expect(rest.body.entries[4].action).toBe('workspace.create');
    });
  });

  describe('append-only storage', () => {
    it('UPDATE through the driver is refused and changes nothing', () => {
      const before = server.db.prepare('SELECT * FROM audit_log ORDER BY id').all();
      expect(() => server.db.prepare("UPDATE audit_log SET action = 'forged' WHERE action = 'key.revoke'").run()).toThrow(/append-only/);
      expect(() => server.db.prepare('UPDATE audit_log SET ts = ?').run('2000-01-01T00:00:00.000Z')).toThrow(/append-only/);
      expect(server.db.prepare('SELECT * FROM audit_log ORDER BY id').all()).toEqual(before);
    });

    it('DELETE through the driver is refused and removes nothing', () => {
      const before = server.db.prepare('SELECT * FROM audit_log ORDER BY id').all();
      expect(() => server.db.prepare("DELETE FROM audit_log WHERE action = 'workspace.create'").run()).toThrow(/append-only/);
      expect(() => server.db.prepare('DELETE FROM audit_log').run()).toThrow(/append-only/);
      expect(server.db.prepare('SELECT * FROM audit_log ORDER BY id').all()).toEqual(before);
    });
  });

  describe('a failed audit write rolls the mutation back', () => {
    const failing: { name: string; method: string; path: string; body?: unknown; unchanged: () => unknown }[] = [
      {
        name: 'POST /workspaces',
        method: 'POST',
        path: '/workspaces',
        body: { name: 'Doomed', slug: 'doomed' },
        unchanged: () => server.db.prepare("SELECT id FROM workspaces WHERE slug = 'doomed'").get() ?? null,
      },
      {
        name: 'PATCH /workspaces/:slug',
        method: 'PATCH',
        path: '/workspaces/neighbour',
        body: { name: 'Doomed' },
        unchanged: () => server.db.prepare("SELECT name, updated_at FROM workspaces WHERE slug = 'neighbour'").get(),
      },
      {
        name: 'POST /workspaces/:slug/sites',
        method: 'POST',
        path: '/workspaces/neighbour/sites',
        body: { id: 'doomed-site', name: 'Doomed' },
        unchanged: () => server.db.prepare("SELECT id FROM sites WHERE id = 'doomed-site'").get() ?? null,
      },
      {
        name: 'DELETE /workspaces/:slug/sites/:id',
        method: 'DELETE',
        path: '/workspaces/neighbour/sites/neighbour-site',
        unchanged: () => server.db.prepare("SELECT id, name FROM sites WHERE id = 'neighbour-site'").get(),
      },
      {
        name: 'POST /workspaces/:slug/keys',
        method: 'POST',
        path: '/workspaces/burst/keys',
        body: { label: 'Doomed', scopes: ['admin'] },
        unchanged: () => server.db.prepare("SELECT count(*) AS n FROM api_keys WHERE label = 'Doomed'").get(),
      },
      {
        name: 'DELETE /workspaces/:slug/keys/:keyId',
        method: 'DELETE',
        path: '/workspaces/burst/keys/{burstKey}',
        unchanged: () => server.db.prepare('SELECT id, revoked_at FROM api_keys WHERE workspace_id = (SELECT id FROM workspaces WHERE slug = ?)').all('burst'),
      },
    ];

    it.each(failing)('$name answers 500 and leaves the database as it was', async (scenario) => {
      const burstKey = (server.db.prepare("SELECT k.id FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id WHERE w.slug = 'burst'").get() as { id: string }).id;
      const path = prefix + scenario.path.replace('{burstKey}', burstKey);
      const counts = await settledTableCounts(server);
      const state = scenario.unchanged();
      clock.advance(1000);
      server.db.exec("CREATE TEMP TRIGGER audit_insert_fails BEFORE INSERT ON audit_log BEGIN SELECT RAISE(ABORT, 'audit store unavailable'); END");
      try {
        const response = await server.request(scenario.method, path, { body: scenario.body });
        expect(response.status).toBe(500);
        expect(response.body).toEqual({ error: 'internal_error', message: 'Internal server error' });
        expect(response.text).not.toContain('audit store unavailable');
      } finally {
        server.db.exec('DROP TRIGGER IF EXISTS temp.audit_insert_fails');
      }
      expect(await settledTableCounts(server)).toEqual(counts);
      expect(scenario.unchanged()).toEqual(state);
      // With the audit store back, the same request succeeds: the 500 was the audit write, nothing else.
      const retry = await server.request(scenario.method, path, { body: scenario.body });
      expect(retry.status).toBeLessThan(300);
    });
  });
});

/** Follows next_cursor with limit=1 until it is null; fails on a repeated row. */
async function walk(server: TestServer, path: string): Promise<Entry[]> {
  const seen: Entry[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 1000; guard += 1) {
    const query: string = cursor === null ? '?limit=1' : `?limit=1&cursor=${encodeURIComponent(cursor)}`;
    const response = await server.request('GET', path + query);
    expect(response.status).toBe(200);
    const entries = response.body.entries as Entry[];
    expect(entries.length).toBeLessThanOrEqual(1);
    for (const entry of entries) {
      expect(seen.some((previous) => previous.id === entry.id)).toBe(false);
      seen.push(entry);
    }
    cursor = response.body.next_cursor as string | null;
    if (cursor === null) return seen;
    expect(cursor).toBe(entries[0]!.ts);
  }
  throw new Error('the audit log did not end');
}
