// GET /sites/:siteId/reports/pages-v2: pages ranked by pageviews (then path), with include_params, limit and an
// opaque cursor pinned to the first page's watermark, so paging is stable while events keep arriving.
import type { AppContext } from '../context.ts';
import type { PagesAnswer } from './answers.ts';
import { fingerprintOf, signCursor, verifyCursor } from './cursor.ts';
import { Dim } from '../projector/dimensions.ts';
import { buildMeta } from './meta.ts';
import { measuresOf, withPageVisitors } from './measures.ts';
import type { CommonParams } from '../http/common-params.ts';
import { rankRows } from './ranked-rows.ts';
import { groupedReport } from './read/grouped-report.ts';
import { field } from '../projector/rollup/counter-shard.ts';
import type { ReportScope } from './scope.ts';
import { inSnapshot, readFreshness } from './snapshot.ts';
import { selectionOf } from './summary-report.ts';

export interface PagesOptions {
  includeParams: boolean;
  limit: number;
  cursor: string | undefined;
}

/** A time kept in a cursor ('' for none). */
function msOrNull(value: string | number | undefined): number | null {
  return value === undefined || value === '' ? null : Number(value);
}

export function pagesReport(context: AppContext, scope: ReportScope, params: CommonParams, options: PagesOptions, caughtUp: boolean): PagesAnswer {
  const fingerprint = fingerprintOf(['pages', scope.meta, params.range, params.filters, params.withInternal, options.includeParams]);
  const state = options.cursor === undefined ? undefined : verifyCursor(context, options.cursor, 'pages', fingerprint);
  return inSnapshot(context.db, () => {
    const db = context.db;
    const current = readFreshness(db, scope.siteIds);
    const currentSeq = current.projectedSeq;
    // Later pages answer as of the first page's position, and say so.
    const asOfSeq = state ? Number(state.w) : currentSeq;
    const freshness = state ? { watermarkMs: msOrNull(state.r), projectedThroughMs: msOrNull(state.p) } : current;
    const offset = state ? Number(state.o) : 0;
    const report = groupedReport(db, {
      selection: selectionOf(scope, params),
      grouping: { by: 'value', dim: options.includeParams ? Dim.page : Dim.path },
      currentSeq,
      asOfSeq,
    });
    const rows = rankRows(report, (c) => c[field.events]! + c[field.visits]! + c[field.exits]! > 0, field.pageviews);
    const page = rows.slice(offset, offset + options.limit);
    const visitors = report.visitorsOf(page.map((row) => row.key));
    const more = rows.length > offset + options.limit;
    const next = more ? signCursor(context, 'pages', fingerprint, { o: offset + options.limit, w: asOfSeq, r: freshness.watermarkMs ?? '', p: freshness.projectedThroughMs ?? '' }) : null;
    return {
      meta: buildMeta({
        scope,
        params,
        measures: withPageVisitors(measuresOf('visitors', 'pageviews', 'entries', 'exits'), true),
        freshness,
        caughtUp,
        computedFrom: report.computedFrom,
        truncated: more,
        nextCursor: next,
        limit: options.limit,
        now: context.clock.now(),
      }),
      data: {
        rows: page.map(({ key, totals: { counters } }) => ({
          path: key,
          visitors: visitors.get(key)!,
          pageviews: counters[field.pageviews]!,
          entries: counters[field.visits]!,
          exits: counters[field.exits]!,
        })),
      },
    };
  });
}
