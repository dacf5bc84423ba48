// The population of a funnel execution: the scope's events up to the watermark that match a step, read in one pass
// per site over (site_id, ts) and column by column (queries/funnel-rows.ts): each event's visitor number and steps,
// its ts, and only when needed its seq, props or the breakdown's column. The events are grouped by person (visitor
// numbers merged through the identity bindings, persons.ts) as indexes in typed arrays, never as an object per event:
// the analysis matches them on those arrays (src/analysis/match-funnel.ts). The panels read the other events of the
// people they analyse one by one (attempt-events.ts).
import type { Db } from '../../db/open.ts';
import { findVisitorNumber, listAnonIdsOfVisitorNumbers } from '../../projector/queries/visitor-number-rows.ts';
import { dayMs } from '../../vocabulary/periods.ts';
import { filterColumns } from '../../vocabulary/report-filters.ts';
import { funnelBreakdownColumns, type FunnelPeople, type FunnelPopulation, type FunnelPopulationQuestion, type FunnelStepCriteria } from '../funnel-questions.ts';
import { resolvePersons, resolveVisitorUsers } from './persons.ts';
import { type FunnelScan, maskSpan, readFunnelRows, tsBaseOf } from './queries/funnel-rows.ts';

/** What a population read needs besides the question: the watermark and the projector's position in the snapshot. */
export interface PopulationRead {
  question: Omit<FunnelPopulationQuestion, 'asOf'>;
  watermarkSeq: number;
  /** The projector's position, read in the same snapshot (bindings past the watermark are taken back). */
  projectedSeq: number;
}


/** One site's events read, as columns, row i being its i-th event in (ts, seq) order. */
interface SiteRows {
  keys: Float64Array;
  masks: Uint16Array;
  ts: Float64Array;
  seqs: Float64Array | null;
  /** The breakdown value of each row that may start the funnel (sparse). */
  startValues: (string | null)[];
}

/** Every event read, as columns: the sites one after the other; visitor keys as dense indexes into `keys`. */
interface Rows extends Omit<SiteRows, 'keys'> {
  length: number;
  keyIndexes: Int32Array;
  /** The distinct visitor keys read. */
  keys: number[];
}

/** Thrown by the scan that reaches the cap (caught below: the answer says overCap). */
class OverCap extends Error {}

const noEvents = { ts: new Float64Array(0), steps: new Uint16Array(0), seqs: null, breakdownValues: [] };

/**
 * Every person who did the first step (in the range, passing the filters), with their events grouped. Call inside
 * one snapshot.
 * @example readFunnelPopulation(db, ['blog'], { question, watermarkSeq: 120, projectedSeq: 120 }).people.keys
 */
export function readFunnelPopulation(db: Db, read: PopulationRead): Omit<FunnelPopulation, 'asOf'> {
  const { question } = read;
  const siteIds = question.scope.siteIds;
  const sites: SiteRows[] = [];
  const unnumbered = new Map<number, string>();
  // Across sites only seq orders two events of one ts.
  const withSeq = question.withSeqs || siteIds.length > 1;
  let count = 0;
  try {
    for (const siteId of siteIds) {
      const site = readSiteRows(db, scanOf(read, siteId, question.maxEvents - count + 1), read, { withSeq, unnumbered });
      count += site.keys.length;
      sites.push(site);
    }
  } catch (error) {
    if (!(error instanceof OverCap)) throw error;
    return { overCap: true, events: noEvents, people: { keys: [], offsets: new Int32Array(1), order: new Int32Array(0), visitors: [], unnumbered } };
  }
  const rows = joinSites(sites);
  return {
    overCap: false,
    events: { ts: rows.ts, steps: rows.masks, seqs: rows.seqs, breakdownValues: rows.startValues },
    people: groupPeople(db, read, rows, unnumbered),
  };
}

function scanOf(read: PopulationRead, siteId: string, limit: number): FunnelScan {
  const { question } = read;
  const startMs = question.range.fromDay * dayMs;
  const rangeEndMs = (question.range.toDay + 1) * dayMs;
  return {
    site_id: siteId,
    start_ms: startMs,
    end_ms: rangeEndMs + question.afterRangeMs,
    range_end_ms: rangeEndMs,
    max_seq: read.watermarkSeq,
    with_internal: question.withInternal ? 1 : 0,
    limit,
    steps: question.steps.map(({ type, path, prefix }) => ({ type, path, prefix })),
    filters: (Object.entries(question.filters) as [keyof typeof filterColumns, string[]][]).map(([name, values]) => ({ column: filterColumns[name], values })),
    propsSteps: question.steps.flatMap((step, index) => (step.props ? [index] : [])),
    startColumn: question.breakdown ? funnelBreakdownColumns[question.breakdown] : null,
  };
}

