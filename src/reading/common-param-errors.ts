// The refusals of report and event parameters, each a structured 400 with a stable code (CONTRACT section 8).
import { ApiError } from '../http/errors.ts';
import { namedInPath, needsCredential, type Refusals, refusals } from '../http/refusals.ts';

export const reportErrors = {
  invalidDateParam: (name: 'from' | 'to') =>
    new ApiError(400, 'invalid_date_param', `${name} must be a date as YYYY-MM-DD`, [{ path: `/${name}`, message: 'must be a date as YYYY-MM-DD' }]),
  invalidDateRange: () => new ApiError(400, 'invalid_date_range', 'from must not be after to', [{ path: '/from', message: 'must not be after to' }]),
  rangeTooLarge: (maxDays: number) =>
    new ApiError(400, 'range_too_large', `The range may cover at most ${maxDays} days`, [{ path: '/to', message: `must be at most ${maxDays - 1} days after from` }]),
  tooManyValues: (name: string, max: number) =>
    new ApiError(400, 'too_many_values', `${name} may list at most ${max} values`, [{ path: `/${name}`, message: `must list at most ${max} values` }]),
  unsupportedTimezone: () => new ApiError(400, 'unsupported_timezone', 'Only the UTC timezone is supported', [{ path: '/timezone', message: 'must be UTC' }]),
  unsupportedBots: () => new ApiError(400, 'unsupported_bots', 'Bot traffic cannot be included', [{ path: '/bots', message: 'must be exclude' }]),
  invalidParam: (name: string, message: string) => ApiError.invalidParam([{ path: `/${name}`, message }]),
};

/** What resolveReportSite refuses: no or a weak credential, a missing or foreign site (one 404 for both). */
export const reportAccessRefusals: Refusals = refusals(needsCredential, namedInPath);

/** from/to as parseDateRange checks them. */
export const dateRangeRefusals: Refusals = { 400: ['invalid_param', 'invalid_date_param', 'invalid_date_range', 'range_too_large'] };

/** internal, timezone and bots. */
export const trafficRefusals: Refusals = { 400: ['invalid_param', 'unsupported_timezone', 'unsupported_bots'] };

/** The traffic parameters and the dimension filter lists. */
export const filterRefusals: Refusals = refusals(trafficRefusals, { 400: ['too_many_values'] });

/** With CLICKHOUSE_URL set, a read whose data lives in ClickHouse while it is unreachable (docs/clickhouse.md). */
export const readStoreRefusals: Refusals = { 503: ['backend_unavailable'] };

/** Every V2 report and events list/overview: access, the range, the filters, scope, source, limit and cursor. */
export const v2Refusals: Refusals = refusals(reportAccessRefusals, dateRangeRefusals, filterRefusals, readStoreRefusals);
