// Imported events are stored in time order whatever the file's order (an external sort, src/imports/time-sorted-runs.ts),
// and that changes no figure: a scrambled GoatCounter file imported at once gives the same reports as the same rows
// imported in pieces of a few rows, one after the other (so stored in no time order, as imports were before the sort).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../admin/_helpers.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { goatCounterCsv, type GoatCounterRow, importFile } from './_fixtures.ts';

const range = 'from=2026-03-01&to=2026-03-04';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ clock: manualClock('2026-03-10T12:00:00.000Z') });
  await seedWorkspace(server, 'order-a', { sites: ['sorted-site', 'unsorted-site'] });
});
afterAll(async () => server.close());

const paths = ['/', '/pricing', '/docs', '/blog'];
const referrers = ['news.ycombinator.com/item?id=1', 'google.com/search', ''];
const locations = ['US-TX', 'NL', 'DE-BE'];
const browsers = ['Firefox 121', 'Chrome 120'];

/**
 * Six visitors over three days, three visits each, four events a visit (one of them a custom event, one visitor a
 * bot). Visit v of visitor s starts on day v at 09:00 + s hours; its events are 5 minutes apart.
 */
function timeOrderedRows(): GoatCounterRow[] {
  const rows: GoatCounterRow[] = [];
  for (let day = 0; day < 3; day++) {
    for (let visitor = 0; visitor < 6; visitor++) {
      for (let step = 0; step < 4; step++) {
        const at = Date.UTC(2026, 2, 1 + day, 9 + visitor, step * 5);
        rows.push({
          path: step === 3 ? 'signup-click' : paths[(visitor + step + day) % paths.length]!,
          event: step === 3,
          session: `visitor-${visitor}`,
          date: new Date(at).toISOString().replace('.000', ''),
          bot: visitor === 5 ? '1' : '0',
          browser: browsers[visitor % browsers.length],
          referrer: step === 0 ? referrers[(visitor + day) % referrers.length] : '',
          scheme: step === 0 && referrers[(visitor + day) % referrers.length] ? 'h' : '',
          location: locations[visitor % locations.length],
        });
      }
    }
  }
  return rows.sort((a, b) => a.date.localeCompare(b.date));
}

/** A fixed scramble (a stride prime to the count): the file holds the rows in no time order. */
function scrambled(rows: GoatCounterRow[]): GoatCounterRow[] {
  return rows.map((_, index) => rows[(index * 29) % rows.length]!);
}

/** Two rows of the same second, in this file order: ties keep it. */
const tiedRows: GoatCounterRow[] = [
  { path: '/tie-first', session: 'tie-visitor', date: '2026-03-02T20:00:00Z' },
  { path: '/tie-second', session: 'tie-visitor', date: '2026-03-02T20:00:00Z' },
];

const storedOrder = (site: string) =>
  server.db.prepare<[string], { ts: number; path: string | null; type: string }>('SELECT ts, path, type FROM events WHERE site_id = ? ORDER BY seq').all(site);

const isNonDecreasing = (values: number[]) => values.every((value, index) => index === 0 || values[index - 1]! <= value);

async function report(site: string, name: string, extra: string): Promise<unknown> {
  const response = await server.request('GET', `/v1/sites/${site}/reports/${name}?${range}${extra}`);
  expect(response.status, response.text).toBe(200);
  return response.body.data;
}

describe('imports stored in time order', () => {
  const file = [...scrambled(timeOrderedRows()), ...tiedRows];

  it('stores a scrambled file in time order, ties in file order, and leaves no sort file behind', async () => {
    expect(isNonDecreasing(file.map((row) => Date.parse(row.date)))).toBe(false);
    const status = await importFile(server, 'sorted-site', 'goatcounter-csv', goatCounterCsv(file));
    expect(status).toMatchObject({ status: 'done', rows_read: file.length, events_imported: file.length, duplicates: 0, days_imported: 3, errors: [] });
    const stored = storedOrder('sorted-site');
    expect(stored.map((row) => row.ts)).toEqual(file.map((row) => Date.parse(row.date)).sort((a, b) => a - b));
    const ties = stored.filter((row) => row.path?.startsWith('/tie-')).map((row) => row.path);
    expect(ties).toEqual(['/tie-first', '/tie-second']);
    expect(readdirSync(join(server.dataDir, 'imports')).filter((name) => name.endsWith('.sort'))).toEqual([]);
  });

  it('a re-import of the scrambled file stores nothing', async () => {
    const status = await importFile(server, 'sorted-site', 'goatcounter-csv', goatCounterCsv(file));
    expect(status).toMatchObject({ status: 'done', events_imported: 0, duplicates: file.length });
  });

  it('the same rows imported in pieces of 8 are stored in no time order (the unsorted baseline)', async () => {
    for (let start = 0; start < file.length; start += 8) {
      const piece = file.slice(start, start + 8);
      const status = await importFile(server, 'unsorted-site', 'goatcounter-csv', goatCounterCsv(piece));
      expect(status).toMatchObject({ status: 'done', events_imported: piece.length });
    }
    const stored = storedOrder('unsorted-site').map((row) => row.ts);
    expect(stored).toHaveLength(file.length);
    expect(isNonDecreasing(stored)).toBe(false);
  });

  it.each([
    { reportName: 'summary-v2', extra: '' },
    { reportName: 'summary-v2', extra: '&interval=hour' },
    { reportName: 'pages-v2', extra: '' },
    { reportName: 'sources-v2', extra: '' },
    { reportName: 'breakdown-v2', extra: '&by=country' },
    { reportName: 'breakdown-v2', extra: '&by=region' },
    { reportName: 'breakdown-v2', extra: '&by=browser' },
    { reportName: 'summary-v2', extra: '&path=/pricing' },
    { reportName: 'sources-v2', extra: '&country=US' },
  ])('$reportName $extra: the sorted import answers as the unsorted one', async ({ reportName, extra }) => {
    const sorted = await report('sorted-site', reportName, extra);
    expect(sorted).toEqual(await report('unsorted-site', reportName, extra));
    expect(JSON.stringify(sorted)).toMatch(/"visitors":[1-9]/);
  });
});
