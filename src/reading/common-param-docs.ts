// The query parameters of the report and event endpoints, as the OpenAPI document lists them.
import type { QueryParameterDoc } from '../http/routes.ts';
import { maxFilterValues, maxRangeDays } from '../vocabulary/report-filters.ts';

const dateSchema = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };

export const dateParams: QueryParameterDoc[] = [
  { name: 'from', description: 'First day, UTC, YYYY-MM-DD (inclusive)', required: true, schema: dateSchema },
  { name: 'to', description: `Last day, UTC, YYYY-MM-DD (inclusive); at most ${maxRangeDays} days in all`, required: true, schema: dateSchema },
];

export const filterParams: QueryParameterDoc[] = [
  { name: 'scope', description: 'all-sites: every site of the workspace', schema: { enum: ['all-sites'] } },
  { name: 'source', description: 'One acquisition source (a visit\'s first event), or a source group\'s name (Google: every source of the group, docs/reports.md)' },
  ...['device', 'browser', 'os', 'country', 'region', 'city', 'path'].map((name) => ({
    name,
    description: `Comma-separated values (at most ${maxFilterValues})`,
  })),
  { name: 'internal', description: 'include adds internal traffic; default exclude', schema: { enum: ['include', 'exclude'] } },
  { name: 'timezone', description: 'Only UTC', schema: { enum: ['UTC'] } },
  { name: 'bots', description: 'Only exclude', schema: { enum: ['exclude'] } },
];

export const commonParams: QueryParameterDoc[] = [...dateParams, ...filterParams];

export function limitParam(fallback: number, max = 200): QueryParameterDoc {
  return { name: 'limit', description: `1-${max}, default ${fallback}`, schema: { type: 'string', pattern: '^\\d+$' } };
}

export const cursorParam: QueryParameterDoc = { name: 'cursor', description: 'The meta.cursor.next of the previous page, unchanged (opaque)' };
