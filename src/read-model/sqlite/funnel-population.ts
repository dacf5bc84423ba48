// The population of a funnel execution: the scope's events up to the watermark that match a step, read in one pass
// per site over (site_id, ts) and column by column (src/projector/queries/funnel-rows.ts): each event's visitor
// number and steps, its ts, and only when needed its seq, props or the breakdown's column. The events are grouped by
// person (visitor numbers merged through the identity bindings) as row indexes, never as an object per event, and
// matched (match-funnel.ts). The panels read the other events of the people they analyse one by one
// (attempt-events.ts).
import type { Db } from '../../db/open.ts';
import { readFunnelEventDetails } from './queries/funnel-events.ts';
import { ApiError } from '../../http/errors.ts';
import { filterColumns } from '../../vocabulary/report-filters.ts';
import { dayMs } from '../../vocabulary/periods.ts';
import { type FunnelScan, maskSpan, readFunnelRows, tsBaseOf } from './queries/funnel-rows.ts';
import { findVisitorNumber, listAnonIdsOfVisitorNumbers } from '../../projector/queries/visitor-number-rows.ts';
import type { BreakdownDimension, FunnelQuery, FunnelStep } from '../../analysis/funnel-query.ts';
import { FunnelMatcher } from '../../analysis/match-funnel.ts';
import { resolvePersons, resolveVisitorUsers } from './persons.ts';

/** An event of a person's chosen attempt: its place in (ts, seq) order. */
export interface StepEvent {
  ts: number;
  /** -1 unless the population was read with seqs (the panels, all-sites). */
  seq: number;
}

export interface PersonFunnel {
  /** 'u:' + user_id, 'v:' + visitor number, or 'a:' + anon_id (an anon_id the projector has not numbered yet). */
  person: string;
  /** How many steps the person reached in order within the window. */
  depth: number;
  /** The chosen attempt's events, one per step reached. */
  steps: StepEvent[];
  /** The visitor keys of the person's events read: visitor numbers, or negative keys of unnumbered anon_ids. */
  visitors: number[];
  /** The breakdown column's value of the first step's event (null without a breakdown, or when it has none). */
  breakdownValue: string | null;
}

export interface Population {
  people: PersonFunnel[];
  /** The anon_id of each negative visitor key. */
  unnumbered: ReadonlyMap<number, string>;
}

export interface PopulationInput {
  siteIds: readonly string[];
  query: FunnelQuery;
  watermarkSeq: number;
  /** The projector's position, read in the same snapshot (bindings past the watermark are taken back). */
  projectedSeq: number;
  /** Read each event's seq (the panels need their attempts' events by seq). */
  withSeq?: boolean;
  /** At most this many events are read (default maxFunnelEvents); past it, a 400. */
  maxEvents?: number;
  /** Where the refusal points: '' for a funnel's body, '/query' for a panel's. */
  at?: string;
}

/**
 * The most events a funnel holds in memory (the steps' events of the range; its panels read the same ones). Past it
 * the request is refused (400 range_too_large) rather than risking the server's memory.
 */
export const maxFunnelEvents = 1_000_000;

export const breakdownColumns: Record<BreakdownDimension, NonNullable<FunnelScan['startColumn']>> = {
  device: 'device_type',
  browser: 'browser',
  os: 'os',
  country: 'country',
  source: 'source',
  utm_campaign: 'utm_campaign',
};

/**
 * [start, end) of the events read: the range, plus the window after it when only the first step must be in it.
 * @example scanBounds(query) // { startMs, rangeEndMs, endMs }
 */
