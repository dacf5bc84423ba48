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

/** Where in a visit's sequence its journey lies ([from, to)), or undefined when the anchor is not in it. */
function journeyOf(sequence: readonly number[], anchorId: number | undefined, question: JourneysQuestion): [number, number] | undefined {
  if (question.anchor === null) return [0, Math.min(sequence.length, question.steps)];
  if (anchorId === undefined) return undefined;
  if (question.anchor.at === 'start') {
    const first = sequence.indexOf(anchorId);
    return first < 0 ? undefined : [first, Math.min(sequence.length, first + question.steps)];
  }
  const last = sequence.lastIndexOf(anchorId);
  return last < 0 ? undefined : [Math.max(0, last + 1 - question.steps), last + 1];
}

/** Above any visitor number: node × visitorSpan + vid stays an exact double for a million journeys' nodes. */
const visitorSpan = 2 ** 32;

/**
 * Journeys are counted in a trie of their steps (a node per distinct prefix), each visit at its journey's last node;
 * distinct visitors per node come from one sort of (node, visitor) pairs: no string key or Set per journey.
 */
export function countJourneys(visits: VisitSequences, question: JourneysQuestion): Journeys {
  const anchorIndex = question.anchor === null ? -1 : visits.paths.indexOf(question.anchor.path);
  const anchorId = anchorIndex === -1 ? undefined : anchorIndex;
  // One map for the whole trie: (node × paths + step) → child node.
  const childOf = new Map<number, number>();
  const pathCount = visits.paths.length;
  const parentOf: number[] = [-1];
  const stepOf: number[] = [-1];
  const visitsOf: number[] = [0];
  const pairs = new Float64Array(visits.sequences.length);
  let counted = 0;
  visits.sequences.forEach((sequence, visit) => {
    const span = journeyOf(sequence, anchorId, question);
    if (!span) return;
    let node = 0;
    for (let index = span[0]; index < span[1]; index++) {
      const step = sequence[index]!;
      const key = node * pathCount + step;
      let child = childOf.get(key);
      if (child === undefined) {
        child = parentOf.length;
        childOf.set(key, child);
        parentOf.push(node);
        stepOf.push(step);
        visitsOf.push(0);
      }
      node = child;
    }
    visitsOf[node]!++;
    pairs[counted++] = node * visitorSpan + visits.visitors[visit]!;
  });
  const sorted = pairs.subarray(0, counted).sort();
  const visitorsOf = new Map<number, number>();
  for (let index = 0; index < sorted.length; index++) {
    if (index > 0 && sorted[index] === sorted[index - 1]) continue;
    const node = Math.floor(sorted[index]! / visitorSpan);
    visitorsOf.set(node, (visitorsOf.get(node) ?? 0) + 1);
  }
  const paths = [...visitorsOf].map(([node, visitors]) => {
    const steps: string[] = [];
    for (let at = node; at > 0; at = parentOf[at]!) steps.push(visits.paths[stepOf[at]!]!);
    return { steps: steps.reverse(), visitors, visits: visitsOf[node]! };
  });
  paths.sort((a, b) => b.visits - a.visits || b.visitors - a.visitors || bySteps(a.steps, b.steps));
  return { paths: paths.slice(0, question.limit) };
}

function ranked(counts: Int32Array, paths: readonly string[], limit: number): PathVisits[] {
  const rows: PathVisits[] = [];
  counts.forEach((visits, id) => {
    if (visits > 0) rows.push({ path: paths[id]!, visits });
  });
  return rows.sort((a, b) => b.visits - a.visits || byText(a.path, b.path)).slice(0, limit);
}

export function countPageFlow(visits: VisitSequences, path: string, limit: number): PageFlow {
  const id = visits.paths.indexOf(path);
  let exits = 0;
  if (id < 0) return { previous: [], next: [], exits };
  const previous = new Int32Array(visits.paths.length);
  const next = new Int32Array(visits.paths.length);
  // A visit counts once per page before or after the path, however often it went that way: the last visit that
  // counted each page, instead of a Set per visit.
  const previousSeenIn = new Int32Array(visits.paths.length).fill(-1);
  const nextSeenIn = new Int32Array(visits.paths.length).fill(-1);
  visits.sequences.forEach((sequence, visit) => {
    for (let index = 0; index < sequence.length; index++) {
      if (sequence[index] !== id) continue;
      if (index > 0) {
        const other = sequence[index - 1]!;
        if (previousSeenIn[other] !== visit) {
          previousSeenIn[other] = visit;
          previous[other]!++;
        }
      }
      if (index + 1 < sequence.length) {
        const other = sequence[index + 1]!;
        if (nextSeenIn[other] !== visit) {
          nextSeenIn[other] = visit;
          next[other]!++;
        }
      }
    }
    if (sequence[sequence.length - 1] === id) exits++;
  });
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
