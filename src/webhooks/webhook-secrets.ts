// One secret per (site, adapter): set or rotated by `sightline webhook-secret set`, audited without the secret; read
// by the receiver, which also accepts the previous secret for an hour after a rotation.
import * as v from 'valibot';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { findSite } from '../tenants/queries/find-site.ts';
import { type Actor, recordAudit } from '../audit/record-audit.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { openSecret, sealSecret } from '../secrets/secret-box.ts';
import { findWebhookSecretRow, upsertWebhookSecretRow } from './queries/webhook-secret-rows.ts';

/** The adapters a webhook path may name; any other name answers 404. */
export const webhookAdapters = ['stripe'] as const;
export type WebhookAdapter = (typeof webhookAdapters)[number];

export function isWebhookAdapter(name: string): name is WebhookAdapter {
  return (webhookAdapters as readonly string[]).includes(name);
}

/** How long the secret before a rotation is still accepted. */
export const rotationOverlapMs = 60 * 60 * 1000;

/** Stripe's endpoint secrets are `whsec_` and base64; any visible ASCII is taken, bounded. */
export const SetWebhookSecretBody = v.object({
  adapter: v.picklist(webhookAdapters, `must be one of: ${webhookAdapters.join(', ')}`),
  secret: v.pipe(
    v.string('must be a string'),
    v.regex(/^whsec_[!-~]{8,250}$/, 'must be the endpoint\'s signing secret: whsec_ then 8 to 250 visible ASCII characters'),
  ),
});
export type SetWebhookSecretInput = v.InferOutput<typeof SetWebhookSecretBody>;

export interface SetWebhookSecretResult {
  site_id: string;
  adapter: WebhookAdapter;
  rotated: boolean;
  /** When the secret it replaced stops being accepted; null on a first set. */
  previous_valid_until: string | null;
  updated_at: string;
}

/** The associated data a sealed secret is bound to. */
const boundTo = (siteId: string, adapter: string) => `${siteId}/${adapter}`;

/**
 * Sets the secret of (site, adapter); a secret already there stays accepted for `rotationOverlapMs`. 404 for an
 * unknown site.
 * @example setWebhookSecret(context, systemActor, 'shop', { adapter: 'stripe', secret: 'whsec_…' });
 */
export function setWebhookSecret(context: AppContext, actor: Actor, siteId: string, input: SetWebhookSecretInput): SetWebhookSecretResult {
  const unknownSite = () => ApiError.notFound(`No site ${siteId}`);
  // Checked before sealing too, so a mistyped site creates no key file.
  if (!findSite(context.db, siteId)) throw unknownSite();
  const sealed = sealSecret(context.config.dataDir, context.random, input.secret, boundTo(siteId, input.adapter));
  return inWriteTransaction(context.db, () => {
    const site = findSite(context.db, siteId);
    if (!site) throw unknownSite();
    const now = context.clock.now();
    const existing = findWebhookSecretRow(context.db, { site_id: siteId, adapter: input.adapter });
    const previousValidUntil = existing ? toIso(now + rotationOverlapMs) : null;
    upsertWebhookSecretRow(context.db, {
      site_id: siteId,
      adapter: input.adapter,
      sealed,
      previous_sealed: existing?.sealed ?? null,
      previous_expires_at: previousValidUntil,
      created_at: toIso(now),
      updated_at: toIso(now),
    });
    recordAudit(context, {
      workspaceId: site.workspace_id,
      actor,
      action: 'webhook_secret.set',
      target: siteId,
      metadata: { adapter: input.adapter, rotated: existing !== undefined, previous_valid_until: previousValidUntil },
    });
    return { site_id: siteId, adapter: input.adapter, rotated: existing !== undefined, previous_valid_until: previousValidUntil, updated_at: toIso(now) };
  });
}

/**
 * The secrets a signature of (site, adapter) may match now: the current one, and the previous one until its hour
 * is over. Undefined when none is configured (or the site does not exist): the receiver answers 401.
 */
export function acceptedWebhookSecrets(context: AppContext, siteId: string, adapter: WebhookAdapter): string[] | undefined {
  const row = findWebhookSecretRow(context.db, { site_id: siteId, adapter });
  if (!row) return undefined;
  const secrets = [openSecret(context.config.dataDir, row.sealed, boundTo(siteId, adapter)).toString('utf8')];
  if (row.previous_sealed && row.previous_expires_at && context.clock.now() < Date.parse(row.previous_expires_at)) {
    secrets.push(openSecret(context.config.dataDir, row.previous_sealed, boundTo(siteId, adapter)).toString('utf8'));
  }
  return secrets;
}
