// The behaviour questions answered over the embedded database: journeys and page flow count the page sequences of
// the range's visits (visit-sequences.ts: the projector's stored sequences when the filters allow, else the events), retention the projector's daily visitor sets (retention-cohorts.ts), each
// in one read snapshot with its freshness. Ties are broken so that an answer never depends on read order.
import type { BehaviourQuestions, Journeys, JourneysQuestion, PageFlow, PathVisits } from '../behaviour-questions.ts';
import type { Selection } from '../questions.ts';
import { readRetention } from './retention-cohorts.ts';
import { type SqliteReadOptions, toAnswerFreshness } from './report-reads.ts';
import { inSnapshot, readFreshness } from './snapshot.ts';
import { readStoredVisitSequences, readVisitSequences, storedSequencesAnswer, type VisitSequences } from './visit-sequences.ts';

/** Code-unit order of two paths, as JavaScript compares strings (and SQLite's BINARY collation). */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Step by step; a path that is a prefix of the other comes first. */
function bySteps(a: readonly string[], b: readonly string[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const order = byText(a[index]!, b[index]!);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

/** The part of a visit's sequence a journey counts, or undefined when the anchor is not in it. */
function journeyOf(sequence: readonly number[], anchorId: number | undefined, question: JourneysQuestion): readonly number[] | undefined {
  if (question.anchor === null) return sequence.slice(0, question.steps);
  if (anchorId === undefined) return undefined;
  if (question.anchor.at === 'start') {
    const first = sequence.indexOf(anchorId);
    return first < 0 ? undefined : sequence.slice(first, first + question.steps);
  }
  const last = sequence.lastIndexOf(anchorId);
  return last < 0 ? undefined : sequence.slice(Math.max(0, last + 1 - question.steps), last + 1);
}

export function countJourneys(visits: VisitSequences, question: JourneysQuestion): Journeys {
  const anchorId = question.anchor === null ? undefined : visits.paths.indexOf(question.anchor.path);
  const counts = new Map<string, { ids: readonly number[]; visits: number; visitors: Set<number> }>();
  visits.sequences.forEach((sequence, visit) => {
    const ids = journeyOf(sequence, anchorId === -1 ? undefined : anchorId, question);
    if (!ids) return;
    const key = ids.join(',');
    let count = counts.get(key);
    if (!count) counts.set(key, (count = { ids, visits: 0, visitors: new Set() }));
    count.visits++;
    count.visitors.add(visits.visitors[visit]!);
  });
  const paths = [...counts.values()].map((count) => ({ steps: count.ids.map((id) => visits.paths[id]!), visitors: count.visitors.size, visits: count.visits }));
  paths.sort((a, b) => b.visits - a.visits || b.visitors - a.visitors || bySteps(a.steps, b.steps));
  return { paths: paths.slice(0, question.limit) };
}

function ranked(counts: Map<number, number>, paths: readonly string[], limit: number): PathVisits[] {
  return [...counts]
    .map(([id, visits]) => ({ path: paths[id]!, visits }))
    .sort((a, b) => b.visits - a.visits || byText(a.path, b.path))
    .slice(0, limit);
}

export function countPageFlow(visits: VisitSequences, path: string, limit: number): PageFlow {
  const id = visits.paths.indexOf(path);
  const previous = new Map<number, number>();
  const next = new Map<number, number>();
  let exits = 0;
  if (id < 0) return { previous: [], next: [], exits };
  const add = (counts: Map<number, number>, seen: Set<number>, other: number | undefined) => {
    if (other === undefined || seen.has(other)) return;
    seen.add(other);
    counts.set(other, (counts.get(other) ?? 0) + 1);
  };
  for (const sequence of visits.sequences) {
    // A visit counts once per page before or after the path, however often it went that way.
    const before = new Set<number>();
    const after = new Set<number>();
    for (let index = 0; index < sequence.length; index++) {
      if (sequence[index] !== id) continue;
      add(previous, before, sequence[index - 1]);
      add(next, after, sequence[index + 1]);
    }
    if (sequence[sequence.length - 1] === id) exits++;
  }
  return { previous: ranked(previous, visits.paths, limit), next: ranked(next, visits.paths, limit), exits };
}

/** The range's visit sequences: stored ones when the question allows, else cut from the events (same answer). */
function sequencesOf(db: SqliteReadOptions['db'], selection: Selection, maxSeq: number): VisitSequences {
  return storedSequencesAnswer(db, selection) ? readStoredVisitSequences(db, selection) : readVisitSequences(db, selection, maxSeq);
}

export function createSqliteBehaviourReads({ db, waitForProjection }: SqliteReadOptions): BehaviourQuestions {
  /** Visits are derived: every question waits, bounded, for the projector, then reads up to its position. */
  const answer = async <Figures>(siteIds: readonly string[], read: (projectedSeq: number) => Figures) => {
    const caughtUp = await waitForProjection();
    return inSnapshot(db, () => {
      const freshness = readFreshness(db, siteIds);
      return { ...read(freshness.projectedSeq), freshness: toAnswerFreshness(freshness, caughtUp), computedFrom: 'event_log' as const };
    });
  };
  return {
    journeys: (question) => answer(question.scope.siteIds, (seq) => countJourneys(sequencesOf(db, question, seq), question)),
    pageFlow: (question) => answer(question.scope.siteIds, (seq) => countPageFlow(sequencesOf(db, question, seq), question.path, question.limit)),
    retention: async (question) => {
      const figures = await answer(question.scope.siteIds, (seq) => ({ cohorts: readRetention(db, question, seq) }));
      return { ...figures, computedFrom: 'rollups' as const };
    },
  };
}
