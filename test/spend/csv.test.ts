// POST /workspaces/:slug/spend/csv over HTTP: RFC 4180 quoting, a BOM and CRLF, all or nothing with the number of
// every bad line, the header, the media type and the size cap at its edge.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { expectFlatError } from '../admin/_helpers.ts';
import { maxCsvBytes } from '../../src/spend/import-spend-csv.ts';
import { csvHeader, csvOfSize, postCsv, spendRowCount } from './_helpers.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  await seedWorkspace(server, 'alpha');
});
afterAll(() => server.close());
beforeEach(() => {
  server.db.prepare('DELETE FROM spend').run();
});

async function listAll(): Promise<Record<string, unknown>[]> {
  const response = await server.request('GET', '/v1/workspaces/alpha/spend?from=2026-01-01&to=2026-12-31&limit=1000');
  expect(response.status, response.text).toBe(200);
  return response.body.entries;
}

describe('what a spreadsheet exports is read as RFC 4180', () => {
  it('quoted fields keep their commas, doubled quotes and line breaks', async () => {
    const text = [
      csvHeader,
      '2026-01-01,google,cpc,"Spring, 2026",12.50,USD',
      '2026-01-02,"news ""daily""",display,"two',
      'lines",1000,JPY',
      '2026-01-03,bing,,,0.125,KWD',
      '',
    ].join('\n');
    const response = await postCsv(server, 'alpha', text);
    expect(response.status, response.text).toBe(201);
    expect(response.body).toEqual({ imported: 3 });
    const entries = await listAll();
    expect(entries.map((item) => [item.date, item.source, item.medium, item.campaign, item.amount, item.currency])).toEqual([
      ['2026-01-01', 'google', 'cpc', 'Spring, 2026', '12.50', 'USD'],
      ['2026-01-02', 'news "daily"', 'display', 'two\nlines', '1000', 'JPY'],
      ['2026-01-03', 'bing', null, null, '0.125', 'KWD'],
    ]);
  });

  it('takes a UTF-8 BOM and CRLF line ends (Excel), and blank lines', async () => {
    const text = `\uFEFF${csvHeader}\r\n2026-02-01,google,cpc,winter,9.99,EUR\r\n\r\n2026-02-02,google,cpc,winter,1,EUR\r\n`;
    const response = await postCsv(server, 'alpha', new TextEncoder().encode(text));
    expect(response.status, response.text).toBe(201);
    expect(response.body).toEqual({ imported: 2 });
    expect((await listAll()).map((item) => [item.date, item.campaign, item.amount])).toEqual([
      ['2026-02-01', 'winter', '9.99'],
      ['2026-02-02', 'winter', '1.00'],
    ]);
  });

  it('takes a header in another case and a file with the header only', async () => {
    expect((await postCsv(server, 'alpha', `${csvHeader.toUpperCase()}\n2026-01-01,g,,,1,USD\n`)).body).toEqual({ imported: 1 });
    expect((await postCsv(server, 'alpha', `${csvHeader}\n`)).body).toEqual({ imported: 0 });
  });

  it('records one spend.import audit row per file', async () => {
    await postCsv(server, 'alpha', `${csvHeader}\n2026-01-01,g,,,1,USD\n2026-01-02,g,,,1,USD\n`);
    const audit = await server.request('GET', '/v1/workspaces/alpha/audit?limit=1');
    expect(audit.body.entries[0]).toMatchObject({ action: 'spend.import', actor_kind: 'admin', target: null, metadata: { imported: 2 } });
  });
});

