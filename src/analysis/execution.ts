// execution_id: a stateless, signed token that pins a funnel run. It carries a digest of the query (and workspace)
// and the watermark the run counted up to (the projector's position: events with seq <= it, identity bindings made
// by them), the sites it read (all-sites: a site deleted since, and its events with it, changes the population), plus
// the freshness it showed. Signed like the report cursors (src/reports/cursor.ts: HMAC under the
// database's cursor secret), so a forged or altered token is refused (400), and a genuine one presented with
// another query is a 409 execution_mismatch. Nothing is stored.
import { ApiError } from '../http/errors.ts';
import { type CursorContext, fingerprintOf, signCursor, verifyCursor } from '../reading/cursor.ts';
import type { AnalysisScope } from './analysis-scope.ts';
import { canonicalQuery, type FunnelQuery } from './funnel-query.ts';

const kind = 'funnel-execution';
// The digest of the query is checked separately (a mismatch is a 409, not a 400), so the cursor's own binding is fixed.
const binding = 'funnels-v2';

export interface Execution {
  /** Events with seq <= this count; identity bindings as they stood at it. */
  watermarkSeq: number;
  /** The freshness the run showed (epoch ms), echoed in meta by the panels that reuse it. */
  watermarkMs: number | null;
  projectedThroughMs: number | null;
  /** False when the run's wait for the projector ran out. */
  caughtUp: boolean;
}

/** @example queryDigest(workspace.id, query) // 'WrHc_Gp-Wuk-j4Ry' */
export function queryDigest(workspaceId: string, query: FunnelQuery): string {
  return fingerprintOf(canonicalQuery(workspaceId, query));
}

function sitesDigest(siteIds: readonly string[]): string {
  return fingerprintOf([...siteIds].sort());
}

/** @example const id = signExecution(context, scope, query, { watermarkSeq: 42, watermarkMs: null, projectedThroughMs: null, caughtUp: true }); */
export function signExecution(context: CursorContext, scope: AnalysisScope, query: FunnelQuery, execution: Execution): string {
  return signCursor(context, kind, binding, {
    q: queryDigest(scope.workspaceId, query),
    t: sitesDigest(scope.siteIds),
    s: execution.watermarkSeq,
    w: execution.watermarkMs ?? -1,
    p: execution.projectedThroughMs ?? -1,
    c: execution.caughtUp ? 1 : 0,
  });
}

/**
 * The pinned run: 400 invalid_payload for a token this server did not issue, 409 execution_mismatch for another query
 * or another set of sites (all-sites scope: a site added or deleted since).
 * @example const { watermarkSeq } = verifyExecution(context, body.execution_id, scope, query);
 */
export function verifyExecution(context: CursorContext, token: string, scope: AnalysisScope, query: FunnelQuery): Execution {
  let state: Record<string, number | string>;
  try {
    state = verifyCursor(context, token, kind, binding, 'execution_id');
  } catch {
    throw ApiError.invalidPayload([{ path: '/execution_id', message: 'is not an execution_id this server issued' }]);
  }
  const { q, t, s, w, p, c } = state;
  if (typeof q !== 'string' || typeof t !== 'string' || typeof s !== 'number' || typeof w !== 'number' || typeof p !== 'number' || typeof c !== 'number') {
    throw ApiError.invalidPayload([{ path: '/execution_id', message: 'is not an execution_id this server issued' }]);
  }
  if (q !== queryDigest(scope.workspaceId, query)) {
    throw new ApiError(409, 'execution_mismatch', 'The query differs from the one the execution_id was issued for: run the funnel again', [
      { path: '/query', message: 'differs from the query of execution_id' },
    ]);
  }
  if (t !== sitesDigest(scope.siteIds)) {
    throw new ApiError(409, 'execution_mismatch', "The workspace's sites changed since the execution_id was issued: run the funnel again", [
      { path: '/query/scope', message: 'covers other sites than when execution_id was issued' },
    ]);
  }
  return { watermarkSeq: s, watermarkMs: w < 0 ? null : w, projectedThroughMs: p < 0 ? null : p, caughtUp: c === 1 };
}
