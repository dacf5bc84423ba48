// Umami's event_data table as CSV (COPY event_data TO … CSV HEADER, or the event_data file of its data export): one
// row per property of an event (website_event_id, data_key, a value in the column its data_type names). Its rows are
// checked and kept in a temporary SQLite database, on disk and private to the import (memory stays bounded whatever
// the file's size), then each website_event row looks its properties up by its event_id (umami-csv.ts).
import Database from 'better-sqlite3';
import { sqliteBinding } from '../../db/open.ts';
import { readCsvRecords } from './csv-records.ts';
import { sourceTimeToIso } from './source-time.ts';

/** The columns read (Umami's layout also has event_data_id, website_id and created_at, which are not needed). */
export const umamiEventDataColumns = ['website_event_id', 'data_key', 'string_value', 'number_value', 'date_value', 'data_type'] as const;

/** Umami's DATA_TYPE: 1 string, 2 number, 3 boolean, 4 date, 5 array. */
type PropValue = string | number | boolean | unknown[];

/** A row's property value from the column its data_type names, or why it cannot be read. */
export function umamiDataValue(row: Record<string, string>): { value: PropValue } | { error: string } {
  const text = row.string_value ?? '';
  switch (row.data_type) {
    case '1':
      return { value: text };
    case '2': {
      // Umami's later schemas copy numbers into string_value too.
      const number = row.number_value || text;
      return /^-?\d+(\.\d+)?$/.test(number) ? { value: Number(number) } : { error: `number_value must be a number for data_type 2, not ${JSON.stringify(number)}` };
    }
    case '3':
      return text === 'true' || text === 'false' ? { value: text === 'true' } : { error: `string_value must be true or false for data_type 3, not ${JSON.stringify(text)}` };
    case '4': {
      const iso = sourceTimeToIso(row.date_value || text);
      return iso ? { value: iso } : { error: `date_value must be a date and time for data_type 4, not ${JSON.stringify(row.date_value || text)}` };
    }
    case '5': {
      try {
        const parsed: unknown = JSON.parse(text);
        if (Array.isArray(parsed)) return { value: parsed };
      } catch {
        // reported below
      }
      return { error: `string_value must be a JSON array for data_type 5, not ${JSON.stringify(text.slice(0, 60))}` };
    }
    default:
      return { error: `data_type must be 1 (string), 2 (number), 3 (boolean), 4 (date) or 5 (array), not ${JSON.stringify(row.data_type)}` };
  }
}

/** Rows put in one transaction while loading. */
const loadBatch = 10_000;

export interface UmamiEventData {
  /** The properties of an event (its source event_id), in the file's order; undefined when it has none. */
  propsOf(eventId: string): Record<string, unknown> | undefined;
  close(): void;
}

/**
 * Reads event_data's rows into a temporary database: the errors (first `maxErrors`, with their lines) or the
 * lookup. `onRow` is told of each row read (progress).
 * @example const data = await loadUmamiEventData(stream, 100, () => progress.rows_read++); data.lookup?.propsOf(id)
 */
export async function loadUmamiEventData(
  input: NodeJS.ReadableStream,
  maxErrors: number,
  onRow: () => void,
): Promise<{ errors: { line: number; message: string }[]; lookup?: UmamiEventData }> {
  // An empty file name: SQLite's private temporary database, on disk, deleted when closed.
  const db = new Database('', sqliteBinding());
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec('CREATE TABLE data (event_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL)');
  const insert = db.prepare<[string, string, string]>('INSERT INTO data (event_id, key, value) VALUES (?, ?, ?)');
  const insertAll = db.transaction((rows: [string, string, string][]) => {
    for (const row of rows) insert.run(...row);
  });
  const errors: { line: number; message: string }[] = [];
  let batch: [string, string, string][] = [];
  try {
    for await (const record of readCsvRecords(input, umamiEventDataColumns)) {
      onRow();
      let message: string | undefined;
      if ('error' in record) message = record.error;
      else if (!record.values.website_event_id) message = 'website_event_id is required';
      else if (!record.values.data_key) message = 'data_key is required';
      else {
        const parsed = umamiDataValue(record.values);
        if ('error' in parsed) message = parsed.error;
        else if (errors.length === 0) batch.push([record.values.website_event_id, record.values.data_key, JSON.stringify(parsed.value)]);
      }
      if (message !== undefined && errors.length < maxErrors) errors.push({ line: record.line, message });
      if (batch.length >= loadBatch) {
        insertAll(batch);
        batch = [];
      }
    }
    if (errors.length > 0) {
      db.close();
      return { errors };
    }
    insertAll(batch);
    db.exec('CREATE INDEX data_by_event ON data (event_id)');
  } catch (error) {
    db.close();
    throw error;
  }
  const select = db.prepare<[string], [string, string]>('SELECT key, value FROM data WHERE event_id = ? ORDER BY rowid').raw();
  return {
    errors,
    lookup: {
      propsOf(eventId) {
        const rows = select.all(eventId);
        if (rows.length === 0) return undefined;
        const props: Record<string, unknown> = {};
        for (const [key, value] of rows) props[key] = JSON.parse(value);
        return props;
      },
      close: () => db.close(),
    },
  };
}