describe('all or nothing', () => {
  it('a bad line in the middle refuses the whole file, naming every bad line', async () => {
    const text = [
      csvHeader,
      '2026-01-01,google,cpc,a,1.00,USD',
      '2026-01-02,google,cpc,b,1.005,USD',
      '2026-01-03,google,cpc,c,1.00,USD',
      '2026-13-01,google,cpc,d,1.00,XXX',
      '2026-01-05,google,cpc,e,1.00',
      '2026-01-06,google,cpc,f,1.00,USD',
    ].join('\r\n');
    const response = await postCsv(server, 'alpha', text);
    expect(response.status, response.text).toBe(400);
    expect(response.body).toEqual({
      error: 'invalid_payload',
      message: expect.stringContaining('3 of 6 lines are invalid'),
      rows: [
        { line: 3, message: expect.stringContaining('amount') },
        { line: 5, message: expect.stringMatching(/date.*currency|currency.*date/) },
        { line: 6, message: expect.stringContaining('must have 6 fields') },
      ],
    });
    expect(spendRowCount(server)).toBe(0);
  });

  it.each([
    ['no header', '2026-01-01,google,cpc,a,1.00,USD\n', 1],
    ['a header in another order', 'source,date,medium,campaign,amount,currency\n', 1],
    ['an empty body', '', 1],
    ['an unterminated quote', `${csvHeader}\n2026-01-01,"google,cpc,a,1.00,USD\n`, 2],
  ])('refuses %s with the line named', async (_name, text, line) => {
    const response = await postCsv(server, 'alpha', text);
    expect(response.status, response.text).toBe(400);
    expect(response.body).toEqual({ error: 'invalid_payload', message: expect.any(String), rows: [{ line, message: expect.any(String) }] });
    expect(spendRowCount(server)).toBe(0);
  });

  it('a currency Intl cannot parse ("EURO") is a refused line, not a 500', async () => {
    const response = await postCsv(server, 'alpha', `${csvHeader}\n2026-01-01,google,cpc,a,1.00,USD\n2026-01-02,google,cpc,b,1.00,EURO\n`);
    expect(response.status, response.text).toBe(400);
    expect(response.body).toEqual({
      error: 'invalid_payload',
      message: expect.stringContaining('1 of 2 lines are invalid'),
      rows: [{ line: 3, message: 'currency: must be a known ISO 4217 currency code in upper case, such as USD' }],
    });
    expect(spendRowCount(server)).toBe(0);
  });

  it('bytes that are not UTF-8 are refused lines (rows), not a JSON refusal, and nothing is stored altered', async () => {
    const bytes = Buffer.concat([
      Buffer.from(`${csvHeader}\n2026-01-01,google,cpc,a,1.00,USD\n2026-01-02,`),
      Buffer.from([0xc0, 0xaf]),
      Buffer.from(',cpc,b,1.00,USD\n2026-01-03,caf'),
      Buffer.from([0xe9]),
      Buffer.from(',cpc,c,1.00,USD\n'),
    ]);
    const response = await postCsv(server, 'alpha', new Uint8Array(bytes));
    expect(response.status, response.text).toBe(400);
    expect(response.body).toEqual({
      error: 'invalid_payload',
      message: 'The file is not UTF-8 (2 lines hold other bytes); nothing was imported',
      rows: [
        { line: 3, message: 'is not valid UTF-8' },
        { line: 4, message: 'is not valid UTF-8' },
      ],
    });
    expect(spendRowCount(server)).toBe(0);
  });

  it('refuses another media type with 415', async () => {
    expectFlatError(await postCsv(server, 'alpha', `${csvHeader}\n`, { contentType: 'application/json' }), 415, 'unsupported_media_type');
  });
});

describe('the size cap', () => {
  it(`takes a file of exactly ${maxCsvBytes} bytes and refuses one byte more with 413`, async () => {
    const exact = csvOfSize(maxCsvBytes);
    const accepted = await postCsv(server, 'alpha', exact.text);
    expect(accepted.status, accepted.text.slice(0, 500)).toBe(201);
    expect(accepted.body).toEqual({ imported: exact.rows });
    expect(spendRowCount(server)).toBe(exact.rows);
    server.db.prepare('DELETE FROM spend').run();
    const over = csvOfSize(maxCsvBytes + 1);
    expectFlatError(await postCsv(server, 'alpha', over.text), 413, 'payload_too_large');
    expect(spendRowCount(server)).toBe(0);
  });
});