export function scanBounds(query: FunnelQuery): { startMs: number; rangeEndMs: number; endMs: number } {
  const startMs = query.range.fromDay * dayMs;
  const rangeEndMs = (query.range.toDay + 1) * dayMs;
  return { startMs, rangeEndMs, endMs: query.dateMode === 'first_step' ? rangeEndMs + query.windowMs : rangeEndMs };
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

/**
 * Every person who did the first step (in the range, passing the filters), matched against the funnel.
 * @example const { people } = readPopulation(db, { siteIds: ['blog'], query, watermarkSeq: 120, projectedSeq: 120 });
 */
export function readPopulation(db: Db, input: PopulationInput): Population {
  const sites: SiteRows[] = [];
  const unnumbered = new Map<number, string>();
  const maxEvents = input.maxEvents ?? maxFunnelEvents;
  // Across sites only seq orders two events of one ts.
  const withSeq = input.withSeq === true || input.siteIds.length > 1;
  let read = 0;
  for (const siteId of input.siteIds) {
    const tooMany = () =>
      new ApiError(400, 'range_too_large', `The analysis would read more than ${maxEvents} events: narrow the range or the scope`, [
        { path: `${input.at ?? ''}/to`, message: `the range and scope hold more than ${maxEvents} events to read` },
      ]);
    const site = readSiteRows(db, scanOf(input, siteId, maxEvents - read + 1), input, { withSeq, unnumbered, tooMany });
    read += site.keys.length;
    sites.push(site);
  }
  return { people: matchPeople(db, input, joinSites(sites), unnumbered), unnumbered };
}

function scanOf(input: PopulationInput, siteId: string, limit: number): FunnelScan {
  const { query } = input;
  const { startMs, rangeEndMs, endMs } = scanBounds(query);
  return {
    site_id: siteId,
    start_ms: startMs,
    end_ms: endMs,
    range_end_ms: rangeEndMs,
    max_seq: input.watermarkSeq,
    with_internal: query.withInternal ? 1 : 0,
    limit,
    steps: query.steps.map(({ type, path, prefix }) => ({ type, path, prefix })),
    filters: (Object.entries(query.filters) as [keyof typeof filterColumns, string[]][]).map(([name, values]) => ({ column: filterColumns[name], values })),
    propsSteps: query.steps.flatMap((step, index) => (step.props ? [index] : [])),
    startColumn: query.breakdown ? breakdownColumns[query.breakdown] : null,
  };
}

/** One site's rows, decoded. */
function readSiteRows(
  db: Db,
  scan: FunnelScan,
  input: PopulationInput,
  options: { withSeq: boolean; unnumbered: Map<number, string>; tooMany: () => ApiError },
): SiteRows {
  const read = readFunnelRows(db, scan, options);
  const count = read.visitorAndMask.length;
  const base = tsBaseOf(scan);
  const rows: SiteRows = {
    keys: new Float64Array(count),
    masks: new Uint16Array(count),
    ts: new Float64Array(count),
    seqs: read.seq ? Float64Array.from(read.seq) : null,
    startValues: [],
  };
  for (let row = 0; row < count; row++) {
    const value = read.visitorAndMask[row]!;
    const key = Math.floor(value / maskSpan);
    rows.keys[row] = key;
    rows.masks[row] = value - key * maskSpan;
    rows.ts[row] = read.ts[row]! + base;
  }
  if (read.anonIds.length > 0) numberUnprojected(db, input.siteIds, rows, read.anonIds, options.unnumbered);
  for (const [row, value] of read.startValues) rows.startValues[row] = value;
  // Props are tested here (JSON.parse's reading of a value, as at ingest): the SQL set each such step's bit on its
  // type and path alone, and kept the props of exactly those rows.
  for (const [row, text] of read.props) {
    const values = parseProps(text);
    for (const step of scan.propsSteps) {
      if (rows.masks[row]! & (1 << step) && !propsMatch(input.query.steps[step]!, values)) rows.masks[row]! &= ~(1 << step);
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

/** Groups the rows by person (row indexes only) and matches each person who did the first step. */
function matchPeople(db: Db, input: PopulationInput, rows: Rows, unnumbered: ReadonlyMap<number, string>): PersonFunnel[] {
  const { query } = input;
  const personOfKey = resolveKeys(db, input, rows.keys, unnumbered);
  // Dense person indexes by key index, and who started.
  const personIndex = new Map<string, number>();
  const personNames: string[] = [];
  const keyPerson = new Int32Array(rows.keys.length);
  rows.keys.forEach((key, keyIndex) => {
    const name = personOfKey.get(key)!;
    let index = personIndex.get(name);
    if (index === undefined) {
      personIndex.set(name, (index = personNames.length));
      personNames.push(name);
    }
    keyPerson[keyIndex] = index;
  });
  const started = new Uint8Array(personNames.length);
  const rowPerson = new Int32Array(rows.length);
  for (let row = 0; row < rows.length; row++) {
    const person = keyPerson[rows.keyIndexes[row]!]!;
    rowPerson[row] = person;
    if (rows.masks[row]! & 1) started[person] = 1;
  }
  // A person who never did the first step is in no answer: their events are not grouped or matched.
  const offsets = new Int32Array(personNames.length + 1);
  for (let row = 0; row < rows.length; row++) if (started[rowPerson[row]!]) offsets[rowPerson[row]! + 1]!++;
  for (let person = 0; person < personNames.length; person++) offsets[person + 1]! += offsets[person]!;
  const fill = offsets.slice(0, personNames.length);
  const grouped = new Int32Array(offsets[personNames.length]!);
  for (let row = 0; row < rows.length; row++) if (started[rowPerson[row]!]) grouped[fill[rowPerson[row]!]!++] = row;
  // Each person's visitor keys (most people have one).
  const keysOf: number[][] = Array.from({ length: personNames.length }, () => []);
  rows.keys.forEach((key, keyIndex) => {
    if (started[keyPerson[keyIndex]!]) keysOf[keyPerson[keyIndex]!]!.push(key);
  });
  const matcher = new FunnelMatcher(rows.ts, rows.masks, query.steps.length, query.windowMs);
  const people: PersonFunnel[] = [];
  for (let person = 0; person < personNames.length; person++) {
    if (!started[person]) continue;
    const from = offsets[person]!;
    const to = offsets[person + 1]!;
    // One site's rows are in (ts, seq) order already; rows of several sites (read with seqs) are sorted by (ts, seq).
    if (input.siteIds.length > 1) grouped.subarray(from, to).sort((a, b) => rows.ts[a]! - rows.ts[b]! || rows.seqs![a]! - rows.seqs![b]!);
    const { depth, path } = matcher.match(grouped, from, to);
    people.push({
      person: personNames[person]!,
      depth,
      steps: path.map((row) => ({ ts: rows.ts[row]!, seq: rows.seqs ? rows.seqs[row]! : -1 })),
      visitors: keysOf[person]!,
      breakdownValue: query.breakdown && depth > 0 ? (rows.startValues[path[0]!] ?? null) : null,
    });
  }
  return people;
}

/** Each visitor key's person: its user as of the watermark, else the visitor itself. */
function resolveKeys(db: Db, input: PopulationInput, keys: readonly number[], unnumbered: ReadonlyMap<number, string>): Map<number, string> {
  const vids = keys.filter((key) => key >= 0);
  const userOfVisitor = resolveVisitorUsers(db, input.siteIds, input.watermarkSeq, input.projectedSeq, vids);
  const personOfAnon = resolvePersons(db, input.siteIds, input.watermarkSeq, input.projectedSeq, [...unnumbered.values()]);
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
 * The anon_id of each visitor key of the people (the panels read their other events by anon_id).
 * @example anonIdsOfVisitors(db, ['blog'], population, [3, -2]) // Map { 3 => 'a1', -2 => 'a9' }
 */
export function anonIdsOfVisitors(db: Db, siteIds: readonly string[], population: Pick<Population, 'unnumbered'>, keys: readonly number[]): Map<number, string> {
  const anonIds = listAnonIdsOfVisitorNumbers(db, siteIds, keys.filter((key) => key >= 0));
  for (const key of keys) if (key < 0) anonIds.set(key, population.unnumbered.get(key)!);
  return anonIds;
}

/**
 * The enrichment columns, anon_id and path of an attempt's event (read by seq: the population holds neither).
 * @example readStepEventDetails(db, person.steps[0]).browser // 'Firefox'
 */
export function readStepEventDetails(db: Db, event: StepEvent) {
  if (event.seq < 0) throw new Error('the population was read without seqs');
  const details = readFunnelEventDetails(db, event.seq);
  if (!details) throw new Error(`event ${event.seq} of the population is gone from the snapshot`);
  return details;
}

function propsMatch(step: FunnelStep, values: Record<string, unknown> | null): boolean {
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
