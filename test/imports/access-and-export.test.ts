// The import and export routes' refusals (scopes, tenant isolation, headers, media types, IMPORT_MAX_BYTES at its
// edge) and the export: ndjson round-trips the raw events byte for byte, csv holds the derived fields, the day range
// bounds it, and a site's export never holds another site's events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../admin/_helpers.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { importFile, umamiCsv } from './_fixtures.ts';

const maxBytes = 1_200;
let server: TestServer;
let adminKey: string;
let readKey: string;
let foreignKey: string;
let importId: string;

/** A Umami file padded to exactly `size` bytes (the padding is in a page title). */
function umamiFileOf(size: number): string {
  const file = umamiCsv([{ session: 's', event: 'e2000000-0000-4000-8000-000000000001', path: '/', at: '2026-03-02 10:00:00' }]);
  const padding = size - Buffer.byteLength(file);
  return file.replace('A page, ""quoted""', `A page, ""quoted""${'x'.repeat(padding)}`);
}

beforeAll(async () => {
  server = await startTestServer({ clock: manualClock('2026-03-10T12:00:00.000Z'), env: { IMPORT_MAX_BYTES: String(maxBytes) } });
  adminKey = (await seedWorkspace(server, 'ax-a', { sites: ['ax-site', 'ax-other'], scopes: ['admin'] })).key!;
  readKey = (await server.request('POST', '/workspaces/ax-a/keys', { body: { label: 'read', scopes: ['query:read'] } })).body.plaintext;
  foreignKey = (await seedWorkspace(server, 'ax-x', { sites: ['ax-foreign'], scopes: ['admin'] })).key!;
  importId = (await importFile(server, 'ax-site', 'umami-csv', umamiFileOf(maxBytes), adminKey)).id;
});
afterAll(async () => server.close());

