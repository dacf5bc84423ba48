// Keyset pagination of the administration lists (workspaces, sites, keys): pages chain without duplicates or
// gaps even when rows share a timestamp, limit is 1-1000 (default 100), and a cursor the server did not issue is
// 400 invalid_param.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, settledTableCounts, type TestServer } from '../_setup.ts';
import { createKey, expectFlatError, manualClock, prefixes } from './_helpers.ts';

interface ListKind {
  name: 'workspaces' | 'sites' | 'keys';
  path: string;
  /** Creates one more row of this list through the API. */
  create: (server: TestServer, index: number) => Promise<void>;
}

const kinds: ListKind[] = [
  {
    name: 'workspaces',
    path: '/workspaces',
    create: async (server, index) => {
      await seedWorkspace(server, `w-${index}`);
    },
  },
  {
    name: 'sites',
    path: '/workspaces/paged/sites',
    create: async (server, index) => {
      const response = await server.request('POST', '/workspaces/paged/sites', { body: { id: `site-${index}`, name: `Site ${index}` } });
      expect(response.status).toBe(201);
    },
  },
  {
    name: 'keys',
    path: '/workspaces/paged/keys',
    create: async (server, index) => {
      await createKey(server, 'paged', ['query:read'], `key ${index}`);
    },
  },
];

const encode = (value: string) => Buffer.from(value, 'utf8').toString('base64url');

const forgedCursors: [string, string][] = [
  ['not base64 JSON', 'garbage-cursor'],
  ['punctuation', '!!!'],
  ['empty', ''],
  ['JSON null', encode('null')],
  ['an object', encode('{"created_at":"2026-01-01T00:00:00.000Z","id":"x"}')],
  ['numbers', encode('[1,2]')],
  ['one part', encode('["2026-01-01T00:00:00.000Z"]')],
  ['three parts', encode('["2026-01-01T00:00:00.000Z","a","b"]')],
  ['a timestamp this server never writes', encode('["yesterday","abc"]')],
  ['a date without time', encode('["2026-01-01","abc"]')],
  ['an id with spaces', encode('["2026-01-01T00:00:00.000Z","not an id"]')],
  ['an SQL fragment as id', encode(`["2026-01-01T00:00:00.000Z","' OR 1=1 --"]`)],
  ['longer than 512 characters', 'a'.repeat(513)],
];

async function walk(server: TestServer, path: string, field: string, limit: number): Promise<{ pages: number[]; rows: { id: string }[] }> {
  const pages: number[] = [];
  const rows: { id: string }[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 1000; guard += 1) {
    const query: string = cursor === null ? `?limit=${limit}` : `?limit=${limit}&cursor=${encodeURIComponent(cursor)}`;
    const response = await server.request('GET', path + query);
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual([field, 'next_cursor'].sort());
    pages.push(response.body[field].length);
    for (const row of response.body[field] as { id: string }[]) {
      expect(rows.some((seen) => seen.id === row.id), `row ${row.id} seen twice`).toBe(false);
      rows.push(row);
    }
    cursor = response.body.next_cursor;
    if (cursor === null) return { pages, rows };
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
  }
  throw new Error('the list did not end');
}

describe.each(prefixes)('pagination under "%s"', (prefix) => {
  const clock = manualClock('2026-09-01T00:00:00.000Z');
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ clock });
    await seedWorkspace(server, 'paged');
    await seedWorkspace(server, 'neighbour', { sites: ['n-1', 'n-2', 'n-3'] });
    // Nine rows of each list: three share one millisecond, three another, three are a second apart, so the id
    // must break ties for the pages to chain.
    for (const kind of kinds) {
      for (let index = 0; index < 9; index += 1) {
        if (index === 3 || index >= 6) clock.advance(1000);
        await kind.create(server, index);
      }
    }
  });
  afterAll(() => server.close());

  describe.each(kinds)('$name', (kind) => {
    let all: { id: string; created_at: string }[];

    beforeAll(async () => {
      const response = await server.request('GET', `${prefix}${kind.path}?limit=1000`);
      expect(response.status).toBe(200);
      expect(response.body.next_cursor).toBeNull();
      all = response.body[kind.name];
    });

    it('the whole list is in (created_at, id) order', () => {
      expect(all.length).toBeGreaterThanOrEqual(9);
      const sorted = [...all].sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1));
      expect(all).toEqual(sorted);
    });

    it.each([1, 2, 3, 4, 5])('pages of %i chain to the whole list, once each', async (limit) => {
      const { pages, rows } = await walk(server, prefix + kind.path, kind.name, limit);
      expect(rows).toEqual(all);
      expect(pages.slice(0, -1).every((size) => size === limit)).toBe(true);
      expect(pages[pages.length - 1]).toBeGreaterThan(0);
    });

    it('a page of exactly the remaining rows has a null next_cursor', async () => {
      const response = await server.request('GET', `${prefix}${kind.path}?limit=${all.length}`);
      expect(response.body).toEqual({ [kind.name]: all, next_cursor: null });
    });

    it.each(['1', '1000'])('limit=%s is accepted', async (limit) => {
      const response = await server.request('GET', `${prefix}${kind.path}?limit=${limit}`);
      expect(response.status).toBe(200);
      expect(response.body[kind.name]).toEqual(all.slice(0, Number(limit)));
    });

    it.each(['0', '1001', '-5', 'ten', '2.5', ''])('limit=%j is 400 invalid_param', async (limit) => {
      const before = await settledTableCounts(server);
      const response = await server.request('GET', `${prefix}${kind.path}?limit=${encodeURIComponent(limit)}`);
      expectFlatError(response, 400, 'invalid_param', ['/limit']);
      expect(await settledTableCounts(server)).toEqual(before);
    });

    it.each(forgedCursors)('a forged cursor (%s) is 400 invalid_param', async (_name, cursor) => {
      const response = await server.request('GET', `${prefix}${kind.path}?cursor=${encodeURIComponent(cursor)}`);
      expectFlatError(response, 400, 'invalid_param', ['/cursor']);
    });
  });

  it("a sites cursor of one workspace, replayed on another's list, shows only that other workspace's sites", async () => {
    const first = await server.request('GET', `${prefix}/workspaces/paged/sites?limit=1`);
    const replayed = await server.request('GET', `${prefix}/workspaces/neighbour/sites?limit=1000&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(replayed.status).toBe(200);
    for (const site of replayed.body.sites as { id: string }[]) expect(site.id).toMatch(/^n-/);
  });
});

describe('the default limit is 100', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock: manualClock('2026-09-02T00:00:00.000Z') });
    await seedWorkspace(server, 'paged');
    // 101 rows of each list (the paged workspace itself is one of the 101 workspaces).
    for (let index = 0; index < 100; index += 1) await kinds[0]!.create(server, index);
    for (const kind of kinds.slice(1)) for (let index = 0; index < 101; index += 1) await kind.create(server, index);
  });
  afterAll(() => server.close());

  it.each(prefixes.flatMap((prefix) => kinds.map((kind) => [prefix, kind.name, kind] as const)))('under "%s", %s', async (prefix, _name, kind) => {
    const first = await server.request('GET', prefix + kind.path);
    expect(first.status).toBe(200);
    expect(first.body[kind.name]).toHaveLength(100);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await server.request('GET', `${prefix}${kind.path}?cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body[kind.name]).toHaveLength(1);
    expect(second.body.next_cursor).toBeNull();
  });
});
