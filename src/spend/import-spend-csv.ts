// POST /workspaces/:slug/spend/csv and `sightline spend import`: a CSV file of spend entries (RFC 4180, parsed by
// csv-parse), all or nothing. Every bad line is reported with its number; one bad line refuses the whole file.
import { isUtf8 } from 'node:buffer';
import { CsvError, parse } from 'csv-parse/sync';
import * as v from 'valibot';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import { type Actor, recordAudit } from '../audit/record-audit.ts';
import { insertSpendRow } from './queries/spend-writes.ts';
import { SpendEntryBody, type SpendEntryInput } from './spend-entry.ts';
import { toSpendRow } from './create-spend.ts';

/** The largest CSV body or file accepted, in bytes (1 MiB: about 25,000 lines). */
export const maxCsvBytes = 1024 * 1024;
export const csvColumns = ['date', 'source', 'medium', 'campaign', 'amount', 'currency'] as const;
/** At most this many refused lines are listed (the message gives the full count). */
export const maxReportedLines = 100;

export interface CsvLineProblem {
  /** 1-based line of the file (the header is line 1); for a record spanning lines, the line it ends on. */
  line: number;
  message: string;
}

function refuse(problems: CsvLineProblem[], message: string): ApiError {
  return new ApiError(400, 'invalid_payload', message, undefined, undefined, { rows: problems.slice(0, maxReportedLines) });
}

/**
 * The file's text when its bytes are UTF-8; otherwise the refusal names each line holding bytes that are not (a
 * multi-byte character never holds a newline byte, so the lines can be checked one by one). Never decoded with
 * replacement characters: a label would be stored altered.
 * @example decodeSpendCsv(Buffer.from('date,source,medium,campaign,amount,currency\n')) // the same text
 */
export function decodeSpendCsv(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  const problems: CsvLineProblem[] = [];
  let start = 0;
  for (let line = 1; start <= bytes.length; line++) {
    const end = bytes.indexOf(0x0a, start);
    const stop = end === -1 ? bytes.length : end;
    if (!isUtf8(bytes.subarray(start, stop))) problems.push({ line, message: 'is not valid UTF-8' });
    start = stop + 1;
  }
  throw refuse(problems, `The file is not UTF-8 (${problems.length === 1 ? 'one line holds' : `${problems.length} lines hold`} other bytes); nothing was imported`);
}

/**
 * Parses and checks the whole file before writing anything; a refusal is 400 invalid_payload with
 * `rows: [{ line, message }]`. A BOM, CRLF or LF line ends and blank lines are accepted.
 * @example parseSpendCsv('date,source,medium,campaign,amount,currency\n2026-01-01,google,cpc,spring,12.50,USD\n')
 */
export function parseSpendCsv(text: string): SpendEntryInput[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, { bom: true, info: true, relax_column_count: true, skip_empty_lines: true }) as unknown as typeof records;
  } catch (error) {
    if (error instanceof CsvError) {
      const line = Number((error as unknown as { lines?: number }).lines ?? 0) || 1;
      throw refuse([{ line, message: error.message }], 'The file is not valid CSV (RFC 4180); nothing was imported');
    }
    throw error;
  }
  const [header, ...rows] = records;
  const headerText = csvColumns.join(',');
  if (!header || header.record.length !== csvColumns.length || header.record.some((name, index) => name.trim().toLowerCase() !== csvColumns[index])) {
    throw refuse([{ line: header?.info.lines ?? 1, message: `the header must be ${headerText}` }], `The first line must be the header ${headerText}; nothing was imported`);
  }
  const problems: CsvLineProblem[] = [];
  const entries: SpendEntryInput[] = [];
  for (const { record, info } of rows) {
    if (record.length !== csvColumns.length) {
      problems.push({ line: info.lines, message: `must have ${csvColumns.length} fields (${headerText}), not ${record.length}` });
      continue;
    }
    const parsed = v.safeParse(SpendEntryBody, Object.fromEntries(csvColumns.map((name, index) => [name, record[index]])));
    if (parsed.success) entries.push(parsed.output);
    else problems.push({ line: info.lines, message: parsed.issues.map((issue) => `${issue.path?.map((item) => String(item.key)).join('.') ?? 'row'}: ${issue.message}`).join('; ') });
  }
  if (problems.length > 0) {
    throw refuse(problems, `${problems.length} of ${rows.length} lines are invalid${problems.length > maxReportedLines ? ` (the first ${maxReportedLines} are listed)` : ''}; nothing was imported`);
  }
  return entries;
}

/**
 * Imports every line of the file or none, with one audit row (spend.import).
 * @example importSpendCsv(context, actor, workspace, text) // { imported: 2 }
 */
export function importSpendCsv(context: AppContext, actor: Actor, workspace: WorkspaceRow, text: string): { imported: number } {
  if (Buffer.byteLength(text, 'utf8') > maxCsvBytes) throw ApiError.payloadTooLarge(maxCsvBytes);
  const entries = parseSpendCsv(text);
  return inWriteTransaction(context.db, () => {
    const now = toIso(context.clock.now());
    for (const entry of entries) insertSpendRow(context.db, toSpendRow(context, workspace, entry, now));
    recordAudit(context, { workspaceId: workspace.id, actor, action: 'spend.import', target: null, metadata: { imported: entries.length } });
    return { imported: entries.length };
  });
}
