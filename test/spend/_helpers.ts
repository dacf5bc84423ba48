// Shared pieces of the spend and attribution tests: CSV bodies and spend entries. Not a test file itself.
import type { TestServer } from '../_setup.ts';
import type { TestResponse } from '../_http.ts';

export const csvHeader = 'date,source,medium,campaign,amount,currency';

/** POSTs `text` as text/csv to the workspace's import endpoint. */
export function postCsv(server: TestServer, slug: string, text: string | Uint8Array, options: { token?: string | null; contentType?: string } = {}): Promise<TestResponse> {
  return server.request('POST', `/v1/workspaces/${slug}/spend/csv`, {
    token: options.token,
    rawBody: text,
    headers: { 'content-type': options.contentType ?? 'text/csv' },
  });
}

/**
 * A valid CSV file of exactly `bytes` bytes (LF line ends): rows of 2026-01-01 google cpc spend, the campaign
 * names padded so the total lands exactly.
 */
export function csvOfSize(bytes: number): { text: string; rows: number } {
  const row = (campaign: string) => `2026-01-01,google,cpc,${campaign},1.00,USD\n`;
  const base = row('').length;
  let text = `${csvHeader}\n`;
  let rows = 0;
  while (bytes - text.length > 2 * base + 257) {
    text += row('x'.repeat(200));
    rows++;
  }
  let remaining = bytes - text.length;
  if (remaining - base > 256) {
    text += row('y'.repeat(100));
    rows++;
    remaining = bytes - text.length;
  }
  text += row('z'.repeat(remaining - base));
  rows++;
  if (Buffer.byteLength(text) !== bytes) throw new Error(`csvOfSize: ${Buffer.byteLength(text)} bytes, not ${bytes}`);
  return { text, rows };
}

export function spendRowCount(server: TestServer): number {
  return (server.db.prepare('SELECT count(*) AS n FROM spend').get() as { n: number }).n;
}
