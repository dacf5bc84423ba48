// Retention cohorts from the projector's daily visitor sets (report_visitor_sets, the total's): who was seen on
// each day, exactly, as visitor numbers, kept even after a retention purge removed the raw events. A person is a
// visitor number, or a user whose bound anon_ids are merged (persons.ts); first seen is their first day in any set,
// from the site's first day on, so a person seen before the range belongs to no cohort. Started on a goal, a cohort is
// the people whose first conversion ever falls in its period, and returning is seen again, any visit, in each later
// period: a pageview goal without props reads the path visitor sets, any other goal the kept event log (the range's
// conversions, then the earlier events of those people).
import type { Db } from '../../db/open.ts';
import { findValueId } from '../../projector/queries/value-rows.ts';
import { Dim } from '../../vocabulary/dimensions.ts';
import { dayMs, firstDayOfMonth, Grain, monthOfDay } from '../../vocabulary/periods.ts';
import { eventMatchesGoal, goalEventType, goalHasProps, type GoalRule } from '../../vocabulary/goal-rule.ts';
import { anonIdsOfUser } from '../../projector/queries/identity-rows.ts';
import { findVisitorNumber } from '../../projector/queries/visitor-number-rows.ts';
import { chunkSize, containerMembers } from '../../rollup-format/visitor-container.ts';
import type { Cohort, RetentionPeriod, RetentionQuestion } from '../behaviour-questions.ts';
import { resolveVisitorUsers } from './persons.ts';
import { listVisitorContainers } from './queries/visitor-containers-in-range.ts';
import { listGoalEventsInSpan, listGoalEventsOfVisitorsBefore, listPathValueIds, type RetentionGoalEventRow } from './queries/retention-goal-events.ts';

/** Day numbers count from a Thursday (1970-01-01): the Monday of a day's ISO week. */
export function mondayOf(day: number): number {
  return day - ((((day + 3) % 7) + 7) % 7);
}

/** The first day of the period holding `day`. */
export function periodStartOf(day: number, period: RetentionPeriod): number {
  return period === 'week' ? mondayOf(day) : firstDayOfMonth(monthOfDay(day));
}

/** The first days of the periods that hold a day of the range, oldest first. */
export function periodStartsOf(fromDay: number, toDay: number, period: RetentionPeriod): number[] {
  const starts: number[] = [];
  for (let start = periodStartOf(fromDay, period); start <= toDay; start = period === 'week' ? start + 7 : firstDayOfMonth(monthOfDay(start) + 1)) starts.push(start);
  return starts;
}

/** The people of visitor numbers: a visitor of a user is that user (every one of its anon_ids), else the visitor alone. */
type Person = string | number;

/**
 * Who was seen when: the visitors seen before the range, and those seen in it with the indexes of the range's periods
 * they were seen in. Kept in typed arrays indexed by visitor number (a bit per period, two words: at most 64 periods,
 * the range limit makes 55 weeks), not a Set per visitor: a busy site's whole history is millions of memberships.
 */
function readSightings(db: Db, question: RetentionQuestion, starts: readonly number[], withBefore: boolean) {
  const { fromDay, toDay } = question.range;
  const periodIndexOfDay = (day: number) => {
    let index = starts.length - 1;
    while (starts[index]! > day) index--;
    return index;
  };
  const containers: [number, number, Buffer][] = [];
  let vidSpan = 0;
  for (const siteId of question.scope.siteIds) {
    const valueId = findValueId(db, siteId, Dim.total, '');
    if (valueId === undefined) continue;
    for (const internal of question.withInternal ? [0, 1] : [0]) {
      for (const row of listVisitorContainers(db, { site_id: siteId, dim: Dim.total, value_id: valueId, internal, grain: Grain.day, from_period: withBefore ? 0 : fromDay, to_period: toDay })) {
        containers.push(row);
        vidSpan = Math.max(vidSpan, (row[1] + 1) * chunkSize);
      }
    }
  }
  const before = new Uint8Array(vidSpan);
  const low = new Uint32Array(vidSpan);
  const high = new Uint32Array(vidSpan);
  /** Each visitor seen before the range, once; each seen in it, once. */
  const seenBefore: number[] = [];
  const seenIn: number[] = [];
  for (const [day, chunk, members] of containers) {
    const base = chunk * chunkSize;
    if (day < fromDay) {
      for (const member of containerMembers(members)) {
        const vid = base + member;
        if (before[vid] === 0) seenBefore.push(vid);
        before[vid] = 1;
      }
      continue;
    }
    const index = periodIndexOfDay(day);
    for (const member of containerMembers(members)) {
      const vid = base + member;
      if (low[vid] === 0 && high[vid] === 0) seenIn.push(vid);
      if (index < 32) low[vid] = (low[vid]! | (1 << index)) >>> 0;
      else high[vid] = (high[vid]! | (1 << (index - 32))) >>> 0;
    }
  }
  /** The indexes of the periods a visitor seen in the range was seen in, in order. */
  const periodsOf = (vid: number): number[] => {
    const periods: number[] = [];
    for (let index = 0; index < starts.length; index++) if ((index < 32 ? low[vid]! >>> index : high[vid]! >>> (index - 32)) & 1) periods.push(index);
    return periods;
  };
  return { seenBefore, wasSeenBefore: (vid: number) => before[vid] === 1, seenIn, periodsOf, periodIndexOfDay };
}

