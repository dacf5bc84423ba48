// GET /workspaces/:slug/attribution/results: the workspace's purchases of a range, each with its touchpoints and
// their credits under the model, plus totals per (source, medium, campaign) over the whole range.
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import { listSiteIds } from '../tenants/queries/list-sites.ts';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { fromMinorUnits } from '../money/minor-units.ts';
import type { ConversionRange } from '../read-model/attribution-questions.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import { fingerprintOf, signCursor, verifyCursor } from '../reading/cursor.ts';
import { toCompleteness, toFreshness } from '../reading/meta.ts';
import { dayOf } from '../vocabulary/periods.ts';
import { type AttributedConversion, attributeConversion, attributeTotals, lookbackMs, personOf, toCredit, toMoneyList } from './attribute.ts';
import type { ResultsParams } from './attribution-params.ts';

/** What the computation needs: it runs on the analysis thread (attribution-jobs.ts) or inline. */
export type ComputeContext = Pick<AppContext, 'db' | 'clock' | 'random'> & { readModel: ReadModel };

const cursorKind = 'attribution';

function toResult(item: AttributedConversion) {
  const { conversion, credits } = item;
  return {
    conversion_id: conversion.id,
    site_id: conversion.siteId,
    ts: toIso(conversion.ts),
    person: personOf(conversion),
    revenue: conversion.revenue ? { amount: fromMinorUnits(conversion.revenue.minor, conversion.revenue.currency), currency: conversion.revenue.currency } : null,
    touchpoints: conversion.touchpoints.map((visit, index) => ({
      ts: toIso(visit.startMs),
      source: visit.source,
      medium: visit.medium,
      campaign: visit.campaign,
      credit: toCredit(credits[index]!),
    })),
  };
}

const msOrNull = (value: number | string | undefined) => (value === undefined || value === '' ? null : Number(value));

/** What a cursor pins: the position and the first page's freshness, and where the page starts. */
function readCursorState(context: ComputeContext, params: ResultsParams, fingerprint: string) {
  const state = params.cursor === undefined ? undefined : verifyCursor(context, params.cursor, cursorKind, fingerprint);
  if (!state) return undefined;
  // Cursors issued before the freshness was pinned (no `l`) answer with the current freshness.
  const pinned = state.l !== undefined ? { caughtUp: state.l === 1, watermarkMs: msOrNull(state.r), projectedThroughMs: msOrNull(state.q) } : undefined;
  return { asOf: Number(state.p), after: { ts: Number(state.t), seq: Number(state.s) }, pinned };
}

/**
 * The first page pins the projector's position in its cursor, so later pages page through the same conversions;
 * they also repeat the first page's freshness and completeness (they answer as of that position). The read model's
 * freshness.caughtUp is false when the wait for the projector ran out: completeness then says `projection_lag`.
 * @example await attributionResults(context, workspace, { model: 'linear', range, conversionId: null, limit: 100, cursor: undefined })
 */
export async function attributionResults(context: ComputeContext, workspace: WorkspaceRow, params: ResultsParams) {
  const fingerprint = fingerprintOf([workspace.id, params.model, params.range.startMs, params.range.endMs, params.conversionId]);
  const cursor = readCursorState(context, params, fingerprint);
  const whole: ConversionRange = { startMs: params.range.startMs, endMs: params.range.endMs, eventId: params.conversionId };
  const answer = await context.readModel.conversions({
    scope: { siteIds: listSiteIds(context.db, workspace.id), workspaceId: workspace.id },
    // The page and the totals of every conversion of the range, in one snapshot.
    ranges: [{ ...whole, page: { after: cursor?.after ?? null, limit: params.limit } }, whole],
    lookbackMs,
    asOf: cursor?.asOf,
  });
  const [page, all] = answer.ranges as [(typeof answer.ranges)[0], (typeof answer.ranges)[0]];
  const freshness = cursor?.pinned ?? answer.freshness;
  const caughtUp = cursor?.pinned ? cursor.pinned.caughtUp : answer.freshness.caughtUp;
  const last = page.conversions[page.conversions.length - 1];
  return {
    model: params.model,
    from: params.range.from,
    to: params.range.to,
    results: page.conversions.map((conversion) => toResult(attributeConversion(params.model, conversion))),
    totals: attributeTotals(params.model, all.conversions).map((total) => ({
      source: total.source,
      medium: total.medium,
      campaign: total.campaign,
      conversions: toCredit(total.creditUnits),
      revenue: toMoneyList(total.revenueMinor),
    })),
    next_cursor:
      page.more && last
        ? signCursor(context, cursorKind, fingerprint, {
            t: last.ts,
            s: last.seq,
            p: answer.asOf,
            l: caughtUp ? 1 : 0,
            r: freshness.watermarkMs ?? '',
            q: freshness.projectedThroughMs ?? '',
          })
        : null,
    completeness: toCompleteness(caughtUp, dayOf(params.range.endMs), dayOf(context.clock.now())),
    freshness: toFreshness(freshness),
  };
}
