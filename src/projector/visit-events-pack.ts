// The packed events of a visit_sequences row (schema 32): every kept event of the visit, in (ts, seq) order, with what
// the raw pass reads of it (docs/reports.md, "Narrow visits"), so a row stands in for its raw events. Per event, as
// unsigned LEB128 varints: the time since the previous event (the first: since the row's start_ts, so 0), its seq
// minus the previous event's (the first: minus 0), zigzag-encoded (a goal with props is matched by seq), then type
// id × 2 + 1 when it carries revenue, then path id + 1 (0: no path); with revenue, the amount zigzag-encoded and the
// currency as its UTF-8 length and bytes. Type and path ids are the per-site dictionary's (report_values). About
// 6 bytes an event; written by src/projector/visit-sequences.ts, read by read-model/sqlite/narrow-visits.ts.

/** One event as the row keeps it: ids of the site's dictionary, revenue only where both amount and currency are set. */
export interface PackedEvent {
  ts: number;
  seq: number;
  typeId: number;
  /** null: the event has no path. */
  pathId: number | null;
  revenueMinor: number | null;
  revenueCurrency: string | null;
}

function pushVarint(bytes: number[], value: number): void {
  while (value >= 0x80) {
    bytes.push((value % 0x80) | 0x80);
    value = Math.floor(value / 0x80);
  }
  bytes.push(value);
}

const zigzag = (value: number) => (value >= 0 ? value * 2 : -value * 2 - 1);
const unzigzag = (value: number) => (value % 2 === 0 ? value / 2 : -(value + 1) / 2);

/** The events (in order, the first at `startTs`) as one blob. */
export function packVisitEvents(startTs: number, events: readonly PackedEvent[]): Buffer {
  const bytes: number[] = [];
  let previous = startTs;
  let previousSeq = 0;
  for (const event of events) {
    pushVarint(bytes, event.ts - previous);
    previous = event.ts;
    pushVarint(bytes, zigzag(event.seq - previousSeq));
    previousSeq = event.seq;
    const hasRevenue = event.revenueMinor !== null && event.revenueCurrency !== null;
    pushVarint(bytes, event.typeId * 2 + (hasRevenue ? 1 : 0));
    pushVarint(bytes, event.pathId === null ? 0 : event.pathId + 1);
    if (hasRevenue) {
      pushVarint(bytes, zigzag(event.revenueMinor!));
      const currency = Buffer.from(event.revenueCurrency!, 'utf8');
      pushVarint(bytes, currency.length);
      for (const byte of currency) bytes.push(byte);
    }
  }
  return Buffer.from(bytes);
}

/**
 * Calls `each` for every event of a blob, in order: its time, seq, type id, path id (-1: none) and revenue (null when it
 * has none). No object per event: the reader builds its own.
 */
export function unpackVisitEvents(
  blob: Uint8Array,
  startTs: number,
  each: (ts: number, seq: number, typeId: number, pathId: number, revenueMinor: number | null, revenueCurrency: string | null) => void,
): void {
  let at = 0;
  const varint = () => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = blob[at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  };
  let ts = startTs;
  let seq = 0;
  while (at < blob.length) {
    ts += varint();
    seq += unzigzag(varint());
    const typeAndFlag = varint();
    const pathId = varint() - 1;
    if (typeAndFlag % 2 === 1) {
      const amount = unzigzag(varint());
      const length = varint();
      const currency = Buffer.from(blob.buffer, blob.byteOffset + at, length).toString('utf8');
      at += length;
      each(ts, seq, (typeAndFlag - 1) / 2, pathId, amount, currency);
    } else each(ts, seq, typeAndFlag / 2, pathId, null, null);
  }
}
