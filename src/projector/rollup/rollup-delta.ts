// What a batch of events changes in the rollups, accumulated in memory and written once per projector batch
// (src/projector/rollup/apply-rollups.ts): counter deltas, visitor-set additions and removals, revenue.
// Entries are found by site, (grain, period, internal) and then (dimension, value): the hot path builds no key
// string.
import type { Dim } from '../../vocabulary/dimensions.ts';
import { type Grain, Grain as Grains } from '../../vocabulary/periods.ts';
import { type Counters, emptyCounters, fieldCount } from '../../rollup-format/counter-shard.ts';

/** One dimension value in one period of one site, for internal or external traffic. */
export interface RollupKey {
  site: string;
  dim: Dim;
  grain: Grain;
  period: number;
  internal: 0 | 1;
  value: string;
}

/**
 * Everything accumulated for one key. A batch of spread-out history makes about one per event and dimension and
 * keeps them all until it writes (tens of thousands, which the young-generation collector copies until the batch
 * ends): the key is built only when asked for, and the visitors joining are a plain array.
 */
export class DeltaEntry {
  readonly counters: Counters = emptyCounters();
  /**
   * Visitor numbers joining the key's set, in the order counted; a number may repeat (not twice in a row): the
   * container update ignores members already in it.
   */
  adds: number[] | undefined = undefined;
  /** Visitors that may have left it (vid → anon_id): checked against the visits when written. */
  removals: Map<number, string> | undefined = undefined;
  /** Remove without checking (GDPR deletion of the whole visitor). */
  forceRemoval = false;
  /** Revenue by currency (minor units). */
  revenue: Map<string, number> | undefined = undefined;

  constructor(
    private readonly at: PeriodDelta,
    readonly dim: Dim,
    readonly value: string,
  ) {}

  /** A new object each time: callers take it once. */
  get key(): RollupKey {
    const { site, grain, period, internal } = this.at;
    return { site, dim: this.dim, grain, period, internal, value: this.value };
  }
}

/** The entries of one (site, grain, period, internal), by dimension and value. */
export class PeriodDelta {
  readonly byDim = new Map<Dim, Map<string, DeltaEntry>>();
  constructor(
    readonly site: string,
    readonly grain: Grain,
    readonly period: number,
    readonly internal: 0 | 1,
  ) {}

  entry(dim: Dim, value: string): DeltaEntry {
    let values = this.byDim.get(dim);
    if (!values) this.byDim.set(dim, (values = new Map()));
    let entry = values.get(value);
    if (!entry) values.set(value, (entry = new DeltaEntry(this, dim, value)));
    return entry;
  }
}

export class RollupDelta {
  /** By site, then by (period, grain, internal) as one number: no key string per counted event. */
  private readonly sites = new Map<string, Map<number, PeriodDelta>>();
  private size = 0;

  get isEmpty(): boolean {
    return this.size === 0;
  }

  period(site: string, grain: Grain, period: number, internal: 0 | 1): PeriodDelta {
    let periods = this.sites.get(site);
    if (!periods) this.sites.set(site, (periods = new Map()));
    const key = (period * 2 + grain) * 2 + internal;
    let delta = periods.get(key);
    if (!delta) {
      periods.set(key, (delta = new PeriodDelta(site, grain, period, internal)));
      this.size++;
    }
    return delta;
  }

  /** A day's entries. Deltas are kept by day only: apply-rollups.ts adds each day to its month. */
  day(site: string, day: number, internal: 0 | 1): PeriodDelta {
    return this.period(site, Grains.day, day, internal);
  }

  *entries(): IterableIterator<DeltaEntry> {
    for (const periods of this.sites.values()) for (const period of periods.values()) for (const values of period.byDim.values()) yield* values.values();
  }
}

export function addVisitor(entry: DeltaEntry, vid: number): void {
  const adds = (entry.adds ??= []);
  // A visitor's events of one day usually follow each other: most repeats end here.
  if (adds[adds.length - 1] !== vid) adds.push(vid);
}

export function removeVisitor(entry: DeltaEntry, vid: number, anonId: string, force = false): void {
  (entry.removals ??= new Map()).set(vid, anonId);
  entry.forceRemoval ||= force;
}

export function addRevenue(entry: DeltaEntry, currency: string, amountMinor: number): void {
  if (amountMinor === 0) return;
  const revenue = (entry.revenue ??= new Map());
  revenue.set(currency, (revenue.get(currency) ?? 0) + amountMinor);
}