describe('import routes refuse', () => {
  const csv = { 'content-type': 'text/csv', 'x-import-format': 'umami-csv' };
  const scenarios: { name: string; method: string; url: () => string; token?: () => string | null; headers?: Record<string, string>; body?: string; status: number; code: string }[] = [
    { name: 'no credential', method: 'POST', url: () => '/v1/sites/ax-site/imports', token: () => null, headers: csv, body: 'x', status: 401, code: 'unauthorized' },
    { name: 'a query:read key (upload)', method: 'POST', url: () => '/v1/sites/ax-site/imports', token: () => readKey, headers: csv, body: 'x', status: 403, code: 'forbidden_scope' },
    { name: 'a query:read key (status)', method: 'GET', url: () => `/v1/sites/ax-site/imports/${importId}`, token: () => readKey, status: 403, code: 'forbidden_scope' },
    { name: 'a query:read key (delete)', method: 'DELETE', url: () => `/v1/sites/ax-site/imports/${importId}`, token: () => readKey, status: 403, code: 'forbidden_scope' },
    { name: 'a query:read key (export)', method: 'GET', url: () => '/v1/sites/ax-site/export?from=2026-03-01&to=2026-03-03', token: () => readKey, status: 403, code: 'forbidden_scope' },
    { name: "another workspace's key (upload)", method: 'POST', url: () => '/v1/sites/ax-site/imports', token: () => foreignKey, headers: csv, body: 'x', status: 404, code: 'not_found' },
    { name: "another workspace's key (status)", method: 'GET', url: () => `/v1/sites/ax-site/imports/${importId}`, token: () => foreignKey, status: 404, code: 'not_found' },
    { name: "another workspace's key (list)", method: 'GET', url: () => '/v1/sites/ax-site/imports', token: () => foreignKey, status: 404, code: 'not_found' },
    { name: "another workspace's key (delete)", method: 'DELETE', url: () => `/v1/sites/ax-site/imports/${importId}`, token: () => foreignKey, status: 404, code: 'not_found' },
    { name: "another workspace's key (export)", method: 'GET', url: () => '/v1/sites/ax-site/export?from=2026-03-01&to=2026-03-03', token: () => foreignKey, status: 404, code: 'not_found' },
    { name: "another site's import", method: 'GET', url: () => `/v1/sites/ax-other/imports/${importId}`, status: 404, code: 'not_found' },
    { name: "another site's import (delete)", method: 'DELETE', url: () => `/v1/sites/ax-other/imports/${importId}`, status: 404, code: 'not_found' },
    { name: 'a missing site', method: 'GET', url: () => '/v1/sites/nope/imports', status: 404, code: 'not_found' },
    { name: 'no X-Import-Format', method: 'POST', url: () => '/v1/sites/ax-site/imports', headers: { 'content-type': 'text/csv' }, body: 'x', status: 400, code: 'invalid_param' },
    { name: 'an unknown format', method: 'POST', url: () => '/v1/sites/ax-site/imports', headers: { ...csv, 'x-import-format': 'matomo' }, body: 'x', status: 400, code: 'invalid_param' },
    { name: 'another media type', method: 'POST', url: () => '/v1/sites/ax-site/imports', headers: { ...csv, 'content-type': 'application/json' }, body: '{}', status: 415, code: 'unsupported_media_type' },
    { name: 'an empty file', method: 'POST', url: () => '/v1/sites/ax-site/imports', headers: csv, body: '', status: 400, code: 'invalid_payload' },
    { name: 'a file one byte over IMPORT_MAX_BYTES', method: 'POST', url: () => '/v1/sites/ax-site/imports', headers: csv, body: umamiFileOf(maxBytes + 1), status: 413, code: 'payload_too_large' },
    { name: 'an export format', method: 'GET', url: () => '/v1/sites/ax-site/export?from=2026-03-01&to=2026-03-03&format=xml', status: 400, code: 'invalid_param' },
    { name: 'an export without from', method: 'GET', url: () => '/v1/sites/ax-site/export?to=2026-03-03', status: 400, code: 'invalid_date_param' },
    { name: 'an export range backwards', method: 'GET', url: () => '/v1/sites/ax-site/export?from=2026-03-04&to=2026-03-03', status: 400, code: 'invalid_date_range' },
  ];
  it.each(scenarios)('$name: $status $code', async ({ method, url, token, headers, body, status, code }) => {
    const imports = (await server.request('GET', '/v1/sites/ax-site/imports')).body.imports.length;
    const response = await server.request(method, url(), { token: token ? token() : undefined, headers, rawBody: body });
    expect(response.status, response.text).toBe(status);
    expect(response.body.error.code).toBe(code);
    expect((await server.request('GET', '/v1/sites/ax-site/imports')).body.imports).toHaveLength(imports);
  });

  it('accepts a file of exactly IMPORT_MAX_BYTES (the import of beforeAll)', async () => {
    const status = await server.request('GET', `/v1/sites/ax-site/imports/${importId}`, { token: adminKey });
    expect(status.body).toMatchObject({ status: 'done', bytes_total: maxBytes, events_imported: 1 });
  });

  it('lists the site\'s imports, and refuses to delete one that is running (409)', async () => {
    const list = await server.request('GET', '/v1/sites/ax-site/imports');
    expect(list.body.imports.map((row: any) => row.id)).toEqual([importId]);
    expect((await server.request('GET', '/v1/sites/ax-other/imports')).body.imports).toEqual([]);
    server.db.prepare("UPDATE imports SET status = 'running' WHERE id = ?").run(importId);
    const refused = await server.request('DELETE', `/v1/sites/ax-site/imports/${importId}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('import_running');
    server.db.prepare("UPDATE imports SET status = 'done' WHERE id = ?").run(importId);
  });

  it('a file that is not a zip fails its plausible-csv import (nothing stored)', async () => {
    const response = await server.request('POST', '/v1/sites/ax-site/imports', { headers: { 'content-type': 'application/zip', 'x-import-format': 'plausible-csv' }, rawBody: 'PK, not a zip' });
    expect(response.status).toBe(202);
    await server.app.imports.idle();
    const status = await server.request('GET', `/v1/sites/ax-site/imports/${response.body.id}`);
    expect(status.body).toMatchObject({ status: 'failed', events_imported: 0 });
    expect(status.body.errors).toHaveLength(1);
    expect((await server.request('DELETE', `/v1/sites/ax-site/imports/${response.body.id}`)).status).toBe(200);
  });
});

describe('export', () => {
  // Exact texts, with spacing and key order of their own: the export must give them back byte for byte.
  const texts = [
    `{"id":"${crypto.randomUUID()}", "site_id":"ax-other","anon_id":"v-1","ts":"2026-03-02T09:00:00Z","type":"pageview","url":"https://shop.example/a?b=1",  "props":{"z":1.50,"a":"é\\u00e9"}}`,
    `{ "type":"signup","anon_id":"v-1","id":"${crypto.randomUUID()}","site_id":"ax-other","ts":"2026-03-02T09:01:00.5+01:00","user_id":"u-1","props":{"plan":"pro, \\"gold\\""} }`,
    `{"id":"${crypto.randomUUID()}","site_id":"ax-other","anon_id":"v-2","ts":"2026-03-03T23:59:59.999Z","type":"pageview","url":"https://shop.example/"}`,
  ];
  const outside = `{"id":"${crypto.randomUUID()}","site_id":"ax-other","anon_id":"v-3","ts":"2026-03-04T00:00:00Z","type":"pageview","url":"https://shop.example/"}`;

  beforeAll(async () => {
    const response = await server.request('POST', '/s2s/events', { token: 'ax-other', rawBody: `[${[...texts, outside].join(',')}]`, headers: { 'content-type': 'application/json' } });
    expect(response.status, response.text).toBe(202);
  });

  it('ndjson: one line per event of the range, in event-time order, raw as received byte for byte', async () => {
    const response = await server.request('GET', '/v1/sites/ax-other/export?from=2026-03-02&to=2026-03-03');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    const lines = response.text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(3);
    // The second event is at 08:01:00.5 UTC: before the first.
    const order = [texts[1]!, texts[0]!, texts[2]!];
    lines.forEach((line, index) => {
      expect(line.endsWith(`,"raw":${order[index]}}`)).toBe(true);
      const parsed = JSON.parse(line);
      expect(parsed.raw).toEqual(JSON.parse(order[index]!));
    });
    expect(JSON.parse(lines[0]!)).toMatchObject({ type: 'signup', ts: '2026-03-02T08:01:00.500Z', anon_id: 'v-1', user_id: 'u-1', is_bot: false, path: null });
    expect(JSON.parse(lines[1]!)).toMatchObject({ type: 'pageview', path: '/a', query: 'b=1', source: 'direct' });
  });

  it('csv: a header and the derived fields, quoted where needed', async () => {
    const response = await server.request('GET', '/v1/sites/ax-other/export?from=2026-03-02&to=2026-03-02&format=csv');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = response.text.trimEnd().split('\n');
    expect(lines[0]).toBe('id,type,ts,received_at,anon_id,user_id,path,query,source,utm_source,utm_medium,utm_campaign,browser,os,device_type,country,region,city,is_bot,is_internal,revenue_minor,revenue_currency');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^[0-9a-f-]{36},signup,2026-03-02T08:01:00.500Z,2026-03-10T12:00:00.000Z,v-1,u-1,,,direct,/);
  });

  it("a site's export holds its events only (the import's event is ax-site's)", async () => {
    const response = await server.request('GET', '/v1/sites/ax-site/export?from=2026-03-01&to=2026-03-31');
    const lines = response.text.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ anon_id: 's', path: '/', country: 'US', browser: 'Chrome' });
  });
});
