// The spend endpoints (flat envelope): read with query:read, write with admin; every write is audited.
import { getQuery, type H3, type H3Event } from 'h3';
import type { AppContext } from '../context.ts';
import { actorOf } from '../audit/record-audit.ts';
import { resolveWorkspace } from '../access/resolve-access.ts';
import { readBodyBytes, readJsonBody } from '../http/body.ts';
import { checkBodyDeclaration } from '../http/content-type.ts';
import { parseDateRange, parseLimit, type QueryValues, single } from '../reading/common-params.ts';
import { dateRangeRefusals, reportErrors } from '../reading/common-param-errors.ts';
import { json } from '../http/respond.ts';
import { jsonBody, namedInPath, needsCredential, queryParams, refusals } from '../http/refusals.ts';
import { addRoute, type QueryParameterDoc } from '../http/routes.ts';
import { CreatedSpendAnswer, SpendDeleteAnswer, SpendEntryAnswer, SpendImportAnswer, SpendPageAnswer } from './answers.ts';
import { createSpend } from './create-spend.ts';
import { deleteSpend } from './delete-spend.ts';
import { decodeSpendCsv, importSpendCsv, maxCsvBytes } from './import-spend-csv.ts';
import { listSpend } from './list-spend.ts';
import { maxLabelLength, parseSpendBody, SpendArrayBody, SpendEntryBody, SpendPatchBody, SpendPostBody } from './spend-entry.ts';
import { updateSpend } from './update-spend.ts';
import { pathParam } from '../http/path-params.ts';

/** Spend reads and deletes cover at most 366 inclusive days (spec, Limits). */
export const maxSpendRangeDays = 366;

const queryOf = (event: H3Event) => getQuery(event) as QueryValues;

const rangeParams: QueryParameterDoc[] = [
  { name: 'from', description: 'First day, YYYY-MM-DD (UTC), inclusive', required: true, schema: { type: 'string', format: 'date' } },
  { name: 'to', description: 'Last day, YYYY-MM-DD (UTC), inclusive; at most 366 days in all', required: true, schema: { type: 'string', format: 'date' } },
  { name: 'source', description: 'Only entries of this source' },
  { name: 'campaign', description: 'Only entries of this campaign' },
];

function optionalLabel(query: QueryValues, name: string): string | null {
  const text = single(query, name);
  if (text === undefined) return null;
  if (text === '' || text.length > maxLabelLength) throw reportErrors.invalidParam(name, `must be 1 to ${maxLabelLength} characters`);
  return text;
}

function parseRangeFilter(query: QueryValues) {
  const { from, to } = parseDateRange(query, maxSpendRangeDays);
  return { from, to, source: optionalLabel(query, 'source'), campaign: optionalLabel(query, 'campaign') };
}

export function mountSpend(app: H3, context: AppContext): void {
  addRoute(app, {
    method: 'GET',
    path: '/workspaces/:slug/spend',
    refusals: refusals(needsCredential, namedInPath, dateRangeRefusals, queryParams),
    summary: 'Spend entries of a day range (at most 366 days), by date',
    query: [...rangeParams, { name: 'limit', description: '1-1000, default 100', schema: { type: 'string', pattern: '^\\d+$' } }, { name: 'cursor', description: 'The next_cursor of the previous page (opaque)' }],
    answer: SpendPageAnswer,
    handler: (event) => {
      const { workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'query:read' });
      const query = queryOf(event);
      const filter = parseRangeFilter(query);
      return listSpend(context, workspace, { ...filter, limit: parseLimit(query, 100, 1000), cursor: single(query, 'cursor') });
    },
  });
  addRoute(app, {
    method: 'POST',
    path: '/workspaces/:slug/spend',
    refusals: refusals(needsCredential, namedInPath, jsonBody),
    summary: 'Record spend: one entry, or an array of 1 to 1000 (all or nothing)',
    body: SpendPostBody,
    status: 201,
    answer: CreatedSpendAnswer,
    handler: async (event) => {
      const { caller, workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'admin' });
      const body = await readJsonBody(event);
      const batch = Array.isArray(body);
      const inputs = batch ? parseSpendBody(SpendArrayBody, body) : [parseSpendBody(SpendEntryBody, body)];
      const entries = createSpend(context, actorOf(caller), workspace, inputs, batch);
      return batch ? { entries } : entries[0]!;
    },
  });
  addRoute(app, {
    method: 'POST',
    path: '/workspaces/:slug/spend/csv',
    refusals: refusals(needsCredential, namedInPath, { 400: ['invalid_payload'], 413: ['payload_too_large'], 415: ['unsupported_media_type'] }),
    summary: `Import spend from text/csv (header date,source,medium,campaign,amount,currency; at most ${maxCsvBytes} bytes; all or nothing)`,
    status: 201,
    answer: SpendImportAnswer,
    handler: async (event) => {
      const { caller, workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'admin' });
      checkBodyDeclaration((name) => event.req.headers.get(name) ?? undefined, ['text/csv']);
      // Bytes, not readBodyText: bytes that are not UTF-8 are a refused line (rows), not a JSON refusal.
      const text = decodeSpendCsv(await readBodyBytes(event, maxCsvBytes));
      return json(importSpendCsv(context, actorOf(caller), workspace, text), 201);
    },
  });
  addRoute(app, {
    method: 'PATCH',
    path: '/workspaces/:slug/spend/:id',
    refusals: refusals(needsCredential, namedInPath, jsonBody),
    summary: 'Change fields of one spend entry',
    body: SpendPatchBody,
    answer: SpendEntryAnswer,
    handler: async (event) => {
      const { caller, workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'admin' });
      const patch = parseSpendBody(SpendPatchBody, await readJsonBody(event));
      return updateSpend(context, actorOf(caller), workspace, pathParam(event, 'id'), patch);
    },
  });
  addRoute(app, {
    method: 'DELETE',
    path: '/workspaces/:slug/spend',
    refusals: refusals(needsCredential, namedInPath, dateRangeRefusals, queryParams),
    summary: 'Delete the spend entries of a day range (at most 366 days), optionally of one source and/or campaign',
    query: rangeParams,
    answer: SpendDeleteAnswer,
    handler: (event) => {
      const { caller, workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'admin' });
      return deleteSpend(context, actorOf(caller), workspace, parseRangeFilter(queryOf(event)));
    },
  });
}
