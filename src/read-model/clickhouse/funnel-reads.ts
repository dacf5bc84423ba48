// The funnel questions over ClickHouse, with the SQLite implementation's semantics (sqlite/funnel-population.ts,
// sqlite/attempt-events.ts): the scope's kept events up to the watermark that match a step, in (ts, seq) order, each
// with its steps tested in SQL (step 0 also inside the range and passing the filters, on the event's own columns), a
// step's props tested here on the raw text (18.16 has no JSONExtract of a nested key), and people merged through the
// identity bindings as they stood at the watermark (an anon_id bound to several users belongs to the one that sorts
// first). ClickHouse has no visitor numbers: every visitor key is negative, its anon_id in `unnumbered`, which is
// what the SQLite implementation does for a visitor it has not numbered yet, so either implementation's attempts
// question takes the keys back. The matching itself stays the analysis's (src/analysis/match-funnel.ts), on typed
// columns as before. `windowFunnel` is not used: it counts the deepest step of one event chain per group, while the
// analysis needs each person's events (its attempts, the steps' times, the breakdown of the first step's event).
import type { ClickHouse, ExternalTable } from '../../clickhouse/client.ts';
import { withoutDeleted } from '../../clickhouse/deletion-sql.ts';
import type { PendingDeletion } from '../../clickhouse/deletions.ts';
import { joinSql, sql, type SqlText } from '../../clickhouse/sql-literal.ts';
import type { Db } from '../../db/open.ts';
import { dayMs } from '../../vocabulary/periods.ts';
import { filterColumns } from '../../vocabulary/report-filters.ts';
import { funnelBreakdownColumns, type AttemptAnswer, type AttemptsQuestion, type EventAt, type EventContext, type FunnelPeople, type FunnelPopulationQuestion, type FunnelQuestions, type FunnelStepCriteria } from '../funnel-questions.ts';
import { anonIdsOfVisitors } from '../sqlite/funnel-population.ts';
import { freshnessOf, listOf, liveVisits, sqlName } from './common.ts';

export interface ClickHouseFunnelReadOptions {
  clickhouse: ClickHouse;
  waitForShipping: () => Promise<boolean>;
  deletionsOf: (siteIds: readonly string[]) => PendingDeletion[];
  /** The embedded database: the anon_ids of visitor numbers an embedded population handed out (never ClickHouse's). */
  db: Db;
}


interface PopulationRow {
  ts: number;
  seq: number;
  mask: number;
  anon_id: string;
  /** The raw text of a candidate of a step testing props, else ''. */
  props_raw: string;
  start_value: string | null;
  /** The users the anon_id was bound to as of the watermark (none: an anonymous visitor). */
  users: string[];
}

/** A Nullable comparison read as SQLite's WHERE reads it: NULL is false. */
const isTrue = (condition: SqlText) => sql`ifNull(${condition}, 0)`;

/** One step's test on an event's type and path (exact, or a prefix: compared in bytes, the same as in characters). */
function stepTest(step: Pick<FunnelStepCriteria, 'type' | 'path' | 'prefix'>): SqlText {
  if (step.path === null) return sql`(type = ${step.type})`;
  const path = step.prefix ? isTrue(sql`substring(path, 1, length(${step.path})) = ${step.path}`) : isTrue(sql`path = ${step.path}`);
  return sql`(type = ${step.type} AND ${path})`;
}

/** Step 0 also needs the event inside the range and the filters (on the event's own columns, as in SQLite). */
function startTest(question: FunnelPopulationQuestion, rangeEndMs: number): SqlText {
  const filters = (Object.entries(question.filters) as [string, string[] | undefined][]).flatMap(([name, values]) => {
    if (values === undefined) return [];
    const column = filterColumns[name as keyof typeof filterColumns];
    if (column === undefined) throw new TypeError(`a funnel has no ${name} filter`);
    return [sql` AND ${isTrue(sql`${sqlName(column)} IN ${listOf(values)}`)}`];
  });
  return sql`(${stepTest(question.steps[0]!)} AND ts < ${rangeEndMs}${joinSql(filters, '')})`;
}