/** One site's rows, decoded. */
function readSiteRows(db: Db, scan: FunnelScan, read: PopulationRead, options: { withSeq: boolean; unnumbered: Map<number, string> }): SiteRows {
  const rowsRead = readFunnelRows(db, scan, { withSeq: options.withSeq, tooMany: () => new OverCap() });
  const count = rowsRead.visitorAndMask.length;
  const base = tsBaseOf(scan);
  const rows: SiteRows = {
    keys: new Float64Array(count),
    masks: new Uint16Array(count),
    ts: new Float64Array(count),
    seqs: rowsRead.seq ? Float64Array.from(rowsRead.seq) : null,
    startValues: [],
  };
  for (let row = 0; row < count; row++) {
    const value = rowsRead.visitorAndMask[row]!;
    const key = Math.floor(value / maskSpan);
    rows.keys[row] = key;
    rows.masks[row] = value - key * maskSpan;
    rows.ts[row] = rowsRead.ts[row]! + base;
  }
  if (rowsRead.anonIds.length > 0) numberUnprojected(db, read.question.scope.siteIds, rows, rowsRead.anonIds, options.unnumbered);
  for (const [row, value] of rowsRead.startValues) rows.startValues[row] = value;
  // Props are tested here (JSON.parse's reading of a value, as at ingest): the SQL set each such step's bit on its
  // type and path alone, and kept the props of exactly those rows.
  for (const [row, text] of rowsRead.props) {
    const values = parseProps(text);
    for (const step of scan.propsSteps) {
      if (rows.masks[row]! & (1 << step) && !propsMatch(read.question.steps[step]!, values)) rows.masks[row]! &= ~(1 << step);
    }
  }
  return rows;
}

/**
 * Keys for the rows the projector has not passed (only while it rebuilds past an execution's watermark): the visitor
 * number of the anon_id when it has one on a site of the scope, else a negative key of its own.
 */
function numberUnprojected(db: Db, siteIds: readonly string[], rows: SiteRows, anonIds: readonly [number, string][], unnumbered: Map<number, string>): void {
  const keyOfAnon = new Map<string, number>();
  for (const [key, anonId] of unnumbered) keyOfAnon.set(anonId, key);
  for (const [row, anonId] of anonIds) {
    let key = keyOfAnon.get(anonId);
    if (key === undefined) {
      for (const siteId of siteIds) if ((key = findVisitorNumber(db, siteId, anonId)) !== undefined) break;
      if (key === undefined) unnumbered.set((key = -2 - unnumbered.size), anonId);
      keyOfAnon.set(anonId, key);
    }
    rows.keys[row] = key;
  }
}

/** The sites' rows end to end, each visitor key replaced by its dense index (one map lookup per row). */
function joinSites(sites: readonly SiteRows[]): Rows {
  const length = sites.reduce((sum, site) => sum + site.keys.length, 0);
  function joined<T extends Float64Array | Uint16Array>(pick: (site: SiteRows) => T, Type: new (length: number) => T): T {
    if (sites.length === 1) return pick(sites[0]!);
    const all = new Type(length);
    let offset = 0;
    for (const site of sites) {
      all.set(pick(site), offset);
      offset += site.keys.length;
    }
    return all;
  }
  const keyIndexes = new Int32Array(length);
  const keys: number[] = [];
  const indexOfKey = new Map<number, number>();
  const startValues: (string | null)[] = [];
  let offset = 0;
  for (const site of sites) {
    for (let row = 0; row < site.keys.length; row++) {
      const key = site.keys[row]!;
      let index = indexOfKey.get(key);
      if (index === undefined) {
        indexOfKey.set(key, (index = keys.length));
        keys.push(key);
      }
      keyIndexes[offset + row] = index;
    }
    site.startValues.forEach((value, row) => (startValues[offset + row] = value));
    offset += site.keys.length;
  }
  return {
    length,
    keyIndexes,
    keys,
    masks: joined((site) => site.masks, Uint16Array),
    ts: joined((site) => site.ts, Float64Array),
    seqs: sites.length > 0 && sites[0]!.seqs ? joined((site) => site.seqs!, Float64Array) : null,
    startValues,
  };
}

