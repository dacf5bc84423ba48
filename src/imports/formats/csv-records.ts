// CSV records one at a time through csv-parse's stream API (constant memory), each with the file line it starts on
// (the header is line 1), as objects keyed by the header's names.
import { parse } from 'csv-parse';

export type CsvRecord = { line: number; values: Record<string, string> } | { line: number; error: string };

/**
 * Checks the header has every column of `required` (a missing one fails line 1); rows with another number of fields
 * than the header, and unparseable CSV, are errors of their line. Parsing goes on after a bad row.
 */
export async function* readCsvRecords(input: NodeJS.ReadableStream, required: readonly string[], headerOf: (names: string[]) => string[] = (names) => names): AsyncGenerator<CsvRecord> {
  const parser = parse({ bom: true, relax_column_count: true, skip_empty_lines: true, info: true, relax_quotes: false });
  input.pipe(parser);
  let header: string[] | undefined;
  try {
    for await (const item of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      const { record, info } = item;
      if (!header) {
        header = headerOf(record);
        const missing = required.filter((name) => !header!.includes(name));
        if (missing.length > 0) {
          yield { line: info.lines, error: `the header lacks the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}` };
          return;
        }
        continue;
      }
      if (record.length !== header.length) {
        yield { line: info.lines, error: `has ${record.length} fields where the header has ${header.length}` };
        continue;
      }
      const values: Record<string, string> = {};
      for (let index = 0; index < header.length; index++) values[header[index]!] = record[index]!;
      yield { line: info.lines, values };
    }
  } catch (error) {
    // csv-parse stops at malformed CSV (an unclosed quote): that line is the error, and nothing after it is read.
    const line = (error as { lines?: number }).lines ?? 0;
    yield { line, error: `is not valid CSV: ${error instanceof Error ? error.message.replace(/^Invalid[^:]*:\s*/, '') : String(error)}` };
  } finally {
    // A reader that stopped early (a bad header, malformed CSV) leaves the rest: it is read to its end and dropped,
    // so a zip's next entry (src/imports/formats/zip-entries.ts) is reached.
    input.unpipe(parser);
    input.resume();
  }
  if (!header) yield { line: 1, error: 'the file is empty: a header line is expected' };
}
