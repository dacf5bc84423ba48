// The UI's own logic that needs no browser: CSV export (formula cells neutralised, RFC 4180 quoting) and the schema
// checker that keeps wrong numbers off the screen, run on a real answer of the server and on altered copies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';

interface CsvModule {
  neutraliseCell(value: unknown): string;
  toCsv(header: string[], rows: unknown[][]): string;
}
interface ValidateModule {
  mismatchOf(schema: unknown, value: unknown): string | null;
}
// Plain browser modules (web/admin is not type-checked): imported through a widened specifier.
const csv = (await import('../../web/admin/csv.js' as string)) as CsvModule;
const validate = (await import('../../web/admin/validate.js' as string)) as ValidateModule;

describe('CSV export', () => {
  it('neutralises every cell a spreadsheet would read as a formula, and only those', () => {
    for (const dangerous of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx', '=HYPERLINK("http://evil")']) {
      expect(csv.neutraliseCell(dangerous)).toBe(`'${dangerous}`);
    }
    for (const safe of ['/pricing', 'google.com', '1', '0.5', '', ' =x', "'quoted"]) expect(csv.neutraliseCell(safe)).toBe(safe);
    expect(csv.neutraliseCell(-3)).toBe("'-3");
    expect(csv.neutraliseCell(null)).toBe('');
  });

  it('quotes cells with commas, quotes and line breaks (RFC 4180), after neutralising', () => {
    const text = csv.toCsv(['Page', 'Views'], [['/a,b', 3], ['say "hi"', 1], ['=1,2', 2], ['two\nlines', 0]]);
    expect(text).toBe('Page,Views\r\n"/a,b",3\r\n"say ""hi""",1\r\n"\'=1,2",2\r\n"two\nlines",0\r\n');
  });
});

describe('the UI\'s schema check', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await seedWorkspace(server, 'acme', { sites: ['blog'] });
  });
  afterAll(() => server.close());

  it('accepts the server\'s answer and refuses altered numbers, missing and extra fields', async () => {
    const catalog = (await server.request('GET', '/v1/schemas')).body;
    const schema = catalog['GET /v1/sites/{siteId}/reports/summary-v2'];
    const answer = (await server.request('GET', '/v1/sites/blog/reports/summary-v2?from=2026-03-01&to=2026-03-02')).body;
    expect(validate.mismatchOf(schema, answer)).toBeNull();
    const altered = (change: (copy: any) => void) => {
      const copy = structuredClone(answer);
      change(copy);
      return validate.mismatchOf(schema, copy);
    };
    expect(altered((copy) => (copy.data.visitors = -1))).toBe('/data/visitors: below 0');
    expect(altered((copy) => (copy.data.visitors = 1.5))).toBe('/data/visitors: expected integer');
    expect(altered((copy) => (copy.data.pageviews = '3'))).toBe('/data/pageviews: expected integer');
    expect(altered((copy) => delete copy.data.visits)).toBe('/data/visits: missing');
    expect(altered((copy) => (copy.data.extra = 1))).toBe('/data/extra: not allowed');
    expect(altered((copy) => (copy.data.series[0].date = '2026-3-1'))).toMatch(/^\/data\/series\/0\/date: does not match/);
    expect(altered((copy) => (copy.meta.computed_from = 'guess'))).toBe('/meta/computed_from: not one of the allowed values');
    expect(altered((copy) => (copy.meta.scope = { site_id: 1 }))).toBe('/meta/scope: matches none of the allowed shapes');
  });
});
