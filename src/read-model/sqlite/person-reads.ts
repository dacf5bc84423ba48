// The person questions answered over the embedded database: a user's anon_ids (the projector's identities plus the
// log's unprojected tail) and each one's events (the visitor index plus the tail), merged newest first, in one
// read snapshot.
import type { Db } from '../../db/open.ts';
import { listUserAnonIds } from '../../projector/queries/user-anon-ids.ts';
import { listVisitorTimelineEvents, type VisitorTimelineRow } from '../../projector/queries/visitor-events.ts';
import type { PersonQuestions, TimelinePage } from '../person-questions.ts';
import { toTimelineEvent } from '../timeline-event.ts';
import type { SqliteReadOptions } from './report-reads.ts';
import { inSnapshot } from './snapshot.ts';

const noLowerBound = Number.MIN_SAFE_INTEGER;
const noUpperBound = Number.MAX_SAFE_INTEGER;

interface Window {
  notBefore: number;
  before: number;
}

/** The newest `count` events (all with -1) of the anon_ids in the window: each read in index order, then merged. */
function newestEvents(db: Db, siteId: string, anonIds: string[], window: Window, count: number): VisitorTimelineRow[] {
  const rows = anonIds.flatMap((anonId) =>
    listVisitorTimelineEvents(db, { site_id: siteId, anon_id: anonId, not_before: window.notBefore, before: window.before, limit: count }),
  );
  rows.sort((a, b) => b.ts - a.ts || b.seq - a.seq);
  return count < 0 ? rows : rows.slice(0, count);
}

/**
 * One page: at most `limit` rows ending on a millisecond boundary, so `nextBefore` (the last row's ts) loses no
 * row that shares it. Only when the newest millisecond alone holds more than `limit` events is the page that whole
 * millisecond (more than `limit` rows): the only way to page by a time without skipping or repeating.
 */
function pageOf(db: Db, siteId: string, anonIds: string[], before: number, limit: number): { rows: VisitorTimelineRow[]; nextBefore: number | null } {
  const rows = newestEvents(db, siteId, anonIds, { notBefore: noLowerBound, before }, limit + 1);
  if (rows.length <= limit) return { rows, nextBefore: null };
  const firstLeftOut = rows[limit]!.ts;
  const cut = rows.findIndex((row) => row.ts === firstLeftOut);
  if (cut > 0) return { rows: rows.slice(0, cut), nextBefore: rows[cut - 1]!.ts };
  const wholeMillisecond = newestEvents(db, siteId, anonIds, { notBefore: firstLeftOut, before: firstLeftOut + 1 }, -1);
  const older = newestEvents(db, siteId, anonIds, { notBefore: noLowerBound, before: firstLeftOut }, 1);
  return { rows: wholeMillisecond, nextBefore: older.length > 0 ? firstLeftOut : null };
}

export function createSqlitePersonReads({ db }: SqliteReadOptions): PersonQuestions {
  return {
    async timeline(question) {
      return inSnapshot(db, (): TimelinePage => {
        const anonIds = listUserAnonIds(db, { site_id: question.siteId, user_id: question.userId });
        if (anonIds.length === 0) return { unknownUser: true };
        const page = pageOf(db, question.siteId, anonIds, question.beforeMs ?? noUpperBound, question.limit);
        return { unknownUser: false, events: page.rows.map(toTimelineEvent), nextBeforeMs: page.nextBefore };
      });
    },
  };
}
