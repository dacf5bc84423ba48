// The refusals of report and event parameters, each a structured 400 with a stable code (CONTRACT section 8).
import { ApiError } from '../http/errors.ts';

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
