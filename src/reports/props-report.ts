// GET /v1/sites/:siteId/reports/props-v2?type=&property=: one event type broken down by the values of one of its
// props, events and visitors per value, the most frequent first. Read from the event log (like overview-v2), so an
// acknowledged event counts at once; with a visit filter, as of the projector's position (src/events/).
import type { AppContext } from '../context.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import { selectionOf } from './summary-report.ts';
import type { CommonParams, QueryValues } from '../reading/common-params.ts';
import { single } from '../reading/common-params.ts';
import { reportErrors } from '../reading/common-param-errors.ts';
import type { PropsAnswer } from './answers.ts';
import { buildMeta } from '../reading/meta.ts';
import type { ReportScope } from '../reading/scope.ts';

/** type and property: 1-200 characters each (the first refused length is 201). */
export const maxPropNameLength = 200;
/** A value's text is cut to this many characters; longer values are grouped by their beginning. */
export const maxPropValueLength = 500;

const propMeasures = {
  events: 'events of the type in the range whose props hold the property, with this value (bots never; internal traffic only with internal=include)',
  visitors: 'distinct anon_ids among those events (one per anon_id across the scope\'s sites)',
  value: `the property's value as text (strings as they are; numbers, true, false, null and JSON objects as JSON), cut to ${maxPropValueLength} characters`,
};

export interface PropsQuery {
  type: string;
  property: string;
}

function requiredName(query: QueryValues, name: string): string {
  const value = single(query, name);
  if (value === undefined || value.length === 0 || value.length > maxPropNameLength) {
    throw reportErrors.invalidParam(name, `is required: 1-${maxPropNameLength} characters`);
  }
  return value;
}

export function parsePropsQuery(query: QueryValues): PropsQuery {
  return { type: requiredName(query, 'type'), property: requiredName(query, 'property') };
}

export async function propsReport(context: AppContext, readModel: ReadModel, scope: ReportScope, params: CommonParams, props: PropsQuery, limit: number): Promise<PropsAnswer> {
  const answer = await readModel.propValues({ ...selectionOf(scope, params), ...props, valueChars: maxPropValueLength, limit });
  const meta = buildMeta({
    scope,
    params,
    measures: propMeasures,
    freshness: answer.freshness,
    caughtUp: answer.freshness.caughtUp,
    computedFrom: answer.computedFrom,
    truncated: answer.rows.length > limit,
    nextCursor: null,
    limit,
    now: context.clock.now(),
  });
  return { meta, data: { type: props.type, property: props.property, rows: answer.rows.slice(0, limit) } };
}
