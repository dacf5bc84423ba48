// An import's checked events put in time order in bounded memory: an external merge sort. Events are kept in memory
// until a run's byte bound, then sorted by time (stably: ties keep file order) and written as text lines to a run
// file in the scratch directory; reading merges the runs a line at a time. The events table is then written in time
// order, so the projector writes a day's rollup rows once per batch instead of once per event of a spread-out file
// (docs/import-export.md, "Time order"). One run that never outgrew memory is read from memory, with no file.
import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredEventInput } from '../event-store/stored-event.ts';

/** Bytes of events (raw text, and an estimate for the rest) held before a run is written: the sort's memory, bar the merge's reads. */
export const defaultRunBytes = 16 << 20;
/** Each run's read buffer while merging (a 10-million-event file at 16 MiB a run makes about 500 runs: 32 MiB). */
const mergeReadBytes = 64 << 10;
/** Bytes written to a run file per write call. */
const writeChunkChars = 1 << 20;

/**
 * One event as one line: its fields but raw as a JSON array (in the order of the first event's keys), a tab, then raw
 * as it is (a JSON text never holds a raw tab or newline). The time comes first, so the merge reads it off the line.
 */
function lineOf(keys: readonly string[], event: StoredEventInput): string {
  const record = event as unknown as Record<string, unknown>;
  const values = new Array<unknown>(keys.length + 1);
  values[0] = event.ts;
  for (let index = 0; index < keys.length; index++) values[index + 1] = record[keys[index]!];
  return `${JSON.stringify(values)}\t${event.raw}`;
}

/**
 * A line back into an event, by a function made once per sort for its keys: an object literal of fixed keys gets one
 * hidden class, where assigning keys by name in a loop cost about 12 µs an event (a third of storing one).
 */
function eventReader(keys: readonly string[]): (line: string) => StoredEventInput {
  const fields = keys.map((key, index) => `${JSON.stringify(key)}: values[${index + 1}]`).join(', ');
  const build = new Function('values', 'raw', `return { ${fields}, raw };`) as (values: unknown[], raw: string) => StoredEventInput;
  return (line) => {
    const tab = line.indexOf('\t');
    return build(JSON.parse(line.slice(0, tab)) as unknown[], line.slice(tab + 1));
  };
}

const timeOf = (line: string): number => Number(line.slice(1, line.indexOf(',')));

/** A run file's lines, read forward through a small buffer (a line never splits a UTF-8 character: split at \n). */
class RunReader {
  private readonly fd: number;
  private readonly buffer = Buffer.allocUnsafe(mergeReadBytes);
  private carry: Buffer = Buffer.alloc(0);
  private lines: string[] = [];
  private next = 0;
  private ended = false;
  /** The current line (undefined once the run is read). */
  line: string | undefined;
  time = 0;

  constructor(path: string) {
    this.fd = openSync(path, 'r');
    this.advance();
  }

  advance(): void {
    while (this.next >= this.lines.length && !this.ended) this.fill();
    this.line = this.next < this.lines.length ? this.lines[this.next++] : undefined;
    if (this.line !== undefined) this.time = timeOf(this.line);
  }

  close(): void {
    closeSync(this.fd);
  }

  private fill(): void {
    const read = readSync(this.fd, this.buffer, 0, this.buffer.length, null);
    if (read === 0) {
      this.ended = true;
      this.lines = this.carry.length > 0 ? [this.carry.toString('utf8')] : [];
      this.next = 0;
      return;
    }
    const bytes = this.carry.length > 0 ? Buffer.concat([this.carry, this.buffer.subarray(0, read)]) : this.buffer.subarray(0, read);
    const last = bytes.lastIndexOf(10);
    if (last < 0) {
      this.carry = Buffer.from(bytes);
      this.lines = [];
    } else {
      this.lines = bytes.toString('utf8', 0, last).split('\n');
      this.carry = Buffer.from(bytes.subarray(last + 1));
    }
    this.next = 0;
  }
}

/** What an event costs in memory beside its raw text (its other fields, the object): an estimate for the bound. */
const eventOverheadBytes = 400;