/** Who each visitor key's person is, as dense person indexes, and which of them did the first step. */
function indexPeople(db: Db, read: PopulationRead, rows: Rows, unnumbered: ReadonlyMap<number, string>) {
  const personOfKey = resolveKeys(db, read, rows.keys, unnumbered);
  const personIndex = new Map<string, number>();
  const names: string[] = [];
  const keyPerson = new Int32Array(rows.keys.length);
  rows.keys.forEach((key, keyIndex) => {
    const name = personOfKey.get(key)!;
    let index = personIndex.get(name);
    if (index === undefined) {
      personIndex.set(name, (index = names.length));
      names.push(name);
    }
    keyPerson[keyIndex] = index;
  });
  const started = new Uint8Array(names.length);
  const rowPerson = new Int32Array(rows.length);
  for (let row = 0; row < rows.length; row++) {
    const person = keyPerson[rows.keyIndexes[row]!]!;
    rowPerson[row] = person;
    if (rows.masks[row]! & 1) started[person] = 1;
  }
  return { names, keyPerson, rowPerson, started };
}

/**
 * Groups the rows by person (row indexes only), each person's in (ts, seq) order. A person who never did the first
 * step is in no answer: their events are left out.
 */
function groupPeople(db: Db, read: PopulationRead, rows: Rows, unnumbered: ReadonlyMap<number, string>): FunnelPeople {
  const { names, keyPerson, rowPerson, started } = indexPeople(db, read, rows, unnumbered);
  const offsets = new Int32Array(names.length + 1);
  for (let row = 0; row < rows.length; row++) if (started[rowPerson[row]!]) offsets[rowPerson[row]! + 1]!++;
  for (let person = 0; person < names.length; person++) offsets[person + 1]! += offsets[person]!;
  const fill = offsets.slice(0, names.length);
  const order = new Int32Array(offsets[names.length]!);
  for (let row = 0; row < rows.length; row++) if (started[rowPerson[row]!]) order[fill[rowPerson[row]!]!++] = row;
  // Each person's visitor keys (most people have one).
  const visitorsOf: number[][] = Array.from({ length: names.length }, () => []);
  rows.keys.forEach((key, keyIndex) => {
    if (started[keyPerson[keyIndex]!]) visitorsOf[keyPerson[keyIndex]!]!.push(key);
  });
  // The answer holds the people who started only: their groups are already contiguous in `order`.
  const keys: string[] = [];
  const visitors: number[][] = [];
  const startedOffsets: number[] = [0];
  for (let person = 0; person < names.length; person++) {
    if (!started[person]) continue;
    const from = offsets[person]!;
    const to = offsets[person + 1]!;
    // One site's rows are in (ts, seq) order already; rows of several sites (read with seqs) are sorted by (ts, seq).
    if (read.question.scope.siteIds.length > 1) order.subarray(from, to).sort((a, b) => rows.ts[a]! - rows.ts[b]! || rows.seqs![a]! - rows.seqs![b]!);
    keys.push(names[person]!);
    visitors.push(visitorsOf[person]!);
    startedOffsets.push(to);
  }
  return { keys, offsets: Int32Array.from(startedOffsets), order, visitors, unnumbered };
}

/** Each visitor key's person: its user as of the watermark, else the visitor itself. */
function resolveKeys(db: Db, read: PopulationRead, keys: readonly number[], unnumbered: ReadonlyMap<number, string>): Map<number, string> {
  const { siteIds } = read.question.scope;
  const vids = keys.filter((key) => key >= 0);
  const userOfVisitor = resolveVisitorUsers(db, siteIds, read.watermarkSeq, read.projectedSeq, vids);
  const personOfAnon = resolvePersons(db, siteIds, read.watermarkSeq, read.projectedSeq, [...unnumbered.values()]);
  const personOfKey = new Map<number, string>();
  for (const key of keys) {
    if (key < 0) personOfKey.set(key, personOfAnon(unnumbered.get(key)!));
    else {
      const userId = userOfVisitor.get(key);
      personOfKey.set(key, userId === undefined ? `v:${key}` : `u:${userId}`);
    }
  }
  return personOfKey;
}

/**
 * The anon_id of each visitor key of a population's people (the panels read their other events by anon_id).
 * @example anonIdsOfVisitors(db, ['blog'], population.people.unnumbered, [3, -2]) // Map { 3 => 'a1', -2 => 'a9' }
 */
export function anonIdsOfVisitors(db: Db, siteIds: readonly string[], unnumbered: ReadonlyMap<number, string>, keys: readonly number[]): Map<number, string> {
  const anonIds = listAnonIdsOfVisitorNumbers(db, siteIds, keys.filter((key) => key >= 0));
  for (const key of keys) if (key < 0) anonIds.set(key, unnumbered.get(key)!);
  return anonIds;
}

function propsMatch(step: FunnelStepCriteria, values: Record<string, unknown> | null): boolean {
  if (!values) return false;
  for (const [key, expected] of Object.entries(step.props!)) if (values[key] !== expected) return false;
  return true;
}

function parseProps(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
