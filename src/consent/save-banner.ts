// PUT /v2/sites/:siteId/consent-banner/config: optimistic concurrency on config_version, idempotent by
// idempotency_key, request_reconsent bumping consent_revision; one audited transaction.
import { createHash } from 'node:crypto';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import { type Actor, recordAudit } from '../audit/record-audit.ts';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import type { BannerAnswer } from './answers.ts';
import type { SaveBannerBody } from './banner-config.ts';
import { findBanner, findBannerSave, insertBannerSave, pruneBannerSaves, upsertBanner } from './queries/banner-rows.ts';

/** How many recent saves of a site keep their answer for a replay (older keys are forgotten; see docs/consent.md). */
export const rememberedSaves = 100;

/** The checked request in a fixed key order (valibot's output follows the schema), so equal requests hash equal. */
function requestDigest(body: SaveBannerBody): string {
  return createHash('sha256').update(JSON.stringify(body)).digest('hex');
}

/**
 * Saves the banner, or replays the answer of the save that used the same idempotency_key with the same request.
 * @example saveBanner(context, actor, site, { config_version: 0, idempotency_key: 'k1', request_reconsent: false, config })
 */
export function saveBanner(context: AppContext, actor: Actor, site: SiteRow, body: SaveBannerBody): BannerAnswer {
  const digest = requestDigest(body);
  return inWriteTransaction(context.db, () => {
    const earlier = findBannerSave(context.db, site.id, body.idempotency_key);
    if (earlier) {
      if (earlier.request_sha256 !== digest) {
        throw ApiError.conflict('idempotency_key_reused', 'This idempotency_key was used for a different save; send a new key');
      }
      return JSON.parse(earlier.answer) as BannerAnswer;
    }
    const current = findBanner(context.db, site.id);
    const currentVersion = current?.config_version ?? 0;
    if (body.config_version !== currentVersion) {
      throw new ApiError(409, 'stale_config_version', `The banner is at config_version ${currentVersion}: read it again and save from there`, [
        { path: '/config_version', message: `must be the current config_version (${currentVersion})` },
      ]);
    }
    const revision = (current?.consent_revision ?? 1) + (body.request_reconsent ? 1 : 0);
    const answer: BannerAnswer = {
      config_version: currentVersion + 1,
      consent_revision: revision,
      config: body.config,
      updated_at: toIso(context.clock.now()),
    };
    upsertBanner(context.db, { site_id: site.id, config_version: answer.config_version, consent_revision: revision, config: JSON.stringify(body.config), updated_at: answer.updated_at! });
    insertBannerSave(context.db, { site_id: site.id, idempotency_key: body.idempotency_key, request_sha256: digest, config_version: answer.config_version, answer: JSON.stringify(answer) });
    pruneBannerSaves(context.db, { site_id: site.id, through_version: answer.config_version - rememberedSaves });
    recordAudit(context, {
      workspaceId: site.workspace_id,
      actor,
      action: 'consent_banner.update',
      target: site.id,
      metadata: { config_version: answer.config_version, consent_revision: revision, request_reconsent: body.request_reconsent },
    });
    return answer;
  });
}
