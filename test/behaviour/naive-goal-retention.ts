// The reference for retention started on a goal (docs/reports.md), the plainest way, straight from the raw events:
// a goal matched by its own few lines here (no code shared with src/vocabulary/goal-rule.ts), people as
// test/reports/naive-reports.ts's naiveRetention makes them (an anon_id named with a user_id by any event is that
// user; with several, the first in order), a cohort the people whose first conversion ever falls in its period, and
// returning those with any event in each later period. Not a test file itself.
import type { Db } from '../../src/db/open.ts';
import type { NaiveQuery } from '../reports/naive-reports.ts';

export interface NaiveGoal {
  kind: 'pageview' | 'event';
  path?: string;
  event_type?: string;
  props?: Record<string, string>;
}

const day = 86_400_000;
const dayText = (ts: number) => new Date(ts).toISOString().slice(0, 10);

function naiveConverts(goal: NaiveGoal, row: { type: string; path: string | null; raw: string }): boolean {
  if (row.type !== (goal.kind === 'pageview' ? 'pageview' : goal.event_type)) return false;
  if (goal.path !== undefined) {
    if (row.path === null) return false;
    if (goal.path.endsWith('*') ? !row.path.startsWith(goal.path.slice(0, -1)) : row.path !== goal.path) return false;
  }
  const props = (JSON.parse(row.raw) as { props?: unknown }).props;
  for (const [key, wanted] of Object.entries(goal.props ?? {})) {
    const value = props !== null && typeof props === 'object' && !Array.isArray(props) ? (props as Record<string, unknown>)[key] : undefined;
    const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? JSON.stringify(value) : undefined;
    if (text !== wanted) return false;
  }
  return true;
}

function periodStart(text: string, period: 'week' | 'month'): string {
  if (period === 'month') return `${text.slice(0, 7)}-01`;
  const date = new Date(`${text}T00:00:00Z`);
  return dayText(date.getTime() - ((date.getUTCDay() + 6) % 7) * day);
}

export function naiveGoalRetention(db: Db, query: NaiveQuery, period: 'week' | 'month', goal: NaiveGoal) {
  const placeholders = query.siteIds.map(() => '?').join(',');
  const rows = db
    .prepare(`SELECT anon_id, user_id, ts, type, path, raw, is_bot, is_internal FROM events WHERE site_id IN (${placeholders}) ORDER BY seq`)
    .all(...query.siteIds) as { anon_id: string; user_id: string | null; ts: number; type: string; path: string | null; raw: string; is_bot: number; is_internal: number }[];
  const userOf = new Map<string, string>();
  for (const row of rows) if (row.user_id !== null && (!userOf.has(row.anon_id) || row.user_id < userOf.get(row.anon_id)!)) userOf.set(row.anon_id, row.user_id);
  const personOf = (anonId: string) => (userOf.has(anonId) ? `user ${userOf.get(anonId)}` : `anon ${anonId}`);
  const starts: string[] = [];
  for (let text = periodStart(query.from, period); text <= query.to; ) {
    starts.push(text);
    const date = new Date(`${text}T00:00:00Z`);
    text = period === 'week' ? dayText(date.getTime() + 7 * day) : dayText(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1));
  }
  const counted = rows.filter((row) => row.is_bot === 0 && (query.withInternal || row.is_internal === 0));
  // Each person's first conversion ever, as a day.
  const firstConversion = new Map<string, string>();
  for (const row of counted) {
    if (!naiveConverts(goal, row)) continue;
    const person = personOf(row.anon_id);
    const text = dayText(row.ts);
    if (!firstConversion.has(person) || text < firstConversion.get(person)!) firstConversion.set(person, text);
  }
  const seen = new Map<string, Set<number>>();
  for (const row of counted) {
    const text = dayText(row.ts);
    if (text < query.from || text > query.to) continue;
    const person = personOf(row.anon_id);
    const periods = seen.get(person) ?? new Set<number>();
    periods.add(starts.indexOf(periodStart(text, period)));
    seen.set(person, periods);
  }
  const cohorts = starts.map((start, index) => ({ start, size: 0, returning: new Array<number>(starts.length - index - 1).fill(0) }));
  for (const [person, text] of firstConversion) {
    if (text < query.from || text > query.to) continue;
    const first = starts.indexOf(periodStart(text, period));
    cohorts[first]!.size++;
    for (const index of seen.get(person) ?? []) if (index > first) cohorts[first]!.returning[index - first - 1]!++;
  }
  return cohorts;
}
