// Sites over HTTP: create (exact shape, id and name rules at both edges, 409 site_id_taken across workspaces),
// list, and delete (204, then 404), each under both path prefixes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, settledTableCounts, type TestServer } from '../_setup.ts';
import { expectFlatError, flatError, manualClock, padTo, prefixes, runScenario, type Scenario } from './_helpers.ts';

const createdAt = '2026-04-02T08:30:00.000Z';
const id64 = 'Az09_-' + padTo(58, 'x');
const id65 = id64 + 'y';
const name128 = padTo(128, 's');

function createdSite(id: string, name: string) {
  return (response: { body: Record<string, unknown> }) => {
    expect(Object.keys(response.body).sort()).toEqual(['cookieless', 'created_at', 'id', 'name', 'retention_days']);
    expect(response.body).toEqual({ id, name, created_at: createdAt, cookieless: true, retention_days: null });
  };
}

const createScenarios: Scenario[] = [
  { name: 'creates a site', method: 'POST', url: '/workspaces/acme/sites', body: { id: 'blog', name: 'Blog' }, status: 201, expect: createdSite('blog', 'Blog') },
  { name: 'a one-character id is accepted', method: 'POST', url: '/workspaces/acme/sites', body: { id: 'Q', name: 'Q' }, status: 201, expect: createdSite('Q', 'Q') },
  { name: 'a 64-character id of every allowed class is accepted', method: 'POST', url: '/workspaces/acme/sites', body: { id: id64, name: 'Long' }, status: 201, expect: createdSite(id64, 'Long') },
  { name: 'a 65-character id is refused', method: 'POST', url: '/workspaces/acme/sites', body: { id: id65, name: 'Long' }, status: 400, expect: flatError('invalid_payload', ['/id']) },
  { name: 'an empty id is refused', method: 'POST', url: '/workspaces/acme/sites', body: { id: '', name: 'x' }, status: 400, expect: flatError('invalid_payload', ['/id']) },
  { name: 'a space in the id is refused', method: 'POST', url: '/workspaces/acme/sites', body: { id: 'my site', name: 'x' }, status: 400, expect: flatError('invalid_payload', ['/id']) },
  { name: 'a dot in the id is refused', method: 'POST', url: '/workspaces/acme/sites', body: { id: 'example.com', name: 'x' }, status: 400, expect: flatError('invalid_payload', ['/id']) },
  { name: 'a slash in the id is refused', method: 'POST', url: '/workspaces/acme/sites', body: { id: 'a/b', name: 'x' }, status: 400, expect: flatError('invalid_payload', ['/id']) },
  { name: 'a non-ASCII letter in the id is refused', method: 'POST', url: '/workspaces/acme/sites', body: { id: 'übung', name: 'x' }, status: 400, expect: flatError('invalid_payload', ['/id']) },
  { name: 'a newline in the id is refused', method: 'POST', url: '/workspaces/acme/sites', body: { id: 'blog\n', name: 'x' }, status: 400, expect: flatError('invalid_payload', ['/id']) },
  { name: 'a numeric id is refused', method: 'POST', url: '/workspaces/acme/sites', body: { id: 42, name: 'x' }, status: 400, expect: flatError('invalid_payload', ['/id']) },
  { name: 'a missing id is refused', method: 'POST', url: '/workspaces/acme/sites', body: { name: 'x' }, status: 400, expect: flatError('invalid_payload', ['/id']) },
  {
    name: 'a 128-character name with surrounding spaces is accepted and stored trimmed',
    method: 'POST',
    url: '/workspaces/acme/sites',
    body: { id: 'named', name: `   ${name128}\t` },
    status: 201,
    expect: createdSite('named', name128),
  },
  { name: 'a 129-character name is refused', method: 'POST', url: '/workspaces/acme/sites', body: { id: 'x1', name: name128 + 's' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  { name: 'a whitespace-only name is refused', method: 'POST', url: '/workspaces/acme/sites', body: { id: 'x1', name: ' \n ' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  { name: 'a missing name is refused', method: 'POST', url: '/workspaces/acme/sites', body: { id: 'x1' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  { name: 'a name of only U+200B is refused', method: 'POST', url: '/workspaces/acme/sites', body: { id: 'x1', name: '\u200b\u200b' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  { name: 'a NUL inside a name is refused', method: 'POST', url: '/workspaces/acme/sites', body: { id: 'x1', name: 'Blog\u0000Shop' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  { name: 'a lone surrogate in a name is refused', method: 'POST', url: '/workspaces/acme/sites', body: { id: 'x1', name: '\udfffBlog' }, status: 400, expect: flatError('invalid_payload', ['/name']) },
  { name: 'a taken id in the same workspace is 409 site_id_taken', method: 'POST', url: '/workspaces/acme/sites', body: { id: 'blog', name: 'Again' }, status: 409, expect: flatError('site_id_taken') },
  { name: 'a taken id in another workspace is 409 site_id_taken', method: 'POST', url: '/workspaces/other/sites', body: { id: 'blog', name: 'Mine' }, status: 409, expect: flatError('site_id_taken') },
  { name: 'an id of the other workspace is taken here too', method: 'POST', url: '/workspaces/acme/sites', body: { id: 'other-site', name: 'Mine' }, status: 409, expect: flatError('site_id_taken') },
  { name: 'a site in a missing workspace is 404', method: 'POST', url: '/workspaces/nope/sites', body: { id: 'fresh', name: 'x' }, status: 404, expect: flatError('not_found') },
];

describe.each(prefixes)('sites under "%s"', (prefix) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock: manualClock(createdAt) });
    await seedWorkspace(server, 'acme');
    await seedWorkspace(server, 'other', { sites: ['other-site'] });
  });
  afterAll(() => server.close());

  describe('POST /workspaces/:slug/sites', () => {
    it.each(createScenarios)('$name', async (scenario) => {
      const before = await settledTableCounts(server);
      const response = await runScenario(server, prefix, {}, scenario);
      const after = await settledTableCounts(server);
      if (response.status === 201) {
        expect(after).toEqual({ ...before, sites: before.sites! + 1, audit_log: before.audit_log! + 1 });
        const row = server.db.prepare('SELECT s.id, s.name, s.created_at, s.cookieless = 1 AS cookieless, s.retention_days, w.slug FROM sites s JOIN workspaces w ON w.id = s.workspace_id WHERE s.id = ?').get(response.body.id);
        expect(row).toEqual({ ...response.body, cookieless: response.body.cookieless ? 1 : 0, slug: 'acme' });
      } else {
        expect(after).toEqual(before);
      }
    });

    it('the site that lost the race keeps its workspace', async () => {
      const row = server.db.prepare('SELECT w.slug FROM sites s JOIN workspaces w ON w.id = s.workspace_id WHERE s.id = ?').get('blog');
      expect(row).toEqual({ slug: 'acme' });
    });
  });

  describe('GET /workspaces/:slug/sites', () => {
    it('lists exactly the sites of the workspace', async () => {
      const response = await server.request('GET', `${prefix}/workspaces/acme/sites`);
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(['next_cursor', 'sites']);
      expect(response.body.next_cursor).toBeNull();
      expect((response.body.sites as { id: string }[]).map((site) => site.id).sort()).toEqual(['Q', 'blog', id64, 'named'].sort());
      for (const site of response.body.sites) expect(Object.keys(site).sort()).toEqual(['cookieless', 'created_at', 'id', 'name', 'retention_days']);
      const other = await server.request('GET', `${prefix}/workspaces/other/sites`);
      expect(other.body).toEqual({ sites: [{ id: 'other-site', name: 'Site other-site', created_at: createdAt, cookieless: true, retention_days: null }], next_cursor: null });
    });

    it('a missing workspace is 404', async () => {
      expectFlatError(await server.request('GET', `${prefix}/workspaces/nope/sites`), 404, 'not_found');
    });
  });

  describe('DELETE /workspaces/:slug/sites/:id', () => {
    const deleteScenarios: Scenario[] = [
      { name: 'a site of another workspace is 404 through this workspace', method: 'DELETE', url: '/workspaces/acme/sites/other-site', status: 404, expect: flatError('not_found') },
      { name: 'an unknown site is 404', method: 'DELETE', url: '/workspaces/acme/sites/never-was', status: 404, expect: flatError('not_found') },
      { name: 'an id that could never exist is 404', method: 'DELETE', url: '/workspaces/acme/sites/not%20valid', status: 404, expect: flatError('not_found') },
      { name: 'a site under a missing workspace is 404', method: 'DELETE', url: '/workspaces/nope/sites/blog', status: 404, expect: flatError('not_found') },
      {
        name: 'deletes a site: 204 with no body',
        method: 'DELETE',
        url: '/workspaces/acme/sites/blog',
        status: 204,
        expect: (response: { text: string }) => expect(response.text).toBe(''),
      },
      { name: 'a second delete is 404', method: 'DELETE', url: '/workspaces/acme/sites/blog', status: 404, expect: flatError('not_found') },
    ];

    it.each(deleteScenarios)('$name', async (scenario) => {
      const before = await settledTableCounts(server);
      const response = await runScenario(server, prefix, {}, scenario);
      const after = await settledTableCounts(server);
      if (response.status === 204) expect(after).toEqual({ ...before, sites: before.sites! - 1, audit_log: before.audit_log! + 1 });
      else expect(after).toEqual(before);
    });

    it('the deleted site is gone from the list and the database; the others stay', async () => {
      const list = await server.request('GET', `${prefix}/workspaces/acme/sites`);
      expect((list.body.sites as { id: string }[]).map((site) => site.id)).not.toContain('blog');
      expect(server.db.prepare('SELECT id FROM sites WHERE id = ?').get('blog')).toBeUndefined();
      expect(server.db.prepare('SELECT id FROM sites WHERE id = ?').get('other-site')).toEqual({ id: 'other-site' });
    });
  });
});