export class TimeSortedRuns {
  private keys: string[] | undefined;
  /** The events of the run being filled, as they were added (made lines only when a run is written). */
  private events: StoredEventInput[] = [];
  private bytes = 0;
  private runs: string[] = [];
  private made = false;
  /** Events added so far. */
  count = 0;

  /**
   * @param directory a private scratch directory, made at the first run written and removed by close()
   * @param runBytes the bytes of events held in memory before a run is written (raw text plus eventOverheadBytes each)
   */
  constructor(
    private readonly directory: string,
    private readonly runBytes = defaultRunBytes,
  ) {}

  add(event: StoredEventInput): void {
    this.keys ??= Object.keys(event).filter((key) => key !== 'raw');
    this.events.push(event);
    this.count++;
    this.bytes += event.raw.length + eventOverheadBytes;
    if (this.bytes >= this.runBytes) this.writeRun();
  }

  /** Run files written so far (for tests). */
  get runCount(): number {
    return this.runs.length;
  }

  /** Every event added, in time order (ties in the order added). Call once, after the last add(). */
  *sorted(): Generator<StoredEventInput> {
    const keys = this.keys;
    if (!keys) return;
    if (this.runs.length === 0) {
      // One run that never outgrew memory: no file, no text.
      const events = this.sortedEvents();
      this.events = [];
      yield* events;
      return;
    }
    if (this.events.length > 0) this.writeRun();
    yield* this.merge(eventReader(keys));
  }

  /** Removes the run files (and the directory). */
  close(): void {
    this.events = [];
    if (this.made) rmSync(this.directory, { recursive: true, force: true });
  }

  private sortedEvents(): StoredEventInput[] {
    // Array.prototype.sort is stable: equal times keep the order they were added in.
    return this.events.sort((a, b) => a.ts - b.ts);
  }

  private writeRun(): void {
    if (!this.made) {
      mkdirSync(this.directory, { recursive: true, mode: 0o700 });
      this.made = true;
    }
    const path = join(this.directory, `run-${this.runs.length}`);
    const fd = openSync(path, 'w', 0o600);
    try {
      let chunk = '';
      for (const event of this.sortedEvents()) {
        chunk += `${lineOf(this.keys!, event)}\n`;
        if (chunk.length >= writeChunkChars) {
          writeSync(fd, chunk);
          chunk = '';
        }
      }
      if (chunk.length > 0) writeSync(fd, chunk);
    } finally {
      closeSync(fd);
    }
    this.runs.push(path);
    this.events = [];
    this.bytes = 0;
  }

  /** A k-way merge on a binary heap of the runs' current lines, by time then run (runs hold the file in order). */
  private *merge(eventOf: (line: string) => StoredEventInput): Generator<StoredEventInput> {
    const readers = this.runs.map((path) => new RunReader(path));
    try {
      const heap: number[] = [];
      const before = (a: number, b: number) => readers[a]!.time < readers[b]!.time || (readers[a]!.time === readers[b]!.time && a < b);
      const down = (start: number) => {
        let at = start;
        for (;;) {
          const left = 2 * at + 1;
          if (left >= heap.length) return;
          const right = left + 1;
          const child = right < heap.length && before(heap[right]!, heap[left]!) ? right : left;
          if (!before(heap[child]!, heap[at]!)) return;
          [heap[at], heap[child]] = [heap[child]!, heap[at]!];
          at = child;
        }
      };
      readers.forEach((reader, index) => {
        if (reader.line !== undefined) heap.push(index);
      });
      for (let index = (heap.length >> 1) - 1; index >= 0; index--) down(index);
      while (heap.length > 0) {
        const reader = readers[heap[0]!]!;
        yield eventOf(reader.line!);
        reader.advance();
        if (reader.line === undefined) {
          heap[0] = heap[heap.length - 1]!;
          heap.pop();
        }
        if (heap.length > 0) down(0);
      }
    } finally {
      for (const reader of readers) reader.close();
    }
  }
}
