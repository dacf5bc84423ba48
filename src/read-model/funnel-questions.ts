// The funnel questions (funnels-v2 and its correlation and explanation panels, docs/analysis.md): who did a funnel's
// steps and when, as typed columns the analysis matches without an object per event, and what the people at a
// transition did around their attempts. The matching itself (attempts, windows, depths) is the analysis's own.
import type { Answer, LogPosition, ReadScope, Selection } from './questions.ts';

/** The dimensions a funnel breaks down by: a value of the event that starts an attempt. */
export type FunnelBreakdown = 'device' | 'browser' | 'os' | 'country' | 'source' | 'utm_campaign';

/** The event column a breakdown reads, in both stores (the same names in SQLite and ClickHouse). */
export const funnelBreakdownColumns = {
  device: 'device_type',
  browser: 'browser',
  os: 'os',
  country: 'country',
  source: 'source',
  utm_campaign: 'utm_campaign',
} as const satisfies Record<FunnelBreakdown, string>;

/** What one step asks of an event: its type, its path (exact, or a prefix) and props equal to these (`===`). */
export interface FunnelStepCriteria {
  type: string;
  path: string | null;
  prefix: boolean;
  props: Readonly<Record<string, string | number | boolean | null>> | null;
}

/** An event's place in a person's (ts, seq) order. */
export interface EventAt {
  ts: number;
  /** The event's position in the log. */
  seq: LogPosition;
}

export interface FunnelPopulationQuestion extends Selection {
  /** 2 to 12 steps; `filters` and `range` apply to the first step's event only. */
  steps: readonly FunnelStepCriteria[];
  /** Later steps may come up to this long after the range (the window in first_step mode; 0: every step in the range). */
  afterRangeMs: number;
  breakdown: FunnelBreakdown | null;
  /** At most this many events are read; past it the answer says `overCap` and holds none. */
  maxEvents: number;
  /** An earlier execution's watermark: events up to it, identities as they stood then. Absent: the projector's position. */
  asOf?: LogPosition;
  /** Give each event's seq (the panels hand attempts back by position); always given when the scope has several sites. */
  withSeqs: boolean;
}

/** The events read: every one that matches a step, in one column per field (event i is index i of each). */
export interface FunnelEvents {
  /** Epoch ms. */
  ts: Float64Array;
  /** Bit k set: the event matches step k. Bit 0 only when it may start an attempt (in the range, passing the filters). */
  steps: Uint16Array;
  /** The events' seqs, when asked for (or several sites were read); else null. */
  seqs: Float64Array | null;
  /** The breakdown's value of each event that may start an attempt (sparse: absent or null when it has none). */
  breakdownValues: readonly (string | null)[];
}

/** The people who did the first step, each with their events in (ts, seq) order. */
export interface FunnelPeople {
  /** Who each person is: 'u:' + user_id, or the read model's key of an anonymous visitor ('v:…', 'a:…'). */
  keys: string[];
  /** Person i's events are the indexes `order[offsets[i]]` to `order[offsets[i + 1] - 1]`, in (ts, seq) order. */
  offsets: Int32Array;
  order: Int32Array;
  /** Each person's visitor keys (opaque numbers; an attempts question takes them back). */
  visitors: number[][];
  /** The anon_id behind each negative visitor key (a visitor the projector had not numbered yet). */
  unnumbered: ReadonlyMap<number, string>;
}

export interface FunnelPopulation {
  /** The events were read up to this position: the question's asOf, else the projector's (freshness.position). */
  asOf: LogPosition;
  /** More events than maxEvents match the steps: nothing was read back (no events, no people). */
  overCap: boolean;
  events: FunnelEvents;
  people: FunnelPeople;
}

/** A person of a population, as the population named them. */
export interface PopulationPerson {
  key: string;
  visitors: readonly number[];
}

/** What is asked about one person's attempt; each part is answered only when asked. */
export interface AttemptQuestion {
  person: PopulationPerson;
  /** The device and acquisition of this event (an attempt's first step, by its seq). */
  contextOf?: EventAt;
  /** The distinct types of the person's events strictly between `after` and `until` (without until.seq: before until.ts's every event). */
  typesBetween?: { after: EventAt; until: { ts: number; seq?: LogPosition } };
  /** The person's first event strictly after this one. */
  nextAfter?: EventAt;
}

export interface AttemptsQuestion {
  scope: ReadScope;
  /** The execution's watermark: events up to it, and identities as they stood then. */
  asOf: LogPosition;
  withInternal: boolean;
  /** No event at or after this time is read (the population's end: the range, plus the window in first_step mode). */
  endMs: number;
  /** The population's `people.unnumbered`: the anon_ids of its negative visitor keys. */
  unnumbered: ReadonlyMap<number, string>;
  attempts: readonly AttemptQuestion[];
}

/** An event's device and place, and the acquisition of the visit holding it. */
export interface EventContext {
  browser: string | null;
  os: string | null;
  device: string | null;
  country: string | null;
  /** Of the visit holding the event, or the event's own when that visit's entry is past asOf (or it has none yet). */
  source: string | null;
  campaign: string | null;
  /** The visit's entry path, or the event's own path in the same case. */
  entryPath: string | null;
}

export interface AttemptAnswer {
  context?: EventContext;
  types?: string[];
  /** null when the person did nothing more before endMs. */
  next?: { type: string; path: string | null } | null;
}

export interface AttemptsFigures {
  /** One per question, in its order. */
  attempts: AttemptAnswer[];
}

export interface FunnelQuestions {
  /**
   * Everyone who did the first step, with every event of theirs that matches a step, as typed columns.
   * @example await readModel.funnelPopulation({ ...selection, steps, afterRangeMs: windowMs, breakdown: null, maxEvents: 1e6, withSeqs: false })
   */
  funnelPopulation(question: FunnelPopulationQuestion): Promise<Answer<FunnelPopulation>>;
  /**
   * What people of a population did around their attempts: the first step's context, the types they did in a span,
   * the next thing they did; one consistent read as of the execution's watermark.
   * @example await readModel.attempts({ scope, asOf, withInternal: false, endMs, unnumbered, attempts: [{ person, nextAfter: step }] })
   */
  attempts(question: AttemptsQuestion): Promise<Answer<AttemptsFigures>>;
}