/** The SQL narrowing of a goal's candidates: its path, exact or up to its star. */
function candidateFilter(siteId: string, goal: GoalRule, maxSeq: number, withInternal: boolean) {
  const path = goal.path;
  return {
    site_id: siteId,
    type: goalEventType(goal),
    exact_path: path !== undefined && !path.endsWith('*') ? path : null,
    path_prefix: path !== undefined && path.endsWith('*') ? path.slice(0, -1) : null,
    max_seq: maxSeq,
    with_internal: withInternal ? 1 : 0,
    // Parsing each candidate's raw JSON for its props is paid only when the goal tests some.
    with_props: goalHasProps(goal) ? 1 : 0,
  };
}

const converts = (goal: GoalRule, row: RetentionGoalEventRow) =>
  eventMatchesGoal(goal, { type: goalEventType(goal), path: row.path, props: row.props === null ? null : JSON.parse(row.props) });

/**
 * People by the period of their first conversion ever on the goal, those whose first is in the range: the range's
 * conversions give the candidates, the earlier events of every visitor of theirs (a user's other anon_ids too) rule
 * out those who converted before.
 */
function firstConversions(db: Db, question: RetentionQuestion, goal: GoalRule, projectedSeq: number) {
  const startMs = question.range.fromDay * dayMs;
  const endMs = (question.range.toDay + 1) * dayMs;
  /** Visitor number → the day of its first conversion in the range. */
  const firstDayOf = new Map<number, number>();
  for (const siteId of question.scope.siteIds) {
    for (const row of listGoalEventsInSpan(db, { ...candidateFilter(siteId, goal, projectedSeq, question.withInternal), start_ms: startMs, end_ms: endMs })) {
      const day = Math.floor(row.ts / dayMs);
      const known = firstDayOf.get(row.vid);
      if ((known === undefined || day < known) && converts(goal, row)) firstDayOf.set(row.vid, day);
    }
  }
  // Every visitor number of the converters' users, so a conversion on another device before the range counts.
  const vids = new Set(firstDayOf.keys());
  const users = resolveVisitorUsers(db, question.scope.siteIds, projectedSeq, projectedSeq, [...vids]);
  for (const siteId of question.scope.siteIds) {
    const anonIds = new Set<string>();
    for (const user of new Set(users.values())) for (const anonId of anonIdsOfUser(db, siteId, user)) anonIds.add(anonId);
    for (const anonId of anonIds) {
      const vid = findVisitorNumber(db, siteId, anonId);
      if (vid !== undefined) vids.add(vid);
    }
  }
  // Their earlier candidates, all at once (one statement per site).
  const convertedBefore = new Set<number>();
  const vidsText = JSON.stringify([...vids]);
  for (const siteId of question.scope.siteIds) {
    const filter = candidateFilter(siteId, goal, projectedSeq, question.withInternal);
    for (const row of listGoalEventsOfVisitorsBefore(db, { ...filter, vids: vidsText, before_ms: startMs })) {
      if (!convertedBefore.has(row.vid) && converts(goal, row)) convertedBefore.add(row.vid);
    }
  }
  return { firstDayOf, convertedBefore, vids };
}

/** A pageview goal without props asks only for a pageview of a path: the path visitor sets answer it. */
function answersFromPathSets(goal: GoalRule): boolean {
  return goal.kind === 'pageview' && goal.path !== undefined && (goal.props === undefined || Object.keys(goal.props).length === 0);
}

/**
 * A pageview goal's conversions from the projector's daily path visitor sets (the visitors with a pageview of the
 * path that day, bots never; kept with the rollups, like the cohorts' own sets): each visitor's first day in the range
 * with a pageview of a matching path, and the visitors with one before the range. No event is read.
 */
