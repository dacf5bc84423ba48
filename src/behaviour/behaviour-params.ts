// The behaviour reports' own parameters, on top of the common ones (src/reading/common-params.ts): journeys' anchor,
// steps and limit, page flow's path and limit, retention's period. Each refusal is a structured 400 naming the
// parameter (CONTRACT section 8).
import { type CommonParams, parseLimit, type QueryValues, single } from '../reading/common-params.ts';
import { reportErrors } from '../reading/common-param-errors.ts';
import type { JourneyAnchor, RetentionPeriod } from '../read-model/behaviour-questions.ts';

export const minSteps = 2;
export const maxSteps = 6;
export const defaultSteps = 3;
export const maxBehaviourLimit = 50;
export const defaultBehaviourLimit = 10;
const maxPathLength = 512;

export interface JourneysParams {
  anchor: JourneyAnchor | null;
  steps: number;
  limit: number;
}

function parsePath(query: QueryValues, name: string): string | undefined {
  const path = single(query, name);
  if (path !== undefined && (path === '' || path.length > maxPathLength)) throw reportErrors.invalidParam(name, `must be a path of 1 to ${maxPathLength} characters`);
  return path;
}

/** start_path or end_path (not both), steps 2-6 (default 3), limit 1-50 (default 10). */
export function parseJourneysParams(query: QueryValues): JourneysParams {
  const start = parsePath(query, 'start_path');
  const end = parsePath(query, 'end_path');
  if (start !== undefined && end !== undefined) throw reportErrors.invalidParam('end_path', 'cannot be given with start_path: a journey has one anchor');
  const text = single(query, 'steps');
  if (text !== undefined && !(/^\d{1,2}$/.test(text) && Number(text) >= minSteps && Number(text) <= maxSteps)) {
    throw reportErrors.invalidParam('steps', `must be a whole number from ${minSteps} to ${maxSteps}`);
  }
  const anchor: JourneyAnchor | null = start !== undefined ? { at: 'start', path: start } : end !== undefined ? { at: 'end', path: end } : null;
  return { anchor, steps: text === undefined ? defaultSteps : Number(text), limit: parseLimit(query, defaultBehaviourLimit, maxBehaviourLimit) };
}

/** path (required), limit 1-50 (default 10). */
export function parsePageFlowParams(query: QueryValues): { path: string; limit: number } {
  const path = parsePath(query, 'path');
  if (path === undefined) throw reportErrors.invalidParam('path', 'is required: the page whose flow is asked');
  return { path, limit: parseLimit(query, defaultBehaviourLimit, maxBehaviourLimit) };
}

/** The common filters a retention report refuses: a cohort is people, not the visits a filter selects. */
const visitFilterNames = ['source', 'device', 'browser', 'os', 'country', 'region', 'city', 'path'] as const;

/** period (required: week or month); scope and internal apply, the visit filters are refused. */
export function parseRetentionPeriod(query: QueryValues, params: CommonParams): RetentionPeriod {
  for (const name of visitFilterNames) {
    if (params.filters[name] !== undefined) throw reportErrors.invalidParam(name, 'is not a filter of retention: cohorts count people, whatever their visits');
  }
  const period = single(query, 'period');
  if (period !== 'week' && period !== 'month') throw reportErrors.invalidParam('period', 'must be week or month');
  return period;
}
