// Imported daily figures (Plausible's aggregates, docs/import-export.md) added to the report answers for their days.
// They carry no visits or visitors of their own to filter, so they are added only to unfiltered questions (they
// cannot be cross-filtered); their visitors are sums of daily visitors (meta says so).
import type { Db } from '../../db/open.ts';
import { type Counters, emptyCounters, field } from '../../rollup-format/counter-shard.ts';
import type { Selection } from '../questions.ts';
import type { RankDimension } from '../report-questions.ts';
import type { GroupTotals } from './grouping.ts';
import { type ImportedCountsRow, importedCountsByDay, importedCountsByValue } from './queries/imported-daily.ts';

/** The rankings imported figures exist for, and the imported dimension each reads. */
const importedDimensions: Partial<Record<RankDimension, string>> = {
  path: 'page', source: 'source', campaign: 'campaign', device: 'device', browser: 'browser', os: 'os', country: 'country',
  region: 'region', city: 'city',
};

/** Whether imported figures apply: no filter at all (they cannot be cross-filtered). */
export function takesImported(question: Selection): boolean {
  return Object.values(question.filters).every((value) => value === undefined);
}

function paramsOf(question: Selection, dimension: string) {
  return { sites: JSON.stringify(question.scope.siteIds), dimension, from_day: question.range.fromDay, to_day: question.range.toDay };
}

/** Adds one imported row's counts to rollup counters (a visit's pageviews count as its pageviews too, and as events, as live pageviews do). */
export function addImportedCounts(counters: Counters, row: ImportedCountsRow): void {
  counters[field.visits] = counters[field.visits]! + row.visits;
  counters[field.pageviews] = counters[field.pageviews]! + row.pageviews;
  counters[field.visit_pageviews] = counters[field.visit_pageviews]! + row.pageviews;
  counters[field.bounces] = counters[field.bounces]! + row.bounces;
  counters[field.duration_ms] = counters[field.duration_ms]! + row.duration_s * 1000;
  counters[field.events] = counters[field.events]! + row.pageviews + row.events;
}

/** The site's imported daily totals by day number, with the custom events of each day. */
export function importedDays(db: Db, question: Selection): Map<number, ImportedCountsRow> {
  const days = new Map<number, ImportedCountsRow>();
  for (const row of importedCountsByDay(db, paramsOf(question, 'total'))) days.set(Number(row.key), { ...row });
  for (const row of importedCountsByDay(db, paramsOf(question, 'event'))) {
    const day = days.get(Number(row.key));
    if (day) day.events += row.events;
    else days.set(Number(row.key), { ...row, visitors: 0, visits: 0, pageviews: 0, bounces: 0, duration_s: 0 });
  }
  return days;
}

/**
 * Adds the imported figures of the ranking's dimension to its groups (a value only imported gets a group); returns
 * each value's imported visitors (sums over days), or undefined when there are none.
 */
export function addImportedGroups(
  db: Db,
  question: Selection,
  by: RankDimension,
  totals: Map<string, GroupTotals>,
  keyOf: (value: string) => string = (value) => value,
): Map<string, number> | undefined {
  const dimension = importedDimensions[by];
  if (!dimension) return undefined;
  const rows = importedCountsByValue(db, paramsOf(question, dimension));
  if (rows.length === 0) return undefined;
  const groupOf = (key: string) => {
    let group = totals.get(key);
    if (!group) totals.set(key, (group = { counters: emptyCounters(), revenue: new Map() }));
    return group.counters;
  };
  const visitors = new Map<string, number>();
  for (const row of rows) {
    const key = keyOf(String(row.key));
    // A page's visits, bounces and durations are those of the visits entering on it (its entry page rows).
    addImportedCounts(groupOf(key), by === 'path' ? { ...row, visits: 0, bounces: 0, duration_s: 0 } : row);
    visitors.set(key, (visitors.get(key) ?? 0) + row.visitors);
  }
  if (by === 'path') {
    for (const row of importedCountsByValue(db, paramsOf(question, 'entry_page'))) {
      addImportedCounts(groupOf(String(row.key)), { ...row, pageviews: 0, events: 0 });
    }
    for (const row of importedCountsByValue(db, paramsOf(question, 'exit_page'))) {
      const counters = groupOf(String(row.key));
      counters[field.exits] = counters[field.exits]! + row.visits;
    }
  }
  return visitors;
}