/** The props object of a raw event (SQLite's json_extract(raw, '$.props') read by JSON.parse), or null. */
function propsOf(raw: string): Record<string, unknown> | null {
  try {
    const props = (JSON.parse(raw) as { props?: unknown } | null)?.props;
    return props !== null && typeof props === 'object' && !Array.isArray(props) ? (props as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function propsMatch(step: FunnelStepCriteria, values: Record<string, unknown> | null): boolean {
  if (!values) return false;
  for (const [key, expected] of Object.entries(step.props!)) if (values[key] !== expected) return false;
  return true;
}

/** The first of several users in JavaScript's order, as the SQLite implementation keeps it. */
const firstUser = (users: readonly string[]) => users.reduce<string | undefined>((first, user) => (first === undefined || user < first ? user : first), undefined);

/** The users each anon_id of the scope was bound to by an event up to the watermark (none pending deletion). */
function bindingsAsOf(siteIds: readonly string[], watermark: number, deletions: readonly PendingDeletion[]): SqlText {
  return sql`SELECT anon_id, groupUniqArray(user_id) AS users FROM identity_bindings
    WHERE site_id IN ${listOf(siteIds)} AND seq <= ${watermark}${withoutDeleted(deletions, 'identity_bindings')} GROUP BY anon_id`;
}

/**
 * Distinct strings as an external table of the query (client.ts, ExternalTable): the lists of people, devices and
 * events an attempts question names grow with the funnel's population (correlation asks about every person at a
 * transition), so they never go into the statement as literals (max_ast_elements bounds its size).
 */
const stringsTable = (name: string, column: string, values: readonly string[]): ExternalTable => ({ name, columns: { [column]: 'String' }, rows: [...new Set(values)].map((value) => ({ [column]: value })) });

/** The rows grouped by person (indexes only), each person's in (ts, seq) order; people who never started left out. */
function groupPeople(rows: readonly PopulationRow[], steps: Uint16Array): FunnelPeople {
  const unnumbered = new Map<number, string>();
  const keyOfAnon = new Map<string, number>();
  const personIndex = new Map<string, number>();
  const rowsOf: number[][] = [];
  const visitorsOf: number[][] = [];
  const names: string[] = [];
  const started: boolean[] = [];
  rows.forEach((row, index) => {
    let key = keyOfAnon.get(row.anon_id);
    const isNew = key === undefined;
    if (key === undefined) {
      key = -2 - keyOfAnon.size;
      keyOfAnon.set(row.anon_id, key);
      unnumbered.set(key, row.anon_id);
    }
    const user = firstUser(row.users);
    const name = user === undefined ? `a:${row.anon_id}` : `u:${user}`;
    let person = personIndex.get(name);
    if (person === undefined) {
      personIndex.set(name, (person = names.length));
      names.push(name);
      rowsOf.push([]);
      visitorsOf.push([]);
      started.push(false);
    }
    rowsOf[person]!.push(index);
    if (isNew) visitorsOf[person]!.push(key);
    if (steps[index]! & 1) started[person] = true;
  });
  const keys: string[] = [];
  const visitors: number[][] = [];
  const offsets: number[] = [0];
  const order: number[] = [];
  names.forEach((name, person) => {
    if (!started[person]) return;
    keys.push(name);
    visitors.push(visitorsOf[person]!);
    order.push(...rowsOf[person]!);
    offsets.push(order.length);
  });
  return { keys, offsets: Int32Array.from(offsets), order: Int32Array.from(order), visitors, unnumbered };
}

interface SpanRow {
  site_id: string;
  anon_id: string;
  ts: number;
  seq: number;
  type: string;
  path: string | null;
}

interface DetailsRow {
  seq: number;
  site_id: string;
  anon_id: string;
  is_internal: number;
  ts: number;
  path: string | null;
  source: string;
  utm_campaign: string | null;
  device_type: string | null;
  browser: string | null;
  os: string | null;
  country: string | null;
}

interface VisitRow {
  site_id: string;
  anon_id: string;
  is_internal: number;
  start_ts: number;
  end_ts: number;
  entry_seq: number;
  entry_path: string | null;
  source: string;
  utm_campaign: string | null;
}

const untilEveryEvent = Number.MAX_SAFE_INTEGER;

/** Strictly after `after` and strictly before (untilTs, untilSeq) in (ts, seq) order: the SQLite span's test. */
const inSpan = (event: { ts: number; seq: number }, after: EventAt, untilTs: number, untilSeq: number) =>
  event.ts >= after.ts && event.ts <= untilTs && (event.ts > after.ts || event.seq > after.seq) && (event.ts < untilTs || event.seq < untilSeq);

export function createClickHouseFunnelReads({ clickhouse, waitForShipping, deletionsOf, db }: ClickHouseFunnelReadOptions): FunnelQuestions {
  /**
   * Each person's anon_ids as of the watermark: their visitor keys' anon_ids, and for a user every anon_id bound to
   * them on a site of the scope that resolves back to them (devices that did none of the steps included).
   */
  async function anonIdsOfPeople(question: AttemptsQuestion, deletions: readonly PendingDeletion[]): Promise<Map<string, string[]>> {
    const { siteIds } = question.scope;
    const people = new Map(question.attempts.map(({ person }) => [person.key, person]));
    const keys = [...new Set([...people.values()].flatMap((person) => person.visitors))];
    const anonIdOfKey = anonIdsOfVisitors(db, siteIds, question.unnumbered, keys);
    const anonIds = new Map<string, string[]>();
    for (const person of people.values()) anonIds.set(person.key, person.visitors.map((key) => anonIdOfKey.get(key)!));
    const users = [...people.keys()].filter((key) => key.startsWith('u:')).map((key) => key.slice(2));
    if (users.length === 0) return anonIds;
    // The anon_ids bound to one of the users, as bindingsAsOf reads bindings: hasAny(users, the users asked about).
    const bound = await clickhouse.query<{ anon_id: string; users: string[] }>(
      sql`SELECT anon_id, users FROM (${bindingsAsOf(siteIds, question.asOf, deletions)})
          WHERE anon_id IN (SELECT anon_id FROM identity_bindings
            WHERE site_id IN ${listOf(siteIds)} AND seq <= ${question.asOf} AND user_id IN people_users${withoutDeleted(deletions, 'identity_bindings')})`,
      {},
      [stringsTable('people_users', 'user_id', users)],
    );
    for (const { anon_id, users: boundTo } of bound) {
      const list = anonIds.get(`u:${firstUser(boundTo)}`);
      if (list && !list.includes(anon_id)) list.push(anon_id);
    }
    return anonIds;
  }

  /** The device and acquisition of each event asked about, by seq (the visit holding it, when the watermark counts its entry). */
  async function contextsOf(question: AttemptsQuestion, events: readonly EventAt[], deletions: readonly PendingDeletion[]): Promise<Map<number, EventContext>> {
    const contexts = new Map<number, EventContext>();
    if (events.length === 0) return contexts;
    const { siteIds } = question.scope;
    const fromTs = events.reduce((least, event) => Math.min(least, event.ts), Infinity);
    const toTs = events.reduce((most, event) => Math.max(most, event.ts), -Infinity);
    const details = await clickhouse.query<DetailsRow>(
      sql`SELECT seq, site_id, anon_id, is_internal, ts, path, source, utm_campaign, device_type, browser, os, country FROM events
          WHERE site_id IN ${listOf(siteIds)} AND ts >= ${fromTs} AND ts <= ${toTs} AND seq IN context_seqs
            ${withoutDeleted(deletions, 'events')}`,
      {},
      [{ name: 'context_seqs', columns: { seq: 'UInt64' }, rows: [...new Set(events.map((event) => event.seq))].map((seq) => ({ seq })) }],
    );
    const visits = await clickhouse.query<VisitRow>(
      sql`SELECT site_id, anon_id, is_internal, start_ts, end_ts, entry_seq, entry_path, source, utm_campaign
          FROM ${liveVisits({ scope: question.scope, withInternal: true }, fromTs, toTs + 1, deletions)}
          WHERE anon_id IN context_anons`,
      {},
      [stringsTable('context_anons', 'anon_id', details.map((row) => row.anon_id))],
    );
    for (const event of details) {
      // The visitor's latest visit starting at or before the event and ending at or after it (visits are disjoint).
      let visit: VisitRow | undefined;
      for (const candidate of visits) {
        if (candidate.site_id !== event.site_id || candidate.anon_id !== event.anon_id || candidate.is_internal !== event.is_internal) continue;
        if (candidate.start_ts > event.ts || candidate.end_ts < event.ts) continue;
        if (!visit || candidate.start_ts > visit.start_ts) visit = candidate;
      }
      const fromVisit = visit !== undefined && visit.entry_seq <= question.asOf;
      contexts.set(event.seq, {
        browser: event.browser,
        os: event.os,
        device: event.device_type,
        country: event.country,
        source: fromVisit ? visit!.source : event.source,
        campaign: fromVisit ? visit!.utm_campaign : event.utm_campaign,
        entryPath: fromVisit ? visit!.entry_path : event.path,
      });
    }
    return contexts;
  }

  return {
    async funnelPopulation(question) {
      const caughtUp = await waitForShipping();
      const { siteIds } = question.scope;
      const deletions = deletionsOf(siteIds);
      // The position first: a new execution's watermark.
      const freshness = await freshnessOf(clickhouse, siteIds, caughtUp);
      const watermark = question.asOf ?? freshness.position;
      const startMs = question.range.fromDay * dayMs;
      const rangeEndMs = (question.range.toDay + 1) * dayMs;
      const tests = question.steps.map((step, index) => (index === 0 ? startTest(question, rangeEndMs) : stepTest(step)));
      const mask = joinSql(tests.map((test, index) => sql`if(${test}, ${1 << index}, 0)`), ' + ');
      const propsSteps = question.steps.flatMap((step, index) => (step.props ? [index] : []));
      const raw = propsSteps.length === 0 ? sql`''` : sql`if(${joinSql(propsSteps.map((index) => tests[index]!), ' OR ')}, raw, '')`;
      const startValue = question.breakdown === null ? sql`CAST(NULL AS Nullable(String))` : sql`if(${tests[0]!}, ${sqlName(funnelBreakdownColumns[question.breakdown])}, NULL)`;
      const rows = await clickhouse.query<PopulationRow>(
        sql`SELECT ts, seq, mask, anon_id, props_raw, start_value, users FROM (
              SELECT ts, seq, anon_id, ${mask} AS mask, ${raw} AS props_raw, ${startValue} AS start_value FROM events
              WHERE site_id IN ${listOf(siteIds)} AND ts >= ${startMs} AND ts < ${rangeEndMs + question.afterRangeMs} AND seq <= ${watermark}
                AND is_bot = 0 AND (is_internal = 0 OR ${question.withInternal ? 1 : 0} = 1)${withoutDeleted(deletions, 'events')} AND mask != 0)
            ALL LEFT JOIN (${bindingsAsOf(siteIds, watermark, deletions)}) USING (anon_id)
            ORDER BY ts, seq LIMIT ${question.maxEvents + 1}`,
      );
      const answered = { asOf: watermark, freshness, computedFrom: 'event_log' as const };
      if (rows.length > question.maxEvents) {
        const none = { ts: new Float64Array(0), steps: new Uint16Array(0), seqs: null, breakdownValues: [] };
        return { ...answered, overCap: true, events: none, people: { keys: [], offsets: new Int32Array(1), order: new Int32Array(0), visitors: [], unnumbered: new Map() } };
      }
      const steps = Uint16Array.from(rows, (row) => row.mask);
      // Props are tested here (JSON.parse's reading of a value, as at ingest): SQL set such a step's bit on its type and
      // path alone, and kept the raw text of exactly those rows.
      rows.forEach((row, index) => {
        if (row.props_raw === '') return;
        const values = propsOf(row.props_raw);
        for (const step of propsSteps) if (steps[index]! & (1 << step) && !propsMatch(question.steps[step]!, values)) steps[index]! &= ~(1 << step);
      });
      const breakdownValues: (string | null)[] = [];
      rows.forEach((row, index) => {
        if (row.start_value !== null) breakdownValues[index] = row.start_value;
      });
      // Across sites only seq orders two events of one ts.
      const withSeqs = question.withSeqs || siteIds.length > 1;
      return {
        ...answered,
        overCap: false,
        events: { ts: Float64Array.from(rows, (row) => row.ts), steps, seqs: withSeqs ? Float64Array.from(rows, (row) => row.seq) : null, breakdownValues },
        people: groupPeople(rows, steps),
      };
    },

    async attempts(question) {
      const caughtUp = await waitForShipping();
      const { siteIds } = question.scope;
      const deletions = deletionsOf(siteIds);
      const freshness = await freshnessOf(clickhouse, siteIds, caughtUp);
      const anonIdsOf = await anonIdsOfPeople(question, deletions);
      const contexts = await contextsOf(question, question.attempts.flatMap(({ contextOf }) => (contextOf ? [contextOf] : [])), deletions);
      // Every event of the people asked about from the earliest span's start to the execution's end, in (ts, seq)
      // order; each span is then cut here (bounded by the range, as the spans are).
      const { endMs } = question;
      const starts = question.attempts.flatMap(({ typesBetween, nextAfter }) => [...(typesBetween ? [typesBetween.after.ts] : []), ...(nextAfter ? [nextAfter.ts] : [])]);
      const anonIds = [...new Set(question.attempts.flatMap(({ person }) => anonIdsOf.get(person.key) ?? []))];
      const events =
        starts.length === 0 || anonIds.length === 0
          ? []
          : await clickhouse.query<SpanRow>(
              sql`SELECT site_id, anon_id, ts, seq, type, path FROM events
                  WHERE site_id IN ${listOf(siteIds)} AND anon_id IN people_anons AND ts >= ${starts.reduce((least, ts) => Math.min(least, ts), Infinity)} AND ts < ${endMs}
                    AND seq <= ${question.asOf} AND is_bot = 0 AND (is_internal = 0 OR ${question.withInternal ? 1 : 0} = 1)
                    ${withoutDeleted(deletions, 'events')}
                  ORDER BY ts, seq`,
              {},
              [stringsTable('people_anons', 'anon_id', anonIds)],
            );
      const eventsOf = new Map<string, SpanRow[]>();
      for (const event of events) {
        const list = eventsOf.get(event.anon_id);
        if (list) list.push(event);
        else eventsOf.set(event.anon_id, [event]);
      }
      /** The person's events in the span, in (ts, seq) order across their devices. */
      const spanOf = (key: string, after: EventAt, untilTs: number, untilSeq: number) =>
        (anonIdsOf.get(key) ?? [])
          .flatMap((anonId) => (eventsOf.get(anonId) ?? []).filter((event) => inSpan(event, after, untilTs, untilSeq)))
          .sort((a, b) => a.ts - b.ts || a.seq - b.seq);
      const attempts = question.attempts.map((attempt): AttemptAnswer => {
        const answer: AttemptAnswer = {};
        if (attempt.contextOf) {
          const context = contexts.get(attempt.contextOf.seq);
          if (!context) throw new Error(`event ${attempt.contextOf.seq} of the population is gone from ClickHouse`);
          answer.context = context;
        }
        if (attempt.typesBetween) {
          const { after, until } = attempt.typesBetween;
          // Never past the events the execution read ([start, end) of the range).
          const [untilTs, untilSeq] = until.ts >= endMs ? [endMs - 1, untilEveryEvent] : [until.ts, until.seq ?? untilEveryEvent];
          answer.types = [...new Set(spanOf(attempt.person.key, after, untilTs, untilSeq).map((event) => event.type))];
        }
        if (attempt.nextAfter) {
          const [first] = spanOf(attempt.person.key, attempt.nextAfter, endMs - 1, untilEveryEvent);
          answer.next = first ? { type: first.type, path: first.path } : null;
        }
        return answer;
      });
      return { attempts, freshness, computedFrom: 'event_log' as const };
    },
  };
}
