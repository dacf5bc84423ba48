// POST /workspaces/:slug/integrations/bridge/actions: records one activity signal for a lead (a user_id seen on one
// of the workspace's sites) and announces it to the subscribed endpoints, in one transaction. The same
// idempotency_key answers the original result with replayed: true and records nothing.
import * as v from 'valibot';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { isUserOnSites } from '../projector/queries/user-on-sites.ts';
import { listSiteIds } from '../tenants/queries/list-sites.ts';
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import { bridgeActionRecorded } from './event-types.ts';
import { announce } from './outbox.ts';
import { type BridgeActionRow, findBridgeActionByKey, insertBridgeAction } from './queries/bridge-action-rows.ts';

export const bridgeActionSchema = 'sightline.integration.action@1';
export const bridgeSignals = ['qualified', 'contacted', 'meeting_booked', 'follow_up_required'] as const;
export type BridgeSignal = (typeof bridgeSignals)[number];

/** Printable ASCII without spaces: ids and keys as automation platforms make them. */
const visibleAscii = /^[\x21-\x7e]+$/;
const token = (maxLength: number) =>
  v.pipe(
    v.string('must be a string'),
    v.minLength(1, 'must not be empty'),
    v.maxLength(maxLength, `must be at most ${maxLength} characters`),
    v.regex(visibleAscii, 'must be printable ASCII without spaces'),
  );

/** The spec's request, nothing more: unknown fields (contact details, prices, notes…) are refused. */
export const BridgeActionBody = v.strictObject(
  {
    schema: v.literal(bridgeActionSchema, `must be ${bridgeActionSchema}`),
    action: v.literal('lead.signal', 'must be lead.signal'),
    lead_id: token(128),
    signal: v.picklist(bridgeSignals, `must be one of ${bridgeSignals.join(', ')}`),
    idempotency_key: token(128),
  },
  'must be an object with only schema, action, lead_id, signal and idempotency_key',
);
export type BridgeActionInput = v.InferOutput<typeof BridgeActionBody>;

export interface BridgeActionResult {
  id: string;
  lead_id: string;
  action: 'lead.signal';
  signal: BridgeSignal;
  recorded_at: string;
  replayed: boolean;
}

function toResult(row: BridgeActionRow, replayed: boolean): BridgeActionResult {
  return { id: row.id, lead_id: row.lead_id, action: 'lead.signal', signal: row.signal as BridgeSignal, recorded_at: row.recorded_at, replayed };
}

/**
 * @example recordBridgeAction(context, workspace, keyId, { schema, action: 'lead.signal', lead_id: 'u1', signal: 'qualified', idempotency_key: 'k1' })
 */
export function recordBridgeAction(context: AppContext, workspace: WorkspaceRow, keyId: string | null, input: BridgeActionInput): BridgeActionResult {
  return inWriteTransaction(context.db, () => {
    const earlier = findBridgeActionByKey(context.db, workspace.id, input.idempotency_key);
    if (earlier) return toResult(earlier, true);
    if (!isUserOnSites(context.db, listSiteIds(context.db, workspace.id), input.lead_id)) throw ApiError.notFound('No such lead in this workspace');
    const now = context.clock.now();
    const row: BridgeActionRow = {
      id: context.random.uuid(),
      workspace_id: workspace.id,
      idempotency_key: input.idempotency_key,
      lead_id: input.lead_id,
      action: input.action,
      signal: input.signal,
      key_id: keyId,
      recorded_at: toIso(now),
    };
    insertBridgeAction(context.db, row);
    const { replayed: _, ...data } = toResult(row, false);
    announce(context.db, { workspaceId: workspace.id, type: bridgeActionRecorded, changeKey: `bridge:${row.id}`, data: { ...data }, now });
    return toResult(row, false);
  });
}
