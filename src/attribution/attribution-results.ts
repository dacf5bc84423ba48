// GET /workspaces/:slug/attribution/results: the workspace's purchases of a range, each with its touchpoints and
// their credits under the model, plus totals per (source, medium, campaign) over the whole range.
import type { AppContext } from '../context.ts';

/** What the computation reads: it runs on the analysis thread (src/analysis/analysis-job.ts) or inline. */
type ComputeContext = Pick<AppContext, 'db' | 'clock' | 'random'>;
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import { listSiteIds } from '../tenants/queries/list-sites.ts';
import { dayOf } from '../vocabulary/periods.ts';
import { fingerprintOf, signCursor, verifyCursor } from '../reading/cursor.ts';
import { toCompleteness, toFreshness } from '../reading/meta.ts';
import { inSnapshot, readFreshness } from '../read-model/sqlite/snapshot.ts';
import { fromMinorUnits } from '../money/minor-units.ts';
import { toIso } from '../clock.ts';
import { attributePage, attributeTotals, type AttributedConversion, toCredit, toMoneyList } from './attribute.ts';
import type { ResultsParams } from './attribution-params.ts';

const cursorKind = 'attribution';

function toResult(item: AttributedConversion) {
  const { conversion, journey, credits } = item;
  return {
    conversion_id: conversion.id,
    site_id: conversion.site_id,
    ts: toIso(conversion.ts),
    person: journey.person,
    revenue:
      conversion.revenue_minor !== null && conversion.revenue_currency !== null
        ? { amount: fromMinorUnits(conversion.revenue_minor, conversion.revenue_currency), currency: conversion.revenue_currency }
        : null,
    touchpoints: journey.touchpoints.map((visit, index) => ({
      ts: toIso(visit.start_ts),
      source: visit.source,
      medium: visit.utm_medium,
      campaign: visit.utm_campaign,
      credit: toCredit(credits[index]!),
    })),
  };
}

const msOrNull = (value: number | string | undefined) => (value === undefined || value === '' ? null : Number(value));

/**
 * The first page pins the projector's position in its cursor, so later pages page through the same conversions;
 * they also repeat the first page's freshness and completeness (they answer as of that position). `caughtUp` is
 * false when the wait for the projector ran out: completeness then says `projection_lag`.
 * @example attributionResults(context, workspace, { model: 'linear', range, conversionId: null, limit: 100, cursor: undefined }, true)
 */
export function attributionResults(context: ComputeContext, workspace: WorkspaceRow, params: ResultsParams, caughtUp: boolean) {
  const fingerprint = fingerprintOf([workspace.id, params.model, params.range.startMs, params.range.endMs, params.conversionId]);
  const state = params.cursor === undefined ? undefined : verifyCursor(context, params.cursor, cursorKind, fingerprint);
  const siteIds = listSiteIds(context.db, workspace.id);
  // Cursors issued before the freshness was pinned (no `l`) answer with the current freshness.
  const pinned = state !== undefined && state.l !== undefined;
  const asOf = pinned ? { caughtUp: state.l === 1, watermarkMs: msOrNull(state.r), projectedThroughMs: msOrNull(state.q) } : undefined;
  const answer = inSnapshot(context.db, () => {
    const current = readFreshness(context.db, siteIds);
    const freshness = asOf ?? current;
    const maxSeq = state ? Number(state.p) : current.projectedSeq;
    const range = { siteIds, startMs: params.range.startMs, endMs: params.range.endMs, maxSeq, eventId: params.conversionId };
    const after = state ? { ts: Number(state.t), seq: Number(state.s) } : { ts: -1, seq: -1 };
    const page = attributePage(context.db, params.model, range, after, params.limit);
    const totals = attributeTotals(context.db, params.model, range);
    return { maxSeq, page, totals, freshness };
  });
  const answeredCaughtUp = asOf ? asOf.caughtUp : caughtUp;
  const last = answer.page.items[answer.page.items.length - 1]?.conversion;
  return {
    model: params.model,
    from: params.range.from,
    to: params.range.to,
    results: answer.page.items.map(toResult),
    totals: answer.totals.map((total) => ({
      source: total.source,
      medium: total.medium,
      campaign: total.campaign,
      conversions: toCredit(total.creditUnits),
      revenue: toMoneyList(total.revenueMinor),
    })),
    next_cursor:
      answer.page.more && last
        ? signCursor(context, cursorKind, fingerprint, {
            t: last.ts,
            s: last.seq,
            p: answer.maxSeq,
            l: answeredCaughtUp ? 1 : 0,
            r: answer.freshness.watermarkMs ?? '',
            q: answer.freshness.projectedThroughMs ?? '',
          })
        : null,
    completeness: toCompleteness(answeredCaughtUp, dayOf(params.range.endMs), dayOf(context.clock.now())),
    freshness: toFreshness(answer.freshness),
  };
}
