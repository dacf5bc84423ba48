// Retention cohorts from the projector's daily visitor sets (report_visitor_sets, the total's): who was seen on
// each day, exactly, as visitor numbers, kept even after a retention purge removed the raw events. A person is a
// visitor number, or a user whose bound anon_ids are merged (persons.ts); first seen is their first day in any set,
// from the site's first day on, so a person seen before the range belongs to no cohort.
import type { Db } from '../../db/open.ts';
import { findValueId } from '../../projector/queries/value-rows.ts';
import { Dim } from '../../vocabulary/dimensions.ts';
import { firstDayOfMonth, Grain, monthOfDay } from '../../vocabulary/periods.ts';
import { chunkSize, containerMembers } from '../../rollup-format/visitor-container.ts';
import type { Cohort, RetentionPeriod, RetentionQuestion } from '../behaviour-questions.ts';
import { resolveVisitorUsers } from './persons.ts';
import { listVisitorContainers } from './queries/visitor-containers-in-range.ts';

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

/**
 * The cohorts of the question's range; call inside one snapshot, `projectedSeq` being the projector's position in it.
 * @example readRetention(db, { scope, range, withInternal: false, period: 'week' }, 120)[0].size
 */
export function readRetention(db: Db, question: RetentionQuestion, projectedSeq: number): Cohort[] {
  const { fromDay, toDay } = question.range;
  const starts = periodStartsOf(fromDay, toDay, question.period);
  const periodIndexOfDay = (day: number) => {
    let index = starts.length - 1;
    while (starts[index]! > day) index--;
    return index;
  };
  // Visitor number → the indexes of the range's periods it was seen in; those seen before the range.
  const seenBefore = new Set<number>();
  const seenIn = new Map<number, Set<number>>();
  let dayIndex = fromDay;
  let currentIndex = 0;
  for (const siteId of question.scope.siteIds) {
    const valueId = findValueId(db, siteId, Dim.total, '');
    if (valueId === undefined) continue;
    for (const internal of question.withInternal ? [0, 1] : [0]) {
      const rows = listVisitorContainers(db, { site_id: siteId, dim: Dim.total, value_id: valueId, internal, grain: Grain.day, from_period: 0, to_period: toDay });
      for (const [day, chunk, members] of rows) {
        const base = chunk * chunkSize;
        if (day < fromDay) {
          for (const low of containerMembers(members)) seenBefore.add(base + low);
          continue;
        }
        if (day !== dayIndex) {
          dayIndex = day;
          currentIndex = periodIndexOfDay(day);
        }
        for (const low of containerMembers(members)) {
          const vid = base + low;
          let periods = seenIn.get(vid);
          if (!periods) seenIn.set(vid, (periods = new Set()));
          periods.add(currentIndex);
        }
      }
    }
  }
  // People: a visitor of a user is that user (every one of its anon_ids), else the visitor alone.
  const vids = [...new Set([...seenBefore, ...seenIn.keys()])];
  const users = resolveVisitorUsers(db, question.scope.siteIds, projectedSeq, projectedSeq, vids);
  const personOf = (vid: number): string | number => {
    const user = users.get(vid);
    return user === undefined ? vid : `u:${user}`;
  };
  const personsBefore = new Set<string | number>();
  for (const vid of seenBefore) personsBefore.add(personOf(vid));
  const personPeriods = new Map<string | number, Set<number>>();
  for (const [vid, periods] of seenIn) {
    const person = personOf(vid);
    if (personsBefore.has(person)) continue;
    const known = personPeriods.get(person);
    if (!known) personPeriods.set(person, new Set(periods));
    else for (const period of periods) known.add(period);
  }
  const cohorts: Cohort[] = starts.map((startDay, index) => ({ startDay, size: 0, returning: new Array<number>(starts.length - 1 - index).fill(0) }));
  for (const periods of personPeriods.values()) {
    const first = Math.min(...periods);
    const cohort = cohorts[first]!;
    cohort.size++;
    for (const period of periods) if (period > first) cohort.returning[period - first - 1]!++;
  }
  return cohorts;
}