function firstPageviewsOfPath(db: Db, question: RetentionQuestion, goal: GoalRule) {
  const { fromDay, toDay } = question.range;
  const path = goal.path!;
  const firstDayOf = new Map<number, number>();
  const convertedBefore = new Set<number>();
  for (const siteId of question.scope.siteIds) {
    const valueIds = listPathValueIds(db, { site_id: siteId, dim: Dim.path, exact_path: path.endsWith('*') ? null : path, path_prefix: path.endsWith('*') ? path.slice(0, -1) : null });
    for (const valueId of valueIds) {
      for (const internal of question.withInternal ? [0, 1] : [0]) {
        for (const [day, chunk, members] of listVisitorContainers(db, { site_id: siteId, dim: Dim.path, value_id: valueId, internal, grain: Grain.day, from_period: 0, to_period: toDay })) {
          const base = chunk * chunkSize;
          for (const member of containerMembers(members)) {
            const vid = base + member;
            if (day < fromDay) convertedBefore.add(vid);
            else if (day < (firstDayOf.get(vid) ?? Infinity)) firstDayOf.set(vid, day);
          }
        }
      }
    }
  }
  return { firstDayOf, convertedBefore, vids: new Set([...firstDayOf.keys(), ...convertedBefore]) };
}

function personResolver(db: Db, question: RetentionQuestion, projectedSeq: number, vids: Iterable<number>): (vid: number) => Person {
  const users = resolveVisitorUsers(db, question.scope.siteIds, projectedSeq, projectedSeq, [...new Set(vids)]);
  return (vid) => {
    const user = users.get(vid);
    return user === undefined ? vid : `u:${user}`;
  };
}

/** Each person's periods: the cohort's first, the later ones they were seen in counted as returning. */
function toCohorts(starts: readonly number[], people: Iterable<{ first: number; seen: Iterable<number> }>): Cohort[] {
  const cohorts: Cohort[] = starts.map((startDay, index) => ({ startDay, size: 0, returning: new Array<number>(starts.length - 1 - index).fill(0) }));
  for (const { first, seen } of people) {
    const cohort = cohorts[first]!;
    cohort.size++;
    for (const period of seen) if (period > first) cohort.returning[period - first - 1]!++;
  }
  return cohorts;
}

/**
 * The cohorts of the question's range; call inside one snapshot, `projectedSeq` being the projector's position in it.
 * @example readRetention(db, { scope, range, withInternal: false, period: 'week', goal: null }, 120)[0].size
 */
export function readRetention(db: Db, question: RetentionQuestion, projectedSeq: number): Cohort[] {
  const starts = periodStartsOf(question.range.fromDay, question.range.toDay, question.period);
  const goal = question.goal ?? null;
  const sightings = readSightings(db, question, starts, goal === null);
  /** People's periods: a user's visitors' merged; a lone visitor's as they are. */
  const mergePeriods = (personOf: (vid: number) => Person, keep: (person: Person) => boolean) => {
    const periodsOf = new Map<Person, number[] | Set<number>>();
    for (const vid of sightings.seenIn) {
      const person = personOf(vid);
      if (!keep(person)) continue;
      const known = periodsOf.get(person);
      if (!known) periodsOf.set(person, sightings.periodsOf(vid));
      else {
        const merged = known instanceof Set ? known : new Set(known);
        for (const period of sightings.periodsOf(vid)) merged.add(period);
        periodsOf.set(person, merged);
      }
    }
    return periodsOf;
  };
  if (goal !== null) {
    const pathSets = answersFromPathSets(goal);
    const conversions = pathSets ? firstPageviewsOfPath(db, question, goal) : firstConversions(db, question, goal, projectedSeq);
    const personOf = personResolver(db, question, projectedSeq, [...conversions.vids, ...sightings.seenIn]);
    const excluded = new Set<Person>([...conversions.convertedBefore].map(personOf));
    const firstOf = new Map<Person, number>();
    for (const [vid, day] of conversions.firstDayOf) {
      const person = personOf(vid);
      if (excluded.has(person)) continue;
      const period = sightings.periodIndexOfDay(day);
      firstOf.set(person, Math.min(period, firstOf.get(person) ?? period));
    }
    const seenOf = mergePeriods(personOf, (person) => firstOf.has(person));
    return toCohorts(starts, [...firstOf].map(([person, first]) => ({ first, seen: seenOf.get(person) ?? [] })));
  }
  const personOf = personResolver(db, question, projectedSeq, [...sightings.seenBefore, ...sightings.seenIn]);
  const personsBefore = new Set<Person>();
  for (const vid of sightings.seenBefore) {
    const person = personOf(vid);
    if (typeof person === 'string') personsBefore.add(person);
  }
  // A lone visitor (most people) is counted straight from its bits, ruled out by its own bit before the range; a
  // user's visitors are merged first, ruled out when any of them was seen before.
  const lone: { first: number; seen: number[] }[] = [];
  for (const vid of sightings.seenIn) {
    if (typeof personOf(vid) === 'string' || sightings.wasSeenBefore(vid)) continue;
    const periods = sightings.periodsOf(vid);
    lone.push({ first: periods[0]!, seen: periods });
  }
  const users = mergePeriods(personOf, (person) => typeof person === 'string' && !personsBefore.has(person));
  return toCohorts(starts, [...lone, ...[...users.values()].map((periods) => ({ first: Math.min(...periods), seen: periods }))]);
}
