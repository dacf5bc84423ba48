// The parameters of GET /workspaces/:slug/attribution/results: model, from and to (ISO dates or timestamps with an
// offset, inclusive, at most 366 days), optional conversion_id, limit 1-10,000 and an opaque cursor.
import { ApiError } from '../http/errors.ts';
import { reportErrors } from '../reading/common-param-errors.ts';
import { parseLimit, type QueryValues, single } from '../reading/common-params.ts';
import { parseIsoTimestamp } from '../http/validate.ts';
import { parseDateText } from '../vocabulary/periods.ts';
import { type AttributionModel, attributionModels } from './models.ts';

const dayMs = 24 * 60 * 60 * 1000;
/** Attribution, ROI and spend ranges: at most 366 inclusive days (spec, Limits). */
export const maxRangeDays = 366;
export const defaultLimit = 1000;
export const maxLimit = 10_000;

export interface TimeRange {
  from: string;
  to: string;
  /** Inclusive, epoch ms. */
  startMs: number;
  endMs: number;
}

const dateParamMessage = 'must be a date (YYYY-MM-DD) or an ISO-8601 timestamp with an offset';

function parseBound(query: QueryValues, name: 'from' | 'to'): number {
  const text = single(query, name);
  if (text !== undefined) {
    const day = parseDateText(text);
    // A date is the whole UTC day: from its first millisecond, to its last.
    if (day !== undefined) return name === 'from' ? day * dayMs : (day + 1) * dayMs - 1;
    const ms = parseIsoTimestamp(text);
    if (ms !== undefined) return ms;
  }
  throw new ApiError(400, 'invalid_date_param', `${name} ${dateParamMessage}`, [{ path: `/${name}`, message: dateParamMessage }]);
}

/**
 * from ≤ to, and to − from spans at most 366 days counting both ends (2025-01-01 to 2026-01-01 is 366 days;
 * timestamps: to − from + 1 ms ≤ 366 × 24 h).
 */
export function parseTimeRange(query: QueryValues): TimeRange {
  const startMs = parseBound(query, 'from');
  const endMs = parseBound(query, 'to');
  if (startMs > endMs) throw reportErrors.invalidDateRange();
  if (endMs - startMs + 1 > maxRangeDays * dayMs) throw reportErrors.rangeTooLarge(maxRangeDays);
  return { from: query.from as string, to: query.to as string, startMs, endMs };
}

/** model: required, one of the six; a missing one is 400 invalid_param, an unknown one 400 unknown_model. */
export function parseModel(query: QueryValues, fallback?: AttributionModel): AttributionModel {
  const text = single(query, 'model');
  if (text === undefined) {
    if (fallback) return fallback;
    throw reportErrors.invalidParam('model', `is required: one of ${attributionModels.join(', ')}`);
  }
  if (!(attributionModels as readonly string[]).includes(text)) {
    throw new ApiError(400, 'unknown_model', `Unknown attribution model; use one of ${attributionModels.join(', ')}`, [
      { path: '/model', message: `must be one of ${attributionModels.join(', ')}` },
    ]);
  }
  return text as AttributionModel;
}

export interface ResultsParams {
  model: AttributionModel;
  range: TimeRange;
  conversionId: string | null;
  limit: number;
  cursor: string | undefined;
}

/** Checks every parameter in a fixed order: model, from, to, conversion_id, limit, cursor. */
export function parseResultsParams(query: QueryValues): ResultsParams {
  const model = parseModel(query);
  const range = parseTimeRange(query);
  const conversionId = single(query, 'conversion_id') ?? null;
  if (conversionId !== null && (conversionId === '' || conversionId.length > 128)) throw reportErrors.invalidParam('conversion_id', 'must be an event id of 1 to 128 characters');
  const limit = parseLimit(query, defaultLimit, maxLimit);
  const cursor = single(query, 'cursor');
  return { model, range, conversionId: conversionId?.toLowerCase() ?? null, limit, cursor };
}
