// The engagement questions over the embedded database: the engagement events of the pages asked about, read from
// the event log under the report's filters (a visit filter or a goal waits for the projector's visits), their
// medians computed exactly here.
import { type EngagementQuestions, median, type PageEngagement } from '../engagement-questions.ts';
import { pageKeyOf } from '../../vocabulary/dimensions.ts';
import { dayMs } from '../../vocabulary/periods.ts';
import { readProjectorPosition } from '../../projector/queries/projector-state.ts';
import { convertedVisits } from './goal-conversions.ts';
import { listEngagementEvents } from './queries/engagement-events.ts';
import { toEventFilterParams, visitFilterNames } from './queries/event-filter.ts';
import { loadRawVisits } from './raw-visits.ts';
import { type SqliteReadOptions, toAnswerFreshness } from './report-reads.ts';
import { inSnapshot, readFreshness } from './snapshot.ts';

const validDepth = (value: unknown): value is number => typeof value === 'number' && value >= 0 && value <= 100;
const validMs = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

export function createSqliteEngagementReads({ db, waitForProjection }: SqliteReadOptions): EngagementQuestions {
  return {
    async pageEngagement(question) {
      const needsVisits = question.filters.goal !== undefined || visitFilterNames.some((name) => question.filters[name] !== undefined);
      const caughtUp = needsVisits ? await waitForProjection() : true;
      return inSnapshot(db, () => {
        const { siteIds } = question.scope;
        const wanted = new Set(question.keys);
        const paths = [...new Set(question.keys.map((key) => (question.by === 'page' ? key.split('?', 1)[0]! : key)))];
        let onlySeqs: string | null = null;
        if (question.filters.goal) {
          const maxSeq = readProjectorPosition(db);
          const visits = loadRawVisits(db, { siteIds, fromDay: question.range.fromDay, toDay: question.range.toDay, withInternal: question.withInternal, maxSeq });
          onlySeqs = JSON.stringify(convertedVisits(db, siteIds, visits, question.filters.goal.rule, maxSeq).flatMap((visit) => visit.events.map((event) => event.seq)));
        }
        const rows = listEngagementEvents(db, {
          site_ids: JSON.stringify(siteIds),
          start_ms: Math.max(question.range.fromDay * dayMs, question.sinceMs ?? -Infinity),
          end_ms: (question.range.toDay + 1) * dayMs,
          paths: JSON.stringify(paths),
          only_seqs: onlySeqs,
          ...toEventFilterParams(question.filters, question.withInternal),
        });
        const collected = new Map<string, { depths: number[]; times: number[] }>();
        for (const row of rows) {
          if (!validDepth(row.scroll_depth) || !validMs(row.engaged_ms)) continue;
          const key = question.by === 'page' ? pageKeyOf(row.path, row.query)! : row.path;
          if (!wanted.has(key)) continue;
          let found = collected.get(key);
          if (!found) collected.set(key, (found = { depths: [], times: [] }));
          found.depths.push(row.scroll_depth);
          found.times.push(row.engaged_ms);
        }
        const pages = new Map<string, PageEngagement>(
          [...collected].map(([key, { depths, times }]) => [key, { scrollDepth: median(depths), engagedMs: median(times), events: depths.length }]),
        );
        return { pages, freshness: toAnswerFreshness(readFreshness(db, siteIds), caughtUp), computedFrom: 'event_log' as const };
      });
    },
  };
}
