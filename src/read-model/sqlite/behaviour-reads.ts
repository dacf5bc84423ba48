// The behaviour questions answered over the embedded database: journeys and page flow count the page sequences of
// the range's visits (visit-sequences.ts: the projector's stored sequences when the filters allow, else the events), retention the projector's daily visitor sets (retention-cohorts.ts), each
// in one read snapshot with its freshness. Ties are broken so that an answer never depends on read order.
import type { BehaviourQuestions, JourneyPath, Journeys, JourneysQuestion, PageFlow, PathVisits } from '../behaviour-questions.ts';
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

/** Above any visitor number: node × visitorSpan + vid stays an exact double for a million journeys' nodes. */
const visitorSpan = 2 ** 32;
/** Above any count of visits or visitors of one journey. */
const countSpan = 2 ** 24;

/**
 * Journeys are counted in a trie of their steps (a node per distinct prefix, in one map keyed by node × paths + step),
 * each visit at its journey's last node; distinct visitors per node come from one sort of (node, visitor) pairs; only
 * the journeys that can make the first `limit` (by visits, then visitors) get their steps spelled and sorted.
 */
export function countJourneys(visits: VisitSequences, question: JourneysQuestion): Journeys {
  const { anchor, steps } = question;
  const anchorId = anchor === null ? -1 : visits.paths.indexOf(anchor.path);
  if (anchor !== null && anchorId < 0) return { paths: [] };
  const childOf = new Map<number, number>();
  const pathCount = visits.paths.length;
  const parentOf: number[] = [-1];
  const stepOf: number[] = [-1];
  const visitsOf: number[] = [0];
  const pairs = new Float64Array(visits.sequences.length);
  let counted = 0;
  const { sequences } = visits;
  for (let visit = 0; visit < sequences.length; visit++) {
    const sequence = sequences[visit]!;
    // The part a journey counts: the first steps, from the anchor's first pageview, or up to its last one.
    let from = 0;
    let to = Math.min(sequence.length, steps);
    if (anchor !== null) {
      if (anchor.at === 'start') {
        from = sequence.indexOf(anchorId);
        if (from < 0) continue;
        to = Math.min(sequence.length, from + steps);
      } else {
        to = sequence.lastIndexOf(anchorId) + 1;
        if (to === 0) continue;
        from = Math.max(0, to - steps);
      }
    }
    let node = 0;
    for (let index = from; index < to; index++) {
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
  }
  const sorted = pairs.subarray(0, counted).sort();
  const visitorsOf = new Int32Array(parentOf.length);
  for (let index = 0; index < sorted.length; index++) {
    if (index > 0 && sorted[index] === sorted[index - 1]) continue;
    visitorsOf[Math.floor(sorted[index]! / visitorSpan)]!++;
  }
  // The rank of the limit-th journey by (visits, visitors): every journey at or above it may be in the answer (ties
  // are then broken by steps, which need the texts).
  const ends: number[] = [];
  for (let node = 1; node < parentOf.length; node++) if (visitsOf[node]! > 0) ends.push(node);
  const ranks = new Float64Array(ends.length);
  ends.forEach((node, index) => (ranks[index] = visitsOf[node]! * countSpan + visitorsOf[node]!));
  const cutoff = ends.length <= question.limit ? 0 : ranks.slice().sort()[ends.length - question.limit]!;
  const paths: JourneyPath[] = [];
  ends.forEach((node, index) => {
    if (ranks[index]! < cutoff) return;
    const names: string[] = [];
    for (let at = node; at > 0; at = parentOf[at]!) names.push(visits.paths[stepOf[at]!]!);
    paths.push({ steps: names.reverse(), visitors: visitorsOf[node]!, visits: visitsOf[node]! });
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

/** The range's visit sequences: stored ones when the question allows (only those holding `needed`, if given), else cut from the events (same answer). */
function sequencesOf(db: SqliteReadOptions['db'], selection: Selection, maxSeq: number, needed?: string): VisitSequences {
  return storedSequencesAnswer(db, selection) ? readStoredVisitSequences(db, selection, needed) : readVisitSequences(db, selection, maxSeq);
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
    journeys: (question) => answer(question.scope.siteIds, (seq) => countJourneys(sequencesOf(db, question, seq, question.anchor?.path), question)),
    pageFlow: (question) => answer(question.scope.siteIds, (seq) => countPageFlow(sequencesOf(db, question, seq, question.path), question.path, question.limit)),
    retention: async (question) => {
      const figures = await answer(question.scope.siteIds, (seq) => ({ cohorts: readRetention(db, question, seq) }));
      return { ...figures, computedFrom: 'rollups' as const };
    },
  };
}
